"""Tests of planner CSV reading (``planner.inputs.tabular``) against malformed files."""

from __future__ import annotations

import codecs
import csv
import io
from typing import Literal

import pytest
from csv_layouts import HOSTS, LAYOUTS

from planner.inputs.catalog import load_catalog
from planner.inputs.importers.estate import import_inventory
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import (
    CSV_TEXT,
    SPREADSHEET_SEPARATORS,
    csv_header,
    csv_records,
    decode_file,
    read_csv_table,
    without_invisible,
)


def test_a_quote_left_open_names_the_row_where_the_oversized_cell_starts() -> None:
    """A quote opened on row 3 and never closed makes the rest of the file one cell over
    Python's CSV field limit: the problem names row 3 and the fix, not just 'not valid CSV'."""
    tail = "\n".join(f"h{i},L4,1" for i in range(20_000))
    data = f'host,gpu_model,gpus_per_host\nh0,L4,1\n"h1,L4,1\n{tail}\n'.encode()
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "the CSV limit" in problem.message
    assert "quote" in problem.fix


def test_a_line_longer_than_the_csv_limit_is_refused_as_a_long_cell_not_an_open_quote() -> None:
    """A line of one cell longer than Python's CSV field limit, with no quote anywhere, is
    refused naming its row and the limit, with a fix to shorten the cell: no quote was left
    open, so 'close the quote' would send the user looking for one."""
    limit = csv.field_size_limit()
    data = f"host,gpu_model\na,L4\n{'x' * (limit + 1)},L4\nb,L4\n".encode()
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 3, None)
    assert problem.message == (
        f"a cell on this row is longer than {limit:,} characters, the CSV limit: the row is "
        "one line that long, not a quote left open"
    )
    assert "quote" not in problem.fix
    assert problem.fix.startswith("shorten the cell or delete it")


def test_a_csv_error_below_blank_lines_and_a_sep_line_names_the_row_a_spreadsheet_shows() -> None:
    """The rows above the header (blank lines, Excel's sep= line) count in the row a CSV error
    names: a quote left open on the file's fifth line is row 5."""
    tail = "\n".join(f"h{i};L4" for i in range(20_000))
    data = f'\nsep=;\nhost;gpu_model\nh0;L4\n"h1;L4\n{tail}\n'.encode()
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv", separators=SPREADSHEET_SEPARATORS)
    (problem,) = caught.value.problems
    assert problem.row == 5
    assert "quote" in problem.fix


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_header_is_found_below_blank_lines_and_excels_sep_line(layout: str) -> None:
    """Blank lines (or a blank row of separators) and Excel's sep=; line above the header, in
    any order, are no row of the table: the header is the first line holding a cell, read on
    the separator the sep= line names, else the one that splits it into most cells. The lines
    above keep their numbers, so a data row is numbered as a spreadsheet shows it."""
    laid = LAYOUTS[layout]
    table = read_csv_table(laid.write(HOSTS), "inventory.csv", separators=SPREADSHEET_SEPARATORS)
    assert list(table.columns) == ["host", "gpu_model", "gpus_per_host"]
    assert table.separator == laid.separator
    assert [(r.number, dict(r.cells)) for r in table.rows] == [
        (laid.header_row + 1, {"host": "a", "gpu_model": "L4", "gpus_per_host": "1"})
    ]
    assert table.skipped == ()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_csv_header_gives_the_headers_row_separator_and_cells(layout: str) -> None:
    """``csv_header``, the one rule every CSV reader finds a header by, gives the row a
    spreadsheet shows the header on, the separator and the cells as written."""
    laid = LAYOUTS[layout]
    text = decode_file(laid.write(HOSTS), "inventory.csv", CSV_TEXT)
    header = csv_header(text, "inventory.csv", SPREADSHEET_SEPARATORS)
    assert header is not None
    assert (header.row, header.separator, header.cells) == (
        laid.header_row,
        laid.separator,
        ("host", "gpu_model", "gpus_per_host"),
    )


def test_a_sep_line_names_the_separator_where_another_splits_the_header_into_more_cells() -> None:
    """Below sep=; a header whose last name holds commas is split on semicolons, as Excel
    splits it, though commas would split it into more cells."""
    data = b"sep=;\nhost;gpu_model;notes (rack, row, slot, pdu)\na;L4;x\n"
    table = read_csv_table(data, "inventory.csv", separators=SPREADSHEET_SEPARATORS)
    assert table.separator == ";"
    assert list(table.columns.values()) == ["host", "gpu_model", "notes (rack, row, slot, pdu)"]


def test_a_sep_line_naming_a_separator_the_loader_does_not_read_is_refused_naming_it() -> None:
    """A comma-only table (the catalog) below sep=; is refused saying its columns are separated
    by semicolons, on the header's row."""
    with pytest.raises(InputError) as caught:
        read_csv_table(b"sep=;\nmodel;memory_gib\nL4;24\n", "gpus.csv")
    (problem,) = caught.value.problems
    assert problem.row == 2
    assert problem.message == "the columns are separated by semicolons (;), not commas"


@pytest.mark.parametrize("data", [b"", b"\n \n", b"sep=;\n\n", b"\n;;;\n,,\n"])
def test_a_file_without_a_header_line_is_refused_as_empty(data: bytes) -> None:
    """A file of blank lines, blank rows of separators or only Excel's sep= line has no header:
    it is refused as empty."""
    with pytest.raises(InputError, match="the file is empty"):
        read_csv_table(data, "inventory.csv", separators=SPREADSHEET_SEPARATORS)


LATIN1_MESSAGE = (
    "not UTF-8 text: byte E9 cannot be decoded (a character saved in another encoding, such as "
    "Latin-1 or Windows-1252)"
)


@pytest.mark.parametrize(
    "data",
    [
        "host,gpu_model\na,L4\nb\u00e9,L4\n".encode("latin-1"),
        "host,gpu_model\r\na,L4\r\nb\u00e9,L4\r\n".encode("cp1252"),
        "host,gpu_model\ra,L4\rb\u00e9,L4\r".encode("latin-1"),
    ],
    ids=["unix", "windows", "classic-mac"],
)
def test_a_latin1_csv_is_refused_naming_the_line_the_byte_and_how_to_save_utf8(
    data: bytes,
) -> None:
    """An 'é' saved by Excel as plain 'CSV' (Latin-1 or Windows-1252) on line 3: refused naming
    the file, line 3 (whichever line ends the file uses), the byte, and Excel's CSV UTF-8."""
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("inventory.csv", 3)
    assert problem.message == LATIN1_MESSAGE
    assert problem.fix == "save it as UTF-8: in Excel use File > Save As > CSV UTF-8"


@pytest.mark.parametrize(
    ("line_3", "bad"),
    [
        ("b\u00fcab".encode() + b"\xe9,L4\n", "E9"),
        (b"\xe9b,L4\n", "E9"),
        ("b\u00fc".encode()[:-1] + b",L4\n", "C3"),
    ],
    ids=["after-accents", "first-byte", "half-a-character"],
)
def test_a_latin1_byte_in_a_utf8_csv_with_a_byte_order_mark_names_its_line_and_byte(
    line_3: bytes, bad: str
) -> None:
    """Excel's CSV UTF-8 (a byte-order mark, then UTF-8 accents) later saved with one Latin-1
    byte on line 3 is refused on line 3 naming that byte, as the same file without its mark
    is: the mark is three bytes before the text, not part of it. It raised a traceback, or
    named a byte three on and the line it was in."""
    data = codecs.BOM_UTF8 + "host,gpu_model\nZ\u00fcrich,L4\n".encode() + line_3
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("inventory.csv", 3)
    assert problem.message.startswith(f"not UTF-8 text: byte {bad} cannot be decoded")
    assert problem.fix == "save it as UTF-8: in Excel use File > Save As > CSV UTF-8"


def test_a_utf16_csv_with_a_bad_character_names_its_line_counted_in_characters() -> None:
    """A UTF-16 file (two bytes a character) with a lone surrogate on line 2 is refused on
    line 2 as not UTF-16 text."""
    data = "host,gpu_model\nb\ud800,L4\n".encode("utf-16", "surrogatepass")
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert problem.row == 2
    assert problem.message.startswith("not UTF-16 text: bytes ")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_csv_without_its_byte_order_mark_is_read_as_with_it(encoding: str) -> None:
    """UTF-16 saved without its byte-order mark, little- or big-endian, is told by its zero
    bytes (most high bytes zero, no NUL character), as tool output is, and read as the same
    table with its mark: header, separator and rows. It was refused as binary data."""
    text = "sep=;\r\nhost;gpu_model;gpus_per_host\r\na;L4;1\r\nb;T4;2\r\n"
    bare = read_csv_table(text.encode(encoding), "inventory.csv", separators=SPREADSHEET_SEPARATORS)
    marked = read_csv_table(text.encode("utf-16"), "inventory.csv", separators=";")
    assert list(bare.columns) == ["host", "gpu_model", "gpus_per_host"]
    assert bare.separator == ";"
    assert [(r.number, dict(r.cells)) for r in bare.rows] == [
        (r.number, dict(r.cells)) for r in marked.rows
    ]
    assert [r.get("host") for r in bare.rows] == ["a", "b"]


def test_a_utf16_csv_without_its_mark_with_a_bad_character_names_its_line() -> None:
    """UTF-16 without its byte-order mark holding a lone surrogate on line 3 is refused on
    line 3 as not UTF-16 text, as the same file with its mark is, not as binary data."""
    data = "host,gpu_model\na,L4\nb\ud800,L4\n".encode("utf-16-le", "surrogatepass")
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert problem.message.startswith("not UTF-16 text: bytes ")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_csv_cut_short_is_said_to_be_cut_short(encoding: str) -> None:
    """UTF-16 with an odd number of bytes, with its byte-order mark or without, is text cut
    short (its last character half there): refused on its last line saying so, the fix to
    save or export it again; it was blamed on a character of another encoding, such as
    Latin-1."""
    data = "host,gpu_model\r\na,L4\r\nb,T4".encode(encoding)[:-1]
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("inventory.csv", 3)
    assert problem.message == (
        f"UTF-16 text cut short: the file has an odd number of bytes ({len(data)}), so its "
        "last character is incomplete"
    )
    assert "Latin-1" not in problem.message
    assert problem.fix == (
        "save or export the file again and give the whole file (or save it as UTF-8: in Excel "
        "use File > Save As > CSV UTF-8)"
    )


@pytest.mark.parametrize(
    "data",
    [
        "host,gpu_model\na,L4\n".encode("utf-8-sig"),
        "host,gpu_model\r\na,L4\r\n".encode("utf-16"),
        b"host,gpu_model\na,L4\n",
    ],
    ids=["utf-8-bom", "utf-16", "utf-8"],
)
def test_utf8_with_or_without_its_mark_and_utf16_with_its_mark_are_read(data: bytes) -> None:
    """Excel's CSV UTF-8 (with a byte-order mark), its Unicode Text (UTF-16) and plain UTF-8
    give the same header and row, the mark not part of the first column's name."""
    table = read_csv_table(data, "inventory.csv")
    assert list(table.columns) == ["host", "gpu_model"]
    assert [dict(r.cells) for r in table.rows] == [{"host": "a", "gpu_model": "L4"}]


@pytest.mark.parametrize(
    ("data", "message", "fix"),
    [
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "this is a PNG image, not CSV text",
            "load a .csv file",
        ),
        (b"host\x00,gpu\x00\n", "binary data, not CSV text", "load a .csv file"),
        (
            b"PK\x03\x04rest-of-a-zip",
            "this is an Excel workbook (.xlsx), not a CSV file",
            "in Excel use File > Save As > CSV UTF-8, then load the .csv file",
        ),
    ],
    ids=["image", "binary", "workbook"],
)
def test_a_file_that_is_not_text_is_refused_as_what_it_is(
    data: bytes, message: str, fix: str
) -> None:
    """An image, binary data or a workbook picked instead of a CSV is refused for the whole
    file (no line), as what it is, with the file to load instead."""
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.message, problem.fix) == (
        "inventory.csv",
        None,
        message,
        fix,
    )


def test_quoted_escapes_and_names_invisible_characters() -> None:
    r"""A value holding a zero-width space, a byte-order mark, a soft hyphen or a bidi control
    is quoted with each escaped and named, so it can be told from the name it looks like."""
    from planner.inputs.tabular import quoted

    assert quoted("gpu-01") == "'gpu-01'"
    assert quoted("gpu\u200b-01\ufeff\u00ad\u202e") == (
        "'gpu\\u200b-01\\ufeff\\u00ad\\u202e' (it holds invisible characters: \\u200b, U+200B "
        "ZERO WIDTH SPACE; \\ufeff, U+FEFF ZERO WIDTH NO-BREAK SPACE; \\u00ad, U+00AD SOFT "
        "HYPHEN; \\u202e, U+202E RIGHT-TO-LEFT OVERRIDE)"
    )


_INVENTORY = (
    "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
    "gpu\u200b-01,east\u00a0side\u00ad,L4,2,32,256,100,yes\n"
    "gpu-02,east side,L4,2,32,256,100,yes\n"
)


def test_invisible_characters_in_host_and_cluster_names_are_removed_and_said() -> None:
    r"""A host or cluster name holding invisible characters (pasted from a web page or a chat)
    is read without them, a no-break space as a space, so it matches the same name elsewhere;
    a problem on its row and column quotes the name as written, escaped, and says what it is
    read as. They showed in messages as nothing."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.inventory import load_inventory

    loaded = load_inventory(_INVENTORY.encode(), load_catalog())
    assert [(h.name, h.cluster) for h in loaded.value.hosts] == [
        ("gpu-01", "east side"),
        ("gpu-02", "east side"),
    ]
    first, second = loaded.problems
    assert (first.row, first.column, second.row, second.column) == (2, "host", 2, "cluster")
    assert first.message == (
        "the host name 'gpu\\u200b-01' (it holds an invisible character: \\u200b, U+200B ZERO "
        "WIDTH SPACE): the invisible characters are removed, read as 'gpu-01'"
    )
    assert "'east\\u00a0side\\u00ad'" in second.message
    assert second.message.endswith("read as 'east side'")


def test_a_host_name_that_repeats_another_once_its_invisible_characters_go_is_refused() -> None:
    """Two hosts whose names differ only by an invisible character are one name twice."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.inventory import load_inventory

    data = _INVENTORY.replace("gpu-02", "gpu-01").encode()
    with pytest.raises(InputError, match="host 'gpu-01' is already defined on row 2"):
        load_inventory(data, load_catalog())


def test_invisible_characters_in_a_workload_name_are_removed_and_said() -> None:
    """A workload class name holding a byte-order mark mid-text is read without it, with a
    problem naming the row and the name column that quotes it escaped."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.workloads import load_workloads

    data = (
        "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
        "ram_gib,live_migration,isolation,latency_tolerant\n"
        "chat\ufeffbot,inference,2,0.5,10,0.3,24,7,4,16,no,no,no\n"
    ).encode()
    loaded = load_workloads(data, load_catalog())
    assert [w.name for w in loaded.value] == ["chatbot"]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (2, "name")
    assert "'chat\\ufeffbot'" in problem.message
    assert "U+FEFF ZERO WIDTH NO-BREAK SPACE" in problem.message


def test_invisible_characters_go_and_a_no_break_space_is_a_space_for_names_and_models() -> None:
    """One reading of pasted text for every name: zero-width characters go, a no-break space
    separates words as a space does (the catalog's fix suggested 'H100NVL')."""
    assert without_invisible("H100\u00a0NVL\u200b") == "H100 NVL"
    assert without_invisible("gpu\ufeff-01\u00ad") == "gpu-01"


def test_csv_records_number_rows_by_record_or_by_the_line_each_starts_on() -> None:
    """A quoted cell holding a line end makes one record of two lines: counted by record the
    next record is one row on (as a spreadsheet shows it), counted by line it is two on."""
    text = 'name,notes\na,"two\nlines"\nb,x\n'

    def rows(numbered_by: Literal["record", "line"]) -> list[tuple[int, list[str]]]:
        reader = csv.reader(io.StringIO(text, newline=""))
        return list(csv_records(reader, "f.csv", 1, numbered_by=numbered_by))

    assert [row for row, _ in rows("record")] == [1, 2, 3]
    assert [row for row, _ in rows("line")] == [1, 2, 4]
    assert rows("record")[1][1] == ["a", "two\nlines"]


def test_a_header_with_a_quote_left_open_names_the_header_s_row() -> None:
    """A quote left open in the header (below a blank line, row 2) runs past Python's CSV field
    limit: ``csv_header`` refuses naming row 2 and the quote, with the caller's file name."""
    tail = "\n".join("h,L4" for _ in range(40_000))
    text = f'\n"host,gpu_model\n{tail}\n'
    with pytest.raises(InputError) as caught:
        csv_header(text, "query.csv", SPREADSHEET_SEPARATORS, fix="give it as printed")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == ("query.csv", 2)
    assert problem.message.startswith("a cell starting on this row is longer than")
    assert problem.fix.startswith('close the quote (")')


_HOSTS_WITH_NOTES = "host,gpu_model,gpus_per_host,notes\n"
_OPEN_QUOTE_FIX = (
    "close the quote (\") where the cell's text ends, or remove it (a quote inside a cell's "
    'text is written twice: "")'
)


def _open_quote(data: str) -> InputProblem:
    """The one problem ``read_csv_table`` refuses ``data`` with."""
    with pytest.raises(InputError) as caught:
        read_csv_table(data.encode(), "inventory.csv")
    (problem,) = caught.value.problems
    return problem


def test_a_quote_never_closed_names_its_row_column_and_the_lines_read_into_it() -> None:
    """A notes cell whose quote is never closed takes every line below it into its text, so
    the rows on those lines were lost without a word (the notes column is not read): the file
    is refused on the row and column where the quote opened, naming the lines taken."""
    problem = _open_quote(
        _HOSTS_WITH_NOTES + 'a,L4,1,"moved from rack 12 (TBD\nb,L4,1,\nc,L4,1,\nd,L4,1,\n'
    )
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 2, "notes")
    assert problem.message == (
        'the quote (") opening this cell is never closed: lines 3-5, to the end of the file, '
        "were read into the cell as its text, so their rows were not read"
    )
    assert problem.fix == _OPEN_QUOTE_FIX


def test_a_quote_never_closed_on_the_last_line_is_refused_though_no_row_follows() -> None:
    """A quote opened on the file's last line and never closed takes only that line's end: the
    file is still refused on its row and column, the quote being wrong."""
    problem = _open_quote(_HOSTS_WITH_NOTES + 'a,L4,1,x\nb,L4,1,"TBD\n')
    assert (problem.row, problem.column) == (3, "notes")
    assert problem.message == 'the quote (") opening this cell is never closed'


@pytest.mark.parametrize(
    "rows",
    [
        'a,L4,1,"moved (TBD\nb,L4,1,\nc,L4,1,"ok"\nd,L4,1,\n',
        'a,L4,1,"moved (TBD\nb,L4,1,\nc,L4,1,',
    ],
    ids=["closed-by-a-later-quote", "at-the-end-without-a-line-end"],
)
def test_a_quoted_cell_running_over_lines_that_are_rows_of_the_table_is_refused(
    rows: str,
) -> None:
    """A cell whose quote is closed only by a later cell's quote, or by the end of a file
    without a last line end, holds lines of the header's width: rows of the table read as the
    cell's text. The file is refused on the row and column where the quote opened."""
    problem = _open_quote(_HOSTS_WITH_NOTES + rows)
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 2, "notes")
    assert problem.message == (
        "the quoted text of this cell runs over lines 3-4, which look like rows of the table "
        "(4 cells, as the header has): its closing quote is missing, so those rows were read "
        "into the cell as its text"
    )
    assert problem.fix == _OPEN_QUOTE_FIX


@pytest.mark.parametrize("end", ["\n", "\r\n", ""], ids=["unix", "windows", "no-last-line-end"])
def test_a_quoted_cell_holding_line_breaks_is_read_as_one_cell(end: str) -> None:
    """A notes cell holding line breaks, quoted and closed (RVTools' notes, an Excel cell with
    Alt+Enter), on the last row too, is one cell of the row: no row is lost and the file is
    not refused, whatever line ends the file uses and whether the last line has one."""
    text = (
        _HOSTS_WITH_NOTES
        + 'a,L4,1,"rack 12\nmoved, see ticket 7"\n'
        + 'b,L4,1,"owner: ml-team\nlast line\n"\n'
        + 'c,L4,1,"two\n\nparagraphs"\n'
    ).replace("\n", end or "\n")
    table = read_csv_table((text.removesuffix("\n") if not end else text).encode(), "inv.csv")
    assert [(r.number, r.get("host")) for r in table.rows] == [(2, "a"), (3, "b"), (4, "c")]
    assert table.rows[0].get("notes") == f"rack 12{end or chr(10)}moved, see ticket 7"
    assert table.skipped == ()


def test_a_header_whose_quote_is_never_closed_names_the_header_cell() -> None:
    """A quote opened in the header and never closed takes the whole table into one header
    cell: ``csv_header`` refuses naming the header's row and the cell by its place."""
    text = 'host,"gpu_model,gpus_per_host\na,L4,1\n'
    with pytest.raises(InputError) as caught:
        csv_header(text, "inventory.csv", SPREADSHEET_SEPARATORS)
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 1, None)
    assert problem.message == (
        'the quote (") opening cell 2 of the header is never closed: line 2, to the end of '
        "the file, was read into the cell as its text, so its row was not read"
    )


def test_a_cell_over_the_csv_field_limit_below_the_first_line_is_refused_not_raised() -> None:
    """An inventory whose first data row holds a cell of a million characters: looking below
    the first line for a header under title rows meets a line csv cannot split; it is no header,
    and the cell is refused as too long, with no traceback (csv.Error escaped detection)."""
    header = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib\n"
    data = (header + "x" * 1_000_000 + ",c,L40S,4,64,512\n").encode()
    with pytest.raises(InputError) as refused:
        import_inventory([("big-cell.csv", data)], load_catalog())
    assert any("longer than" in p.message for p in refused.value.problems)


NODE_LIST = ("sn", "cpu_milli", "memory_mib", "gpu", "model")


@pytest.mark.parametrize(
    "header",
    [
        "sn,cpu_milli,memory_mib,gpu,model,gpu_mem_mib,cpu_model",
        "sn,cpu_milli,memory_mib,gpu,gpu_model,model",
    ],
)
def test_an_unknown_column_is_not_renamed_onto_a_column_of_other_data(header: str) -> None:
    """An unknown column a whole word longer than a known one (cpu_model, gpu_mem_mib,
    gpu_model beside model) holds other data: the fix does not rename it onto that column,
    which would put CPU models or memory sizes where GPU models are read."""
    table = read_csv_table(f"{header}\n".encode(), "nodes.csv")
    problems = table.require_columns(NODE_LIST, ())
    assert problems
    for problem in problems:
        assert problem.message.startswith(f"unknown column '{problem.column}' is ignored")
        assert "rename" not in problem.fix
        assert problem.fix.startswith("delete it")


def test_a_misspelt_column_is_renamed_only_onto_a_known_column_the_file_lacks() -> None:
    """A misspelt column (memroy_mib, a letter swapped) is renamed onto the column it misspells
    when the file lacks it; beside that column (mig_enable beside mig_enabled) renaming would
    make two of it, so it is not offered."""
    table = read_csv_table(b"sn,cpu_milli,gpu,model,memroy_mib\n", "nodes.csv")
    (misspelt,) = table.require_columns(("sn", "cpu_milli", "gpu", "model"), ("memory_mib",))
    assert misspelt.column == "memroy_mib"
    assert misspelt.fix.startswith("rename it to 'memory_mib'")
    table = read_csv_table(b"host,mig_enabled,mig_enable\n", "inventory.csv")
    (beside,) = table.require_columns(("host",), ("mig_enabled",))
    assert beside.column == "mig_enable"
    assert "rename" not in beside.fix


def test_a_notes_column_is_offered_only_where_the_table_reads_one() -> None:
    """An unknown column of a table with a notes column may be named 'notes' to keep it; a
    trace node list has none (a 'notes' column there is itself unknown), so its fix is to
    delete the column, and says nothing of notes."""
    table = read_csv_table(b"sn,cpu_milli,memory_mib,gpu,model,rack\n", "nodes.csv")
    (node_list,) = table.require_columns(NODE_LIST, ())
    assert node_list.fix == "delete it"
    table = read_csv_table(b"host,rack\n", "inventory.csv")
    (inventory,) = table.require_columns(("host",), ("notes",))
    assert inventory.fix == "delete it, or name it 'notes' to keep it as a comment"
