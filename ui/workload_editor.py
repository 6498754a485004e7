"""The Workloads page's table editor: what it shows, and its edits checked in the editor's words.

An edited table reaches the planner only whole: when a cell is wrong, nothing is applied, every
row stays in the editor as typed, and each bad cell is named by its row, class and column as the
editor shows them, with what to type instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from pandas.io.formats.style import Styler

from planner.inputs.catalog import Catalog
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.workloads import WorkloadClass, workloads_frame, workloads_from_frame

__all__ = [
    "WHOLE_NUMBER_COLUMNS",
    "CellProblem",
    "EditCheck",
    "check_edits",
    "editor_row",
    "editor_table",
    "marked_rows",
    "rows_renumbered",
]

WHOLE_NUMBER_COLUMNS = ("instances", "days_per_week", "priority")
"""Columns that take whole numbers. The editor holds them as decimals: a whole-number grid column
drops a typed decimal point (1.5 became 15), and the check then names the cell instead."""

MARK_STYLE = "background-color: rgba(255, 75, 75, 0.25); font-weight: 600"
"""How a bad cell is marked in the table of rows to fix."""


def editor_table(workloads: Sequence[WorkloadClass]) -> pd.DataFrame:
    """The workload mix as the editor shows it: the workload CSV's columns, one row per class."""
    frame = workloads_frame(tuple(workloads))
    return frame.astype(dict.fromkeys(WHOLE_NUMBER_COLUMNS, "float64"))


@dataclass(frozen=True)
class CellProblem:
    """One cell (or row) of the edited table that cannot be used, in the editor's terms."""

    row: int | None
    """Row as the editor counts them (1 = first class); None for the table as a whole."""
    workload: str
    """The class name in that row (empty when the name itself is missing)."""
    column: str | None
    """Column key of the cell (``gpus``); None for the whole row or table."""
    label: str
    """Column heading as the editor shows it (``memory [GiB]``)."""
    message: str
    fix: str

    def sentence(self) -> str:
        """The problem as one instruction: where, what is wrong, what to type."""
        fix = self.fix[:1].upper() + self.fix[1:]
        if self.row is None:
            return f"{self.message[:1].upper()}{self.message[1:]}. {fix}."
        where = f"Row {self.row}"
        if self.workload:
            where += f" ({self.workload})"
        if self.column is None:
            return f"{where}: {self.message}. {fix}."
        return f"{where}, column “{self.label}”: {self.message}. {fix} in that cell."


@dataclass(frozen=True)
class EditCheck:
    """The verdict on an edited table."""

    edited: pd.DataFrame
    """The table as the editor shows it."""
    table: pd.DataFrame
    """The edited table without rows left entirely empty: what is applied."""
    problems: tuple[CellProblem, ...]
    """Every cell that stops the table from being used; empty when it can be applied."""
    workloads: tuple[WorkloadClass, ...] = ()
    """The classes the table describes (only when there is no problem)."""

    def csv(self) -> bytes:
        """The classes as a workload CSV (whole numbers written as such), to plan with."""
        return workloads_frame(self.workloads).to_csv(index=False).encode()


def check_edits(edited: pd.DataFrame, catalog: Catalog, labels: Mapping[str, str]) -> EditCheck:
    """Check an edited table with the rules of the workload file; ``labels`` maps column keys to
    the editor's headings. A table with any problem must not be applied."""
    table = edited.dropna(how="all")
    if table.empty:
        empty = CellProblem(
            None, "", None, "", "the table has no workload class", "add a row, or load a preset"
        )
        return EditCheck(edited=edited, table=table, problems=(empty,))
    workloads: tuple[WorkloadClass, ...] = ()
    try:
        loaded = workloads_from_frame(table, catalog, file_name="edited table")
        found: Sequence[InputProblem] = loaded.problems
        workloads = loaded.value
    except InputError as error:
        found = error.problems
    positions = {label: position for position, label in enumerate(edited.index)}
    problems = tuple(
        _in_editor_words(p, table, positions, labels)
        for p in found
        # A row still used is no change to make (the mix in use lists its note); the "no
        # usable row" verdict repeats the cells already listed.
        if not p.row_kept and (p.row is not None or not any(q.row is not None for q in found))
    )
    return EditCheck(
        edited=edited, table=table, problems=problems, workloads=() if problems else workloads
    )


def _in_editor_words(
    problem: InputProblem,
    table: pd.DataFrame,
    positions: Mapping[object, int],
    labels: Mapping[str, str],
) -> CellProblem:
    if problem.row is None:
        return CellProblem(None, "", problem.column, "", problem.message, problem.fix)
    index = table.index[problem.row - 2]
    name = table.loc[index, "name"] if "name" in table.columns else ""
    column = problem.column
    return CellProblem(
        row=editor_row(problem.row, table, positions),
        workload="" if pd.isna(name) else str(name),
        column=column,
        label="" if column is None else labels.get(column, column),
        message=rows_renumbered(problem.message, table, positions),
        fix=rows_renumbered(problem.fix, table, positions),
    )


def editor_row(csv_row: int, table: pd.DataFrame, positions: Mapping[object, int]) -> int:
    """The editor's row (1 = first row) of a table row numbered as a CSV would be (header =
    row 1; rows left entirely empty are not in ``table``)."""
    return positions[table.index[csv_row - 2]] + 1


_ROW_MENTION = re.compile(r"\brow (\d+)\b")


def rows_renumbered(text: str, table: pd.DataFrame, positions: Mapping[object, int]) -> str:
    """``text`` with each row it names (``already used on row 2``) numbered as the editor shows
    it: the planner counts rows as a CSV would, the header being row 1."""

    def renumbered(mention: re.Match[str]) -> str:
        csv_row = int(mention.group(1))
        if not 2 <= csv_row <= len(table) + 1:
            return mention.group(0)
        return f"row {editor_row(csv_row, table, positions)}"

    return _ROW_MENTION.sub(renumbered, text)


def marked_rows(check: EditCheck, labels: Mapping[str, str]) -> Styler:
    """The rows with problems, as the editor shows them, each bad cell marked; indexed by the
    editor's row (``row 3``) and headed by the editor's column headings."""
    rows = sorted({p.row for p in check.problems if p.row is not None})
    shown = check.edited.iloc[[r - 1 for r in rows]]
    shown = shown.set_axis([f"row {r}" for r in rows], axis=0).rename(columns=dict(labels))
    bad = {(f"row {p.row}", p.label) for p in check.problems if p.column is not None}

    def mark(frame: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame(
            [[MARK_STYLE if (i, c) in bad else "" for c in frame.columns] for i in frame.index],
            index=frame.index,
            columns=frame.columns,
        )

    return shown.style.apply(mark, axis=None).format(_cell_text)


def _cell_text(value: object) -> str:
    """A cell as typed: numbers without padding zeros (1.5, 0.25, 72), empty cells empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)
