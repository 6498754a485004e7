"""Tests of hostile input across the importers: each is refused or listed with a problem
naming the file and line, never a traceback, never dropped in silence."""

from __future__ import annotations

import io

import pytest
from importer_samples import CATALOG
from openpyxl import Workbook

from planner.inputs.importers import import_inventory
from planner.inputs.inventory import load_inventory
from planner.inputs.problems import InputError, InputProblem

NOT_COUNTS = {
    "superscript two": "\u00b2",
    "5,000 digits": "9" * 5000,
    "an Arabic-Indic three": "\u0663",
}
"""Counts and ids no tool prints: ``str.isdigit`` is true of each, and ``int`` refuses the first
two (a ValueError); the third it reads as 3, but a tool writes digits 0-9 only."""

_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |                   On |
| N/A   36C    P0            295W /  700W |   16959MiB / 143771MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+
|   {gpu}  NVIDIA H200                    On  |   00000000:84:00.0 Off |                   On |
| N/A   36C    P0            295W /  700W |   16959MiB / 143771MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |
|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |
|                  |                                  |        ECC|                       |
|==================+==================================+===========+=======================|
|  0    2   0   0  |           16925MiB / 71424MiB    | 16      0 |  3   0    3    0    3 |
+------------------+----------------------------------+-----------+-----------------------+
|  0    {gi}   0   1  |           16925MiB / 71424MiB    | 32      0 |  3   0    3    0    3 |
+------------------+----------------------------------+-----------+-----------------------+
"""
"""The plain table of two H200s split into MIG devices: ``{gpu}`` is the second GPU's index,
``{gi}`` the second device's GPU instance id."""


def _report_device(gi: str) -> str:
    return (
        "        MIG Device\n"
        "            Index                         : 0\n"
        f"            GPU Instance ID               : {gi}\n"
        "            Compute Instance ID           : 0\n"
        "            Device Attributes\n"
        "                Shared\n"
        "                    Multiprocessor count  : 42\n"
        "            FB Memory Usage\n"
        "                Total                     : 40192 MiB\n"
    )


_REPORT = (
    "==============NVSMI LOG==============\n\n"
    "GPU 00000000:07:00.0\n"
    "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
    "    MIG Mode\n"
    "        Current                           : Enabled\n"
    "    MIG Devices\n" + _report_device("1") + _report_device("{gi}") + "    FB Memory Usage\n"
    "        Total                             : 81920 MiB\n"
)
"""``nvidia-smi -q`` of an A100 with two MIG devices, the second's GPU instance id ``{gi}``."""

_XML_DEVICE = (
    "<mig_device><gpu_instance_id>{gi}</gpu_instance_id>"
    "<compute_instance_id>0</compute_instance_id><device_attributes><shared>"
    "<multiprocessor_count>42</multiprocessor_count></shared></device_attributes>"
    "<fb_memory_usage><total>40192 MiB</total></fb_memory_usage></mig_device>\n"
)
_REPORT_XML = (
    '<?xml version="1.0" ?>\n<nvidia_smi_log>\n<gpu id="00000000:07:00.0">\n'
    "<product_name>NVIDIA A100-SXM4-80GB</product_name>\n"
    "<mig_mode><current_mig>Enabled</current_mig></mig_mode>\n<mig_devices>\n"
    + _XML_DEVICE.replace("{gi}", "1")
    + _XML_DEVICE
    + "</mig_devices>\n<fb_memory_usage><total>81920 MiB</total></fb_memory_usage>\n</gpu>\n"
    "</nvidia_smi_log>\n"
)
"""``nvidia-smi -q -x`` of the same A100."""

_LGI = """\
+----------------------------------------------------+
| GPU instances:                                     |
| GPU   Name          Profile  Instance   Placement  |
|                       ID       ID       Start:Size |
|====================================================|
|   0  MIG 1g.6gb       14        3          0:1     |
+----------------------------------------------------+
|   0  MIG 1g.6gb       14        {gi}          1:1     |
+----------------------------------------------------+
"""

_LGIP = """\
+-----------------------------------------------------------------------------+
| GPU instance profiles:                                                      |
| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |
|                              Free/Total   GiB              CE    JPEG  OFA  |
|=============================================================================|
|   0  MIG 1g.5gb        19     7/7        4.75       No     14     0     0   |
|                                                             1     0     0   |
+-----------------------------------------------------------------------------+
|   0  MIG 7g.40gb        0     1/1        39.50      No     {gi}     5     0   |
|                                                             7     1     1   |
+-----------------------------------------------------------------------------+
"""

OUTPUTS = {
    "query index": (
        "gpu-01.csv",
        "index, name, memory.total [MiB]\n0, NVIDIA L4, 23034 MiB\n{gpu}, NVIDIA L4, 23034 MiB\n",
        3,
    ),
    "-L index": ("gpu-01.txt", "GPU 0: NVIDIA L4 (UUID: GPU-a)\nGPU {gpu}: NVIDIA L4\n", 2),
    "table GPU index": ("gpu-01.txt", _TABLE.replace("{gi}", "3"), 12),
    "table GPU instance id": ("gpu-01.txt", _TABLE.replace("{gpu}", "1"), 26),
    "-q GPU instance id": ("gpu-01.txt", _REPORT, 17),
    "-q -x GPU instance id": ("gpu-01.xml", _REPORT_XML, None),
    "-lgi instance id": ("gpu-01.txt", _LGI, 8),
    "-lgip SMs": ("gpu-01.txt", _LGIP, 9),
}
"""Per tool output: (file name, text with ``{gpu}`` or ``{gi}`` where a count or id goes, the
line the problem names, None when the output has no line for the device)."""


def _problems(file: str, data: bytes) -> tuple[InputProblem, ...]:
    try:
        return import_inventory([(file, data)], CATALOG).problems
    except InputError as refused:
        return refused.problems


@pytest.mark.parametrize("written", NOT_COUNTS.values(), ids=NOT_COUNTS.keys())
@pytest.mark.parametrize(("file", "text", "line"), OUTPUTS.values(), ids=OUTPUTS.keys())
def test_a_count_or_id_not_in_digits_0_to_9_is_a_problem_at_its_line(
    file: str, text: str, line: int | None, written: str
) -> None:
    """A GPU index, MIG instance id or SM count a tool never prints (``²``, 5,000 digits, another
    script's digit) is a problem at its file and line, the value quoted cut, never a traceback;
    the rest of the output is read."""
    problems = _problems(file, text.replace("{gpu}", written).replace("{gi}", written).encode())
    (problem,) = (p for p in problems if p.file == file and p.row == line)
    assert len(problem.message) < 400
    assert problem.message.endswith(("ignored", "left out", "counted without it"))


def test_planner_inventory_hosts_differing_only_in_case_are_one_name_used_twice() -> None:
    """The planner's inventory matches host names as the importers do (what a name shows, case
    aside): 'GPU-01' after 'gpu-01' is a host defined twice, refused naming both rows and the
    first spelling, not planned as a second host."""
    csv = (
        "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
        "gpu-01,prod,L4,2,32,256,25,no\n"
        "GPU-01,prod,L4,2,32,256,25,no\n"
    )
    with pytest.raises(InputError) as refused:
        load_inventory(csv.encode(), CATALOG, file_name="inventory.csv")
    (problem,) = refused.value.problems
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 3, "host")
    assert problem.message == (
        "host 'GPU-01' is already defined on row 2 as 'gpu-01' (names differing only in case "
        "are one host)"
    )


@pytest.mark.parametrize("cell", ["1" + ".000" * 1500, "x" * 5000, "-" + "9" * 5000])
def test_an_rvtools_cell_too_long_to_quote_is_cut_in_its_problem(cell: str) -> None:
    """A vHost cores or memory cell of thousands of characters is named in its problem cut, its
    length said: a problem stays a line, whatever the export holds."""
    book = Workbook()
    sheet = book.active
    sheet.title = "vHost"
    sheet.append(["Host", "Cluster", "# Cores", "# Memory"])
    sheet.append(["esx-01", "prod", cell, cell])
    saved = io.BytesIO()
    book.save(saved)
    imported = import_inventory(
        [("rv.xlsx", saved.getvalue())], CATALOG, gpus_by_cluster={"prod": ("L40S", 4)}
    )
    assert [p.column for p in imported.problems] == ["# Cores", "# Memory"]
    for problem in imported.problems:
        assert len(problem.message) < 400
        assert f"({len(cell):,} characters)" in problem.message
