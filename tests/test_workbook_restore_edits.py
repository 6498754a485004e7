"""A plan workbook edited by hand, read back: each edit the restore cannot take is named (sheet,
row, column, what it may be), never a crash and never a silent loss."""

from __future__ import annotations

import dataclasses
import io

import pytest
from importer_samples import CATALOG, REPO
from openpyxl import Workbook

from planner.assumptions import Assumptions
from planner.inputs.importers import PLAN_INPUTS_SHEET, read_plan_inputs, write_inputs_sheet
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import load_workloads
from planner.methods.registry import Method
from planner.scenario import Scenario

_SHEET = f"plan.xlsx [{PLAN_INPUTS_SHEET}]"


def _sample_scenario() -> Scenario:
    sample = REPO / "data" / "sample"
    return Scenario(
        CATALOG,
        load_inventory((sample / "inventory.csv").read_bytes(), CATALOG).value,
        load_workloads((sample / "workloads.csv").read_bytes(), CATALOG).value,
        Assumptions(licence_usd_per_gpu_year=1234.5),
    )


def _with_assumption(scenario: Scenario, name: str, value: str) -> tuple[bytes, int]:
    """The inputs sheet of ``scenario`` with assumption ``name``'s value cell set to ``value``,
    and that row."""
    book = Workbook()
    write_inputs_sheet(book, scenario)
    sheet = book[PLAN_INPUTS_SHEET]
    row = next(r for r in range(3, sheet.max_row + 1) if sheet[f"B{r}"].value == name)
    sheet[f"C{row}"].value = value
    out = io.BytesIO()
    book.save(out)
    return out.getvalue(), row


@pytest.mark.parametrize("written", ["foo", "Passthrough", " vgpu", ""])
def test_a_today_method_that_is_no_method_keeps_its_default_with_the_method_ids(
    written: str,
) -> None:
    """A today_method edited to no method's id (unknown, in the wrong case, with a space,
    empty) is one problem naming the sheet, its row and value column and every method id; the
    default is kept and every other assumption is read."""
    scenario = dataclasses.replace(
        _sample_scenario(),
        assumptions=Assumptions(licence_usd_per_gpu_year=1234.5, today_method="vgpu"),
    )
    data, row = _with_assumption(scenario, "today_method", written)
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (_SHEET, row, "value")
    ids = ", ".join(m.value for m in Method)
    assert problem.message.startswith("today_method: ")
    assert f"is not one of {ids}; its default passthrough is used" in problem.message
    assert f"write one of {ids}" in problem.fix
    assert inputs.assumptions.today_method == "passthrough"
    assert inputs.assumptions.licence_usd_per_gpu_year == 1234.5


def test_a_today_method_that_is_a_method_id_is_read() -> None:
    """Every method id is a today_method the sheet restores, with no problem."""
    for method in Method:
        data, _ = _with_assumption(_sample_scenario(), "today_method", method.value)
        inputs = read_plan_inputs(data, file_name="plan.xlsx")
        assert inputs.problems == ()
        assert inputs.assumptions.today_method == method.value
