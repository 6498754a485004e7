"""A plan workbook keeps the sharing methods its plan was made with (``plan --methods``), and
``plan --from-workbook`` plans those again; a workbook without them restores every method."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from importer_samples import CATALOG, REPO
from openpyxl import Workbook, load_workbook

from planner.assumptions import Assumptions
from planner.cli import main
from planner.inputs.importers import PLAN_INPUTS_SHEET, read_plan_inputs, write_inputs_sheet
from planner.inputs.importers.workbook import inputs_sheet_rows
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import load_workloads
from planner.methods.registry import Method
from planner.scenario import Scenario

SAMPLE = REPO / "data" / "sample"


def _sample() -> Scenario:
    return Scenario(
        CATALOG,
        load_inventory((SAMPLE / "inventory.csv").read_bytes(), CATALOG).value,
        load_workloads((SAMPLE / "workloads.csv").read_bytes(), CATALOG).value,
        Assumptions(),
    )


def _methods_rows(methods: tuple[Method, ...]) -> list[tuple[str, str, str]]:
    return [r for r in inputs_sheet_rows(_sample(), methods=methods) if r[0] == "methods"]


def _book(methods: tuple[Method, ...] = (), *extra: tuple[str, str, str]) -> bytes:
    """A workbook holding only the sample's Planner inputs sheet, planned with ``methods``, with
    ``extra`` rows added at its end."""
    book = Workbook()
    write_inputs_sheet(book, _sample(), methods=methods)
    for row in extra:
        book[PLAN_INPUTS_SHEET].append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_the_methods_planned_are_written_in_order_unless_every_one_was() -> None:
    """Methods chosen are one ``methods`` row, in the order planned, as ``--methods`` takes
    them; every method planned (in any order) writes no row."""
    assert _methods_rows((Method.MIG, Method.VGPU)) == [("methods", "planned", "mig vgpu")]
    assert _methods_rows(tuple(reversed(Method))) == []
    assert _methods_rows(()) == []


def test_the_methods_row_is_read_back_and_its_absence_is_every_method() -> None:
    """The methods written come back in order with no problem; a workbook without the row (as
    older planners wrote it) restores every method."""
    restored = read_plan_inputs(_book((Method.K8S_MPS, Method.PASSTHROUGH)))
    assert restored.methods == (Method.K8S_MPS, Method.PASSTHROUGH)
    assert restored.problems == ()
    assert read_plan_inputs(_book()).methods == tuple(Method)


def test_a_word_of_the_methods_row_naming_no_method_is_listed_and_left_out() -> None:
    """An edited methods row: a word that is no method is a problem naming the sheet, its row
    and the methods there are, and the others are planned; a row naming none plans every
    method, said so; a second row is listed and ignored."""
    data = _book((), ("methods", "planned", "mig gpu-pool vgpu"))
    row = load_workbook(io.BytesIO(data))[PLAN_INPUTS_SHEET].max_row
    restored = read_plan_inputs(data, file_name="plan.xlsx")
    assert restored.methods == (Method.MIG, Method.VGPU)
    (problem,) = restored.problems
    assert (problem.file, problem.row, problem.column) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        row,
        "value",
    )
    assert "'gpu-pool' is no sharing method (passthrough, vgpu," in problem.message
    assert "--methods" in problem.fix

    restored = read_plan_inputs(
        _book((), ("methods", "planned", "none"), ("methods", "planned", "mig"))
    )
    assert restored.methods == tuple(Method)
    messages = [p.message for p in restored.problems]
    assert any("every method is planned" in m for m in messages)
    assert any("given twice" in m for m in messages)


def _planned(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The plan lines ``python -m planner`` prints for ``argv`` (one per plan, the last
    ones)."""
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    return [line.split("  ")[0] for line in printed if "/year  $" in line]


def test_a_plan_of_chosen_methods_is_restored_with_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """plan --methods vgpu passthrough --out, then plan --from-workbook of it: the same two
    methods are planned (not every method); --methods given again wins over the workbook's."""
    out = tmp_path / "plan.xlsx"
    first = _planned(
        ["plan", "--methods", "vgpu", "passthrough", "--no-harvest", "--out", str(out)], capsys
    )
    assert first == ["Recommended plan", "vGPU (time-sliced)", "Passthrough"]
    again = _planned(["plan", "--from-workbook", str(out), "--no-harvest"], capsys)
    assert again == first
    chosen = _planned(
        ["plan", "--from-workbook", str(out), "--methods", "passthrough", "--no-harvest"], capsys
    )
    assert chosen == ["Recommended plan", "Passthrough"]
