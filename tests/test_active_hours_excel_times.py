"""``active_hours`` cells Excel turned into fractions of a day, as it stores a time (09:00 is
0.375): a range of them is refused naming the times and the hours to write; a lone one is read
as the hours it says, with a note naming the time it also is."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.problems import InputProblem
from planner.inputs.workloads import REQUIRED_WORKLOAD_COLUMNS, load_workloads
from ui.workload_editor import check_edits, editor_table

HEADER = ",".join(REQUIRED_WORKLOAD_COLUMNS)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _row(name: str, hours: str) -> str:
    return f'{name},notebook,2,0.25,10,0.5,"{hours}",5,4,32,no,no,yes'


def _problems(catalog: Catalog, hours: str) -> list[InputProblem]:
    data = "\n".join([HEADER, _row("a", hours), _row("b", "8")]).encode()
    return list(load_workloads(data, catalog, file_name="wl.csv").problems)


@pytest.mark.parametrize(
    ("hours", "times", "write"),
    [
        ("0.375-0.75", "09:00-18:00", "9-18"),
        ("0.375-0.5,0.541666666666667-0.75", "09:00-12:00,13:00-18:00", "9-12,13-18"),
        ("0.916666666666667-0.25", "22:00-06:00", "22-6"),
        ("0.395833333333333-0.708333333333333", "09:30-17:00", "9:30-17"),
    ],
)
def test_a_range_of_day_fractions_is_refused_naming_the_times(
    catalog: Catalog, hours: str, times: str, write: str
) -> None:
    """``0.375-0.75`` is no hour range: the row is left out with a problem saying these are
    the times 09:00-18:00 as Excel stores them, to format the column as Text and write 9-18
    (it read 'not a number of hours or a list of hour ranges')."""
    (problem,) = _problems(catalog, hours)
    assert (problem.row, problem.column, problem.row_kept) == (2, "active_hours", False)
    assert problem.message == (
        f"'{hours}' holds times of day as Excel stores them, as fractions of a day ({times}), "
        "not hours: Excel turns times into such numbers in a cell not formatted as Text"
    )
    assert problem.fix == (
        f"format the active_hours column as Text, then write the range in hours ({write})"
    )


@pytest.mark.parametrize(
    ("hours", "read", "clock", "write"),
    [
        ("0.375", "0.375 hours (22.5 minutes)", "09:00", "9"),
        ("0.333333333333333", "0.3333 hours (20 minutes)", "08:00", "8"),
    ],
)
def test_a_lone_day_fraction_is_read_as_hours_with_a_note_naming_the_time(
    catalog: Catalog, hours: str, read: str, clock: str, write: str
) -> None:
    """A lone 0.375 reads as the hours it says (half an hour a day is a schedule), but it is
    also Excel's 09:00: the row is kept and a note says so, with how to give the hours."""
    data = "\n".join([HEADER, _row("a", hours)]).encode()
    loaded = load_workloads(data, catalog, file_name="wl.csv")
    (workload,) = loaded.value
    assert sum(workload.daily_schedule) == pytest.approx(float(hours))
    (note,) = loaded.problems
    assert (note.row, note.column, note.row_kept) == (2, "active_hours", True)
    assert note.message == (
        f"'{hours}' is read as {read} a day; it is also Excel's number for the time {clock}"
    )
    assert f"write the hours ({write} for {write} hours a day" in note.fix


@pytest.mark.parametrize("hours", ["8", "2.5", "9-17", "9:30-17", "24x7", "0.37", "0.5-1"])
def test_hours_that_are_no_excel_time_have_no_note(catalog: Catalog, hours: str) -> None:
    """Hours above 1, ranges in hours and a fraction that is no whole minute of a day read
    without a word; ``0.5-1`` (1 is no fraction) stays a malformed range, not an Excel time."""
    problems = _problems(catalog, hours)
    assert all("Excel" not in p.message for p in problems)


def test_the_editor_applies_a_row_kept_with_a_note(catalog: Catalog) -> None:
    """In the Workloads editor a note on a kept row (0.375 hours a day) is no cell to change:
    the table applies, and the mix in use lists the note."""
    data = "\n".join([HEADER, _row("a", "8")]).encode()
    table = editor_table(load_workloads(data, catalog).value)
    table.loc[0, "active_hours"] = "0.375"
    check = check_edits(table, catalog, {})
    assert check.problems == ()
    assert [w.name for w in check.workloads] == ["a"]
