"""A plan as the methods' rules see it: built once, shared by everything that measures it.

Metrics, slowdowns, the feasibility checker and the recommended plan's limit check all look at
the same GPUs in use (``GpuView``) and the same ``PlanContext``; ``PlanView`` builds both once
per plan, so a comparison of many plans on a large estate walks each plan's placements once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from planner.methods.contract import GpuKey, GpuView, PlanContext
from planner.methods.registry import METHODS, Method
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.feasibility import gpu_views

__all__ = ["InstanceSlowdown", "PlanView", "instance_slowdowns"]


@dataclass(frozen=True)
class PlanView:
    """Every GPU in use in a plan with its placements, and the plan's context."""

    gpus: Mapping[GpuKey, GpuView]
    """Every GPU in use whose host and model are known, by key (``gpu_views``)."""
    context: PlanContext
    """The plan's placements on the hosts it could use (``plan.hosts``, else the inventory)."""

    @classmethod
    def of(cls, plan: MethodPlan, scenario: Scenario) -> PlanView:
        hosts = plan.hosts or scenario.inventory.hosts
        return cls(gpu_views(plan, scenario), PlanContext.of(scenario, plan.placements, hosts))


@dataclass(frozen=True)
class InstanceSlowdown:
    """One placed instance's runtime over bare metal, and the role it runs under."""

    workload: str
    method: Method
    """The role of the last of its GPUs in plan order (an instance's GPUs share one role)."""
    slowdown: float
    """On its slowest GPU [-]."""


def instance_slowdowns(plan: MethodPlan, view: PlanView) -> dict[str, InstanceSlowdown]:
    """Every placed instance's slowdown by its GPUs' role (``SharingMethod.slowdown``); an
    instance spanning several GPUs runs at the pace of its slowest GPU.

    A slowdown depends on the instance's slot and its co-tenants, never on the instance's id,
    so slots that differ only in the instance are worked out once per GPU (a GPU shared by ten
    notebooks of one class asks the model once, not ten times).
    """
    result: dict[str, InstanceSlowdown] = {}
    for key, gpu in view.gpus.items():
        method = plan.role(key)
        rules = METHODS[method]
        known: dict[tuple[object, ...], float] = {}
        for p in gpu.placements:
            slot = (p.workload, p.profile, p.memory_gib, p.compute_share, p.start_slice)
            value = known.get(slot)
            if value is None:
                value = known[slot] = rules.slowdown(p, gpu, view.context)
            before = result.get(p.instance)
            worst = value if before is None else max(value, before.slowdown)
            result[p.instance] = InstanceSlowdown(p.workload, method, worst)
    return result
