"""MIG on Kubernetes: eligibility, nodes, the mixed and single strategies, the checker, slowdown."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assumptions import Assumptions
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.performance import slowdowns
from planner.methods.k8s_mig import K8S_MIG, MigStrategy, devices_per_gpu, host_group
from planner.methods.registry import Method, host_reason, workload_reason
from planner.plan import SolveStatus
from planner.solve.feasibility import check_plan
from planner.solve.packing import instances_of, packing_gpus, plan_method
from tests.builders import ALWAYS, NIGHT, OFFICE
from tests.k8s_fixtures import A100, CATALOG, L40S, fewest_gpus, hand_plan, node, pod, row, scenario

MODEL = CATALOG.gpus[A100]
MIXED = Assumptions()
SINGLE = Assumptions().with_facts({"kubernetes_mig_strategy": MigStrategy.SINGLE})
PROFILES = {p.name: p for p in CATALOG.mig_profiles[A100]}


def _reason(workload: WorkloadClass, model: str = A100) -> str | None:
    return workload_reason(
        Method.K8S_MIG, workload, CATALOG.gpus[model], Platform.KUBERNETES, CATALOG, MIXED
    )


def _mig_nodes(count: int = 2, gpus: int = 8) -> list:  # type: ignore[type-arg]
    return [node(f"k{i}", gpus=gpus, mig=True) for i in range(1, count + 1)]


# Eligibility, nodes and settings


def test_small_and_isolated_pods_are_eligible() -> None:
    """MIG isolates in hardware: a pod needing isolation is eligible, as is a whole-GPU pod."""
    assert _reason(pod("small", gpus=0.1, memory_gib=8)) is None
    assert _reason(pod("iso", gpus=0.1, memory_gib=8, needs_isolation=True)) is None
    assert _reason(pod("pair", gpus=2, memory_gib=120)) is None
    assert K8S_MIG.gpus_needed(pod("pair", gpus=2, memory_gib=120), MODEL, CATALOG, MIXED) == 2


def test_a_gpu_without_mig_and_platform_rules_refuse() -> None:
    """No MIG on an L40S; a desktop or a live-migrating pod is refused on Kubernetes."""
    assert "does not support MIG" in (_reason(pod("p", gpus=0.1, memory_gib=8), L40S) or "")
    assert _reason(pod("vdi", kind=WorkloadKind.VDI, gpus=0.1, memory_gib=4)) is not None
    assert _reason(pod("m", gpus=0.1, memory_gib=4, needs_live_migration=True)) is not None


def test_nodes_need_kubernetes_and_mig_mode_on() -> None:
    """The GPU Operator's MIG devices need MIG mode on a MIG-capable GPU, on Kubernetes."""
    assert host_reason(Method.K8S_MIG, node("on", mig=True), CATALOG) is None
    assert "not enabled" in (host_reason(Method.K8S_MIG, node("off"), CATALOG) or "")
    assert "does not support MIG" in (
        host_reason(Method.K8S_MIG, node("l", L40S, 4), CATALOG) or ""
    )
    vsphere = replace(node("vs", mig=True), platform=Platform.VSPHERE)
    assert host_reason(Method.K8S_MIG, vsphere, CATALOG) is not None


@pytest.mark.parametrize(
    ("profile", "devices"),
    [
        ("1g.10gb", 7),
        ("1g.20gb", 4),
        ("2g.20gb", 3),
        ("3g.40gb", 2),
        ("4g.40gb", 1),
        ("7g.80gb", 1),
    ],
)
def test_devices_per_gpu_split_into_one_profile(profile: str, devices: int) -> None:
    """An A100 80GB split into one profile holds NVIDIA's counts (MIG user guide: all-1g.10gb
    is 7 devices, all-3g.40gb 2, ...)."""
    assert devices_per_gpu(PROFILES[profile], MODEL) == devices


# Packing: mixed and single strategies

MIX = [
    pod("four", gpus=0.5, memory_gib=30),  # 4g.40gb
    pod("two", gpus=0.25, memory_gib=16),  # 2g.20gb
    pod("one", gpus=0.1, memory_gib=8),  # 1g.10gb
]


def test_mixed_strategy_shares_a_gpu_among_profiles() -> None:
    """4g.40gb + 2g.20gb + 1g.10gb is a valid A100 80GB layout: mixed packs the three pods on
    one GPU."""
    case = scenario(MIX, _mig_nodes(1))
    plan = plan_method(Method.K8S_MIG, case)
    assert check_plan(plan, case) == []
    assert len(plan.gpu_configs) == 1
    assert not plan.not_placed


def test_single_strategy_keeps_one_profile_per_node() -> None:
    """Under the single strategy the three profiles go to three nodes, one GPU each, and the
    plan passes the checker."""
    case = scenario(MIX, _mig_nodes(3), SINGLE)
    plan = plan_method(Method.K8S_MIG, case)
    assert check_plan(plan, case) == []
    assert not plan.not_placed
    by_node: dict[str, set[str]] = {}
    for p in plan.placements:
        by_node.setdefault(p.host, set()).add(p.profile)
    assert sorted(map(sorted, by_node.values())) == [["1g.10gb"], ["2g.20gb"], ["4g.40gb"]]


def test_single_strategy_with_one_node_places_one_profile_only() -> None:
    """With one node, the single strategy serves one profile's pods; the others are not placed,
    with a reason naming the one-profile-per-host rule."""
    case = scenario(MIX, _mig_nodes(1), SINGLE)
    plan = plan_method(Method.K8S_MIG, case)
    assert check_plan(plan, case) == []
    assert len({p.profile for p in plan.placements}) == 1
    assert plan.not_placed
    assert all("one profile size per host" in n.reason for n in plan.not_placed)


def test_single_packing_sets_a_host_group_per_profile() -> None:
    """Each request of the single strategy carries its profile's host group."""
    packing = K8S_MIG.pack_heuristic(instances_of(MIX), MODEL, CATALOG, SINGLE)
    groups = {r.host_group for r in packing.requests}
    assert groups == {host_group(p) for p in ("4g.40gb", "2g.20gb", "1g.10gb")}
    assert packing_gpus(packing) == packing.lower_bound_gpus == 3
    assert packing.status is SolveStatus.OPTIMAL


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 12),
            st.sampled_from([0.1, 0.25, 0.4, 0.5, 1.0, 2.0]),
            st.sampled_from([5.0, 10.0, 18.0, 30.0, 40.0, 70.0]),
            st.sampled_from([ALWAYS, OFFICE, NIGHT]),
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(list(MigStrategy)),
)
def test_generated_plans_pass_the_checker_and_meet_the_demand_rows(
    classes: list[tuple[int, float, float, tuple[float, ...]]], strategy: MigStrategy
) -> None:
    """On generated mixes under either strategy, plans on four MIG nodes pass the checker, and
    a proven packing uses exactly the GPUs the (exact) demand rows allow."""
    workloads = [
        pod(f"c{k}", instances=n, gpus=g, memory_gib=m, schedule=sched, vcpus=2)
        for k, (n, g, m, sched) in enumerate(classes)
    ]
    assumptions = MIXED.with_facts({"kubernetes_mig_strategy": strategy})
    case = scenario(workloads, _mig_nodes(4), assumptions)
    assert check_plan(plan_method(Method.K8S_MIG, case), case) == []
    demand = K8S_MIG.gpu_demand(workloads, MODEL, CATALOG, assumptions)
    assert demand.exact
    packing = K8S_MIG.pack_exact(instances_of(workloads), MODEL, CATALOG, assumptions)
    counts = {w.name: w.instances for w in workloads if w.name in demand.use}
    if packing.status is SolveStatus.OPTIMAL:
        assert fewest_gpus(demand, counts) == packing_gpus(packing)
    else:
        assert fewest_gpus(demand, counts) <= packing_gpus(packing)


def test_single_strategy_needs_at_least_the_mixed_gpus() -> None:
    """One profile per GPU cannot share a GPU among sizes: 4g + 2g + 1g pods need one GPU under
    mixed, three under single, by the demand rows."""
    counts = {"four": 1, "two": 1, "one": 1}
    mixed = fewest_gpus(K8S_MIG.gpu_demand(MIX, MODEL, CATALOG, MIXED), counts)
    single = fewest_gpus(K8S_MIG.gpu_demand(MIX, MODEL, CATALOG, SINGLE), counts)
    assert (mixed, single) == (1, 3)


# The checker


def test_two_profiles_on_a_node_break_the_single_strategy() -> None:
    """A 3g.40gb on GPU 0 and a 1g.10gb on GPU 1 of one node is refused under single, allowed
    under mixed."""
    workloads = [pod("three", gpus=0.4, memory_gib=30), pod("one", gpus=0.1, memory_gib=8)]
    rows = [
        row("three#1", gpu=0, profile="3g.40gb", memory_gib=40, compute=3 / 7, start=0),
        row("one#1", gpu=1, profile="1g.10gb", memory_gib=10, compute=1 / 7, start=0),
    ]
    hosts = _mig_nodes(1)
    single = check_plan(hand_plan(Method.K8S_MIG, rows), scenario(workloads, hosts, SINGLE))
    assert any("one profile per node" in p and "k1" in p for p in single), single
    assert check_plan(hand_plan(Method.K8S_MIG, rows), scenario(workloads, hosts, MIXED)) == []


def test_overlapping_mig_devices_are_refused() -> None:
    """Two 3g.40gb devices both starting at memory slice 0 overlap: MIG's placement rules."""
    workloads = [pod("three", instances=2, gpus=0.4, memory_gib=30)]
    rows = [
        row(f"three#{i}", profile="3g.40gb", memory_gib=40, compute=3 / 7, start=0) for i in (1, 2)
    ]
    problems = check_plan(hand_plan(Method.K8S_MIG, rows), scenario(workloads, _mig_nodes(1)))
    assert any("overlap" in p for p in problems), problems


# Slowdown


def test_isolated_devices_do_not_slow_each_other() -> None:
    """Seven always-busy pods asking a seventh of a GPU each, on 1g.10gb devices of one GPU: each
    runs at bare-metal speed (dedicated slices), and together they ask one GPU of work."""
    case = scenario(
        [pod("p", instances=7, gpus=1 / 7, memory_gib=8, busy_fraction=1.0)],
        [node("k1", gpus=1, mig=True)],
    )
    plan = plan_method(Method.K8S_MIG, case)
    assert check_plan(plan, case) == []
    assert len(plan.placements) == 7
    assert [r.slowdown for r in slowdowns(plan, case)] == pytest.approx([1.0])


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 7),
            st.sampled_from([0.1, 1 / 7, 0.25, 0.4, 0.5, 1.0]),
            st.floats(0.0, 1.0),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_slowdown_is_at_least_one_and_the_gpus_delivered_work(
    classes: list[tuple[int, float, float]],
) -> None:
    """On any plan, a pod is never faster than bare metal, and the work its GPU is asked, each
    co-resident capped at its dedicated slices, never passes one GPU."""
    workloads = [
        pod(f"c{k}", instances=n, gpus=g, memory_gib=8, busy_fraction=b)
        for k, (n, g, b) in enumerate(classes)
    ]
    case = scenario(workloads, [node("k1", gpus=2, mig=True)])
    plan = plan_method(Method.K8S_MIG, case)
    assert check_plan(plan, case) == []
    by_gpu: dict[tuple[str, int], float] = {}
    for p in plan.placements:
        by_gpu[(p.host, p.gpu_index)] = by_gpu.get((p.host, p.gpu_index), 0.0) + p.compute_share
    assert all(share <= 1.0 + 1e-9 for share in by_gpu.values())
    assert all(r.slowdown >= 1.0 - 1e-12 for r in slowdowns(plan, case))
