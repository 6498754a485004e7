"""Tests of the plain nvidia-smi table as driver 610 prints it: the banner names the kernel-mode
driver (``KMD Version``) and the CUDA user-mode driver (``CUDA UMD Version``) where earlier
drivers printed ``Driver Version`` and ``CUDA Version``."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG

from planner.inputs.importers.detect import Format, detect_format
from planner.inputs.importers.estate import import_inventory

BANNER_610 = (
    "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |"
)
BANNER_590 = (
    "| NVIDIA-SMI 610.43.02              Driver Version: 610.43.02     CUDA Version: 13.3         |"
)

TABLE_610 = f"""\
Tue Sep  1 20:47:28 2026
+-----------------------------------------------------------------------------------------+
{BANNER_610}
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:83:00.0 Off |                   On |
| N/A   40C    P0            130W /  700W |      44MiB / 143771MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |
|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |
|                  |                                  |        ECC|                       |
|==================+==================================+===========+=======================|
|  0    2   0   0  |              44MiB / 71424MiB    | 60      0 |  3   0    3    0    3 |
|                  |               0MiB / 59241MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
"""
"""One H200 in MIG mode with one 3g.71gb GPU instance, as driver 610.43.02 prints it (the
nvidia_gpu_exporter project's capture of an H200, its process table left out)."""


@pytest.mark.parametrize("banner", [BANNER_610, BANNER_590], ids=["kmd-610", "driver-590"])
def test_the_table_is_recognised_by_the_banner_of_driver_610_and_of_earlier_drivers(
    banner: str,
) -> None:
    """Whether the banner says ``KMD Version`` (driver 610) or ``Driver Version`` (earlier
    drivers), the output is nvidia-smi's plain table."""
    data = TABLE_610.replace(BANNER_610, banner).encode()
    assert detect_format("nvidia-smi.txt", data) is Format.NVIDIA_SMI_TABLE


def test_the_table_without_its_banner_is_recognised_by_its_gpu_header() -> None:
    """The ``GPU  Name  Persistence-M`` header is the table's own: a table pasted without the
    banner above it is still nvidia-smi's plain table."""
    data = TABLE_610.replace(BANNER_610 + "\n", "").encode()
    assert detect_format("nvidia-smi.txt", data) is Format.NVIDIA_SMI_TABLE


def test_the_driver_610_table_imports_its_h200_and_its_mig_instance() -> None:
    """The 610 table reads as the same table under the earlier banner does: one host with one
    H200 in MIG mode, its GPU instance read as a 3g.71gb."""
    imported = import_inventory([("gpu-07.txt", TABLE_610.encode())], CATALOG)
    (row,) = imported.frame.to_dict("records")
    assert (row["host"], row["gpu_model"], row["gpus_per_host"]) == ("gpu-07", "H200-141GB-SXM", 1)
    assert row["mig_enabled"]
    (gpu,) = imported.mig_layouts
    assert [i.profile for i in gpu.instances] == ["3g.71gb"]


def test_a_query_csv_naming_the_driver_by_its_610_field_is_nvidia_smis_query() -> None:
    """``--query-gpu=kmd_version,name`` (driver 610's field for what ``driver_version`` named)
    is nvidia-smi's query CSV, as ``driver_version,name`` is; it was refused as a file no tool
    wrote."""
    for field in ("kmd_version", "driver_version"):
        data = f"{field}, name\n610.43.02, NVIDIA H200\n".encode()
        assert detect_format("gpus.csv", data) is Format.NVIDIA_SMI_QUERY
