"""Problems found in a user's input file, reported with file, row, column and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["InputError", "InputProblem", "Loaded"]

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
