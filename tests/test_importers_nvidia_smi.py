"""Tests of GPU hosts read from nvidia-smi's query CSV, ``-L`` list and plain table."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator

import pytest
from csv_layouts import LAYOUTS
from importer_samples import (
    CATALOG,
    NVIDIA_SMI_LIST,
    NVIDIA_SMI_QUERY,
    NVIDIA_SMI_TABLE,
    sample,
)

from planner.inputs.importers.detect import Format, detect_format
from planner.inputs.importers.hosts import HostFacts, HostsRead
from planner.inputs.importers.nvidia_smi import (
    gpu_instance_profile,
    is_not_available,
    read_nvidia_smi_list,
    read_nvidia_smi_query,
    read_nvidia_smi_report,
    read_nvidia_smi_table,
)
from planner.inputs.problems import InputError

OLD_TABLE = b"""\
Tue Mar  3 10:02:01 2020
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  A100-SXM4-40GB      On   | 00000000:36:00.0 Off |                    0 |
| N/A   29C    P0    62W / 400W |     20MiB / 40537MiB |      N/A     Default |
|                               |                      |              Enabled |
+-------------------------------+----------------------+----------------------+
|   1  A100-SXM4-40GB      On   | 00000000:37:00.0 Off |                    0 |
| N/A   29C    P0    60W / 400W |      0MiB / 40537MiB |      0%      Default |
|                               |                      |              Enabled |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| MIG devices:                                                                |
+------------------+----------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |
|      ID  ID  Dev |                      | SM     Unc| CE  ENC  DEC  OFA  JPG|
|                  |                      |        ECC|                       |
|==================+======================+===========+=======================|
|  0    1   0   0  |     11MiB / 20224MiB | 42      0 |  3   0    2    0    0  |
+------------------+----------------------+-----------+-----------------------+
|  0    2   0   1  |      7MiB / 20096MiB | 56      0 |  3   0    2    0    0  |
+------------------+----------------------+-----------+-----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|  No running processes found                                                 |
+-----------------------------------------------------------------------------+
"""
"""The driver 450 layout: 79 columns, ``|---+---|`` under the banner, MIG devices one line each."""

OLD_PLAIN_TABLE = b"""\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |
| N/A   38C    P0    27W /  70W |      0MiB / 15079MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


def _values(host: HostFacts) -> dict[str, object]:
    return {f.field: f.value for f in host.facts}


def _one(read: HostsRead) -> HostFacts:
    assert len(read.hosts) == 1
    return read.hosts[0]


def test_l40s_query_csv_sample() -> None:
    """The 202-column L40S query: one L40S (46068 MiB total), MIG off because the model has no
    MIG (mig.mode.current is [N/A]); the host is named after the file as hostname is [N/A]."""
    name, data = sample(NVIDIA_SMI_QUERY)
    host = _one(read_nvidia_smi_query(data, name, CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "L40S",
        1,
        "no",
    )
    assert host.name == "query-gpu_l40s_595.80_load"
    assert host.name_note is not None
    assert host.name_note.source == "assumed"


def test_l40s_query_memory_total_is_read_in_mib() -> None:
    """memory.total ``46068 MiB`` with units in header and value tells the L40S's 48 GB."""
    data = b"name, memory.total [MiB], mig.mode.current\nNVIDIA L40S, 46068 MiB, [N/A]\n"
    host = _one(read_nvidia_smi_query(data, "h.csv", CATALOG))
    model = host.get("gpu_model")
    assert model is not None
    assert model.value == "L40S"


def test_h100_list_sample_is_8_gpus_with_7_mig_instances_each() -> None:
    """``nvidia-smi -L`` of 8 × H100 80GB HBM3: 8 H100-80GB-SXM GPUs, MIG on, 7 × 1g.10gb each
    (placements not listed)."""
    name, data = sample(NVIDIA_SMI_LIST)
    host = _one(read_nvidia_smi_list(data, name, CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "H100-80GB-SXM",
        8,
        "yes",
    )
    assert [g.gpu_index for g in host.mig_layout] == list(range(8))
    for gpu in host.mig_layout:
        assert [(i.profile, i.start) for i in gpu.instances] == [("1g.10gb", None)] * 7


def test_h200_table_sample() -> None:
    """The driver 590 table of an H200 in MIG mode: one H200-141GB-SXM (143771 MiB), MIG on, and
    its GPU instances from the MIG devices sub-table: 3g.71gb (two compute instances), 2g.35gb
    and two 1g.18gb, told apart by memory and SMs."""
    name, data = sample(NVIDIA_SMI_TABLE)
    read = read_nvidia_smi_table(data, name, CATALOG)
    host = _one(read)
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "H200-141GB-SXM",
        1,
        "yes",
    )
    (gpu,) = host.mig_layout
    assert [i.profile for i in gpu.instances] == ["3g.71gb", "2g.35gb", "1g.18gb", "1g.18gb"]
    assert all(n.source == "derived" for n in read.notes)


def test_old_79_column_table_with_mig_devices() -> None:
    """The driver 450 layout reads the same: 2 × A100 40 GB SXM with MIG on; GPU 0's instances
    are 3g.20gb (42 SMs) and 4g.20gb (56 SMs), equal memory told apart by SMs."""
    host = _one(read_nvidia_smi_table(OLD_TABLE, "dgx-01.txt", CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "A100-40GB-SXM",
        2,
        "yes",
    )
    (gpu,) = host.mig_layout
    assert (gpu.gpu_index, [i.profile for i in gpu.instances]) == (0, ["3g.20gb", "4g.20gb"])
    assert host.name == "dgx-01"


def test_old_table_without_mig_column() -> None:
    """A table without the MIG M. row (no MIG-capable GPU) gives the GPU and no MIG value."""
    host = _one(read_nvidia_smi_table(OLD_PLAIN_TABLE, "t4.txt", CATALOG))
    assert (_values(host)["gpu_model"], _values(host)["mig_enabled"]) == ("T4", "no")


def test_list_without_nvidia_prefix_and_pasted_prompt() -> None:
    """The old ``-L`` format (``GPU 0: Tesla T4``) pasted after a prompt reads; the prompt names
    the host."""
    data = (
        b"ubuntu@infer-3:~$ nvidia-smi -L\n"
        b"GPU 0: Tesla T4 (UUID: GPU-1)\nGPU 1: Tesla T4 (UUID: GPU-2)\n"
        b"ubuntu@infer-3:~$ \n\n"
    )
    host = _one(read_nvidia_smi_list(data, "paste.txt", CATALOG))
    assert host.name == "infer-3"
    assert (_values(host)["gpu_model"], _values(host)["gpus_per_host"]) == ("T4", 2)


def test_unknown_gpu_is_a_problem_and_keeps_the_printed_name() -> None:
    """``Tesla P100-PCIE-16GB`` is not in the catalog: a problem on its line with the own-GPU fix;
    the host's model fact keeps the printed name so the combiner can leave it out."""
    read = read_nvidia_smi_list(b"GPU 0: Tesla P100-PCIE-16GB (UUID: GPU-x)\n", "p.txt", CATALOG)
    (problem,) = read.problems
    assert problem.row == 1
    assert "your own GPU" in problem.fix
    assert _values(_one(read))["gpu_model"] == "Tesla P100-PCIE-16GB"


@pytest.mark.parametrize(
    ("read", "data", "row"),
    [
        (read_nvidia_smi_query, b"name, memory.total [MiB]\nGRID A100D-4C, 4096 MiB\n", 2),
        (
            read_nvidia_smi_query,
            b"index, name, memory.total [MiB], mig.mode.current\n"
            b"0, NVIDIA A100D-4C, 4096 MiB, [N/A]\n",
            2,
        ),
        (read_nvidia_smi_list, b"GPU 0: NVIDIA A16-4Q (UUID: GPU-x)\n", 1),
    ],
)
def test_a_vgpu_guests_view_is_refused_saying_to_run_nvidia_smi_on_the_host(
    read: Callable[..., HostsRead], data: bytes, row: int
) -> None:
    """nvidia-smi inside a vGPU VM shows a profile (GRID A100D-4C, a few GiB), not a GPU: the
    file is refused, row by row, saying to run nvidia-smi on the host. It was read as a whole
    A100 with MIG on."""
    with pytest.raises(InputError) as caught:
        read(data, "vm.csv", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == row
    assert "vGPU guest" in problem.message
    assert "run nvidia-smi on the host" in problem.fix
    assert "RVTools" in problem.fix


def test_vgpu_rows_beside_physical_gpus_are_left_out_and_listed() -> None:
    """Of a query listing physical GPUs and vGPU profiles, the GPUs are read and each profile
    row is a problem naming its row."""
    data = (
        b"hostname, name, memory.total [MiB]\n"
        b"gpu-1, NVIDIA L4, 23034 MiB\n"
        b"vm-7, GRID A100D-4C, 4096 MiB\n"
        b"vm-8, GRID A100D-4C, 4096 MiB\n"
    )
    read = read_nvidia_smi_query(data, "all.csv", CATALOG)
    assert [h.name for h in read.hosts] == ["gpu-1"]
    assert [(p.row, "vGPU profile A100D-4C" in p.message) for p in read.problems] == [
        (3, True),
        (4, True),
    ]


def test_query_columns_in_any_order_nounits_and_hostname() -> None:
    """Columns are found by name in any order, ``nounits`` values read as MiB, and a hostname
    column splits the rows into hosts."""
    data = (
        b"mig.mode.current, memory.total [MiB], hostname, name, index\n"
        b"Enabled, 81920, a1, NVIDIA A100 80GB PCIe, 0\n"
        b"Enabled, 81920, a1, NVIDIA A100 80GB PCIe, 1\n"
        b"Disabled, 40960, b1, NVIDIA A100-PCIE-40GB, 0\n"
    )
    read = read_nvidia_smi_query(data, "all.csv", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert values["a1"]["gpus_per_host"] == 2
    assert values["a1"]["mig_enabled"] == "yes"
    assert (values["b1"]["gpu_model"], values["b1"]["mig_enabled"]) == ("A100-40GB-PCIe", "no")
    naming = read.hosts[0].name_note
    assert naming is not None
    assert naming.source == "read"


def test_two_models_in_one_host_count_the_first_and_report_the_other() -> None:
    """The inventory holds one model per host: the first model's GPUs are counted and the other
    model's are a problem on their line."""
    data = b"name\nNVIDIA L4\nNVIDIA L4\nNVIDIA A10\n"
    read = read_nvidia_smi_query(data, "h.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    assert read.problems[0].row == 4


def test_query_without_name_column_is_refused() -> None:
    """A query without ``name`` cannot map GPUs: the fix shows the command to run."""
    with pytest.raises(InputError, match="--query-gpu=name"):
        read_nvidia_smi_query(b"index, memory.total [MiB]\n0, 81920 MiB\n", "h.csv", CATALOG)


def test_rows_of_the_wrong_width_are_problems() -> None:
    """A row with more values than the header is a problem on its line; the others are read."""
    data = b"name, index\nNVIDIA L4, 0\nNVIDIA L4, 1, extra\n"
    read = read_nvidia_smi_query(data, "h.csv", CATALOG)
    assert read.problems[0].row == 3
    assert _values(_one(read))["gpus_per_host"] == 1


@pytest.mark.parametrize("value", ["[N/A]", "N/A", "[Not Supported]", "", " [Unknown Error] "])
def test_not_available_values(value: str) -> None:
    """nvidia-smi's spellings of a missing value are all missing."""
    assert is_not_available(value)


def _profile(model: str, memory_mib: float, sms: int | None) -> str:
    found, _ = gpu_instance_profile(model, memory_mib, sms, CATALOG)
    assert found is not None
    return found.name


def test_gpu_instance_profile_from_memory_and_sms() -> None:
    """An H100 instance of 40 GiB and 60 SMs is 3g.40gb; with 64 SMs 4g.40gb; 10 GiB is 1g.10gb
    whatever its SMs."""
    assert _profile("H100-80GB-SXM", 40192, 60) == "3g.40gb"
    assert _profile("H100-80GB-SXM", 40192, 64) == "4g.40gb"
    assert _profile("H100-80GB-SXM", 9856, None) == "1g.10gb"


def test_a_refused_list_says_how_many_more_lines_it_ignored() -> None:
    """Eight lines that are not nvidia-smi -L lines: the file is refused showing the first five,
    then one problem saying three more were like them and on which rows, none left unsaid."""
    data = b"".join(b"not a gpu line %d\n" % n for n in range(8))
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_list(data, "gpus.txt", CATALOG)
    problems = caught.value.problems
    assert [p.row for p in problems[:5]] == [1, 2, 3, 4, 5]
    assert problems[5].message == "3 more problems like these (rows 6-8)"
    assert "no 'GPU n: <name>' line" in problems[6].message


def test_a_headerless_query_is_read_by_its_gpu_name_column_only() -> None:
    """``--format=csv,noheader``: the one column of GPU names gives the model and one row per
    GPU; the other columns' fields are unknown, so MIG mode is assumed off (not read from the
    'Enabled' cell, which could be persistence or ECC mode) and a note says so."""
    data = (
        b"0, NVIDIA A100-SXM4-80GB, 81920 MiB, Enabled\n"
        b"1, NVIDIA A100-SXM4-80GB, 81920 MiB, Enabled\n"
    )
    read = read_nvidia_smi_query(data, "q.txt", CATALOG)
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-80GB-SXM", 2)
    mig = next(f for f in _one(read).facts if f.field == "mig_enabled")
    assert (mig.value, mig.note.source) == ("no", "assumed")
    (note,) = read.notes
    assert note.locator == "column 2 (no header)"
    assert "its other 3 columns are not read" in note.text
    assert "--format=csv" in note.text


def test_the_samples_row_without_its_header_is_read_by_the_name_column() -> None:
    """The 202-column L40S query's data row alone (as noheader prints it) finds the name among
    values such as ``P0`` that are no GPU name."""
    _, data = sample(NVIDIA_SMI_QUERY)
    row = data.splitlines()[1] + b"\n"
    read = read_nvidia_smi_query(row, "l40s.txt", CATALOG)
    assert _values(_one(read))["gpu_model"] == "L40S"
    assert read.notes[0].locator == "column 6 (no header)"


def test_blank_lines_between_headerless_query_rows_are_skipped() -> None:
    """Blank lines between ``--format=csv,noheader`` rows (a paste, a trailing newline) are
    skipped: each other line is one GPU, on its own line number."""
    data = b"\nNVIDIA L4, 23034 MiB\n\n   \nNVIDIA L4, 23034 MiB\n\n"
    read = read_nvidia_smi_query(data, "q.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    assert read.notes[0].line == 2


def test_headerless_query_values_without_a_name_are_refused_with_the_command() -> None:
    """``--query-gpu=index,memory.total --format=csv,noheader`` with blank lines between its
    rows: no column is a GPU name and no field can be told, so the reader refuses it on its
    first row with the command that prints the header."""
    data = b"0, 81920 MiB\n\n1, 81920 MiB\n\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.txt", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == 1
    assert problem.message == (
        "nvidia-smi query output without its header row (--format=csv,noheader) and without a "
        "GPU name: the field of each column cannot be told"
    )
    assert "--format=csv (without noheader" in problem.fix


def test_a_headerless_query_with_two_name_like_columns_is_refused() -> None:
    """Two columns that could each be the GPU name (name and a repeated gpu_name): refused with
    the command that prints the header."""
    data = b"NVIDIA H100 80GB HBM3, NVIDIA H100 80GB HBM3\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.txt", CATALOG)
    (problem,) = caught.value.problems
    assert "without its header row" in problem.message
    assert "column 1" in problem.message
    assert "column 2" in problem.message
    assert problem.fix.startswith("run nvidia-smi --query-gpu=name,memory.total")
    assert "without noheader" in problem.fix


REPORT = b"""\
$ nvidia-smi -q

==============NVSMI LOG==============

Driver Version                            : 535.129.03
Attached GPUs                             : 2
GPU 00000000:07:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : Enabled
        Pending                           : Enabled
    FB Memory Usage
        Total                             : 81920 MiB
        Used                              : 0 MiB
    BAR1 Memory Usage
        Total                             : 131072 MiB

GPU 00000000:0F:00.0
    Product Name                          : NVIDIA A100-SXM4-80GB
    MIG Mode
        Current                           : Disabled
    FB Memory Usage
        Total                             : 81920 MiB
"""
"""``nvidia-smi -q`` of two A100 80 GB, MIG on for the first only; BAR1 has a Total too."""

REPORT_XML = b"""\
<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
\t<driver_version>535.129.03</driver_version>
\t<gpu id="00000000:01:00.0">
\t\t<product_name>NVIDIA L40S</product_name>
\t\t<mig_mode>
\t\t\t<current_mig>N/A</current_mig>
\t\t</mig_mode>
\t\t<fb_memory_usage>
\t\t\t<total>46068 MiB</total>
\t\t</fb_memory_usage>
\t</gpu>
</nvidia_smi_log>
"""


def test_the_q_report_gives_each_gpu_its_name_memory_and_mig_mode() -> None:
    """``nvidia-smi -q``: each ``GPU <bus id>`` section is one GPU, its Product Name the model,
    MIG Mode > Current its MIG mode (on for 1 of 2: derived, yes); FB Memory Usage > Total is
    read, not BAR1's Total."""
    read = read_nvidia_smi_report(REPORT, "gpu-07.txt", CATALOG)
    host = _one(read)
    assert host.name == "gpu-07"
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-80GB-SXM", 2)
    mig = next(f for f in host.facts if f.field == "mig_enabled")
    assert (mig.value, mig.note.source, mig.note.line) == ("yes", "derived", 7)
    assert "MIG mode is on for 1 of 2 GPUs" in mig.note.text


def test_the_q_x_xml_report_reads_like_the_text_one() -> None:
    """``nvidia-smi -q -x``: the ``<gpu>`` element's product_name, fb_memory_usage/total and
    mig_mode/current_mig; an L40S has no MIG; the GPU's line is the ``<gpu>`` tag's."""
    host = _one(read_nvidia_smi_report(REPORT_XML, "l40s.xml", CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "L40S",
        1,
        "no",
    )
    assert host.line == 5


def test_a_q_report_filtered_with_d_is_refused() -> None:
    """``nvidia-smi -q -d MEMORY`` has no Product Name: refused naming -d and what to run."""
    filtered = b"==============NVSMI LOG==============\n\nGPU 00000000:07:00.0\n"
    filtered += b"    FB Memory Usage\n        Total : 81920 MiB\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_report(filtered, "q.txt", CATALOG)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (3, "Product Name")
    assert "filtered with -d" in problem.message
    assert problem.fix.startswith("run nvidia-smi -q without -d")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY a "aaaa">]>\n<nvidia_smi_log/>\n',
            "entity declarations",
        ),
        (b"<nvidia_smi_log><gpu>\n", "not well-formed XML"),
        (b"<?xml version='1.0'?>\n<nvidia_smi_log>\n</nvidia_smi_log>\n", "no GPU"),
    ],
)
def test_xml_that_cannot_be_read_is_refused(data: bytes, message: str) -> None:
    """Entity declarations are refused, not expanded; broken XML and a report without GPUs are
    refused with what to run."""
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_report(data, "q.xml", CATALOG)
    (problem,) = caught.value.problems
    assert message in problem.message
    assert "nvidia-smi -q" in problem.fix


def _loop_log(field: str, samples: int) -> bytes:
    """``nvidia-smi --query-gpu=timestamp,<field>,name,... --format=csv -l 1``: two H100s,
    each GPU once per sample."""
    ids = {"uuid": ("GPU-1b2c", "GPU-3d4e"), "pci.bus_id": ("00000000:18:00.0", "00000000:2A:00.0")}
    rows = [f"timestamp, {field}, name, memory.total [MiB], utilization.gpu [%]"]
    for second in range(samples):
        for gpu in range(2):
            identity = ids[field][gpu] if field in ids else str(gpu)
            rows.append(
                f"2024/05/01 10:00:{second:02d}.120, {identity}, NVIDIA H100 80GB HBM3, "
                f"81559 MiB, {10 * second} %"
            )
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("field", ["uuid", "pci.bus_id", "index"])
def test_each_gpu_of_a_sampled_query_log_is_counted_once(field: str) -> None:
    """A log of ``nvidia-smi -l`` lists every GPU once per sample: a GPU whose UUID, bus id, or
    index beside a timestamp a row above gave is the same GPU, counted once, and the count's
    note says which rows were left out."""
    read = read_nvidia_smi_query(_loop_log(field, samples=3), "gpu-01.csv", CATALOG)
    host = _one(read)
    count = next(f for f in host.facts if f.field == "gpus_per_host")
    assert count.value == 2
    assert "row 4 and 3 more repeat a GPU of a row above" in count.note.text
    assert read.problems == ()


def _timestamped(samples: int, gpus: int) -> bytes:
    """``nvidia-smi --query-gpu=timestamp,name,memory.total --format=csv -l 1``: no GPU id,
    every GPU of a sample at the sample's time."""
    rows = ["timestamp, name, memory.total [MiB]"]
    for second in range(samples):
        rows += [f"2024/05/01 10:00:{second:02d}.120, NVIDIA L4, 23034 MiB"] * gpus
    return ("\n".join(rows) + "\n").encode()


def test_samples_of_a_log_without_a_gpu_id_are_counted_once() -> None:
    """Three samples of two L4s with a timestamp and no index, uuid or bus id: the samples list
    the same GPUs, so the first is counted (2 GPUs, where every row was one: 6) and the note
    says so."""
    read = read_nvidia_smi_query(_timestamped(samples=3, gpus=2), "gpu-01.csv", CATALOG)
    count = next(f for f in _one(read).facts if f.field == "gpus_per_host")
    assert count.value == 2
    assert "3 samples of the same GPUs (timestamp), the first one counted" in count.note.text
    assert read.problems == ()


def test_rows_of_several_timestamps_that_may_be_one_gpu_each_are_listed() -> None:
    """One row per timestamp cannot tell one GPU sampled three times from three GPUs: each row
    is counted, and a problem on the timestamp column says how to tell them apart. Rows of one
    timestamp are one sample, with no problem."""
    read = read_nvidia_smi_query(_timestamped(samples=3, gpus=1), "gpu-01.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 3
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "timestamp")
    assert "3 different timestamps but no index, uuid or pci.bus_id" in problem.message
    assert "--query-gpu=index,uuid" in problem.fix
    single = read_nvidia_smi_query(_timestamped(samples=1, gpus=4), "gpu-01.csv", CATALOG)
    assert _values(_one(single))["gpus_per_host"] == 4
    assert single.problems == ()


def test_an_index_listed_again_without_a_timestamp_is_counted_once_and_listed() -> None:
    """Indexes repeated with nothing to say the rows are samples (two hosts number their GPUs
    alike): each index counted once, and a problem names the first repeated row and the fix."""
    data = b"index, name\n0, NVIDIA L4\n1, NVIDIA L4\n0, NVIDIA L4\n1, NVIDIA L4\n"
    read = read_nvidia_smi_query(data, "h.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = read.problems
    assert (problem.row, problem.column) == (4, "index")
    assert "GPU 0 is listed again (first on row 2)" in problem.message
    assert "--query-gpu=uuid,name" in problem.fix


def test_the_same_index_on_two_hostnames_is_two_gpus() -> None:
    """GPUs are told apart host by host: index 0 of two hostnames is two GPUs."""
    data = b"hostname, index, name\na1, 0, NVIDIA L4\nb1, 0, NVIDIA L4\n"
    read = read_nvidia_smi_query(data, "all.csv", CATALOG)
    assert [_values(h)["gpus_per_host"] for h in read.hosts] == [1, 1]
    assert read.problems == ()


def test_runs_joined_with_their_headers_and_no_gpu_id_are_refused() -> None:
    """Two runs pasted one after the other (the header repeats) without a column telling GPUs
    apart: refused on the repeated header's row, not read as one host's GPUs."""
    data = b"name, memory.total [MiB]\nNVIDIA L4, 23034 MiB\nname, memory.total [MiB]\n"
    data += b"NVIDIA L4, 23034 MiB\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "all.csv", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "header line is repeated" in problem.message
    assert "a file of its own named after the host" in problem.fix


def test_runs_joined_with_their_headers_and_uuids_count_each_gpu_once() -> None:
    """A repeated header between two runs that give UUIDs is skipped, and each GPU counted
    once."""
    run = b"uuid, name\nGPU-aa11, NVIDIA L4\nGPU-bb22, NVIDIA L4\n"
    read = read_nvidia_smi_query(run + run, "gpu-01.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2


def test_an_index_given_again_with_another_uuid_is_refused_as_two_hosts() -> None:
    """GPU 0 twice with two UUIDs is two hosts' outputs joined: refused on the second's row,
    rather than read as one host with both."""
    data = b"index, uuid, name\n0, GPU-aa11, NVIDIA L4\n0, GPU-bb22, NVIDIA L4\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "all.csv", CATALOG)
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (3, "uuid")
    assert "the outputs of two hosts are joined" in problem.message


LIST = b"GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aa11)\n"
LIST += b"  MIG 3g.40gb     Device  0: (UUID: MIG-cc33)\n"
LIST += b"GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-bb22)\n"


def test_a_list_pasted_twice_counts_each_gpu_and_instance_once() -> None:
    """``nvidia-smi -L`` run twice into one file: each UUID is one GPU, with its MIG devices
    counted once."""
    host = _one(read_nvidia_smi_list(LIST + LIST, "gpu-01.txt", CATALOG))
    assert _values(host)["gpus_per_host"] == 2
    assert [len(gpu.instances) for gpu in host.mig_layout] == [1]


def test_two_hosts_lists_joined_are_refused() -> None:
    """Two hosts' ``-L`` lists in one file (GPU 0 again, another UUID): refused naming the row."""
    other = LIST.replace(b"GPU-aa11", b"GPU-dd44").replace(b"GPU-bb22", b"GPU-ee55")
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_list(LIST + other, "all.txt", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == 4
    assert "GPU-dd44" in problem.message


def test_a_list_with_a_uuid_missing_and_a_gpu_given_again_lists_the_repeat() -> None:
    """A hand-edited ``-L`` where one GPU lost its UUID: the UUIDs no longer say the repeats are
    samples, so the GPU given again is counted once and listed with the row that first gave
    it."""
    data = (
        b"GPU 0: NVIDIA L4 (UUID: GPU-aa11)\nGPU 1: NVIDIA L4\nGPU 0: NVIDIA L4 (UUID: GPU-aa11)\n"
    )
    read = read_nvidia_smi_list(data, "gpu-01.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = read.problems
    assert problem.row == 3
    assert "first on row 1" in problem.message


def test_a_query_csv_cell_over_the_field_limit_names_its_line() -> None:
    """A quote opened on line 3 of a query CSV runs past Python's CSV field limit: refused
    naming line 3, where it named no line."""
    header = "name, memory.total [MiB]\nNVIDIA L4, 23034 MiB\n"
    data = (header + '"NVIDIA L4, 23034 MiB\n' + "x" * 140_000 + "\n").encode()
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.csv", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "the CSV limit" in problem.message
    assert problem.fix.startswith('close the quote (") opened on this row')


def test_a_query_csv_line_over_the_field_limit_is_a_long_cell_not_an_open_quote() -> None:
    """A query CSV row of one line longer than Python's CSV field limit, with no quote in it,
    is refused naming that line and the limit, with a fix to shorten the cell, not to close a
    quote the line does not have."""
    limit = csv.field_size_limit()
    header = "name, memory.total [MiB], vbios_version\nNVIDIA L4, 23034 MiB, 95.04\n"
    data = (header + "NVIDIA L4, 23034 MiB, " + "9" * (limit + 1) + "\n").encode()
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.csv", CATALOG)
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("q.csv", 3)
    assert problem.message == (
        f"a cell on this row is longer than {limit:,} characters, the CSV limit: the row is "
        "one line that long, not a quote left open"
    )
    assert "quote" not in problem.fix
    assert problem.fix.startswith("shorten the cell or delete it")


def _report_mig_device(gi: int, ci: int, sms: int, total_mib: int) -> str:
    """One ``MIG Devices > MIG Device`` block of ``nvidia-smi -q``, as indented under a GPU."""
    return (
        "        MIG Device\n"
        f"            Index                         : {gi}\n"
        f"            GPU Instance ID               : {gi}\n"
        f"            Compute Instance ID           : {ci}\n"
        "            Device Attributes\n"
        "                Shared\n"
        f"                    Multiprocessor count  : {sms}\n"
        "                    Copy Engine count     : 2\n"
        "            FB Memory Usage\n"
        f"                Total                     : {total_mib} MiB\n"
        "                Used                      : 11 MiB\n"
        "            BAR1 Memory Usage\n"
        "                Total                     : 32767 MiB\n"
    )


def _report_with_mig_devices() -> bytes:
    """``nvidia-smi -q`` of two A100 80 GB SXM: GPU 0 split into a 3g.40gb (42 SMs), a 4g.40gb
    (56 SMs: equal memory, told apart by SMs) and a 1g.10gb; GPU 1 a 2g.20gb holding two
    compute instances of 14 SMs each. A process line names a GPU instance too."""
    gpu = (
        "GPU 00000000:{bus}:00.0\n"
        "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
        "    MIG Mode\n"
        "        Current                           : Enabled\n"
        "        Pending                           : Enabled\n"
        "    MIG Devices\n"
        "{devices}"
        "    FB Memory Usage\n"
        "        Total                             : 81920 MiB\n"
        "    Processes\n"
        "        GPU instance ID                   : 7\n"
        "        Compute instance ID               : 0\n"
        "        Process ID                        : 4242\n"
    )
    first = "".join(
        _report_mig_device(gi, 0, sms, mib)
        for gi, sms, mib in ((1, 42, 40192), (2, 56, 40192), (9, 14, 9728))
    )
    second = _report_mig_device(3, 0, 14, 19968) + _report_mig_device(3, 1, 14, 19968)
    text = "==============NVSMI LOG==============\n\nAttached GPUs : 2\n"
    text += gpu.format(bus="07", devices=first) + "\n" + gpu.format(bus="0F", devices=second)
    return text.encode()


def test_the_q_report_reads_every_mig_device_of_each_gpu() -> None:
    """``nvidia-smi -q``: every ``MIG Device`` under ``MIG Devices`` is read, not only the first;
    each GPU instance's profile comes from its memory and SMs (summed over its compute
    instances), as the plain table's are; the GPU's own FB Memory Usage is still its total."""
    read = read_nvidia_smi_report(_report_with_mig_devices(), "dgx-a.txt", CATALOG)
    host = _one(read)
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "A100-80GB-SXM",
        2,
        "yes",
    )
    assert [(g.gpu_index, [i.profile for i in g.instances]) for g in host.mig_layout] == [
        (0, ["3g.40gb", "4g.40gb", "1g.10gb"]),
        (1, ["2g.20gb"]),
    ]
    assert any("GPU 1 GPU instance 3: 19968 MiB and 28 SMs" in n.text for n in read.notes)


def test_the_q_x_report_reads_every_mig_device_of_each_gpu() -> None:
    """``nvidia-smi -q -x``: each ``<mig_device>`` of ``<mig_devices>`` gives its GPU instance,
    compute instance, multiprocessor count and fb_memory_usage total; a GPU whose
    ``<mig_devices>`` says ``None`` has no instance."""

    def device(gi: int, sms: int, mib: int) -> str:
        return (
            f"<mig_device><index>{gi}</index><gpu_instance_id>{gi}</gpu_instance_id>"
            "<compute_instance_id>0</compute_instance_id><device_attributes><shared>"
            f"<multiprocessor_count>{sms}</multiprocessor_count></shared></device_attributes>"
            f"<fb_memory_usage><total>{mib} MiB</total></fb_memory_usage></mig_device>\n"
        )

    def gpu(bus: str, mode: str, devices: str) -> str:
        return (
            f'<gpu id="00000000:{bus}:00.0">\n<product_name>NVIDIA A100-SXM4-40GB</product_name>\n'
            f"<mig_mode><current_mig>{mode}</current_mig></mig_mode>\n"
            f"<mig_devices>\n{devices}</mig_devices>\n"
            "<fb_memory_usage><total>40960 MiB</total></fb_memory_usage>\n</gpu>\n"
        )

    body = gpu("07", "Enabled", device(1, 42, 20096) + device(2, 56, 20096))
    body += gpu("0F", "Disabled", "None\n")
    data = f'<?xml version="1.0" ?>\n<nvidia_smi_log>\n{body}</nvidia_smi_log>\n'.encode()
    host = _one(read_nvidia_smi_report(data, "dgx-b.xml", CATALOG))
    assert [(g.gpu_index, [i.profile for i in g.instances]) for g in host.mig_layout] == [
        (0, ["3g.20gb", "4g.20gb"]),
    ]


def test_a_pdsh_run_of_headerless_queries_gives_each_host_its_gpus() -> None:
    """``pdsh -w gpu-[01-02] nvidia-smi --query-gpu=name,memory.total --format=csv,noheader``:
    every line is ``host: <row>``; each host gets the GPUs of its own lines, named after the
    prefix (read, not assumed), and its rows keep their line numbers."""
    data = (
        b"gpu-01: NVIDIA L4, 23034 MiB\n"
        b"gpu-02: NVIDIA H100 80GB HBM3, 81559 MiB\n"
        b"gpu-01: NVIDIA L4, 23034 MiB\n"
    )
    read = read_nvidia_smi_query(data, "fleet.txt", CATALOG)
    found = {h.name: (_values(h)["gpu_model"], _values(h)["gpus_per_host"]) for h in read.hosts}
    assert found == {"gpu-01": ("L4", 2), "gpu-02": ("H100-80GB-SXM", 1)}
    second = read.hosts[1]
    assert (second.line, second.name_note and second.name_note.source) == (2, "read")


def test_a_pdsh_run_of_queries_with_headers_and_of_lists_is_read_host_by_host() -> None:
    """Each host printing its own header (``gpu-01: index, name, ...``) is read as that host's
    query CSV; ``-L`` lines with the prefix are read host by host too, MIG lines included."""
    query = (
        b"gpu-01: index, name, memory.total [MiB]\n"
        b"gpu-01: 0, NVIDIA L4, 23034 MiB\n"
        b"gpu-02: index, name, memory.total [MiB]\n"
        b"gpu-02: 0, NVIDIA L4, 23034 MiB\n"
        b"gpu-02: 1, NVIDIA L4, 23034 MiB\n"
    )
    read = read_nvidia_smi_query(query, "fleet.csv", CATALOG)
    assert [(h.name, _values(h)["gpus_per_host"]) for h in read.hosts] == [
        ("gpu-01", 1),
        ("gpu-02", 2),
    ]
    listed = (
        b"dgx-1: GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aa)\n"
        b"dgx-1:   MIG 3g.20gb     Device  0: (UUID: MIG-a1)\n"
        b"dgx-2: GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-bb)\n"
    )
    hosts = read_nvidia_smi_list(listed, "fleet.txt", CATALOG).hosts
    assert [(h.name, [i.profile for g in h.mig_layout for i in g.instances]) for h in hosts] == [
        ("dgx-1", ["3g.20gb"]),
        ("dgx-2", []),
    ]


def test_a_query_csv_saved_again_with_semicolons_is_read() -> None:
    """Excel in a comma-decimal locale saves the query CSV with semicolons and decimal commas:
    it is read by its header as the comma-separated one."""
    data = b"name;memory.total [GiB];mig.mode.current\nNVIDIA A100-SXM4-80GB;79,5;Enabled\n"
    host = _one(read_nvidia_smi_query(data, "dgx-3.csv", CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["mig_enabled"]) == ("A100-80GB-SXM", "yes")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_real_query_csv_re_saved_around_its_header_reads_as_the_original(layout: str) -> None:
    """The L40S query sample re-saved by a spreadsheet (semicolons below Excel's sep=; line,
    blank lines above or below that line, tabs, a byte-order mark) is detected as nvidia-smi's
    query CSV and read as the original is, its header found as every CSV reader finds it
    (``tabular.csv_header``) and its GPU row numbered below it. The sep= line was read as the
    header: "no 'name' column (found: sep=;)"."""
    name, data = sample(NVIDIA_SMI_QUERY)
    rows = list(csv.reader(io.StringIO(data.decode()), skipinitialspace=True))
    laid = LAYOUTS[layout]
    resaved = laid.write(rows)
    original = read_nvidia_smi_query(data, name, CATALOG)

    read = read_nvidia_smi_query(resaved, name, CATALOG)

    assert detect_format(name, resaved) is Format.NVIDIA_SMI_QUERY
    assert _values(_one(read)) == _values(_one(original))
    assert _values(_one(read))["gpu_model"] == "L40S"
    assert _one(read).line == laid.header_row + 1
    assert read.problems == original.problems == ()


def test_a_query_csv_below_a_sep_line_naming_no_name_column_quotes_its_header() -> None:
    """A query CSV below Excel's sep=; line whose header has no name column is refused quoting
    that header on its row, not the sep= line."""
    data = b"sep=;\n\nindex;memory.total [MiB]\n0;23034 MiB\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.csv", CATALOG)
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert problem.message == "no 'name' column (found: index;memory.total [MiB])"


def test_a_memory_that_reads_two_ways_in_a_semicolon_file_is_a_problem() -> None:
    """In a semicolon file '81.920' MiB may be Excel's thousands point (81,920 MiB, an 80 GB
    A100) or a decimal point (81.92 MiB): it is a problem naming row and column with both
    readings, not read as 81.92 MiB and the GPU taken as the 40 GB part with no word.
    '81920' reads plainly as the 80 GB part."""
    header = b"name;memory.total [MiB];mig.mode.current\n"
    read = read_nvidia_smi_query(header + b"NVIDIA A100-PCIE;81.920;Disabled\n", "a.csv", CATALOG)
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "memory.total [MiB]")
    assert "'81.920' could be 81.920 or 81920" in problem.message
    plain = read_nvidia_smi_query(header + b"NVIDIA A100-PCIE;81920;Disabled\n", "a.csv", CATALOG)
    assert _values(_one(plain))["gpu_model"] == "A100-80GB-PCIe"
    assert plain.problems == ()


def test_query_rows_after_a_quoted_newline_keep_their_line_numbers() -> None:
    """A quoted cell holding a newline spans two lines: the rows after it are named by the line
    they are on in the file, not by their record count."""
    data = (
        b'name, memory.total [MiB], vbios_version\nNVIDIA L4, 23034 MiB, "95.04\n.2"\n'
        b"NVIDIA L4, 23034 MiB, 95.04\nNVIDIA L4, lots, 95.04\n"
    )
    read = read_nvidia_smi_query(data, "l4.csv", CATALOG)
    (problem,) = read.problems
    assert (problem.row, problem.message) == (5, "'lots' is not a memory size in MiB")


def test_a_mig_mode_of_n_a_on_a_mig_capable_gpu_says_it_read_n_a() -> None:
    """``mig.mode.current`` = ``[N/A]`` on an A100 is not a missing column: the MIG mode is
    assumed, and the note names the column and the N/A it read."""
    data = b"name, memory.total [MiB], mig.mode.current\nNVIDIA A100-SXM4-80GB, 81920 MiB, [N/A]\n"
    host = _one(read_nvidia_smi_query(data, "gpu-01.csv", CATALOG))
    mig = host.get("mig_enabled")
    assert mig is not None
    assert (mig.value, mig.note.source, mig.note.line) == ("yes", "assumed", 2)
    assert mig.note.text.startswith("mig.mode.current read [N/A]")


def test_a_hostname_cell_with_an_invisible_character_is_read_without_it_and_said() -> None:
    """A hostname cell holding a zero-width space is read without it, as RVTools' host names
    are, so the host matches the other files' hosts by what its name shows; a problem on its
    row names the column and quotes the name escaped."""
    data = b"hostname, name\ngpu\xe2\x80\x8b-1, NVIDIA L4\ngpu-2, NVIDIA L4\n"
    read = read_nvidia_smi_query(data, "all.csv", CATALOG)
    assert [h.name for h in read.hosts] == ["gpu-1", "gpu-2"]
    (problem,) = read.problems
    assert (problem.row, problem.column) == (2, "hostname")
    assert "'gpu\\u200b-1' (it holds an invisible character: \\u200b" in problem.message


def test_a_hostname_cell_of_invisible_characters_only_is_a_problem_naming_the_host_used() -> None:
    """A hostname cell holding only a zero-width space names no host: the GPU is given to the
    output's host (named after the file), and a problem on its row names the column, quotes
    the cell escaped and names the host used instead."""
    data = b"hostname, name\n\xe2\x80\x8b, NVIDIA L4\ngpu-2, NVIDIA L4\n"
    read = read_nvidia_smi_query(data, "gpu-07.csv", CATALOG)
    assert sorted(h.name for h in read.hosts) == ["gpu-07", "gpu-2"]
    (problem,) = read.problems
    assert (problem.file, problem.row, problem.column) == ("gpu-07.csv", 2, "hostname")
    assert problem.message == (
        "the host name '\\u200b' (it holds an invisible character: \\u200b, U+200B ZERO WIDTH "
        "SPACE) holds only invisible characters: the GPU is given to host 'gpu-07', the "
        "output's host"
    )
    assert problem.fix == "write the GPU's host name in the hostname cell"


def test_a_host_of_two_models_is_named_escaped_in_its_problem() -> None:
    """The problem of a host holding two GPU models quotes the host's name and the GPU names,
    an invisible character in the name escaped and named."""
    data = b"name\nNVIDIA L4\nNVIDIA A10\n"
    read = read_nvidia_smi_query(data, "h.csv", CATALOG, host_name="gpu\u200b-1")
    (problem,) = read.problems
    assert problem.message.startswith(
        "host 'gpu\\u200b-1' (it holds an invisible character: \\u200b, U+200B ZERO WIDTH "
        "SPACE) has GPUs of two models ('NVIDIA L4', 'NVIDIA A10')"
    )


def test_a_b200_instance_is_told_from_its_profile_of_equal_memory_by_its_sms() -> None:
    """A B200 GPU instance of 45312 MiB (as nvidia-smi shows it) with 36 SMs is a 2g.45gb,
    with 30 SMs a 1g.45gb: 18 SMs a slice (nvidia-smi mig -lgip on a B200), derived, not
    assumed. The B200 had no SM count, so both read as the first profile of that memory."""
    assert gpu_instance_profile("B200-180GB-SXM", 45312, 36, CATALOG)[1] == "derived"
    assert _profile("B200-180GB-SXM", 45312, 36) == "2g.45gb"
    assert _profile("B200-180GB-SXM", 45312, 30) == "1g.45gb"
    assert _profile("B200-180GB-SXM", 92160, 72) == "4g.90gb"


class _RefusingReader:
    """A ``csv.reader`` that refuses its record number ``refused`` (from 1) with an error other
    than the field limit (Python's reader raised 'line contains NUL' before 3.11)."""

    def __init__(self, reader: Iterator[list[str]], refused: int) -> None:
        self._reader = reader
        self._left = refused - 1

    @property
    def line_num(self) -> int:
        return int(getattr(self._reader, "line_num", 0))

    def __iter__(self) -> _RefusingReader:
        return self

    def __next__(self) -> list[str]:
        if self._left == 0:
            raise csv.Error("line contains NUL")
        self._left -= 1
        return next(self._reader)


@pytest.mark.parametrize(("refused", "row"), [(1, 2), (2, 3)], ids=["header", "first row"])
def test_a_csv_error_in_a_query_csv_asks_for_the_output_as_printed(
    monkeypatch: pytest.MonkeyPatch, refused: int, row: int
) -> None:
    """A CSV error on the header line of a query CSV (below Excel's sep= line, on row 2) or on
    a row below it names that row, with the fix to give nvidia-smi's output as it printed it,
    as other tool readers word it (saving the file as CSV is no fix for a tool's output)."""
    real = csv.reader
    monkeypatch.setattr(
        csv, "reader", lambda *args, **kwargs: _RefusingReader(real(*args, **kwargs), refused)
    )
    data = b"sep=,\nname, memory.total [MiB]\nNVIDIA L4, 23034 MiB\n"
    with pytest.raises(InputError) as caught:
        read_nvidia_smi_query(data, "q.csv", CATALOG)
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("q.csv", row)
    assert problem.message == "not valid CSV (line contains NUL)"
    assert problem.fix == "give nvidia-smi's output unchanged, as it printed it"


# nvidia-smi -q of driver 590 on an H100 in MIG mode, cut to the lines that matter (its MIG
# devices sit straight under the GPU, memory under "Shared FB Memory Usage"). Source:
# utkuozdemir/nvidia_gpu_exporter, internal/captures/linux-x86_64__nvidia-h100-mig__590.48.01.txt
# @ c58c3331 ("idle :: query (-q)" section).
REPORT_590_MIG = """\
==============NVSMI LOG==============

Driver Version                                         : 590.48.01
Attached GPUs                                          : 1
GPU 00000000:00:09.0
    Product Name                                       : NVIDIA H100 80GB HBM3
    MIG Mode
        Current                                        : Enabled
        Pending                                        : Enabled
{devices}    Accounting Mode                                    : Disabled
    FB Memory Usage
        Total                                          : 81559 MiB
        Reserved                                       : 479 MiB
"""
MIG_DEVICE_590 = """\
    MIG Device
        Index                                          : {index}
        GPU Instance ID                                : {gi}
        Compute Instance ID                            : 0
        Device Attributes
            Shared
                Multiprocessor count                   : {sms}
                Copy Engine count                      : 1
        ECC Errors
            Volatile
                SRAM Uncorrectable                     : 0
        Shared FB Memory Usage
            Total                                      : {mib} MiB
            Reserved                                   : 0 MiB
        Shared BAR1 Memory
            Total                                      : 6184 MiB
"""


def test_a_q_report_of_a_newer_driver_reads_mig_devices_under_the_gpu() -> None:
    """Newer drivers (590 here) print each ``MIG Device`` straight under the GPU (no ``MIG Devices``
    level) with its memory under ``Shared FB Memory Usage``: every GPU instance is read, its
    profile from that memory and its SMs; the GPU's own FB Memory Usage stays its total."""
    devices = "".join(
        MIG_DEVICE_590.format(index=index, gi=gi, sms=sms, mib=mib)
        for index, (gi, sms, mib) in enumerate(
            ((2, 60, 40448), (3, 32, 20096), (9, 16, 9984), (10, 16, 9984))
        )
    )
    data = REPORT_590_MIG.format(devices=devices).encode()
    host = _one(read_nvidia_smi_report(data, "h100-mig.txt", CATALOG))
    values = _values(host)
    assert (values["gpu_model"], values["gpus_per_host"], values["mig_enabled"]) == (
        "H100-80GB-SXM",
        1,
        "yes",
    )
    assert [(g.gpu_index, [i.profile for i in g.instances]) for g in host.mig_layout] == [
        (0, ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]),
    ]


def test_every_gpu_of_a_host_of_several_models_not_counted_is_listed() -> None:
    """A host of four GPU models counts its first model's GPUs and lists each other GPU on its
    row, left out, naming every model; none is passed over unsaid."""
    data = (
        b"index, name, memory.total [MiB]\n"
        b"0, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
        b"1, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
        b"2, NVIDIA L4, 23034 MiB\n"
        b"3, Tesla T4, 15360 MiB\n"
        b"4, NVIDIA H100 80GB HBM3, 81559 MiB\n"
    )
    read = read_nvidia_smi_query(data, "gpu-01.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    assert [(p.row, p.row_kept) for p in read.problems] == [(4, False), (5, False), (6, False)]
    assert read.problems[1].message == (
        "host 'gpu-01' has GPUs of 4 models ('NVIDIA A100-SXM4-80GB', 'NVIDIA L4', 'Tesla T4', "
        "'NVIDIA H100 80GB HBM3'); the inventory holds one model per host, so this 'Tesla T4' "
        "GPU is left out and the 2 GPUs of A100-80GB-SXM are counted"
    )


def test_a_list_of_three_models_lists_both_gpus_left_out() -> None:
    """nvidia-smi -L with three models: the A100 is counted (1 GPU, in the singular) and the L4
    and T4 lines are each listed."""
    data = (
        b"GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n"
        b"GPU 1: NVIDIA L4 (UUID: GPU-2)\n"
        b"GPU 2: Tesla T4 (UUID: GPU-3)\n"
    )
    read = read_nvidia_smi_list(data, "gpu-02.txt", CATALOG)
    assert [p.row for p in read.problems] == [2, 3]
    assert "the 1 GPU of A100-80GB-SXM is counted" in read.problems[1].message


def test_a_gpu_the_catalog_lacks_does_not_hide_the_hosts_known_gpus() -> None:
    """An unknown RTX 4090 listed before three A100s: the three A100s are counted and the RTX
    4090 is listed as left out, saying the catalog lacks it and how to add it."""
    data = (
        b"index, name, memory.total [MiB]\n"
        b"0, NVIDIA GeForce RTX 4090, 24564 MiB\n"
        b"1, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
        b"2, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
        b"3, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
    )
    read = read_nvidia_smi_query(data, "gpu-03.csv", CATALOG)
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-80GB-SXM", 3)
    (problem,) = read.problems
    assert problem.row == 2
    assert "this 'NVIDIA GeForce RTX 4090' GPU is left out" in problem.message
    assert "the 3 GPUs of A100-80GB-SXM are counted" in problem.message
    assert "the catalog has no model for GPU 'NVIDIA GeForce RTX 4090'" in problem.message
    assert "--catalog-extra" in problem.fix


def test_cut_off_names_of_two_memory_sizes_are_two_models() -> None:
    """An old table cuts both V100 names to 'Tesla V100-SXM2...': each is resolved with its own
    memory (16130 MiB a V100 16 GB, 32480 MiB a V100 32 GB), so the host holds two models, as
    the same GPUs in a query CSV do; the second is listed, told apart by its memory."""
    data = b"""\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P0    37W / 300W |      0MiB / 16130MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla V100-SXM2...  On   | 00000000:00:1F.0 Off |                    0 |
| N/A   34C    P0    37W / 300W |      0MiB / 32480MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""
    read = read_nvidia_smi_table(data, "v100.txt", CATALOG)
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("V100-16GB-SXM", 1)
    (problem,) = read.problems
    assert problem.row == 10
    assert "('Tesla V100-SXM2...' of 16130 MiB, 'Tesla V100-SXM2...' of 32480 MiB)" in (
        problem.message
    )
    query = b"index, name, memory.total [MiB]\n0, Tesla V100-SXM2-16GB, 16130 MiB\n"
    query += b"1, Tesla V100-SXM2-32GB, 32480 MiB\n"
    assert [p.row for p in read_nvidia_smi_query(query, "v100.csv", CATALOG).problems] == [3]


def test_a_windows_table_reads_the_name_without_its_driver_model() -> None:
    """Windows drivers print the Driver-Model (TCC, WDDM) where Linux prints Persistence-M,
    after the name: the L40S in TCC mode is the catalog's L40S, with no problem."""
    data = b"""\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.94                 Driver Version: 560.94         CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA L40S                   TCC  |   00000000:01:00.0 Off |                    0 |
| N/A   30C    P8             22W /  350W |       0MiB /  46068MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA L40S                  WDDM  |   00000000:02:00.0  On |                    0 |
| N/A   30C    P8             22W /  350W |       0MiB /  46068MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
    read = read_nvidia_smi_table(data, "ws-01.txt", CATALOG)
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("L40S", 2)
    assert read.problems == ()


def test_a_gpu_in_error_is_listed_as_reporting_an_error() -> None:
    """A GPU whose name the table shows as ERR!, or the query CSV as [Unknown Error], is left
    out on its row with the error named and how to check the GPU, not read as a model named
    'ERR!' nor as a name missing from an altered output."""
    table = b"""\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  A100-SXM4-40GB      On   | 00000000:07:00.0 Off |                    0 |
| N/A   29C    P0    54W / 400W |      0MiB / 40537MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
|   1  ERR!                Off  | 00000000:0F:00.0 Off |                 ERR! |
|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 40537MiB |    ERR!      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
"""
    read = read_nvidia_smi_table(table, "gpu-04.txt", CATALOG)
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-40GB-SXM", 1)
    (problem,) = read.problems
    assert (problem.row, problem.row_kept) == (12, False)
    assert problem.message.startswith("GPU 1 reports an error: nvidia-smi printed 'ERR!'")
    assert "nvidia-smi -q -i 1" in problem.fix
    query = b"index, name\n0, NVIDIA L4\n1, [Unknown Error]\n"
    (problem,) = read_nvidia_smi_query(query, "gpu-05.csv", CATALOG).problems
    assert problem.row == 3
    assert "printed '[Unknown Error]' for its name" in problem.message


def test_mig_devices_given_by_their_ids_only_say_where_their_profiles_are_found() -> None:
    """An XML report whose MIG devices hold only their ids (no memory, no SMs, as a container
    may print it) lists each device as left out with a fix that applies to such a report
    (nvidia-smi -L names the profiles), not one to drop a -d filter never used."""
    data = b"""<?xml version="1.0" ?>
<nvidia_smi_log><driver_version>535.129.03</driver_version>
<gpu id="00000000:10:00.0"><product_name>NVIDIA A100-SXM4-80GB</product_name>
<mig_mode><current_mig>Enabled</current_mig></mig_mode>
<fb_memory_usage><total>81920 MiB</total></fb_memory_usage>
<mig_devices><mig_device><index>0</index><gpu_instance_id>1</gpu_instance_id>
<compute_instance_id>0</compute_instance_id></mig_device></mig_devices></gpu>
</nvidia_smi_log>
"""
    read = read_nvidia_smi_report(data, "gpu-06.xml", CATALOG)
    assert _values(_one(read))["mig_enabled"] == "yes"
    (problem,) = read.problems
    assert problem.message.startswith(
        "GPU 0, MIG device 1 (GPU instance 1) has no memory or multiprocessor count"
    )
    assert "nvidia-smi -L" in problem.fix
    assert "without -d" not in problem.fix


def test_a_blank_hostname_cell_among_named_hosts_is_a_problem_on_its_row() -> None:
    """A GPU whose hostname cell is empty while another row names its host is still counted,
    on the host the output is named after, and its row says so; when no row names a host the
    output is one host and no cell is blamed."""
    data = b"name, hostname\nNVIDIA L4, node-a\nNVIDIA L4, \n"
    read = read_nvidia_smi_query(data, "gpus.csv", CATALOG)
    assert [h.name for h in read.hosts] == ["node-a", "gpus"]
    (problem,) = read.problems
    assert (problem.row, problem.column, problem.row_kept) == (3, "hostname", True)
    assert problem.message == (
        "the hostname cell is empty, while other rows name their hosts: the GPU is given to "
        "host 'gpus', the output's host"
    )
    alone = b"name, hostname\nNVIDIA L4, [N/A]\nNVIDIA L4, [N/A]\n"
    assert read_nvidia_smi_query(alone, "gpus.csv", CATALOG).problems == ()


def test_a_host_of_models_all_unknown_says_it_is_read_as_its_first() -> None:
    """When no GPU of a host is a catalog model, the other model's row says the host is read as
    the first model's one GPU, which the catalog lacks, not that any GPU is counted."""
    data = b"name\nNVIDIA GeForce RTX 4090\nNVIDIA GeForce RTX 3090\n"
    read = read_nvidia_smi_query(data, "ws-02.csv", CATALOG)
    assert [p.row for p in read.problems] == [2, 3]
    assert (
        "so this 'NVIDIA GeForce RTX 3090' GPU is left out and the host is read as its 1 GPU of "
        "'NVIDIA GeForce RTX 4090', which the catalog has no model for (row 2)"
    ) in read.problems[1].message


_LOST = "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"
"""What nvidia-smi prints in place of a GPU it cannot reach (fallen off the bus, Xid 79)."""


def test_a_gpu_nvidia_smi_cannot_reach_is_a_problem_naming_its_bus_in_l_and_the_table() -> None:
    """A GPU nvidia-smi cannot reach is printed as 'Unable to determine the device handle for
    GPU <bus>: <error>', not as a GPU: the host is counted without it, with a problem on that
    line naming the bus id and how to bring it back or count it; -L does not call the line
    malformed."""
    listed = "GPU 0: NVIDIA L40S (UUID: GPU-a0)\n" + _LOST + "\nGPU 2: NVIDIA L40S (UUID: GPU-a2)\n"
    read = read_nvidia_smi_list(listed.encode(), "gpu-07.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = read.problems
    assert problem.row == 2
    assert "could not reach the GPU at bus 0000:0B:00.0 (Unknown Error)" in problem.message
    assert "counted without it" in problem.message
    assert "--cluster-gpus" in problem.fix
    table = read_nvidia_smi_table(_LOST.encode() + b"\n" + OLD_PLAIN_TABLE, "gpu-08.txt", CATALOG)
    assert _values(_one(table))["gpus_per_host"] == 1
    (lost,) = table.problems
    assert lost.row == 1
    assert "0000:0B:00.0" in lost.message


def test_a_q_report_attaching_more_gpus_than_it_describes_is_a_problem() -> None:
    """``nvidia-smi -q`` says how many GPUs are attached: a report describing fewer (a cut
    paste, a GPU section never printed) is a problem on that line, the host counted with the
    GPUs described; the XML's <attached_gpus> likewise."""
    cut = REPORT.replace(b"Attached GPUs                             : 2", b"Attached GPUs : 3")
    read = read_nvidia_smi_report(cut, "dgx-a.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    attached = [p for p in read.problems if p.column == "Attached GPUs"]
    assert len(attached) == 1
    assert "3 GPUs are attached but describes 2" in attached[0].message
    assert attached[0].row_kept
    whole = read_nvidia_smi_report(REPORT, "dgx-a.txt", CATALOG)
    assert not [p for p in whole.problems if p.column == "Attached GPUs"]
    xml = REPORT_XML.replace(
        b"<driver_version>", b"<attached_gpus>2</attached_gpus>\n\t<driver_version>"
    )
    (problem,) = read_nvidia_smi_report(xml, "l40s.xml", CATALOG).problems
    assert "2 GPUs are attached but describes 1" in problem.message


def test_a_gpu_nvidia_smi_cannot_reach_in_the_query_csv_is_that_problem() -> None:
    """The query CSV prints the same line for a GPU it cannot reach: the problem names its bus,
    not a row with too few values."""
    query = f"name, memory.total [MiB]\n{_LOST}\nNVIDIA L40S, 46068 MiB\n".encode()
    read = read_nvidia_smi_query(query, "gpu-09.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 1
    (problem,) = read.problems
    assert "could not reach the GPU at bus 0000:0B:00.0" in problem.message


def test_a_q_report_of_a_vm_with_a_gpu_passed_through_is_a_problem_keeping_the_gpu() -> None:
    """``nvidia-smi -q`` run in a VM with its GPU passed through (Virtualization Mode :
    Pass-Through) describes the VM, not the ESXi host: the whole GPU is counted, with a problem
    saying the host is a VM and how to describe the physical host; a report of no virtualization
    has none, in text or XML."""
    passed = REPORT.replace(
        b"    Persistence Mode",
        b"    GPU Virtualization Mode\n        Virtualization Mode : Pass-Through\n    Persistence",
    )
    read = read_nvidia_smi_report(passed, "vm-07.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = [p for p in read.problems if "VM" in p.message]
    assert problem.column == "GPU Virtualization Mode > Virtualization Mode"
    assert problem.row_kept
    assert "ran in a VM with 1 GPU passed through to it" in problem.message
    assert "run nvidia-smi on the physical host" in problem.fix
    xml = REPORT_XML.replace(
        b"\t\t<mig_mode>",
        b"\t\t<gpu_virtualization_mode><virtualization_mode>Pass-Through"
        b"</virtualization_mode></gpu_virtualization_mode>\n\t\t<mig_mode>",
    )
    (in_xml,) = read_nvidia_smi_report(xml, "vm-08.xml", CATALOG).problems
    assert "passed through" in in_xml.message
    assert not read_nvidia_smi_report(REPORT_XML, "l40s.xml", CATALOG).problems


def test_a_host_with_mig_on_some_gpus_only_is_kept_whole_with_a_problem() -> None:
    """MIG mode on GPU 0 and off on GPU 1 (``-q``), or MIG devices listed for GPUs 0 and 2 and
    not GPU 1 (``-L``): the host keeps all its GPUs as one MIG-enabled row, and a problem names
    the GPUs without MIG and how to give the host (one MIG mode, or a CSV row per mode)."""
    read = read_nvidia_smi_report(REPORT, "dgx-a.txt", CATALOG)
    values = _values(_one(read))
    assert (values["gpus_per_host"], values["mig_enabled"]) == (2, "yes")
    (problem,) = read.problems
    assert problem.column == "MIG Mode > Current"
    assert problem.row_kept
    assert "GPU 1 has MIG mode off while GPU 0 has it on" in problem.message
    assert "all 2 GPUs are planned as MIG-enabled" in problem.message
    assert "two rows, one per MIG mode" in problem.fix
    listed = (
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-m0)\n"
        "  MIG 3g.40gb     Device  0: (UUID: MIG-a)\n"
        "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-m1)\n"
        "GPU 2: NVIDIA A100-SXM4-80GB (UUID: GPU-m2)\n"
        "  MIG 7g.80gb     Device  0: (UUID: MIG-b)\n"
    )
    (in_list,) = read_nvidia_smi_list(listed.encode(), "dgx-b.txt", CATALOG).problems
    assert "GPU 1 lists no MIG device while GPUs 0, 2 list MIG devices" in in_list.message


_JETSON_TABLE = b"""\
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  Orin (nvgpu)                  N/A  | N/A              N/A |                  N/A |
| N/A   N/A  N/A               N/A /  N/A | Not Supported        |     N/A          N/A |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""
"""A Jetson Orin module's nvidia-smi: persistence mode N/A beside the name."""


def test_a_jetson_integrated_gpu_is_refused_by_its_name_without_the_persistence_value() -> None:
    """A Jetson module's 'Orin (nvgpu)' (persistence mode N/A printed beside it) is refused as
    the integrated GPU it is, named without the N/A, with how to plan it anyway."""
    with pytest.raises(InputError) as refused:
        read_nvidia_smi_table(_JETSON_TABLE, "orin.txt", CATALOG)
    (problem,) = refused.value.problems
    assert problem.message.startswith("'Orin (nvgpu)' is the integrated GPU of an NVIDIA Jetson")
    assert "--catalog-extra" in problem.fix


_VGPU_REPORT = b"""\
GPU 00000000:3B:00.0
    Active vGPUs                          : 1
    vGPU ID                               : 3251634213
        VM Name                           : win10-vm1
        vGPU Name                         : NVIDIA A40-8Q
        FB Memory Usage
            Total                         : 8192 MiB
"""
"""``nvidia-smi vgpu -q`` on a vGPU host: the vGPUs of VMs per physical GPU, no GPU model."""


def test_the_vgpu_report_is_refused_saying_what_it_is_not_read_as_gpu_lines() -> None:
    """``nvidia-smi vgpu -q`` (its ``GPU 00000000:3B:00.0`` lines look like -L's GPU lines) is
    refused in one problem saying it lists the VMs' vGPUs and what to run instead; no GPU
    named '3B:00.0', no line called malformed."""
    with pytest.raises(InputError) as refused:
        read_nvidia_smi_list(_VGPU_REPORT, "esx-07.txt", CATALOG)
    (problem,) = refused.value.problems
    assert problem.row == 1
    assert problem.message.startswith("this is nvidia-smi vgpu -q")
    assert "nvidia-smi -q" in problem.fix


def test_a_mig_mode_pending_a_reset_is_a_problem_naming_its_gpus() -> None:
    """``nvidia-smi -q`` with MIG Mode Current Disabled and Pending Enabled: the GPU is planned
    as it is now (MIG off), with one problem naming the GPUs whose mode a reset changes; a
    pending mode equal to the current one is none."""
    pending = REPORT.replace(
        b"        Current                           : Disabled\n",
        b"        Current                           : Disabled\n        Pending : Enabled\n",
    )
    read = read_nvidia_smi_report(pending, "dgx-a.txt", CATALOG)
    (problem,) = [p for p in read.problems if p.column == "MIG Mode > Pending"]
    assert problem.message.startswith("GPU 1: MIG mode is Disabled now and Enabled after")
    assert problem.row_kept
    assert not [
        p
        for p in read_nvidia_smi_report(REPORT, "dgx-a.txt", CATALOG).problems
        if p.column == "MIG Mode > Pending"
    ]


def test_gpu_indices_with_a_gap_no_lost_line_explains_are_a_problem() -> None:
    """nvidia-smi numbers a host's GPUs from 0 without gaps: -L lines for GPUs 0 and 2 only
    (a cut paste) are a problem naming GPU 1, the host counted with 2; with the line saying
    GPU 1 could not be reached, that line's problem alone."""
    cut = b"GPU 0: NVIDIA L40S (UUID: GPU-a0)\nGPU 2: NVIDIA L40S (UUID: GPU-a2)\n"
    read = read_nvidia_smi_list(cut, "gpu-07.txt", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = read.problems
    assert "numbered 0, 2: GPU 1 is not in the output" in problem.message
    assert problem.row_kept
    whole = read_nvidia_smi_list(b"GPU 0: NVIDIA L40S (UUID: GPU-a0)\n", "gpu-08.txt", CATALOG)
    assert not whole.problems


ANSIBLE_LIST = b"""\
gpu01 | CHANGED | rc=0 >>
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaaaaaa-0000-1111-2222-333344445550)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaaaaaa-0000-1111-2222-333344445551)
gpu02 | CHANGED | rc=0 >>
GPU 0: NVIDIA L40S (UUID: GPU-bbbbbbbb-0000-1111-2222-333344445550)
gpu03 | FAILED | rc=9 >>
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that \
the latest NVIDIA driver is installed and running.non-zero return code
gpu04 | UNREACHABLE! => {
    "changed": false,
    "msg": "Failed to connect to the host via ssh: ssh: connect to host gpu04 port 22: No route \
to host",
    "unreachable": true
}
"""
"""``ansible gpus -a "nvidia-smi -L"``: two hosts' results, a failed and an unreachable host."""

CLUSH_LIST = b"""\
---------------
gpu[01-02] (2)
---------------
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaaaaaa-0000-1111-2222-333344445550)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaaaaaa-0000-1111-2222-333344445551)
---------------
gpu03
---------------
GPU 0: NVIDIA L40S (UUID: GPU-bbbbbbbb-0000-1111-2222-333344445550)
"""
"""``clush -b -w gpu[01-03] nvidia-smi -L``: gpu01 and gpu02 printed the same lines."""


def _models(read: HostsRead) -> dict[str, tuple[object, object]]:
    """Each host's GPU model and count."""
    return {h.name: (_values(h)["gpu_model"], _values(h)["gpus_per_host"]) for h in read.hosts}


def test_an_ansible_run_gives_each_host_its_gpus_and_lists_failed_and_unreachable_hosts() -> None:
    """Each ``host | CHANGED | rc=0 >>`` block is that host's nvidia-smi -L, the host named by
    its header (read); a FAILED and an UNREACHABLE host are problems naming the host and the
    reason Ansible gives. The file was refused as 'cannot tell which tool wrote this file'."""
    assert detect_format("gpus.txt", ANSIBLE_LIST) is Format.NVIDIA_SMI_LIST
    read = read_nvidia_smi_list(ANSIBLE_LIST, "gpus.txt", CATALOG)
    assert _models(read) == {"gpu01": ("A100-80GB-SXM", 2), "gpu02": ("L40S", 1)}
    assert [h.name_note and h.name_note.source for h in read.hosts] == ["read", "read"]
    failed, unreachable = read.problems
    assert failed.row == 6
    assert failed.message.startswith(
        "host gpu03: Ansible reports it FAILED: rc=9, 'NVIDIA-SMI has failed because"
    )
    assert "non-zero return code" not in failed.message
    assert unreachable.row == 8
    assert unreachable.message.startswith("host gpu04: Ansible reports it UNREACHABLE: 'Failed")
    assert "No route to host'; the host is left out" in unreachable.message
    assert "ssh gpu04" in unreachable.fix


def test_a_clush_b_run_gives_every_host_of_a_folded_host_set_its_block() -> None:
    """``clush -b``'s block headed ``gpu[01-02] (2)`` is the output of gpu01 and of gpu02, each
    a host of its own; ``gpu03``'s block is gpu03's."""
    assert detect_format("gpus.txt", CLUSH_LIST) is Format.NVIDIA_SMI_LIST
    read = read_nvidia_smi_list(CLUSH_LIST, "gpus.txt", CATALOG)
    assert _models(read) == {
        "gpu01": ("A100-80GB-SXM", 2),
        "gpu02": ("A100-80GB-SXM", 2),
        "gpu03": ("L40S", 1),
    }
    assert read.problems == ()


_L40S_REPORT = """\
==============NVSMI LOG==============

Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA L40S
    MIG Mode
        Current                           : N/A
    FB Memory Usage
        Total                             : 46068 MiB
"""
_L40S_QUERY = "name, memory.total [MiB]\nNVIDIA L40S, 46068 MiB\n"


def _ansible(outputs: dict[str, str]) -> bytes:
    return "".join(f"{h} | CHANGED | rc=0 >>\n{o}" for h, o in outputs.items()).encode()


def _clush(outputs: dict[str, str]) -> bytes:
    rule = "-" * 15
    return "".join(f"{rule}\n{h}\n{rule}\n{o}" for h, o in outputs.items()).encode()


def _pdsh(outputs: dict[str, str]) -> bytes:
    return "".join(f"{h}: {line}\n" for h, o in outputs.items() for line in o.splitlines()).encode()


@pytest.mark.parametrize("gather", [_ansible, _clush, _pdsh], ids=["ansible", "clush-b", "pdsh"])
@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (OLD_TABLE.decode(), (Format.NVIDIA_SMI_TABLE, "A100-40GB-SXM", 2)),
        (_L40S_REPORT, (Format.NVIDIA_SMI_REPORT, "L40S", 1)),
        (_L40S_QUERY, (Format.NVIDIA_SMI_QUERY, "L40S", 1)),
    ],
    ids=["table", "q", "query-csv"],
)
def test_the_table_report_and_query_of_several_hosts_are_read_host_by_host(
    gather: Callable[[dict[str, str]], bytes],
    output: str,
    expected: tuple[Format, str, int],
) -> None:
    """The plain table, -q and --query-gpu gathered by Ansible, clush -b or pdsh give each host
    its GPUs, named as the run names it (the table and -q through pdsh were refused)."""
    data = gather({"gpu-a": output, "gpu-b": output})
    found = detect_format("fleet.txt", data)
    reader = {
        Format.NVIDIA_SMI_TABLE: read_nvidia_smi_table,
        Format.NVIDIA_SMI_REPORT: read_nvidia_smi_report,
        Format.NVIDIA_SMI_QUERY: read_nvidia_smi_query,
    }[found]
    read = reader(data, "fleet.txt", CATALOG)
    fmt, model, gpus = expected
    assert found is fmt
    assert _models(read) == {"gpu-a": (model, gpus), "gpu-b": (model, gpus)}


def test_a_host_whose_block_cannot_be_read_is_left_out_by_name() -> None:
    """A clush block that is not the run's format (the head of -q among tables) is a problem
    naming its host, which is left out; the other hosts are read."""
    data = _clush({"gpu[01-02] (2)": OLD_TABLE.decode(), "gpu03": "Timestamp : now\n"})
    read = read_nvidia_smi_table(data, "fleet.txt", CATALOG)
    assert [h.name for h in read.hosts] == ["gpu01", "gpu02"]
    (problem,) = read.problems
    assert problem.message.startswith("host gpu03 is left out: no GPU table")


@pytest.mark.parametrize(
    ("prompt", "run", "hosts"),
    [
        ("[admin@mgmt ~]$ ansible gpus -a 'nvidia-smi -L'", ANSIBLE_LIST, ["gpu01", "gpu02"]),
        ("$ clush -b -w gpu[01-03] nvidia-smi -L", CLUSH_LIST, ["gpu01", "gpu02", "gpu03"]),
    ],
    ids=["ansible", "clush"],
)
def test_a_run_pasted_below_its_prompt_is_read_host_by_host(
    prompt: str, run: bytes, hosts: list[str]
) -> None:
    """The prompt running ansible or clush, pasted above the run, is no output: the run is
    read host by host, the hosts named by their blocks (not by the prompt's host)."""
    data = prompt.encode() + b"\n" + run
    assert detect_format("gpus.txt", data) is Format.NVIDIA_SMI_LIST
    assert [h.name for h in read_nvidia_smi_list(data, "gpus.txt", CATALOG).hosts] == hosts


def test_a_query_count_above_its_rows_is_a_problem_and_the_rows_are_counted() -> None:
    """``count`` says how many GPUs nvidia-smi found on the host: 4 on each of 2 rows is an
    output cut off, a problem on the first row naming both numbers, the host counted with its 2
    GPUs; it was read as 2 GPUs without a word."""
    data = b"count, name\n4, NVIDIA A100-SXM4-80GB\n4, NVIDIA A100-SXM4-80GB\n"
    read = read_nvidia_smi_query(data, "q.csv", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 2
    (problem,) = read.problems
    assert (problem.row, problem.column, problem.row_kept) == (2, "count", True)
    assert "count says 4 GPUs but 2 rows are given" in problem.message
    assert "give the whole nvidia-smi output" in problem.fix


def test_a_query_count_below_its_rows_says_outputs_were_joined() -> None:
    """Rows beyond the count (2 on each of 4 rows) are outputs joined: the fix asks for each
    host's output on its own."""
    row = b"2, NVIDIA L4\n"
    read = read_nvidia_smi_query(b"count, name\n" + row * 4, "q.csv", CATALOG)
    (problem,) = read.problems
    assert "count says 2 GPUs but 4 rows are given" in problem.message
    assert "each host's output as a file of its own" in problem.fix


def test_a_query_count_that_matches_its_rows_is_no_problem_per_host() -> None:
    """A count equal to each host's rows is silent, hosts told apart by hostname."""
    data = b"hostname, count, name\na1, 2, NVIDIA L4\na1, 2, NVIDIA L4\nb1, 1, NVIDIA L4\n"
    read = read_nvidia_smi_query(data, "q.csv", CATALOG)
    assert read.problems == ()
    assert {h.name: _values(h)["gpus_per_host"] for h in read.hosts} == {"a1": 2, "b1": 1}
