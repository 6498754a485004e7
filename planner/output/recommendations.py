"""Which sharing method suits each workload class, and why, read off the single-method plans."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from planner.inputs.workloads import WorkloadClass
from planner.measure.costs import workload_usd_per_instance_year
from planner.methods.registry import Method, host_reason, workload_reason
from planner.output.report import MethodResult, ScenarioPlan

__all__ = ["Recommendation", "recommendations", "recommendations_frame", "ruled_out_reason"]


@dataclass(frozen=True)
class Recommendation:
    """Which method suits one workload class, and why, in plain words."""

    workload: str
    method: Method | None
    """The suggested method; None when no method can serve the class."""
    reason: str
    ruled_out: tuple[str, ...] = ()
    """Methods the class's needs rule out, each with the rule (``Passthrough: needs vMotion``)."""


def ruled_out_reason(
    workload: WorkloadClass, result: MethodResult, plan: ScenarioPlan
) -> str | None:
    """The rule that bars the result's method for the class on every host it could set up, or
    None when some host could serve the class under it (or the method sets up no host at all,
    which the plan's not-placed reasons explain). The rule is ``workload_reason``, the one
    packing and feasibility use."""
    method = result.plan.method
    if method is None:
        return None
    scenario = plan.scenario
    hosts = result.plan.hosts or scenario.inventory.hosts
    kinds = {
        (h.gpu_model, h.platform) for h in hosts if host_reason(method, h, scenario.catalog) is None
    }
    reasons = [
        workload_reason(
            method,
            workload,
            scenario.catalog.gpus[model],
            platform,
            scenario.catalog,
            scenario.assumptions,
        )
        for model, platform in sorted(kinds)
    ]
    if not reasons or any(r is None for r in reasons):
        return None
    return next(r for r in reasons if r is not None)


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
        f"{candidate.result.label}: {placed}, "
        f"${candidate.usd_per_instance_year:,.0f} per instance-year, "
        f"{candidate.slowdown:.2f}× bare-metal runtime"
    )


def _recommend(
    workload: WorkloadClass,
    plan: ScenarioPlan,
    max_slowdown: float,
    workload_costs: Mapping[str, Mapping[str, float]],
) -> Recommendation:
    ruled_out = []
    unplaced = []
    candidates = []
    singles = [r for r in plan.results if r.plan.method is not None]
    for result in singles:
        placed = len({p.instance for p in result.plan.placements if p.workload == workload.name})
        rule = ruled_out_reason(workload, result, plan)
        if rule is not None:
            # A packer with a looser rule may still have placed the class; say so, not hide it.
            anyway = f" (its plan placed {placed} anyway)" if placed else ""
            ruled_out.append(f"{result.label}: {rule}{anyway}")
            continue
        if placed == 0:
            reasons = [n.reason for n in result.plan.not_placed if n.workload == workload.name]
            if reasons:
                unplaced.append(f"{result.label}: {reasons[0]}")
            continue
        costs = workload_costs[result.name]
        slowdown = next((s.slowdown for s in result.slowdowns if s.workload == workload.name), 1.0)
        candidates.append(_Candidate(result, placed, costs[workload.name], slowdown))
    if not candidates:
        if ruled_out and len(ruled_out) == len(singles):
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
                f"{c.result.label} ${c.usd_per_instance_year:,.0f}" for c in fast_enough[1:]
            )
            reason += f"; the cheapest within {max_slowdown:.2f}× runtime (against {others})"
    else:
        best = min(finalists, key=lambda c: c.slowdown)
        reason = _describe(best, workload.instances)
        reason += f"; every method slows it beyond {max_slowdown:.2f}×, this one least"
    slower = [c for c in too_slow if c is not best]
    if slower:
        reason += ". Too slow: " + "; ".join(
            f"{c.result.label} {c.slowdown:.2f}× at ${c.usd_per_instance_year:,.0f}" for c in slower
        )
    fewer = [c for c in candidates if c.placed < most_placed]
    if fewer:
        reason += ". Places fewer: " + "; ".join(
            f"{c.result.label} {c.placed} of {workload.instances}" for c in fewer
        )
    if unplaced:
        reason += ". Places none: " + "; ".join(unplaced)
    if ruled_out:
        reason += ". Ruled out: " + "; ".join(ruled_out)
    return Recommendation(workload.name, best.result.plan.method, reason + ".", tuple(ruled_out))


def recommendations(plan: ScenarioPlan) -> tuple[Recommendation, ...]:
    """For each workload class, the cheapest single method that serves it well enough, and why.

    The rules first (``ruled_out_reason``); then the methods placing most of the class's
    instances; among those, the lowest cost per instance-year (each GPU's cost split among its
    instances by reserved memory) whose slowdown is at most the class's limit
    (``WorkloadClass.max_slowdown``, else ``Assumptions.max_slowdown``) [-]; if none is that
    fast, the least slow.
    """
    singles = [r for r in plan.results if r.plan.method is not None]
    workload_costs = {
        r.name: workload_usd_per_instance_year(r.plan, plan.scenario) for r in singles
    }
    default = plan.scenario.assumptions.max_slowdown
    return tuple(
        _recommend(
            workload,
            plan,
            workload.max_slowdown if workload.max_slowdown is not None else default,
            workload_costs,
        )
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
