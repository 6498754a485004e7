"""What every method's slowdown model shares: sourced constants, co-tenancy and the GPU's limit.

Slowdown ``s`` is runtime over the runtime on a dedicated bare-metal share of a GPU equal to what
the workload asked for (``g = min(gpus, 1)``); getting more than asked is not counted as a
speed-up. Each method computes its own ``s`` from the constants it declares (``ModelConstant``,
each with unit, source, range and whether it is a guess) and the busy shares of its co-tenants
(``co_busy_share``). The user overrides any constant by name in
``Assumptions.performance_constants``; ``ModelConstant.in_use`` returns the value in force.

Physics first: a GPU never delivers more than one GPU of work. Where compute is shared rather
than partitioned, the busy demand of everyone on a GPU (``busy_demand`` for the instance itself,
``co_busy_demand`` for each co-tenant, in GPUs) can add up past 1; then each job's slowdown is at
least that sum (``gpu_work_floor``), so three always-busy whole-GPU jobs on one GPU each run at
least 3× slower. Every method whose instances share compute applies the floor to its model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from planner.inputs.workloads import WorkloadClass

__all__ = [
    "SEED_BUSY_FRACTION",
    "SEED_JOBS",
    "SEED_SLOWDOWN",
    "ModelConstant",
    "any_busy",
    "busy_demand",
    "co_busy_demand",
    "co_busy_share",
    "gpu_work_floor",
]


SEED_JOBS = 3
"""Jobs sharing one GPU on VMware's Bitfusion slide ("nearly 3×" the throughput of one job per
GPU) [jobs]: the calibration point every compute-sharing method's interference is fitted to."""

SEED_BUSY_FRACTION = 0.3
"""Busy share of each of those jobs alone on a GPU [0-1]. A guess: the slide does not state it,
but its gain exists only because each job leaves the GPU mostly idle, and 0.3 is the largest
share for which three jobs still ask no more than one GPU of work (0.9)."""

SEED_SLOWDOWN = 1.17
"""Each of those jobs' runtime shared / alone [-]: the slide's "only 17 % slower"."""


@dataclass(frozen=True)
class ModelConstant:
    """One constant of a slowdown model, with where it comes from and the values it may take."""

    name: str
    value: float
    """The model's default, in ``unit``."""
    unit: str
    source: str
    meaning: str
    is_guess: bool = False
    """No public measurement gives this figure: it is the team's estimate, to be replaced."""
    minimum: float = 0.0
    """Smallest value the model accepts, inclusive, in ``unit``."""
    maximum: float = math.inf
    """Largest value the model accepts, inclusive, in ``unit``."""
    derived: Callable[[Mapping[str, float]], float] | None = field(default=None, compare=False)
    """When set and the constant is not overridden, its value in use follows from the other
    overrides (a calibration that must keep holding when another guess changes)."""

    def checked(self, value: object) -> float:
        """``value`` as a float when it is a valid override; ``ValueError`` with the rule if not.
        An override is a number: ``float`` would read ``True`` as 1 and ``'2'`` as 2."""
        if isinstance(value, bool | str):
            raise ValueError(
                f"performance constant {self.name!r} must be a number [{self.unit}], got {value!r}"
            )
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(
                f"performance constant {self.name!r} must be a number [{self.unit}], got {value!r}"
            ) from None
        if not math.isfinite(number) or not self.minimum <= number <= self.maximum:
            upper = "" if math.isinf(self.maximum) else f" and at most {self.maximum:g}"
            raise ValueError(
                f"performance constant {self.name!r} must be at least {self.minimum:g}{upper} "
                f"[{self.unit}], got {value!r}"
            )
        return number

    def in_use(self, overrides: Mapping[str, float]) -> float:
        """The value in force: the override when given, else the derived or default value."""
        if self.name in overrides:
            return self.checked(overrides[self.name])
        if self.derived is not None:
            return self.derived(overrides)
        return self.value


# Every pair of co-tenant classes is asked about once per instance; classes are few.
@lru_cache(maxsize=65536)
def co_busy_share(workload: WorkloadClass, other: WorkloadClass) -> float:
    """Share of ``workload``'s active time during which an ``other`` instance is busy [0-1].

    ``busy_other × Σ_h a_w(h) a_o(h) / Σ_h a_w(h) × min(1, days_other / days_w)``, with ``a(h)``
    the hourly active shares: a night-time batch job barely meets an office-hours notebook.
    """
    own_hours = sum(workload.daily_schedule)
    if own_hours <= 0:
        return 0.0
    overlap = sum(a * b for a, b in zip(workload.daily_schedule, other.daily_schedule, strict=True))
    days = min(1.0, other.days_per_week / workload.days_per_week)
    return min(1.0, other.busy_fraction * overlap / own_hours * days)


def co_tenant_demands(
    workload: WorkloadClass, others: Sequence[WorkloadClass]
) -> tuple[list[float], list[float]]:
    """``co_busy_share`` and ``co_busy_demand`` of ``workload`` against each co-tenant class in
    ``others``, in order; worked out once per distinct class (a GPU's tenants are mostly of a
    few classes, and hashing a class for the cache is slow)."""
    known: dict[int, tuple[float, float]] = {}
    busy: list[float] = []
    demand: list[float] = []
    for other in others:
        pair = known.get(id(other))
        if pair is None:
            share = co_busy_share(workload, other)
            pair = known[id(other)] = (share, min(other.gpus, 1.0) * share)
        busy.append(pair[0])
        demand.append(pair[1])
    return busy, demand


def any_busy(shares: Sequence[float]) -> float:
    """Chance that at least one of independent co-residents is busy [0-1]."""
    return 1.0 - math.prod(1.0 - d for d in shares)


def busy_demand(workload: WorkloadClass) -> float:
    """GPUs of work an instance of ``workload`` asks of each GPU it holds, averaged over its
    active time: ``min(gpus, 1) × busy_fraction`` [GPUs]."""
    return min(workload.gpus, 1.0) * workload.busy_fraction


def co_busy_demand(workload: WorkloadClass, other: WorkloadClass) -> float:
    """GPUs of work an ``other`` co-tenant asks of a shared GPU while ``workload`` is active:
    ``min(gpus_other, 1) × co_busy_share(workload, other)`` [GPUs]."""
    return min(other.gpus, 1.0) * co_busy_share(workload, other)


def gpu_work_floor(own_demand: float, co_demands: Sequence[float]) -> float:
    """Least slowdown on a GPU whose compute is shared, from the work asked of it [-].

    A GPU delivers at most one GPU of work, so when the busy demand on it (``own_demand`` of the
    instance plus each co-tenant's ``co_demands``, in GPUs, see ``busy_demand`` and
    ``co_busy_demand``) adds up past 1, the work takes at least that many times longer:
    ``max(1, own + Σ co)``. Three always-busy whole-GPU jobs on one GPU: at least 3 each.
    """
    return max(1.0, own_demand + math.fsum(co_demands))
