"""Problems found in a user's input file, reported with file, row, column and the fix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import pandas as pd

from planner.words import counted

__all__ = [
    "PROBLEM_COLUMNS",
    "InputError",
    "InputProblem",
    "Loaded",
    "first_problems",
    "problems_frame",
    "rows_skipped",
    "skipped_summary",
]

T = TypeVar("T")


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with one cell, row or file, and how to fix it."""

    file: str
    """File name as the user knows it (``inventory.csv``)."""
    row: int | None
    """Row number as a spreadsheet shows it (the header is row 1); None for the whole file."""
    column: str | None
    """Column name; None when the problem is the whole row or file."""
    message: str
    """What is wrong, in plain words."""
    fix: str
    """What the user should change."""
    row_kept: bool = False
    """The row is still used, the problem one of its values (corrected, assumed or passed
    over, as ``message`` says); False when the row is left out, or no row is named. Only rows
    left out are counted skipped (``skipped_summary``)."""

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column '{self.column}'"
        return f"{where}: {self.message}. Fix: {self.fix}"


class InputError(ValueError):
    """A file could not be used at all; ``problems`` says why."""

    def __init__(self, problems: list[InputProblem] | tuple[InputProblem, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """A loaded value plus the rows that were skipped, each with its reason."""

    value: T
    problems: tuple[InputProblem, ...] = ()


def first_problems(problems: Sequence[InputProblem], shown: int) -> list[InputProblem]:
    """The first ``shown`` problems, and when there are more, one saying how many more and on
    which rows (a refused file's every line need not be listed, but none is left unsaid)."""
    if len(problems) <= shown:
        return list(problems)
    rest = problems[shown:]
    rows = sorted({p.row for p in rest if p.row is not None})
    where = f" (rows {rows[0]}-{rows[-1]})" if rows else ""
    return [
        *problems[:shown],
        InputProblem(
            rest[0].file,
            None,
            None,
            f"{counted(len(rest), 'more problem')} like these{where}",
            rest[0].fix,
        ),
    ]


PROBLEM_COLUMNS = ("file", "row", "column", "problem", "fix")
"""Columns of ``problems_frame``: where the problem is, what is wrong, how to fix it."""


def problems_frame(problems: Sequence[InputProblem]) -> pd.DataFrame:
    """Problems as a table with ``PROBLEM_COLUMNS``; ``row`` is empty for a whole-file problem."""
    return pd.DataFrame(
        {
            "file": [p.file for p in problems],
            "row": pd.array([p.row for p in problems], dtype="Int64"),
            "column": [p.column or "" for p in problems],
            "problem": [p.message for p in problems],
            "fix": [p.fix for p in problems],
        },
        columns=list(PROBLEM_COLUMNS),
    )


def rows_skipped(problems: Sequence[InputProblem]) -> set[tuple[str, int]]:
    """The (file, row) of each row a problem leaves out (``InputProblem.row_kept`` false)."""
    return {(p.file, p.row) for p in problems if p.row is not None and not p.row_kept}


def skipped_summary(problems: Sequence[InputProblem]) -> str | None:
    """One line counting the rows skipped and the other problems (``"2 rows skipped in
    inventory.csv, 1 other problem"``); None when there is no problem. A row is skipped when a
    problem leaves it out (``InputProblem.row_kept`` false); the other problems name no row or
    a row still used."""
    if not problems:
        return None
    rows = rows_skipped(problems)
    files = sorted({file for file, _ in rows})
    others = sum(1 for p in problems if (p.file, p.row) not in rows)
    parts = []
    if rows:
        parts.append(f"{counted(len(rows), 'row')} skipped in {', '.join(files)}")
    if others:
        parts.append(counted(others, "other problem"))
    return ", ".join(parts)
