"""Tests of units written in number cells: the column's own unit is read, any other refused with
the number to write."""

from __future__ import annotations

import pytest

from planner.inputs.cell_units import CORES, GBIT_PER_S, GIB, GPUS, WATTS, CellUnit
from planner.inputs.tabular import CellError


@pytest.mark.parametrize(
    ("unit", "text", "number"),
    [
        (GIB, "80 GiB", "80"),
        (GIB, "80GiB", "80"),
        (GIB, "512Gi", "512"),
        (GIB, "0,5 gib", "0,5"),
        (CORES, "64 cores", "64"),
        (GPUS, "8 GPUs", "8"),
        (GPUS, "1 GPU", "1"),
        (GBIT_PER_S, "25GbE", "25"),
        (GBIT_PER_S, "100G", "100"),
        (GBIT_PER_S, "25 Gbps", "25"),
        (GBIT_PER_S, "25 Gb/s", "25"),
        (WATTS, "300 W", "300"),
        (GIB, "80", "80"),
        (GIB, "", ""),
        (GIB, "yes", "yes"),
    ],
)
def test_the_columns_own_unit_is_taken_off(unit: CellUnit, text: str, number: str) -> None:
    """A cell in the column's own unit reads as its number; a cell without a unit word is
    passed on unchanged for the number parser to judge."""
    assert unit.number_text(text) == number


@pytest.mark.parametrize(
    ("unit", "text", "message", "fix"),
    [
        (GIB, "1 TiB", "tebibytes", "write 1024 (1 TiB in GiB)"),
        (GIB, "512 MiB", "mebibytes", "write 0.5 (512 MiB in GiB)"),
        (GBIT_PER_S, "25 GB/s", "gigabytes per second", "write 200 (25 GB/s in Gbit/s)"),
        (GBIT_PER_S, "25 Mbps", "megabits", "write 0.025 (25 Mbps in Gbit/s)"),
        (WATTS, "0.3 kW", "kilowatts", "write 300 (0.3 kW in W)"),
    ],
)
def test_another_exact_unit_is_refused_with_the_number_to_write(
    unit: CellUnit, text: str, message: str, fix: str
) -> None:
    """A unit other than the column's is not converted silently: the message names it and the
    fix gives the converted number."""
    with pytest.raises(CellError) as caught:
        unit.number_text(text)
    assert message in caught.value.message
    assert f"the column is in {unit.name}" in caught.value.message
    assert caught.value.fix == fix


@pytest.mark.parametrize(
    ("text", "binary", "decimal"),
    [("512 GB", "512", "476.8"), ("1TB", "1024", "931.3"), ("80G", "80", "74.5")],
)
def test_decimal_memory_units_are_refused_with_both_readings(
    text: str, binary: str, decimal: str
) -> None:
    """GB and TB read two ways (memory is sold in binary sizes named GB; a GB is also 10^9
    bytes): the cell is refused, the fix giving both numbers to write."""
    with pytest.raises(CellError) as caught:
        GIB.number_text(text)
    assert "reads two ways" in caught.value.message
    assert caught.value.fix.startswith(f"write {binary} if ")
    assert f"or {decimal} if it is" in caught.value.fix


def test_an_unknown_unit_is_refused_naming_the_columns_unit() -> None:
    """``64 threads`` in a column of cores: refused, saying to write the number in cores."""
    with pytest.raises(CellError) as caught:
        CORES.number_text("64 threads")
    assert "'threads' is not a unit of this column" in caught.value.message
    assert caught.value.fix == "write the number alone in cores (64)"
