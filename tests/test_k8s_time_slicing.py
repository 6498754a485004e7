"""Time-slicing on Kubernetes: eligibility, nodes, packing, the out-of-memory rule, slowdown."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.assumptions import Assumptions
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.performance import slowdowns
from planner.methods.k8s_time_slicing import (
    K8S_TIME_SLICING,
    MAX_PATTERNS,
    PROFILE,
    pod_patterns,
    time_slicing_slowdown,
)
from planner.methods.registry import Method, host_reason, workload_reason
from planner.plan import GpuPacking, SolveStatus
from planner.solve.feasibility import check_plan
from planner.solve.packing import instances_of, packing_gpus, plan_method
from tests.builders import ALWAYS, NIGHT, OFFICE
from tests.k8s_fixtures import A100, CATALOG, L40S, fewest_gpus, hand_plan, node, pod, row, scenario

MODEL = CATALOG.gpus[A100]
ASSUME = Assumptions()


def _reason(workload: WorkloadClass, platform: Platform = Platform.KUBERNETES) -> str | None:
    return workload_reason(Method.K8S_TIME_SLICING, workload, MODEL, platform, CATALOG, ASSUME)


# Eligibility and nodes


def test_a_pod_of_one_gpu_or_less_that_fits_the_gpu_is_eligible() -> None:
    """A pod asking a whole GPU or a share of one, within the frame buffer, takes a replica."""
    assert _reason(pod("one", gpus=1, memory_gib=80)) is None
    assert _reason(pod("quarter", gpus=0.25, memory_gib=10)) is None


def test_a_pod_needing_more_than_one_gpu_is_not_eligible() -> None:
    """Replicas of one GPU add no compute, so a 2-GPU pod is refused, saying why."""
    reason = _reason(pod("pair", gpus=2, memory_gib=40))
    assert reason is not None
    assert "one replica" in reason


def test_a_pod_bigger_than_the_gpu_memory_is_not_eligible() -> None:
    """A pod of 81 GiB does not fit an 80 GiB GPU it shares."""
    reason = _reason(pod("big", gpus=0.5, memory_gib=81))
    assert reason is not None
    assert "81 GiB" in reason


def test_a_pod_needing_isolation_is_not_eligible() -> None:
    """Time-sliced pods share memory and fault domain: isolation rules the method out."""
    reason = _reason(pod("iso", gpus=0.5, memory_gib=10, needs_isolation=True))
    assert reason is not None
    assert "isolation" in reason


def test_desktops_and_live_migration_are_refused_by_the_platform_rule() -> None:
    """On Kubernetes a virtual desktop or a pod that must live-migrate is refused before the
    method's own rule is asked."""
    desktop = pod("vdi", kind=WorkloadKind.VDI, gpus=0.25, memory_gib=4)
    mobile = pod("mobile", gpus=0.25, memory_gib=4, needs_live_migration=True)
    assert "virtual desktop" in (_reason(desktop) or "")
    assert "live migration" in (_reason(mobile) or "")


def test_nodes_need_kubernetes_and_mig_off() -> None:
    """A Kubernetes node with MIG off (or no MIG) is usable; MIG on, or a vSphere host, is not."""
    method = Method.K8S_TIME_SLICING
    assert host_reason(method, node("off", mig=False), CATALOG) is None
    assert host_reason(method, node("l40s", L40S, 4, mig=False), CATALOG) is None
    assert "MIG mode is on" in (host_reason(method, node("on", mig=True), CATALOG) or "")
    vsphere = replace(node("vs"), platform=Platform.VSPHERE)
    assert "Kubernetes" in (host_reason(method, vsphere, CATALOG) or "")


@pytest.mark.parametrize("value", [0, 2.5])
def test_time_slicing_replicas_validate_themselves(value: float) -> None:
    """Time-slicing replicas are a whole number, at least 1."""
    with pytest.raises(ValueError, match="time_slicing_replicas"):
        Assumptions().with_facts({"time_slicing_replicas": value})


# Packing


def _pack(
    workloads: list[WorkloadClass], assumptions: Assumptions = ASSUME, *, exact: bool
) -> GpuPacking:
    instances = instances_of(workloads)
    pack = K8S_TIME_SLICING.pack_exact if exact else K8S_TIME_SLICING.pack_heuristic
    return pack(instances, MODEL, CATALOG, assumptions)


def test_pods_never_exceed_replicas_or_memory_on_a_gpu() -> None:
    """Six 30 GiB pods with four replicas: two fit a GPU by memory, so three GPUs, optimal."""
    packing = _pack([pod("p", instances=6, gpus=0.25, memory_gib=30)], exact=False)
    assert packing_gpus(packing) == 3
    assert packing.status is SolveStatus.OPTIMAL
    for request in packing.requests:
        (load,) = request.loads
        assert len(load.slots) <= 4
        assert sum(s.memory_gib for s in load.slots) <= 80
        assert {s.profile for s in load.slots} == {PROFILE}


def test_small_pods_fill_the_replicas() -> None:
    """Nine 5 GiB pods with four replicas need ceil(9 / 4) = 3 GPUs."""
    packing = _pack([pod("p", instances=9, gpus=0.1, memory_gib=5)], exact=True)
    assert packing_gpus(packing) == packing.lower_bound_gpus == 3


def test_heuristic_mixes_large_and_small_pods_to_meet_the_bound() -> None:
    """Sixteen 40 GiB and thirty-two 12 GiB pods: pairing the large pods (best fit alone) needs
    16 GPUs; one large and three small per GPU where it helps needs 14, the LP bound."""
    workloads = [
        pod("large", instances=16, gpus=1, memory_gib=40),
        pod("small", instances=32, gpus=0.25, memory_gib=12),
    ]
    for exact in (False, True):
        packing = _pack(workloads, exact=exact)
        assert packing_gpus(packing) == packing.lower_bound_gpus == 14
        assert packing.status is SolveStatus.OPTIMAL


def test_ineligible_pods_are_not_placed_with_the_reason() -> None:
    """A 2-GPU pod and a 100 GiB pod are listed as not placed; the rest is packed."""
    packing = _pack(
        [
            pod("ok", instances=2, gpus=0.5, memory_gib=10),
            pod("pair", gpus=2, memory_gib=40),
            pod("huge", gpus=0.5, memory_gib=100),
        ],
        exact=False,
    )
    assert sorted(n.workload for n in packing.not_placed) == ["huge", "pair"]
    assert packing_gpus(packing) == 1


def test_too_many_pod_sizes_keep_the_heuristic() -> None:
    """Thirty distinct pod sizes with twelve replicas have more than MAX_PATTERNS ways to fill a
    GPU: the exact packer keeps best fit decreasing (said in a note) and the plan is feasible."""
    sizes = [1 + 2 * k for k in range(30)]
    assert pod_patterns([s * 1024 * 1024 for s in sizes], 80 * 1024 * 1024, 12) is None
    workloads = [pod(f"s{s}", instances=2, gpus=0.1, memory_gib=s) for s in sizes]
    assumptions = ASSUME.with_facts({"time_slicing_replicas": 12})
    packing = _pack(workloads, assumptions, exact=True)
    assert any(str(MAX_PATTERNS) in n for n in packing.notes)
    assert packing.lower_bound_gpus <= packing_gpus(packing)
    plan = plan_method(Method.K8S_TIME_SLICING, scenario(workloads, assumptions=assumptions))
    assert check_plan(plan, scenario(workloads, assumptions=assumptions)) == []


_SIZES = st.sampled_from([2.0, 5.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 30.0, 40.0, 50.0, 80.0])


@st.composite
def _mixes(draw: st.DrawFn) -> tuple[list[WorkloadClass], Assumptions]:
    classes = draw(st.integers(1, 4))
    workloads = [
        pod(
            f"c{k}",
            instances=draw(st.integers(1, 12)),
            gpus=draw(st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0])),
            memory_gib=draw(_SIZES),
            busy_fraction=draw(st.sampled_from([0.1, 0.3, 0.7, 1.0])),
            schedule=draw(st.sampled_from([ALWAYS, OFFICE, NIGHT])),
            vcpus=draw(st.sampled_from([1.0, 4.0, 16.0])),
            priority=draw(st.integers(1, 3)),
        )
        for k in range(classes)
    ]
    assumptions = ASSUME.with_facts(
        {"time_slicing_replicas": draw(st.integers(1, 8)), "time_limit_s": 2.0}
    )
    return workloads, assumptions


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mixes())
def test_generated_plans_pass_the_checker_and_exact_beats_heuristic(
    mix: tuple[list[WorkloadClass], Assumptions],
) -> None:
    """On generated pod mixes and replica counts: plans on two nodes pass the checker (every
    GPU within replicas and memory); the exact packer never uses more GPUs than the heuristic;
    the lower bound never exceeds either; the demand rows never ask more than the exact packer,
    and as many when it is proven optimal."""
    workloads, assumptions = mix
    case = scenario(workloads, [node("k1", cpu_cores=64), node("k2", cpu_cores=64)], assumptions)
    for exact in (False, True):
        plan = plan_method(Method.K8S_TIME_SLICING, case, exact=exact)
        assert check_plan(plan, case) == []
    heuristic = _pack(workloads, assumptions, exact=False)
    exact_packing = _pack(workloads, assumptions, exact=True)
    assert packing_gpus(exact_packing) <= packing_gpus(heuristic)
    assert heuristic.lower_bound_gpus <= packing_gpus(exact_packing)
    demand = K8S_TIME_SLICING.gpu_demand(workloads, MODEL, CATALOG, assumptions)
    counts = {w.name: w.instances for w in workloads if w.name in demand.use}
    fewest = fewest_gpus(demand, counts)
    assert fewest <= packing_gpus(exact_packing)
    if demand.exact and exact_packing.status is SolveStatus.OPTIMAL:
        assert fewest == packing_gpus(exact_packing)


def test_demand_rows_relax_the_rule_when_pod_sets_are_too_many() -> None:
    """With more maximal pod sets than MAX_PATTERNS the rows are replicas and memory, marked
    not exact; a class that cannot be a time-sliced pod is left out."""
    workloads = [pod(f"s{k}", gpus=0.1, memory_gib=1 + 2 * k) for k in range(30)]
    workloads.append(pod("pair", gpus=2, memory_gib=10))
    assumptions = ASSUME.with_facts({"time_slicing_replicas": 12})
    demand = K8S_TIME_SLICING.gpu_demand(workloads, MODEL, CATALOG, assumptions)
    assert not demand.exact
    assert demand.dimensions == ("replicas", "memory [GiB]")
    assert demand.patterns == ((12.0, 80.0),)
    assert "pair" not in demand.use


# The checker


def test_pods_whose_memory_exceeds_the_gpu_are_an_out_of_memory_risk() -> None:
    """Two 50 GiB pods on one 80 GiB GPU: the checker names the out-of-memory risk."""
    case = scenario([pod("p", instances=2, gpus=0.5, memory_gib=50)])
    plan = hand_plan(
        Method.K8S_TIME_SLICING, [row("p#1", memory_gib=50), row("p#2", memory_gib=50)]
    )
    problems = check_plan(plan, case)
    assert any("out-of-memory risk" in p and "100 GiB" in p for p in problems), problems


def test_more_pods_than_replicas_on_a_gpu_are_refused() -> None:
    """Five pods on a GPU with four replicas break the device plugin's rule."""
    case = scenario([pod("p", instances=5, gpus=0.1, memory_gib=5)])
    plan = hand_plan(Method.K8S_TIME_SLICING, [row(f"p#{i}", memory_gib=5) for i in range(1, 6)])
    assert any("5 time-sliced pods" in p and "4 replicas" in p for p in check_plan(plan, case))


def test_a_pod_on_two_gpus_is_refused() -> None:
    """A time-sliced pod holds one replica, so one GPU."""
    case = scenario([pod("p", gpus=1, memory_gib=20)])
    plan = hand_plan(
        Method.K8S_TIME_SLICING, [row("p#1", memory_gib=10), row("p#1", gpu=1, memory_gib=10)]
    )
    assert any("holds 2 GPUs" in p for p in check_plan(plan, case))


def test_a_time_sliced_node_on_mig_is_refused() -> None:
    """The role cannot set up a node whose GPUs have MIG mode on."""
    case = scenario([pod("p", gpus=0.5, memory_gib=10)], [node("k1", mig=True)])
    plan = hand_plan(Method.K8S_TIME_SLICING, [row("p#1")])
    assert any("MIG mode is on" in p for p in check_plan(plan, case))


# Slowdown


def test_three_pods_a_third_busy_each_run_about_17_percent_slower() -> None:
    """VMware's seed point: three jobs, each 30 % busy on a whole GPU, sharing one GPU by
    time-slicing, each run ~1.17× slower."""
    case = scenario([pod("job", instances=3, gpus=1, memory_gib=20, busy_fraction=0.3)])
    plan = plan_method(Method.K8S_TIME_SLICING, case)
    assert len(plan.gpu_configs) == 1
    (result,) = slowdowns(plan, case)
    assert result.slowdown == pytest.approx(1.17, abs=0.005)


@given(st.integers(1, 12))
def test_always_busy_pods_each_run_at_least_n_times_slower(pods: int) -> None:
    """A GPU never does more than one GPU of work: n always-busy whole-GPU pods on one GPU each
    run at least n× slower."""
    assumptions = ASSUME.with_facts({"time_slicing_replicas": max(pods, 1)})
    workloads = [
        pod("busy", instances=pods, gpus=1, memory_gib=float(80 // pods), busy_fraction=1.0)
    ]
    case = scenario(workloads, [node("k1", gpus=1)], assumptions)
    plan = plan_method(Method.K8S_TIME_SLICING, case)
    assert len(plan.gpu_configs) == 1
    assert check_plan(plan, case) == []
    (result,) = slowdowns(plan, case)
    assert result.slowdown >= pods - 1e-9


@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=8),
    st.floats(0.0, 1.0),
)
def test_slowdown_is_at_least_one_and_the_gpus_busy_demand(
    busy: float, asked: float, others: list[tuple[float, float]], switch: float
) -> None:
    """For any busy shares, asks and switch overhead, a pod is never faster than bare metal and
    never faster than the GPU's busy demand allows (``b g + Σ g_j d_j``)."""
    co_busy = [d for d, _ in others]
    co_demand = [d * g for d, g in others]
    value = time_slicing_slowdown(
        busy,
        asked,
        co_busy,
        co_demand,
        performance_constants={"time_slicing_switch_overhead": switch},
    )
    assert value >= 1.0 - 1e-12
    assert value >= busy * asked + sum(co_demand) - 1e-12


def test_a_pod_alone_runs_at_bare_metal_speed() -> None:
    """Without co-residents a time-sliced pod pays nothing."""
    assert time_slicing_slowdown(0.7, 1.0, [], []) == pytest.approx(1.0)


def test_the_seed_point_holds_whatever_switch_overhead_is_set() -> None:
    """κ is recalibrated from the switch overhead in use, so the seed point stays at 1.17."""
    for switch in (0.0, 0.05, 0.1):
        value = time_slicing_slowdown(
            0.3,
            1.0,
            [0.3, 0.3],
            [0.3, 0.3],
            performance_constants={"time_slicing_switch_overhead": switch},
        )
        assert value == pytest.approx(1.17, abs=1e-9)


def test_idle_co_residents_do_not_slow_a_pod() -> None:
    """An office-hours pod and a night pod share a GPU without meeting: no slowdown."""
    case = scenario(
        [
            pod("day", gpus=1, memory_gib=20, busy_fraction=1.0, schedule=OFFICE),
            pod("night", gpus=1, memory_gib=20, busy_fraction=1.0, schedule=NIGHT),
        ],
        [node("k1", gpus=1)],
    )
    plan = plan_method(Method.K8S_TIME_SLICING, case)
    assert {r.slowdown for r in slowdowns(plan, case)} == {1.0}
