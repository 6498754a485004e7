"""``active_hours`` written as clock times: ranges with am or pm at both ends read as the hours
they say; a range with am or pm at one end, a lone time of day (a spreadsheet's time cell) and
Excel's day fractions with decimal commas are refused naming what was seen and what to write."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.problems import InputProblem
from planner.inputs.workloads import (
    REQUIRED_WORKLOAD_COLUMNS,
    CellError,
    WorkloadKind,
    load_workloads,
    parse_active_hours,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _hours(start: float, end: float) -> tuple[float, ...]:
    """The schedule of a range within one day, end excluded [share per hour]."""
    return tuple(max(0.0, min(end, hour + 1) - max(start, hour)) for hour in range(24))


def _loaded_problems(catalog: Catalog, hours: str, separator: str) -> list[InputProblem]:
    header = separator.join(REQUIRED_WORKLOAD_COLUMNS)
    cells = ["a", "notebook", "2", "0.25", "10", "0.5", hours, "5", "4", "32", "no", "no", "yes"]
    if separator == ",":
        cells[6] = f'"{hours}"'
    else:
        cells[3], cells[5] = "0,25", "0,5"
    good = [*cells[:6], "8", *cells[7:]]
    good[0] = "b"
    data = "\n".join([header, separator.join(cells), separator.join(good)]).encode()
    return list(load_workloads(data, catalog, file_name="wl.csv").problems)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("9am-5pm", 9, 17),
        ("9 AM - 5 PM", 9, 17),
        ("9:00:00 AM-5:00:00 PM", 9, 17),
        ("9 a.m.-5:30 p.m.", 9, 17.5),
        ("12pm-6pm", 12, 18),
        ("9:00-17:30", 9, 17.5),
    ],
)
def test_a_range_with_am_or_pm_at_both_ends_reads_as_its_hours(
    text: str, start: float, end: float
) -> None:
    """``9am-5pm`` is 9-17 and ``12pm`` is noon: am or pm at both ends leaves one reading."""
    assert parse_active_hours(text, WorkloadKind.NOTEBOOK) == pytest.approx(_hours(start, end))


def test_a_range_to_12am_ends_at_midnight() -> None:
    """``10pm-12am`` is 22-24: 12am is midnight."""
    schedule = parse_active_hours("10PM-12AM", WorkloadKind.BATCH)
    assert schedule == pytest.approx(_hours(22, 24))


def test_am_or_pm_at_one_end_is_refused_naming_both_readings() -> None:
    """``9-5pm`` is 9-17 if 9 is am and 21-17 if pm; which is not guessed."""
    with pytest.raises(CellError) as raised:
        parse_active_hours("9-5pm", WorkloadKind.NOTEBOOK)
    assert raised.value.message == "'9-5pm' gives am or pm at one end only: 9 may be am or pm"
    assert raised.value.fix == (
        "write am or pm at both ends, or the range in 24-hour time: 9-17 for 9am or 21-17 for 9pm"
    )


def test_an_hour_above_12_with_pm_is_no_time_of_day() -> None:
    """``13pm`` names no time: the range is refused quoting it as written."""
    with pytest.raises(CellError) as raised:
        parse_active_hours("13PM-5PM", WorkloadKind.NOTEBOOK)
    assert raised.value.message == "'13PM-5PM' is not a time of day"


@pytest.mark.parametrize("separator", [",", ";"])
@pytest.mark.parametrize(
    ("text", "clock", "meant"),
    [
        ("12:00:00 AM", "00:00", "24x7 if all day is meant"),
        ("8:00:00 AM", "08:00", "8 if 8 hours a day are meant"),
        ("8:00", "08:00", "8 if 8 hours a day are meant"),
    ],
)
def test_a_lone_time_of_day_is_refused_naming_the_time(
    catalog: Catalog, separator: str, text: str, clock: str, meant: str
) -> None:
    """``12:00:00 AM`` (an Excel time cell saved as text) is neither hours nor a range: the row
    is left out with a problem naming the time and what to write (it read 'not a number of
    hours or a list of hour ranges')."""
    (problem,) = _loaded_problems(catalog, text, separator)
    assert (problem.row, problem.column, problem.row_kept) == (2, "active_hours", False)
    assert problem.message == (
        f"'{text}' is a time of day ({clock}), not hours or a range: a spreadsheet saves a cell "
        "this way when it holds a time, as Excel makes of 8:00 typed in a cell not formatted "
        "as Text"
    )
    assert problem.fix == (
        f"format the active_hours column as Text, then write the hours per day ({meant}) "
        "or a range of hours (9-17)"
    )


@pytest.mark.parametrize(
    ("text", "times", "write"),
    [
        ("0,375-0,75", "09:00-18:00", "9-18"),
        ("0,375-0,5,0,541666666666667-0,75", "09:00-12:00,13:00-18:00", "9-12,13-18"),
    ],
)
def test_day_fractions_with_decimal_commas_are_refused_naming_the_times(
    catalog: Catalog, text: str, times: str, write: str
) -> None:
    """In a semicolon-separated file ``0,375-0,75`` is Excel's 09:00-18:00 with decimal commas:
    refused as ``0.375-0.75`` is, quoted as written, with the hours to write."""
    (problem,) = _loaded_problems(catalog, text, ";")
    assert (problem.row, problem.column, problem.row_kept) == (2, "active_hours", False)
    assert problem.message == (
        f"'{text}' holds times of day as Excel stores them, as fractions of a day ({times}), "
        "not hours: Excel turns times into such numbers in a cell not formatted as Text"
    )
    assert problem.fix == (
        f"format the active_hours column as Text, then write the range in hours ({write})"
    )


@pytest.mark.parametrize("separator", [",", ";"])
def test_a_range_with_am_and_pm_loads_with_no_problem(catalog: Catalog, separator: str) -> None:
    """A workload file's ``9 AM - 5 PM`` loads the row without a word."""
    assert _loaded_problems(catalog, "9 AM - 5 PM", separator) == []
