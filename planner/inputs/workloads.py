"""The workload mix: classes of identical instances (notebooks, training, inference, batch, VDI)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum
from functools import partial
from pathlib import Path

import pandas as pd

from planner.inputs.catalog import Catalog, UnknownGpuModel
from planner.inputs.cell_units import GIB, GPUS, VCPUS
from planner.inputs.limits import (
    MAX_CORES,
    MAX_GPUS_PER_HOST,
    MAX_INSTANCES,
    MAX_RAM_GIB,
    limit_text,
)
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import (
    SPREADSHEET_SEPARATORS,
    CellError,
    Row,
    Table,
    TableColumns,
    parse_bool,
    parse_cells,
    parse_float,
    parse_int,
    quoted,
    read_csv_table,
    read_rows,
    refuse_repeated_names,
    source_name,
    table_from_frame,
    usable_name,
    yes_no,
)

__all__ = [
    "DEFAULT_START_HOUR",
    "HOURS_PER_DAY",
    "REQUIRED_WORKLOAD_COLUMNS",
    "WORKLOAD_COLUMNS",
    "WORKLOAD_SHEET_HEADERS",
    "WORKLOAD_TABLE",
    "Instance",
    "WorkloadClass",
    "WorkloadKind",
    "expand_instances",
    "load_workloads",
    "parse_active_hours",
    "schedule_text",
    "workloads_frame",
    "workloads_from_frame",
]

HOURS_PER_DAY = 24


class WorkloadKind(StrEnum):
    """What a workload does; sets its default schedule and overhead model."""

    TRAINING = "training"
    INFERENCE = "inference"
    NOTEBOOK = "notebook"
    BATCH = "batch"
    VDI = "vdi"


@dataclass(frozen=True)
class WorkloadClass:
    """A class of identical workload instances, one row of the workload CSV."""

    name: str
    kind: WorkloadKind
    instances: int
    """How many identical instances (VMs or pods) the class has."""
    gpus: float
    """GPUs per instance: a fraction of one GPU (0.25) or whole GPUs (1, 2, 8)."""
    memory_gib: float
    """GPU memory per instance [GiB] (total over all its GPUs)."""
    busy_fraction: float
    """Average share of its active time the instance keeps its GPU busy [0-1]."""
    daily_schedule: tuple[float, ...]
    """24 values, hour of day 0-23: share of the instances active in that hour [0-1]."""
    days_per_week: int
    """Days per week the schedule applies (1-7); other days the class is idle."""
    vcpus: float
    """vCPUs per instance [cores]."""
    ram_gib: float
    """Host RAM per instance [GiB]."""
    needs_live_migration: bool
    """The instance must be movable with vMotion (rules out passthrough)."""
    needs_isolation: bool
    """The instance needs hardware isolation (only passthrough and MIG give it)."""
    latency_tolerant: bool
    """The instance tolerates GPU access over the network (remote pool)."""
    priority: int = 2
    """1 = placed first; larger numbers are placed later when capacity is short."""
    gpu_models: tuple[str, ...] = ()
    """Catalog models the class may run on; empty means any."""
    max_slowdown: float | None = None
    """Longest runtime the class accepts, over its bare-metal runtime [-] (1.5 = 50 % slower);
    None uses the plan's default (``Assumptions.max_slowdown``)."""
    memory_share: float | None = None
    """Share of one GPU's memory per instance [0-1], whatever the GPU's size (HAMi's
    ``gpumem-percentage``, Alibaba's ``gpu_milli``); None: the memory is ``memory_gib``. The
    compute share of a fractional instance is ``gpus``."""

    def memory_on(self, gpu_memory_gib: float) -> float:
        """GPU memory one instance takes on a GPU with ``gpu_memory_gib`` [GiB], over all its
        GPUs: ``memory_share`` of that GPU when set, else ``memory_gib``."""
        if self.memory_share is None:
            return self.memory_gib
        return self.memory_share * gpu_memory_gib * max(1, math.ceil(self.gpus))

    @property
    def active_hours_per_day(self) -> float:
        """Instance-hours active per day per instance [h]."""
        return sum(self.daily_schedule)

    @property
    def peak_share(self) -> float:
        """Largest share of instances active in any hour [0-1]."""
        return max(self.daily_schedule)

    def instance_ids(self) -> list[str]:
        """Stable ids of the class's instances: ``name#1`` ... ``name#n``."""
        return [f"{self.name}#{i + 1}" for i in range(self.instances)]


@dataclass(frozen=True)
class Instance:
    """One VM or pod of a workload class."""

    id: str
    workload: WorkloadClass


DEFAULT_START_HOUR: dict[WorkloadKind, int | None] = {
    WorkloadKind.NOTEBOOK: 9,
    WorkloadKind.VDI: 8,
    WorkloadKind.BATCH: 20,
    WorkloadKind.TRAINING: None,
    WorkloadKind.INFERENCE: None,
}
"""Hour of day at which a number of ``active_hours`` starts; None = spread over the whole day."""

WORKLOAD_COLUMNS = (
    "name",
    "kind",
    "instances",
    "gpus",
    "memory_gib",
    "busy_fraction",
    "active_hours",
    "days_per_week",
    "vcpus",
    "ram_gib",
    "live_migration",
    "isolation",
    "latency_tolerant",
    "priority",
    "gpu_models",
    "max_slowdown",
    "memory_share",
)
"""Columns of the workload CSV in the template's order; ``priority``, ``gpu_models``,
``max_slowdown`` and ``memory_share`` are optional."""
REQUIRED_WORKLOAD_COLUMNS = WORKLOAD_COLUMNS[:-4]
"""The columns every workload CSV must have."""
_OPTIONAL = ("priority", "gpu_models", "max_slowdown", "memory_share", "notes")
WORKLOAD_SHEET_HEADERS = {
    "Workload": "name",
    "GPUs per instance": "gpus",
    "GPU memory per instance [GiB]": "memory_gib",
    "Busy [%]": "busy_fraction",
    "Share active by hour [0-1, 00:00 first]": "active_hours",
    "Days active per week": "days_per_week",
    "vCPUs per instance": "vcpus",
    "RAM per instance [GiB]": "ram_gib",
    "Needs live migration": "live_migration",
    "Needs isolation": "isolation",
    "Tolerates network latency": "latency_tolerant",
    "Priority [1 = first]": "priority",
    "GPU models allowed": "gpu_models",
    "Slowdown limit [x bare metal]": "max_slowdown",
    "GPU memory share [%]": "memory_share",
    "Note": "notes",
}
"""Headers of the plan workbook's Workloads sheet that name a workload column in words, by the
column each is read as: that sheet saved as CSV loads back as the classes it shows (its
shares as percentages, its hours as 24 shares separated by commas, its GPU models by commas)."""
WORKLOAD_TABLE = TableColumns(
    required=REQUIRED_WORKLOAD_COLUMNS,
    aliases=WORKLOAD_SHEET_HEADERS,
    table="workload",
    sheet="Workloads",
    template="data/templates/workloads_template.csv",
)
"""The workload columns as the CSV reader and format detection look for them."""
_NUMBERS = (
    "instances",
    "gpus",
    "memory_gib",
    "busy_fraction",
    "days_per_week",
    "vcpus",
    "ram_gib",
    "priority",
    "max_slowdown",
    "memory_share",
)
"""Columns holding numbers (a decimal comma is read in a semicolon-separated file);
``active_hours`` is read through ``Table.number_text``: its hours, or each of its 24 shares."""
_UNITS = {
    "gpus": GPUS.number_text,
    "memory_gib": GIB.number_text,
    "vcpus": VCPUS.number_text,
    "ram_gib": GIB.number_text,
}
"""Number columns whose cells may carry the column's unit (``80 GiB``)."""
_ALWAYS = frozenset({"24x7", "24/7", "24*7", "always"})
_NUMBER = re.compile(r"\d+(\.\d*)?|\.\d+")
"""An hourly share as written: ``0``, ``0.5``, ``.25``."""
_CLOCK = r"(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?(?:\s*([ap])\.?m\.?)?"
"""A time of day as people and spreadsheets write one: ``9``, ``9:30``, ``17:30:00``, ``9am``,
``5:30 PM``, ``12:00:00 AM``; hour, minutes, seconds, then ``a`` or ``p`` for am or pm."""
_RANGE = re.compile(rf"^{_CLOCK}\s*-\s*{_CLOCK}$")
_TIME_OF_DAY = re.compile(rf"^{_CLOCK}$")
_HALF_DAY_HOURS = 12
_SCHEDULE_FIX = (
    "enter hours per day (8 or 2.5), hour ranges (9-17, 9-12,13-18 or 22-6), 24x7, "
    "or 24 shares from 0 to 1 separated by spaces"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY_MONTH = re.compile(rf"^(\d{{1,2}})[-\s.]+{_MONTH}(?:[-\s.]+\d{{2,4}})?$")
"""How Excel shows a date it made of a range it read as day and month: ``17-Sep``,
``17-Sep-26``."""
_MONTH_NUMBER = re.compile(rf"^{_MONTH}[-\s.]+(\d{{1,2}})(?:[-\s.,]+\d{{2,4}})?$")
"""The same with the month first: ``Sep-17`` (month and year), ``Sep 17, 2026``."""
_NUMERIC_DATE = re.compile(
    r"^(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})(?:\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]m)?)?$"
)
"""A date in digits, as a CSV save writes one: ``9/17/2026``, ``17.09.2026``, ``2026-09-17``,
with a time of day or none."""
_EXCEL_SERIALS = (20_000, 80_000)
"""Whole numbers Excel stores dates from 1954 to 2119 as (days since 1899-12-30); far above
the 24 hours a day holds."""
_EXCEL_EPOCH = date(1899, 12, 30)
_MINUTES_PER_DAY = 24 * 60
_DAY_FRACTION_RANGE = re.compile(r"^(0?\.\d+)\s*-\s*(0?\.\d+)$")
"""A range of two fractions of a day, as Excel stores times: ``0.375-0.75`` is 09:00-18:00."""
_DECIMAL_COMMA_FRACTION = r"0,\d+\s*-\s*0,\d+"
_DECIMAL_COMMA_RANGES = re.compile(
    rf"^{_DECIMAL_COMMA_FRACTION}(?:\s*,\s*{_DECIMAL_COMMA_FRACTION})*$"
)
"""The same written with decimal commas, as Excel saves it where the comma marks decimals
(``0,375-0,75``); the comma between ranges cannot be read as a decimal mark, as each fraction
starts ``0,``."""


def expand_instances(workloads: Sequence[WorkloadClass]) -> list[Instance]:
    """Every instance of every class: by priority (1 first), then in file order."""
    ordered = sorted(workloads, key=lambda w: w.priority)  # sorted() is stable: file order kept
    return [Instance(instance_id, w) for w in ordered for instance_id in w.instance_ids()]


def parse_active_hours(text: str, kind: WorkloadKind) -> tuple[float, ...]:
    """The 24-hour schedule an ``active_hours`` cell describes (share of instances per hour).

    - A number of hours per day (``8``, ``2.5``) starts at the kind's default hour
      (``DEFAULT_START_HOUR``: notebook 9:00, vdi 8:00, batch 20:00) and fills whole hours, the
      last one partly (2.5 h from 9:00 is 9-10 and 10-11 fully, 11-12 at 0.5). Training and
      inference run all day, so their hours are spread evenly: 12 h is 0.5 in every hour.
    - Hour ranges, end exclusive: ``9-17``, ``9-12,13-18``, ``22-6`` (wraps past midnight),
      ``9:30-17`` (half of hour 9); in 12-hour time with am or pm at both ends, ``9am-5pm``
      or ``9:00 AM - 5:30 PM``. ``24x7`` is every hour.
    - 24 shares from 0 to 1 separated by spaces, hour 0 first (what ``schedule_text`` writes
      for a schedule the other forms cannot express), or by commas (as the plan workbook's
      Workloads sheet shows a schedule: ``0.0, 0.0, …, 1.0``).

    Raises ``CellError`` with the accepted forms when the text is none of these, and one
    naming the date when it is a date Excel made of an hour range (``17-Sep``, ``9/17/2026``,
    a date serial such as ``46282``), one naming the times when its ranges are fractions of
    a day (``0.375-0.75`` or ``0,375-0,75``, Excel's numbers for 09:00-18:00), one naming the
    time when it is one time of day (``12:00:00 AM``, as Excel saves a time cell), and one
    naming both readings of a range with am or pm at one end only (``9-5pm``).
    """
    cleaned = text.strip().lower()
    if not cleaned:
        raise CellError("active_hours is empty", _SCHEDULE_FIX)
    if cleaned in _ALWAYS:
        return (1.0,) * HOURS_PER_DAY
    parts = cleaned.split()
    if len(parts) == HOURS_PER_DAY:
        return _shares([part.removesuffix(",") for part in parts], text)
    listed = [part.strip() for part in cleaned.split(",")]
    if len(listed) == HOURS_PER_DAY and all(_NUMBER.fullmatch(part) for part in listed):
        return _shares(listed, text)
    try:
        hours = float(cleaned)
    except ValueError:
        return _ranges(cleaned, text)
    if hours.is_integer() and _EXCEL_SERIALS[0] <= hours <= _EXCEL_SERIALS[1]:
        day = _EXCEL_EPOCH + timedelta(days=int(hours))
        shown = f"{day.day}-{_MONTHS[day.month - 1].title()}-{day.year}"
        raise _excel_date_error(
            f"{text} is the date {shown} as Excel stores it", day.month, day.day
        )
    return _hours_per_day(hours, kind, text)


def _excel_date(cleaned: str, text: str) -> CellError | None:
    """The problem of a cell that is a date Excel made of an hour range (``9-17`` saved as
    ``17-Sep``, ``Sep-17`` or ``9/17/2026``); None for any other text.

    The range is not read back: whether ``17-Sep`` was typed 9-17 (a day) or 17-9 (overnight)
    depends on the locale of the Excel that saved it, which the file does not say.
    """
    numbers: tuple[int, int] | None = None
    if match := _DAY_MONTH.match(cleaned):
        numbers = (_MONTHS.index(match[2]) + 1, int(match[1]))
    elif match := _MONTH_NUMBER.match(cleaned):
        numbers = (_MONTHS.index(match[1]) + 1, int(match[2]))
    elif match := _NUMERIC_DATE.match(cleaned):
        parts = [match[1], match[3], match[4]]
        short = [int(part) for part in parts if len(part) <= 2]
        if len(short) < 2:
            return None
        # A four-digit part is the year; of three short parts the last is (9/17/26).
        numbers = (short[0], short[1])
    if numbers is None:
        return None
    return _excel_date_error(f"'{text}' is a date", *numbers)


def _excel_date_error(what: str, first: int, second: int) -> CellError:
    """The problem of a date in ``active_hours`` (``what`` names it), with the two ranges its
    numbers may have been typed as and how to keep Excel from changing them."""
    low, high = sorted((first, second))
    if high <= HOURS_PER_DAY and low != high:
        was = f"the range {low}-{high} or {high}-{low}"
        again = f"{low}-{high} for the day, {high}-{low} overnight"
        minutes = f"{low}:00-{high}:00"
    else:
        was, again, minutes = "an hour range such as 9-17", "9-17", "9:00-17:00"
    return CellError(
        f"{what}, not hours: Excel turned {was} into a date, as it does in a cell not "
        "formatted as Text",
        f"format the active_hours column as Text, then type the range again ({again}), "
        f"or write it with minutes ({minutes}), which Excel keeps as typed",
    )


def _clock_time(day_fraction: float) -> str | None:
    """The time of day Excel stores as ``day_fraction`` (0.375 is ``09:00``), when it is a whole
    minute from 00:01 to 24:00; None for any other number."""
    minutes = day_fraction * _MINUTES_PER_DAY
    if not (1 <= round(minutes) <= _MINUTES_PER_DAY and abs(minutes - round(minutes)) < 1e-6):
        return None
    hours, minute = divmod(round(minutes), 60)
    return f"{hours:02d}:{minute:02d}"


def _as_hours(clock: str) -> str:
    """A clock time as an hour of a range: ``9`` for ``09:00``, ``9:30`` for ``09:30``."""
    hours, minutes = clock.split(":")
    return str(int(hours)) if minutes == "00" else f"{int(hours)}:{minutes}"


def _excel_times(cleaned: str, text: str) -> CellError | None:
    """The problem of a cell whose ranges are fractions of a day (``0.375-0.75``, or
    ``0,375-0,75`` with decimal commas): Excel's numbers for times of day (09:00-18:00), which
    an hour range never holds; None for any other text."""
    if _DECIMAL_COMMA_RANGES.match(cleaned):
        cleaned = re.sub(r"0,(\d)", r"0.\1", cleaned)
    ranges = []
    for part in cleaned.split(","):
        match = _DAY_FRACTION_RANGE.match(part.strip())
        clocks = None if match is None else [_clock_time(float(m)) for m in match.groups()]
        if clocks is None or None in clocks:
            return None
        ranges.append([c for c in clocks if c is not None])
    times = ",".join("-".join(clocks) for clocks in ranges)
    hours = ",".join("-".join(_as_hours(c) for c in clocks) for clocks in ranges)
    return CellError(
        f"'{text}' holds times of day as Excel stores them, as fractions of a day ({times}), "
        "not hours: Excel turns times into such numbers in a cell not formatted as Text",
        f"format the active_hours column as Text, then write the range in hours ({hours})",
    )


def _excel_time_note(hours_text: str, written: str) -> tuple[str, str] | None:
    """A message and fix for an ``active_hours`` cell read as a number of hours below 1 that is
    also the fraction of a day Excel stores a time of day as (``0.375`` is 09:00, ``0.3333`` is
    08:00): the cell is read as the hours it says, and the note says how to give a time Excel
    changed. ``hours_text``: the cell as ``parse_active_hours`` reads it; ``written``: as the
    user wrote it (``0,375`` in a semicolon-separated file). None for any other cell."""
    try:
        hours = float(hours_text.strip())
    except ValueError:
        return None
    clock = _clock_time(hours) if 0 < hours < 1 else None
    if clock is None:
        return None
    return (
        f"'{written}' is read as {_number(round(hours, 4))} hours ({_number(round(hours * 60, 1))} "
        f"minutes) a day; it is also Excel's number for the time {clock}",
        "if Excel turned a time or an hour range typed in the cell into this number, format the "
        f"active_hours column as Text and write the hours ({_as_hours(clock)} for "
        f"{_as_hours(clock)} hours a day, or a range such as 9-17); if {written.strip()} hours a "
        "day is meant, leave it",
    )


def _hours_per_day(hours: float, kind: WorkloadKind, text: str) -> tuple[float, ...]:
    if not (math.isfinite(hours) and 0 < hours <= HOURS_PER_DAY):
        raise CellError(
            f"{text} hours per day is out of range", "enter above 0 and at most 24 hours"
        )
    start = DEFAULT_START_HOUR[kind]
    if start is None:
        return (hours / HOURS_PER_DAY,) * HOURS_PER_DAY
    schedule = [0.0] * HOURS_PER_DAY
    remaining = hours
    for offset in range(HOURS_PER_DAY):
        share = min(1.0, remaining)
        if share <= 0:
            break
        schedule[(start + offset) % HOURS_PER_DAY] = share
        remaining -= share
    return tuple(schedule)


def _shares(parts: list[str], text: str) -> tuple[float, ...]:
    fix = "give 24 shares from 0 to 1, hour 0 first, separated by spaces"
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise CellError(f"'{text}' is not 24 numbers", fix) from None
    if not all(0 <= v <= 1 for v in values):
        raise CellError("an hourly share is outside 0 to 1", fix)
    if not any(values):
        raise CellError("every hourly share is 0 (the class is never active)", fix)
    return values


def _ranges(cleaned: str, text: str) -> tuple[float, ...]:
    schedule = [0.0] * HOURS_PER_DAY
    # Lowercasing keeps the commas, so each range is quoted as written.
    for part, written in zip(cleaned.split(","), text.strip().split(","), strict=True):
        match = _RANGE.match(part.strip())
        if match is None:
            excel_error = (
                _excel_times(cleaned, text) or _excel_date(cleaned, text) or _time_of_day(text)
            )
            if excel_error is not None:
                raise excel_error
            raise CellError(
                f"'{text}' is not a number of hours or a list of hour ranges", _SCHEDULE_FIX
            )
        start, end = _range_ends(match, written.strip())
        if start == end or (start, end) == (HOURS_PER_DAY, 0):
            raise CellError(
                f"'{written.strip()}' starts and ends at the same hour",
                "write 24x7 for all day, or a range such as 9-17",
            )
        # A range whose end is before its start wraps past midnight (22-6 is 22-24 and 0-6).
        pieces = [(start, end)] if start < end else [(start, HOURS_PER_DAY), (0.0, end)]
        for low, high in pieces:
            for hour in range(HOURS_PER_DAY):
                overlap = min(high, hour + 1) - max(low, hour)
                if overlap > 0:
                    schedule[hour] += overlap
    if any(share > 1 + 1e-9 for share in schedule):
        raise CellError(f"the ranges in '{text}' overlap", "list each hour in one range only")
    return tuple(min(1.0, share) for share in schedule)


def _range_ends(match: re.Match[str], written: str) -> tuple[float, float]:
    """The start and end [hours from 0:00] of a range ``_RANGE`` matched: in 24-hour time
    (``9-17``, ``9:30-17:00:00``), or in 12-hour time with am or pm at both ends (``9am-5pm``,
    ``9 AM - 5:30 PM``). With am or pm at one end only (``9-5pm``) the range reads two ways
    and is refused naming both."""
    start_clock, end_clock = match.groups()[:4], match.groups()[4:]
    start_half, end_half = start_clock[3], end_clock[3]
    if (start_half is None) != (end_half is None):
        bare, given = (start_clock, end_clock) if start_half is None else (end_clock, start_clock)
        raise _one_half_given(bare, given, bare is start_clock, written)
    return _clock_hours(start_clock, written), _clock_hours(end_clock, written)


def _clock_hours(clock: Sequence[str | None], written: str) -> float:
    """A time of day matched by ``_CLOCK`` [hours from 0:00]: 24-hour time up to 24:00, or
    12-hour time (1 to 12) with am or pm, ``12am`` being 0:00 and ``12pm`` noon."""
    hour_text, minute_text, second_text, half = clock
    hour, minute, second = int(hour_text or 0), int(minute_text or 0), int(second_text or 0)
    if half is not None and not 1 <= hour <= _HALF_DAY_HOURS:
        raise CellError(
            f"'{written}' is not a time of day",
            "write hours 1 to 12 with am or pm (9am-5pm), or 0 to 24 without (9-17)",
        )
    if half is not None:
        hour = hour % _HALF_DAY_HOURS + (_HALF_DAY_HOURS if half == "p" else 0)
    hours = hour + minute / 60 + second / 3600
    if minute >= 60 or second >= 60 or hours > HOURS_PER_DAY:
        raise CellError(f"'{written}' is not a time of day", "use hours 0 to 24, e.g. 9-17")
    return hours


def _one_half_given(
    bare: Sequence[str | None], given: Sequence[str | None], bare_starts: bool, written: str
) -> CellError:
    """The problem of a range with am or pm at one end only (``9-5pm``): the other end may be
    am or pm, so each reading is named in 24-hour time and none is picked."""
    known = _clock_hours(given, written)
    shown_bare = ":".join(part for part in bare[:3] if part is not None)
    readings = []
    for half in ("a", "p"):
        if 1 <= int(bare[0] or 0) <= _HALF_DAY_HOURS:
            hours = _clock_hours((*bare[:3], half), written)
            ends = (hours, known) if bare_starts else (known, hours)
            range_text = "-".join(_hour_text(end) for end in ends)
            readings.append(f"{range_text} for {shown_bare}{half}m")
    if not readings:
        return CellError(
            f"'{written}' gives am or pm at one end only",
            "write am or pm at both ends (9am-5pm), or the range in 24-hour time (9-17)",
        )
    return CellError(
        f"'{written}' gives am or pm at one end only: {shown_bare} may be am or pm",
        f"write am or pm at both ends, or the range in 24-hour time: {' or '.join(readings)}",
    )


def _hour_text(hours: float) -> str:
    """An hour of a range as ``parse_active_hours`` reads it: ``9``, ``9:30``, ``21``."""
    hour, minute = divmod(round(hours * 60), 60)
    return str(hour) if minute == 0 else f"{hour}:{minute:02d}"


def _time_of_day(text: str) -> CellError | None:
    """The problem of a cell holding one time of day (``12:00:00 AM``, ``8:00``, ``9am``), as
    a spreadsheet saves a cell it stores as a time: no number of hours nor a range, and which
    it was meant to be is not guessed. None for any other text."""
    match = _TIME_OF_DAY.match(text.strip().lower())
    if match is None or (match[2] is None and match[4] is None):
        return None
    try:
        hours = _clock_hours(match.groups(), text.strip())
    except CellError:
        return None
    clock = f"{int(hours):02d}:{round(hours % 1 * 60):02d}"
    meant = (
        "24x7 if all day is meant"
        if hours in (0, HOURS_PER_DAY)
        else f"{_number(round(hours, 2))} if {_number(round(hours, 2))} hours a day are meant"
    )
    return CellError(
        f"'{text.strip()}' is a time of day ({clock}), not hours or a range: a spreadsheet "
        "saves a cell this way when it holds a time, as Excel makes of 8:00 typed in a cell "
        "not formatted as Text",
        f"format the active_hours column as Text, then write the hours per day ({meant}) "
        "or a range of hours (9-17)",
    )


def schedule_text(schedule: Sequence[float], kind: WorkloadKind) -> str:
    """The shortest ``active_hours`` text that ``parse_active_hours`` reads back as ``schedule``.

    ``24x7``; else hour ranges when every hour is fully on or off (``9-17``, ``22-6``); else a
    number of hours when the kind's default start gives the schedule; else 24 shares.
    """
    values = tuple(float(v) for v in schedule)
    if all(v == 1 for v in values):
        return "24x7"
    if all(v in (0, 1) for v in values) and any(values):
        return _ranges_text(values)
    hours = round(sum(values), 9)
    try:
        if _close_schedules(_hours_per_day(hours, kind, _number(hours)), values):
            return _number(hours)
    except CellError:
        pass
    return " ".join(_number(v) for v in values)


def _close_schedules(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b, strict=True))


def _ranges_text(values: Sequence[float]) -> str:
    """Runs of active hours as ranges; a run through midnight is one wrapping range (22-6)."""
    starts = [h for h in range(HOURS_PER_DAY) if values[h] and not values[h - 1]]
    ranges = []
    for start in starts:
        end = start
        while values[end % HOURS_PER_DAY] and end - start < HOURS_PER_DAY:
            end += 1
        ranges.append(f"{start}-{end if end <= HOURS_PER_DAY else end - HOURS_PER_DAY}")
    return ",".join(ranges)


def _number(value: float) -> str:
    """A number as the shortest text that reads back exactly (8, 2.5, 0.1)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _busy_fraction(text: str) -> float:
    """0-1, or a percentage such as ``35%``."""
    cleaned = text.strip()
    if cleaned.endswith("%"):
        percent = parse_float(cleaned[:-1].strip(), unit="%", minimum=0, maximum=100)
        return percent / 100
    try:
        return parse_float(cleaned, minimum=0, maximum=1)
    except CellError as error:
        raise CellError(
            error.message, "enter a share from 0 to 1, or a percentage such as 35%"
        ) from None


def _gpus(text: str) -> float:
    """A fraction of one GPU (0 < g <= 1) or a whole number of GPUs."""
    fix = "enter a fraction of one GPU above 0 and at most 1 (0.25), or whole GPUs (1, 2, 8)"
    try:
        value = parse_float(text, unit="GPUs", minimum=0, maximum=MAX_GPUS_PER_HOST)
    except CellError as error:
        raise CellError(error.message, fix) from None
    if value == 0:
        # The plan workbook's Workloads sheet lists a trace's pods without GPU with 0 GPUs.
        raise CellError(
            f"{text} GPUs: a class without GPU is not planned from a workload file",
            f"delete the row, or {fix}; pods without GPU are planned only from the trace's pod "
            "list itself (give it with --workloads, or on the Workloads page)",
        )
    if value > 1 and not value.is_integer():
        raise CellError(f"{text} GPUs is more than one GPU but not a whole number", fix)
    return value


MAX_SLOWDOWN_LIMIT = 100.0
"""Largest per-class slowdown limit accepted [-]; beyond it a limit means nothing."""


def _max_slowdown(text: str) -> float | None:
    """A runtime limit over bare metal, at least 1 (``1.5``); empty means the plan's default."""
    if not text.strip():
        return None
    fix = "enter a runtime limit of at least 1 (1.5 = up to 50 % slower), or leave it empty"
    try:
        return parse_float(text, unit="x bare metal", minimum=1, maximum=MAX_SLOWDOWN_LIMIT)
    except CellError as error:
        raise CellError(error.message, fix) from None


def _memory_share(text: str) -> float | None:
    """A share of one GPU's memory, above 0 and at most 1, or a percentage such as ``25%`` (as
    the plan workbook's Workloads sheet shows it); empty means ``memory_gib`` holds."""
    cleaned = text.strip()
    if not cleaned:
        return None
    fix = (
        "enter a share of one GPU's memory above 0 and at most 1 (0.25) or a percentage "
        "(25%), or leave it empty"
    )
    try:
        if cleaned.endswith("%"):
            percent = parse_float(
                cleaned[:-1].strip(), unit="%", minimum=0, minimum_inclusive=False, maximum=100
            )
            return percent / 100
        return parse_float(cleaned, minimum=0, minimum_inclusive=False, maximum=1)
    except CellError as error:
        raise CellError(error.message, fix) from None


def _kind(text: str) -> WorkloadKind:
    try:
        return WorkloadKind(text.strip().lower())
    except ValueError:
        allowed = ", ".join(k.value for k in WorkloadKind)
        shown = f"'{text}'" if text else "an empty cell"
        raise CellError(f"{shown} is not a workload kind", f"write one of {allowed}") from None


def _name(text: str) -> str:
    if not text:
        raise CellError("the name is empty", "give the class a unique name")
    if "#" in text:
        # Instance ids are name#1, name#2 ...: a # in the name would make them ambiguous.
        raise CellError(f"{quoted(text)} contains #", "remove the # from the name")
    return text


def _gpu_models(text: str, catalog: Catalog) -> tuple[str, ...]:
    """Models separated by ``|``, or by commas as the plan workbook's Workloads sheet lists
    them (a cell that is one model's name, a comma in it, is that model)."""
    models: list[str] = []
    listed = "|" not in text and "," in text and catalog.resolve(text.strip()) is None
    for part in text.split("," if listed else "|"):
        name = part.strip()
        if not name:
            continue
        try:
            model = catalog.gpu(name).name
        except UnknownGpuModel as error:
            raise CellError(
                error.message, error.fix + " (separate several models with |)"
            ) from None
        if model not in models:
            models.append(model)
    return tuple(models)


def load_workloads(
    source: Path | str | bytes, catalog: Catalog, *, file_name: str | None = None
) -> Loaded[tuple[WorkloadClass, ...]]:
    """Read a workload-mix CSV (a path, or an upload's bytes): one row per class of instances.

    Columns are ``WORKLOAD_COLUMNS`` (matched ignoring case and spaces), see
    ``docs/input-formats.md``; ``priority`` (default 2), ``gpu_models`` (default any) and
    ``notes`` (ignored) are optional. The plan workbook's Workloads sheet saved as CSV is read
    too: its headers in words (``WORKLOAD_SHEET_HEADERS``), a title above the header passed
    over and listed. Each bad cell is one problem in ``Loaded.problems`` and its row is
    skipped; good rows load. Raises ``InputError`` when the file cannot be used: not CSV,
    empty, a required column missing, no usable row, or two classes with one name.
    """
    name = source_name(source, file_name, "workloads.csv")
    table = read_csv_table(source, name, separators=SPREADSHEET_SEPARATORS, columns=WORKLOAD_TABLE)
    return _workloads(table, catalog)


def workloads_from_frame(
    frame: pd.DataFrame, catalog: Catalog, *, file_name: str
) -> Loaded[tuple[WorkloadClass, ...]]:
    """Validate a table (such as the dashboard's edited one) exactly as ``load_workloads`` does."""
    return _workloads(table_from_frame(frame, file_name, WORKLOAD_TABLE), catalog)


def workloads_frame(workloads: Sequence[WorkloadClass]) -> pd.DataFrame:
    """One row per class with ``WORKLOAD_COLUMNS``; ``workloads_from_frame`` reads it back equal.

    ``active_hours`` is ``schedule_text`` of the schedule; yes/no columns are ``yes``/``no``;
    ``gpu_models`` is ``|``-separated (empty for any model).
    """
    rows = [
        [
            w.name,
            w.kind.value,
            w.instances,
            w.gpus,
            w.memory_gib,
            w.busy_fraction,
            schedule_text(w.daily_schedule, w.kind),
            w.days_per_week,
            w.vcpus,
            w.ram_gib,
            yes_no(w.needs_live_migration),
            yes_no(w.needs_isolation),
            yes_no(w.latency_tolerant),
            w.priority,
            "|".join(w.gpu_models),
            "" if w.max_slowdown is None else _number(w.max_slowdown),
            "" if w.memory_share is None else _number(w.memory_share),
        ]
        for w in workloads
    ]
    frame = pd.DataFrame(rows, columns=list(WORKLOAD_COLUMNS))
    return frame.astype(
        {
            "instances": "int64",
            "gpus": "float64",
            "memory_gib": "float64",
            "busy_fraction": "float64",
            "days_per_week": "int64",
            "vcpus": "float64",
            "ram_gib": "float64",
            "priority": "int64",
        }
    )


def _workloads(table: Table, catalog: Catalog) -> Loaded[tuple[WorkloadClass, ...]]:
    problems = table.require_columns(REQUIRED_WORKLOAD_COLUMNS, _OPTIONAL, sheet=WORKLOAD_TABLE)
    loaded = read_rows(
        table,
        lambda row: _row_workload(table, row, catalog, problems),
        problems,
        no_rows="no usable workload row",
        fix="add at least one valid row (see data/templates/workloads_template.csv)",
    )
    # Two classes with one name would give two instances one id: the file is refused.
    refuse_repeated_names(
        table,
        ((row, [workload.name]) for row, workload in loaded),
        "name",
        lambda name, earlier, _: f"name {quoted(name)} is already used on row {earlier.number}",
        "give every class a unique name",
    )
    instances = sum(w.instances for _, w in loaded)
    if instances > MAX_INSTANCES:
        message = f"the workload mix has {limit_text(instances, MAX_INSTANCES, 'instances')}"
        fix = "plan one cluster or site at a time (one workload file each)"
        raise InputError([table.problem(None, None, message, fix)])
    return Loaded(tuple(w for _, w in loaded), tuple(problems))


def _row_workload(
    table: Table, row: Row, catalog: Catalog, problems: list[InputProblem]
) -> WorkloadClass | None:
    values = parse_cells(
        table,
        row,
        {
            "name": _name,
            "kind": _kind,
            "instances": lambda t: parse_int(t, unit="instances", minimum=1, maximum=MAX_INSTANCES),
            "gpus": _gpus,
            "memory_gib": lambda t: parse_float(
                t, unit="GiB", minimum=0, minimum_inclusive=False, maximum=8192
            ),
            "busy_fraction": _busy_fraction,
            "days_per_week": lambda t: parse_int(t, unit="days", minimum=1, maximum=7),
            "vcpus": lambda t: parse_float(t, unit="vCPUs", minimum=0, maximum=MAX_CORES),
            "ram_gib": lambda t: parse_float(t, unit="GiB", minimum=0, maximum=MAX_RAM_GIB),
            "live_migration": parse_bool,
            "isolation": parse_bool,
            "latency_tolerant": parse_bool,
            "priority": lambda t: parse_int(t, minimum=1, maximum=100, default=2),
            "gpu_models": lambda t: _gpu_models(t, catalog),
            "max_slowdown": _max_slowdown,
            "memory_share": _memory_share,
        },
        problems,
        numbers=_NUMBERS,
        units=_UNITS,
    )
    if values is None:
        # The schedule is checked only when the kind is known, so report it with the rest.
        _check_schedule_alone(table, row, problems)
        return None
    empty = ("the name holds only invisible characters", "give the class a name")
    where = partial(table.problem, row, "name")
    name = usable_name(values["name"], "class name", where, problems, empty=empty)
    if name is None:
        return None
    values["name"] = name
    hours = _schedule_text(table, row.get("active_hours"))
    try:
        schedule = parse_active_hours(hours, values["kind"])
    except CellError as error:
        problems.append(table.problem(row, "active_hours", error.message, error.fix))
        return None
    note = _excel_time_note(hours, row.get("active_hours"))
    if note is not None:
        problems.append(replace(table.problem(row, "active_hours", *note), row_kept=True))
    return WorkloadClass(
        name=values["name"],
        kind=values["kind"],
        instances=values["instances"],
        gpus=values["gpus"],
        memory_gib=values["memory_gib"],
        busy_fraction=values["busy_fraction"],
        daily_schedule=schedule,
        days_per_week=values["days_per_week"],
        vcpus=values["vcpus"],
        ram_gib=values["ram_gib"],
        needs_live_migration=values["live_migration"],
        needs_isolation=values["isolation"],
        latency_tolerant=values["latency_tolerant"],
        priority=values["priority"],
        gpu_models=values["gpu_models"],
        max_slowdown=values["max_slowdown"],
        memory_share=values["memory_share"],
    )


def _schedule_text(table: Table, text: str) -> str:
    """An ``active_hours`` cell as ``parse_active_hours`` reads it: its hours, or each of its 24
    shares, with this file's decimal mark (``0,5 1 …`` in a semicolon-separated file)."""
    parts = text.split()
    if len(parts) == HOURS_PER_DAY:
        return " ".join(table.number_text(part) for part in parts)
    return table.number_text(text)


def _check_schedule_alone(table: Table, row: Row, problems: list[InputProblem]) -> None:
    """Report a bad ``active_hours`` even when another cell of the row is bad too."""
    try:
        kind = _kind(row.get("kind"))
    except CellError:
        kind = WorkloadKind.TRAINING  # the kind only sets the start hour, not validity
    try:
        parse_active_hours(_schedule_text(table, row.get("active_hours")), kind)
    except CellError as error:
        problems.append(table.problem(row, "active_hours", error.message, error.fix))
