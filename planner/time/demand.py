"""Demand over a week: how many instances of each workload are active, step by step.

A week is 168 hours starting Monday 00:00, cut into ``steps_per_hour`` steps per hour (1, 2 or 4:
60, 30 or 15 minutes). A :class:`WeeklyCurve` gives, per step, the share of a class's instances that
are active [0-1]; :func:`weekly_demand` turns a class and a curve into active instances per step;
:func:`pool_vs_static` shows why a dynamic pool needs fewer GPUs than static reservations: a pool
follows the peak of the *combined* demand, static methods reserve every VM for its lifetime.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import numpy.typing as npt
import pandas as pd

from planner.inputs.limits import MAX_CURVE_FILE_MB
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import (
    CSV_TEXT,
    DECIMAL_COMMA,
    csv_header,
    csv_records,
    decode_file,
    refuse_large_file,
)
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadClass
from planner.scenario import Scenario
from planner.words import counted

__all__ = [
    "CURVE_PRESETS",
    "DAYS",
    "HOURS_PER_WEEK",
    "STEPS_PER_HOUR_ALLOWED",
    "PoolVsStatic",
    "WeeklyCurve",
    "curve_file_text",
    "curve_preset",
    "gpu_share_per_instance",
    "parse_curve",
    "pool_vs_static",
    "schedule_curve",
    "step_labels",
    "weekly_demand",
]

HOURS_PER_WEEK = 7 * HOURS_PER_DAY
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
"""Day names; step 0 of a week is Monday 00:00."""
STEPS_PER_HOUR_ALLOWED = (1, 2, 4)
"""Resolutions the planner supports: 60, 30 and 15 minutes per step."""

FloatArray = npt.NDArray[np.float64]


def _check_steps_per_hour(steps_per_hour: int) -> None:
    if steps_per_hour not in STEPS_PER_HOUR_ALLOWED:
        raise ValueError(
            f"steps_per_hour must be one of {STEPS_PER_HOUR_ALLOWED} (60, 30 or 15 minutes), "
            f"got {steps_per_hour!r}"
        )


@dataclass(frozen=True)
class WeeklyCurve:
    """Share of a class's instances active in each step of a week, Monday 00:00 first."""

    values: tuple[float, ...]
    """One value per step [0-1]; ``168 * steps_per_hour`` of them."""
    steps_per_hour: int = 1
    """Steps per hour: 1 (hourly), 2 (30 min) or 4 (15 min)."""
    name: str = ""
    """Preset name or where the curve came from."""

    def __post_init__(self) -> None:
        _check_steps_per_hour(self.steps_per_hour)
        expected = HOURS_PER_WEEK * self.steps_per_hour
        if len(self.values) != expected:
            raise ValueError(
                f"a weekly curve at {counted(self.steps_per_hour, 'step')} per hour needs "
                f"{expected} values, got {len(self.values)}"
            )
        bad = [v for v in self.values if not (0.0 <= v <= 1.0) or math.isnan(v)]
        if bad:
            raise ValueError(f"curve values are shares of instances [0-1]; got {bad[0]!r}")

    @classmethod
    def from_daily(
        cls,
        weekday: Sequence[float],
        weekend: Sequence[float] | None = None,
        *,
        name: str = "",
    ) -> WeeklyCurve:
        """A week from a 24-value weekday curve (Mon-Fri) and a weekend curve (Sat-Sun).

        With no ``weekend`` curve the weekday curve repeats all seven days.
        """
        weekend = weekday if weekend is None else weekend
        if len(weekday) != HOURS_PER_DAY or len(weekend) != HOURS_PER_DAY:
            raise ValueError("daily curves need 24 values, hour 0 (00:00-01:00) first")
        week = [*weekday] * 5 + [*weekend] * 2
        return cls(values=tuple(float(v) for v in week), steps_per_hour=1, name=name)

    def as_array(self) -> FloatArray:
        """The values as a float array, one per step."""
        return np.asarray(self.values, dtype=np.float64)

    def at_resolution(self, steps_per_hour: int) -> WeeklyCurve:
        """The same curve at another resolution.

        Finer: each value repeats over the steps of its period (demand is constant within it).
        Coarser: the mean of the finer steps, so active instance-hours are kept.
        """
        _check_steps_per_hour(steps_per_hour)
        if steps_per_hour == self.steps_per_hour:
            return self
        values = self.as_array()
        if steps_per_hour > self.steps_per_hour:
            factor = steps_per_hour // self.steps_per_hour
            if factor * self.steps_per_hour != steps_per_hour:
                raise ValueError(
                    f"cannot refine {self.steps_per_hour} to {steps_per_hour} steps per hour"
                )
            resampled = np.repeat(values, factor)
        else:
            factor = self.steps_per_hour // steps_per_hour
            if factor * steps_per_hour != self.steps_per_hour:
                raise ValueError(
                    f"cannot coarsen {self.steps_per_hour} to {steps_per_hour} steps per hour"
                )
            resampled = values.reshape(-1, factor).mean(axis=1)
        return WeeklyCurve(
            values=tuple(float(v) for v in resampled),
            steps_per_hour=steps_per_hour,
            name=self.name,
        )


# A typical VDI office concurrency curve, % of peak desktops:
# 6-8 h 5-10 %, 8-9 h 60-70 %, 9-11 h 100 %, 11-13 h 80-90 %, 13-15 h 95-100 %, 15-17 h 70→50 %,
# 17-20 h 30→10 %, 20-6 h 5-10 %. Within each range we take a point (a default the user can edit).
_VDI_WEEKDAY = (
    # 00-05: night floor
    0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
    # 06-07: early arrivals 5-10 %
    0.05, 0.10,
    # 08: 60-70 %
    0.65,
    # 09-10: 100 %
    1.00, 1.00,
    # 11-12: 80-90 %, lunch dip
    0.90, 0.80,
    # 13-14: 95-100 %
    0.95, 1.00,
    # 15-16: 70 → 50 %
    0.70, 0.55,
    # 17-19: 30 → 10 %
    0.30, 0.20, 0.10,
    # 20-23: 5-10 %
    0.10, 0.05, 0.05, 0.05,
)  # fmt: skip
# "Weekends low": the night floor all day (a default).
_VDI_WEEKEND = (0.05,) * HOURS_PER_DAY

# Notebooks: data scientists' working hours, a default shape (no public source).
_NOTEBOOK_WEEKDAY = (
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.05,
    0.30, 0.60, 0.80, 0.80, 0.50, 0.70, 0.80, 0.80,
    0.60, 0.40, 0.20, 0.10, 0.05, 0.0, 0.0, 0.0,
)  # fmt: skip
_NOTEBOOK_WEEKEND = (0.0,) * 8 + (0.05,) * 10 + (0.0,) * 6

# Inference: a service that runs 24×7 and scales with a daily request curve, a default shape.
_INFERENCE_WEEKDAY = (
    0.35, 0.30, 0.30, 0.30, 0.35, 0.40, 0.50, 0.65,
    0.80, 0.90, 0.95, 1.00, 1.00, 1.00, 0.95, 0.90,
    0.85, 0.80, 0.75, 0.70, 0.60, 0.50, 0.45, 0.40,
)  # fmt: skip
_INFERENCE_WEEKEND = tuple(0.7 * v for v in _INFERENCE_WEEKDAY)

# Batch at night: jobs run 20:00-06:00 every day.
_BATCH_NIGHT = tuple(1.0 if hour >= 20 or hour < 6 else 0.0 for hour in range(HOURS_PER_DAY))

CURVE_PRESETS: Mapping[str, WeeklyCurve] = MappingProxyType(
    {
        "vdi-office": WeeklyCurve.from_daily(_VDI_WEEKDAY, _VDI_WEEKEND, name="vdi-office"),
        "notebook-hours": WeeklyCurve.from_daily(
            _NOTEBOOK_WEEKDAY, _NOTEBOOK_WEEKEND, name="notebook-hours"
        ),
        "inference-daily": WeeklyCurve.from_daily(
            _INFERENCE_WEEKDAY, _INFERENCE_WEEKEND, name="inference-daily"
        ),
        "flat-24x7": WeeklyCurve.from_daily((1.0,) * HOURS_PER_DAY, name="flat-24x7"),
        "batch-at-night": WeeklyCurve.from_daily(_BATCH_NIGHT, name="batch-at-night"),
    }
)
"""Named weekly curves (hourly). ``vdi-office`` is the typical VDI concurrency curve above; the
others are default shapes."""


def curve_preset(name: str) -> WeeklyCurve:
    """The preset curve called ``name`` (see :data:`CURVE_PRESETS`)."""
    try:
        return CURVE_PRESETS[name]
    except KeyError:
        known = ", ".join(CURVE_PRESETS)
        raise ValueError(f"unknown curve preset {name!r}; choose one of: {known}") from None


_CURVE_LENGTHS = {HOURS_PER_DAY * s: (False, s) for s in STEPS_PER_HOUR_ALLOWED} | {
    HOURS_PER_WEEK * s: (True, s) for s in STEPS_PER_HOUR_ALLOWED
}
"""Accepted value counts -> (covers a whole week, steps per hour)."""

_SEPARATORS = re.compile(r"[\s,;]+")
_SEPARATORS_BUT_COMMA = re.compile(r"[\s;]+")
_FORMAT_FIX = (
    "give 24 values (one day, repeated every day) or 168 (Monday 00:00 to Sunday 23:00), or 4× "
    "that at 15-minute steps, as shares 0-1 or percentages 0-100, separated by commas, "
    "semicolons, spaces or new lines"
)


_CURVE_SIZE_FIX = (
    "give only the 24, 168 or 672 values of the curve, one per line or separated by commas"
)


def curve_file_text(data: bytes, file: str) -> str:
    """A file of curve values as text for ``parse_curve``: refused over ``MAX_CURVE_FILE_MB``
    before it is read (every token of a huge file would be parsed and listed), then decoded as
    every input is (``decode_file``)."""
    refuse_large_file(file, len(data), limit_mb=MAX_CURVE_FILE_MB, fix=_CURVE_SIZE_FIX)
    return decode_file(data, file, CSV_TEXT)


def parse_curve(text: str, *, source: str) -> WeeklyCurve:
    """Read a pasted or uploaded demand curve.

    Parameters
    ----------
    text
        Numbers separated by commas, semicolons, spaces or new lines. Either every value is a
        share of instances [0-1], or, as soon as one value is above 1 or carries a ``%`` sign,
        every value is a percentage [0-100]. Commas are decimal marks when no value has a point
        and the values are separated otherwise (``0,5;0,25`` or one ``0,5`` per line): read as
        separators, ``0,5;0,5`` would be the values 0 and 5 %, silently.
    source
        Name of the file or text box, used in error messages.

    Returns
    -------
    WeeklyCurve
        24 values (a day, repeated all week), 168 (a week), 48/336 (30-min steps) or 96/672
        (15-min steps).

    Raises
    ------
    InputError
        Naming the line and position of each value that is not a number or out of range, or the
        value count when it is not one of the accepted lengths.
    """
    problems: list[InputProblem] = []
    tokens: list[tuple[int, str]] = []
    # Pasted text is held to the file's limit too.
    refuse_large_file(source, len(text.encode()), limit_mb=MAX_CURVE_FILE_MB, fix=_CURVE_SIZE_FIX)
    text = _value_column(text, source)
    decimal_commas = _decimal_commas(text)
    separators = _SEPARATORS_BUT_COMMA if decimal_commas else _SEPARATORS
    for line_number, line in enumerate(text.splitlines(), start=1):
        tokens.extend((line_number, token) for token in separators.split(line) if token)
    if not tokens:
        raise InputError([InputProblem(source, None, None, "no values found", _FORMAT_FIX)])

    numbers: list[float] = []
    has_percent = False
    for position, (line_number, token) in enumerate(tokens, start=1):
        raw = token.rstrip("%")
        has_percent = has_percent or raw != token
        try:
            value = float(raw.replace(",", ".") if decimal_commas else raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            problems.append(
                InputProblem(
                    source,
                    line_number,
                    f"value {position}",
                    f"{token!r} is not a number",
                    "write a plain number such as 0.65 or 65%",
                )
            )
        numbers.append(value)

    percent = has_percent or any(v > 1.0 for v in numbers if math.isfinite(v))
    top = 100.0 if percent else 1.0
    for position, ((line_number, token), value) in enumerate(
        zip(tokens, numbers, strict=True), start=1
    ):
        if math.isfinite(value) and not (0.0 <= value <= top):
            scale = "percentages 0-100" if percent else "shares 0-1"
            problems.append(
                InputProblem(
                    source,
                    line_number,
                    f"value {position}",
                    f"{token!r} is outside {scale}",
                    "a share of instances active cannot be negative or above 100 %",
                )
            )

    if len(numbers) not in _CURVE_LENGTHS:
        problems.append(
            InputProblem(source, None, None, f"found {len(numbers)} values", _FORMAT_FIX)
        )
    if problems:
        raise InputError(problems)

    whole_week, steps_per_hour = _CURVE_LENGTHS[len(numbers)]
    shares = [v / top for v in numbers]
    if not whole_week:
        shares = shares * 7
    return WeeklyCurve(values=tuple(shares), steps_per_hour=steps_per_hour, name=source)


_CURVE_SEPARATORS = "\t;,"
"""Separators of a curve saved as a table: the header is read on the one that splits it into
the most cells, the first of them on a tie (``hour;share,%`` is the columns ``hour`` and
``share,%``)."""


def _value_column(text: str, source: str) -> str:
    """The curve's values as ``parse_curve`` reads them, when the file is a table with a
    header line (as a spreadsheet saves ``hour,share``): one column is the values; of two, the
    second (the first names the step). The header is found as every CSV reader finds it
    (``tabular.csv_header``: below blank lines and Excel's ``sep=;`` line, its cells unquoted),
    and a header of several cells reads its rows as CSV on its separator; a header of one cell
    without one reads them split at blanks. Lines keep their numbers, the header and the lines
    above it left blank. ``InputError`` for a table of more columns, or rows of another width
    than the header's."""
    found = csv_header(text, source, _CURVE_SEPARATORS)
    if found is None:
        return text
    lines = text.splitlines()
    above = [""] * (found.row - 1)
    names = [c.strip() for c in found.cells]
    if not _is_header(names):
        # A first line of values: the values start there, below any sep= line.
        return "\n".join(above + lines[found.row - 1 :])
    if len(names) > 1:
        reader = csv.reader(io.StringIO(text[found.start :], newline=""), delimiter=found.separator)
        records = csv_records(reader, source, found.row, numbered_by="line")
        rows = [(n, cells) for n, cells in records if any(c.strip() for c in cells)][1:]
    else:
        rows = [(n, line.split()) for n, line in enumerate(lines, start=1) if n > found.row]
        rows = [(n, cells) for n, cells in rows if cells]
    # A header of one cell may name one column in several words (``Active share``) or two
    # separated by a blank (``hour share``): the rows' cells tell the width.
    width = len(names) if len(names) > 1 or not rows else len(rows[0][1])
    if width > 2:
        raise InputError(
            [
                InputProblem(
                    source,
                    found.row,
                    None,
                    f"a table of {width} columns ({', '.join(names)})",
                    "give one column of values, or two: the step (hour) and its share",
                )
            ]
        )
    kept: dict[int, str] = {}
    for n, cells in rows:
        if len(cells) != width:
            raise InputError(
                [
                    InputProblem(
                        source,
                        n,
                        None,
                        f"{len(cells)} cells where the table ({', '.join(names)}) has {width}",
                        "give every row the table's columns: the step and its share",
                    )
                ]
            )
        kept[n] = cells[-1].strip()
    return "\n".join(kept.get(n, "") for n in range(1, max(kept, default=0) + 1))


def _is_header(names: Sequence[str]) -> bool:
    """Whether a table's first line names its columns: in plain words, none of them a number
    (nan and inf are) and none a formula or markup, which are values written wrong, not
    names."""
    words = [w for name in names for w in _SEPARATORS.split(name) if w]
    plain = all(_HEADER_WORD.fullmatch(w) and not _is_number(w) for w in words)
    first = names[0].lstrip()[:1] if names else ""
    return plain and any(_LETTER.search(n) for n in names) and first not in ("=", "+", "-", "@")


def _is_number(token: str) -> bool:
    try:
        float(token.rstrip("%"))
    except ValueError:
        return False
    return True


_LETTER = re.compile(r"[A-Za-z]")
_HEADER_WORD = re.compile(r"[\w%()\[\]./:'-]+")
"""A word a column name may be: letters, digits and the punctuation of units (``[MiB]``, ``%``)."""


def _decimal_commas(text: str) -> bool:
    """Whether the curve's commas are decimal marks: no value has a point, a value is written
    ``d,d``, and the values are separated by semicolons or are all written so."""
    tokens = [t for t in _SEPARATORS_BUT_COMMA.split(text) if t]
    if any("." in t for t in tokens):
        return False
    written = [bool(DECIMAL_COMMA.fullmatch(t.rstrip("%"))) for t in tokens]
    return any(written) and (";" in text or all(written))


def schedule_curve(workload: WorkloadClass) -> WeeklyCurve:
    """A class's own weekly curve: its ``daily_schedule`` on its first ``days_per_week`` days.

    Days run Monday first, so a 5-day class is active Monday to Friday and idle at the weekend.
    Training and batch classes have no separate duration field: a job that runs for days is a
    schedule of 1.0 on every day it runs.
    """
    if len(workload.daily_schedule) != HOURS_PER_DAY:
        raise ValueError(
            f"workload {workload.name!r}: daily_schedule needs 24 values, "
            f"got {len(workload.daily_schedule)}"
        )
    if not 0 <= workload.days_per_week <= 7:
        raise ValueError(
            f"workload {workload.name!r}: days_per_week must be 0-7, got {workload.days_per_week}"
        )
    idle = (0.0,) * HOURS_PER_DAY
    days = [workload.daily_schedule if d < workload.days_per_week else idle for d in range(7)]
    values = tuple(float(v) for day in days for v in day)
    return WeeklyCurve(values=values, steps_per_hour=1, name=f"{workload.name} schedule")


def weekly_demand(
    workload: WorkloadClass,
    *,
    curve: WeeklyCurve | None = None,
    steps_per_hour: int = 1,
) -> FloatArray:
    """Active instances of ``workload`` in each step of a week [instances].

    ``active[t] = instances × share[t]``, where ``share`` is ``curve`` (resampled to
    ``steps_per_hour``) or, without one, the class's own schedule (:func:`schedule_curve`).
    The result is an expected count and may be fractional.
    """
    _check_steps_per_hour(steps_per_hour)
    shape = schedule_curve(workload) if curve is None else curve
    return workload.instances * shape.at_resolution(steps_per_hour).as_array()


def step_labels(steps_per_hour: int = 1) -> list[str]:
    """``Mon 00:00`` ... ``Sun 23:45``: the start of each step of a week."""
    _check_steps_per_hour(steps_per_hour)
    minutes = 60 // steps_per_hour
    labels = []
    for step in range(HOURS_PER_WEEK * steps_per_hour):
        hour, part = divmod(step, steps_per_hour)
        day, hour_of_day = divmod(hour, HOURS_PER_DAY)
        labels.append(f"{DAYS[day]} {hour_of_day:02d}:{part * minutes:02d}")
    return labels


def _class_gpu_model(workload: WorkloadClass, scenario: Scenario) -> str:
    """The model a class is sized on: its first allowed model in the inventory, else the
    inventory's most common model, else its first allowed model in the catalog."""
    owned = scenario.inventory.gpus_by_model()
    for model in workload.gpu_models:
        if model in owned and model in scenario.catalog.gpus:
            return model
    in_catalog = {m: n for m, n in owned.items() if m in scenario.catalog.gpus}
    if not workload.gpu_models and in_catalog:
        return max(in_catalog, key=lambda m: in_catalog[m])
    for model in workload.gpu_models:
        if model in scenario.catalog.gpus:
            return model
    raise ValueError(
        f"workload {workload.name!r}: none of its GPU models {list(workload.gpu_models)} "
        "is in the catalog or inventory; add the model or clear the class's gpu_models"
    )


def gpu_share_per_instance(workload: WorkloadClass, scenario: Scenario) -> float:
    """GPUs one instance of the class holds [GPUs]: the larger of its ``gpus`` and its memory
    over the memory of the GPU model it is sized on."""
    model = scenario.catalog.gpus[_class_gpu_model(workload, scenario)]
    return max(workload.gpus, workload.memory_gib / model.memory_gib)


@dataclass(frozen=True, eq=False)
class PoolVsStatic:
    """GPU demand over a week per class and combined, and what static reservation would need."""

    demand_gpus: pd.DataFrame
    """One row per step (index: ``Mon 00:00`` ...), one column per class plus ``combined``:
    GPUs held by the active instances [GPUs, fractional by memory share]."""
    steps_per_hour: int
    combined_peak_gpus: float
    """Peak of the combined curve: what a dynamic (remote) pool must hold [GPUs]."""
    sum_of_peaks_gpus: float
    """Sum of each class's own peak: sizing every class for its peak separately [GPUs]."""
    static_gpus: float
    """Every instance reserved for its VM's lifetime, as static methods do [GPUs]."""
    peak_step: str
    """Label of the step where the combined curve peaks."""

    @property
    def pool_saving_gpus(self) -> float:
        """GPUs a pool saves over per-class peaks [GPUs]."""
        return self.sum_of_peaks_gpus - self.combined_peak_gpus


def pool_vs_static(
    scenario: Scenario,
    *,
    curves: Mapping[str, WeeklyCurve] | None = None,
    steps_per_hour: int = 1,
) -> PoolVsStatic:
    """Compare the peak of the combined demand with the sum of per-class peaks.

    Per step ``t`` and class ``c``: ``gpus[c, t] = active[c, t] × share_c`` with ``share_c`` from
    :func:`gpu_share_per_instance`. A remote pool allocates when an application starts and
    releases at exit, so it needs ``max_t Σ_c gpus[c, t]``; sizing each class alone needs
    ``Σ_c max_t gpus[c, t]``; static methods reserve ``Σ_c instances_c × share_c`` all week.

    ``curves`` maps class names to curves that replace their schedules.
    """
    _check_steps_per_hour(steps_per_hour)
    curves = curves or {}
    labels = step_labels(steps_per_hour)
    columns: dict[str, FloatArray] = {}
    static = 0.0
    for workload in scenario.workloads:
        share = gpu_share_per_instance(workload, scenario)
        active = weekly_demand(
            workload, curve=curves.get(workload.name), steps_per_hour=steps_per_hour
        )
        columns[workload.name] = active * share
        static += workload.instances * share
    frame = pd.DataFrame(columns, index=pd.Index(labels, name="step"))
    combined = frame.sum(axis=1) if columns else pd.Series(0.0, index=frame.index)
    frame["combined"] = combined
    peak_position = int(np.argmax(combined.to_numpy()))
    return PoolVsStatic(
        demand_gpus=frame,
        steps_per_hour=steps_per_hour,
        combined_peak_gpus=float(combined.max()),
        sum_of_peaks_gpus=float(sum(float(col.max()) for col in columns.values())),
        static_gpus=static,
        peak_step=labels[peak_position],
    )
