"""Physics first, for every registered method: a GPU delivers at most one GPU of work.

Generated workload mixes are packed by each method in ``METHODS`` (methods added later are
covered without a change here) on hosts of every platform, with and without MIG, and each GPU
of each plan is held to the bound: the work its instances get done, ``Σ g × b / s`` (asked
compute share × busy share / slowdown), is at most one GPU, and where instances contend for
compute (no share reserved for them) each one's slowdown is at least the busy demand on the GPU
where that passes 1. The seed's own shape (three ~30 %-busy jobs, ~1.17× each, ~2.5× the work
of one such job per GPU) is checked in ``tests/test_performance.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fleets import fleet_catalog
from planner.inputs.inventory import Inventory
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.metrics import hosts_of
from planner.methods.contract import PlanContext
from planner.methods.registry import METHODS, Method
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan, gpu_views
from planner.solve.packing import plan_method
from tests.builders import ALWAYS, every_platform_hosts, workload

CATALOG = fleet_catalog()
HOSTS = every_platform_hosts()

TOLERANCE = 1e-9


@st.composite
def _workloads(draw: st.DrawFn) -> tuple[WorkloadClass, ...]:
    """Up to four always-active classes (so each co-tenant's busy share is its busy fraction)."""
    count = draw(st.integers(1, 4))
    return tuple(
        workload(
            f"w{n}",
            kind=draw(st.sampled_from([k for k in WorkloadKind if k is not WorkloadKind.VDI])),
            instances=draw(st.integers(1, 6)),
            gpus=draw(st.sampled_from([0.1, 0.25, 0.3, 0.5, 0.9, 1.0, 2.0])),
            memory_gib=draw(st.sampled_from([4.0, 8.0, 10.0, 20.0, 40.0])),
            busy_fraction=draw(st.floats(0.05, 1.0)),
            schedule=ALWAYS,
            vcpus=1.0,
            ram_gib=1.0,
        )
        for n in range(count)
    )


def _delivered_and_floor(method: Method, scenario: Scenario) -> list[tuple[float, float, float]]:
    """Per GPU of the method's plan: work delivered [GPUs], busy demand [GPUs], and the least
    slowdown among its instances that contend for compute (inf when none do)."""
    plan = plan_method(method, scenario, exact=False)
    assert check_plan(plan, scenario) == []
    context = PlanContext.of(scenario, plan.placements, hosts_of(plan, scenario))
    rows = []
    for key, gpu in gpu_views(plan, scenario).items():
        rules = METHODS[plan.role(key)]
        delivered = demand = 0.0
        least_contended = float("inf")
        for placement in gpu.placements:
            w = context.workload(placement)
            ask = min(w.gpus, 1.0)
            slowdown = rules.slowdown(placement, gpu, context)
            assert slowdown >= 1.0 - TOLERANCE
            delivered += ask * w.busy_fraction / slowdown
            demand += ask * w.busy_fraction
            if placement.compute_share < ask:
                least_contended = min(least_contended, slowdown)
        rows.append((delivered, demand, least_contended))
    return rows


@pytest.mark.parametrize("method", list(METHODS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads=_workloads())
def test_no_gpu_delivers_more_than_one_gpu_of_work(
    method: Method, workloads: tuple[WorkloadClass, ...]
) -> None:
    scenario = Scenario(catalog=CATALOG, inventory=Inventory(HOSTS), workloads=workloads)
    for delivered, demand, least_contended in _delivered_and_floor(method, scenario):
        assert delivered <= 1.0 + TOLERANCE
        if demand > 1.0:
            assert least_contended >= demand - TOLERANCE or least_contended == float("inf")


def test_three_busy_jobs_sharing_a_gpu_get_one_gpu_of_work_done() -> None:
    """A case a tester found, under every method: three always-busy 0.9-GPU jobs that share a
    GPU get one GPU of work done together, not 2.56 (the remote pool puts all three on one GPU)."""
    job = workload("job", instances=3, gpus=0.9, memory_gib=10.0, busy_fraction=1.0,
                   schedule=ALWAYS, vcpus=1.0, ram_gib=1.0)  # fmt: skip
    scenario = Scenario(catalog=CATALOG, inventory=Inventory(HOSTS), workloads=(job,))
    most = 0.0
    for method in METHODS:
        for delivered, _, _ in _delivered_and_floor(method, scenario):
            assert delivered <= 1.0 + TOLERANCE, method
            most = max(most, delivered)
    assert most == pytest.approx(1.0)
