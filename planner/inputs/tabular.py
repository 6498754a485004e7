"""Reading user tables (CSV files or edited DataFrames) into rows of text cells, and parsing cells.

Every loader in the planner (catalog, inventory, workloads) reads through here, so a file is
decoded, its header normalised and its rows numbered the same way everywhere: row numbers are
as a spreadsheet shows them, with the header as row 1.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import pandas as pd

from planner.inputs.limits import MAX_FILE_MB, MAX_NAME_CHARS, MAX_ROWS, limit_text
from planner.inputs.problems import InputError, InputProblem

__all__ = [
    "COMPOUND_FILE",
    "CSV_TEXT",
    "DECIMAL_COMMA",
    "GROUP_MARKS",
    "LARGE_FILE_FIX",
    "MANY_ROWS_FIX",
    "SPREADSHEET_SEPARATORS",
    "TITLE_ROWS",
    "CellError",
    "CsvDialect",
    "CsvHeader",
    "CsvReader",
    "Row",
    "Table",
    "TableColumns",
    "TextKind",
    "binary_kind",
    "column_names",
    "comment_row",
    "csv_header",
    "csv_records",
    "decode_file",
    "header_below_titles",
    "is_workbook",
    "long_name",
    "normalise_column",
    "number_text",
    "parse_bool",
    "parse_cells",
    "parse_float",
    "parse_int",
    "parse_text",
    "quoted",
    "read_csv_table",
    "read_rows",
    "refuse_comma_number",
    "refuse_grouped_number",
    "refuse_large_file",
    "refuse_repeated_names",
    "shown",
    "source_name",
    "table_from_frame",
    "total_row",
    "usable_name",
    "visible_name",
    "yes_no",
]

_Item = TypeVar("_Item")

_TRUE = frozenset({"yes", "y", "true", "1"})
_FALSE = frozenset({"no", "n", "false", "0"})
_ZIP_MAGIC = b"PK\x03\x04"
"""An .xlsx workbook is a zip file; users upload one by mistake for a CSV."""
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
"""Byte-order marks of UTF-16 text, as Excel's 'Unicode Text' and Windows PowerShell write it."""
COMPOUND_FILE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The start of an OLE2 compound file (MS-CFB): an Office 97-2003 file (.xls, .doc), or the
container of an encrypted .xlsx."""
_BINARY_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x1f\x8b", "a gzip archive"),
    (COMPOUND_FILE, "an Office 97-2003 file (.xls, .doc)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
)
"""How files users pick by mistake begin (their magic numbers), and what they are."""


def is_workbook(data: bytes) -> bool:
    """The file is a zip container, as an .xlsx workbook is, not text."""
    return data.startswith(_ZIP_MAGIC)


def binary_kind(data: bytes) -> str | None:
    """What a file that is not text is (``a PNG image``), from how it begins; None when it
    does not begin like a known binary format."""
    return next((kind for magic, kind in _BINARY_SIGNATURES if data.startswith(magic)), None)


@dataclass(frozen=True)
class TextKind:
    """The text a file is read as, as the refusals of a file that is not such text word it."""

    name: str
    """What the file should hold, as in ``this is a PNG image, not CSV text``."""
    give: str
    """The fix for a file of another kind (an image, binary data)."""
    save_as_utf8: str
    """The fix for text saved in another encoding: how to save it as UTF-8."""
    save_whole: str
    """The fix for a file cut short (UTF-16 with an odd number of bytes): how to give it whole."""


CSV_TEXT = TextKind(
    "CSV text",
    "load a .csv file",
    "save it as UTF-8: in Excel use File > Save As > CSV UTF-8",
    "save or export the file again and give the whole file (or save it as UTF-8: in Excel use "
    "File > Save As > CSV UTF-8)",
)
"""A planner CSV file (inventory, workloads, catalog)."""
_LINE_END = re.compile(r"\r\n|\r|\n")
"""A line end as written on Windows, Unix or classic Mac OS (Excel's "CSV (Macintosh)")."""


_UTF16_SAMPLE = 1024
"""Bytes looked at to tell UTF-16 text saved without its byte-order mark [bytes]."""


def _bare_utf16(data: bytes) -> str | None:
    """The codec of UTF-16 text saved without its byte-order mark (a program that writes
    UTF-16 bare, or a file whose mark was cut off with its first line), told from the pattern
    of zero bytes in its first kilobyte: ``utf-16-le`` or ``utf-16-be``; None for any other
    data.

    Such text is mostly characters below U+0100, whose high byte is zero: more than half the
    odd bytes zero is little-endian, more than half the even ones big-endian. Text holds no
    NUL character, so data with both bytes of a pair zero is not UTF-16 text.
    """
    sample = data[: min(len(data), _UTF16_SAMPLE) // 2 * 2]
    pairs = list(zip(sample[0::2], sample[1::2], strict=True))
    if not pairs or any(first == 0 and second == 0 for first, second in pairs):
        return None
    if sum(second == 0 for _, second in pairs) * 2 > len(pairs):
        return "utf-16-le"
    if sum(first == 0 for first, _ in pairs) * 2 > len(pairs):
        return "utf-16-be"
    return None


def decode_file(data: bytes, file: str, kind: TextKind) -> str:
    """The text of a file's bytes: UTF-8, with or without the byte-order mark Excel writes,
    UTF-16 with its byte-order mark (Excel's "Unicode Text", Windows PowerShell's ``>``), or
    UTF-16 without one, little- or big-endian, told by its zero bytes (``_bare_utf16``). Line
    ends are kept as written.

    Raises ``InputError`` naming ``file``: for a file of another kind (``binary_kind``) or
    binary data, for UTF-16 with an odd number of bytes (a file cut short, its last character
    half there), naming its last line, and for bytes in another encoding (Latin-1,
    Windows-1252), naming the line (1-based) of the first byte that cannot be decoded and how
    to save the file as UTF-8.
    """
    found = binary_kind(data)
    if found is not None:
        raise InputError(
            [InputProblem(file, None, None, f"this is {found}, not {kind.name}", kind.give)]
        )
    encoding = "utf-16" if data.startswith(_UTF16_MARKS) else _bare_utf16(data)
    # Text never holds a NUL byte (UTF-16's are read above): such a file is binary data, and
    # naming a byte that does not decode would wrongly suggest another text encoding.
    if encoding is None and b"\x00" in data:
        raise InputError(
            [InputProblem(file, None, None, f"binary data, not {kind.name}", kind.give)]
        )
    if encoding is None:
        # UTF-8's byte-order mark is taken off before decoding, so a bad byte's position is
        # counted in the bytes sliced here (``utf-8-sig`` counts it from after the mark).
        data, encoding = data.removeprefix(codecs.BOM_UTF8), "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        # The bytes before the first bad one decode; split at line ends, their last part is
        # the start of the bad byte's line.
        before = data[: error.start].decode(encoding, errors="replace")
        line = len(_LINE_END.split(before))
        bad = data[error.start : error.end]
        if encoding != "utf-8" and len(data) % 2 and error.end == len(data):
            # UTF-16 is two bytes a character: a lone byte at the end is half of the last one.
            raise InputError(
                [
                    InputProblem(
                        file,
                        line,
                        None,
                        "UTF-16 text cut short: the file has an odd number of bytes "
                        f"({len(data):,}), so its last character is incomplete",
                        kind.save_whole,
                    )
                ]
            ) from None
        raise InputError(
            [
                InputProblem(
                    file,
                    line,
                    None,
                    f"not {'UTF-8' if encoding == 'utf-8' else 'UTF-16'} text: "
                    f"{'byte' if len(bad) == 1 else 'bytes'} {bad.hex(' ').upper()} cannot be "
                    "decoded (a character saved in another encoding, such as Latin-1 or "
                    "Windows-1252)",
                    kind.save_as_utf8,
                )
            ]
        ) from None
    if "\x00" in text:
        raise InputError(
            [InputProblem(file, None, None, f"binary data, not {kind.name}", kind.give)]
        )
    return text


SPREADSHEET_SEPARATORS = ",;\t"
"""Column separators a spreadsheet writes: commas, semicolons (Excel's "CSV" in locales whose
decimal mark is a comma) and tabs (Excel's "Text (Tab delimited)")."""
DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
"""A number with a decimal comma: ``0,25``."""
_ONE_GROUP = re.compile(r"[+-]?[1-9]\d{0,2}[.,]\d{3}")
"""One mark before three digits (``1,024``, ``1.024``): a decimal mark or a thousands separator."""
_DOT_GROUPS = re.compile(r"[+-]?[1-9]\d{0,2}(\.\d{3})+(,\d+)?")
"""Points between groups of thousands, then a decimal comma or none: ``1.048.576``, ``1.024,5``."""
_COMMA_GROUPS = re.compile(r"[+-]?[1-9]\d{0,2}(,\d{3}){2,}(\.\d+)?")
"""Commas between groups of thousands, twice or more (a decimal comma is written once)."""


class CellError(ValueError):
    """One cell's value is wrong: ``message`` says what, ``fix`` says how to correct it."""

    def __init__(self, message: str, fix: str) -> None:
        self.message = message
        self.fix = fix
        super().__init__(f"{message}. Fix: {fix}")


def normalise_column(name: str) -> str:
    """Column name as matched: case, spaces and dashes ignored (``GPU Model`` -> ``gpu_model``),
    and the zero-width characters a header cell holds unseen removed (``_without_zero_width``).
    """
    return re.sub(r"[\s\-]+", "_", _without_zero_width(name).strip().lower()).strip("_")


def _without_zero_width(text: str) -> str:
    """``text`` without the characters that take no width and mark only how text is handled
    (Unicode's format characters: a byte-order mark of files joined one after the other, a
    zero-width space pasted from a web page, a soft hyphen, a bidi mark)."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


@dataclass(frozen=True)
class Row:
    """One data row: its spreadsheet row number and its cells by normalised column name."""

    number: int
    """Row number as a spreadsheet shows it (the header is row 1)."""
    cells: Mapping[str, str]
    """Trimmed text of each cell, keyed by normalised column name; missing cells are ``""``."""

    def get(self, column: str) -> str:
        return self.cells.get(column, "")


@dataclass(frozen=True)
class TableColumns:
    """The columns a loader reads a table by, as the header finder and the column check use
    them."""

    required: tuple[str, ...]
    """Columns every file must have (normalised names)."""
    aliases: Mapping[str, str]
    """Header cell as the plan workbook's sheet writes it (``RAM [GiB]``) -> the column it is
    read as (``ram_gib``)."""
    table: str
    """What the table is, as a message names it (``inventory``)."""
    sheet: str
    """The plan workbook's sheet that holds this table (``Inventory``)."""
    template: str
    """The file that shows the table's columns (``data/templates/inventory_template.csv``)."""

    @property
    def by_header(self) -> dict[str, str]:
        """``aliases`` by normalised header (``ram_[gib]`` -> ``ram_gib``)."""
        return {normalise_column(written): column for written, column in self.aliases.items()}


@dataclass(frozen=True)
class Table:
    """A user table as text: normalised column names, each with the name the user wrote."""

    file: str
    columns: Mapping[str, str]
    """Normalised column name -> column name as written in the file."""
    rows: tuple[Row, ...]
    """Rows that could be split into cells; blank rows are left out."""
    skipped: tuple[InputProblem, ...] = ()
    """Rows that could not be split into cells (more cells than columns), each with its fix."""
    separator: str = ","
    """The column separator the file was read with; when it is not a comma, a comma in a
    number is a decimal mark (``number_text``)."""

    def number_text(self, text: str) -> str:
        """A number cell's text as ``parse_float`` reads it (``number_text`` with this file's
        separator)."""
        return number_text(text, self.separator)

    def problem(self, row: Row | None, column: str | None, message: str, fix: str) -> InputProblem:
        """An ``InputProblem`` naming this file, the row and the column as the user wrote it."""
        written = None if column is None else shown(self.columns.get(column, column))
        return InputProblem(
            file=self.file,
            row=None if row is None else row.number,
            column=written,
            message=message,
            fix=fix,
        )

    def require_columns(
        self,
        required: Sequence[str],
        optional: Iterable[str],
        *,
        all_or_nothing: bool = False,
        sheet: TableColumns | None = None,
    ) -> list[InputProblem]:
        """Raise ``InputError`` when required columns are missing; else the table-level problems.

        Those are the ``skipped`` rows, known columns whose header cell held zero-width
        characters (``normalise_column`` removes them; the cell is named escaped) and unknown
        columns. Unknown columns are not fatal (they are ignored) but are reported, because a
        misspelt optional column would otherwise silently fall back to its default.
        ``all_or_nothing``: the caller refuses the file on any problem (the catalog), so an
        unknown column is not said to be ignored. Header cells are named escaped (``shown``),
        so a name holding an invisible character is not shown as the name it looks like.
        ``sheet``: the table's columns with the plan workbook's sheet that holds them; a file
        with most required columns missing is said first to be no such table, the fix naming
        that sheet (another sheet of the workbook saved as CSV, a table of another kind).
        """
        missing = [c for c in required if c not in self.columns]
        if missing:
            # The columns found are listed once, with the first missing column.
            found = f" (found: {', '.join(shown(w) for w in self.columns.values())})"
            other = (
                [self._other_table(sheet, missing)]
                if sheet is not None and len(missing) * 2 > len(required)
                else []
            )
            raise InputError(
                [
                    *other,
                    *(
                        self.problem(
                            None,
                            None,
                            f"required column '{c}' is missing" + (found if position == 0 else ""),
                            self._missing_fix(c, None if other else sheet),
                        )
                        for position, c in enumerate(missing)
                    ),
                ]
            )
        known = [*required, *optional]
        problems = list(self.skipped)
        for column, written in self.columns.items():
            if column in known:
                if _without_zero_width(written) != written:
                    problems.append(
                        self.problem(
                            None,
                            column,
                            f"the column name {quoted(written)} is read as '{column}': its "
                            "invisible characters are removed",
                            "delete the invisible characters from the header cell",
                        )
                    )
                continue
            # Only a known column the file lacks: renaming onto one it has makes two of it.
            close = _misspelt(column, [c for c in known if c not in self.columns])
            hint = f"rename it to '{close}'" if close else "delete it"
            if "notes" in known:
                hint += ", or name it 'notes' to keep it as a comment"
            problems.append(
                self.problem(
                    None,
                    column,
                    f"unknown column {quoted(written)}{'' if all_or_nothing else ' is ignored'} "
                    f"(known: {', '.join(known)})",
                    hint,
                )
            )
        return problems

    def _other_table(self, sheet: TableColumns, missing: Sequence[str]) -> InputProblem:
        """The problem of a file that is not the table ``sheet`` describes: its header has
        fewer than half of the required columns."""
        has = len(sheet.required) - len(missing)
        return self.problem(
            None,
            None,
            f"this is no {sheet.table} table: its header has {has} of the "
            f"{len(sheet.required)} required {sheet.table} columns",
            f"give the {sheet.table} CSV (its columns as in {sheet.template}); from a plan "
            f"workbook, open its {sheet.sheet} sheet and save that "
            "sheet as CSV (File > Save As > CSV), not another sheet such as Recommended plan "
            "or a Placement sheet",
        )

    def _missing_fix(self, column: str, sheet: TableColumns | None) -> str:
        """How to give the required ``column``: a header cell that is that column once its
        invisible characters (which no reading removes: a control character) are deleted is
        named; else the column is to be added, or (``sheet``) the plan workbook's sheet that
        has it saved whole."""
        for written in self.columns.values():
            if normalise_column(without_invisible(written)) == column:
                return f"delete the invisible characters from the header cell {quoted(written)}"
        whole = (
            ""
            if sheet is None
            else f" (a plan workbook's {sheet.sheet} sheet saved as CSV has every column)"
        )
        return f"add a column named '{column}' to the header row{whole}"


def number_text(text: str, separator: str) -> str:
    """A number cell's text as ``parse_float`` reads it, in a file whose columns are separated
    by ``separator``: unchanged when that is a comma; else a decimal comma read as a point
    (``0,25`` -> ``0.25``, ``1.024,5`` -> ``1024.5``) and thousands separators dropped where they
    can be nothing else (``1.048.576``). A ``%`` after the number is kept.

    Raises ``CellError`` for a number that reads two ways in such a file: one mark before
    three digits (``1,024`` and ``1.024`` are 1.024 or 1024).
    """
    if separator == ",":
        return text
    number = text.strip()
    percent = "%" if number.endswith("%") else ""
    number = number.removesuffix("%").strip()
    if _ONE_GROUP.fullmatch(number):
        whole, decimals = re.split(r"[.,]", number)
        raise CellError(
            f"'{text}' could be {whole}.{decimals} or {whole}{decimals}: the file separates "
            "columns with "
            f"{_OTHER_SEPARATORS.get(separator, repr(separator))}, and a comma "
            "or point before three digits may mark decimals or thousands",
            f"write {whole}{decimals} (no thousands separator) for that number, or "
            f"{whole},{decimals}0 for {whole}.{decimals} (a trailing zero makes the decimal "
            "mark plain)",
        )
    if _DOT_GROUPS.fullmatch(number):
        return number.replace(".", "").replace(",", ".") + percent
    if _COMMA_GROUPS.fullmatch(number):
        return number.replace(",", "") + percent
    if DECIMAL_COMMA.fullmatch(number):
        return number.replace(",", ".") + percent
    return text


_COMMA_NUMBER = re.compile(r"[+-]?\d+(,\d+)+(\.\d+)?")
"""A number with a comma in it: ``2,048``, ``1,048,576``, ``0,25``."""
_THOUSANDS_COMMAS = re.compile(r"[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?")
"""Commas between groups of thousands, then a decimal point or none: ``1,048,576``,
``2,048.5``."""


def refuse_comma_number(text: str) -> None:
    """Raise ``CellError`` for a number written with a comma in a comma-separated file (a
    quoted ``"2,048"``, as a spreadsheet that shows thousands separators saves it, or ``"0,25"``
    from a locale whose decimal mark is a comma), saying what the comma may be; such a file
    reads neither, and 'not a number' alone would not say why."""
    written = text.strip()
    percent = "%" if written.endswith("%") else ""
    number = written.removesuffix("%").strip()
    if not _COMMA_NUMBER.fullmatch(number):
        return
    plain = number.replace(",", "") + percent
    if _ONE_GROUP.fullmatch(number):
        whole, decimals = number.split(",")
        meaning = f"could be {whole}.{decimals}{percent} or {plain}"
        fix = f"write {plain}, or {whole}.{decimals}{percent}"
    elif _THOUSANDS_COMMAS.fullmatch(number):
        meaning, fix = "has thousands separators", f"write {plain}"
    elif DECIMAL_COMMA.fullmatch(number):
        meaning, fix = "has a decimal comma", f"write {number.replace(',', '.')}{percent}"
    else:
        meaning, fix = "has commas", "write the number without them"
    raise CellError(
        f"'{text}' {meaning}: numbers in a comma-separated file take no comma",
        f"{fix} (no thousands separator, a point as the decimal mark), or save the file with "
        "semicolons between columns, where a decimal comma is read",
    )


GROUP_MARKS = {
    "\u00a0": "a no-break space",
    "\u202f": "a narrow no-break space",
    "\u2009": "a thin space",
    " ": "a space",
    "'": "an apostrophe",
    "\u2019": "an apostrophe",
}
"""Thousands separators of locales whose decimal mark is a comma or a point, as Excel writes
them: a no-break space (French), a narrow no-break space (French since Windows 10), a space or
an apostrophe (Swiss); none of them can be a decimal mark."""
_MARK = "[" + "".join(GROUP_MARKS) + "]"
_MARK_GROUPS = re.compile(
    rf"[+-]?[1-9]\d{{0,2}}(?P<mark>{_MARK})\d{{3}}((?P=mark)\d{{3}})*([.,]\d+)?"
)
"""Groups of thousands split by one of ``GROUP_MARKS``, then a decimal part or none:
``1 024``, ``1'048'576``, ``1 024,5``."""


def refuse_grouped_number(text: str, separator: str) -> None:
    """Raise ``CellError`` for a number whose thousands are split by a space or an apostrophe
    (``GROUP_MARKS``), naming the number it reads as and the separator to drop; 'not a
    number' alone would not say why a cell that looks like one is refused. Like a thousands
    comma in a comma-separated file (``refuse_comma_number``), the separator is not dropped
    for the user. ``separator``: the file's column separator; in a comma-separated file the
    fix writes a decimal part with a point."""
    written = text.strip()
    percent = "%" if written.endswith("%") else ""
    number = written.removesuffix("%").strip()
    match = _MARK_GROUPS.fullmatch(number)
    if match is None:
        return
    plain = number.replace(match["mark"], "")
    value = plain.replace(",", ".")
    write = value if separator == "," else plain
    raise CellError(
        f"'{text}' is {value}{percent} written with thousands separated by "
        f"{GROUP_MARKS[match['mark']]}: a number cell takes no thousands separator",
        f"write {write}{percent}; in Excel, format the column as Number without "
        "'Use 1000 Separator' (or as Text) before saving",
    )


def _misspelt(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate ``word`` is a misspelling of, else None: the nearest within one slip
    (a letter left out, added or changed, two letters swapped) per four letters of the
    candidate, at least one. A name a whole word longer or shorter (``cpu_model`` for
    ``model``, ``gpu_mem_mib`` for ``memory_mib``) names other data, so is no misspelling."""
    best: tuple[int, str] | None = None
    for candidate in candidates:
        allowed = max(1, len(candidate) // 4)
        if abs(len(word) - len(candidate)) > allowed:
            continue
        slips = _slips(word, candidate)
        if slips <= allowed and (best is None or slips < best[0]):
            best = (slips, candidate)
    return best[1] if best else None


def _slips(typed: str, meant: str) -> int:
    """Fewest letters left out, added or changed, or neighbours swapped, that turn ``meant``
    into ``typed`` (the optimal string alignment distance)."""
    before: list[int] = []
    previous = list(range(len(meant) + 1))
    for i, letter in enumerate(typed, 1):
        current = [i]
        for j, wanted in enumerate(meant, 1):
            slips = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != wanted))
            if i > 1 and j > 1 and letter == meant[j - 2] and typed[i - 2] == wanted:
                slips = min(slips, before[j - 2] + 1)
            current.append(slips)
        before, previous = previous, current
    return previous[-1]


def source_name(source: Path | str | bytes, file_name: str | None, default: str) -> str:
    """The file name shown in problems: ``file_name``, else the path's name, else ``default``."""
    if file_name:
        return file_name
    if isinstance(source, bytes):
        return default
    return Path(source).name


def _read_bytes(source: Path | str | bytes, file: str) -> bytes:
    if isinstance(source, bytes):
        return source
    try:
        return Path(source).read_bytes()
    except FileNotFoundError:
        raise InputError(
            [InputProblem(file, None, None, f"file not found: {source}", "check the path")]
        ) from None
    except OSError as error:
        raise InputError(
            [InputProblem(file, None, None, f"cannot read the file ({error})", "check the path")]
        ) from None


MANY_ROWS_FIX = (
    "split it, or describe identical hosts or instances in one row (the 'count' or 'instances' "
    "column)"
)
"""How to shrink a planner table over its row limit."""


def read_csv_table(
    source: Path | str | bytes,
    file: str,
    *,
    separators: str = ",",
    max_rows: int = MAX_ROWS,
    many_rows_fix: str = MANY_ROWS_FIX,
    columns: TableColumns | None = None,
) -> Table:
    """Read a CSV file (a path, or its bytes) into a ``Table``; an unusable file raises.

    A file of more than ``max_rows`` data rows is refused with ``many_rows_fix``.

    ``columns``: the table's own columns, each header cell that is one of its ``aliases`` read
    as the column it names; when the first line does not hold every required column and a
    line among the next ``TITLE_ROWS`` does, that line is the header (a sheet saved with a
    title above its table), and the lines above it are a problem of the table's ``skipped``.
    With ``columns``, a row whose first cell starts with ``#`` is a comment, and one whose
    first cell is ``Total`` (``_TOTAL_WORDS``) with a required cell empty is a total row: each
    is no data row, and is listed in ``skipped``.

    A ``str`` is a path, not CSV text. UTF-8 with or without a byte-order mark (as Excel
    writes it) and UTF-16 with its byte-order mark are accepted. The header and the separator
    are found by ``csv_header`` (below blank lines and Excel's ``sep=;`` line, the one of
    ``separators`` the ``sep=`` line names or that splits the header into the most cells); a
    file separated by another is refused naming its separator. Blank lines count as rows, as
    in a spreadsheet, and are skipped.
    """
    data = _read_bytes(source, file)
    refuse_large_file(file, len(data))
    if is_workbook(data):
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "this is an Excel workbook (.xlsx), not a CSV file",
                    "in Excel use File > Save As > CSV UTF-8, then load the .csv file",
                )
            ]
        )
    text = decode_file(data, file, CSV_TEXT)
    found = csv_header(text, file, separators)
    if found is None:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "the file is empty",
                    "add a header row and at least one data row (see the template)",
                )
            ]
        )
    titles: list[InputProblem] = []
    if columns is not None:
        below = header_below_titles(text, found, separators, columns)
        if below is not None:
            titles.append(_titles_problem(file, found.row, below))
            found = below
    separator = found.separator
    records = _records(
        text[found.start :],
        file,
        separator,
        header_row=found.row,
        max_rows=max_rows,
        fix=many_rows_fix,
    )
    written = list(found.cells)
    _refuse_other_separator(file, written, separator, header_row=found.row)
    # Spreadsheets often save blank trailing columns (a trailing comma): drop them, and let the
    # data rows have as many empty trailing cells.
    width = len(written)
    while width and not written[width - 1].strip():
        width -= 1
    header = written[:width]
    aliases = {} if columns is None else columns.by_header
    names = _header(file, header, header_row=found.row, aliases=aliases)
    rows = []
    row_problems: list[InputProblem] = [*titles]
    for number, record in enumerate(records[1:], start=found.row + 1):
        if not any(cell.strip() for cell in record):
            continue
        comment = None if columns is None else comment_row(file, number, record[0])
        if comment is not None:
            row_problems.append(comment)
            continue
        if column_names(record[:width], aliases) == names:
            # Files joined one after the other repeat their header; it is no data row.
            row_problems.append(
                InputProblem(
                    file,
                    number,
                    None,
                    f"the header row is repeated here (row {found.row} is the header): "
                    "files joined one after the other",
                    "delete this row",
                )
            )
            continue
        extra = record[width:]
        if any(c.strip() for c in extra) or len(extra) > len(written) - width:
            row_problems.append(
                InputProblem(
                    file,
                    number,
                    None,
                    f"the row has {len(record)} cells but the header has {len(names)} columns",
                    _quote_fix(separator),
                )
            )
            continue
        cells = {
            name: (record[i].strip() if i < len(record) else "") for i, name in enumerate(names)
        }
        total = None if columns is None else total_row(file, number, record[0], cells, columns)
        if total is not None:
            row_problems.append(total)
            continue
        rows.append(Row(number, cells))
    written_as = dict(zip(names, (h.strip() for h in header), strict=True))
    return Table(file, written_as, tuple(rows), tuple(row_problems), separator)


_TOTAL_WORDS = frozenset({"total", "totals", "grand total", "sum", "summe", "gesamt"})
"""First cells of a spreadsheet's total row, in English and German, as users label one."""


def comment_row(file: str, number: int, first: str) -> InputProblem | None:
    """The problem of a row whose first cell ``first`` starts with ``#``: a row commented out,
    as in a config file, which is no data row; its intent is plain, but it is listed. None for
    any other row."""
    if not first.strip().startswith("#"):
        return None
    return InputProblem(
        file,
        number,
        None,
        "the row starts with # and is read as a comment: it is not planned",
        "delete the # to plan the row, or delete the row",
    )


def total_row(
    file: str, number: int, first: str, cells: Mapping[str, str], columns: TableColumns
) -> InputProblem | None:
    """The problem of a spreadsheet's total row: its first cell ``first`` is ``Total``
    (``_TOTAL_WORDS``) and a required cell of ``cells`` is empty; no data row. None for any
    other row."""
    written = first.strip()
    if written.lower() not in _TOTAL_WORDS or all(cells.get(c) for c in columns.required):
        return None
    return InputProblem(
        file,
        number,
        None,
        f"'{written}' and empty cells: a spreadsheet's total row, not a row of the {columns.table}",
        "delete the row (the planner adds up the rows itself)",
    )


TITLE_ROWS = 10
"""Rows above a table's header that are looked through for it (a title, notes, a blank row)."""


def column_names(cells: Sequence[str], aliases: Mapping[str, str]) -> list[str]:
    """The columns header ``cells`` name: each normalised (``normalise_column``), then read
    through ``aliases`` (normalised header -> column: ``TableColumns.by_header``)."""
    names = [normalise_column(cell) for cell in cells]
    return [aliases.get(name, name) for name in names]


def header_below_titles(
    text: str, found: CsvHeader, separators: str, columns: TableColumns
) -> CsvHeader | None:
    """The header of a table with rows above it (a title, notes): the first of the
    ``TITLE_ROWS`` lines below ``found`` (the first line holding a cell) that holds every
    required column of ``columns``, split on whichever of ``separators`` gives them; None when
    ``found`` holds them itself, or no such line is there."""
    wanted = set(columns.required)
    if wanted <= set(column_names(found.cells, columns.by_header)):
        return None
    lines = _LINE.finditer(text, found.start)
    next(lines, None)
    for row, line in enumerate(itertools.islice(lines, TITLE_ROWS), start=found.row + 1):
        for separator in separators:
            try:
                cells = next(csv.reader([line.group(1)], delimiter=separator), [])
            except csv.Error:
                # A line csv cannot split (a cell over its field limit) is no header.
                continue
            if wanted <= set(column_names(cells, columns.by_header)):
                return CsvHeader(row, line.start(), separator, tuple(cells))
    return None


def _titles_problem(file: str, first: int, header: CsvHeader) -> InputProblem:
    """The rows above a table's header (from ``first``) listed as not read."""
    one = first == header.row - 1
    rows = f"row {first} stands" if one else f"rows {first}-{header.row - 1} stand"
    return InputProblem(
        file,
        first,
        None,
        f"{rows} above the table's header (row {header.row}) and {'is' if one else 'are'} "
        "not read: a title or notes",
        "nothing to do if they are a title; if they hold data, put them below the header row",
    )


def _quote_fix(separator: str) -> str:
    """How to keep a separator inside a cell, for a row with more cells than the header."""
    if separator == ",":
        return (
            'put cells that contain commas in double quotes ("9-12,13-18"), '
            "or add the missing column names"
        )
    name = _OTHER_SEPARATORS.get(separator, repr(separator))
    return (
        f"the columns are separated by {name}: put cells that contain them in double quotes, "
        "or add the missing column names"
    )


_SEPARATOR_LINE = re.compile(r'^"?sep=(.)"?\1*\s*$', re.IGNORECASE)
"""The line ``sep=;`` that tells Excel a CSV file's separator, written above the header (a
spreadsheet may pad it with empty cells: ``sep=;;;;``)."""


@dataclass(frozen=True)
class CsvHeader:
    """Where a CSV file's header is, the separator its table is read on, and its cells."""

    row: int
    """The header's row as a spreadsheet shows it: its line in the file, the blank lines and
    Excel's ``sep=`` line above it counted."""
    start: int
    """Where the header begins in the file's text [characters]; its table is read from here."""
    separator: str
    """The column separator the table is read on."""
    cells: tuple[str, ...]
    """The header's cells as written, untrimmed."""


_LINE = re.compile(rf"([^\r\n]*)(?:{_LINE_END.pattern}|\Z)")
"""A line and its end (``_LINE_END``, or the end of the text); the text of the line is group
1."""
_SAVE_AS_CSV = "save the file as CSV"
"""The fix of a CSV error of no known cause in a file the user saved (a tool's reader asks
for the output as the tool printed it instead)."""
_BLANK_LINE = re.compile(rf'[\s"{re.escape(SPREADSHEET_SEPARATORS)}]*')
"""A line that holds no cell: blanks, or a blank row as a spreadsheet writes it (``;;;;``,
``"",""``). Every spreadsheet separator is blank here, so a line is blank or not whatever
separator a reader takes."""


def csv_header(
    text: str, file: str, separators: str, *, fix: str = _SAVE_AS_CSV
) -> CsvHeader | None:
    """The header of a CSV file's text, as every reader of CSV finds it (the planner's
    loaders, format detection, the trace lists); None when the file has no line holding a
    cell.

    The header is the first line that is not blank (``_BLANK_LINE``), passing over Excel's
    ``sep=;`` line when that is the first, with blank lines before or after it. It is read on
    the separator the ``sep=`` line names when that is one of ``separators``, else on the one
    of them that splits it into the most cells (``_sniff_separator``).

    Raises ``InputError`` naming ``file`` and the header's row when the header cannot be split
    into cells (``csv_records``, ``fix`` its fix for a CSV error of no known cause: a tool's
    reader asks for the output as the tool printed it).
    """
    named: str | None = None
    for row, line in enumerate(_LINE.finditer(text), start=1):
        written = line.group(1)
        if _BLANK_LINE.fullmatch(written):
            continue
        if named is None:
            named = _excel_separator(written)
            if named is not None:
                continue
        if named is None or named not in separators:
            separator = _sniff_separator(written, separators)
        else:
            separator = named
        reader = csv.reader(io.StringIO(text[line.start() :], newline=""), delimiter=separator)
        _, cells = next(csv_records(reader, file, row, fix), (row, []))
        return CsvHeader(row, line.start(), separator, tuple(cells))
    return None


def _excel_separator(line: str) -> str | None:
    """The separator Excel's line above a CSV file's header names (``sep=;`` gives ``;``); None
    when the line is no such line."""
    match = _SEPARATOR_LINE.match(line)
    return None if match is None else match.group(1)


def _sniff_separator(text: str, separators: str = SPREADSHEET_SEPARATORS) -> str:
    """Of ``separators``, the one that splits the first non-blank line into the most cells;
    the first of them on a tie (a one-column file)."""
    line = next((line for line in text.splitlines() if line.strip()), "")

    def cells(separator: str) -> int:
        try:
            return len(next(csv.reader([line], delimiter=separator), []))
        except csv.Error:
            return 0

    return max(separators, key=cells) if separators else ","


_OTHER_SEPARATORS = {";": "semicolons (;)", "\t": "tabs", "|": "vertical bars (|)"}
"""Separators a spreadsheet may write instead of commas, as named in the message."""


def _refuse_other_separator(
    file: str, header: Sequence[str], used: str, *, header_row: int
) -> None:
    """Refuse a file whose header splits into more columns on another separator than on the
    one ``used``.

    Excel in many European locales saves "CSV" with semicolons; a loader that does not read
    them would otherwise report every required column missing, and never name the separator.
    """
    line = used.join(header)
    for separator, name in _OTHER_SEPARATORS.items():
        if separator != used and len(line.split(separator)) > len(header):
            raise InputError(
                [
                    InputProblem(
                        file,
                        header_row,
                        None,
                        f"the columns are separated by {name}, not commas",
                        "save the file as CSV UTF-8 (comma-separated); in Excel use File > Save "
                        "As > CSV UTF-8, or set the list separator to a comma",
                    )
                ]
            )


LARGE_FILE_FIX = (
    "split it, or remove rows the plan does not need (one row may describe identical hosts or "
    "instances: the 'count' or 'instances' column)"
)
"""How to shrink a planner input file that is over the size limit."""


def refuse_large_file(
    file: str, size_bytes: int, *, limit_mb: int = MAX_FILE_MB, fix: str = LARGE_FILE_FIX
) -> None:
    """Refuse a file over ``limit_mb`` [MB] before decoding it, so a huge file is refused at
    once rather than read for minutes."""
    if size_bytes > limit_mb * 1024 * 1024:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"the file is {size_bytes / 1024 / 1024:,.1f} MB, over the limit of "
                    f"{limit_mb} MB",
                    fix,
                )
            ]
        )


def _refuse_many_rows(
    file: str, rows: int, *, max_rows: int = MAX_ROWS, fix: str = MANY_ROWS_FIX
) -> None:
    if rows > max_rows:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"the table has more than {max_rows:,} rows below the header, the limit",
                    fix,
                )
            ]
        )


class CsvDialect(Protocol):
    """How a ``csv.reader`` splits its input, as far as a line is split again to tell a row."""

    @property
    def delimiter(self) -> str: ...

    @property
    def quotechar(self) -> str | None: ...

    @property
    def skipinitialspace(self) -> bool: ...


class CsvReader(Protocol):
    """What ``csv.reader`` returns: records, and the lines of its input read so far."""

    line_num: int
    """Lines read from the input so far (a record with a quoted line end spans several)."""

    @property
    def dialect(self) -> CsvDialect: ...

    def __next__(self) -> list[str]: ...


def csv_records(
    reader: CsvReader,
    file: str,
    first_row: int,
    fix: str = _SAVE_AS_CSV,
    *,
    numbered_by: Literal["record", "line"] = "record",
) -> Iterator[tuple[int, list[str]]]:
    """Each record ``reader`` gives with its row: by ``record`` the first is on ``first_row``
    and each next one row on (as a spreadsheet numbers rows); by ``line`` each is on the line
    of the input where it starts, the first on ``first_row``. The input starts with the
    header, on line ``first_row`` of the file.

    Raises ``InputError`` naming ``file`` and the row of the record that cannot be read:
    a cell over Python's field limit (``csv.field_size_limit``) that runs over several lines is
    almost always a quote left open, which makes the rest of the file one cell; one on a single
    line is that long as written (no quote runs it on). Any other CSV error takes ``fix``.

    A quote left open below the limit is refused too, on the row and column where it opened
    (``_open_quote``): one never closed, which took the rest of the file into its cell, and a
    quoted cell running over lines that look like rows of the table (a closing quote missing,
    the cell ended by a later quote). A closed quoted cell holding line breaks is read as it is.
    """
    header: list[str] | None = None
    lines_read = 0  # lines of the input before the record being read
    for position in itertools.count():
        row = first_row + (lines_read if numbered_by == "line" else position)
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            one_line = reader.line_num <= lines_read + 1
            raise InputError(
                [_csv_error_problem(error, file, row, fix, one_line=one_line)]
            ) from None
        lines = reader.line_num - lines_read
        # Only a cell holding a line end can hold an open quote's run (an open quote on the
        # last line took that line's end).
        if lines > 1 or (record and record[-1].endswith(("\n", "\r"))):
            found = _open_quote(record, header, first_row + lines_read, lines, reader.dialect)
            if found is not None:
                cell, message = found
                column = None if header is None or cell >= len(header) else header[cell]
                raise InputError(
                    [
                        InputProblem(
                            file,
                            row,
                            None if column is None else shown(column.strip()),
                            message,
                            _OPEN_QUOTE_FIX,
                        )
                    ]
                )
        header = record if header is None else header
        yield row, record
        lines_read = reader.line_num


_OPEN_QUOTE_FIX = (
    "close the quote (\") where the cell's text ends, or remove it (a quote inside a cell's "
    'text is written twice: "")'
)


def _lines_text(first: int, last: int) -> str:
    """Lines of a file as a message names them: ``line 3``, ``lines 3-5``."""
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _open_quote(
    record: Sequence[str],
    header: Sequence[str] | None,
    start_line: int,
    lines: int,
    dialect: CsvDialect,
) -> tuple[int, str] | None:
    """The cell of ``record`` a quote left open ran on in, and what it took; None when its
    quoted line breaks are the cells' own. ``record`` starts on line ``start_line`` of the
    file and spans ``lines``; ``header`` is None for the header itself.

    A quote never closed runs to the end of the input, taking every line end, the last line's
    too, into its cell: the record's cells hold as many line ends as it spans lines (a record
    ending as written holds one fewer, its last line end ending it), and its last cell ends
    with one. A quote closed by a later cell's quote, or by the end of a file without a last
    line end, shows as a cell whose lines below its first split into the header's cells:
    rows of the table read as text. A table of one column is not told so (every line is one
    cell).
    """
    breaks = [len(_LINE_END.findall(cell)) for cell in record]
    place = "this cell" if header is not None else f"cell {len(record)} of the header"
    if sum(breaks) >= lines and record[-1].endswith(("\n", "\r")):
        opened = start_line + sum(breaks[:-1])
        last = start_line + lines - 1
        message = f'the quote (") opening {place} is never closed'
        if last > opened:
            one = last == opened + 1
            message += (
                f": {_lines_text(opened + 1, last)}, to the end of the file, "
                f"{'was' if one else 'were'} read into the cell as its text, so "
                f"{'its row was' if one else 'their rows were'} not read"
            )
        return len(record) - 1, message
    width = len(header) if header is not None else 0
    if width < 2:
        return None
    for cell, (text, count) in enumerate(zip(record, breaks, strict=True)):
        below = _LINE_END.split(text)[1:]
        if not any(line.strip() and _cells_on_line(line, dialect) == width for line in below):
            continue
        opened = start_line + sum(breaks[:cell])
        one = count == 1
        return cell, (
            f"the quoted text of this cell runs over {_lines_text(opened + 1, opened + count)}, "
            f"which {'looks like a row' if one else 'look like rows'} of the table ({width} "
            "cells, as the header has): its closing quote is missing, so "
            f"{'that row was' if one else 'those rows were'} read into the cell as its text"
        )
    return None


def _cells_on_line(line: str, dialect: CsvDialect) -> int:
    """The cells one line splits into on ``dialect``; 0 when it does not split."""
    reader = csv.reader(
        [line],
        delimiter=dialect.delimiter,
        quotechar=dialect.quotechar or '"',
        skipinitialspace=dialect.skipinitialspace,
    )
    try:
        return len(next(reader, []))
    except csv.Error:
        return 0


def _csv_error_problem(
    error: csv.Error, file: str, row: int, fix: str, *, one_line: bool
) -> InputProblem:
    """The problem of a ``csv.Error`` met on ``row`` (``csv_records``). ``one_line``: the
    record was still on its first line when the error came."""
    if "field larger than field limit" in str(error):
        limit = f"longer than {csv.field_size_limit():,} characters, the CSV limit"
        if one_line:
            return InputProblem(
                file,
                row,
                None,
                f"a cell on this row is {limit}: the row is one line that long, not a quote "
                "left open",
                "shorten the cell or delete it: a cell holds a name, a number or a short note "
                "(if the line is no row of the table, such as a log or data pasted in, delete "
                "the line)",
            )
        return InputProblem(
            file,
            row,
            None,
            f"a cell starting on this row is {limit}",
            'close the quote (") opened on this row, or delete the oversized cell',
        )
    return InputProblem(file, row, None, f"not valid CSV ({error})", fix)


def _records(
    text: str, file: str, separator: str, *, header_row: int, max_rows: int, fix: str
) -> list[list[str]]:
    """The records of a table's ``text``, from its header (on row ``header_row``) up to
    ``max_rows`` data rows; one more record is refused with ``fix``.

    Reading stops at the limit, so a million-row file is refused without being parsed.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator)
    numbered = csv_records(reader, file, header_row)
    records = [record for _, record in itertools.islice(numbered, max_rows + 2)]
    # The header and max_rows data rows fit; a further record is over the limit.
    _refuse_many_rows(file, len(records) - 1, max_rows=max_rows, fix=fix)
    return records


def _header(
    file: str, header: Sequence[str], *, header_row: int, aliases: Mapping[str, str] | None = None
) -> list[str]:
    names = column_names(header, aliases or {})
    problems = []
    seen: dict[str, str] = {}
    for position, (name, written) in enumerate(zip(names, header, strict=True), start=1):
        if not name:
            problems.append(
                InputProblem(
                    file,
                    header_row,
                    None,
                    f"column {position} of the header has no name",
                    "give every column a name, or delete the empty column",
                )
            )
        elif name in seen and normalise_column(seen[name]) != normalise_column(written):
            problems.append(
                InputProblem(
                    file,
                    header_row,
                    shown(written.strip()),
                    f"columns '{shown(seen[name].strip())}' and '{shown(written.strip())}' are "
                    f"both read as '{name}'",
                    "keep one of the two columns",
                )
            )
        elif name in seen:
            problems.append(
                InputProblem(
                    file,
                    header_row,
                    shown(written.strip()),
                    f"column '{shown(written.strip())}' appears twice",
                    "keep one column of that name",
                )
            )
        seen.setdefault(name, written)
    if problems:
        raise InputError(problems)
    return names


def _cell_text(value: Any) -> str:
    """A DataFrame cell as the text a CSV file would hold (the dashboard's editor gives objects)."""
    if isinstance(value, str):
        return value.strip()
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:g}" if value.is_integer() and abs(value) < 1e15 else repr(value)
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    if hasattr(value, "item"):
        # numpy scalars: convert to the Python value first so 8.0 reads as "8".
        return _cell_text(value.item())
    return str(value).strip()


def table_from_frame(frame: pd.DataFrame, file: str, columns: TableColumns | None = None) -> Table:
    """A ``Table`` from a DataFrame (for example the dashboard's edited table).

    Row numbers are as the same table saved to CSV would show them: position + 2. With
    ``columns``, a comment row and a total row are passed over and listed in ``skipped``, as
    ``read_csv_table`` passes them over in a file (``comment_row``, ``total_row``).
    """
    _refuse_many_rows(file, len(frame))
    header = [str(c) for c in frame.columns]
    names = _header(file, header, header_row=1)
    rows = []
    skipped = []
    for position, values in enumerate(frame.itertuples(index=False, name=None)):
        cells = {name: _cell_text(v) for name, v in zip(names, values, strict=True)}
        if not any(cells.values()):
            continue
        number = position + 2
        first = cells[names[0]]
        passed_over = (
            None
            if columns is None
            else comment_row(file, number, first) or total_row(file, number, first, cells, columns)
        )
        if passed_over is not None:
            skipped.append(passed_over)
            continue
        rows.append(Row(number, cells))
    written = dict(zip(names, (h.strip() for h in header), strict=True))
    return Table(file, written, tuple(rows), tuple(skipped))


def parse_text(text: str, *, what: str) -> str:
    """A required text cell, trimmed; stored as given, never evaluated."""
    if not text:
        raise CellError(f"{what} is empty", f"enter {what}")
    return text


def parse_bool(text: str, *, default: bool | None = None) -> bool:
    """``yes/no``, ``true/false``, ``y/n`` or ``1/0`` (any case); empty gives ``default``."""
    lowered = text.strip().lower()
    if not lowered and default is not None:
        return default
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    shown = f"'{text}'" if text else "an empty cell"
    raise CellError(f"{shown} is not yes or no", "write yes or no (true/false and 1/0 also work)")


def parse_float(
    text: str,
    *,
    unit: str = "",
    minimum: float | None = None,
    maximum: float | None = None,
    minimum_inclusive: bool = True,
    default: float | None = None,
) -> float:
    """A number within a range; the message says the allowed range and the unit."""
    if not text and default is not None:
        return float(default)
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        shown = f"'{text}'" if text else "an empty cell"
        allowed = _range_text(minimum, maximum, minimum_inclusive, unit)
        raise CellError(f"{shown} is not a number", f"enter a number {allowed}") from None
    if not math.isfinite(value):
        allowed = _range_text(minimum, maximum, minimum_inclusive, unit)
        raise CellError(f"'{text}' is not a finite number", f"enter a number {allowed}")
    too_small = minimum is not None and (
        value < minimum or (not minimum_inclusive and value == minimum)
    )
    if too_small or (maximum is not None and value > maximum):
        allowed = _range_text(minimum, maximum, minimum_inclusive, unit)
        raise CellError(f"{text} is out of range", f"enter a number {allowed}")
    return value


def parse_int(
    text: str,
    *,
    unit: str = "",
    minimum: int | None = None,
    maximum: int | None = None,
    default: int | None = None,
) -> int:
    """A whole number within a range (``8`` and ``8.0`` both read as 8)."""
    try:
        value = parse_float(text, unit=unit, minimum=minimum, maximum=maximum, default=default)
    except CellError as error:
        raise CellError(error.message, error.fix.replace("a number", "a whole number")) from None
    if not value.is_integer():
        allowed = _range_text(minimum, maximum, True, unit)
        raise CellError(f"{text} is not a whole number", f"enter a whole number {allowed}")
    return int(value)


def _bound_text(value: float) -> str:
    """A range bound as written in a message: ``1048576``, ``0.5`` (never ``1.04858e+06``)."""
    return f"{int(value)}" if float(value).is_integer() else f"{value:g}"


def _range_text(
    minimum: float | None, maximum: float | None, minimum_inclusive: bool, unit: str
) -> str:
    unit_text = f" {unit}" if unit else ""
    low = None if minimum is None else _bound_text(minimum)
    high = None if maximum is None else _bound_text(maximum)
    if low is not None and high is not None:
        if minimum_inclusive:
            return f"from {low} to {high}{unit_text}"
        return f"above {low} and at most {high}{unit_text}"
    if low is not None:
        return f"{'at least' if minimum_inclusive else 'above'} {low}{unit_text}"
    if high is not None:
        return f"at most {high}{unit_text}"
    return f"(in{unit_text})" if unit else ""


def parse_cells(
    table: Table,
    row: Row,
    parsers: Mapping[str, Callable[[str], Any]],
    problems: list[InputProblem],
    *,
    numbers: Collection[str] = (),
    units: Mapping[str, Callable[[str], str]] | None = None,
) -> dict[str, Any] | None:
    """Run one parser per column on ``row``; each bad cell adds one problem; None if any failed.

    The cells of ``numbers`` are numbers, read through ``Table.number_text`` (decimal commas in
    a semicolon-separated file); every other cell reaches its parser as written. A column of
    ``units`` first has its unit taken off the cell (``80 GiB`` -> ``80``) by its function,
    which raises ``CellError`` for a unit that is not the column's
    (``planner.inputs.cell_units``).
    """
    values: dict[str, Any] = {}
    ok = True
    for column, parse in parsers.items():
        text = read = row.get(column)
        try:
            if units is not None and column in units:
                read = units[column](read)
            if column in numbers:
                refuse_grouped_number(read, table.separator)
                if table.separator == ",":
                    refuse_comma_number(read)
                read = table.number_text(read)
            values[column] = parse(read)
        except CellError as error:
            # A number read with a decimal comma is named as written too.
            written = f" (written '{text}')" if read != text else ""
            message = error.message + written
            for long in dict.fromkeys((text, read)) if len(text) > _SHOWN_CHARS else ():
                # Parsers quote the cell whole: a pasted paragraph is cut as ``shown`` cuts it.
                message = message.replace(long, shown(long))
            problems.append(table.problem(row, column, message, error.fix))
            ok = False
    return values if ok else None


def read_rows(
    table: Table,
    read_row: Callable[[Row], _Item | None],
    problems: list[InputProblem],
    *,
    no_rows: str,
    fix: str,
) -> list[tuple[Row, _Item]]:
    """Each row with what ``read_row`` made of it; rows it gives None for are skipped.

    ``read_row`` adds the problems of a row it skips to ``problems``. When no row is usable
    the file is refused: ``InputError`` lists ``problems`` and then ``no_rows`` with its ``fix``.
    """
    loaded = []
    for row in table.rows:
        item = read_row(row)
        if item is not None:
            loaded.append((row, item))
    if not loaded:
        raise InputError([*problems, table.problem(None, None, no_rows, fix)])
    return loaded


def refuse_repeated_names(
    table: Table,
    named: Iterable[tuple[Row, Iterable[str]]],
    column: str,
    message: Callable[[str, Row, Row], str],
    fix: str,
) -> None:
    """Raise ``InputError`` when a name is used twice: names must be unique across the file.

    ``named`` gives each row with the names it defines. A row's first repeated name is one
    problem in ``column``, worded by ``message(name, earlier row, row)``; the row's later names
    are not checked (one problem a row is enough to point at it).
    """
    first: dict[str, Row] = {}
    problems = []
    for row, names in named:
        for name in names:
            if name in first:
                problems.append(table.problem(row, column, message(name, first[name], row), fix))
                break
            first[name] = row
    if problems:
        raise InputError(problems)


def yes_no(value: bool) -> str:
    """``yes`` or ``no``, as the loaders read it back (the inverse of ``parse_bool``)."""
    return "yes" if value else "no"


def _invisible(text: str) -> list[str]:
    """The characters of ``text`` that print as nothing or as a blank other than the space
    (zero-width space, byte-order mark, soft hyphen, bidi controls, no-break space, controls),
    each once, in order."""
    return list(dict.fromkeys(c for c in text if c != " " and not c.isprintable()))


def _escaped(character: str) -> str:
    r"""A character as Python writes it escaped: ``\u200b``."""
    code = ord(character)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_SHOWN_CHARS = 80
"""Longest text a message quotes whole [characters]; a longer one is cut, its length said."""


def shown(text: str) -> str:
    r"""``text`` as a message shows it: each invisible character escaped (``gpu\u200b-01``), so
    a name that looks like another can be told from it; text longer than 80 characters is cut
    after its first 60, its length said (a pasted paragraph must not fill the page)."""
    if len(text) > _SHOWN_CHARS:
        return f"{shown(text[:60])}… ({len(text):,} characters)"
    hidden = _invisible(text)
    return "".join(_escaped(c) if c in hidden else c for c in text)


def long_name(name: str, what: str) -> tuple[str, str] | None:
    """(message, fix) when ``name`` (a host, cluster or class name; ``what`` names it) is
    longer than ``MAX_NAME_CHARS``; None when it is not."""
    if len(name) <= MAX_NAME_CHARS:
        return None
    return (
        f"the {what} is {limit_text(len(name), MAX_NAME_CHARS, 'characters')}: {quoted(name)}",
        f"shorten the {what} (a DNS or Kubernetes name has at most {MAX_NAME_CHARS} characters)",
    )


def invisible_said(text: str) -> str:
    r"""What a message adds after quoting ``text`` about its invisible characters, empty when
    it has none: `` (it holds an invisible character: \u200b, U+200B ZERO WIDTH SPACE)``."""
    hidden = _invisible(text)
    if not hidden:
        return ""
    described = "; ".join(
        f"{_escaped(c)}, U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in hidden
    )
    one = "an invisible character" if len(hidden) == 1 else "invisible characters"
    return f" (it holds {one}: {described})"


def without_invisible(text: str) -> str:
    """``text`` without the characters that print as nothing; a blank other than the space (a
    no-break space) separates words, so it is read as a space."""
    return "".join(
        " " if unicodedata.category(c) == "Zs" else c
        for c in text
        if c.isprintable() or unicodedata.category(c) == "Zs"
    )


def quoted(text: str) -> str:
    r"""``text`` in quotes as a problem names a value the user wrote: invisible characters
    escaped and named after it (``'gpu\u200b-01' (it holds an invisible character: \u200b,
    U+200B ZERO WIDTH SPACE)``). Every loader's messages quote names and values with it."""
    return f"'{shown(text)}'{invisible_said(text)}"


def usable_name(
    text: str,
    what: str,
    problem: Callable[[str, str], InputProblem],
    problems: list[InputProblem],
    *,
    empty: tuple[str, str],
) -> str | None:
    """A name a row gives (``what`` names it: ``host name``) as the planner uses it: without its
    invisible characters (``visible_name``, with its problem); None, with a problem, when it
    holds only invisible characters (``empty``: that problem's message and fix) or is longer
    than ``MAX_NAME_CHARS`` (``long_name``). ``problem(message, fix)`` places a problem on the
    row and column."""
    name = visible_name(text, what, problem, problems)
    if not name:
        problems.append(problem(*empty))
        return None
    too_long = long_name(name, what)
    if too_long is not None:
        problems.append(problem(*too_long))
        return None
    return name


def visible_name(
    text: str, what: str, problem: Callable[[str, str], InputProblem], problems: list[InputProblem]
) -> str:
    """A name the user gives (a host, cluster or workload class) without its invisible
    characters, which text pasted from a web page, a chat or a mail brings: a name is matched
    across files by what it shows. When there were any, a problem (``problem(message, fix)``)
    quotes the name as written and says what it is read as; the row is kept. ``what`` names
    the name (``host name``). A name of invisible characters only is empty, with no problem
    here: the caller adds one that refuses the row or names what it uses instead. A blank
    other than the space is read as a space."""
    kept = without_invisible(text).strip()
    if kept and kept != text.strip() and _invisible(text):
        problems.append(
            problem(
                f"the {what} {quoted(text)}: the invisible characters are removed, "
                f"read as '{kept}'",
                "delete the invisible characters from the cell",
            )
        )
    return kept
