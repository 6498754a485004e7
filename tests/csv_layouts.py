"""How spreadsheets and people lay out a CSV file around its header: the layouts every reader
of CSV (the planner's loaders, format detection, the trace lists) must find the same header in.
"""

from __future__ import annotations

import codecs
import csv
import io
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """One way of writing a table to a CSV file."""

    above: str
    """The text above the header: blank lines, Excel's ``sep=`` line."""
    separator: str
    """The column separator the table is written with."""
    header_row: int
    """The header's row as a spreadsheet numbers it (the lines above count)."""
    line_end: str = "\n"
    bom: bool = False
    """The file begins with UTF-8's byte-order mark, as Excel's "CSV UTF-8" writes it."""

    def write(self, rows: list[list[str]]) -> bytes:
        """The file's bytes for ``rows`` (the header first)."""
        out = io.StringIO()
        csv.writer(out, delimiter=self.separator, lineterminator=self.line_end).writerows(rows)
        text = (self.above + out.getvalue()).encode()
        return codecs.BOM_UTF8 + text if self.bom else text


LAYOUTS = {
    "plain": Layout("", ",", 1),
    "a sep=; line above the header": Layout("sep=;\r\n", ";", 2, "\r\n"),
    "blank lines, then a sep=; line": Layout("\n\nsep=;\n", ";", 4),
    "a sep=; line, then a blank line": Layout("sep=;\n\n", ";", 3),
    "a byte-order mark, then a sep=; line": Layout("sep=;\n", ";", 2, bom=True),
    "blank lines above the header": Layout("\n \n", ",", 3),
    "blank lines above a semicolon header": Layout("\n\n", ";", 3),
    "tab-separated": Layout("", "\t", 1, "\r\n"),
    "a blank row of commas above a semicolon header": Layout(",,,,\n", ";", 2),
}
"""Each layout by what it shows; every reader finds the header on ``header_row``."""

HOSTS = [["host", "gpu_model", "gpus_per_host"], ["a", "L4", "1"]]
"""The smallest planner inventory: its header and one host."""
