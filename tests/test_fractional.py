"""Fractional GPUs on Kubernetes: eligibility, packing onto nodes, the checker's rules, slowdown."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.assumptions import Assumptions
from planner.inputs.platform import Platform
from planner.methods.contract import GpuView
from planner.methods.fractional import (
    FRACTIONAL,
    ISOLATION_OVERHEAD,
    SHARE,
    fractional_slowdown,
)
from planner.methods.registry import Method, methods_for
from planner.plan import Placement
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan, gpu_views
from planner.solve.packing import plan_method
from tests.builders import gpu_model, host, scenario_of, workload

T4 = gpu_model("T4", 16.0)
L40S = gpu_model("L40S", 48.0)
K8S = Platform.KUBERNETES


def _scenario(*workloads: object, hosts: list | None = None) -> Scenario:  # type: ignore[type-arg]
    nodes = hosts or [host("n1", "L40S", 8, platform=K8S), host("n2", "T4", 2, platform=K8S)]
    return scenario_of([T4, L40S], nodes, list(workloads))  # type: ignore[arg-type]


def test_fractional_runs_on_kubernetes_only() -> None:
    """The method is offered for Kubernetes nodes and not for vSphere hosts."""
    assert Method.FRACTIONAL in methods_for(Platform.KUBERNETES)
    assert Method.FRACTIONAL not in methods_for(Platform.VSPHERE)


def test_shares_pack_onto_gpus_and_pass_the_checker() -> None:
    """Ten 0.3-GPU pods, two 2-GPU pods and a T4-only pod: every pod placed, the multi-GPU pods
    each on one node, the T4 pod on a T4, and the plan passes the checker."""
    scenario = _scenario(
        workload("small", instances=10, gpus=0.3, memory_gib=4.0, vcpus=1, ram_gib=2),
        workload("pair", instances=2, gpus=2, memory_gib=60.0, vcpus=4, ram_gib=8),
        workload("t4only", gpus=0.5, memory_gib=6.0, gpu_models=("T4",)),
    )
    plan = plan_method(Method.FRACTIONAL, scenario)
    assert plan.not_placed == ()
    assert check_plan(plan, scenario) == []
    pair_hosts = {p.instance: p.host for p in plan.placements if p.workload == "pair"}
    assert len(pair_hosts) == 2
    assert [p.gpu_model for p in plan.placements if p.workload == "t4only"] == ["T4"]
    # 10 × 0.3 + 0.5 of shares and 4 whole GPUs: at least 8 GPUs, and best fit needs no more.
    assert plan.lower_bound_gpus <= len(plan.gpu_configs) <= 9


def test_memory_share_takes_its_share_of_each_gpu_model() -> None:
    """A pod with memory_share 0.5 takes 8 GiB of a T4 and 24 GiB of an L40S."""
    pod = replace(workload("half", gpus=0.5, memory_gib=8.0), memory_share=0.5)
    assert pod.memory_on(T4.memory_gib) == 8.0
    assert pod.memory_on(L40S.memory_gib) == 24.0
    scenario = _scenario(replace(pod, instances=4))
    plan = plan_method(Method.FRACTIONAL, scenario)
    assert check_plan(plan, scenario) == []
    for p in plan.placements:
        assert p.memory_gib == pytest.approx(0.5 * (16.0 if p.gpu_model == "T4" else 48.0))


def test_eligibility_needs_software_isolation_to_be_enough() -> None:
    """A share needing hardware isolation, or more memory than one GPU, is not eligible; a
    whole-GPU pod needing isolation is (it owns its GPUs)."""
    a = Assumptions()
    catalog = _scenario().catalog
    isolated = workload("iso", gpus=0.5, needs_isolation=True)
    assert "hardware isolation" in (FRACTIONAL.ineligible_reason(isolated, L40S, catalog, a) or "")
    assert FRACTIONAL.ineligible_reason(replace(isolated, gpus=1.0), L40S, catalog, a) is None
    big = workload("big", gpus=0.5, memory_gib=20.0)
    assert "more than a T4 has" in (FRACTIONAL.ineligible_reason(big, T4, catalog, a) or "")
    assert FRACTIONAL.ineligible_reason(big, L40S, catalog, a) is None


def _broken(scenario: Scenario, **changes: object) -> list[str]:
    plan = plan_method(Method.FRACTIONAL, scenario)
    first = plan.placements[0]
    moved = tuple(
        replace(p, host=first.host, gpu_index=first.gpu_index, gpu_model=first.gpu_model, **changes)  # type: ignore[arg-type]
        for p in plan.placements
    )
    return check_plan(replace(plan, placements=moved), scenario)


def test_checker_refuses_more_than_one_gpu_of_compute() -> None:
    """Four 0.4-GPU pods crammed onto one GPU break the compute rule."""
    scenario = _scenario(workload("p", instances=4, gpus=0.4, memory_gib=1.0))
    problems = _broken(scenario)
    assert any("GPUs of compute shares" in p for p in problems), problems


def test_checker_refuses_a_shared_whole_gpu() -> None:
    """Two whole-GPU pods on one GPU break the whole-GPU rule."""
    scenario = _scenario(workload("w", instances=2, gpus=1.0, memory_gib=1.0))
    problems = _broken(scenario)
    assert any("whole GPU of one pod" in p for p in problems), problems


def _view(placements: list[Placement], scenario: Scenario) -> tuple[GpuView, object]:
    plan = plan_method(Method.FRACTIONAL, scenario)
    plan = replace(plan, placements=tuple(placements))
    views = gpu_views(plan, scenario)
    from planner.methods.contract import PlanContext

    return views[(placements[0].host, 0)], PlanContext.of(
        scenario, placements, scenario.inventory.hosts
    )


def test_slowdown_alone_is_bare_metal_and_grows_with_busy_neighbours() -> None:
    """Alone on its GPU a share runs at bare metal; beside an always-busy pod it pays the
    isolation overhead (a guess, flagged as one)."""
    scenario = _scenario(
        workload("a", gpus=0.5, memory_gib=1.0, busy_fraction=1.0),
        workload("b", gpus=0.5, memory_gib=1.0, busy_fraction=1.0),
    )
    alone = Placement("a#1", "a", "n1", 0, "L40S", SHARE, 1.0, 0.5)
    other = Placement("b#1", "b", "n1", 0, "L40S", SHARE, 1.0, 0.5)
    gpu, context = _view([alone], scenario)
    assert FRACTIONAL.slowdown(alone, gpu, context) == 1.0  # type: ignore[arg-type]
    gpu, context = _view([alone, other], scenario)
    expected = 1.0 + ISOLATION_OVERHEAD.value
    assert FRACTIONAL.slowdown(alone, gpu, context) == pytest.approx(expected)  # type: ignore[arg-type]
    assert ISOLATION_OVERHEAD.is_guess


@pytest.mark.parametrize("pods", [2, 3, 5])
def test_slowdown_obeys_one_gpu_of_work(pods: int) -> None:
    """Pods of 0.6 GPU each, all busy, ask for ``0.6 × pods`` GPUs: past one GPU the slowdown is
    at least that demand, since a GPU never delivers more than one GPU of work."""
    co_busy = [1.0] * (pods - 1)
    slowdown = fractional_slowdown(co_busy, 0.6 * (pods - 1), 0.6, ISOLATION_OVERHEAD.value)
    assert slowdown >= 0.6 * pods
    assert slowdown >= 1.0


def test_licence_is_the_ai_enterprise_setting() -> None:
    """No vGPU licence; the NVIDIA AI Enterprise price applies only when set."""
    node = host("n", platform=K8S)
    assert FRACTIONAL.licence_usd_per_gpu_year(node, Assumptions()) == 0.0
    priced = Assumptions().with_facts({"ai_enterprise_usd_per_gpu_year": 4500.0})
    assert FRACTIONAL.licence_usd_per_gpu_year(node, priced) == 4500.0


def test_gpu_demand_rows_bound_the_packing() -> None:
    """The MILP rows: a share uses its compute and memory share, a 2-GPU pod two whole GPUs;
    the rows are a relaxation (not exact)."""
    catalog = _scenario().catalog
    demand = FRACTIONAL.gpu_demand(
        [workload("s", gpus=0.25, memory_gib=12.0), workload("w", gpus=2, memory_gib=10.0)],
        L40S,
        catalog,
        Assumptions(),
    )
    assert demand.use["s"][:3] == pytest.approx((0.0, 0.25, 0.25))
    assert demand.use["w"] == (2.0,) + (0.0,) * (len(demand.dimensions) - 1)
    # A plan is built on the unrounded rows.
    assert demand.planning_use("s") == pytest.approx((0.0, 0.25, 0.25, 0.0, 0.0))
    assert not demand.exact


def test_gpu_demand_counts_shares_too_large_to_pair_up() -> None:
    """Five pods of 0.6 GPU each need five GPUs (no two fit on one); by volume the rows said
    three. A pod of 0.3 beside them still needs no GPU of its own."""
    from tests.k8s_fixtures import fewest_gpus

    catalog = _scenario().catalog
    pods = [workload("big", gpus=0.6, memory_gib=4.0), workload("small", gpus=0.3, memory_gib=4.0)]
    demand = FRACTIONAL.gpu_demand(pods, L40S, catalog, Assumptions())
    assert fewest_gpus(demand, {"big": 5, "small": 0}) == 5
    assert fewest_gpus(demand, {"big": 5, "small": 1}) == 5
    assert fewest_gpus(demand, {"big": 0, "small": 7}) == 3
    # The packer agrees: five GPUs for the five pods.
    packed = plan_method(Method.FRACTIONAL, _scenario(replace(pods[0], instances=5)))
    assert len({(p.host, p.gpu_index) for p in packed.placements}) == 5
