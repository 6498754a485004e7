"""A plan workbook edited by hand, read back: each edit the restore cannot take is named (sheet,
row, column, what it may be), never a crash and never a silent loss."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from typing import Any

import pytest
from importer_samples import CATALOG, REPO
from openpyxl import Workbook, load_workbook

from planner.assumptions import Assumptions
from planner.inputs.importers import PLAN_INPUTS_SHEET, read_plan_inputs, write_inputs_sheet
from planner.inputs.inventory import Inventory, load_inventory
from planner.inputs.problems import InputError
from planner.inputs.workloads import load_workloads
from planner.methods.registry import Method
from planner.output.export import workbook_bytes
from planner.output.report import plan_scenario
from planner.scenario import Scenario
from tests.builders import host

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


def _many_hosts_scenario() -> Scenario:
    """The sample workloads on 1,200 hosts: an inventory CSV stored over several rows."""
    sample = _sample_scenario()
    hosts = tuple(host(f"gpu-host-{i:04d}", "L40S", 4) for i in range(1200))
    return dataclasses.replace(sample, inventory=Inventory(hosts))


def _inputs_book(scenario: Scenario) -> Any:
    book = Workbook()
    write_inputs_sheet(book, scenario)
    return book


def _saved(book: Any) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _file_rows(book: Any, name: str) -> list[int]:
    sheet = book[PLAN_INPUTS_SHEET]
    return [
        r
        for r in range(3, sheet.max_row + 1)
        if sheet[f"A{r}"].value == "file" and sheet[f"B{r}"].value == name
    ]


def test_a_deleted_part_of_a_stored_file_refuses_the_workbook_naming_the_part() -> None:
    """A row holding part of the stored inventory deleted (hundreds of hosts) refuses the
    workbook: the problem names the sheet, the missing part, the rows that hold the others, and
    how to fix it; no inventory comes back short."""
    book = _inputs_book(_many_hosts_scenario())
    rows = _file_rows(book, "inventory.csv")
    assert len(rows) >= 3
    book[PLAN_INPUTS_SHEET].delete_rows(rows[1])
    with pytest.raises(InputError) as caught:
        read_plan_inputs(_saved(book), file_name="plan.xlsx")
    (problem,) = caught.value.problems
    assert problem.file == _SHEET
    assert problem.message.startswith(f"part 2 of {len(rows)} of inventory.csv is missing (")
    assert f"row {rows[0]} part 1, row {rows[1]} part 3" in problem.message
    assert "export the plan again" in problem.fix


def test_a_stored_file_cut_short_at_a_line_end_is_named_on_its_row() -> None:
    """The workloads cell cut after a line (classes lost, the CSV still well formed) is a
    problem naming the sheet, that row and its value column: the text is not as the planner
    wrote it (it was used without a word)."""
    book = _inputs_book(_sample_scenario())
    (row,) = _file_rows(book, "workloads.csv")
    cell = book[PLAN_INPUTS_SHEET][f"C{row}"]
    cell.value = "".join(str(cell.value).splitlines(keepends=True)[:3])
    inputs = read_plan_inputs(_saved(book), file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (_SHEET, row, "value")
    assert problem.message.startswith(
        "the text of workloads.csv on this row (part 1 of 1) is not as the planner wrote it: "
        "the cell was edited or cut short"
    )
    assert inputs.workloads_csv == str(cell.value).encode()


def test_a_workbook_without_checks_is_read_with_a_note_that_it_could_not_be_checked() -> None:
    """A workbook written before the stored files were checked (format 1, no check rows) is read as
    before, each stored file with a note that whether it is complete could not be checked; the
    planner's own workbook has no such note."""
    scenario = _many_hosts_scenario()
    book = _inputs_book(scenario)
    assert read_plan_inputs(_saved(book), file_name="plan.xlsx").notes == ()
    sheet = book[PLAN_INPUTS_SHEET]
    sheet["C3"].value = "1"
    for row in reversed(range(3, sheet.max_row + 1)):
        if sheet[f"A{row}"].value == "check":
            sheet.delete_rows(row)
    inputs = read_plan_inputs(_saved(book), file_name="plan.xlsx")
    assert inputs.problems == ()
    assert [(n.field, n.value, n.source) for n in inputs.notes] == [
        ("inventory.csv", "complete", "assumed"),
        ("workloads.csv", "complete", "assumed"),
    ]
    assert all("could not be checked" in n.text for n in inputs.notes)
    assert inputs.scenario().value.inventory == scenario.inventory


def test_a_deleted_check_row_refuses_the_workbook() -> None:
    """A workbook of the format that writes checks, whose check row of a stored file was
    deleted, is refused naming the file: whether it is whole cannot be told."""
    book = _inputs_book(_sample_scenario())
    sheet = book[PLAN_INPUTS_SHEET]
    (row,) = [
        r
        for r in range(3, sheet.max_row + 1)
        if sheet[f"A{r}"].value == "check" and sheet[f"B{r}"].value == "parts of workloads.csv"
    ]
    sheet.delete_rows(row)
    with pytest.raises(InputError) as caught:
        read_plan_inputs(_saved(book), file_name="plan.xlsx")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == (_SHEET, None)
    assert problem.message.startswith("the sheet holds no check row of workloads.csv")


def test_parts_of_a_stored_file_in_another_order_are_restored_in_the_order_written() -> None:
    """Rows of a stored file sorted into another order restore the file as written, since the
    check row gives each part's place."""
    scenario = _many_hosts_scenario()
    book = _inputs_book(scenario)
    sheet = book[PLAN_INPUTS_SHEET]
    first, second, *_ = _file_rows(book, "inventory.csv")
    a, b = sheet[f"C{first}"].value, sheet[f"C{second}"].value
    sheet[f"C{first}"].value, sheet[f"C{second}"].value = b, a
    inputs = read_plan_inputs(_saved(book), file_name="plan.xlsx")
    assert inputs.problems == ()
    assert inputs.scenario().value.inventory == scenario.inventory


def test_a_price_for_no_model_is_named_with_the_models_and_not_used() -> None:
    """A gpu_price_usd key naming no GPU model is a problem on its row and name column that
    lists the models; the price is kept as written but no plan uses it."""
    scenario = dataclasses.replace(
        _sample_scenario(), assumptions=Assumptions(gpu_price_usd={"L4": 2000.0})
    )
    book = _inputs_book(scenario)
    sheet = book[PLAN_INPUTS_SHEET]
    sheet.append(("assumption", "gpu_price_usd[Foo-GPU]", "999"))
    inputs = read_plan_inputs(_saved(book), file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (_SHEET, sheet.max_row, "name")
    assert problem.message.startswith(
        "gpu_price_usd[Foo-GPU]: no GPU model is named 'Foo-GPU', so no plan uses this price; "
        "the models are "
    )
    assert "H100-80GB-SXM, " in problem.message
    assert not problem.row_kept
    assert dict(inputs.assumptions.gpu_price_usd) == {"L4": 2000.0, "Foo-GPU": 999.0}


def test_a_price_for_a_model_in_another_case_is_taken_for_that_model_and_said() -> None:
    """A gpu_price_usd key naming a model in another case (h100-80gb-sxm) prices that model,
    with a problem on its row saying which model it was taken for and the name to write."""
    book = _inputs_book(_sample_scenario())
    sheet = book[PLAN_INPUTS_SHEET]
    sheet.append(("assumption", "gpu_price_usd[h100-80gb-sxm]", "12345"))
    inputs = read_plan_inputs(_saved(book), file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (_SHEET, sheet.max_row, "name")
    assert "the price is taken as H100-80GB-SXM's" in problem.message
    assert problem.fix == "write gpu_price_usd[H100-80GB-SXM] as its name"
    assert problem.row_kept
    assert dict(inputs.assumptions.gpu_price_usd) == {"H100-80GB-SXM": 12345.0}


@pytest.fixture(scope="module")
def plan_workbook() -> bytes:
    """The planner's workbook of a small scenario, planned by passthrough."""
    sample = _sample_scenario()
    scenario = dataclasses.replace(sample, workloads=sample.workloads[:2])
    return workbook_bytes(plan_scenario(scenario, methods=(Method.PASSTHROUGH,)))


def _resaved(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """The workbook ``data`` opened, changed by ``edit`` and saved, as a spreadsheet does."""
    book = load_workbook(io.BytesIO(data))
    edit(book)
    return _saved(book)


def test_a_plan_workbook_opened_and_saved_unedited_restores_without_a_word(
    plan_workbook: bytes,
) -> None:
    """The planner's workbook, opened and saved again with no edit, restores with no problem:
    its Inventory and Workloads sheets read as written."""
    again = _resaved(plan_workbook, lambda book: None)
    assert read_plan_inputs(again, file_name="plan.xlsx").problems == ()


@pytest.mark.parametrize("title", ["Inventory", "Workloads"])
def test_an_edited_inputs_sheet_is_named_as_not_used_with_how_to_use_the_edits(
    title: str, plan_workbook: bytes
) -> None:
    """A cell of the Inventory or Workloads sheet edited (or a row deleted) is named: the
    restore reads the Planner inputs sheet, the edits are not used, and how to plan with them;
    the stored inputs are restored as written."""

    def edit(book: Any) -> None:
        book[title]["B2"].value = 99

    def delete(book: Any) -> None:
        book[title].delete_rows(2)

    written = read_plan_inputs(plan_workbook, file_name="plan.xlsx")
    for change in (edit, delete):
        inputs = read_plan_inputs(_resaved(plan_workbook, change), file_name="plan.xlsx")
        (problem,) = inputs.problems
        assert (problem.file, problem.row, problem.column) == (f"plan.xlsx [{title}]", None, None)
        assert problem.message.startswith("the sheet is not as the planner wrote it (")
        assert f"the restore reads the inputs stored in the '{PLAN_INPUTS_SHEET}' sheet" in (
            problem.message
        )
        assert problem.message.endswith(f"so the edits made in {title} are not used")
        assert f"make the same edits in the {title.lower()} file" in problem.fix
        assert inputs.inventory_csv == written.inventory_csv
        assert inputs.workloads_csv == written.workloads_csv
