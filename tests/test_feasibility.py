"""The feasibility checker: every rule is shown to catch a hand-made plan that breaks it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from bench.fleets import fleet
from planner.assumptions import Assumptions, VgpuMode, VgpuScheduler, VsphereVersion
from planner.inputs.catalog import load_catalog
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.methods.registry import Method
from planner.plan import MethodPlan, NotPlaced, Placement
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method
from tests.builders import NIGHT, OFFICE, hand_plan, host, placement, scenario_of, workload

CATALOG = load_catalog()
H100 = "H100-80GB-PCIe"
L40S = "L40S"


def _scenario(
    workloads: Sequence[WorkloadClass], assumptions: Assumptions | None = None
) -> Scenario:
    hosts = [
        host("h1", H100, 2, cpu_cores=16, ram_gib=64, mig_enabled=True),
        host("h2", H100, 2, cpu_cores=16, ram_gib=64, mig_enabled=False),
        host("l1", L40S, 2, cpu_cores=16, ram_gib=64),
    ]
    return scenario_of([], hosts, workloads, assumptions, catalog=CATALOG)


def _row(
    instance: str,
    host_name: str = "h1",
    gpu: int = 0,
    *,
    model: str = H100,
    profile: str = "whole GPU",
    memory_gib: float = 16.0,
    compute: float = 1.0,
    start: int | None = None,
) -> Placement:
    return placement(
        instance,
        host_name,
        gpu,
        gpu_model=model,
        profile=profile,
        memory_gib=memory_gib,
        compute_share=compute,
        start_slice=start,
    )


def _plan(
    method: Method, rows: Sequence[Placement], not_placed: Sequence[NotPlaced] = ()
) -> MethodPlan:
    return hand_plan(method, rows, not_placed=not_placed, lower_bound_gpus=0, config="test")


def _has(problems: list[str], *words: str) -> bool:
    return any(all(w in p for w in words) for p in problems)


@pytest.mark.parametrize("method", list(Method))
def test_plans_from_the_packers_are_feasible(method: Method) -> None:
    """Every plan the engine returns for a mixed fleet, heuristic and exact, passes the checker."""
    scenario = fleet(100)
    for exact in (False, None):
        assert check_plan(plan_method(method, scenario, exact=exact), scenario) == []


@pytest.mark.parametrize(
    ("version", "mode"),
    [(VsphereVersion.V7, VgpuMode.EQUAL_SIZE), (VsphereVersion.V8, VgpuMode.MIXED_SIZE)],
)
@pytest.mark.parametrize("method", [Method.VGPU, Method.MIG])
def test_multi_gpu_and_fixed_share_plans_are_feasible(
    method: Method, version: VsphereVersion, mode: VgpuMode
) -> None:
    """Plans holding multi-GPU VMs (2 and 6 GPUs, and 0.5 GPU whose 100 GiB takes two) under the
    fixed-share scheduler keep the per-VM vGPU and compute-share rules on vSphere 7 and 8."""
    base = fleet(20)
    extra = (
        workload("two", instances=3, gpus=2, memory_gib=100),
        workload("wide", instances=2, gpus=0.5, memory_gib=100),
        workload("six", gpus=6, memory_gib=300),
        workload("half", instances=4, gpus=0.5, memory_gib=15),
    )
    assumptions = replace(
        base.assumptions,
        vsphere_version=version,
        vgpu_mode=mode,
        vgpu_scheduler=VgpuScheduler.FIXED_SHARE,
    )
    scenario = replace(base, workloads=(*base.workloads, *extra), assumptions=assumptions)
    plan = plan_method(method, scenario, exact=False)
    assert {p.workload for p in plan.placements} >= {"two", "wide", "half"}
    assert check_plan(plan, scenario) == []


def test_a_correct_hand_made_plan_passes() -> None:
    """A plan that follows every rule gives no problems (so the checks below are not noise)."""
    scenario = _scenario([workload("a", memory_gib=16)])
    assert check_plan(_plan(Method.PASSTHROUGH, [_row("a#1")]), scenario) == []


def test_instance_both_placed_and_not_placed() -> None:
    """An instance is placed at most once: placed and listed as not placed is a violation."""
    scenario = _scenario([workload("a")])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1")], [NotPlaced("a#1", "a", "x")])
    assert _has(check_plan(plan, scenario), "a#1", "both placed and listed")


def test_instance_missing_from_the_plan() -> None:
    """Every instance of the scenario is either placed or listed as not placed."""
    scenario = _scenario([workload("a", instances=2)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1")])
    assert _has(check_plan(plan, scenario), "a#2", "neither placed")


def test_two_slots_of_one_instance_on_one_gpu() -> None:
    """An instance holds at most one slot per GPU."""
    scenario = _scenario([workload("a", gpus=2, memory_gib=32)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1"), _row("a#1")])
    assert _has(check_plan(plan, scenario), "a#1", "2 slots")


def test_multi_gpu_instance_split_over_hosts() -> None:
    """All GPUs of one instance are on one host."""
    scenario = _scenario([workload("a", gpus=2, memory_gib=32)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1", "h1"), _row("a#1", "h2")])
    assert _has(check_plan(plan, scenario), "a#1", "split over hosts h1, h2")


def test_instance_given_too_few_gpus() -> None:
    """A 2-GPU passthrough instance placed on one GPU is incomplete."""
    scenario = _scenario([workload("a", gpus=2, memory_gib=32)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1", memory_gib=32)])
    assert _has(check_plan(plan, scenario), "a#1", "holds 1 GPUs but needs 2")


def test_instance_given_too_little_memory() -> None:
    """The slots of an instance hold at least its memory."""
    scenario = _scenario([workload("a", memory_gib=30)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1", memory_gib=10)])
    assert _has(check_plan(plan, scenario), "a#1", "10 GiB", "needs 30 GiB")


def test_a_share_of_a_gpu_s_memory_is_that_share_under_fractional_gpus_only() -> None:
    """A fractional share given as a share of the GPU's memory (``memory_share`` 0.1 of an
    80 GiB H100: 8 GiB) holds that share, not its ``memory_gib`` (10 GiB); under another method
    the class still needs its ``memory_gib``, and a share given less than its share is short."""
    k8s = host("k1", H100, 1, platform=Platform.KUBERNETES)
    pods = replace(workload("p", instances=2, gpus=0.125, memory_gib=10), memory_share=0.1)
    scenario = scenario_of([], [k8s], [pods], catalog=CATALOG)
    shares = [_row(f"p#{i}", "k1", profile="share", memory_gib=8, compute=0.125) for i in (1, 2)]
    assert not _has(check_plan(_plan(Method.FRACTIONAL, shares), scenario), "GiB")
    short = [*shares[:1], _row("p#2", "k1", profile="share", memory_gib=6, compute=0.125)]
    assert _has(check_plan(_plan(Method.FRACTIONAL, short), scenario), "p#2", "needs 8 GiB")
    whole = [_row(f"p#{i}", "k1", memory_gib=8) for i in (1, 2)]
    assert _has(check_plan(_plan(Method.K8S_TIME_SLICING, whole), scenario), "needs 10 GiB")


def test_unknown_host_gpu_index_and_wrong_model() -> None:
    """Hosts and GPU indices must exist and have the model the placement names."""
    scenario = _scenario([workload("a", instances=3)])
    plan = _plan(
        Method.PASSTHROUGH,
        [_row("a#1", "nowhere"), _row("a#2", "h1", 5), _row("a#3", "l1", model=H100)],
    )
    problems = check_plan(plan, scenario)
    assert _has(problems, "a#1", "host nowhere")
    assert _has(problems, "a#2", "GPU 5", "GPUs 0-1")
    assert _has(problems, "a#3", "whose GPUs are L40S")


def test_gpu_over_its_memory() -> None:
    """No GPU holds more memory than it has (static methods)."""
    scenario = _scenario([workload("a", memory_gib=50, gpus=0.5)], Assumptions())
    rows = [_row("a#1", memory_gib=50)]
    plan = _plan(Method.MIG, [replace(r, profile="7g.80gb", start_slice=0) for r in rows])
    assert check_plan(plan, scenario) == []
    over = _plan(Method.PASSTHROUGH, [_row("a#1", memory_gib=90)])
    assert _has(check_plan(over, scenario), "holds 90 GiB", "has 80 GiB")


def test_host_over_cores_and_ram() -> None:
    """No host gives out more cores or RAM than it has."""
    scenario = _scenario([workload("a", instances=2, vcpus=10, ram_gib=40)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1", gpu=0), _row("a#2", gpu=1)])
    problems = check_plan(plan, scenario)
    assert _has(problems, "host h1", "20 cores", "has 16")
    assert _has(problems, "host h1", "80 GiB RAM", "has 64 GiB")


def test_passthrough_never_shares_a_gpu() -> None:
    """Two passthrough instances on one GPU is a violation."""
    scenario = _scenario([workload("a", instances=2, memory_gib=10)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1", memory_gib=10), _row("a#2", memory_gib=10)])
    assert _has(check_plan(plan, scenario), "shared by 2 passthrough")


def test_ineligible_instance_placed() -> None:
    """A workload needing live migration placed under passthrough is reported."""
    scenario = _scenario([workload("a", needs_live_migration=True)])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1")])
    assert _has(check_plan(plan, scenario), "a#1", "not eligible", "vMotion")


def test_model_restriction_broken() -> None:
    """An instance restricted to L40S placed on an H100 is reported."""
    scenario = _scenario([workload("a", gpu_models=[L40S])])
    plan = _plan(Method.PASSTHROUGH, [_row("a#1")])
    assert _has(check_plan(plan, scenario), "a#1", "restricted to L40S")


def test_mig_on_host_without_mig_mode() -> None:
    """MIG instances only go to hosts with MIG enabled."""
    scenario = _scenario([workload("a", gpus=0.1, memory_gib=8)])
    plan = _plan(Method.MIG, [_row("a#1", "h2", profile="1g.10gb", memory_gib=10, start=0)])
    assert _has(check_plan(plan, scenario), "GPU 0 of host h2", "MIG mode is not enabled")


def _vgpu_rows(profiles: Sequence[str], host_name: str = "h1", gpu: int = 0) -> list[Placement]:
    sizes = {"4C": 4, "8C": 8, "16C": 16, "20C": 20, "80C": 80}
    return [
        _row(f"v{p}#{i + 1}", host_name, gpu, profile=p, memory_gib=sizes[p], compute=0.0)
        for i, p in enumerate(profiles)
    ]


def _vgpu_scenario(mode: VgpuMode) -> Scenario:
    classes = [
        workload(
            f"v{p}",
            instances=20,
            gpus=0.1,
            memory_gib=s,
            vcpus=1,
            ram_gib=4,
            needs_live_migration=True,
        )
        for p, s in (("4C", 4), ("8C", 8), ("16C", 16), ("20C", 20), ("80C", 80))
    ]
    return _scenario(classes, Assumptions(vgpu_mode=mode))


def _covered(scenario: Scenario, rows: Sequence[Placement]) -> list[NotPlaced]:
    """Everything not in ``rows`` listed as not placed, so only the rule under test fires."""
    placed = {r.instance for r in rows}
    return [
        NotPlaced(i, w.name, "test")
        for w in scenario.workloads
        for i in w.instance_ids()
        if i not in placed
    ]


def _check(method: Method, scenario: Scenario, rows: list[Placement]) -> list[str]:
    return check_plan(_plan(method, rows, _covered(scenario, rows)), scenario)


def test_vgpu_equal_size_mode_never_mixes_profiles() -> None:
    """In equal-size mode one GPU holds one profile; 6 × H100 16C is allowed, 7 is not."""
    scenario = _vgpu_scenario(VgpuMode.EQUAL_SIZE)
    assert _check(Method.VGPU, scenario, _vgpu_rows(["16C"] * 6)) == []
    assert _has(_check(Method.VGPU, scenario, _vgpu_rows(["16C"] * 7)), "7 × 16C", "allows 6")
    mixed = _vgpu_rows(["16C", "8C"])
    assert _has(_check(Method.VGPU, scenario, mixed), "mixes profiles 16C, 8C")


def test_vgpu_mixed_size_mode_keeps_mixed_maxima() -> None:
    """Mixed-size mode allows mixing but lowers maxima: 5 × 16C exceeds the mixed maximum 4."""
    scenario = _vgpu_scenario(VgpuMode.MIXED_SIZE)
    assert _check(Method.VGPU, scenario, _vgpu_rows(["16C", "16C", "8C"])) == []
    assert _has(_check(Method.VGPU, scenario, _vgpu_rows(["16C"] * 5)), "mixed-size", "4")


def test_vgpu_host_equal_mode_one_partial_size_per_host() -> None:
    """Host-equal mode: two GPUs of one host with 8C and 16C break VMware's 2020 guidance."""
    scenario = _vgpu_scenario(VgpuMode.HOST_EQUAL)
    rows = _vgpu_rows(["16C"]) + [replace(r, gpu_index=1) for r in _vgpu_rows(["8C"])]
    assert _has(_check(Method.VGPU, scenario, rows), "host h1 mixes partial")
    full = _vgpu_rows(["16C"]) + [replace(r, gpu_index=1) for r in _vgpu_rows(["80C"])]
    assert _check(Method.VGPU, scenario, full) == []


def test_vgpu_unknown_profile() -> None:
    """A vGPU profile that the model does not have is reported."""
    scenario = _vgpu_scenario(VgpuMode.EQUAL_SIZE)
    rows = [replace(r, profile="3C") for r in _vgpu_rows(["4C"])]
    assert _has(_check(Method.VGPU, scenario, rows), "profile 3C", "unknown")


def _mig(instance: str, profile: str, start: int | None, memory: float) -> Placement:
    return _row(instance, profile=profile, memory_gib=memory, compute=0.0, start=start)


def _mig_scenario() -> Scenario:
    return _scenario(
        [
            workload("m", instances=10, gpus=0.1, memory_gib=10),
            workload("big", instances=3, gpus=0.4, memory_gib=40),
        ]
    )


def test_mig_valid_layout_passes() -> None:
    """One 3g.40gb and three 1g.10gb fit an H100 (3g.40gb on slices 0-3, 1g.10gb on 4-6)."""
    rows = [_mig("big#1", "3g.40gb", 0, 40)] + [
        _mig(f"m#{i}", "1g.10gb", 3 + i, 10) for i in (1, 2, 3)
    ]
    assert _check(Method.MIG, _mig_scenario(), rows) == []


def test_mig_start_not_allowed() -> None:
    """A 3g.40gb may start at slice 0 or 4 only."""
    rows = [_mig("big#1", "3g.40gb", 2, 40)]
    assert _has(_check(Method.MIG, _mig_scenario(), rows), "starts at slice 2", "allowed 0, 4")


def test_mig_overlapping_memory_slices() -> None:
    """Two GPU instances never share a memory slice."""
    rows = [_mig("big#1", "3g.40gb", 0, 40), _mig("m#1", "1g.10gb", 2, 10)]
    assert _has(_check(Method.MIG, _mig_scenario(), rows), "overlap on memory slice 2")


def test_mig_compute_slices_counted() -> None:
    """Compute slices over the GPU's 7 are reported even when memory slices fit."""
    rows = [
        _mig("big#1", "4g.40gb", 0, 40),
        _mig("big#2", "3g.40gb", 4, 40),
        _mig("m#1", "1g.10gb", 6, 10),
    ]
    problems = _check(Method.MIG, _mig_scenario(), rows)
    assert _has(problems, "uses 8 compute slices but has 7")


def test_mig_profile_maximum() -> None:
    """At most one 4g.40gb per GPU, whatever the slices say."""
    rows = [_mig("big#1", "4g.40gb", 0, 40), _mig("big#2", "4g.40gb", 0, 40)]
    assert _has(_check(Method.MIG, _mig_scenario(), rows), "2 × 4g.40gb", "at most 1")


def test_remote_pool_memory_checked_per_hour() -> None:
    """A pooled GPU may hold a day and a night instance of full memory, not two day ones."""
    scenario = _scenario(
        [
            workload("day", instances=2, memory_gib=80, schedule=OFFICE),
            workload("night", memory_gib=80, schedule=NIGHT),
        ]
    )
    ok = [
        _row("day#1", profile="whole GPU", memory_gib=80, compute=0.0),
        _row("night#1", profile="whole GPU", memory_gib=80, compute=0.0),
    ]
    assert _check(Method.REMOTE_POOL, scenario, ok) == []
    clash = [*ok, _row("day#2", profile="whole GPU", memory_gib=80, compute=0.0)]
    assert _has(_check(Method.REMOTE_POOL, scenario, clash), "160 GiB in hour 9")


def test_remote_pool_clients_take_no_host_cores() -> None:
    """Remote-pool clients run elsewhere: their vCPUs never count against the GPU server."""
    scenario = _scenario([workload("a", instances=4, gpus=0.25, memory_gib=20, vcpus=10)])
    rows = [_row(f"a#{i}", profile="share", memory_gib=20, compute=0.0) for i in range(1, 5)]
    assert _check(Method.REMOTE_POOL, scenario, rows) == []


def _vm_scenario(version: VsphereVersion) -> Scenario:
    hosts = [host("big", H100, 8, cpu_cores=64, ram_gib=512)]
    classes = [workload("vm", gpus=2, memory_gib=70, vcpus=2, ram_gib=8)]
    return scenario_of([], hosts, classes, Assumptions(vsphere_version=version), catalog=CATALOG)


def _vm_rows(profile: str, memory_gib: float, gpus: int) -> list[Placement]:
    return [
        _row("vm#1", "big", gpu, profile=profile, memory_gib=memory_gib, compute=1.0)
        for gpu in range(gpus)
    ]


def test_vsphere_7_combines_only_full_profiles_in_one_vm() -> None:
    """On vSphere 7 a VM holding several vGPUs may hold full-frame-buffer profiles only: two
    40C vGPUs in one VM break the rule, two 80C do not, and vSphere 8 allows the 40C pair."""
    v7 = _vm_scenario(VsphereVersion.V7)
    partial = _vm_rows("40C", 40, 2)
    assert _has(_check(Method.VGPU, v7, partial), "vm#1", "40C", "vSphere 7", "full")
    assert _check(Method.VGPU, v7, _vm_rows("80C", 80, 2)) == []
    assert _check(Method.VGPU, _vm_scenario(VsphereVersion.V8), partial) == []


@pytest.mark.parametrize(("version", "most"), [(VsphereVersion.V7, 4), (VsphereVersion.V8, 8)])
def test_one_vm_holds_at_most_the_vsphere_maximum_of_vgpus(
    version: VsphereVersion, most: int
) -> None:
    """A VM holds at most 4 vGPUs on vSphere 7 and 8 on vSphere 8: one more is reported."""
    hosts = [host("big", H100, 9, cpu_cores=64, ram_gib=512)]
    classes = [workload("vm", gpus=2, memory_gib=70, vcpus=2, ram_gib=8)]
    scenario = scenario_of(
        [], hosts, classes, Assumptions(vsphere_version=version), catalog=CATALOG
    )
    assert _check(Method.VGPU, scenario, _vm_rows("80C", 80, most)) == []
    too_many = _vm_rows("80C", 80, most + 1)
    assert _has(_check(Method.VGPU, scenario, too_many), f"{most + 1} vGPUs", f"at most {most}")


def test_mig_instance_covers_its_compute_share() -> None:
    """A MIG instance's compute slices cover min(gpus, 1): a 0.5-GPU instance on a 1g.20gb
    (1/7 of the compute) is reported; on a 4g.40gb (4/7) it passes."""
    scenario = _scenario([workload("half", gpus=0.5, memory_gib=15, vcpus=2, ram_gib=8)])
    small = [_mig("half#1", "1g.20gb", 0, 20)]
    assert _has(_check(Method.MIG, scenario, small), "half#1", "1g.20gb", "0.5")
    assert _check(Method.MIG, scenario, [_mig("half#1", "4g.40gb", 0, 40)]) == []


def test_multi_gpu_mig_instance_takes_whole_gpus_of_compute() -> None:
    """A 2-GPU instance needs all the compute of each GPU it holds: 3g.40gb on each is reported."""
    scenario = _scenario([workload("two", gpus=2, memory_gib=70, vcpus=2, ram_gib=8)])
    rows = [_row("two#1", gpu=g, profile="3g.40gb", memory_gib=40, start=0) for g in (0, 1)]
    assert _has(_check(Method.MIG, scenario, rows), "two#1", "3g.40gb")
    whole = [_row("two#1", gpu=g, profile="7g.80gb", memory_gib=80, start=0) for g in (0, 1)]
    assert _check(Method.MIG, scenario, whole) == []


@pytest.mark.parametrize(
    ("mode", "profile", "memory_gib", "ok"),
    [
        (VgpuMode.EQUAL_SIZE, "20C", 20, False),  # 1/4 of the GPU
        (VgpuMode.EQUAL_SIZE, "40C", 40, True),  # 1/2
        (VgpuMode.MIXED_SIZE, "16C", 16, False),  # 1/4 in mixed mode (1/6 equal)
        (VgpuMode.MIXED_SIZE, "40C", 40, True),
    ],
)
def test_fixed_share_vgpu_covers_the_instance_compute(
    mode: VgpuMode, profile: str, memory_gib: float, ok: bool
) -> None:
    """Under the fixed-share scheduler a vGPU gets 1 / (max per GPU in the mode) of the GPU:
    that share must cover the instance's min(gpus, 1); best effort reserves nothing to check."""
    half = workload("half", gpus=0.5, memory_gib=15, vcpus=2, ram_gib=8, needs_live_migration=True)
    fixed = _scenario([half], Assumptions(vgpu_mode=mode, vgpu_scheduler=VgpuScheduler.FIXED_SHARE))
    rows = [_row("half#1", profile=profile, memory_gib=memory_gib, compute=0.0)]
    problems = _check(Method.VGPU, fixed, rows)
    assert (problems == []) is ok
    if not ok:
        assert _has(problems, "half#1", profile, "fixed-share", "0.5")
    best_effort = _scenario([half], Assumptions(vgpu_mode=mode))
    assert _check(Method.VGPU, best_effort, rows) == []


def _mixed(rows: Sequence[Placement], roles: dict[tuple[str, int], Method]) -> MethodPlan:
    return replace(_plan(Method.PASSTHROUGH, rows), method=None, roles=roles)


def test_a_mixed_plan_may_give_each_gpu_of_a_host_its_own_role() -> None:
    """On vSphere, one GPU in passthrough and its neighbour in vGPU is a valid plan."""
    scenario = _scenario([workload("a"), workload("b", gpus=0.25, memory_gib=10)])
    rows = [_row("a#1", gpu=0), _row("b#1", gpu=1, profile="10C", memory_gib=10, compute=0)]
    plan = _mixed(rows, {("h1", 0): Method.PASSTHROUGH, ("h1", 1): Method.VGPU})
    assert check_plan(plan, scenario) == []


def test_a_host_wide_role_shares_its_host_with_no_other_role() -> None:
    """A remote-pool GPU server holds pool GPUs only: a passthrough GPU beside them is refused."""
    scenario = _scenario([workload("a"), workload("b", gpus=0.25, memory_gib=10)])
    rows = [_row("a#1", gpu=0), _row("b#1", gpu=1, profile="share", memory_gib=10, compute=0)]
    plan = _mixed(rows, {("h1", 0): Method.PASSTHROUGH, ("h1", 1): Method.REMOTE_POOL})
    assert _has(check_plan(plan, scenario), "host h1 mixes roles", "Remote pool sets up a whole")


def test_every_gpu_in_use_needs_a_role() -> None:
    """A mixed plan that leaves a GPU in use without a role is reported."""
    scenario = _scenario([workload("a")])
    plan = _mixed([_row("a#1")], {})
    assert _has(check_plan(plan, scenario), "GPU 0 of host h1", "has no role")


def test_an_instance_never_spans_two_roles() -> None:
    """A two-GPU instance holds GPUs of one role, never one passthrough and one vGPU."""
    scenario = _scenario([workload("a", gpus=2, memory_gib=32)])
    rows = [_row("a#1", gpu=0), _row("a#1", gpu=1, profile="80C", memory_gib=80)]
    plan = _mixed(rows, {("h1", 0): Method.PASSTHROUGH, ("h1", 1): Method.VGPU})
    assert _has(check_plan(plan, scenario), "a#1 holds GPUs of several roles")


def test_a_role_must_serve_the_host_platform() -> None:
    """vGPU sets up vSphere hosts only: a vGPU GPU on a Kubernetes node is refused."""
    k8s = host("k1", H100, 2, platform=Platform.KUBERNETES)
    scenario = scenario_of([], [k8s], [workload("b", gpus=0.25, memory_gib=10)], catalog=CATALOG)
    rows = [_row("b#1", "k1", profile="10C", memory_gib=10, compute=0)]
    problems = check_plan(_plan(Method.VGPU, rows), scenario)
    assert _has(problems, "GPU 0 of host k1", "runs on vSphere hosts", "Kubernetes")


def test_a_desktop_on_a_kubernetes_node_is_not_eligible() -> None:
    """A virtual desktop needs a hypervisor: whole GPUs on a Kubernetes node cannot serve it."""
    k8s = host("k1", H100, 2, platform=Platform.KUBERNETES)
    desktop = workload("d", kind=WorkloadKind.VDI)
    scenario = scenario_of([], [k8s], [desktop], catalog=CATALOG)
    problems = check_plan(_plan(Method.PASSTHROUGH, [_row("d#1", "k1")]), scenario)
    assert _has(problems, "d#1", "not eligible", "virtual desktop is a VM")
