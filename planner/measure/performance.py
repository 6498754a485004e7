"""Expected slowdown of each workload class in a plan, against bare metal.

Slowdown ``s`` is runtime over the runtime on a dedicated bare-metal share of a GPU equal to what
the workload asked for (``g = min(gpus, 1)``). Each GPU's role decides the model: every method
computes it in its own module (``SharingMethod.slowdown``) from the constants it declares. This
module runs the models over a plan and gathers the constants of every method into one table
(``CONSTANTS``), each with its unit, source, range and whether it is a guess; the user overrides
any of them by name in ``Assumptions.performance_constants`` and ``constant`` returns the value in
use.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd

from planner.assumptions import Assumptions
from planner.methods.registry import METHODS, Method
from planner.methods.slowdown_model import ModelConstant, co_busy_share
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.views import InstanceSlowdown, PlanView, instance_slowdowns

__all__ = [
    "CONSTANTS",
    "ModelConstant",
    "WorkloadSlowdown",
    "check_performance_constants",
    "co_busy_share",
    "constant",
    "constants_frame",
    "slowdowns",
]


@dataclass(frozen=True)
class WorkloadSlowdown:
    """Expected slowdown of one workload class in one plan, against bare metal."""

    workload: str
    method: Method
    """The method that serves the class (in a mixed plan, the one serving most of it)."""
    slowdown: float
    """Mean over the class's placed instances of runtime / bare-metal runtime [-]; 1.0 = none."""
    note: str
    """What drives the figure, in plain words."""
    worst_slowdown: float = 1.0
    """Largest slowdown of any placed instance of the class [-]."""


CONSTANTS: Mapping[str, ModelConstant] = MappingProxyType(
    {c.name: c for rules in METHODS.values() for c in rules.constants}
)
"""Every constant of every method's slowdown model by name, for the dashboard and workbook."""


def check_performance_constants(overrides: Mapping[str, float]) -> None:
    """Raise ``ValueError`` unless every override names a constant of ``CONSTANTS`` and holds a
    finite number within that constant's range (``minimum`` to ``maximum``, in its unit)."""
    for name, value in overrides.items():
        _known(name).checked(value)


def _known(name: str) -> ModelConstant:
    known = CONSTANTS.get(name)
    if known is None:
        raise ValueError(
            f"unknown performance constant {name!r}; known constants: {', '.join(CONSTANTS)}"
        )
    return known


def constant(name: str, assumptions: Assumptions | None = None) -> float:
    """The value of model constant ``name`` in use under ``assumptions`` [its unit].

    Overrides in ``assumptions.performance_constants`` win; missing names use the default (or
    a calibration from the other values in use). Raises ``ValueError`` naming the known constants
    for an unknown name, and the rule for an override out of range.
    """
    overrides = {} if assumptions is None else assumptions.performance_constants
    return _known(name).in_use(overrides)


def constants_frame(assumptions: Assumptions | None = None) -> pd.DataFrame:
    """``CONSTANTS`` as a table with the values in use under ``assumptions``.

    Columns: constant, value (in use), default (the value without its own override: for a
    calibrated constant, the calibration under the other values in use), is_overridden,
    is_guess, unit, meaning, source. Raises ``ValueError`` when an override is unknown or out of
    range.
    """
    overrides = {} if assumptions is None else assumptions.performance_constants
    check_performance_constants(overrides)
    rows = [
        (
            c.name,
            c.in_use(overrides),
            c.in_use({k: v for k, v in overrides.items() if k != c.name}),
            c.name in overrides,
            c.is_guess,
            c.unit,
            c.meaning,
            c.source,
        )
        for c in CONSTANTS.values()
    ]
    columns = [
        "constant",
        "value",
        "default",
        "is_overridden",
        "is_guess",
        "unit",
        "meaning",
        "source",
    ]
    return pd.DataFrame(rows, columns=columns)


def slowdowns(
    plan: MethodPlan, scenario: Scenario, view: PlanView | None = None
) -> tuple[WorkloadSlowdown, ...]:
    """Expected slowdown of every workload class with placed instances, in scenario order.

    Each instance's slowdown follows its GPU's role (``SharingMethod.slowdown``); an instance
    spanning several GPUs runs at the pace of its slowest GPU. The model's constants are those in
    use under the scenario's assumptions (``constant``); an unknown or out-of-range override
    raises ``ValueError``. ``view`` is the plan's ``PlanView`` when the caller has built it.
    """
    check_performance_constants(scenario.assumptions.performance_constants)
    each = instance_slowdowns(plan, view or PlanView.of(plan, scenario))
    by_workload: dict[str, list[InstanceSlowdown]] = {}
    for one in each.values():
        by_workload.setdefault(one.workload, []).append(one)
    order = list(METHODS)
    results = []
    for workload in scenario.workloads:
        mine = by_workload.get(workload.name, [])
        if not mine:
            continue
        counts: dict[Method, int] = {}
        for one in mine:
            counts[one.method] = counts.get(one.method, 0) + 1
        method = max(counts, key=lambda m: (counts[m], -order.index(m)))
        values = [one.slowdown for one in mine]
        results.append(
            WorkloadSlowdown(
                workload=workload.name,
                method=method,
                slowdown=statistics.fmean(values),
                note=METHODS[method].slowdown_note(scenario.assumptions),
                worst_slowdown=max(values),
            )
        )
    return tuple(results)
