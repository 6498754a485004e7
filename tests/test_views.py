"""A plan's views, built once: the same GPUs, context and slowdowns as asking for each anew.

``instance_slowdowns`` asks a method's slowdown model once per distinct slot on a GPU; these
tests hold it to asking for every placement, on generated mixes packed by every method of the
registry, on hosts of every platform with MIG on and off.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fleets import NIGHT, OFFICE, fleet_catalog, workload
from planner.inputs.inventory import Inventory
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.methods.contract import PlanContext
from planner.methods.registry import METHODS, Method
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan, gpu_views
from planner.solve.packing import plan_method
from planner.solve.views import PlanView, instance_slowdowns
from tests.builders import every_platform_hosts

CATALOG = fleet_catalog()
HOSTS = every_platform_hosts()


@st.composite
def _workloads(draw: st.DrawFn) -> tuple[WorkloadClass, ...]:
    """Up to four classes of several instances each, office or night hours, so GPUs hold many
    instances of one class beside others."""
    count = draw(st.integers(1, 4))
    return tuple(
        workload(
            f"w{n}",
            kind=draw(st.sampled_from([k for k in WorkloadKind if k is not WorkloadKind.VDI])),
            instances=draw(st.integers(1, 8)),
            gpus=draw(st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0])),
            memory_gib=draw(st.sampled_from([4.0, 8.0, 10.0, 20.0])),
            busy_fraction=draw(st.floats(0.05, 1.0)),
            schedule=draw(st.sampled_from([OFFICE, NIGHT])),
            vcpus=1.0,
            ram_gib=1.0,
        )
        for n in range(count)
    )


def _each_placement(method: Method, scenario: Scenario) -> tuple[PlanView, dict[str, float]]:
    """The plan's view, and every instance's slowdown asked placement by placement (the
    slowest of its GPUs)."""
    plan = plan_method(method, scenario, exact=False)
    assert check_plan(plan, scenario) == []
    view = PlanView.of(plan, scenario)
    worst: dict[str, float] = {}
    for key, gpu in view.gpus.items():
        for p in gpu.placements:
            value = METHODS[plan.role(key)].slowdown(p, gpu, view.context)
            worst[p.instance] = max(value, worst.get(p.instance, 0.0))
    return view, worst


@pytest.mark.parametrize("method", list(METHODS), ids=lambda m: m.value)
@given(workloads=_workloads())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_slowdowns_asked_once_per_slot_equal_slowdowns_asked_per_placement(
    method: Method, workloads: tuple[WorkloadClass, ...]
) -> None:
    """Asking the slowdown model once per distinct slot on a GPU gives every placed instance
    the slowdown asking for each of its placements gives, under every method."""
    scenario = Scenario(CATALOG, Inventory(hosts=HOSTS), workloads)
    plan = plan_method(method, scenario, exact=False)
    view, expected = _each_placement(method, scenario)
    found = instance_slowdowns(plan, view)
    assert {i: s.slowdown for i, s in found.items()} == expected
    assert {s.workload for s in found.values()} <= {w.name for w in workloads}
    assert all(s.method is method for s in found.values())


def test_view_holds_the_gpus_and_context_built_apart() -> None:
    """A plan's view has the GPUs ``gpu_views`` finds and the context of its placements."""
    notebooks = workload("nb", instances=6, gpus=0.25, memory_gib=8.0, schedule=OFFICE)
    batch = workload("batch", instances=3, gpus=0.5, memory_gib=10.0, schedule=NIGHT)
    scenario = Scenario(CATALOG, Inventory(hosts=HOSTS), (notebooks, batch))
    plan = plan_method(Method("vgpu"), scenario, exact=False)
    view = PlanView.of(plan, scenario)
    assert view.gpus == gpu_views(plan, scenario)
    assert view.context == PlanContext.of(scenario, plan.placements, scenario.inventory.hosts)
    assert len(view.gpus) >= 1
