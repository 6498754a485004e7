"""MPS on Kubernetes: eligibility by replica memory, nodes, packing, the checker, slowdown."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assumptions import Assumptions
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.performance import slowdowns
from planner.methods.k8s_mps import (
    K8S_MPS,
    MAX_MPS_CLIENTS,
    PROFILE,
    mps_slowdown,
    replica_memory_gib,
)
from planner.methods.registry import Method, host_reason, workload_reason
from planner.plan import SolveStatus
from planner.solve.feasibility import check_plan
from planner.solve.packing import instances_of, packing_gpus, plan_method
from tests.builders import ALWAYS, NIGHT, OFFICE
from tests.k8s_fixtures import A100, CATALOG, L40S, fewest_gpus, hand_plan, node, pod, row, scenario

MODEL = CATALOG.gpus[A100]
ASSUME = Assumptions()


def _reason(workload: WorkloadClass, assumptions: Assumptions = ASSUME) -> str | None:
    return workload_reason(
        Method.K8S_MPS, workload, MODEL, Platform.KUBERNETES, CATALOG, assumptions
    )


# Eligibility, nodes and settings


def test_a_pod_within_one_replicas_memory_is_eligible() -> None:
    """Four replicas of an 80 GiB GPU allow 20 GiB each: a 20 GiB pod of up to one GPU fits."""
    assert replica_memory_gib(MODEL, 4) == 20
    assert _reason(pod("fits", gpus=1, memory_gib=20)) is None


def test_a_pod_above_one_replicas_memory_is_not_eligible() -> None:
    """A 21 GiB pod exceeds a 20 GiB replica; with two replicas (40 GiB each) it fits."""
    reason = _reason(pod("big", gpus=0.25, memory_gib=21))
    assert reason is not None
    assert "20 GiB" in reason
    assert (
        _reason(pod("big", gpus=0.25, memory_gib=21), ASSUME.with_facts({"mps_replicas": 2}))
        is None
    )


def test_a_pod_needing_more_than_one_gpu_or_isolation_is_not_eligible() -> None:
    """The device plugin refuses requests for several MPS replicas; MPS shares a fault domain."""
    assert "one replica" in (_reason(pod("pair", gpus=2, memory_gib=10)) or "")
    assert "isolation" in (_reason(pod("iso", gpus=0.1, memory_gib=5, needs_isolation=True)) or "")


def test_desktops_and_live_migration_are_refused_by_the_platform_rule() -> None:
    """On Kubernetes a virtual desktop or a pod that must live-migrate is refused."""
    assert _reason(pod("vdi", kind=WorkloadKind.VDI, gpus=0.25, memory_gib=4)) is not None
    assert _reason(pod("m", gpus=0.25, memory_gib=4, needs_live_migration=True)) is not None


def test_nodes_need_kubernetes_and_mig_off() -> None:
    """NVIDIA's plugin does not run MPS on MIG-enabled devices; vSphere hosts are refused."""
    assert host_reason(Method.K8S_MPS, node("off"), CATALOG) is None
    assert host_reason(Method.K8S_MPS, node("l40s", L40S, 4), CATALOG) is None
    assert "MIG mode is on" in (host_reason(Method.K8S_MPS, node("on", mig=True), CATALOG) or "")
    vsphere = replace(node("vs"), platform=Platform.VSPHERE)
    assert host_reason(Method.K8S_MPS, vsphere, CATALOG) is not None


@pytest.mark.parametrize("value", [0, -1, MAX_MPS_CLIENTS + 1, True])
def test_mps_replicas_validate_themselves(value: int) -> None:
    """MPS replicas are a whole number from 1 to MPS's client limit, checked when built."""
    with pytest.raises(ValueError, match="mps_replicas"):
        Assumptions().with_facts({"mps_replicas": value})


# Packing


def test_replicas_per_gpu_in_priority_order() -> None:
    """Ten pods with four replicas take ceil(10 / 4) = 3 GPUs, optimal; each slot holds its
    replica's 20 GiB and a quarter of the compute; urgent pods fill the first GPU."""
    urgent = pod("urgent", instances=2, gpus=0.2, memory_gib=8, priority=1)
    rest = pod("rest", instances=8, gpus=0.2, memory_gib=8, priority=3)
    packing = K8S_MPS.pack_heuristic(instances_of([rest, urgent]), MODEL, CATALOG, ASSUME)
    assert packing_gpus(packing) == packing.lower_bound_gpus == 3
    assert packing.status is SolveStatus.OPTIMAL
    slots = [s for r in packing.requests for ld in r.loads for s in ld.slots]
    assert {(s.profile, s.memory_gib, s.compute_share) for s in slots} == {(PROFILE, 20.0, 0.25)}
    first = {s.workload for s in packing.requests[0].loads[0].slots}
    assert "urgent" in first


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 20),
            st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0]),
            st.sampled_from([4.0, 10.0, 20.0, 30.0, 40.0]),
            st.sampled_from([ALWAYS, OFFICE, NIGHT]),
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from([1, 2, 4, 7, 8]),
)
def test_generated_plans_pass_the_checker_and_meet_the_demand_rows(
    classes: list[tuple[int, float, float, tuple[float, ...]]], replicas: int
) -> None:
    """On generated mixes and replica counts, plans on two nodes pass the checker, and the
    packer uses exactly the GPUs the (exact) demand rows allow."""
    workloads = [
        pod(f"c{k}", instances=n, gpus=g, memory_gib=m, schedule=sched, vcpus=2)
        for k, (n, g, m, sched) in enumerate(classes)
    ]
    assumptions = ASSUME.with_facts({"mps_replicas": replicas})
    case = scenario(workloads, assumptions=assumptions)
    assert check_plan(plan_method(Method.K8S_MPS, case), case) == []
    demand = K8S_MPS.gpu_demand(workloads, MODEL, CATALOG, assumptions)
    assert demand.exact
    packing = K8S_MPS.pack_exact(instances_of(workloads), MODEL, CATALOG, assumptions)
    counts = {w.name: w.instances for w in workloads if w.name in demand.use}
    assert fewest_gpus(demand, counts) == packing_gpus(packing)


# The checker


def test_more_pods_than_replicas_are_refused() -> None:
    """Five MPS pods on a GPU with four replicas break the device plugin's rule."""
    case = scenario([pod("p", instances=5, gpus=0.1, memory_gib=5)])
    rows = [row(f"p#{i}", profile=PROFILE, memory_gib=16, compute=0.2) for i in range(1, 6)]
    problems = check_plan(hand_plan(Method.K8S_MPS, rows), case)
    assert any("5 MPS pods" in p and "4 replicas" in p for p in problems), problems


def test_a_slot_above_the_replica_memory_is_refused() -> None:
    """A pod given 30 GiB on a GPU whose replicas hold 20 GiB breaks the memory limit."""
    case = scenario([pod("p", gpus=0.1, memory_gib=5)])
    rows = [row("p#1", profile=PROFILE, memory_gib=30, compute=0.25)]
    problems = check_plan(hand_plan(Method.K8S_MPS, rows), case)
    assert any("limited to 20 GiB" in p for p in problems), problems


# Slowdown


def test_a_pod_within_its_replica_runs_at_bare_metal_speed_alone() -> None:
    """A pod asking a quarter of a GPU gets a quarter: no slowdown without co-residents."""
    assert mps_slowdown(1.0, 0.25, 0.25, [], []) == pytest.approx(1.0)


def test_a_whole_gpu_pod_on_a_quarter_replica_runs_four_times_slower() -> None:
    """An always-busy pod asking a whole GPU computes on a quarter of the threads: 4×."""
    assert mps_slowdown(1.0, 1.0, 0.25, [], []) == pytest.approx(4.0)


def test_only_the_busy_share_is_stretched() -> None:
    """A pod busy 30 % of the time on a quarter replica: 0.7 + 0.3 × 4 = 1.9."""
    assert mps_slowdown(0.3, 1.0, 0.25, [], []) == pytest.approx(1.9)


def test_busy_co_residents_add_the_interference() -> None:
    """Three always-busy co-residents cost the interference constant on the pod's GPU work."""
    alone = mps_slowdown(1.0, 0.25, 0.25, [], [])
    shared = mps_slowdown(1.0, 0.25, 0.25, [1.0] * 3, [0.25] * 3)
    assert shared == pytest.approx(alone * 1.05)


@given(st.integers(1, 8))
def test_always_busy_pods_on_one_gpu_each_run_at_least_n_times_slower(pods: int) -> None:
    """With ``n`` replicas, n always-busy whole-GPU pods on one GPU each run at least n× slower
    (each has 1/n of the GPU): a GPU never does more than one GPU of work."""
    assumptions = ASSUME.with_facts({"mps_replicas": pods})
    memory = float(80 // pods)
    case = scenario(
        [pod("busy", instances=pods, gpus=1, memory_gib=memory, busy_fraction=1.0)],
        [node("k1", gpus=1)],
        assumptions,
    )
    plan = plan_method(Method.K8S_MPS, case)
    assert check_plan(plan, case) == []
    (result,) = slowdowns(plan, case)
    assert result.slowdown >= pods - 1e-9


@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.sampled_from([1.0, 0.5, 0.25, 0.125]),
    st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=8),
)
def test_slowdown_is_at_least_one_and_the_gpus_busy_demand(
    busy: float, asked: float, replica: float, others: list[tuple[float, float]]
) -> None:
    """For any shares, an MPS pod is never faster than bare metal nor than its replica's
    threads allow, and a pod asking more than its replica never faster than the GPU's busy
    demand allows."""
    co_busy = [d for d, _ in others]
    co_demand = [d * g for d, g in others]
    value = mps_slowdown(busy, asked, replica, co_busy, co_demand)
    assert value >= 1.0 - 1e-12
    assert value >= (1 - busy) + busy * asked / replica - 1e-12
    if asked > replica:
        assert value >= busy * asked + sum(co_demand) - 1e-12


def test_a_pod_within_its_replica_keeps_its_threads_beside_busy_whole_gpu_pods() -> None:
    """A quarter-GPU pod on a quarter replica keeps its own threads while three always-busy
    whole-GPU pods ask 3 GPUs of the same GPU: only the interference, no wait; a whole-GPU pod
    beside them waits for the GPU (at least 1 + 3 = 4×)."""
    within = mps_slowdown(1.0, 0.25, 0.25, [1.0] * 3, [1.0] * 3)
    assert within == pytest.approx(1.05)
    beyond = mps_slowdown(1.0, 1.0, 0.25, [1.0] * 3, [1.0] * 3)
    assert beyond >= 4.0
