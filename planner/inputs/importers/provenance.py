"""Where each imported value came from: read from a file, derived from what was read, or assumed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import pandas as pd

from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import shown

__all__ = [
    "SOURCES",
    "ImportNote",
    "NoteSource",
    "summarise_notes",
    "traced_problems",
    "validated_import",
]

NoteSource = Literal["read", "derived", "assumed"]
"""``read``: the value is in the file as it is used; ``derived``: worked out from values in the
file (a GPU name mapped to a catalog model, MiB to GiB, a count divided by a MIG profile's
maximum); ``assumed``: no file gives it, so a default stands in until the user sets it."""

SOURCES: tuple[NoteSource, ...] = ("read", "derived", "assumed")
"""The sources in order of trust: when two files give one value, the better source wins."""


@dataclass(frozen=True)
class ImportNote:
    """How one imported value was obtained, with the place in the file it came from."""

    file: str
    """File as the user knows it; a workbook tab is ``export.xlsx [vHost]``; ``user`` for values
    given as parameters, ``defaults`` for a planner default no file replaces."""
    line: int | None
    """Line of a text file or spreadsheet row (header = row 1); None when the file does not say."""
    locator: str
    """Where in the line or document: a column, label, JSON path or metric (``memory.total
    [MiB]``, ``status.allocatable.cpu``, ``DCGM_FI_DEV_FB_USED``); empty for the whole file."""
    subject: str
    """The host, pod or workload class the note is about; empty for the whole file."""
    field: str
    """The planner column the value fills (``cpu_cores``, ``busy_fraction``); empty for a row."""
    value: str
    """The value as the planner uses it, as text."""
    source: NoteSource
    text: str
    """Why, in words that are the same for every row of the same kind, so notes group."""

    def __str__(self) -> str:
        where = self.file + (f", line {self.line}" if self.line is not None else "")
        if self.locator:
            where += f", {self.locator}"
        what = f"{self.subject}: " if self.subject else ""
        field = f"{self.field} = {self.value} " if self.field else ""
        return f"{where}: {what}{field}({self.source}) {self.text}"


def _listed(items: Sequence[str], limit: int = 4) -> str:
    joined = ", ".join(items[:limit])
    return joined + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def summarise_notes(notes: Iterable[ImportNote]) -> list[str]:
    """Short lines saying what each file gave, in first-seen order, for a terminal.

    Values read or derived make one line per file and source listing ``field = value`` (values
    that differ between rows joined by ``|``); assumed values one line per file, field and reason,
    because each asks the user to act; notes about a whole file or row one line per text.
    """
    groups: dict[tuple[str, ...], list[ImportNote]] = {}
    for note in notes:
        if not note.field:
            key: tuple[str, ...] = (note.file, "", note.source, note.text)
        elif note.source == "assumed":
            key = (note.file, note.field, note.source, note.text)
        else:
            key = (note.file, "*", note.source, "")
        groups.setdefault(key, []).append(note)
    lines = []
    for (file, field, source, text), members in groups.items():
        subjects = list(dict.fromkeys(n.subject for n in members if n.subject))
        about = ""
        if subjects:
            about = (
                f" for {subjects[0]}"
                if len(subjects) == 1
                else (f" for {len(subjects)} ({_listed(subjects)})")
            )
        if field == "*":
            fields: dict[str, list[str]] = {}
            for n in members:
                values = fields.setdefault(n.field, [])
                if n.value not in values:
                    values.append(n.value)
            listed = ", ".join(f"{f} = {'|'.join(v[:3])}" for f, v in fields.items())
            lines.append(f"{file}: {source}{about}: {listed}")
        elif field:
            values = list(dict.fromkeys(n.value for n in members))
            lines.append(f"{file}: {field} {source}{about} = {_listed(values)}: {text}")
        else:
            lines.append(f"{file}: {text}" + (f" ({_listed(subjects)})" if subjects else ""))
    return lines


T = TypeVar("T")


def validated_import(
    validate: Callable[[pd.DataFrame], Loaded[T]],
    frame: pd.DataFrame,
    notes: Sequence[ImportNote],
    problems: Sequence[InputProblem],
    *,
    validated_as: str,
    subject: tuple[str, str],
    files: Sequence[str],
) -> Loaded[T]:
    """An imported ``frame`` validated by ``validate`` (as the file ``validated_as``): the
    import's own ``problems`` first, then the validator's pointed at the files its values came
    from (``traced_problems``). Raises ``InputError`` with both when no row is usable."""

    def traced(found: Iterable[InputProblem]) -> tuple[InputProblem, ...]:
        return traced_problems(
            found, frame, notes, validated_as=validated_as, subject=subject, files=files
        )

    try:
        loaded = validate(frame)
    except InputError as error:
        raise InputError([*problems, *traced(error.problems)]) from None
    return Loaded(loaded.value, (*problems, *traced(loaded.problems)))


def traced_problems(
    problems: Iterable[InputProblem],
    frame: pd.DataFrame,
    notes: Sequence[ImportNote],
    *,
    validated_as: str,
    subject: tuple[str, str],
    files: Sequence[str],
) -> tuple[InputProblem, ...]:
    """Problems found validating an imported ``frame`` as the file ``validated_as``, pointed at
    the files the values came from; others pass unchanged.

    A cell's problem (row numbered as the frame saved to CSV would be: position + 2) names the
    file, line and locator of the note that gave that subject's value of that column, and the
    subject (``subject`` is the frame's column naming it and the word for it, ``("host",
    "host")``); with no such note (a host's name), the file and line of the subject's first
    note, the file the subject came from; with no note of the subject at all (a cell the user
    edited), the frame's row. A whole-file problem names ``files``.
    """
    column, word = subject
    given = {(n.subject, n.field): n for n in notes if n.field}
    first: dict[str, ImportNote] = {}
    for n in notes:
        first.setdefault(n.subject, n)
    traced = []
    for problem in problems:
        if problem.file != validated_as:
            traced.append(problem)
            continue
        position = None if problem.row is None else problem.row - 2
        if position is None or not 0 <= position < len(frame) or problem.column is None:
            traced.append(
                InputProblem(
                    ", ".join(files) or validated_as,
                    None,
                    problem.column,
                    problem.message,
                    problem.fix,
                    row_kept=problem.row_kept,
                )
            )
            continue
        name = str(frame.iloc[position][column])
        note = given.get((name, problem.column))
        # A problem with the subject's own name says what it is ("the host name ...").
        said = "" if problem.column == column else f"{problem.column} "
        message = f"{word} {shown(name)}: {said}{problem.message}"
        if note is not None:
            traced.append(
                InputProblem(
                    note.file,
                    note.line,
                    note.locator or problem.column,
                    f"{message} ({note.source}: {note.text})",
                    problem.fix,
                    row_kept=problem.row_kept,
                )
            )
        elif name in first:
            named = first[name]
            traced.append(
                InputProblem(
                    named.file,
                    named.line,
                    problem.column,
                    message,
                    problem.fix,
                    row_kept=problem.row_kept,
                )
            )
        else:
            traced.append(
                InputProblem(
                    validated_as,
                    problem.row,
                    problem.column,
                    message,
                    problem.fix,
                    row_kept=problem.row_kept,
                )
            )
    return tuple(traced)
