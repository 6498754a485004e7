"""Tests of the workbook a manager reads: the one-page Overview with native charts, human headers
with units on every sheet, and formats on every percentage and amount of money."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook
from openpyxl.utils import range_boundaries

from planner.cli import build_parser, main, scenario_from_args
from planner.inputs.importers import PLAN_INPUTS_SHEET
from planner.measure.costs import COST_COMPONENTS
from planner.methods.registry import Method
from planner.output.export import OVERVIEW_SHEET, workbook_bytes
from planner.output.figures import KEY_FIGURES
from planner.output.headers import header
from planner.output.overview import key_figures_frame, recommendation_lines
from planner.output.report import ScenarioPlan, plan_scenario
from tests.report_fixtures import notebooks, scenario, workload

SNAKE_CASE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")
METHODS = (Method.PASSTHROUGH, Method.VGPU, Method.MIG)


@pytest.fixture(scope="module")
def planned() -> ScenarioPlan:
    """Four notebooks on two 4-GPU hosts, planned by three methods and mixed."""
    return plan_scenario(notebooks(), methods=METHODS)


@pytest.fixture(scope="module")
def book(planned: ScenarioPlan) -> Any:
    return load_workbook(io.BytesIO(workbook_bytes(planned)))


def _cells(sheet: Any, reference: str) -> list[Any]:
    """Values of the cells a chart reference such as ``'Overview'!$B$27:$B$35`` names."""
    _, cells = reference.rsplit("!", 1)
    min_col, min_row, max_col, max_row = range_boundaries(cells.replace("$", ""))
    return [
        sheet.cell(row=r, column=c).value
        for r in range(min_row, max_row + 1)
        for c in range(min_col, max_col + 1)
    ]


def _series(sheet: Any, chart: Any) -> dict[str, list[Any]]:
    """A chart's series: the header cell naming each, and the values it draws."""
    return {_cells(sheet, s.tx.strRef.f)[0]: _cells(sheet, s.val.numRef.f) for s in chart.series}


def test_the_overview_is_the_first_sheet(book: Any) -> None:
    """A manager opening the workbook lands on the Overview."""
    assert book.sheetnames[0] == OVERVIEW_SHEET


def test_the_overview_fits_one_landscape_page(book: Any) -> None:
    """Page setup scales the used area, charts included, onto one landscape page."""
    sheet = book[OVERVIEW_SHEET]
    assert sheet.page_setup.orientation == "landscape"
    assert sheet.sheet_properties.pageSetUpPr.fitToPage is True
    assert (sheet.page_setup.fitToWidth, sheet.page_setup.fitToHeight) == (1, 1)
    (area,) = sheet.print_area if isinstance(sheet.print_area, list) else [sheet.print_area]
    _, _, last_col, last_row = range_boundaries(area.rsplit("!", 1)[1].replace("$", ""))
    assert last_row >= sheet.max_row
    for chart in sheet._charts:
        marker = chart.anchor._from
        # A 7.5 cm chart covers about 15 rows of the default height below its anchor.
        assert marker.row + 15 <= last_row
        assert marker.col + 1 <= last_col


def test_the_overview_says_the_recommendation_in_words(planned: ScenarioPlan, book: Any) -> None:
    """The recommended plan's headline and its savings against today and the best single method
    are on the Overview, word for word."""
    assert planned.recommended is not None
    texts = [c.value for row in book[OVERVIEW_SHEET].iter_rows() for c in row if c.value]
    lines = recommendation_lines(planned)
    assert lines[0] == planned.recommended.headline()
    assert any(line.startswith("Against today's sharing") for line in lines)
    assert any(line.startswith("Against the best single method") for line in lines)
    assert all(line in texts for line in lines)


def test_key_figures_have_value_unit_and_definition(planned: ScenarioPlan, book: Any) -> None:
    """Each key figure shows its value, its unit and its one-line definition from KEY_FIGURES,
    and the values are the recommended plan's."""
    sheet = book[OVERVIEW_SHEET]
    rows = {row[0]: row[1:4] for row in sheet.iter_rows(values_only=True) if row[0] and row[2]}
    result = planned.results[0]
    gpus = KEY_FIGURES["gpus_used"]
    assert rows[gpus.label] == (result.metrics.gpus_used, gpus.unit, gpus.definition)
    cost = KEY_FIGURES["usd_per_year"]
    assert rows[cost.label][0] == pytest.approx(result.cost.total_usd_per_year)
    assert rows[cost.label][1:] == (cost.unit, cost.definition)
    today = planned.recommended.today  # type: ignore[union-attr]
    assert today is not None
    saving = rows[KEY_FIGURES["saving_vs_today_usd_per_year"].label][0]
    assert saving == pytest.approx(today.cost.total_usd_per_year - result.cost.total_usd_per_year)
    assert len(key_figures_frame(planned)) >= 10


def test_three_native_charts_read_the_right_cells(planned: ScenarioPlan, book: Any) -> None:
    """Cost by component, GPUs against the bound, and utilisation, per plan: each chart's series
    point at cells holding the plans' figures, in the order of the plans."""
    sheet = book[OVERVIEW_SHEET]
    charts = sheet._charts
    assert len(charts) >= 3
    costs, gpus, use = (_series(sheet, chart) for chart in charts[:3])
    assert list(costs) == [header(f"{c}_usd_per_year") for c in COST_COMPONENTS]
    for component in COST_COMPONENTS:
        expected = [r.cost.component_usd_per_year(component) for r in planned.results]
        assert costs[header(f"{component}_usd_per_year")] == pytest.approx(expected)
    assert gpus[header("gpus_used")] == [r.metrics.gpus_used for r in planned.results]
    assert gpus[header("lower_bound_gpus")] == [r.metrics.lower_bound_gpus for r in planned.results]
    assert use[header("memory_utilisation")] == pytest.approx(
        [r.metrics.memory_utilisation for r in planned.results]
    )
    labels = _cells(sheet, charts[0].series[0].cat.numRef.f)
    assert labels == [r.label for r in planned.results]
    assert charts[0].grouping == "stacked"


def test_no_header_is_a_code_name(book: Any) -> None:
    """Every header (the bold cells) on every sheet is words, never ``gpus_used``; the sheet the
    planner reads back has a plain header of words too."""
    machine = book[PLAN_INPUTS_SHEET]
    assert [c.value for c in machine[2]] == ["kind", "name", "value"]
    for sheet in book.worksheets:
        if sheet.title == PLAN_INPUTS_SHEET:
            continue
        bold = [
            c.value
            for row in sheet.iter_rows()
            for c in row
            if isinstance(c.value, str) and c.font is not None and c.font.b
        ]
        assert bold, sheet.title
        code_names = [text for text in bold if SNAKE_CASE.match(text)]
        assert code_names == [], (sheet.title, code_names)


def test_shares_and_money_carry_their_formats(book: Any) -> None:
    """Under a ``[%]`` header every number has a percent format, under ``[$...]`` a dollar
    format, and no fraction anywhere is left in General format (0.73333333)."""
    checked = {"%": 0, "$": 0}
    for sheet in book.worksheets:
        columns: dict[int, str] = {}
        for row in sheet.iter_rows():
            for cell in row:
                value = cell.value
                if isinstance(value, str) and cell.font is not None and cell.font.b:
                    columns[cell.column] = value
                    continue
                if isinstance(value, float):
                    assert cell.number_format != "General", (sheet.title, cell.coordinate)
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                title = columns.get(cell.column, "")
                if title.endswith("[%]"):
                    assert "%" in cell.number_format, (sheet.title, cell.coordinate)
                    checked["%"] += 1
                elif "[$" in title:
                    assert "$" in cell.number_format, (sheet.title, cell.coordinate)
                    checked["$"] += 1
    assert checked["%"] > 10
    assert checked["$"] > 10


def test_harvest_percentages_are_fractions_with_a_percent_format() -> None:
    """A figure table's percent points (73.3 %) are stored as the fraction with a % format."""
    import pandas as pd

    from planner.output.export import sheets_bytes

    frame = pd.DataFrame(
        {
            "figure": ["Utilisation after", "Cost"],
            "value": [73.3, 1234.5],
            "unit": ["%", "USD/year"],
        }
    )
    frame["value"] = frame["value"].astype(object)
    sheet = load_workbook(io.BytesIO(sheets_bytes({"Harvest summary": frame})))["Harvest summary"]
    assert sheet["B2"].value == pytest.approx(0.733)
    assert sheet["B2"].number_format == "0.0%"
    assert "$" in sheet["B3"].number_format


def test_the_cli_writes_the_same_overview(tmp_path: Path) -> None:
    """`python -m planner plan --out x.xlsx` opens on the Overview the API writes for the same
    plan: same cells, same three charts."""
    out = tmp_path / "plan.xlsx"
    argv = ["plan", "--methods", "passthrough", "vgpu", "--no-harvest", "--out", str(out)]
    assert main(argv) == 0
    scenario, problems = scenario_from_args(build_parser().parse_args(argv))
    expected = load_workbook(
        io.BytesIO(
            workbook_bytes(
                plan_scenario(scenario, methods=(Method.PASSTHROUGH, Method.VGPU)),
                input_problems=problems,
            )
        )
    )[OVERVIEW_SHEET]
    written = load_workbook(out)
    assert written.sheetnames[0] == OVERVIEW_SHEET
    sheet = written[OVERVIEW_SHEET]
    assert list(sheet.values) == list(expected.values)
    assert len(sheet._charts) == len(expected._charts) == 3


def test_a_plan_that_uses_no_gpu_shows_no_utilisation() -> None:
    """A class no GPU can hold (500 GiB of GPU memory) leaves every plan with no GPU in use:
    its utilisation is 'no GPU used' among the key figures and blank in the Overview's plans
    table and on the Summary sheet; each read 0 %, as if the plan's GPUs stood idle."""
    planned = plan_scenario(
        scenario([workload("big", instances=1, gpus=1.0, memory_gib=500.0)]),
        methods=(Method.PASSTHROUGH, Method.VGPU),
    )
    assert all(r.metrics.gpus_used == 0 for r in planned.results)
    figures = key_figures_frame(planned).set_index("figure")["value"]
    for name in ("memory_utilisation", "compute_utilisation"):
        assert figures[KEY_FIGURES[name].label] == "no GPU used"
    book = load_workbook(io.BytesIO(workbook_bytes(planned)))
    for sheet in (book[OVERVIEW_SHEET], book["Summary"]):
        named = [
            cell
            for row in sheet.iter_rows()
            for cell in row
            if cell.value in (header("memory_utilisation"), header("compute_utilisation"))
        ]
        # The plans table's header row is the first to name them (Summary explains them below).
        headers = [cell for cell in named if cell.row == named[0].row]
        assert len(headers) == 2
        for cell in headers:
            below = [
                sheet.cell(row=cell.row + offset, column=cell.column).value
                for offset in range(1, len(planned.results) + 1)
            ]
            assert below == [None] * len(planned.results)
    served = key_figures_frame(plan_scenario(notebooks(), methods=METHODS)).set_index("figure")
    for name in ("memory_utilisation", "compute_utilisation"):
        assert 0 < served.loc[KEY_FIGURES[name].label, "value"] <= 1
