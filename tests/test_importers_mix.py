"""Tests of the workload mix combined from several imported files."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, REPO, container, european_csv, kube_list, pod

from planner.inputs.importers.mix import import_workloads
from planner.inputs.problems import InputError


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_semicolon_workload_file_with_decimal_commas_imports_as_the_comma_one(
    separator: str,
) -> None:
    """The sample workload mix saved by a European spreadsheet (semicolons or tabs, decimal
    commas such as 0,25 GPUs) imports to the same classes and values as the original."""
    original = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    saved = european_csv(original, separator)
    assert b"0,25" in saved
    european = import_workloads([("workloads.csv", saved)], CATALOG)
    plain = import_workloads([("workloads.csv", original)], CATALOG)
    assert european.problems == plain.problems == ()
    assert european.frame.equals(plain.frame)


def test_every_file_that_cannot_give_workloads_is_named_in_one_refusal() -> None:
    """An unreadable file and a host listing beside a good workload CSV: the refusal names
    both, the listing with where to give it instead."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    files = [
        ("notes.txt", b"hello there\nrandom words\n"),
        ("nvidia-smi.txt", b"GPU 0: NVIDIA L40S (UUID: GPU-0)\n"),
        ("workloads.csv", good),
    ]
    with pytest.raises(InputError) as caught:
        import_workloads(files, CATALOG)
    problems = caught.value.problems
    assert [p.file for p in problems] == ["notes.txt", "nvidia-smi.txt"]
    assert "describes hosts, not workloads" in problems[1].message
    assert "inventory" in problems[1].fix


def test_measured_pods_matching_no_class_are_listed_with_invisible_characters_escaped() -> None:
    """DCGM pods that match no workload class are listed in a note, each as namespace/pod
    with an invisible character escaped (a pod label holding a zero-width space is told from
    the pod it looks like); it was listed unseen."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    labels = 'gpu="0",UUID="GPU-1",modelName="NVIDIA L4",Hostname="n1",namespace="ml"'
    scrape = (
        f'DCGM_FI_DEV_GPU_UTIL{{{labels},pod="zz\u200b-0"}} 50\n'
        f'DCGM_FI_DEV_GPU_UTIL{{{labels},pod="yy-0"}} 40\n'
    ).encode()
    imported = import_workloads([("workloads.csv", good), ("l4.prom", scrape)], CATALOG)
    (note,) = [n for n in imported.notes if "match no workload class" in n.text]
    assert note.text == (
        "2 measured pods match no workload class (ml/zz\\u200b-0, ml/yy-0): not used"
    )


def test_a_pod_measured_on_several_gpus_that_matches_no_class_is_counted_once() -> None:
    """An unmatched pod measured on three GPUs is one pod in the note, and pods past the fifth
    are counted, not dropped from the list unsaid; it said '3 measured pod(s)' and listed the
    pod three times."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    labels = 'modelName="NVIDIA L4",Hostname="n1",namespace="ml"'
    lines = [
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="{gpu}",UUID="GPU-{gpu}",{labels},pod="zz-0"}} 50'
        for gpu in range(3)
    ]
    lines += [
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="9",UUID="GPU-9",{labels},pod="p-{n}"}} 5' for n in range(6)
    ]
    scrape = ("\n".join(lines) + "\n").encode()
    imported = import_workloads([("workloads.csv", good), ("l4.prom", scrape)], CATALOG)
    (note,) = [n for n in imported.notes if "match no workload class" in n.text]
    assert note.value == "7"
    assert note.text == (
        "7 measured pods match no workload class (ml/zz-0, ml/p-0, ml/p-1, ml/p-2, ml/p-3 "
        "and 2 more): not used"
    )


def test_a_class_named_again_by_pods_is_a_problem_of_the_pods_file() -> None:
    """A class of the pods' (Deployment chat-llm) named as a class of an earlier workload CSV is
    renamed, the problem naming the pods' file as given and the earlier file; it named the
    notes text ('pods.json: Deployment ml/chat-llm (1 pod(s))') as the file."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    gpu = container(limits={"nvidia.com/gpu": "1"})
    replica_set = ("ReplicaSet", "chat-llm-7d9f8c6b5d")
    pods = kube_list(pod("chat-llm-7d9f8c6b5d-x2k4q", owner=replica_set, containers=[gpu]))
    imported = import_workloads([("workloads.csv", good), ("pods.json", pods)], CATALOG)
    (problem,) = [p for p in imported.problems if p.column == "name"]
    assert (problem.file, problem.row) == ("pods.json", None)
    assert problem.message == ("class 'chat-llm' is also in workloads.csv: renamed 'chat-llm-2'")
    assert sorted(imported.frame["name"])[:2] == ["chat-llm", "chat-llm-2"]


def test_a_class_named_in_two_workload_files_is_quoted_as_messages_quote_names() -> None:
    """A class name used in two workload CSVs is quoted as every message quotes a name
    (``tabular.quoted``: a long one cut, its length said), the earlier file named with its
    invisible character escaped, and the problem is the later file's; the name was written
    whole and the file given as 'from b.csv (the planner's workload CSV)'."""
    name = "x" * 100
    header, first = (REPO / "data" / "sample" / "workloads.csv").read_text().splitlines()[:2]
    table = f"{header}\n{name}{first[first.index(',') :]}\n".encode()
    imported = import_workloads([("team\u200ba.csv", table), ("b.csv", table)], CATALOG)
    (problem,) = imported.problems
    assert (problem.file, problem.column) == ("b.csv", "name")
    cut = "x" * 60 + "… (100 characters)"
    assert problem.message == (
        f"class '{cut}' is also in team\\u200ba.csv: renamed '{'x' * 60}… (102 characters)'"
    )
    assert list(imported.frame["name"]) == [name, f"{name}-2"]


_SLICED_L4 = 'UUID="GPU-0",gpu="0",modelName="NVIDIA L4",Hostname="n1",namespace="prod"'


def _time_sliced(*pods: str) -> bytes:
    """A scrape of one time-sliced L4 used by ``pods``: the device's 90 % and 20000 MiB on each
    pod's series, as dcgm-exporter writes them."""
    lines = [
        f'{metric}{{{_SLICED_L4},pod="{name}",container="app"}} {value}'
        for metric, value in (("DCGM_FI_DEV_GPU_UTIL", 90), ("DCGM_FI_DEV_FB_USED", 20000))
        for name in pods
    ]
    return ("\n".join(lines) + "\n").encode()


def _deployment_pods(*names: str) -> bytes:
    gpu = container("app", limits={"nvidia.com/gpu": "1"})
    return kube_list(
        *[
            pod(
                name,
                namespace="prod",
                owner=("ReplicaSet", name.rsplit("-", 1)[0]),
                containers=[gpu],
            )
            for name in names
        ]
    )


def test_pods_of_two_classes_on_one_time_sliced_gpu_keep_their_figures_with_a_problem() -> None:
    """Pods of classes a and b whose series carry one GPU (time-slicing) hold the device's
    figures, not each pod's: neither class takes them (each keeps its assumed busy fraction and
    memory) and one problem names the GPU, the pods, the classes and how to measure per pod;
    each class was given the whole device's busy 0.9 and 19.5 GiB, with no word."""
    pods = ("a-6d4cf56db6-abcde", "b-7f8d9c6b5-xyzab")
    alone = import_workloads([("pods.json", _deployment_pods(*pods))], CATALOG)
    imported = import_workloads(
        [("pods.json", _deployment_pods(*pods)), ("sliced.prom", _time_sliced(*pods))], CATALOG
    )
    columns = ["name", "busy_fraction", "memory_gib"]
    assert imported.frame[columns].equals(alone.frame[columns])
    (problem,) = imported.problems
    assert problem.file == "sliced.prom"
    assert problem.message == (
        "GPU-0 on n1 carries the series of 2 pods at once (prod/a-6d4cf56db6-abcde, "
        "prod/b-7f8d9c6b5-xyzab, of classes 'a', 'b'): on a time-sliced or MPS GPU "
        "the exporter repeats the whole device's figures on each pod's series, so no pod's own "
        "use is known: they are not used, and each class keeps its busy_fraction and "
        "memory_gib as given, or as measured on GPUs of its own"
    )
    assert "MIG" in problem.fix
    assert not [n for n in imported.notes if n.text.startswith("measured")]


def test_replicas_of_one_class_on_one_time_sliced_gpu_share_its_figures_equally() -> None:
    """Two replicas of one Deployment on one time-sliced GPU share the device's 90 % and
    20000 MiB equally: the class is busy 0.45 with 9.766 GiB, a note saying the figure is the
    device's split among its 2 pods; it was given the whole device's figures."""
    pods = ("inf-6d4cf56db6-abcde", "inf-6d4cf56db6-fghij")
    imported = import_workloads(
        [("pods.json", _deployment_pods(*pods)), ("sliced.prom", _time_sliced(*pods))], CATALOG
    )
    (row,) = imported.frame.to_dict("records")
    assert (row["busy_fraction"], row["memory_gib"]) == (0.45, 9.766)
    assert imported.problems == ()
    busy = next(n for n in imported.notes if n.field == "busy_fraction")
    assert busy.text.endswith(
        "; a shared GPU's figures split equally among the class's pods on it: 2 pods on GPU-0 on n1"
    )


def test_a_pod_on_two_gpus_adds_both_gpus_memory_and_shares_neither() -> None:
    """A pod measured on GPUs 0 and 1 (20000 and 12000 MiB) needs 31.25 GiB, and is busy the
    mean of 90 % and 50 %; no GPU is taken as shared."""
    gpu = container("app", limits={"nvidia.com/gpu": "2"})
    pods = kube_list(pod("big-0", namespace="prod", owner=("StatefulSet", "big"), containers=[gpu]))
    other = _SLICED_L4.replace('UUID="GPU-0",gpu="0"', 'UUID="GPU-1",gpu="1"')
    scrape = (
        f'DCGM_FI_DEV_GPU_UTIL{{{_SLICED_L4},pod="big-0"}} 90\n'
        f'DCGM_FI_DEV_GPU_UTIL{{{other},pod="big-0"}} 50\n'
        f'DCGM_FI_DEV_FB_USED{{{_SLICED_L4},pod="big-0"}} 20000\n'
        f'DCGM_FI_DEV_FB_USED{{{other},pod="big-0"}} 12000\n'
    ).encode()
    imported = import_workloads([("pods.json", pods), ("two.prom", scrape)], CATALOG)
    (row,) = imported.frame.to_dict("records")
    assert (row["busy_fraction"], row["memory_gib"]) == (0.7, 31.25)
    assert imported.problems == ()
