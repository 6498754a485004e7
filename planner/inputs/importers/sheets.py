"""Reading an Excel workbook (``.xlsx``) the way every importer does: opened read-only for its
saved values, each sheet's rows with the cells openpyxl cannot read (an error value, a number
cell holding ``inf``, a formula saved without its value) given as ``UnreadableCell`` for the
reader to name on its row and column, not failing the whole sheet. An encrypted workbook
(saved with a password or a sensitivity label) is refused saying so."""

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
from planner.inputs.tabular import COMPOUND_FILE

__all__ = [
    "RowPastLastRowError",
    "UnreadableCell",
    "is_encrypted_workbook",
    "refuse_encrypted_workbook",
    "sheet_rows",
    "workbook_sheets",
]

_ENCRYPTED_PACKAGE = "EncryptedPackage"
"""The stream holding an encrypted .xlsx in its compound file (MS-OFFCRYPTO 2.3.4.4)."""
_DIRECTORY_ENTRY = 128
"""Bytes of a compound file's directory entry: its name in UTF-16LE (64 bytes), the name's
length in bytes with its terminating zero (2 bytes), then the entry's type and links."""
_HEADER_FAT_SECTORS = 109
"""Sectors of the allocation table listed in the header; more are chained from it."""


def is_encrypted_workbook(data: bytes) -> bool:
    """Whether ``data`` is an encrypted Office document, as Excel saves an .xlsx with a password
    (File > Info > Protect Workbook > Encrypt with Password) or a sensitivity label that
    encrypts: a compound file whose directory names an ``EncryptedPackage`` stream. An
    Excel 97-2003 workbook (.xls) is a compound file without one."""
    return _ENCRYPTED_PACKAGE in _compound_file_names(data)


def refuse_encrypted_workbook(data: bytes, file: str) -> None:
    """Raises ``InputError`` saying how to give an encrypted workbook unprotected when
    ``data`` is one."""
    if is_encrypted_workbook(data):
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "the workbook is encrypted (a password or a sensitivity label), so it "
                    "cannot be read",
                    "open it in Excel and remove the password (File > Info > Protect Workbook), "
                    "or save an unprotected copy, and give that",
                )
            ]
        )


def _compound_file_names(data: bytes) -> set[str]:
    """The names in a compound file's directory (MS-CFB 2.2, 2.6); none for other data or a
    compound file too damaged to walk."""
    if not data.startswith(COMPOUND_FILE) or len(data) < 512:
        return set()
    sector_size = 1 << _number(data, 30, 2)
    if sector_size not in (512, 4096):
        return set()
    # The header fills sector -1: sector n starts at (n + 1) sector sizes.
    sectors = len(data) // sector_size - 1
    per_sector = sector_size // 4

    def sector(number: int) -> bytes:
        return data[(number + 1) * sector_size : (number + 2) * sector_size]

    fat_sectors = [_number(data, 76 + 4 * i) for i in range(_HEADER_FAT_SECTORS)]
    chained = _number(data, 68)
    for _ in range(sectors):  # a chain that loops back ends here
        if chained >= sectors:
            break
        block = sector(chained)
        fat_sectors += [_number(block, 4 * i) for i in range(per_sector - 1)]
        chained = _number(block, sector_size - 4)
    fat = [_number(sector(n), 4 * i) for n in fat_sectors if n < sectors for i in range(per_sector)]
    names: set[str] = set()
    directory = _number(data, 48)
    for _ in range(sectors):
        if directory >= sectors:
            break
        block = sector(directory)
        for start in range(0, sector_size, _DIRECTORY_ENTRY):
            length = _number(block, start + 64, 2)
            if 2 <= length <= 64:
                names.add(block[start : start + length - 2].decode("utf-16-le", "replace"))
        directory = fat[directory] if directory < len(fat) else sectors
    return names


def _number(data: bytes, at: int, size: int = 4) -> int:
    """The little-endian unsigned number of ``size`` bytes at ``at``."""
    return int.from_bytes(data[at : at + size], "little")


def workbook_sheets(data: bytes, file: str, fix: str) -> Any:
    """An openpyxl read-only workbook of ``data``; ``InputError`` with ``fix`` (how to give the
    file the reader expects) when it is not one, or saying how to give it unprotected when it
    is encrypted."""
    refuse_encrypted_workbook(data, file)
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
