"""Tests of GPU use measured by the DCGM exporter (Prometheus text)."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, DCGM, sample

from planner.inputs.importers.dcgm import measure, read_dcgm_samples
from planner.inputs.importers.mix import import_workloads
from planner.inputs.problems import InputError

_MIG_GPU = (
    'gpu="0",UUID="GPU-a",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="h100-1"'
)
_CHAT = (
    'GPU_I_PROFILE="1g.10gb",GPU_I_ID="9",container="srv",namespace="ml",'
    'pod="chat-7d9f8c6b5d-x2k4q"'
)
_TRAIN = 'GPU_I_PROFILE="3g.40gb",GPU_I_ID="2",container="trainer",namespace="ml",pod="train-0"'
MIG_SCRAPE = f"""\
# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.
# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge
DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{_MIG_GPU},{_CHAT}}} 0.40 1700000000000
DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{_MIG_GPU},{_TRAIN}}} 0.90 1700000000000
DCGM_FI_DEV_FB_USED{{{_MIG_GPU},{_CHAT}}} 6144 1700000000000
""".encode()


def test_l4_sample_scrape() -> None:
    """The L4 scrape: one GPU on host i-030791dc5a37cd257, busy 0 from GR_ENGINE_ACTIVE (preferred
    over GPU_UTIL), 0 MiB frame buffer used, no pod; other metrics ignored."""
    name, data = sample(DCGM)
    samples, problems = read_dcgm_samples(data, name)
    assert problems == []
    (gpu,) = measure(samples)
    assert (gpu.host, gpu.gpu, gpu.model_name, gpu.pod) == (
        "i-030791dc5a37cd257",
        "0",
        "NVIDIA L4",
        "",
    )
    assert gpu.uuid == "GPU-c2f76b33-7953-256e-8f33-1343419b1a1c"
    assert (gpu.busy_fraction, gpu.busy_metric, gpu.busy_samples) == (
        0.0,
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        1,
    )
    assert (gpu.memory_used_mib, gpu.memory_samples) == (0.0, 1)


def test_mig_series_with_hostname_and_pod_labels() -> None:
    """Series of MIG instances (GPU_I_PROFILE, GPU_I_ID) with lower-case ``hostname``, pod,
    namespace and container labels and timestamps are measured per instance and pod."""
    samples, _ = read_dcgm_samples(MIG_SCRAPE, "mig.prom")
    found = {m.pod: m for m in measure(samples)}
    chat = found["chat-7d9f8c6b5d-x2k4q"]
    assert (chat.host, chat.mig_profile, chat.mig_instance, chat.namespace, chat.container) == (
        "h100-1",
        "1g.10gb",
        "9",
        "ml",
        "srv",
    )
    assert (chat.busy_fraction, chat.memory_used_mib) == (0.4, 6144.0)
    assert found["train-0"].memory_used_mib is None


def test_several_scrapes_average_busy_and_keep_peak_memory() -> None:
    """Samples of one series over several files: busy is their mean, memory their maximum."""

    def scrape(busy: float, used: int) -> bytes:
        labels = 'gpu="0",UUID="GPU-b",Hostname="n1",pod="etl-abcde",namespace="b"'
        return (
            f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} {busy}\n"
            f"DCGM_FI_DEV_FB_USED{{{labels}}} {used}\n"
        ).encode()

    samples = [
        s
        for i, (b, u) in enumerate([(0.2, 1000), (0.6, 3000), (0.4, 2000)])
        for s in read_dcgm_samples(scrape(b, u), f"s{i}.prom")[0]
    ]
    (gpu,) = measure(samples)
    assert gpu.busy_fraction == pytest.approx(0.4)
    assert (gpu.busy_samples, gpu.memory_used_mib, gpu.memory_samples) == (3, 3000.0, 3)
    assert gpu.files == ("s0.prom", "s1.prom", "s2.prom")


def test_gpu_util_percent_when_profiling_metrics_are_absent() -> None:
    """Without GR_ENGINE_ACTIVE, GPU_UTIL in percent gives the busy fraction."""
    samples, _ = read_dcgm_samples(b'DCGM_FI_DEV_GPU_UTIL{gpu="1",Hostname="h"} 35\n', "u.prom")
    (gpu,) = measure(samples)
    assert (gpu.busy_fraction, gpu.busy_metric) == (0.35, "DCGM_FI_DEV_GPU_UTIL")


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (b'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h"} 130\n', "is 130 %, above 100 %"),
        (b'DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",Hostname="h"} 1.4\n', "is 1.4, above 1"),
    ],
)
def test_busy_above_its_maximum_is_a_problem_not_a_silent_cap(line: bytes, shown: str) -> None:
    """GPU_UTIL above 100 % (or GR_ENGINE_ACTIVE above 1) cannot be measured: the sample is
    left out with a problem naming its line and value, so the other samples of the GPU give its
    busy fraction; it was capped at fully busy in silence."""
    good = b'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h"} 40\n'
    samples, problems = read_dcgm_samples(good + line, "u.prom")
    (problem,) = problems
    assert problem.row == 2
    assert shown in problem.message
    assert "left out" in problem.message
    (gpu,) = measure(samples)
    assert gpu.busy_fraction == 0.4


def test_exported_pod_labels_win_behind_prometheus() -> None:
    """Scraped through Prometheus, the workload's labels are ``exported_pod``/``exported_namespace``
    and ``pod`` is the exporter's own: the exported ones name the workload."""
    line = (
        b'DCGM_FI_DEV_FB_USED{gpu="0",Hostname="h",pod="dcgm-exporter-x1",namespace="gpu-op",'
        b'exported_pod="infer-0",exported_namespace="apps"} 100\n'
    )
    (gpu,) = measure(read_dcgm_samples(line, "p.prom")[0])
    assert (gpu.pod, gpu.namespace) == ("infer-0", "apps")


def test_unreadable_metric_lines_are_problems_with_their_line() -> None:
    """A broken sample line is a problem naming its line; good lines are still read."""
    data = b'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 10\nDCGM_FI_DEV_GPU_UTIL{gpu="1" oops} 5\n'
    samples, problems = read_dcgm_samples(data, "b.prom")
    assert len(samples) == 1
    assert [p.row for p in problems] == [2]


def test_text_without_dcgm_metrics_is_refused() -> None:
    """A scrape of another exporter is an InputError saying where DCGM's metrics are."""
    with pytest.raises(InputError, match="9400/metrics"):
        read_dcgm_samples(b"node_cpu_seconds_total 1\n", "node.prom")


_L4 = 'gpu="0",UUID="GPU-l4",modelName="NVIDIA L4",Hostname="n1",pod="infer-0",namespace="a"'


def test_frame_buffer_above_the_gpus_own_memory_is_left_out_naming_line_value_and_model() -> None:
    """200,000 MiB used on a GPU whose modelName names an L4 (24 GiB) cannot be measured: the
    sample is left out with a problem naming its line, the value, the L4's memory and the fix,
    and the GPU's peak is its other samples'. It was taken as the class's memory need."""
    data = (
        f"DCGM_FI_DEV_FB_USED{{{_L4}}} 20000\n"
        f"DCGM_FI_DEV_FB_USED{{{_L4}}} 200000\n"
        f"DCGM_FI_DEV_FB_USED{{{_L4}}} 24576\n"
    ).encode()
    samples, problems = read_dcgm_samples(data, "l4.prom", CATALOG)
    (problem,) = problems
    assert (problem.file, problem.row, problem.column) == ("l4.prom", 2, "DCGM_FI_DEV_FB_USED")
    assert problem.message == (
        "DCGM_FI_DEV_FB_USED is 200000 MiB, more than the 24 GiB (24,576 MiB) of the L4 its "
        "modelName 'NVIDIA L4' names: the sample is left out"
    )
    assert "correct the modelName label if the GPU is not the L4 it names" in problem.fix
    (gpu,) = measure(samples)
    assert (gpu.memory_used_mib, gpu.memory_samples) == (24576.0, 2)


@pytest.mark.parametrize(
    "model_name",
    ["Tesla P100-PCIE-16GB", "NVIDIA A100 PCIe", ""],
    ids=["not in the catalog", "size left open", "no modelName"],
)
def test_frame_buffer_is_bounded_only_by_a_model_the_name_settles(model_name: str) -> None:
    """A GPU the catalog lacks, a name that leaves the size open (an A100 PCIe is 40 or 80 GB)
    or no modelName bounds nothing but the 1 TiB fault limit: 60,000 MiB is read."""
    labels = f'gpu="0",modelName="{model_name}",Hostname="n1"'
    data = f"DCGM_FI_DEV_FB_USED{{{labels}}} 60000\n".encode()
    samples, problems = read_dcgm_samples(data, "x.prom", CATALOG)
    assert problems == []
    assert [s.value for s in samples] == [60000.0]


def test_without_the_catalog_no_gpu_memory_bounds_a_sample() -> None:
    """Read without a catalog, the sample is kept: no model's memory is known."""
    data = f"DCGM_FI_DEV_FB_USED{{{_L4}}} 200000\n".encode()
    samples, problems = read_dcgm_samples(data, "l4.prom")
    assert (len(samples), problems) == (1, [])


def test_an_import_bounds_a_sample_by_the_gpu_its_model_name_names() -> None:
    """Imported among the workload files, a scrape's sample above its L4's memory is a problem
    on its line, as the reader given the catalog says, not the class's memory need."""
    data = f"DCGM_FI_DEV_FB_USED{{{_L4}}} 200000\n".encode()
    with pytest.raises(InputError) as refused:
        import_workloads([("l4.prom", data)], CATALOG)
    assert ("l4.prom", 1) in [(p.file, p.row) for p in refused.value.problems]


def test_a_host_label_with_an_invisible_character_is_read_without_it_and_said_once() -> None:
    """A Hostname label holding a zero-width space is read without it, as every importer reads
    host names (the series' host then matches the other files' hosts), with one problem on the
    first line giving it, naming the label and quoting the name escaped."""
    labels = 'gpu="0",UUID="GPU-a",modelName="NVIDIA L4",Hostname="gpu\u200b-1"'
    data = (
        f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} 50\n"
        f"DCGM_FI_DEV_FB_USED{{{labels}}} 1024\n"
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="0",UUID="GPU-b",Hostname="gpu-2"}} 10\n'
    ).encode()
    samples, problems = read_dcgm_samples(data, "scrape.prom", CATALOG)
    (problem,) = problems
    assert (problem.file, problem.row, problem.column) == ("scrape.prom", 1, "Hostname")
    assert "'gpu\\u200b-1' (it holds an invisible character: \\u200b" in problem.message
    assert "read as 'gpu-1'" in problem.message
    assert sorted(m.host for m in measure(samples)) == ["gpu-1", "gpu-2"]


def test_a_host_label_of_invisible_characters_only_is_a_problem_naming_the_label_used() -> None:
    """A Hostname label holding only a zero-width space names no host: the series' host is
    read from the next host label (exported_Hostname), or the series has none, and a problem on
    the first line giving it names the label, quotes the value escaped and says which host is
    used instead."""
    with_next = 'gpu="0",UUID="GPU-a",Hostname="\u200b",exported_Hostname="gpu-3"'
    alone = 'gpu="1",UUID="GPU-b",Hostname="\u2060"'
    data = (
        f"DCGM_FI_DEV_GPU_UTIL{{{with_next}}} 50\n"
        f"DCGM_FI_DEV_GPU_UTIL{{{with_next}}} 40\n"
        f"DCGM_FI_DEV_GPU_UTIL{{{alone}}} 10\n"
    ).encode()
    samples, problems = read_dcgm_samples(data, "scrape.prom", CATALOG)
    first, second = problems
    assert (first.file, first.row, first.column) == ("scrape.prom", 1, "Hostname")
    assert first.message == (
        "the host name '\\u200b' (it holds an invisible character: \\u200b, U+200B ZERO WIDTH "
        "SPACE) holds only invisible characters: the series' host is read from its "
        "exported_Hostname label, 'gpu-3'"
    )
    assert first.fix == "give the Hostname label the host's name (or drop the label)"
    assert (second.row, second.column) == (3, "Hostname")
    assert second.message.endswith("invisible characters: the series is read without a host")
    assert sorted(m.host for m in measure(samples)) == ["", "gpu-3"]


_L4 = 'UUID="GPU-0",gpu="0",modelName="NVIDIA L4",Hostname="n1",namespace="prod",container="app"'


def test_a_gpu_whose_series_name_several_pods_at_once_is_split_equally_among_them() -> None:
    """Two pods' series carrying one GPU (same host and UUID) in one scrape hold the device's
    figures, repeated (time-slicing or MPS): each pod is measured at an equal share, half of
    90 % and of 20000 MiB, and names the pod it shares with; each was given the whole
    device's 0.9 and 20000 MiB."""
    scrape = (
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="a-0"}} 90\n'
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="b-0"}} 90\n'
        f'DCGM_FI_DEV_FB_USED{{{_L4},pod="a-0"}} 20000\n'
        f'DCGM_FI_DEV_FB_USED{{{_L4},pod="b-0"}} 20000\n'
    ).encode()
    samples, _ = read_dcgm_samples(scrape, "sliced.prom")
    found = {m.pod: m for m in measure(samples)}
    assert (found["a-0"].busy_fraction, found["a-0"].memory_used_mib) == (0.45, 10000)
    assert (found["b-0"].busy_fraction, found["b-0"].memory_used_mib) == (0.45, 10000)
    assert found["a-0"].shared_with == (("prod", "b-0"),)
    assert found["b-0"].shared_with == (("prod", "a-0"),)


def test_a_pod_on_two_gpus_or_two_pods_at_different_times_share_no_gpu() -> None:
    """A pod measured on GPUs 0 and 1 keeps each GPU's whole figures; two pods on one GPU in
    scrapes of different times (two files, or two timestamps of one file) followed each other
    on it: neither is split."""
    other = _L4.replace('UUID="GPU-0",gpu="0"', 'UUID="GPU-1",gpu="1"')
    two_gpus = (
        f'DCGM_FI_DEV_FB_USED{{{_L4},pod="a-0"}} 20000\n'
        f'DCGM_FI_DEV_FB_USED{{{other},pod="a-0"}} 12000\n'
    ).encode()
    samples, _ = read_dcgm_samples(two_gpus, "multi.prom")
    peaks = {m.gpu: (m.memory_used_mib, m.shared_with) for m in measure(samples)}
    assert peaks == {"0": (20000, ()), "1": (12000, ())}
    first, _ = read_dcgm_samples(f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="a-0"}} 90\n'.encode(), "1.prom")
    second, _ = read_dcgm_samples(
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="b-0"}} 80\n'.encode(), "2.prom"
    )
    timed, _ = read_dcgm_samples(
        (
            f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="a-0"}} 90 1700000000000\n'
            f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="b-0"}} 80 1700000060000\n'
        ).encode(),
        "timed.prom",
    )
    for samples in (first + second, timed):
        busy = {m.pod: (m.busy_fraction, m.shared_with) for m in measure(samples)}
        assert busy == {"a-0": (0.9, ()), "b-0": (0.8, ())}


def _scrape(pod: str, *, help_lines: bool) -> str:
    """One scrape of the exporter's page: the L4's busy share 80 % and 16000 MiB, on ``pod``."""
    lines = []
    for metric, value in (("DCGM_FI_DEV_GPU_UTIL", 80), ("DCGM_FI_DEV_FB_USED", 16000)):
        if help_lines:
            lines += [f"# HELP {metric} As the exporter says.", f"# TYPE {metric} gauge"]
        lines.append(f'{metric}{{{_L4},pod="{pod}"}} {value}')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("help_lines", [True, False], ids=["help-blocks", "bare-series"])
def test_scrapes_appended_to_one_file_are_different_times(help_lines: bool) -> None:
    """Five scrapes appended to one file (curl in a loop, no timestamps) in which pod a-0 held
    the GPU in the first two and b-0, which replaced it, in the last three: a # HELP/# TYPE
    block, or a metric's group of lines, seen again starts the next scrape, so neither pod
    shared the GPU and each is measured at the whole 80 % and 16000 MiB, not half."""
    pods = ("a-0", "a-0", "b-0", "b-0", "b-0")
    data = "".join(_scrape(pod, help_lines=help_lines) for pod in pods).encode()
    samples, problems = read_dcgm_samples(data, "loop.prom")
    assert problems == []
    found = {m.pod: m for m in measure(samples)}
    assert (found["a-0"].busy_fraction, found["a-0"].memory_used_mib) == (0.8, 16000)
    assert (found["b-0"].busy_fraction, found["b-0"].memory_used_mib) == (0.8, 16000)
    assert (found["a-0"].busy_samples, found["b-0"].busy_samples) == (2, 3)
    assert found["a-0"].shared_with == found["b-0"].shared_with == ()


def test_pods_sharing_a_gpu_in_each_appended_scrape_are_still_split() -> None:
    """Two scrapes appended to one file, each listing pods a-0 and b-0 on one GPU (time-slicing):
    within each scrape the device's figures are split equally, 45 % and 10000 MiB a pod; a
    series listed time by time, each line with its timestamp, is split by its timestamp."""
    one = (
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="a-0"}} 90\n'
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="b-0"}} 90\n'
        f'DCGM_FI_DEV_FB_USED{{{_L4},pod="a-0"}} 20000\n'
        f'DCGM_FI_DEV_FB_USED{{{_L4},pod="b-0"}} 20000\n'
    )
    timed = "".join(
        f'DCGM_FI_DEV_GPU_UTIL{{{_L4},pod="{pod}"}} 90 {at}\n'
        for pod in ("a-0", "b-0")
        for at in (1700000000000, 1700000060000)
    )
    for data, busy, memory in ((one + one, 0.45, 10000), (timed, 0.45, None)):
        samples, _ = read_dcgm_samples(data.encode(), "shared.prom")
        found = {m.pod: m for m in measure(samples)}
        assert (found["a-0"].busy_fraction, found["a-0"].memory_used_mib) == (busy, memory)
        assert found["a-0"].shared_with == (("prod", "b-0"),)
        assert found["b-0"].shared_with == (("prod", "a-0"),)


def test_old_namespace_pod_labels_name_the_workload_also_behind_prometheus() -> None:
    """dcgm-exporter run with --use-old-namespace names the pod in ``pod_name``,
    ``pod_namespace`` and ``container_name``: read alone, or beside a Prometheus's ``pod`` and
    ``namespace`` (the exporter's own pod), they name the workload; the series was read as a
    GPU carrying no pod."""
    old = 'gpu="0",uuid="GPU-1",Hostname="h",pod_name="infer-0",pod_namespace="apps",'
    alone = f'DCGM_FI_DEV_FB_USED{{{old}container_name="srv"}} 100\n'
    scraped = (
        f'DCGM_FI_DEV_FB_USED{{{old}container_name="srv",pod="dcgm-exporter-x1",'
        'namespace="gpu-op",container="exporter"} 100\n'
    )
    for data in (alone, scraped):
        (gpu,) = measure(read_dcgm_samples(data.encode(), "p.prom")[0])
        assert (gpu.pod, gpu.namespace, gpu.container, gpu.uuid) == (
            "infer-0",
            "apps",
            "srv",
            "GPU-1",
        )
