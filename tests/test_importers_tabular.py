"""Tests of planner CSV reading (``planner.inputs.tabular``) against malformed files."""

from __future__ import annotations

import pytest

from planner.inputs.problems import InputError
from planner.inputs.tabular import read_csv_table


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


def test_a_utf16_csv_with_a_bad_character_names_its_line_counted_in_characters() -> None:
    """A UTF-16 file (two bytes a character) with a lone surrogate on line 2 is refused on
    line 2 as not UTF-16 text."""
    data = "host,gpu_model\nb\ud800,L4\n".encode("utf-16", "surrogatepass")
    with pytest.raises(InputError) as caught:
        read_csv_table(data, "inventory.csv")
    (problem,) = caught.value.problems
    assert problem.row == 2
    assert problem.message.startswith("not UTF-16 text: bytes ")


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
