"""The scenario report: one call per user intent, plans of every method measured and compared.

``plan_scenario`` fits the workload mix into the user's inventory; ``size_cluster`` asks how many
servers of one type each method needs. Both return a ``ScenarioPlan``; the ``*_frame`` functions
turn it into tables with documented columns for the dashboard and the workbook, and
``recommendations`` says which method suits each workload class, and why.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import pandas as pd

from planner.inputs.inventory import Inventory, ServerType
from planner.inputs.workloads import WorkloadClass
from planner.measure.costs import (
    COST_COMPONENTS,
    CostBreakdown,
    plan_cost,
    workload_usd_per_instance_year,
)
from planner.measure.metrics import (
    PlanMetrics,
    gpu_compute_utilisation,
    gpu_memory,
    measure,
    placements_by_gpu,
)
from planner.measure.performance import WorkloadSlowdown, slowdowns
from planner.plan import Method, MethodPlan
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method, size_method

__all__ = [
    "COMPARISON_COLUMNS",
    "MAX_SLOWDOWN",
    "MethodResult",
    "Question",
    "Recommendation",
    "ScenarioPlan",
    "assemble",
    "comparison_frame",
    "cost_frame",
    "measure_plan",
    "not_placed_frame",
    "placement_frame",
    "plan_scenario",
    "recommendations",
    "recommendations_frame",
    "ruled_out_reason",
    "size_cluster",
    "slowdown_frame",
    "utilisation_frame",
]

Question = Literal["fit", "size"]
"""``fit``: place the mix on the inventory; ``size``: count the servers of one type needed."""


@dataclass(frozen=True)
class MethodResult:
    """One method's plan with everything measured about it."""

    plan: MethodPlan
    metrics: PlanMetrics
    cost: CostBreakdown
    slowdowns: tuple[WorkloadSlowdown, ...]
    feasibility_violations: tuple[str, ...]
    """Rules the plan breaks, from ``planner.solve.feasibility.check_plan``; empty when valid."""

    @property
    def method(self) -> Method:
        return self.plan.method


@dataclass(frozen=True)
class ScenarioPlan:
    """The answer to one question about one scenario, for every method asked."""

    scenario: Scenario
    question: Question
    server: ServerType | None
    """The server type sized (``size``); None when fitting the inventory (``fit``)."""
    results: tuple[MethodResult, ...]

    def result(self, method: Method) -> MethodResult:
        """The result of one method; KeyError naming the method when it was not planned."""
        for result in self.results:
            if result.method is method:
                return result
        raise KeyError(f"method {method.value!r} was not planned; planned: {self.methods}")

    @property
    def methods(self) -> tuple[Method, ...]:
        return tuple(r.method for r in self.results)


@dataclass(frozen=True)
class Recommendation:
    """Which method suits one workload class, and why, in plain words."""

    workload: str
    method: Method | None
    """The suggested method; None when no method can serve the class."""
    reason: str
    ruled_out: tuple[str, ...] = ()
    """Methods the class's needs rule out, each with the rule (``Passthrough: needs vMotion``)."""


def measure_plan(plan: MethodPlan, scenario: Scenario) -> MethodResult:
    """Measure one method's plan: metrics, cost, slowdowns and feasibility."""
    return MethodResult(
        plan=plan,
        metrics=measure(plan, scenario),
        cost=plan_cost(plan, scenario),
        slowdowns=slowdowns(plan, scenario),
        feasibility_violations=tuple(check_plan(plan, scenario)),
    )


def assemble(
    scenario: Scenario,
    plans: Iterable[MethodPlan],
    *,
    question: Question = "fit",
    server: ServerType | None = None,
) -> ScenarioPlan:
    """A ``ScenarioPlan`` from plans already made (by any packer), each measured."""
    results = tuple(measure_plan(plan, scenario) for plan in plans)
    return ScenarioPlan(scenario=scenario, question=question, server=server, results=results)


def plan_scenario(
    scenario: Scenario,
    *,
    methods: Sequence[Method] = tuple(Method),
    exact: bool | None = None,
) -> ScenarioPlan:
    """Fit the workload mix into the inventory under each method, and measure each plan.

    ``exact`` is passed to ``planner.solve.packing.plan_method``: True always runs the exact solver
    (within ``assumptions.time_limit_s``), False only the heuristic, None decides by size.
    """
    return assemble(scenario, (plan_method(method, scenario, exact=exact) for method in methods))


def size_cluster(
    scenario: Scenario, server: ServerType, *, methods: Sequence[Method] = tuple(Method)
) -> ScenarioPlan:
    """Count the servers of type ``server`` each method needs for the mix, and measure each.

    The plans are measured against the servers they open only: the inventory plays no part in
    sizing, so a method that opens no server has no GPUs available either.
    """
    plans = tuple(size_method(method, scenario, server) for method in methods)
    sized = dataclasses.replace(scenario, inventory=Inventory(hosts=()))
    return assemble(sized, plans, question="size", server=server)


COMPARISON_COLUMNS: Mapping[str, str] = MappingProxyType(
    {
        "method": "method id (passthrough, vgpu, mig, remote-pool)",
        "label": "method name for people",
        "gpus_used": "GPUs holding at least one instance [GPUs]",
        "hosts_used": "hosts with a GPU in use [hosts]",
        "gpus_available": "GPUs in the hosts the plan could use [GPUs]",
        "placed": "instances placed [instances]",
        "not_placed": "instances not placed [instances]",
        "memory_utilisation": "instances' own GPU memory / memory of GPUs in use [0-1]",
        "compute_utilisation": "busy GPU-hours / GPU-hours of GPUs in use, week average [0-1]",
        "stranded_memory_gib": "memory on GPUs in use that no instance can use [GiB]",
        "stranded_gpus": "free GPUs on hosts without spare CPU/RAM for any instance [GPUs]",
        "usd_per_year": "annual cost: hardware, licences, power, network [USD/year]",
        "usd_per_instance_year": "annual cost per placed instance [USD/year]",
        "mean_slowdown": "runtime / bare metal, mean over placed instances [-]",
        "lower_bound_gpus": "no packing of the placed instances uses fewer GPUs [GPUs]",
        "ratio_to_bound": "gpus_used / lower_bound_gpus; 1.0 is provably optimal [-]",
        "status": "optimal, time limit reached or heuristic",
        "solve_seconds": "wall time of the packing [s]",
        "violations": "feasibility rules the plan breaks (should be 0)",
    }
)
"""Columns of ``comparison_frame`` with their meaning and unit."""


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def _mean_slowdown(result: MethodResult) -> float:
    """Instance-weighted mean slowdown over placed instances [-]; NaN when none is placed."""
    placed: dict[str, set[str]] = {}
    for p in result.plan.placements:
        placed.setdefault(p.workload, set()).add(p.instance)
    weights = [len(placed.get(s.workload, ())) for s in result.slowdowns]
    if sum(weights) == 0:
        return math.nan
    return sum(s.slowdown * w for s, w in zip(result.slowdowns, weights, strict=True)) / sum(
        weights
    )


def comparison_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per method; columns as in ``COMPARISON_COLUMNS`` (None becomes NaN)."""
    rows = []
    for r in plan.results:
        m, c = r.metrics, r.cost
        rows.append(
            {
                "method": r.method.value,
                "label": r.method.label,
                "gpus_used": m.gpus_used,
                "hosts_used": m.hosts_used,
                "gpus_available": m.gpus_available,
                "placed": m.instances_placed,
                "not_placed": m.instances_not_placed,
                "memory_utilisation": m.memory_utilisation,
                "compute_utilisation": m.compute_utilisation,
                "stranded_memory_gib": m.stranded_memory_gib,
                "stranded_gpus": m.stranded_gpus,
                "usd_per_year": c.total_usd_per_year,
                "usd_per_instance_year": _nan(c.usd_per_instance_year),
                "mean_slowdown": _mean_slowdown(r),
                "lower_bound_gpus": m.lower_bound_gpus,
                "ratio_to_bound": _nan(m.ratio_to_bound),
                "status": r.plan.status.value,
                "solve_seconds": r.plan.solve_seconds,
                "violations": len(r.feasibility_violations),
            }
        )
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def placement_frame(result: MethodResult) -> pd.DataFrame:
    """One row per instance per GPU: instance, workload, host, gpu_index (0-based), gpu_model,
    gpu_config, profile, memory_gib [GiB], compute_share [0-1], start_slice (MIG, else empty)."""
    columns = [
        "instance",
        "workload",
        "host",
        "gpu_index",
        "gpu_model",
        "gpu_config",
        "profile",
        "memory_gib",
        "compute_share",
        "start_slice",
    ]
    rows = [
        {
            "instance": p.instance,
            "workload": p.workload,
            "host": p.host,
            "gpu_index": p.gpu_index,
            "gpu_model": p.gpu_model,
            "gpu_config": result.plan.gpu_configs.get((p.host, p.gpu_index), ""),
            "profile": p.profile,
            "memory_gib": p.memory_gib,
            "compute_share": p.compute_share,
            "start_slice": p.start_slice,
        }
        for p in result.plan.placements
    ]
    frame = pd.DataFrame(rows, columns=columns)
    frame["start_slice"] = frame["start_slice"].astype("Int64")
    return frame


def not_placed_frame(result: MethodResult) -> pd.DataFrame:
    """One row per instance not placed: instance, workload, reason."""
    rows = [
        {"instance": n.instance, "workload": n.workload, "reason": n.reason}
        for n in result.plan.not_placed
    ]
    return pd.DataFrame(rows, columns=["instance", "workload", "reason"])


def cost_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """Long form for a stacked chart: method, label, component (``COST_COMPONENTS``),
    usd_per_year [USD/year]."""
    rows = [
        {
            "method": r.method.value,
            "label": r.method.label,
            "component": component,
            "usd_per_year": r.cost.component_usd_per_year(component),
        }
        for r in plan.results
        for component in COST_COMPONENTS
    ]
    return pd.DataFrame(rows, columns=["method", "label", "component", "usd_per_year"])


def utilisation_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per GPU in use per method: method, label, host, gpu_index, gpu_model, gpu_config,
    instances, memory_gib (capacity) [GiB], memory_reserved_gib [GiB], memory_used_gib
    (instances' own) [GiB], memory_utilisation [0-1], compute_utilisation (week average) [0-1]."""
    columns = [
        "method",
        "label",
        "host",
        "gpu_index",
        "gpu_model",
        "gpu_config",
        "instances",
        "memory_gib",
        "memory_reserved_gib",
        "memory_used_gib",
        "memory_utilisation",
        "compute_utilisation",
    ]
    rows = []
    for r in plan.results:
        compute = gpu_compute_utilisation(r.plan, plan.scenario)
        memory = gpu_memory(r.plan, plan.scenario)
        for (host, index), placements in placements_by_gpu(r.plan).items():
            figures = memory[(host, index)]
            rows.append(
                {
                    "method": r.method.value,
                    "label": r.method.label,
                    "host": host,
                    "gpu_index": index,
                    "gpu_model": placements[0].gpu_model,
                    "gpu_config": r.plan.gpu_configs.get((host, index), ""),
                    "instances": len({p.instance for p in placements}),
                    "memory_gib": figures.capacity_gib,
                    "memory_reserved_gib": figures.reserved_gib,
                    "memory_used_gib": figures.used_gib,
                    "memory_utilisation": figures.utilisation,
                    "compute_utilisation": compute[(host, index)],
                }
            )
    return pd.DataFrame(rows, columns=columns)


def slowdown_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per workload class per method: workload, method, label, slowdown (mean) [-],
    worst_slowdown [-], note."""
    rows = [
        {
            "workload": s.workload,
            "method": r.method.value,
            "label": r.method.label,
            "slowdown": s.slowdown,
            "worst_slowdown": s.worst_slowdown,
            "note": s.note,
        }
        for r in plan.results
        for s in r.slowdowns
    ]
    columns = ["workload", "method", "label", "slowdown", "worst_slowdown", "note"]
    return pd.DataFrame(rows, columns=columns)


def ruled_out_reason(workload: WorkloadClass, method: Method) -> str | None:
    """The rule that bars ``method`` for the class, or None when the method may serve it.

    Live migration rules out passthrough; isolation needs MIG or passthrough; a class that does
    not tolerate GPU access over the network cannot use the remote pool.
    """
    if method is Method.PASSTHROUGH and workload.needs_live_migration:
        return "needs live migration (vMotion), which passthrough does not allow"
    if method in (Method.VGPU, Method.REMOTE_POOL) and workload.needs_isolation:
        return "needs hardware isolation, which only MIG and passthrough give"
    if method is Method.REMOTE_POOL and not workload.latency_tolerant:
        return "does not tolerate GPU access over the network"
    return None


MAX_SLOWDOWN = 1.5
"""Default slowdown a recommendation accepts [-]: runtime at most 1.5× bare metal."""


@dataclass(frozen=True)
class _Candidate:
    result: MethodResult
    placed: int
    usd_per_instance_year: float
    slowdown: float


def _describe(candidate: _Candidate, instances: int) -> str:
    placed = (
        f"all {instances} placed"
        if candidate.placed == instances
        else f"{candidate.placed} of {instances} placed"
    )
    return (
        f"{candidate.result.method.label}: {placed}, "
        f"${candidate.usd_per_instance_year:,.0f} per instance-year, "
        f"{candidate.slowdown:.2f}× bare-metal runtime"
    )


def _recommend(
    workload: WorkloadClass,
    plan: ScenarioPlan,
    max_slowdown: float,
    workload_costs: Mapping[Method, Mapping[str, float]],
) -> Recommendation:
    ruled_out = []
    unplaced = []
    candidates = []
    for result in plan.results:
        placed = len({p.instance for p in result.plan.placements if p.workload == workload.name})
        rule = ruled_out_reason(workload, result.method)
        if rule is not None:
            # A packer with a looser rule may still have placed the class; say so, not hide it.
            anyway = f" (its plan placed {placed} anyway)" if placed else ""
            ruled_out.append(f"{result.method.label}: {rule}{anyway}")
            continue
        if placed == 0:
            reasons = [n.reason for n in result.plan.not_placed if n.workload == workload.name]
            if reasons:
                unplaced.append(f"{result.method.label}: {reasons[0]}")
            continue
        costs = workload_costs[result.method]
        slowdown = next((s.slowdown for s in result.slowdowns if s.workload == workload.name), 1.0)
        candidates.append(_Candidate(result, placed, costs[workload.name], slowdown))
    if not candidates:
        if ruled_out and len(ruled_out) == len(plan.results):
            reason = "No planned method may serve this class: " + "; ".join(ruled_out) + "."
        else:
            reason = "No planned method placed any instance of this class: " + "; ".join(
                unplaced + ruled_out
            )
            reason += "."
        return Recommendation(workload.name, None, reason, tuple(ruled_out))
    most_placed = max(c.placed for c in candidates)
    # A method that places the whole class beats a cheaper one that leaves instances out.
    finalists = [c for c in candidates if c.placed == most_placed]
    fast_enough = sorted(
        (c for c in finalists if c.slowdown <= max_slowdown), key=lambda c: c.usd_per_instance_year
    )
    too_slow = [c for c in finalists if c.slowdown > max_slowdown]
    if fast_enough:
        best = fast_enough[0]
        reason = _describe(best, workload.instances)
        if len(fast_enough) > 1:
            others = ", ".join(
                f"{c.result.method.label} ${c.usd_per_instance_year:,.0f}" for c in fast_enough[1:]
            )
            reason += f"; the cheapest within {max_slowdown:.2f}× runtime (against {others})"
    else:
        best = min(finalists, key=lambda c: c.slowdown)
        reason = _describe(best, workload.instances)
        reason += f"; every method slows it beyond {max_slowdown:.2f}×, this one least"
    slower = [c for c in too_slow if c is not best]
    if slower:
        reason += ". Too slow: " + "; ".join(
            f"{c.result.method.label} {c.slowdown:.2f}× at ${c.usd_per_instance_year:,.0f}"
            for c in slower
        )
    fewer = [c for c in candidates if c.placed < most_placed]
    if fewer:
        reason += ". Places fewer: " + "; ".join(
            f"{c.result.method.label} {c.placed} of {workload.instances}" for c in fewer
        )
    if unplaced:
        reason += ". Places none: " + "; ".join(unplaced)
    if ruled_out:
        reason += ". Ruled out: " + "; ".join(ruled_out)
    return Recommendation(workload.name, best.result.method, reason + ".", tuple(ruled_out))


def recommendations(
    plan: ScenarioPlan, *, max_slowdown: float = MAX_SLOWDOWN
) -> tuple[Recommendation, ...]:
    """For each workload class, the cheapest method that serves it well enough, and why.

    The rules first (``ruled_out_reason``); then the methods placing most of the class's
    instances; among those, the lowest cost per instance-year (each GPU's cost split among its
    instances by reserved memory) whose slowdown is at most ``max_slowdown`` [-]; if none is
    that fast, the least slow.
    """
    workload_costs = {
        r.method: workload_usd_per_instance_year(r.plan, plan.scenario) for r in plan.results
    }
    return tuple(
        _recommend(workload, plan, max_slowdown, workload_costs)
        for workload in plan.scenario.workloads
    )


def recommendations_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per workload class: workload, method (id or empty), label, reason."""
    rows = [
        {
            "workload": rec.workload,
            "method": rec.method.value if rec.method else "",
            "label": rec.method.label if rec.method else "none",
            "reason": rec.reason,
        }
        for rec in recommendations(plan)
    ]
    return pd.DataFrame(rows, columns=["workload", "method", "label", "reason"])
