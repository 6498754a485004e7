"""Text that a spreadsheet would run as a formula, and CSV that cannot carry one.

OWASP's CSV injection rule: a cell that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage
return is read by Excel, LibreOffice and Google Sheets as a formula (``=HYPERLINK(...)`` becomes a
live link). Every CSV the product writes goes through ``csv_bytes``, which prefixes such text
with a single quote so it shows as typed; the workbook stores such text as a plain string
(``planner.output.export``). Numbers are left alone: ``-3`` in a numeric column is a number.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "csv_bytes", "is_formula_text", "neutralised"]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat text as a formula (OWASP CSV injection)."""

_QUOTE = "'"
"""OWASP's neutraliser: a leading single quote makes the cell plain text."""


def is_formula_text(value: object) -> bool:
    """Whether ``value`` is text a spreadsheet would evaluate."""
    return isinstance(value, str) and value.startswith(FORMULA_PREFIXES)


def neutralised(value: Any) -> Any:
    """``value`` with a leading quote when it is formula text; anything else unchanged."""
    return _QUOTE + value if is_formula_text(value) else value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV without the index, every text cell and header neutralised.

    Lines end in CRLF (RFC 4180), so a field holding a lone carriage return is quoted too.
    """
    safe = frame.rename(columns=lambda c: neutralised(str(c)))
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column].dtype):
            # Text, object or category columns: any cell may hold user text.
            safe[column] = safe[column].astype(object).map(neutralised)
    return safe.to_csv(index=False, lineterminator="\r\n").encode()
