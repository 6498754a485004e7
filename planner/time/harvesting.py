"""Cycle harvesting: ML batch work on the GPUs that serve VDI desktops, when desktops are idle.

Desktops hold priority (vSphere shares 100 vs 1): in every step the desktops active take the GPUs
they need first, and an ML backlog runs on what is left. When desktops return, ML jobs are
suspended (checkpointed jobs lose nothing, thanks to vSphere suspend/resume of vGPU VMs) or killed
(jobs that cannot checkpoint lose the work done since they started and start over).

The model, per step ``t`` of length ``dt`` hours over ``weeks`` simulated weeks:

- ``vdi[t] = min(demand[t], pool)`` GPUs serve desktops; ``free[t] = pool − vdi[t]``.
- Jobs (``gpus_per_job`` GPUs each, ``gpu_hours_per_job`` of work) are submitted at
  ``submit_hour`` on each submit day and queue first in, first out.
- ``k = ⌊free[t] / gpus_per_job⌋`` jobs may hold GPUs in step ``t``. Jobs already running keep
  running, oldest submission first; if more than ``k`` run, the newest are interrupted; if fewer,
  the oldest waiting jobs start (or resume).
- A running job does ``min(remaining, gpus_per_job × dt)`` GPU-hours of work in the step; a job
  that finishes part-way through the step frees its GPUs at the next step.

Figures are read from the last simulated week, so work carried over from earlier weeks counts;
one more week of capacity without new submissions lets that week's batches finish, so their
turnaround is measured. The same job stream on dedicated GPUs (no desktops) sizes what
harvesting replaces: the fewest dedicated GPUs that keep up with it.
A job's GPUs are counted in the pool as a whole; the model does not check they sit on one host.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from planner.inputs.limits import MAX_HARVEST_JOBS_PER_DAY
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadKind
from planner.measure.costs import amortised_usd_per_year, gpu_power_w, power_usd_per_year
from planner.methods.registry import METHODS, Method
from planner.methods.vgpu import max_per_gpu as vgpu_max_per_gpu
from planner.scenario import Scenario
from planner.solve.packing import plan_method
from planner.time.demand import (
    CURVE_PRESETS,
    DAYS,
    HOURS_PER_WEEK,
    STEPS_PER_HOUR_ALLOWED,
    WeeklyCurve,
    step_labels,
    weekly_demand,
)
from planner.words import counted

__all__ = [
    "HarvestResult",
    "HarvestSettings",
    "NoDesktopPoolError",
    "Turnaround",
    "VdiGroup",
    "VdiPool",
    "check_settings",
    "harvest_given_pool",
    "harvest_scenario",
    "harvest_summary",
    "harvest_tables",
    "plan_harvest_tables",
    "simulate_harvest",
    "utilisation_by_hour",
    "vdi_pool",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_EPS_GPU_HOURS = 1e-9
"""Work below this is treated as none left [GPU-hours] (guards float round-off)."""


@dataclass(frozen=True)
class HarvestSettings:
    """The ML backlog and how it runs on harvested VDI GPUs."""

    backlog_gpu_hours_per_day: float = 100.0
    """ML work submitted on each submit day [GPU-hours/day] (a default; edit it)."""
    submit_hour: float = 17.0
    """Hour of day the day's backlog is submitted [h, 0-24), e.g. 17.0 for 17:00."""
    gpus_per_job: int = 1
    """GPUs one job holds while it runs [GPUs]."""
    gpu_hours_per_job: float = 8.0
    """Work in one job [GPU-hours]; it runs ``gpu_hours_per_job / gpus_per_job`` hours."""
    checkpointing: bool = True
    """Jobs checkpoint and resume where they stopped; False: they restart from scratch."""
    submit_days: tuple[int, ...] = (0, 1, 2, 3, 4)
    """Days that submit work, 0 = Monday ... 6 = Sunday."""
    resolution_minutes: int = 60
    """Step length [min]: 60, 30 or 15."""
    weeks: int = 2
    """Weeks simulated; figures come from the last, so work carried over counts [weeks]."""

    @property
    def steps_per_hour(self) -> int:
        """Steps per hour at this resolution."""
        return 60 // self.resolution_minutes

    @property
    def job_hours(self) -> float:
        """Wall-clock hours one uninterrupted job runs [h]."""
        return self.gpu_hours_per_job / self.gpus_per_job

    @property
    def submitted_gpu_hours_per_week(self) -> float:
        """ML work submitted per week [GPU-hours/week]."""
        return self.backlog_gpu_hours_per_day * len(set(self.submit_days))


def check_settings(settings: HarvestSettings) -> None:
    """Raise ValueError naming the first setting that breaks its rule."""
    allowed = [60 // s for s in STEPS_PER_HOUR_ALLOWED]
    if settings.resolution_minutes not in allowed:
        raise ValueError(
            f"resolution_minutes must be one of {allowed}, got {settings.resolution_minutes}"
        )
    if not (math.isfinite(settings.backlog_gpu_hours_per_day)) or (
        settings.backlog_gpu_hours_per_day < 0
    ):
        raise ValueError(
            "backlog_gpu_hours_per_day must be a number >= 0 [GPU-hours/day], "
            f"got {settings.backlog_gpu_hours_per_day}"
        )
    if settings.gpus_per_job < 1:
        raise ValueError(f"gpus_per_job must be at least 1, got {settings.gpus_per_job}")
    if not (math.isfinite(settings.gpu_hours_per_job)) or settings.gpu_hours_per_job <= 0:
        raise ValueError(
            f"gpu_hours_per_job must be a number > 0 [GPU-hours], got {settings.gpu_hours_per_job}"
        )
    jobs_per_day = math.ceil(settings.backlog_gpu_hours_per_day / settings.gpu_hours_per_job)
    if jobs_per_day > MAX_HARVEST_JOBS_PER_DAY:
        raise ValueError(
            f"a backlog of {settings.backlog_gpu_hours_per_day:,.0f} GPU-hours/day in jobs of "
            f"{settings.gpu_hours_per_job:g} GPU-hours is {jobs_per_day:,} jobs a day, over the "
            f"limit of {MAX_HARVEST_JOBS_PER_DAY:,} jobs a day; lower the backlog or make jobs "
            "larger"
        )
    if not 0 <= settings.submit_hour < HOURS_PER_DAY:
        raise ValueError(f"submit_hour must be in [0, 24), got {settings.submit_hour}")
    offset = settings.submit_hour * settings.steps_per_hour
    if abs(offset - round(offset)) > 1e-9:
        raise ValueError(
            f"submit_hour {settings.submit_hour} does not start a "
            f"{settings.resolution_minutes}-minute step; use a finer resolution or round the hour"
        )
    bad_days = [d for d in settings.submit_days if not 0 <= d <= 6]
    if bad_days:
        raise ValueError(f"submit_days are 0 (Monday) to 6 (Sunday), got {bad_days[0]}")
    if settings.weeks < 1:
        raise ValueError(f"weeks must be at least 1, got {settings.weeks}")


@dataclass(frozen=True)
class Turnaround:
    """When one day's batch, submitted at the submit hour, is done."""

    day: str
    """Day the batch was submitted (``Mon`` ...)."""
    submitted_hour: float
    """Hour of the week the batch was submitted [h since Monday 00:00 of the reported week]."""
    hours: float | None
    """Hours from submission until its last job finishes [h]; None if not done in the
    simulated weeks."""

    @property
    def finished_hour(self) -> float | None:
        """Hour of the week the batch finished [h since Monday 00:00]; may pass 168."""
        return None if self.hours is None else self.submitted_hour + self.hours


@dataclass(frozen=True)
class _QueueRun:
    """Per-step and per-job traces of one queue simulation (all simulated weeks)."""

    ml_gpus: IntArray
    harvested_gpu_hours: FloatArray
    lost_gpu_hours: FloatArray
    backlog_gpu_hours: FloatArray
    interruptions: IntArray
    finish_hour: FloatArray
    """Per job, hour it finished since the start of the simulation; NaN if never [h]."""
    stop_step: IntArray
    """Per stop, the step a job was interrupted in, ascending; a job stopped twice is in twice."""
    stopped_job: IntArray
    """Per stop, the job interrupted (its index in the job stream)."""

    def jobs_stopped_in(self, steps: slice) -> int:
        """Distinct jobs stopped at least once in ``steps`` [jobs]; later stops do not hide them."""
        first, end = np.searchsorted(self.stop_step, [steps.start, steps.stop])
        return int(np.unique(self.stopped_job[first:end]).size)


def _run_queue(
    free_gpus: IntArray,
    submit_step: IntArray,
    work_gpu_hours: FloatArray,
    *,
    gpus_per_job: int,
    step_hours: float,
    checkpointing: bool,
) -> _QueueRun:
    """Run a FIFO queue of equal-width jobs on ``free_gpus[t]`` GPUs per step.

    ``submit_step`` must be sorted ascending. Vectorised over jobs; one pass over the steps.
    """
    n_steps = len(free_gpus)
    n_jobs = len(work_gpu_hours)
    remaining = work_gpu_hours.copy()
    running = np.zeros(n_jobs, dtype=bool)
    done = np.zeros(n_jobs, dtype=bool)
    finish_hour = np.full(n_jobs, np.nan)
    # Every stop as (step, job), so a job stopped in a week counts there whatever follows.
    stop_steps: list[IntArray] = [np.zeros(0, dtype=np.int64)]
    stopped_jobs: list[IntArray] = [np.zeros(0, dtype=np.int64)]
    ml_gpus = np.zeros(n_steps, dtype=np.int64)
    harvested = np.zeros(n_steps)
    lost = np.zeros(n_steps)
    backlog = np.zeros(n_steps)
    interruptions = np.zeros(n_steps, dtype=np.int64)
    work_per_step = gpus_per_job * step_hours
    submitted_by = np.searchsorted(submit_step, np.arange(n_steps), side="right")
    first_open = 0  # every job before it is done
    for t in range(n_steps):
        last = int(submitted_by[t])
        while first_open < last and done[first_open]:
            first_open += 1
        if first_open == last:
            continue
        window = slice(first_open, last)
        running_now = np.flatnonzero(running[window]) + first_open
        slots = int(free_gpus[t]) // gpus_per_job
        if len(running_now) > slots:
            # Desktops return: the newest jobs give their GPUs back.
            stopped = running_now[slots:]
            running[stopped] = False
            interruptions[t] = len(stopped)
            stop_steps.append(np.full(len(stopped), t, dtype=np.int64))
            stopped_jobs.append(stopped)
            if not checkpointing:
                # Without a checkpoint a job loses all work since it (re)started.
                lost[t] = float(np.sum(work_gpu_hours[stopped] - remaining[stopped]))
                remaining[stopped] = work_gpu_hours[stopped]
        elif len(running_now) < slots:
            waiting = np.flatnonzero(~running[window] & ~done[window]) + first_open
            running[waiting[: slots - len(running_now)]] = True
        active = np.flatnonzero(running[window]) + first_open
        ml_gpus[t] = len(active) * gpus_per_job
        step_work = np.minimum(remaining[active], work_per_step)
        remaining[active] -= step_work
        harvested[t] = float(step_work.sum())
        finishing = remaining[active] <= _EPS_GPU_HOURS
        finished = active[finishing]
        # A job that ends part-way through the step finishes at its share of the step.
        finish_hour[finished] = t * step_hours + step_work[finishing] / gpus_per_job
        remaining[finished] = 0.0
        done[finished] = True
        running[finished] = False
        backlog[t] = float(remaining[window].sum())
    return _QueueRun(
        ml_gpus=ml_gpus,
        harvested_gpu_hours=harvested,
        lost_gpu_hours=lost,
        backlog_gpu_hours=backlog,
        interruptions=interruptions,
        finish_hour=finish_hour,
        stop_step=np.concatenate(stop_steps),
        stopped_job=np.concatenate(stopped_jobs),
    )


@dataclass(frozen=True)
class _JobStream:
    """Every job submitted over the simulated weeks, in submission order."""

    submit_step: IntArray
    work_gpu_hours: FloatArray
    batch: IntArray
    """Per job, index of its batch in ``batches``."""
    batches: tuple[tuple[int, int], ...]
    """(week, day) of each batch, in submission order."""


def _job_stream(settings: HarvestSettings) -> _JobStream:
    """Jobs of ``gpu_hours_per_job`` each, plus one smaller job for any remainder, per batch."""
    steps_per_day = HOURS_PER_DAY * settings.steps_per_hour
    offset = round(settings.submit_hour * settings.steps_per_hour)
    full_jobs = math.floor(settings.backlog_gpu_hours_per_day / settings.gpu_hours_per_job + 1e-9)
    remainder = settings.backlog_gpu_hours_per_day - full_jobs * settings.gpu_hours_per_job
    sizes = [settings.gpu_hours_per_job] * full_jobs
    if remainder > _EPS_GPU_HOURS:
        sizes.append(remainder)
    batches = tuple(
        (week, day) for week in range(settings.weeks) for day in sorted(set(settings.submit_days))
    )
    per_batch = len(sizes)
    submit = np.repeat(
        np.array([(week * 7 + day) * steps_per_day + offset for week, day in batches], np.int64),
        per_batch,
    )
    work = np.tile(np.asarray(sizes, dtype=np.float64), len(batches))
    batch = np.repeat(np.arange(len(batches), dtype=np.int64), per_batch)
    return _JobStream(submit, work, batch, batches)


def _turnarounds(
    stream: _JobStream, finish_hour: FloatArray, settings: HarvestSettings
) -> tuple[Turnaround, ...]:
    """Turnaround of each batch submitted in the last simulated week."""
    last_week = settings.weeks - 1
    result = []
    for index, (week, day) in enumerate(stream.batches):
        if week != last_week:
            continue
        jobs = stream.batch == index
        if not jobs.any():
            continue  # nothing submitted (a zero backlog): no batch to wait for
        submitted = float(stream.submit_step[jobs][0]) / settings.steps_per_hour
        finishes = finish_hour[jobs]
        hours = None if np.isnan(finishes).any() else float(finishes.max()) - submitted
        week_start = last_week * HOURS_PER_WEEK
        result.append(Turnaround(DAYS[day], submitted - week_start, hours))
    return tuple(result)


def _worst(turnarounds: Sequence[Turnaround]) -> float | None:
    """Longest turnaround; None when there is none or one batch never finished."""
    if not turnarounds or any(t.hours is None for t in turnarounds):
        return None
    return max(t.hours for t in turnarounds if t.hours is not None)


def _backlog_growth(run: _QueueRun, week: slice) -> float:
    """Backlog at the end of ``week`` minus at the end of the week before [GPU-hours]."""
    end = float(run.backlog_gpu_hours[week.stop - 1])
    before = float(run.backlog_gpu_hours[week.start - 1]) if week.start > 0 else 0.0
    return end - before


def _dedicated(
    stream: _JobStream,
    settings: HarvestSettings,
    n_steps: int,
    week: slice,
    *,
    useful: float,
    keeps_up: bool,
) -> tuple[int, _QueueRun | None]:
    """The fewest dedicated GPUs (a multiple of ``gpus_per_job``) that match harvesting.

    When harvesting keeps up with the backlog, the dedicated GPUs must keep up too (their
    backlog does not grow week over week); when it does not, they must do at least the same
    useful work in the week. The search starts at the bound no packing can beat,
    ``ceil(useful / 168 h)``, gallops up and halves back, so it needs few queue runs.
    """
    width = settings.gpus_per_job
    if useful <= _EPS_GPU_HOURS:
        return 0, None
    step_hours = 1.0 / settings.steps_per_hour

    def run_on(gpus: int) -> _QueueRun:
        return _run_queue(
            np.full(n_steps, gpus, dtype=np.int64),
            stream.submit_step,
            stream.work_gpu_hours,
            gpus_per_job=width,
            step_hours=step_hours,
            checkpointing=True,
        )

    def enough(run: _QueueRun) -> bool:
        if keeps_up:
            return _backlog_growth(run, week) <= _EPS_GPU_HOURS
        return float(run.harvested_gpu_hours[week].sum()) >= useful - 1e-6

    lower = width * math.ceil(math.ceil(useful / HOURS_PER_WEEK - 1e-9) / width)
    runs: dict[int, _QueueRun] = {}
    gap = width
    candidate = lower
    # Every job of every batch at once always keeps up, so the search ends.
    ceiling = max(lower, width * len(stream.work_gpu_hours))
    while True:
        runs[candidate] = run_on(candidate)
        if enough(runs[candidate]) or candidate >= ceiling:
            break
        failed = candidate
        candidate = min(candidate + gap, ceiling)
        gap *= 2
    if candidate > lower:
        # Halve back between the last failing and the first passing count.
        low, high = failed, candidate
        while high - low > width:
            middle = low + width * ((high - low) // width // 2)
            runs[middle] = run_on(middle)
            if enough(runs[middle]):
                high = middle
            else:
                low = middle
        candidate = high
    return candidate, runs[candidate]


@dataclass(frozen=True, eq=False)
class HarvestResult:
    """What harvesting gives over one week (the last simulated). Per-step arrays start Monday
    00:00 and have ``168 × steps_per_hour`` entries."""

    settings: HarvestSettings
    pool_gpus: int
    """GPUs that serve desktops and are harvested [GPUs]."""
    vdi_demand_gpus: FloatArray
    """GPUs the active desktops ask for, per step [GPUs]."""
    vdi_gpus: FloatArray
    """GPUs serving desktops, per step: ``min(demand, pool)`` [GPUs]."""
    ml_gpus: FloatArray
    """GPUs held by ML jobs, per step [GPUs]."""
    harvested_gpu_hours: FloatArray
    """ML work done per step, including work later lost to restarts [GPU-hours]."""
    lost_gpu_hours: FloatArray
    """Work thrown away by restarts, at the step the job was stopped [GPU-hours]."""
    backlog_gpu_hours: FloatArray
    """ML work submitted and not yet done, at the end of each step [GPU-hours]."""
    interruptions: FloatArray
    """Jobs stopped because desktops returned, per step [jobs]."""
    jobs_interrupted_per_week: int
    """Distinct jobs stopped at least once in the week [jobs]."""
    turnarounds: tuple[Turnaround, ...]
    """When each batch submitted in the week was done; empty when nothing is submitted."""
    backlog_growth_gpu_hours_per_week: float
    """Backlog at the end of the week minus a week earlier [GPU-hours/week]; above 0 the pool
    cannot keep up."""
    dedicated_gpus: int
    """The fewest dedicated GPUs that match harvesting: they keep up with the same submissions
    when harvesting does, else do the same useful work per week [GPUs]."""
    dedicated_turnarounds: tuple[Turnaround, ...]
    """Turnarounds of the same batches on ``dedicated_gpus`` dedicated GPUs."""
    dedicated_usd_per_gpu_year: float | None = None
    """Annual cost of one dedicated GPU [USD/year]; None when not known."""
    notes: tuple[str, ...] = field(default=())

    @property
    def steps_per_hour(self) -> int:
        return self.settings.steps_per_hour

    @property
    def step_hours(self) -> float:
        """Length of a step [h]."""
        return 1.0 / self.steps_per_hour

    @property
    def idle_gpus(self) -> FloatArray:
        """GPUs doing nothing, per step [GPUs]."""
        return self.pool_gpus - self.vdi_gpus - self.ml_gpus

    @property
    def harvested_gpu_hours_per_week(self) -> float:
        """ML work done in the week, lost work included [GPU-hours/week]."""
        return float(self.harvested_gpu_hours.sum())

    @property
    def lost_gpu_hours_per_week(self) -> float:
        """Work thrown away by restarts in the week [GPU-hours/week]."""
        return float(self.lost_gpu_hours.sum())

    @property
    def useful_gpu_hours_per_week(self) -> float:
        """Harvested work that counts: done minus lost [GPU-hours/week]."""
        return self.harvested_gpu_hours_per_week - self.lost_gpu_hours_per_week

    @property
    def harvested_gpu_hours_by_day(self) -> FloatArray:
        """ML work done on each day, Monday first [GPU-hours/day]."""
        by_day: FloatArray = self.harvested_gpu_hours.reshape(7, -1).sum(axis=1)
        return by_day

    @property
    def interruptions_per_week(self) -> int:
        """Times a job was stopped because desktops returned [stops/week]."""
        return int(self.interruptions.sum())

    @property
    def utilisation_before(self) -> float:
        """Share of pool GPU-time serving desktops [0-1]."""
        return float(self.vdi_gpus.mean() / self.pool_gpus) if self.pool_gpus else 0.0

    @property
    def utilisation_after(self) -> float:
        """Share of pool GPU-time serving desktops or ML [0-1]."""
        if not self.pool_gpus:
            return 0.0
        return float((self.vdi_gpus + self.ml_gpus).mean() / self.pool_gpus)

    @property
    def vdi_shortfall_gpu_hours_per_week(self) -> float:
        """Desktop demand above the pool [GPU-hours/week]; above 0 the pool is too small."""
        short = np.maximum(self.vdi_demand_gpus - self.pool_gpus, 0.0)
        return float(short.sum() * self.step_hours)

    @property
    def turnaround_hours(self) -> float | None:
        """Longest batch turnaround in the week [h]; None if a batch was not done."""
        return _worst(self.turnarounds)

    @property
    def dedicated_turnaround_hours(self) -> float | None:
        """Longest turnaround of the same batches on the dedicated GPUs [h]."""
        return _worst(self.dedicated_turnarounds)

    @property
    def dedicated_usd_per_year(self) -> float | None:
        """What the dedicated GPUs harvesting replaces cost per year [USD/year]."""
        if self.dedicated_usd_per_gpu_year is None:
            return None
        return self.dedicated_gpus * self.dedicated_usd_per_gpu_year

    @property
    def keeps_up(self) -> bool:
        """The backlog does not grow week over week."""
        return self.backlog_growth_gpu_hours_per_week <= 1e-6


def simulate_harvest(
    pool_gpus: int,
    vdi_demand_gpus: npt.ArrayLike,
    settings: HarvestSettings,
    *,
    dedicated_usd_per_gpu_year: float | None = None,
) -> HarvestResult:
    """Simulate an ML backlog on the VDI GPUs desktops leave idle.

    Parameters
    ----------
    pool_gpus
        GPUs serving desktops [GPUs], >= 0.
    vdi_demand_gpus
        GPUs the active desktops need in each step of a week [GPUs], ``168 × steps_per_hour``
        values >= 0, Monday 00:00 first; repeated every simulated week. Fractions are rounded up:
        a GPU with any active desktop is not free.
    settings
        The backlog and how it runs.
    dedicated_usd_per_gpu_year
        Annual cost of one dedicated GPU [USD/year], to price the GPUs harvesting replaces.

    Returns
    -------
    HarvestResult
        Figures for the last simulated week, and the same job stream on dedicated GPUs.
    """
    check_settings(settings)
    if pool_gpus < 0:
        raise ValueError(f"pool_gpus must be >= 0, got {pool_gpus}")
    demand = np.asarray(vdi_demand_gpus, dtype=np.float64)
    steps_per_week = HOURS_PER_WEEK * settings.steps_per_hour
    if demand.shape != (steps_per_week,):
        raise ValueError(
            f"vdi_demand_gpus needs {steps_per_week} values (a week at "
            f"{settings.resolution_minutes}-minute steps), got shape {demand.shape}"
        )
    if not np.isfinite(demand).all() or (demand < 0).any():
        raise ValueError("vdi_demand_gpus must be finite and >= 0 [GPUs]")

    # A GPU with any active desktop on it is not free for ML.
    vdi = np.minimum(np.ceil(demand - 1e-9), pool_gpus)
    free_week = (pool_gpus - vdi).astype(np.int64)
    # One more week of capacity, with no new submissions, lets the last week's batches finish
    # so their turnaround can be measured; older jobs never wait for newer ones (FIFO).
    free = np.tile(free_week, settings.weeks + 1)
    stream = _job_stream(settings)
    step_hours = 1.0 / settings.steps_per_hour
    run = _run_queue(
        free,
        stream.submit_step,
        stream.work_gpu_hours,
        gpus_per_job=settings.gpus_per_job,
        step_hours=step_hours,
        checkpointing=settings.checkpointing,
    )
    last = slice((settings.weeks - 1) * steps_per_week, settings.weeks * steps_per_week)
    growth = _backlog_growth(run, last)
    useful = float(run.harvested_gpu_hours[last].sum() - run.lost_gpu_hours[last].sum())
    dedicated, on_dedicated = _dedicated(
        stream, settings, len(free), last, useful=useful, keeps_up=growth <= _EPS_GPU_HOURS
    )
    dedicated_turnarounds = (
        () if on_dedicated is None else _turnarounds(stream, on_dedicated.finish_hour, settings)
    )

    notes = []
    shortfall = np.maximum(demand - pool_gpus, 0.0)
    if shortfall.any():
        notes.append(
            f"Desktops ask for up to {float(demand.max()):.0f} GPUs but the pool has {pool_gpus}: "
            "the pool is too small for the VDI peak."
        )
    return HarvestResult(
        settings=settings,
        pool_gpus=pool_gpus,
        vdi_demand_gpus=demand,
        vdi_gpus=vdi,
        ml_gpus=run.ml_gpus[last].astype(np.float64),
        harvested_gpu_hours=run.harvested_gpu_hours[last],
        lost_gpu_hours=run.lost_gpu_hours[last],
        backlog_gpu_hours=run.backlog_gpu_hours[last],
        interruptions=run.interruptions[last].astype(np.float64),
        jobs_interrupted_per_week=run.jobs_stopped_in(last),
        turnarounds=_turnarounds(stream, run.finish_hour, settings),
        backlog_growth_gpu_hours_per_week=growth,
        dedicated_gpus=dedicated,
        dedicated_turnarounds=dedicated_turnarounds,
        dedicated_usd_per_gpu_year=dedicated_usd_per_gpu_year,
        notes=tuple(notes),
    )


# --- From a scenario ---------------------------------------------------------------------------


class NoDesktopPoolError(ValueError):
    """The scenario gives no desktop GPU to harvest: it has no VDI workload, no vSphere host, or
    its vGPU plan places no desktop. An answer about the inputs, not a failure of the planner."""


@dataclass(frozen=True)
class VdiGroup:
    """Desktops that share GPUs of one model and one vGPU profile in the vGPU plan."""

    gpu_model: str
    profile: str
    """vGPU profile name, e.g. ``4C``."""
    vgpus_per_gpu: int
    """vGPUs of the profile one GPU holds (NVIDIA's table for the plan's vGPU mode)."""
    gpus: int
    """GPUs the vGPU plan gives the group [GPUs]."""
    desktops: dict[str, int]
    """Desktops of each VDI class the plan put in the group [instances]."""


@dataclass(frozen=True, eq=False)
class VdiPool:
    """The VDI GPUs of a scenario and what desktops ask of them over a week."""

    gpu_model: str
    """The model most pool GPUs are (it prices the dedicated GPUs harvesting replaces)."""
    pool_gpus: int
    """GPUs that serve desktops [GPUs]."""
    demand_gpus: FloatArray
    """GPUs the active desktops need per step [GPUs]."""
    groups: tuple[VdiGroup, ...]
    """The plan's desktops by GPU model and profile."""
    desktops_not_placed: int
    """Desktops the vGPU plan could not place; they ask for no GPU here [instances]."""
    source: str
    """How ``pool_gpus`` was found, in plain words."""


def vdi_pool(
    scenario: Scenario,
    *,
    curve: WeeklyCurve | None = None,
    steps_per_hour: int = 1,
    pool_gpus: int | None = None,
) -> VdiPool:
    """The scenario's VDI GPUs, from the vGPU plan of its VDI desktops, and their weekly demand.

    The desktops alone are planned under vGPU (``planner.solve.packing.plan_method``). The pool is
    every GPU that plan uses, unless ``pool_gpus`` is given. Desktops sharing a model and
    profile are consolidated as they log on (Horizon-style pools, vMotion of vGPU VMs), so per
    step and group

    ``gpus[t] = ceil(Σ_class active[class, t] × placed[class, group] / instances[class]
    × vgpus_per_instance / density)``

    and ``demand[t]`` is the sum over groups, ``density`` the profile's vGPUs per GPU, or fewer
    when the plan could place fewer on the group's GPUs (their hosts' cores or RAM ran out):
    desktops consolidate no denser than their hosts let them, so with every desktop active the
    group's GPUs are all in use. Counting each group on its own GPUs is exact in
    equal-size mode and slightly cautious in mixed-size mode, where groups may share a GPU.
    ``curve`` replaces every VDI class's own schedule (e.g. the ``vdi-office`` preset).
    ``NoDesktopPoolError`` when the scenario has no VDI class, no host that runs vGPU's platform,
    or the vGPU plan places no desktop.
    """
    desktops = tuple(w for w in scenario.workloads if w.kind is WorkloadKind.VDI)
    if not desktops:
        raise NoDesktopPoolError(
            "the scenario has no VDI workload to harvest from; add a workload of kind 'vdi' "
            "to the workload file"
        )
    _refuse_without_vgpu_hosts(scenario)
    plan = plan_method(Method.VGPU, replace(scenario, workloads=desktops))
    if not plan.placements:
        reasons = sorted({n.reason for n in plan.not_placed})
        raise NoDesktopPoolError(
            "no VDI desktop could be placed under vGPU, so no GPU serves desktops: "
            + "; ".join(reasons[:3])
        )
    mode = scenario.assumptions.vgpu_mode
    vgpus_of_instance: dict[str, int] = {}
    group_of_instance: dict[str, tuple[str, str]] = {}
    class_of_instance: dict[str, str] = {}
    gpus_of_group: dict[tuple[str, str], set[tuple[str, int]]] = {}
    for placement in plan.placements:
        key = (placement.gpu_model, placement.profile)
        group_of_instance[placement.instance] = key
        class_of_instance[placement.instance] = placement.workload
        # A desktop on n GPUs holds one vGPU on each.
        vgpus_of_instance[placement.instance] = vgpus_of_instance.get(placement.instance, 0) + 1
        gpus_of_group.setdefault(key, set()).add((placement.host, placement.gpu_index))
    by_class = {w.name: w for w in desktops}
    groups: list[VdiGroup] = []
    demand = np.zeros(HOURS_PER_WEEK * steps_per_hour)
    for key in sorted(gpus_of_group):
        model, profile_name = key
        profile = next(p for p in scenario.catalog.vgpu_profiles[model] if p.name == profile_name)
        per_gpu = vgpu_max_per_gpu(profile, mode)
        placed: dict[str, int] = {}
        vgpus_of_class: dict[str, int] = {}
        for instance, instance_group in group_of_instance.items():
            if instance_group == key:
                name = class_of_instance[instance]
                placed[name] = placed.get(name, 0) + 1
                vgpus_of_class[name] = vgpus_of_class.get(name, 0) + vgpus_of_instance[instance]
        # vGPUs the group's active desktops hold: each class's active share of its placed ones.
        active_vgpus = np.zeros_like(demand)
        for name, vgpus in vgpus_of_class.items():
            workload = by_class[name]
            share = weekly_demand(workload, curve=curve, steps_per_hour=steps_per_hour)
            active_vgpus += share / workload.instances * vgpus
        density = min(per_gpu, sum(vgpus_of_class.values()) / len(gpus_of_group[key]))
        demand += np.ceil(active_vgpus / density - 1e-9)
        groups.append(VdiGroup(model, profile_name, per_gpu, len(gpus_of_group[key]), placed))
    by_model: dict[str, int] = {}
    for group in groups:
        by_model[group.gpu_model] = by_model.get(group.gpu_model, 0) + group.gpus
    planned = len(plan.gpu_configs)
    source = (
        f"given (the vGPU plan of the desktops uses {planned})"
        if pool_gpus is not None
        else f"the GPUs the vGPU plan of the desktops uses ({mode.value} mode)"
    )
    return VdiPool(
        gpu_model=max(by_model, key=lambda m: (by_model[m], m)),
        pool_gpus=planned if pool_gpus is None else pool_gpus,
        demand_gpus=demand,
        groups=tuple(groups),
        desktops_not_placed=len({n.instance for n in plan.not_placed}),
        source=source,
    )


def _refuse_without_vgpu_hosts(scenario: Scenario) -> None:
    """NoDesktopPoolError when no host of the inventory runs a platform vGPU serves: desktops are
    VMs, and the pool is what their vGPU plan uses."""
    vgpu = METHODS[Method.VGPU]
    hosts = scenario.inventory.hosts
    if not hosts or any(h.platform in vgpu.platforms for h in hosts):
        return
    served = " or ".join(sorted(p.label for p in vgpu.platforms))
    by_platform: dict[str, int] = {}
    for host in hosts:
        by_platform[host.platform.label] = by_platform.get(host.platform.label, 0) + 1
    run = ", ".join(
        f"{counted(n, 'host')} {'runs' if n == 1 else 'run'} {label}"
        for label, n in sorted(by_platform.items())
    )
    raise NoDesktopPoolError(
        f"the desktops are VMs planned under {vgpu.label}, which runs on {served} hosts, and "
        f"this inventory has none ({run}); add {served} hosts to the inventory"
    )


def dedicated_usd_per_gpu_year(scenario: Scenario, gpu_model: str) -> float:
    """Annual cost of one dedicated passthrough GPU of ``gpu_model``, busy 24×7 [USD/year].

    Amortised GPU price plus its share of a host (``host_usd`` over the GPUs per host of the
    inventory's hosts of that model, 8 if none), and power at full use. No licence: dedicated ML
    GPUs run passthrough.
    """
    a = scenario.assumptions
    gpu = scenario.catalog.gpus[gpu_model]
    price = a.gpu_price_usd.get(gpu_model, gpu.price_usd)
    per_host = [h.gpus for h in scenario.inventory.hosts if h.gpu_model == gpu_model and h.gpus]
    gpus_per_host = max(per_host) if per_host else 8
    hardware = amortised_usd_per_year(price + a.host_usd / gpus_per_host, a.amortisation_years)
    power = power_usd_per_year(
        gpu_power_w(gpu.tdp_w, 1.0, a.idle_power_share), a.pue, a.power_usd_per_kwh
    )
    return hardware + power


def harvest_scenario(
    scenario: Scenario,
    settings: HarvestSettings,
    *,
    curve: WeeklyCurve | None = None,
    pool_gpus: int | None = None,
) -> HarvestResult:
    """Harvest the scenario's VDI GPUs (see :func:`vdi_pool`) for the backlog in ``settings``;
    the GPUs it replaces are priced as dedicated GPUs of the VDI model."""
    check_settings(settings)
    pool = vdi_pool(
        scenario, curve=curve, steps_per_hour=settings.steps_per_hour, pool_gpus=pool_gpus
    )
    result = simulate_harvest(
        pool.pool_gpus,
        pool.demand_gpus,
        settings,
        dedicated_usd_per_gpu_year=dedicated_usd_per_gpu_year(scenario, pool.gpu_model),
    )
    models = ", ".join(
        f"{g.gpus} × {g.gpu_model} {g.profile} ({g.vgpus_per_gpu} per GPU)" for g in pool.groups
    )
    notes = [f"VDI pool: {pool.pool_gpus} GPUs, {pool.source}: {models}."]
    if pool.desktops_not_placed:
        notes.append(
            f"{pool.desktops_not_placed} desktops could not be placed under vGPU and are left "
            "out; see the Compare page for why."
        )
    return replace(result, notes=(*notes, *result.notes))


def harvest_given_pool(
    pool_gpus: int, settings: HarvestSettings, *, curve: WeeklyCurve | None = None
) -> HarvestResult:
    """Harvest a pool of ``pool_gpus`` desktop GPUs whose busy share follows ``curve`` (the
    ``vdi-office`` preset when None), for the backlog in ``settings``."""
    shape = (curve or CURVE_PRESETS["vdi-office"]).at_resolution(settings.steps_per_hour)
    return simulate_harvest(pool_gpus, shape.as_array() * pool_gpus, settings)


# --- Tables, summary and command line ----------------------------------------------------------


def utilisation_by_hour(result: HarvestResult) -> pd.DataFrame:
    """Average day: pool utilisation before and after harvesting, per hour of day.

    Columns: ``hour`` (0-23), ``before``, ``after`` [0-1], averaged over the week's 7 days and
    the steps of each hour.
    """
    pool = max(result.pool_gpus, 1)
    per_hour = HOURS_PER_DAY * result.steps_per_hour
    before = (result.vdi_gpus / pool).reshape(7, per_hour).mean(axis=0)
    after = ((result.vdi_gpus + result.ml_gpus) / pool).reshape(7, per_hour).mean(axis=0)
    by_hour = pd.DataFrame(
        {
            "hour": np.repeat(np.arange(HOURS_PER_DAY), result.steps_per_hour),
            "before": before,
            "after": after,
        }
    )
    return by_hour.groupby("hour", as_index=False).mean()


def _format_hours(hours: float | None) -> str:
    return "not done in the simulated weeks" if hours is None else f"{hours:.1f} h"


def _clock(hour: float) -> str:
    """Hour of day as a clock time: ``17.5`` -> ``17:30``."""
    minutes = round(hour * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def harvest_summary(result: HarvestResult) -> pd.DataFrame:
    """The headline figures, one per row. Columns: ``figure``, ``value``, ``unit``."""
    s = result.settings
    rows: list[tuple[str, Any, str]] = [
        ("VDI pool", result.pool_gpus, "GPUs"),
        ("ML backlog submitted", s.submitted_gpu_hours_per_week, "GPU-hours/week"),
        (
            "Submission",
            f"{_clock(s.submit_hour)} on " + ", ".join(DAYS[d] for d in sorted(set(s.submit_days))),
            "",
        ),
        ("Job size", f"{counted(s.gpus_per_job, 'GPU')} × {s.job_hours:g} h", ""),
        ("Jobs checkpoint", "yes" if s.checkpointing else "no, they restart", ""),
        ("Resolution", s.resolution_minutes, "minutes"),
        ("Harvested", result.harvested_gpu_hours_per_week, "GPU-hours/week"),
        ("Lost to restarts", result.lost_gpu_hours_per_week, "GPU-hours/week"),
        ("Useful harvested work", result.useful_gpu_hours_per_week, "GPU-hours/week"),
        ("Utilisation before", 100 * result.utilisation_before, "%"),
        ("Utilisation after", 100 * result.utilisation_after, "%"),
        ("Jobs interrupted", result.jobs_interrupted_per_week, "jobs/week"),
        ("Interruptions", result.interruptions_per_week, "stops/week"),
        ("Backlog growth", result.backlog_growth_gpu_hours_per_week, "GPU-hours/week"),
        ("Longest batch turnaround", result.turnaround_hours, "h"),
        ("Dedicated GPUs replaced", result.dedicated_gpus, "GPUs"),
        ("Turnaround on those dedicated GPUs", result.dedicated_turnaround_hours, "h"),
        ("Dedicated GPUs' cost", result.dedicated_usd_per_year, "USD/year"),
        ("VDI demand above the pool", result.vdi_shortfall_gpu_hours_per_week, "GPU-hours/week"),
    ]
    rows += [(f"Turnaround, {t.day} batch", t.hours, "h") for t in result.turnarounds]
    frame = pd.DataFrame(rows, columns=["figure", "value", "unit"])
    frame["value"] = frame["value"].astype(object)
    return frame


def harvest_tables(result: HarvestResult) -> dict[str, pd.DataFrame]:
    """Sheets for ``planner.output.export.write_workbook(..., extra_sheets=...)``.

    ``Harvest summary``: :func:`harvest_summary`. ``Harvest by step``: one row per step of the
    week with ``step`` (``Mon 17:00``), ``vdi_demand_gpus``, ``vdi_gpus``, ``ml_gpus``,
    ``idle_gpus`` [GPUs], ``harvested_gpu_hours``, ``lost_gpu_hours``, ``backlog_gpu_hours``
    [GPU-hours], ``interruptions`` [stops], ``utilisation_before``, ``utilisation_after`` [0-1].
    """
    pool = max(result.pool_gpus, 1)
    by_step = pd.DataFrame(
        {
            "step": step_labels(result.steps_per_hour),
            "vdi_demand_gpus": result.vdi_demand_gpus,
            "vdi_gpus": result.vdi_gpus,
            "ml_gpus": result.ml_gpus,
            "idle_gpus": result.idle_gpus,
            "harvested_gpu_hours": result.harvested_gpu_hours,
            "lost_gpu_hours": result.lost_gpu_hours,
            "backlog_gpu_hours": result.backlog_gpu_hours,
            "interruptions": result.interruptions,
            "utilisation_before": result.vdi_gpus / pool,
            "utilisation_after": (result.vdi_gpus + result.ml_gpus) / pool,
        }
    )
    return {"Harvest summary": harvest_summary(result), "Harvest by step": by_step}


def plan_harvest_tables(
    scenario: Scenario,
    settings: HarvestSettings | None = None,
    *,
    curve: WeeklyCurve | None = None,
) -> dict[str, pd.DataFrame]:
    """The harvest sheets that go into the plan workbook (default settings unless given; the
    desktops' demand is ``curve``, or each VDI class's own schedule when None).

    When the scenario cannot be harvested (no VDI workload, or no desktop fits under vGPU), the
    summary sheet says why in one row instead, so the workbook never hides the question.
    """
    try:
        return harvest_tables(
            harvest_scenario(scenario, settings or HarvestSettings(), curve=curve)
        )
    except ValueError as error:
        why = pd.DataFrame({"figure": ["No harvest"], "value": [str(error)], "unit": [""]})
        return {"Harvest summary": why}
