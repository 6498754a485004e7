"""Reading an Excel workbook (``.xlsx``) the way every importer does: opened read-only for its
saved values, each sheet's rows with the cells openpyxl cannot read (an error value, a number
cell holding ``inf``, a formula saved without its value) given as ``UnreadableCell`` for the
reader to name on its row and column, not failing the whole sheet."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from openpyxl import load_workbook
from openpyxl.utils.cell import coordinate_to_tuple
from openpyxl.worksheet._read_only import ReadOnlyWorksheet
from openpyxl.worksheet._reader import FORMULA_TAG, VALUE_TAG, WorkSheetParser

from planner.inputs.problems import InputError, InputProblem

__all__ = ["RowPastLastRowError", "UnreadableCell", "sheet_rows", "workbook_sheets"]


def workbook_sheets(data: bytes, file: str, fix: str) -> Any:
    """An openpyxl read-only workbook of ``data``; ``InputError`` with ``fix`` (how to give the
    file the reader expects) when it is not one."""
    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    # openpyxl and zipfile raise many types (BadZipFile, KeyError, XML parse errors) for a
    # damaged file; every one means the same to the user.
    except Exception:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "not a readable Excel workbook (.xlsx)",
                    fix,
                )
            ]
        ) from None


@dataclass(frozen=True)
class UnreadableCell:
    """A workbook cell whose saved value is no value: an error a formula left (``#DIV/0!``,
    ``#REF!``, ``#N/A``), a number cell holding what is no number (``inf``, ``NaN``, as
    writers other than Excel save an infinite or missing figure), or a formula saved without
    its value (a program that writes workbooks without calculating them). ``sheet_rows`` gives
    one in its place, for its reader to name as a problem on its row and column."""

    saved: str
    """The cell's value as saved (``#DIV/0!``, ``inf``), or its formula (``=B2*4``)."""
    error: bool
    """An error value (``#...!``, ``#N/A``) rather than a number that is none."""
    formula: bool = False
    """A formula with no value saved: read as an empty cell, it would lose what it says."""

    def __str__(self) -> str:
        return self.saved

    @property
    def said(self) -> str:
        """The cell as a message names it: ``the error value #DIV/0! (a formula that failed)``,
        ``'inf', a number cell holding no finite number`` or ``the formula =B2*4 with no value
        saved (...)``."""
        if self.error:
            return f"the error value {self.saved} (a formula that failed)"
        if self.formula:
            return (
                f"the formula {self.saved} with no value saved (the program that wrote the "
                "workbook did not calculate it; open and save it in Excel or LibreOffice, or "
                "type the value)"
            )
        return f"'{self.saved}', a number cell holding no finite number"


class _TolerantParser(WorkSheetParser):  # type: ignore[misc]  # openpyxl is untyped
    """openpyxl's sheet parser, giving an ``UnreadableCell`` for a cell it cannot read (a
    number cell holding ``inf``) or that holds an error value, instead of failing the sheet."""

    def parse_cell(self, element: Any) -> dict[str, Any]:
        try:
            cell: dict[str, Any] = super().parse_cell(element)
        except (ValueError, IndexError, OverflowError):
            # The parser counts the cell's column before reading its value: the place is known.
            coordinate = element.get("r")
            row, column = (
                coordinate_to_tuple(coordinate)
                if coordinate
                else (self.row_counter, self.col_counter)
            )
            saved = (element.findtext(VALUE_TAG) or "").strip()
            return {
                "row": row,
                "column": column,
                "value": UnreadableCell(saved, saved.startswith("#")),
                "data_type": "e",
                "style_id": 0,
            }
        value = cell["value"]
        if isinstance(value, float) and not math.isfinite(value):
            # openpyxl reads 1E400 as inf without failing: no figure either.
            saved = (element.findtext(VALUE_TAG) or "").strip()
            cell["value"] = UnreadableCell(saved, False)
        if cell["data_type"] == "e" and cell["value"] is not None:
            cell["value"] = UnreadableCell(str(cell["value"]).strip(), True)
        formula = element.findtext(FORMULA_TAG)
        if cell["value"] is None and formula:
            # Read for values only, a formula without its saved value would read as empty.
            cell["value"] = UnreadableCell(f"={formula}", False, formula=True)
        return cell


_EXCEL_ROWS = 1_048_576
"""Rows of an Excel sheet [rows]."""


class RowPastLastRowError(ValueError):
    """A sheet holds a row numbered past Excel's last: no spreadsheet writes one, and the blank
    rows up to it, given one by one, would take a workbook of a few kilobytes minutes to pass
    over. Its reader names the row as a problem."""

    def __init__(self, row: int) -> None:
        self.row = row
        super().__init__(
            f"row {row:,} is past Excel's last row ({_EXCEL_ROWS:,}): no spreadsheet writes one"
        )


def sheet_rows(sheet: Any) -> Iterator[tuple[Any, ...]]:
    """The values of each row of a sheet, from row 1 (an empty tuple for a row the file leaves
    out), as ``iter_rows(values_only=True)`` gives them,
    except that a cell holding an error value or a number that is none is an
    ``UnreadableCell``: one such cell (a figure another writer saved as ``inf``) made openpyxl
    fail the whole sheet. A sheet that is not an openpyxl read-only worksheet (a CSV tab) is
    read by its own ``iter_rows``. Raises ``RowPastLastRowError`` at a row past Excel's last."""
    if not isinstance(sheet, ReadOnlyWorksheet):
        yield from sheet.iter_rows(values_only=True)
        return
    book = sheet.parent
    # As ReadOnlyWorksheet._cells_by_row reads a sheet (openpyxl 3.1, pinned), with the parser
    # above: openpyxl offers no hook for a cell it cannot read.
    with sheet._get_source() as source:
        parser = _TolerantParser(
            source,
            sheet._shared_strings,
            data_only=book.data_only,
            epoch=book.epoch,
            date_formats=book._date_formats,
            timedelta_formats=book._timedelta_formats,
        )
        expected = 1
        for number, cells in parser.parse():
            if number > _EXCEL_ROWS:
                raise RowPastLastRowError(number)
            if number < expected:
                continue  # a row written twice: the first is read, as openpyxl does
            for _ in range(expected, number):
                yield ()
            values: list[Any] = [None] * max((c["column"] for c in cells), default=0)
            for cell in cells:
                values[cell["column"] - 1] = cell["value"]
            yield tuple(values)
            expected = number + 1
