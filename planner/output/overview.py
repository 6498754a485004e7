"""The workbook's Overview sheet: the answer, its key figures and three native charts, one page.

The charts are Excel charts over the sheet's own "Every plan" table, so a reader who changes a
figure there sees the chart follow, and every bar can be traced to a cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from planner.measure.costs import COST_COMPONENTS
from planner.measure.result import MethodResult
from planner.output.figures import KEY_FIGURES
from planner.output.headers import header
from planner.output.recommendations import rank
from planner.output.report import ScenarioPlan, comparison_frame
from planner.output.xlsx import BOLD, USD, number_format, unit_format, write_cell

__all__ = [
    "NO_GPU_USED",
    "OVERVIEW_SHEET",
    "PLAN_COLUMNS",
    "headline_result",
    "key_figures_frame",
    "plans_frame",
    "recommendation_lines",
    "write_overview",
]

OVERVIEW_SHEET = "Overview"
NO_GPU_USED = "no GPU used"
"""A key figure's utilisation when the plan uses no GPU."""
_UTILISATION = ("memory_utilisation", "compute_utilisation")

PLAN_COLUMNS = (
    "label",
    *(f"{component}_usd_per_year" for component in COST_COMPONENTS),
    "usd_per_year",
    "gpus_used",
    "lower_bound_gpus",
    "memory_utilisation",
    "compute_utilisation",
    "placed",
    "not_placed",
)
"""Columns of ``plans_frame``: the plan, its cost by component, GPUs against the bound,
utilisation, instances served."""

_HEADLINE_FIGURES = (
    "placed",
    "not_placed",
    "gpus_used",
    "lower_bound_gpus",
    "ratio_to_bound",
    "hosts_used",
    "usd_per_year",
    "usd_per_instance_year",
    "memory_utilisation",
    "compute_utilisation",
    "mean_slowdown",
)
_LAST_COLUMN = len(PLAN_COLUMNS)
_LABEL_WIDTH = 30
_NUMBER_WIDTH = 14
_CHART_WIDTH_CM = 10.5
_CHART_HEIGHT_CM = 7.5
_CHART_ROWS = 16
"""Rows a chart covers at the default row height [rows]."""
_CHART_COLUMNS = (1, 5, 9)
"""Columns the three charts start at, side by side under the tables."""


def headline_result(plan: ScenarioPlan) -> MethodResult:
    """The plan the Overview speaks of: the recommended one, else the best single method."""
    if plan.recommended is not None:
        return plan.recommended.result
    return min(plan.results, key=lambda r: rank(r, plan.scenario))


def _saving(plan: ScenarioPlan, reference: MethodResult | None) -> float | None:
    if reference is None:
        return None
    return reference.cost.total_usd_per_year - headline_result(plan).cost.total_usd_per_year


def key_figures_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """The headline plan's key figures: figure, value (shares as fractions), unit, definition.

    Every name, unit and definition comes from ``KEY_FIGURES``. A plan that uses no GPU has
    ``NO_GPU_USED`` for its utilisation.
    """
    chosen = headline_result(plan)
    row = comparison_frame(plan).set_index("method").loc[chosen.name]
    values: dict[str, Any] = {name: row[name] for name in _HEADLINE_FIGURES}
    if row["gpus_used"] == 0:
        values.update(dict.fromkeys(_UTILISATION, NO_GPU_USED))
    recommended = plan.recommended
    if recommended is not None:
        values["saving_vs_today_usd_per_year"] = _saving(plan, recommended.today)
        values["saving_vs_best_single_usd_per_year"] = _saving(plan, recommended.best_single)
        if recommended.purchase:
            values["purchase_usd"] = recommended.purchase_usd
    rows = [
        (KEY_FIGURES[name].label, value, KEY_FIGURES[name].unit, KEY_FIGURES[name].definition)
        for name, value in values.items()
        if value is not None
    ]
    return pd.DataFrame(rows, columns=["figure", "value", "unit", "definition"])


def plans_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per plan, columns ``PLAN_COLUMNS`` (money [USD/year], shares [0-1]; utilisation
    blank for a plan that uses no GPU)."""
    comparison = comparison_frame(plan)
    for component in COST_COMPONENTS:
        comparison[f"{component}_usd_per_year"] = [
            r.cost.component_usd_per_year(component) for r in plan.results
        ]
    return comparison[list(PLAN_COLUMNS)].reset_index(drop=True)


def _against(reference: MethodResult, chosen: MethodResult, name: str) -> str:
    usd = reference.cost.total_usd_per_year - chosen.cost.total_usd_per_year
    gpus = reference.metrics.gpus_used - chosen.metrics.gpus_used
    served = chosen.metrics.instances_placed - reference.metrics.instances_placed
    text = (
        f"Against {name} ({reference.label}): ${abs(usd):,.0f} {'less' if usd >= 0 else 'more'} "
        f"per year, {abs(gpus)} {'fewer' if gpus >= 0 else 'more'} GPUs"
    )
    # A dearer plan that serves more is not a worse plan: say what the money buys.
    if served:
        text += f", {abs(served)} {'more' if served > 0 else 'fewer'} instances served"
    return text + "."


def recommendation_lines(plan: ScenarioPlan) -> list[str]:
    """The recommendation in words: the answer, then its savings and purchase, one per line."""
    recommended = plan.recommended
    if recommended is None:
        chosen = headline_result(plan)
        m = chosen.metrics
        return [
            f"Best plan: {chosen.label}. It serves {m.instances_placed} of "
            f"{m.instances_placed + m.instances_not_placed} instances on {m.gpus_used} GPUs in "
            f"{m.hosts_used} hosts for ${chosen.cost.total_usd_per_year:,.0f} per year."
        ]
    chosen = recommended.result
    lines = [recommended.headline()]
    if recommended.today is not None:
        lines.append(_against(recommended.today, chosen, "today's sharing"))
    if recommended.best_single is not None:
        lines.append(_against(recommended.best_single, chosen, "the best single method"))
    if recommended.purchase:
        bought = " + ".join(f"{p.said} (${p.price_usd:,.0f})" for p in recommended.purchase)
        lines.append(f"Purchase: {bought}; ${recommended.purchase_usd:,.0f} in all.")
    return lines


def _sentence(sheet: Any, row: int, text: str, *, font: Font | None = None) -> None:
    """One line of text across the page's width, wrapped."""
    cell = write_cell(sheet, row, 1, text)
    cell.alignment = Alignment(wrap_text=True, vertical="top")
    if font is not None:
        cell.font = font
    sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=_LAST_COLUMN)
    # Roughly the characters that fit in one merged row; a longer sentence needs more height.
    per_line = _LABEL_WIDTH + _NUMBER_WIDTH * (_LAST_COLUMN - 1)
    sheet.row_dimensions[row].height = 15 * (1 + len(text) // per_line)


def _key_figures(sheet: Any, row: int, frame: pd.DataFrame) -> int:
    """The key-figures table at ``row``; the definition spans the rest of the page's width."""
    for column, name in enumerate(("figure", "value", "unit", "definition"), start=1):
        write_cell(sheet, row, column, header(name)).font = BOLD
    for i, (figure, value, unit, definition) in enumerate(
        frame.itertuples(index=False, name=None), start=row + 1
    ):
        write_cell(sheet, i, 1, figure)
        write_cell(sheet, i, 2, value, unit_format(unit, value))
        write_cell(sheet, i, 3, unit)
        write_cell(sheet, i, 4, definition)
        sheet.merge_cells(start_row=i, start_column=4, end_row=i, end_column=_LAST_COLUMN)
    sheet.merge_cells(start_row=row, start_column=4, end_row=row, end_column=_LAST_COLUMN)
    return row + len(frame) + 1


def _plans_table(sheet: Any, row: int, frame: pd.DataFrame) -> int:
    """The per-plan table the charts read, with a wrapped header row."""
    for column, name in enumerate(frame.columns, start=1):
        cell = write_cell(sheet, row, column, header(name))
        cell.font = BOLD
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    sheet.row_dimensions[row].height = 45
    for i, values in enumerate(frame.itertuples(index=False, name=None), start=row + 1):
        for column, (name, value) in enumerate(zip(frame.columns, values, strict=True), start=1):
            write_cell(sheet, i, column, value, number_format(name))
    return row + len(frame) + 1


def _bar_chart(
    sheet: Any, title: str, axis_title: str, columns: Sequence[str], rows: tuple[int, int]
) -> BarChart:
    """A column chart of ``columns`` (names of ``PLAN_COLUMNS``) over the plans in ``rows``
    (header row, last row); categories are the plans' names."""
    chart = BarChart()
    chart.type = "col"
    chart.title = title
    chart.y_axis.title = axis_title
    chart.width, chart.height = _CHART_WIDTH_CM, _CHART_HEIGHT_CM
    first, last = rows
    for name in columns:
        column = PLAN_COLUMNS.index(name) + 1
        data = Reference(sheet, min_col=column, min_row=first, max_row=last)
        chart.add_data(data, titles_from_data=True)
    chart.set_categories(Reference(sheet, min_col=1, min_row=first + 1, max_row=last))
    # Excel hides axes openpyxl leaves marked as deleted; a manager needs the scale.
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend.position = "b"
    return chart


def _charts(sheet: Any, rows: tuple[int, int], anchor_row: int) -> None:
    costs = _bar_chart(
        sheet,
        "Annual cost by component",
        "$/year",
        [f"{c}_usd_per_year" for c in COST_COMPONENTS],
        rows,
    )
    costs.grouping, costs.overlap = "stacked", 100
    costs.y_axis.number_format = USD
    gpus = _bar_chart(
        sheet,
        "GPUs used against the fewest possible",
        "GPUs",
        ["gpus_used", "lower_bound_gpus"],
        rows,
    )
    use = _bar_chart(
        sheet,
        "Utilisation of the GPUs in use",
        "%",
        ["memory_utilisation", "compute_utilisation"],
        rows,
    )
    use.y_axis.number_format = "0%"
    use.y_axis.scaling.min, use.y_axis.scaling.max = 0, 1
    for chart, column in zip((costs, gpus, use), _CHART_COLUMNS, strict=True):
        sheet.add_chart(chart, f"{get_column_letter(column)}{anchor_row}")


def _page_setup(sheet: Any, last_row: int) -> None:
    """Landscape, everything scaled onto one page, the used area as the print area."""
    sheet.page_setup.orientation = "landscape"
    sheet.page_setup.paperSize = sheet.PAPERSIZE_A4
    sheet.page_setup.fitToWidth = 1
    sheet.page_setup.fitToHeight = 1
    sheet.sheet_properties.pageSetUpPr.fitToPage = True
    sheet.page_margins.left = sheet.page_margins.right = 0.4  # [inch]
    sheet.print_area = f"A1:{get_column_letter(_LAST_COLUMN)}{last_row}"


def write_overview(sheet: Any, plan: ScenarioPlan, question: str) -> None:
    """Fill ``sheet`` with the Overview of ``plan``; ``question`` says what was asked."""
    sheet.title = OVERVIEW_SHEET
    sheet.column_dimensions["A"].width = _LABEL_WIDTH
    for column in range(2, _LAST_COLUMN + 1):
        sheet.column_dimensions[get_column_letter(column)].width = _NUMBER_WIDTH
    write_cell(sheet, 1, 1, "GPU share plan: overview").font = Font(bold=True, size=14)
    _sentence(sheet, 2, f"Question: {question}.")
    write_cell(sheet, 4, 1, "Recommendation").font = Font(bold=True, size=12)
    row = 5
    for line in recommendation_lines(plan):
        _sentence(sheet, row, line, font=BOLD if row == 5 else None)
        row += 1
    chosen = headline_result(plan)
    write_cell(sheet, row + 1, 1, f"Key figures of {chosen.label}").font = Font(bold=True, size=12)
    row = _key_figures(sheet, row + 2, key_figures_frame(plan)) + 1
    write_cell(sheet, row, 1, "Every plan").font = Font(bold=True, size=12)
    first = row + 1
    row = _plans_table(sheet, first, plans_frame(plan))
    _charts(sheet, (first, row - 1), row + 1)
    _page_setup(sheet, row + _CHART_ROWS)
    sheet.freeze_panes = "A2"
