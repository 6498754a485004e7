"""Time-slicing packed within the classes' slowdown limits, and the recommended plan's hosts
re-packed by it (``planner.solve.repacking``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.inputs.inventory import Host
from planner.inputs.workloads import WorkloadClass
from planner.measure.costs import AnnualRates, plan_cost
from planner.methods.k8s_time_slicing import K8S_TIME_SLICING
from planner.methods.registry import Method
from planner.plan import GpuPacking, MethodPlan, SolveStatus
from planner.scenario import Scenario
from planner.solve import repacking
from planner.solve.feasibility import check_plan
from planner.solve.hosts import HostPool, assign_hosts
from planner.solve.mixed import over_limit, recommend, slowdown_limit
from planner.solve.packing import instances_of
from tests.builders import ALWAYS, OFFICE
from tests.k8s_fixtures import CATALOG, L40S, node, pod, scenario

METHOD = Method.K8S_TIME_SLICING


def _within(sc: Scenario, host: Host) -> GpuPacking:
    packing = K8S_TIME_SLICING.pack_within_limits(
        instances_of(sc.workloads),
        host,
        CATALOG.gpus[host.gpu_model],
        sc.assumptions,
        lambda w: slowdown_limit(w, sc),
    )
    assert packing is not None
    return packing


def _placed(sc: Scenario, packing: GpuPacking) -> MethodPlan:
    """The packing on the scenario's hosts, as a time-slicing plan."""
    assigned = assign_hosts(packing.requests, HostPool(sc.inventory.hosts))
    return MethodPlan(
        METHOD,
        assigned.placements,
        assigned.not_placed,
        assigned.gpu_configs,
        0,
        SolveStatus.HEURISTIC,
        0.0,
        hosts=sc.inventory.hosts,
        roles=dict.fromkeys(assigned.gpu_configs, METHOD),
    )


def _busy(name: str, instances: int, gpus: float, limit: float | None = None) -> WorkloadClass:
    return replace(
        pod(name, instances=instances, gpus=gpus, memory_gib=8, busy_fraction=1.0),
        max_slowdown=limit,
    )


@pytest.mark.parametrize(("limit", "gpus"), [(1.2, 3), (1.5, 2)])
def test_always_busy_half_gpu_pods_share_as_far_as_their_limit_allows(
    limit: float, gpus: int
) -> None:
    """Six always-busy pods asking half a GPU: three on a GPU ask 1.5 GPUs of work (1.5× each),
    two ask 1 (1.02× with the switch overhead); four replicas by memory would put four on a
    GPU, 2× each. Within 1.5×, two GPUs of three; within 1.2×, three GPUs of two (two GPUs
    would hold three on one, 1.5× each)."""
    sc = scenario([_busy("half", 6, 0.5, limit)], [node("k1", L40S, 4)])
    dense = K8S_TIME_SLICING.pack_heuristic(
        instances_of(sc.workloads), CATALOG.gpus[L40S], CATALOG, sc.assumptions
    )
    assert max(len(r.loads[0].slots) for r in dense.requests) == 4
    packing = _within(sc, sc.inventory.hosts[0])
    assert len(packing.requests) == gpus
    plan = _placed(sc, packing)
    assert check_plan(plan, sc) == []
    assert over_limit(sc, plan) == set()


def test_a_class_over_its_limit_when_shared_is_held_to_it_on_average() -> None:
    """Eight always-busy pods asking 0.8 of a GPU: two on a GPU ask 1.6 GPUs of work, 1.6×
    each, over a limit of 1.5×; half of them paired and half alone average 1.3×. Every pod
    alone and the small ones four to a GPU would take ten GPUs."""
    sc = scenario(
        [_busy("big", 8, 0.8, 1.5), _busy("small", 8, 0.2, 1.5)],
        [node("k1", L40S, 4), node("k2", L40S, 4), node("k3", L40S, 4)],
    )
    packing = _within(sc, sc.inventory.hosts[0])
    plan = _placed(sc, packing)
    assert check_plan(plan, sc) == []
    assert over_limit(sc, plan) == set()
    assert len(plan.placements) == 16
    assert len(plan.gpu_configs) < 10
    bigs = Counter((p.host, p.gpu_index) for p in plan.placements if p.workload == "big")
    assert max(bigs.values()) == 2
    assert min(bigs.values()) == 1


@st.composite
def _classes(draw: st.DrawFn) -> list[WorkloadClass]:
    count = draw(st.integers(1, 4))
    return [
        replace(
            pod(
                f"c{i}",
                instances=draw(st.integers(1, 12)),
                gpus=draw(st.sampled_from([0.1, 0.25, 0.4, 0.5, 0.8, 1.0])),
                memory_gib=draw(st.sampled_from([2.0, 8.0, 20.0, 40.0])),
                busy_fraction=draw(st.sampled_from([0.1, 0.3, 0.6, 1.0])),
                schedule=draw(st.sampled_from([ALWAYS, OFFICE])),
                vcpus=draw(st.sampled_from([1.0, 4.0, 12.0])),
            ),
            max_slowdown=draw(st.sampled_from([None, 1.1, 1.3, 2.0])),
        )
        for i in range(count)
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(classes=_classes())
def test_packings_within_limits_pass_the_checker_and_keep_every_mean_within(
    classes: list[WorkloadClass],
) -> None:
    hosts = [node(f"k{i}", L40S, 4, cpu_cores=32, ram_gib=256) for i in range(20)]
    sc = scenario(classes, hosts)
    packing = _within(sc, hosts[0])
    plan = _placed(sc, packing)
    assert check_plan(plan, sc) == []
    assert over_limit(sc, plan) == set()
    served = {p.instance for p in plan.placements}
    assert len(served) + len(packing.not_placed) == sum(w.instances for w in classes)


def _mixed_estate() -> Scenario:
    """Big and small always-busy pods on Kubernetes L40S nodes: options give each class one
    slowdown, that of a GPU filled with its own kind, so they never share."""
    return scenario(
        [_busy("big", 12, 0.8), _busy("medium", 8, 0.5), _busy("small", 24, 0.2)],
        [node(f"k{i}", L40S, 4, cpu_cores=64, ram_gib=512) for i in range(8)],
    )


def _recommended_usd(sc: Scenario) -> tuple[MethodPlan, float]:
    plan = recommend(sc, AnnualRates(sc), methods=(METHOD, Method.FRACTIONAL)).plan
    return plan, plan_cost(plan, sc).total_usd_per_year


def test_the_recommended_plan_is_no_dearer_than_time_slicing_packed_within_limits() -> None:
    sc = _mixed_estate()
    sceptic = _placed(sc, _within(sc, sc.inventory.hosts[0]))
    assert check_plan(sceptic, sc) == []
    assert over_limit(sc, sceptic) == set()
    assert len(sceptic.placements) == 44
    plan, usd = _recommended_usd(sc)
    assert check_plan(plan, sc) == []
    assert over_limit(sc, plan) == set()
    assert len({p.instance for p in plan.placements}) == 44
    assert usd <= plan_cost(sceptic, sc).total_usd_per_year + 1e-6


def test_without_re_packing_the_estate_costs_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """The case above needs the re-packing: the options alone keep the classes apart."""
    sc = _mixed_estate()
    _, usd = _recommended_usd(sc)

    def nothing(*args: object) -> Sequence[object]:
        return []

    monkeypatch.setattr("planner.solve.mixed.repacked", nothing)
    _, without = _recommended_usd(sc)
    assert usd < without
    assert repacking.repacked is not nothing


def test_a_pod_bigger_than_a_host_is_left_out_saying_so() -> None:
    sc = scenario(
        [replace(pod("wide", instances=2, gpus=0.25, memory_gib=4), vcpus=48.0)],
        [node("k1", L40S, 4, cpu_cores=32, ram_gib=256)],
    )
    packing = _within(sc, sc.inventory.hosts[0])
    assert packing.requests == ()
    assert len(packing.not_placed) == 2
    assert "48 cores" in packing.not_placed[0].reason
    assert "32 cores" in packing.not_placed[0].reason
