"""Passthrough: whole GPUs per instance, never shared, never for workloads that need vMotion."""

from __future__ import annotations

from collections import Counter

from bench.fleets import fleet
from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog
from planner.inputs.workloads import Instance
from planner.methods.passthrough import PASSTHROUGH, whole_gpus
from planner.methods.registry import Method
from planner.plan import SolveStatus
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method
from tests.builders import gpu_model, host, scenario_of, workload

L40S = gpu_model("L40S", 48.0)
CATALOG = Catalog(gpus={"L40S": L40S}, vgpu_profiles={}, mig_profiles={})


def test_whole_gpus_cover_compute_and_memory() -> None:
    """GPUs = max(ceil(gpus), ceil(memory / GPU memory)), at least one."""
    assert whole_gpus(workload("a", gpus=0.25, memory_gib=10), L40S) == 1
    assert whole_gpus(workload("a", gpus=1, memory_gib=60), L40S) == 2
    assert whole_gpus(workload("a", gpus=2.5, memory_gib=10), L40S) == 3
    assert whole_gpus(workload("a", gpus=1, memory_gib=48), L40S) == 1


def test_live_migration_rules_passthrough_out() -> None:
    """A workload that must be vMotioned is not eligible, and the reason says why."""
    reason = PASSTHROUGH.ineligible_reason(
        workload("a", needs_live_migration=True), L40S, CATALOG, Assumptions()
    )
    assert reason is not None
    assert "cannot be vMotioned" in reason
    assert PASSTHROUGH.ineligible_reason(workload("a"), L40S, CATALOG, Assumptions()) is None


def test_passthrough_never_shares_a_gpu() -> None:
    """Quarter-GPU instances still get a GPU each: eight instances on eight GPUs."""
    scenario = scenario_of(
        [L40S],
        [host("h1", gpus=4), host("h2", gpus=4)],
        [workload("small", instances=8, gpus=0.25, memory_gib=8, vcpus=1)],
    )
    plan = plan_method(Method.PASSTHROUGH, scenario)
    per_gpu = Counter((p.host, p.gpu_index) for p in plan.placements)
    assert len(per_gpu) == 8
    assert set(per_gpu.values()) == {1}
    assert check_plan(plan, scenario) == []


def test_stranded_capacity_is_what_the_instance_leaves() -> None:
    """A 60 GiB instance on two 48 GiB GPUs records 30 GiB used on each: 36 GiB stranded."""
    instance = Instance("a#1", workload("a", gpus=1, memory_gib=60))
    packing = PASSTHROUGH.pack_heuristic([instance], L40S, CATALOG, Assumptions())
    (request,) = packing.requests
    assert len(request.loads) == 2
    assert [s.memory_gib for load in request.loads for s in load.slots] == [30.0, 30.0]
    assert [s.compute_share for load in request.loads for s in load.slots] == [0.5, 0.5]


def test_packing_is_optimal_and_exact_agrees() -> None:
    """Without sharing, the bound is the sum of GPUs per instance and both packers reach it."""
    instances = [Instance(f"a#{i}", workload("a", gpus=i, memory_gib=8)) for i in (1, 2, 3)]
    heuristic = PASSTHROUGH.pack_heuristic(instances, L40S, CATALOG, Assumptions())
    exact = PASSTHROUGH.pack_exact(instances, L40S, CATALOG, Assumptions())
    assert heuristic == exact
    assert heuristic.lower_bound_gpus == 6
    assert heuristic.status is SolveStatus.OPTIMAL


def test_fleet_plan_is_feasible_and_reports_ineligible() -> None:
    """On a synthetic fleet every placement passes the checker; vMotion classes are not placed."""
    scenario = fleet(100)
    plan = plan_method(Method.PASSTHROUGH, scenario)
    assert check_plan(plan, scenario) == []
    movable = {w.name for w in scenario.workloads if w.needs_live_migration}
    assert movable
    assert not any(p.workload in movable for p in plan.placements)
    assert all("vMotion" in n.reason for n in plan.not_placed if n.workload in movable)
