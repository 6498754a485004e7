"""What every method's slowdown model shares: sourced constants, co-tenancy and the GPU's limit.

Slowdown ``s`` is runtime over the runtime on a dedicated bare-metal share of a GPU equal to what
the workload asked for (``g = min(gpus, 1)``); getting more than asked is not counted as a
speed-up. Each method computes its own ``s`` from the constants it declares (``ModelConstant``,
each with unit, source, range and whether it is a guess) and the busy shares of its co-tenants
(``co_busy_share``). The user overrides any constant by name in
``Assumptions.performance_constants``; ``ModelConstant.in_use`` returns the value in force.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from planner.inputs.workloads import WorkloadClass

__all__ = ["ModelConstant", "any_busy", "co_busy_share"]


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
        """``value`` as a float when it is a valid override; ``ValueError`` with the rule if not."""
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


def any_busy(shares: Sequence[float]) -> float:
    """Chance that at least one of independent co-residents is busy [0-1]."""
    return 1.0 - math.prod(1.0 - d for d in shares)
