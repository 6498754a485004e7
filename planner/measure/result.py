"""One plan with everything measured about it: metrics, cost, slowdowns and feasibility."""

from __future__ import annotations

from dataclasses import dataclass

from planner.measure.costs import CostBreakdown, plan_cost
from planner.measure.metrics import PlanMetrics, gpu_compute_utilisation, measure
from planner.measure.performance import WorkloadSlowdown, slowdowns
from planner.methods.registry import Method
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.collector import collector_paused
from planner.solve.feasibility import check_plan
from planner.solve.views import PlanView

__all__ = ["MethodResult", "measure_plan"]


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
    def method(self) -> Method | None:
        """The plan's method; None for the recommended plan, which mixes methods."""
        return self.plan.method

    @property
    def name(self) -> str:
        """The plan's id: a method's (``vgpu``), or ``recommended``."""
        return self.plan.name

    @property
    def label(self) -> str:
        """The plan's name for people."""
        return self.plan.label


@collector_paused()
def measure_plan(plan: MethodPlan, scenario: Scenario) -> MethodResult:
    """Measure one method's plan: metrics, cost, slowdowns and feasibility."""
    view = PlanView.of(plan, scenario)
    utilisation = gpu_compute_utilisation(plan, scenario)
    return MethodResult(
        plan=plan,
        metrics=measure(plan, scenario, view, utilisation),
        cost=plan_cost(plan, scenario, utilisation),
        slowdowns=slowdowns(plan, scenario, view),
        feasibility_violations=tuple(check_plan(plan, scenario, view)),
    )
