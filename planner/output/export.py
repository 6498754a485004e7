"""The plan as an Excel workbook that documents itself: results, inputs and every assumption.

Text from a user's file never becomes a formula: any string that a spreadsheet would read as one
(``planner.output.cells``) is stored as a plain string.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from planner.assumptions import Assumptions, Fact, facts
from planner.inputs.importers.workbook import write_inputs_sheet
from planner.inputs.limits import EXCEL_MAX_ROWS
from planner.inputs.problems import InputProblem, problems_frame
from planner.measure.performance import constants_frame
from planner.output.cells import FORMULA_PREFIXES, is_formula_text
from planner.output.recommendations import DECISION_COLUMNS, RecommendedPlan, decisions_frame
from planner.output.report import (
    COMPARISON_COLUMNS,
    ScenarioPlan,
    comparison_frame,
    placement_frame,
    slowdown_frame,
    utilisation_frame,
)

__all__ = [
    "FORMULA_PREFIXES",
    "INPUT_PROBLEMS_SHEET",
    "sheet_name",
    "sheet_parts",
    "sheets_bytes",
    "workbook_bytes",
    "write_sheets",
    "write_workbook",
]


INPUT_PROBLEMS_SHEET = "Input problems"
"""The sheet listing every input row the plan skipped, with file, row, column, reason and fix."""

USD = '"$"#,##0'
PERCENT = "0.0%"
DECIMAL = "0.00"
ONE_DECIMAL = "0.0"

_MAX_WIDTH = 60
_FORBIDDEN_IN_SHEET_NAMES = str.maketrans(dict.fromkeys("[]:*?/\\", " "))


def sheet_name(text: str) -> str:
    """A valid, at most 31-character Excel sheet name from ``text``."""
    return text.translate(_FORBIDDEN_IN_SHEET_NAMES).strip()[:31]


def _cell_value(value: Any) -> Any:
    """A value openpyxl writes faithfully: NaN and NA become empty, enums their value."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()  # numpy scalar to Python
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value)
    return value


def _write(sheet: Any, row: int, column: int, value: Any) -> Any:
    """Write one cell; text a spreadsheet would evaluate is forced to be a plain string."""
    cell = sheet.cell(row=row, column=column)
    value = _cell_value(value)
    cell.value = value
    if is_formula_text(value):
        # openpyxl marks such text as a formula on assignment; the string type undoes that.
        cell.data_type = "s"
    return cell


def _number_format(column: str) -> str | None:
    """Number format from a column's unit suffix or meaning."""
    if "usd" in column or column in {"hardware", "licences", "power", "network", "total"}:
        return USD
    if "utilisation" in column or column.endswith(("_share", "_fraction")):
        return PERCENT
    if "slowdown" in column or column.startswith("ratio") or column.endswith("_seconds"):
        return DECIMAL
    if column.endswith(("_gib", "_gbps", "_w")):
        return ONE_DECIMAL
    return None


def _write_table(sheet: Any, frame: pd.DataFrame, *, start_row: int = 1) -> int:
    """Write ``frame`` with a bold header at ``start_row``; return the next free row."""
    for j, column in enumerate(frame.columns, start=1):
        _write(sheet, start_row, j, str(column)).font = Font(bold=True)
    formats = [_number_format(str(c)) for c in frame.columns]
    for i, values in enumerate(frame.itertuples(index=False, name=None), start=start_row + 1):
        for j, value in enumerate(values, start=1):
            cell = _write(sheet, i, j, value)
            if formats[j - 1] and isinstance(cell.value, (int, float)):
                cell.number_format = formats[j - 1]
    return start_row + len(frame) + 1


def _fit_columns(sheet: Any) -> None:
    """Width of each column from its longest value, capped; long text wraps."""
    widths: dict[int, int] = {}
    for row in sheet.iter_rows():
        for cell in row:
            if cell.value is None:
                continue
            shown = (
                len(f"{cell.value:,.2f}") if isinstance(cell.value, float) else len(str(cell.value))
            )
            widths[cell.column] = max(widths.get(cell.column, 0), shown)
            if shown > _MAX_WIDTH:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    for column, width in widths.items():
        sheet.column_dimensions[get_column_letter(column)].width = min(width + 2, _MAX_WIDTH)


def sheet_parts(
    title: str, frame: pd.DataFrame, *, max_rows: int | None = None
) -> list[tuple[str, pd.DataFrame]]:
    """``frame`` as sheets of at most ``max_rows`` rows, header included (Excel's limit).

    A frame that fits is one sheet named ``title``; a longer one continues on sheets named
    ``title (2)``, ``title (3)`` ..., each with the header, so no row is lost.
    """
    per_sheet = (EXCEL_MAX_ROWS if max_rows is None else max_rows) - 1
    if len(frame) <= per_sheet:
        return [(sheet_name(title), frame)]
    parts = []
    for index, start in enumerate(range(0, len(frame), per_sheet)):
        suffix = "" if index == 0 else f" ({index + 1})"
        name = sheet_name(title)[: 31 - len(suffix)] + suffix
        parts.append((name, frame.iloc[start : start + per_sheet]))
    return parts


def _table_sheet(book: Workbook, title: str, frame: pd.DataFrame, *, freeze: str = "A2") -> None:
    for name, part in sheet_parts(title, frame):
        sheet = book.create_sheet(name)
        _write_table(sheet, part)
        sheet.freeze_panes = freeze
        _fit_columns(sheet)


def _summary_sheet(book: Workbook, plan: ScenarioPlan) -> None:
    sheet = book.active
    sheet.title = "Summary"
    row = 1
    if plan.recommended is not None:
        _write(sheet, row, 1, "Recommended plan").font = Font(bold=True, size=12)
        _write(sheet, row + 1, 1, plan.recommended.headline())
        row += 3
    row = _write_table(sheet, comparison_frame(plan), start_row=row) + 1
    notes = [
        (r.label, note)
        for r in plan.results
        for note in (*r.plan.notes, *r.cost.notes, *r.feasibility_violations)
    ]
    if notes:
        _write(sheet, row, 1, "Notes").font = Font(bold=True, size=12)
        row = _write_table(
            sheet, pd.DataFrame(notes, columns=["method", "note"]), start_row=row + 1
        )
        row += 1
    _write(sheet, row, 1, "Columns").font = Font(bold=True, size=12)
    meanings = pd.DataFrame(list(COMPARISON_COLUMNS.items()), columns=["column", "meaning"])
    row = _write_table(sheet, meanings, start_row=row + 1) + 1
    question = (
        "fit the workloads into the inventory"
        if plan.question == "fit"
        else ("add to the inventory " if plan.question == "add" else "size a cluster of ")
        + " or ".join(
            f"{s.label} servers ({s.cpu_cores:g} cores, {s.ram_gib:g} GiB RAM)"
            for s in (plan.servers or ((plan.server,) if plan.server else ()))
        )
    )
    _write(sheet, row, 1, "Question")
    _write(sheet, row, 2, question)
    sheet.freeze_panes = "B2"
    _fit_columns(sheet)


def _recommended_sheet(book: Workbook, recommended: RecommendedPlan) -> None:
    """The recommended plan: the answer, savings, each class's decision, every placement with
    its GPU's role."""
    sheet = book.create_sheet("Recommended plan")
    _write(sheet, 1, 1, recommended.headline()).font = Font(bold=True, size=12)
    result = recommended.result
    facts = [
        ("found as", recommended.source),
        ("annual cost [USD/year]", result.cost.total_usd_per_year),
        ("lower bound on that cost [USD/year]", recommended.cost_lower_bound_usd),
        ("cost over its bound [-]", recommended.ratio_to_bound),
        ("GPUs used", result.metrics.gpus_used),
        (
            "no plan serving the same instances uses fewer GPUs than",
            result.metrics.lower_bound_gpus,
        ),
        ("status", result.plan.status.value),
        *recommended.purchase_facts(),
    ]
    for reference in (recommended.today, recommended.best_single):
        if reference is not None:
            facts.append(
                (
                    f"against {reference.label}",
                    f"{reference.metrics.instances_placed} served on "
                    f"{reference.metrics.gpus_used} GPUs for "
                    f"${reference.cost.total_usd_per_year:,.0f}/year",
                )
            )
    row = _write_table(sheet, pd.DataFrame(facts, columns=["figure", "value"]), start_row=3) + 1
    _write(sheet, row, 1, "Each class's method, and why").font = Font(bold=True, size=12)
    row = _write_table(sheet, decisions_frame(recommended), start_row=row + 1) + 1
    _write(sheet, row, 1, "Columns").font = Font(bold=True, size=12)
    meanings = pd.DataFrame(list(DECISION_COLUMNS.items()), columns=["column", "meaning"])
    row = _write_table(sheet, meanings, start_row=row + 1) + 1
    _write(sheet, row, 1, "Placements, each GPU with its role").font = Font(bold=True, size=12)
    _write_table(sheet, placement_frame(result), start_row=row + 1)
    _fit_columns(sheet)


def _not_placed(plan: ScenarioPlan) -> pd.DataFrame:
    rows = [
        (r.name, r.label, n.instance, n.workload, n.reason)
        for r in plan.results
        for n in r.plan.not_placed
    ]
    return pd.DataFrame(rows, columns=["method", "label", "instance", "workload", "reason"])


def _costs(plan: ScenarioPlan) -> pd.DataFrame:
    rows = [
        {
            "method": r.name,
            "label": r.label,
            "hardware_usd_per_year": r.cost.hardware_usd_per_year,
            "licences_usd_per_year": r.cost.licences_usd_per_year,
            "power_usd_per_year": r.cost.power_usd_per_year,
            "network_usd_per_year": r.cost.network_usd_per_year,
            "total_usd_per_year": r.cost.total_usd_per_year,
            "usd_per_instance_year": r.cost.usd_per_instance_year,
            "instances_placed": r.cost.instances_placed,
            "notes": " ".join(r.cost.notes),
        }
        for r in plan.results
    ]
    return pd.DataFrame(rows)


def _records(values: Sequence[Any]) -> pd.DataFrame:
    """One row per dataclass instance, one column per field."""
    return pd.DataFrame(
        [{f.name: getattr(v, f.name) for f in dataclasses.fields(v)} for v in values]
    )


def _meaning(about: Fact) -> str:
    """An assumption's meaning with its range and, for a guess, a note to replace it."""
    extra = [f"range {about.range_text}"] if about.range_text else []
    if about.is_guess:
        extra.append("a guess: replace it with your figure")
    return f"{about.meaning} ({'; '.join(extra)})" if extra else about.meaning


def _assumptions(plan: ScenarioPlan) -> pd.DataFrame:
    given = plan.scenario.assumptions
    defaults = {name: value for name, _, value in facts(Assumptions())}
    rows = [
        (name, _cell_value(value), about.unit, value == defaults[name], _meaning(about))
        for name, about, value in facts(given)
    ]
    models = sorted({p.gpu_model for r in plan.results for p in r.plan.placements})
    for model in models:
        gpu = plan.scenario.catalog.gpus[model]
        override = given.gpu_price_usd.get(model)
        price = override if override is not None else gpu.price_usd
        source = "user override" if override is not None else f"catalog: {gpu.source}"
        rows.append(
            (
                f"gpu_price_usd[{model}]",
                price,
                "USD/GPU",
                override is None and gpu.price_is_default,
                f"purchase price per GPU ({source})",
            )
        )
    # Only the overrides here; the Performance model sheet lists every constant.
    performance = constants_frame(given)
    for constant in performance[performance["is_overridden"]].to_dict("records"):
        rows.append(
            (
                f"performance_constants[{constant['constant']}]",
                constant["value"],
                constant["unit"],
                False,
                f"{constant['meaning']} (user override; model default {constant['default']:g})",
            )
        )
    return pd.DataFrame(rows, columns=["assumption", "value", "unit", "is_default", "meaning"])


def write_workbook(
    plan: ScenarioPlan,
    target: Path | BinaryIO,
    *,
    extra_sheets: Mapping[str, pd.DataFrame] | None = None,
    input_problems: Sequence[InputProblem] = (),
) -> None:
    """Write the plan to an .xlsx file or binary stream.

    The Input problems sheet, after Summary and Recommended plan, lists every input row that was
    skipped and every other problem of ``input_problems`` (file, row, column, problem, fix); it is
    there, with its header alone, when nothing was skipped.

    Sheets: Summary (comparison, recommendations, notes, column meanings), one Placement sheet
    per method, Not placed (with reasons), Costs, Utilisation (per GPU), Slowdown, Inventory and
    Workloads (the inputs as used), Assumptions (value, unit, whether it is a default; performance
    constants the user overrode), Performance model (every constant: value in use, default,
    whether overridden, whether a guess, unit, meaning, source), then ``extra_sheets`` in order,
    and last ``Planner inputs``, which the planner reads back to restore the scenario
    (``planner.inputs.importers.workbook``).
    """
    book = Workbook()
    _summary_sheet(book, plan)
    if plan.recommended is not None:
        _recommended_sheet(book, plan.recommended)
    # Before the placements, so a reader sees at once whether the plan left any input out.
    _table_sheet(book, INPUT_PROBLEMS_SHEET, problems_frame(input_problems))
    for result in plan.results:
        _table_sheet(book, f"Placement {result.label}", placement_frame(result), freeze="B2")
    _table_sheet(book, "Not placed", _not_placed(plan))
    _table_sheet(book, "Costs", _costs(plan), freeze="C2")
    _table_sheet(book, "Utilisation", utilisation_frame(plan), freeze="C2")
    _table_sheet(book, "Slowdown", slowdown_frame(plan))
    hosts = plan.scenario.inventory.hosts
    if plan.question == "size":
        # Sizing opens hosts of one type; show those the plans could use, not the inventory.
        hosts = tuple({h.name: h for r in plan.results for h in r.plan.hosts}.values())
    _table_sheet(book, "Inventory", _records(hosts), freeze="B2")
    _table_sheet(book, "Workloads", _records(plan.scenario.workloads), freeze="B2")
    _table_sheet(book, "Assumptions", _assumptions(plan), freeze="B2")
    _table_sheet(book, "Performance model", constants_frame(plan.scenario.assumptions), freeze="B2")
    for title, frame in (extra_sheets or {}).items():
        _table_sheet(book, title, frame)
    write_inputs_sheet(book, plan.scenario)
    book.save(target)


def write_sheets(frames: Mapping[str, pd.DataFrame], target: Path | BinaryIO) -> None:
    """Write frames alone, one sheet each, with the plan workbook's formats and text safety."""
    book = Workbook()
    book.remove(book.active)
    for title, frame in frames.items():
        _table_sheet(book, title, frame)
    book.save(target)


def sheets_bytes(frames: Mapping[str, pd.DataFrame]) -> bytes:
    """The workbook of ``write_sheets`` as bytes, for a download button."""
    buffer = io.BytesIO()
    write_sheets(frames, buffer)
    return buffer.getvalue()


def workbook_bytes(
    plan: ScenarioPlan,
    *,
    extra_sheets: Mapping[str, pd.DataFrame] | None = None,
    input_problems: Sequence[InputProblem] = (),
) -> bytes:
    """The workbook of ``write_workbook`` as bytes, for a download button."""
    buffer = io.BytesIO()
    write_workbook(plan, buffer, extra_sheets=extra_sheets, input_problems=input_problems)
    return buffer.getvalue()
