"""Writing cells and tables into an openpyxl sheet: human headers, number formats, safe text.

Every number gets a format a reader can take in at a glance: money in dollars, shares as
percentages, other fractions rounded for display (the cell keeps the full value). Text a
spreadsheet would read as a formula (``planner.output.cells``) is stored as a plain string.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from planner.output.cells import is_formula_text
from planner.output.headers import header

__all__ = [
    "BOLD",
    "COUNT",
    "DECIMAL",
    "EXACT",
    "EXACT_PERCENT",
    "NUMBER",
    "ONE_DECIMAL",
    "PERCENT",
    "USD",
    "USD_CENTS",
    "cell_value",
    "exact_format",
    "fit_columns",
    "number_format",
    "unit_format",
    "write_cell",
    "write_table",
]

USD = '"$"#,##0'
USD_CENTS = '"$"#,##0.00'
PERCENT = "0.0%"
DECIMAL = "0.00"
ONE_DECIMAL = "0.0"
COUNT = "#,##0"
NUMBER = "#,##0.0##"
"""Any other fraction: up to three decimals shown."""
EXACT = "0.0##############"
"""A number of an input sheet: every digit Excel holds (15 decimals at most, one at least) and
no thousands separator, so the sheet saved as CSV reads back as the numbers given."""
EXACT_PERCENT = "0.0#############%"
"""A share of an input sheet as a percentage, every digit shown (``12.34%``, ``35.0%``)."""
_EXACT_FOUR = {EXACT: "0.0000###########", EXACT_PERCENT: "0.0000##########%"}
"""The exact formats for a number of three decimals (1.125): a fourth, trailing zero
(``1,1250``) keeps a decimal comma from reading as a thousands separator (1125)."""
SMALL_NUMBER = "0.00E+00"
"""A non-zero number below ``_SMALL`` in size, which ``NUMBER`` would show as 0.0."""
BOLD = Font(bold=True)

_DECIMALS = {DECIMAL, ONE_DECIMAL, NUMBER}
_COUNTS = {"GPUs", "hosts", "instances"}
_SMALL = 0.001
_MAX_WIDTH = 60
_USD_COLUMNS = {"hardware", "licences", "power", "network", "total"}


def cell_value(value: Any) -> Any:
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


def write_cell(
    sheet: Any, row: int, column: int, value: Any, number_format: str | None = None
) -> Any:
    """Write one cell; text a spreadsheet would evaluate is forced to be a plain string.

    A float without ``number_format`` gets ``NUMBER`` (or ``SMALL_NUMBER``), never General, so no
    cell shows 0.73333333.
    """
    cell = sheet.cell(row=row, column=column)
    value = cell_value(value)
    cell.value = value
    if is_formula_text(value):
        # openpyxl marks such text as a formula on assignment; the string type undoes that.
        cell.data_type = "s"
    elif isinstance(value, int) and number_format in _DECIMALS:
        cell.number_format = COUNT  # a whole number needs no decimals
    elif number_format is not None and isinstance(value, (int, float)):
        cell.number_format = number_format
    elif isinstance(value, float):
        cell.number_format = SMALL_NUMBER if 0 < abs(value) < _SMALL else NUMBER
    return cell


def number_format(column: str) -> str | None:
    """Number format from a column's code name: its unit suffix or meaning."""
    if "usd" in column or column in _USD_COLUMNS:
        return USD
    if "utilisation" in column or column.endswith(("_share", "_fraction")):
        return PERCENT
    if "slowdown" in column or column.startswith("ratio") or column == "limit":
        return DECIMAL
    if column.endswith(("_seconds", "_gib", "_gbps", "_w", "_gpu_hours", "_gpus")):
        return ONE_DECIMAL
    return None


def unit_format(unit: str, value: Any) -> str | None:
    """Number format of a value given with its unit (a figure table's row)."""
    if not isinstance(value, (int, float)):
        return None
    if unit == "%":
        return PERCENT
    if unit.startswith(("USD", "$")):
        return USD_CENTS if isinstance(value, float) and abs(value) < 100 else USD
    if unit in _COUNTS and float(value).is_integer():
        return COUNT
    if unit == "-" or unit.startswith("x "):
        return DECIMAL
    return None


def exact_format(column: str, value: Any) -> str | None:
    """Number format of a value on an input sheet, which must show every digit given: a share
    as ``EXACT_PERCENT``, any other fraction as ``EXACT``, a whole number in General (no
    thousands separator, and a fraction typed over it shows whole)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    percent = number_format(column) == PERCENT
    if not (percent or isinstance(value, float)):
        return "General"
    exact = EXACT_PERCENT if percent else EXACT
    shown = f"{value * 100 if percent else value:.15g}"
    whole, _, decimals = shown.partition(".")
    if len(decimals) == 3 and whole.lstrip("-") != "0" and "e" not in shown:
        return _EXACT_FOUR[exact]
    return exact


def write_table(
    sheet: Any,
    frame: pd.DataFrame,
    *,
    start_row: int = 1,
    overrides: Mapping[str, str] | None = None,
    exact: bool = False,
) -> int:
    """Write ``frame`` under a bold header row of ``header`` names; return the next free row.

    Formats come from each column's code name. A figure table (``value`` and ``unit`` columns)
    formats each value by its row's unit instead; its ``%`` values are percent points (73.3),
    stored as the fraction (0.733) under a percent format, so Excel computes with them.
    ``exact``: a table of inputs, each number shown with every digit (``exact_format``), as a
    sheet saved as CSV must give them back.
    """
    columns = [str(c) for c in frame.columns]
    for j, column in enumerate(columns, start=1):
        write_cell(sheet, start_row, j, header(column, overrides)).font = BOLD
    if exact:
        for i, values in enumerate(frame.itertuples(index=False, name=None), start=start_row + 1):
            for j, (column, raw) in enumerate(zip(columns, values, strict=True), start=1):
                value = cell_value(raw)
                write_cell(sheet, i, j, value, exact_format(column, value))
        return start_row + len(frame) + 1
    formats = [number_format(c) for c in columns]
    by_unit = "value" in columns and "unit" in columns
    for i, values in enumerate(frame.itertuples(index=False, name=None), start=start_row + 1):
        row = dict(zip(columns, values, strict=True))
        for j, (column, raw) in enumerate(row.items(), start=1):
            value, fmt = cell_value(raw), formats[j - 1]
            if by_unit and column in {"value", "default"}:
                unit = str(row["unit"])
                fmt = unit_format(unit, value)
                if unit == "%" and isinstance(value, (int, float)):
                    value = value / 100
            write_cell(sheet, i, j, value, fmt)
    return start_row + len(frame) + 1


def fit_columns(sheet: Any, *, skip: int = 0) -> None:
    """Width of each column from its longest value, capped; long text wraps.

    The first ``skip`` rows (a title, a sentence) neither set widths nor wrap.
    """
    widths: dict[int, int] = {}
    for row in sheet.iter_rows(min_row=skip + 1):
        for cell in row:
            if cell.value is None:
                continue
            if cell.number_format in (EXACT_PERCENT, _EXACT_FOUR[EXACT_PERCENT]):
                # An input sheet shows every digit; a column too narrow would hide some.
                shown = len(f"{cell.value * 100:.15g}.0000%")
            elif cell.number_format in (EXACT, _EXACT_FOUR[EXACT]):
                shown = len(f"{cell.value:.15g}.0000")
            elif isinstance(cell.value, float):
                shown = len(f"{cell.value:,.2f}")
            else:
                shown = len(str(cell.value))
            widths[cell.column] = max(widths.get(cell.column, 0), shown)
            if shown > _MAX_WIDTH:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    for column, width in widths.items():
        sheet.column_dimensions[get_column_letter(column)].width = min(width + 2, _MAX_WIDTH)
