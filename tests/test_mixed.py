"""The recommended mix: hand-built estates whose best plan is known, the bound, the checker."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fleets import fleet
from planner.assumptions import VgpuMode
from planner.cli import SAMPLE_DIR, SAMPLE_INVENTORY
from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import Host, ServerType
from planner.inputs.platform import Platform
from planner.inputs.servers import load_server_types
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.costs import AnnualRates
from planner.measure.result import measure_plan
from planner.methods.registry import Method
from planner.output.recommendations import within_limits
from planner.output.report import plan_scenario, size_cluster
from planner.plan import MethodPlan, NotPlaced, SolveStatus
from planner.scenario import Scenario, load_scenario
from planner.solve import configurations, mixed, placement, plan_bounds
from planner.solve import counts as counts_module
from planner.solve import milp as milp_module
from planner.solve.counts import Group, HostSetup
from planner.solve.feasibility import check_plan
from planner.solve.hosts import HostAssignment, HostPool, assign_hosts
from planner.solve.mixed import (
    HostType,
    bound_options,
    cost_lower_bound,
    gpu_lower_bound,
    host_types,
    options,
    recommend,
)
from planner.solve.packing import _Committed, instances_of, pack, plan_method
from planner.solve.placement import Placing, cheapest_first, consolidate, make_room, record, retry
from tests.builders import NIGHT, OFFICE, host, scenario_of, workload

CATALOG = load_catalog()


def _scenario(hosts: Sequence[Host], workloads: Sequence[WorkloadClass]) -> Scenario:
    return scenario_of([], hosts, workloads, catalog=CATALOG)


def _methods_of(plan: MethodPlan) -> dict[str, Counter[Method]]:
    """Per class, instances per method in the plan."""
    seen: dict[str, Method] = {}
    for p in plan.placements:
        seen[p.instance] = plan.role((p.host, p.gpu_index))
    by_class: dict[str, Counter[Method]] = {}
    for instance, method in seen.items():
        by_class.setdefault(instance.rsplit("#", 1)[0], Counter())[method] += 1
    return by_class


def _gpus(plan: MethodPlan, method: Method) -> int:
    return sum(1 for key in plan.gpu_configs if plan.role(key) is method)


def test_desktops_that_need_vmotion_get_vgpu_and_training_passthrough() -> None:
    """Desktops that must live-migrate can only use vGPU (four 4C per A16 GPU: 4 GPUs for 16);
    a training job is cheapest on a passthrough GPU (no licence): 6 GPUs on one host."""
    scenario = _scenario(
        [host("a16-1", "A16", 8), host("a16-2", "A16", 8)],
        [
            workload(
                "desktops",
                kind=WorkloadKind.VDI,
                instances=16,
                gpus=0.25,
                memory_gib=4,
                busy_fraction=0.1,
                schedule=OFFICE,
                needs_live_migration=True,
                latency_tolerant=False,
                vcpus=2,
            ),
            workload("train", kind=WorkloadKind.TRAINING, instances=2, memory_gib=12),
        ],
    )
    plan = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(plan, scenario) == []
    assert _methods_of(plan) == {
        "desktops": Counter({Method.VGPU: 16}),
        "train": Counter({Method.PASSTHROUGH: 2}),
    }
    assert (_gpus(plan, Method.VGPU), _gpus(plan, Method.PASSTHROUGH)) == (4, 2)
    assert len({key[0] for key in plan.gpu_configs}) == 1


def test_isolated_inference_takes_mig_slices_not_whole_gpus() -> None:
    """Seven isolated tenth-GPU services fit one GPU as seven 1g.10gb MIG instances, far cheaper
    than seven passthrough GPUs even with the vGPU licence MIG-backed vGPU needs."""
    scenario = _scenario(
        [host("a100", "A100-80GB-PCIe", 8, mig_enabled=True)],
        [workload("svc", instances=7, gpus=0.1, memory_gib=8, needs_isolation=True)],
    )
    plan = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(plan, scenario) == []
    assert _methods_of(plan) == {"svc": Counter({Method.MIG: 7})}
    assert len(plan.gpu_configs) == 1


def test_day_and_night_work_share_a_remote_pool_by_the_hour() -> None:
    """Four office-hours notebooks and four night batch jobs, each holding half a GPU's memory,
    need two pooled GPUs (memory is held only while running) against four vGPU GPUs with
    licences or eight passthrough GPUs: the pool wins."""
    scenario = _scenario(
        [host("pool", "A100-80GB-PCIe", 2), host("other", "A100-80GB-PCIe", 8)],
        [
            workload(
                "nb",
                kind=WorkloadKind.NOTEBOOK,
                instances=4,
                gpus=0.5,
                memory_gib=40,
                busy_fraction=0.1,
                schedule=OFFICE,
            ),
            workload(
                "batch",
                kind=WorkloadKind.BATCH,
                instances=4,
                gpus=0.5,
                memory_gib=40,
                busy_fraction=0.5,
                schedule=NIGHT,
            ),
        ],
    )
    plan = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(plan, scenario) == []
    assert _methods_of(plan) == {
        "nb": Counter({Method.REMOTE_POOL: 4}),
        "batch": Counter({Method.REMOTE_POOL: 4}),
    }
    assert len(plan.gpu_configs) == 2
    assert len({key[0] for key in plan.gpu_configs}) == 1


def test_a_mix_whose_milp_the_clock_stopped_says_it_may_differ_by_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plan from a MILP the wall-clock backstop stopped (not its work limit) may differ on
    another machine: its notes say so and what to raise; a plan stopped by nothing does not."""
    scenario = _scenario(
        [host("a100", "A100-80GB-PCIe", 2)], [workload("svc", instances=3, gpus=0.5)]
    )
    assert not any(
        "time backstop" in n for n in recommend(scenario, AnnualRates(scenario)).plan.notes
    )
    real = milp_module.milp

    def stopped_by_the_clock(**arguments: Any) -> Any:
        result = real(**arguments)
        if result.x is not None:
            result.status, result.message = 1, "Time limit reached. (HiGHS Status 13)"
        return result

    monkeypatch.setattr(milp_module, "milp", stopped_by_the_clock)
    mix = recommend(scenario, AnnualRates(scenario))
    assert mix.counts.stopped_by_clock
    assert check_plan(mix.plan, scenario) == []
    assert any("time backstop (60 s)" in n and "--time-limit" in n for n in mix.plan.notes)


def test_the_pool_takes_a_split_class_s_idlest_instances_and_the_bound_allows_it() -> None:
    """Eight whole-GPU notebooks, half of them running at any hour (#1-#4 always, #5-#8 never):
    a two-GPU pool host and a four-GPU Kubernetes node. The node serves the four busy ones on
    passthrough GPUs and the pool the four idle ones, which hold no GPU memory: five GPUs. A
    bound that spread the class's activity evenly over the pooled instances would claim six."""
    scenario = _scenario(
        [
            host("pool", "A100-80GB-PCIe", 2),
            host("node", "A100-80GB-PCIe", 4, platform=Platform.KUBERNETES),
        ],
        [
            workload(
                "nb",
                kind=WorkloadKind.NOTEBOOK,
                instances=8,
                memory_gib=80,
                busy_fraction=0.1,
                schedule=(0.5,) * 24,
            )
        ],
    )
    mixed = recommend(scenario, AnnualRates(scenario))
    plan = mixed.plan
    assert check_plan(plan, scenario) == []
    pooled = {
        p.instance
        for p in plan.placements
        if plan.role((p.host, p.gpu_index)) is Method.REMOTE_POOL
    }
    assert pooled == {"nb#5", "nb#6", "nb#7", "nb#8"}
    assert len(plan.gpu_configs) == 5
    bound = gpu_lower_bound(scenario, mixed.types, mixed.options, {"nb": 8})
    assert bound <= len(plan.gpu_configs)


def _busy_shares(schedule: Sequence[float]) -> Scenario:
    """24 pods of half a GPU, busy all their active hours, on two 8-GPU Kubernetes nodes."""
    return _scenario(
        [
            host(name, "L40S", 8, cpu_cores=128, ram_gib=1024, platform=Platform.KUBERNETES)
            for name in ("n1", "n2")
        ],
        [
            workload(
                "svc", instances=24, gpus=0.5, memory_gib=4, busy_fraction=1.0, schedule=schedule
            )
        ],
    )


def test_a_bound_gives_busy_work_the_gpus_its_slowdown_limit_needs() -> None:
    """Always busy, the 24 pods ask 12 GPUs of work; within their 1.5× limit no plan gives them
    fewer than 8 GPUs (a GPU asked for more than one GPU of work slows every pod on it that
    much). Time-slicing's four replicas per GPU alone would allow 6. Active half of every hour,
    two pods meet half the time and 6 GPUs serve them: the bound allows it, and the plan finds
    it."""
    busy = _busy_shares([1.0] * 24)
    plan = plan_scenario(busy).recommended
    assert plan is not None
    assert check_plan(plan.result.plan, busy) == []
    assert plan.result.metrics.instances_not_placed == 0
    types = host_types(busy.inventory.hosts, busy)
    found = bound_options(busy, types)
    assert gpu_lower_bound(busy, types, found, {"svc": 24}) == 8
    assert plan.result.metrics.gpus_used >= 8
    assert plan.cost_lower_bound_usd <= plan.bounded_usd_per_year + 1e-6

    half = _busy_shares([0.5] * 24)
    plan = plan_scenario(half).recommended
    assert plan is not None
    assert check_plan(plan.result.plan, half) == []
    assert plan.result.metrics.instances_not_placed == 0
    assert gpu_lower_bound(half, types, bound_options(half, types), {"svc": 24}) == 6
    assert plan.result.metrics.gpus_used == 6
    assert plan.cost_lower_bound_usd == pytest.approx(plan.bounded_usd_per_year)


def test_busy_work_rows_are_left_out_where_no_gpu_gets_more_than_one_gpu_of_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the sample no method packs more than one GPU of busy work on a GPU, so the rows would
    bind nothing; left in, they only made the bound's MILP stop earlier at a weaker bound."""
    loaded = load_scenario(
        ("inventory.csv", SAMPLE_INVENTORY.read_bytes()),
        ("workloads.csv", (SAMPLE_DIR / "workloads.csv").read_bytes()),
        CATALOG,
    )
    scenario = loaded.value
    types = host_types(scenario.inventory.hosts, scenario)
    found = bound_options(scenario, types)
    served = {w.name: w.instances for w in scenario.workloads}
    rates = AnnualRates(scenario)
    with_rows = cost_lower_bound(scenario, types, found, rates, served)
    monkeypatch.setattr(counts_module, "_busy_work_within_limits", lambda *_: None)
    assert with_rows == pytest.approx(cost_lower_bound(scenario, types, found, rates, served))


def test_a_job_no_host_can_hold_is_refused_by_every_method_not_left_for_room() -> None:
    """An 8-GPU job on 4-GPU hosts: no host ever holds its GPUs, so no method offers it an
    option there ("nothing fits", each method saying why), not "no room left"."""
    scenario = _scenario(
        [host("h1", "A100-80GB-PCIe", 4), host("h2", "A100-80GB-PCIe", 4)],
        [workload("gang", gpus=8, memory_gib=200), workload("small", instances=2)],
    )
    types = host_types(scenario.inventory.hosts, scenario)
    found, refusals = options(scenario, types)
    assert not [o for o in found if o.workload == "gang"]
    assert {r.method for r in refusals if r.workload == "gang"} >= {
        Method.PASSTHROUGH,
        Method.REMOTE_POOL,
    }
    assert all(
        "needs 8 GPUs on one host and the A100-80GB-PCIe hosts here have 4" in r.reason
        for r in refusals
        if r.workload == "gang" and r.method in (Method.PASSTHROUGH, Method.REMOTE_POOL)
    )
    plan = plan_scenario(scenario).recommended
    assert plan is not None
    (decision,) = [d for d in plan.decisions if d.workload == "gang"]
    assert decision.decided_by == "nothing fits"


def test_an_instance_bigger_than_every_host_is_refused_for_its_cores_not_left_for_room() -> None:
    """A pod of 32 vCPUs on Kubernetes nodes of 8 cores: no node ever holds one, so every
    method that runs it on its GPU's node refuses it for its cores ("nothing fits"), where the
    plan said "no room left" on an empty estate; a pod of 2 vCPUs is still served."""
    nodes = [host(f"n{i}", "L40S", 4, cpu_cores=8, platform=Platform.KUBERNETES) for i in (1, 2)]
    scenario = _scenario(nodes, [workload("wide", vcpus=32, gpus=0.5), workload("narrow")])
    found, refusals = options(scenario, host_types(scenario.inventory.hosts, scenario))
    assert not [o for o in found if o.workload == "wide"]
    assert [o for o in found if o.workload == "narrow"]
    cores = [r for r in refusals if r.workload == "wide" and "32 cores" in r.reason]
    assert {r.method for r in cores} >= {Method.PASSTHROUGH, Method.K8S_TIME_SLICING}
    assert all(
        r.reason == "an instance needs 32 cores and the L40S hosts here have 8" for r in cores
    )
    plan = plan_scenario(scenario).recommended
    assert plan is not None
    decisions = {d.workload: d for d in plan.decisions}
    assert decisions["wide"].decided_by == "nothing fits"
    assert decisions["narrow"].served
    assert decisions["narrow"].not_served == 0


def test_a_refusal_names_the_rule_that_holds_on_the_models_the_class_may_use() -> None:
    """Desktops that need live migration, restricted to A16: on the H100 host passthrough is
    ruled out by the model list, on the A16 host by live migration. The refusal names live
    migration, which rules passthrough out wherever the class may go; with only an H100 host
    the model list is what rules it out."""
    desktops = workload(
        "vdi",
        kind=WorkloadKind.VDI,
        gpus=0.25,
        memory_gib=4,
        busy_fraction=0.1,
        needs_live_migration=True,
        gpu_models=("A16",),
    )
    both = _scenario([host("h100", "H100-80GB-PCIe", 4), host("a16", "A16", 4)], [desktops])
    _, refusals = options(both, host_types(both.inventory.hosts, both))
    (passthrough,) = [r for r in refusals if r.method is Method.PASSTHROUGH]
    assert "migrat" in passthrough.reason
    assert "restricted" not in passthrough.reason
    assert passthrough.kind == "requirement"
    only = _scenario([host("h100", "H100-80GB-PCIe", 4)], [desktops])
    _, refusals = options(only, host_types(only.inventory.hosts, only))
    (passthrough,) = [r for r in refusals if r.method is Method.PASSTHROUGH]
    assert passthrough.reason == "restricted to A16, not H100-80GB-PCIe"


def test_big_training_takes_a_whole_host_and_small_work_another() -> None:
    """An eight-GPU training run fills one HGX host in passthrough; eight small isolated
    notebooks go to the other host: seven as 1g.10gb MIG slices of one GPU and the eighth on a
    passthrough GPU, which needs no licence, rather than a second licensed MIG GPU or eight
    passthrough GPUs."""
    scenario = _scenario(
        [
            host("hgx-1", "H100-80GB-SXM", 8, cpu_cores=112, mig_enabled=True),
            host("hgx-2", "H100-80GB-SXM", 8, cpu_cores=112, mig_enabled=True),
        ],
        [
            workload("pretrain", kind=WorkloadKind.TRAINING, gpus=8, memory_gib=600, vcpus=96),
            workload(
                "nb",
                kind=WorkloadKind.NOTEBOOK,
                instances=8,
                gpus=0.125,
                memory_gib=9,
                latency_tolerant=False,
                needs_isolation=True,
                vcpus=4,
            ),
        ],
    )
    plan = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(plan, scenario) == []
    assert _methods_of(plan) == {
        "pretrain": Counter({Method.PASSTHROUGH: 1}),
        "nb": Counter({Method.MIG: 7, Method.PASSTHROUGH: 1}),
    }
    assert (_gpus(plan, Method.PASSTHROUGH), _gpus(plan, Method.MIG)) == (9, 1)
    assert len({key[0] for key in plan.gpu_configs}) == 2


def test_a_class_slower_than_its_limit_everywhere_is_left_out_with_the_reason() -> None:
    """A class whose limit no sharing method meets and that cannot take passthrough (it needs
    vMotion) is not placed, and the reason names the slowdown."""
    heavy = workload(
        "chatty",
        kind=WorkloadKind.NOTEBOOK,
        instances=8,
        gpus=0.5,
        memory_gib=10,
        busy_fraction=0.9,
        needs_live_migration=True,
    )
    strict = heavy.__class__(**{**heavy.__dict__, "max_slowdown": 1.01})
    scenario = _scenario([host("l40s", "L40S", 4)], [strict])
    mixed = recommend(scenario, AnnualRates(scenario))
    assert mixed.plan.placements == ()
    assert len(mixed.plan.not_placed) == 8
    assert "over its limit" in mixed.plan.not_placed[0].reason


def test_options_respect_the_one_eligibility_rule() -> None:
    """A class needing isolation gets no vGPU or pool option; a VDI class no pool option."""
    scenario = _scenario(
        [host("a100", "A100-80GB-PCIe", 8, mig_enabled=True)],
        [
            workload("iso", needs_isolation=True),
            workload("vdi", kind=WorkloadKind.VDI, gpus=0.25, memory_gib=4, busy_fraction=0.1),
        ],
    )
    found, refusals = options(scenario, host_types(scenario.inventory.hosts, scenario))
    methods = {(o.workload, o.method) for o in found}
    assert ("iso", Method.VGPU) not in methods
    assert ("iso", Method.REMOTE_POOL) not in methods
    assert ("vdi", Method.REMOTE_POOL) not in methods
    assert ("iso", Method.MIG) in methods
    assert {(r.workload, r.method, r.kind) for r in refusals} >= {
        ("iso", Method.VGPU, "requirement"),
        ("vdi", Method.REMOTE_POOL, "requirement"),
    }


_KINDS = [WorkloadKind.INFERENCE, WorkloadKind.NOTEBOOK, WorkloadKind.TRAINING]


@st.composite
def _estates(draw: st.DrawFn) -> Scenario:
    hosts = [
        host("a100", "A100-80GB-PCIe", draw(st.sampled_from([2, 4])), mig_enabled=True),
        host("l40s", "L40S", 4, rdma=draw(st.booleans())),
    ]
    classes = []
    for n in range(draw(st.integers(1, 4))):
        gpus = draw(st.sampled_from([0.125, 0.25, 0.5, 1.0]))
        classes.append(
            workload(
                f"w{n}",
                kind=draw(st.sampled_from(_KINDS)),
                instances=draw(st.integers(1, 8)),
                gpus=gpus,
                memory_gib=draw(st.sampled_from([4.0, 10.0, 20.0, 40.0])) * max(gpus, 0.25) * 4,
                busy_fraction=draw(st.sampled_from([0.1, 0.3, 0.6])),
                schedule=draw(st.sampled_from([OFFICE, NIGHT, (1.0,) * 24])),
                needs_isolation=draw(st.booleans()),
                needs_live_migration=draw(st.booleans()),
                latency_tolerant=draw(st.booleans()),
                priority=draw(st.integers(1, 2)),
                vcpus=4,
                ram_gib=16,
            )
        )
    return _scenario(hosts, classes)


_MODELS = ["A100-40GB-PCIe", "H100-80GB-SXM", "H200-141GB-NVL", "L40S", "L4", "A30", "A16", "T4"]


@st.composite
def _any_estates(draw: st.DrawFn) -> Scenario:
    """Estates of one to three host shapes on any platform and GPU model, with MIG on or off and
    any cores and RAM, and classes of every kind, from an eighth of a GPU to four GPUs, with
    their own slowdown limits and three priorities."""
    hosts: list[Host] = []
    for shape in range(draw(st.integers(1, 3))):
        model = draw(st.sampled_from(_MODELS))
        count = draw(st.sampled_from([1, 2, 4, 8]))
        cores = draw(st.sampled_from([16.0, 32.0, 64.0, 112.0]))
        ram = draw(st.sampled_from([128.0, 512.0]))
        mig, rdma = draw(st.booleans()), draw(st.booleans())
        platform = draw(st.sampled_from(list(Platform)))
        hosts.extend(
            host(
                f"h{shape}-{n}",
                model,
                count,
                cpu_cores=cores,
                ram_gib=ram,
                mig_enabled=mig,
                rdma=rdma,
                cluster=f"c{shape}",
                platform=platform,
            )
            for n in range(draw(st.integers(1, 3)))
        )
    classes: list[WorkloadClass] = []
    for n in range(draw(st.integers(1, 5))):
        gpus = draw(st.sampled_from([0.125, 0.25, 0.5, 1.0, 2.0, 4.0]))
        memory = draw(st.sampled_from([2.0, 4.0, 10.0, 20.0, 40.0, 70.0]))
        limit = draw(st.sampled_from([None, 1.1, 2.0, 4.0]))
        classes.append(
            dataclasses.replace(
                workload(
                    f"w{n}",
                    kind=draw(st.sampled_from(list(WorkloadKind))),
                    instances=draw(st.integers(1, 12)),
                    gpus=gpus,
                    memory_gib=memory * min(max(gpus, 0.25), 1.0),
                    busy_fraction=draw(st.sampled_from([0.05, 0.3, 0.6, 1.0])),
                    schedule=draw(st.sampled_from([OFFICE, NIGHT, (1.0,) * 24])),
                    needs_isolation=draw(st.booleans()),
                    needs_live_migration=draw(st.booleans()),
                    latency_tolerant=draw(st.booleans()),
                    priority=draw(st.integers(1, 3)),
                    vcpus=draw(st.sampled_from([1.0, 4.0, 16.0])),
                    ram_gib=draw(st.sampled_from([4.0, 16.0, 64.0])),
                ),
                max_slowdown=limit,
            )
        )
    return _scenario(hosts, classes)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_estates())
def test_the_recommended_plan_is_feasible_bounded_and_never_beaten_by_one_method(
    scenario: Scenario,
) -> None:
    """On generated estates the recommended plan passes the checker, keeps every class within
    its slowdown limit, serves at least as many instances (by priority) as every single method
    that does so too, costs no more than any such method serving as many, and its lower bound
    never exceeds its cost and is found."""
    planned = plan_scenario(scenario)
    recommended = planned.recommended
    assert recommended is not None
    result = recommended.result
    assert result.feasibility_violations == ()
    by_priority = sorted({w.priority for w in scenario.workloads})

    def served(plan: MethodPlan) -> tuple[int, ...]:
        priority = {w.name: w.priority for w in scenario.workloads}
        placed = {p.instance: p.workload for p in plan.placements}
        counts = Counter(priority[name] for name in placed.values())
        return tuple(counts[level] for level in by_priority)

    mine = served(result.plan)
    assert within_limits(result, scenario)
    for single in planned.singles:
        if not within_limits(single, scenario):
            continue
        theirs = served(single.plan)
        assert mine >= theirs, single.label
        if mine == theirs:
            assert result.cost.total_usd_per_year <= single.cost.total_usd_per_year + 1e-6
    assert recommended.cost_lower_bound_usd <= recommended.bounded_usd_per_year + 1e-6
    assert result.metrics.lower_bound_gpus <= result.metrics.gpus_used
    if result.metrics.gpus_used:
        # A bound of 0 is the bound model finding no solution: a row cut off the plan itself.
        assert result.metrics.lower_bound_gpus >= 1
        assert recommended.cost_lower_bound_usd > 0


@st.composite
def _sizings(draw: st.DrawFn) -> tuple[Scenario, list[ServerType], int]:
    """A generated estate's classes, one to three server types to size for, headroom 0 or 1."""
    servers = [
        ServerType(
            draw(st.sampled_from(_MODELS)),
            draw(st.sampled_from([1, 2, 4, 8])),
            draw(st.sampled_from([32.0, 64.0, 112.0])),
            draw(st.sampled_from([256.0, 1024.0])),
            rdma=draw(st.booleans()),
            mig_enabled=draw(st.booleans()),
            platform=draw(st.sampled_from(list(Platform))),
        )
        for _ in range(draw(st.integers(1, 3)))
    ]
    return draw(_any_estates()), servers, draw(st.integers(0, 1))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sizings())
def test_a_sized_cluster_s_plan_is_feasible_and_serves_what_any_method_does(
    case: tuple[Scenario, list[ServerType], int],
) -> None:
    """Sizing a cluster of generated server types, with headroom or not: the recommended plan
    passes the checker, keeps every class within its limit, serves by priority at least what
    each method's own sizing serves within the limits, and its bound is not above its cost."""
    scenario, servers, headroom = case
    planned = size_cluster(scenario, servers, headroom=headroom)
    recommended = planned.recommended
    if recommended is None:
        assert all(not r.plan.placements for r in planned.singles)
        return
    result = recommended.result
    assert result.feasibility_violations == ()
    assert within_limits(result, scenario)
    priority = {w.name: w.priority for w in scenario.workloads}
    levels = sorted(set(priority.values()))

    def served(plan: MethodPlan) -> tuple[int, ...]:
        counts = Counter(
            priority[w] for w in {p.instance: p.workload for p in plan.placements}.values()
        )
        return tuple(counts[level] for level in levels)

    for single in planned.singles:
        if within_limits(single, scenario):
            assert served(result.plan) >= served(single.plan), single.label
    assert recommended.cost_lower_bound_usd <= recommended.bounded_usd_per_year + 1e-6


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_any_estates())
def test_the_recommended_plan_holds_on_any_platform_and_gpu_model(scenario: Scenario) -> None:
    """The same promises as above on estates of Kubernetes, bare-metal and vSphere hosts of
    every GPU model, with multi-GPU classes, per-class slowdown limits and three priorities."""
    inner = test_the_recommended_plan_is_feasible_bounded_and_never_beaten_by_one_method
    inner.hypothesis.inner_test(scenario)  # type: ignore[attr-defined]


def test_same_inputs_give_the_same_plan() -> None:
    """Two runs on the same estate give the same placements, roles and figures."""
    scenario = _scenario(
        [host("a100", "A100-80GB-PCIe", 8, mig_enabled=True), host("l40s", "L40S", 4)],
        [
            workload("a", instances=9, gpus=0.25, memory_gib=10),
            workload("b", instances=3, gpus=1, memory_gib=40, needs_isolation=True),
        ],
    )
    first = recommend(scenario, AnnualRates(scenario)).plan
    second = recommend(scenario, AnnualRates(scenario)).plan
    assert first.placements == second.placements
    assert first.roles == second.roles
    assert first.not_placed == second.not_placed


@pytest.mark.parametrize("today", ["passthrough", "vgpu"])
def test_the_answer_is_stated_against_today(today: str) -> None:
    """The headline compares GPUs and cost with the single-method plan of how the estate is
    shared today."""
    scenario = _scenario(
        [host("a100", "A100-80GB-PCIe", 8, mig_enabled=True)],
        [workload("nb", instances=8, gpus=0.25, memory_gib=10, busy_fraction=0.1)],
    )
    assumptions = scenario.assumptions.__class__(today_method=today)
    scenario = Scenario(scenario.catalog, scenario.inventory, scenario.workloads, assumptions)
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    assert recommended.today is not None
    assert recommended.today.plan.method is Method(today)
    assert f"today ({Method(today).label})" in recommended.headline()


def test_a_type_that_cannot_take_the_milp_s_mix_is_held_to_what_it_took(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The MILP sums cores over a type's hosts; on this fleet its first mix does not fit host by
    host. Solving again with that type held to what it took serves as many instances for less
    than placing the first mix and retrying what it left out, and the plan passes the checker."""
    scenario = fleet(100, seed=4)
    rounds = mixed._PLACEMENT_ROUNDS
    # The rounds alone: no type planned host by host.
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    monkeypatch.setattr(placement, "_BY_HOST_MAX_HOSTS", 0)

    def placed_and_cost(at_most: int) -> tuple[int, float]:
        monkeypatch.setattr(mixed, "_PLACEMENT_ROUNDS", at_most)
        plan = recommend(scenario, AnnualRates(scenario)).plan
        assert check_plan(plan, scenario) == []
        cost = measure_plan(plan, scenario).cost
        return _served(plan), cost.total_usd_per_year - cost.busy_power_usd_per_year

    once, held = placed_and_cost(1), placed_and_cost(rounds)
    assert held[0] == once[0] == sum(w.instances for w in scenario.workloads)
    assert held[1] < once[1]


def test_gpus_whose_instances_need_more_cores_than_a_host_has_are_spread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forty 4-core desktops that must live-migrate and two 16-core fine-tuning jobs on three
    A100 hosts of 64 cores: vGPU packs twenty desktops (80 cores) on one GPU, which no host can
    take. Placement splits such GPUs until the hosts take them, so every instance is served;
    so does the retry alone, packing what is left out to the room hosts have left
    (``fit_on_pool``); placing the GPUs as packed and retrying them as packed does not."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    # Spreading alone: no type planned host by host.
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    monkeypatch.setattr(placement, "_BY_HOST_MAX_HOSTS", 0)

    def served() -> int:
        plan = recommend(scenario, AnnualRates(scenario)).plan
        assert check_plan(plan, scenario) == []
        return _served(plan)

    assert served() == 42
    monkeypatch.setattr(placement, "_spread_out", lambda *arguments: arguments[-1])
    assert served() == 42
    monkeypatch.setattr(_Committed, "fill_free_room", lambda *arguments: None)
    assert served() < 42


def test_a_mix_chosen_host_by_host_by_configuration_serves_what_the_type_s_mix_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The case above with neither spreading nor the retry's fill: placing the mix the MILP
    chose by type leaves desktops out, since a GPU of twenty needs more cores than a host has.
    Chosen host by host, each host set up by a configuration within its own cores
    (``_by_configurations``), every instance is served and the plan passes the checker."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    monkeypatch.setattr(placement, "_BY_HOST_MAX_HOSTS", 0)
    monkeypatch.setattr(placement, "_spread_out", lambda *arguments: arguments[-1])
    monkeypatch.setattr(_Committed, "fill_free_room", lambda *arguments: None)
    monkeypatch.setattr(mixed, "_BY_CONFIGURATION_MIN_HOSTS", 0)

    def served() -> int:
        plan = recommend(scenario, AnnualRates(scenario)).plan
        assert check_plan(plan, scenario) == []
        return _served(plan)

    assert served() == 42
    monkeypatch.setattr(mixed, "by_configurations", lambda *arguments: None)
    assert served() < 42


def test_a_plan_over_a_slowdown_limit_does_not_replace_one_within_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A challenger that serves more ranks first, unless a class of it is over its slowdown
    limit while every class of the plan it would replace is within its own."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    rates = AnnualRates(scenario)
    mix = recommend(scenario, rates)
    served = Placing(
        placements=list(mix.plan.placements),
        configs=dict(mix.plan.gpu_configs),
        roles=dict(mix.plan.roles),
    )
    nothing = Placing(
        missed={p.instance: NotPlaced(p.instance, p.workload, "no room") for p in served.placements}
    )
    challenger, kept = (mix.counts, served), (mix.counts, nothing)
    assert mixed._ranks_first(scenario, mix.types, rates, challenger, kept)
    monkeypatch.setattr(mixed, "over_limit", lambda _, plan: {"d"} if plan.placements else set())
    assert not mixed._ranks_first(scenario, mix.types, rates, challenger, kept)
    monkeypatch.setattr(mixed, "over_limit", lambda *arguments: {"d"})
    assert mixed._ranks_first(scenario, mix.types, rates, challenger, kept)
    assert not mixed._ranks_first(scenario, mix.types, rates, kept, challenger)


def test_a_configuration_from_a_placed_pool_host_gets_the_idlest_instances_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty notebooks of 12 GiB, half of them active by day, on three one-GPU L40S pool
    servers: a placed server holds fourteen of the idlest. Set up again by that configuration,
    a server gets the idlest again (the pool serves the idlest first), so the plan by
    configuration serves all twenty; handed the most active it served fourteen."""
    day = tuple(0.5 if 9 <= hour < 17 else 0.1 for hour in range(24))
    scenario = _scenario(
        [host(f"p{i}", "L40S", 1, platform=Platform.BARE_METAL) for i in range(3)],
        [
            workload(
                "nb",
                kind=WorkloadKind.NOTEBOOK,
                instances=20,
                gpus=0.3,
                memory_gib=12,
                schedule=day,
            )
        ],
    )
    monkeypatch.setattr(mixed, "_BY_CONFIGURATION_MIN_HOSTS", 0)
    monkeypatch.setattr(mixed, "_ranks_first", lambda *arguments: True)
    plan = recommend(scenario, AnnualRates(scenario), methods=(Method.REMOTE_POOL,)).plan
    assert check_plan(plan, scenario) == []
    assert _served(plan) == 20


def test_a_host_set_up_for_more_of_a_class_than_wait_takes_all_that_wait() -> None:
    """The master may hold more of a class than it has (its rows are at least the demand): a
    host set up for 8 notebooks when 5 wait takes those 5, and a second one finds none left,
    under a method that serves the idlest first (the remote pool) and one that does not."""
    scenario = _scenario(
        [host(f"p{i}", "L40S", 1) for i in range(2)],
        [workload("nb", kind=WorkloadKind.NOTEBOOK, instances=5, gpus=0.3, memory_gib=4)],
    )
    types = host_types(scenario.inventory.hosts, scenario)
    found, _ = options(scenario, types, (Method.REMOTE_POOL, Method.VGPU))
    groups = [Group(tuple(scenario.workloads), tuple(found))]
    for method in (Method.REMOTE_POOL, Method.VGPU):
        waiting = configurations._Waiting(scenario, found, groups)
        setup = HostSetup({(0, method): 8}, {method: 1})
        taken = waiting.take(setup, 0)[method]
        assert sorted(x.id for x in taken) == sorted(x.id for x in instances_of(scenario.workloads))
        assert waiting.take(setup, 0) == {method: []}
        assert waiting.left() == []


def test_the_bound_knows_no_gpu_carries_more_cores_than_its_host_has() -> None:
    """Twenty 4-core desktops fit one A100's memory under vGPU but need 80 cores, and the hosts
    have 64: with three 16-core jobs on two hosts, the desktops take two GPUs and the plan five.
    Cores summed over the hosts allow four GPUs; counted per GPU, at most a host's each, they
    do not, and the plan is proven optimal."""
    scenario = _desktops_and_jobs(hosts=2, desktops=20, jobs=3)
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    plan = recommended.result.plan
    assert check_plan(plan, scenario) == []
    assert _served(plan) == 23
    assert len(plan.gpu_configs) == 5
    assert recommended.cost_lower_bound_usd == pytest.approx(recommended.bounded_usd_per_year)


def test_a_bound_too_large_to_solve_exactly_is_its_lp_relaxation_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the bound's MILP is over the bounds' size limit (as the Alibaba trace's are), the
    cost and GPU bounds are its LP relaxation's optimum: above zero, at most the MILP's, and
    at most what the plan costs and uses."""
    scenario = _desktops_and_jobs(hosts=2, desktops=20, jobs=3)
    rates = AnnualRates(scenario)
    types = host_types(scenario.inventory.hosts, scenario)
    found = bound_options(scenario, types, tuple(Method), mixed.SoloFits(scenario))
    served = {w.name: w.instances for w in scenario.workloads}

    def bounds() -> tuple[float, int]:
        return (
            plan_bounds._by_type_lower_bound(scenario, types, found, rates, served),
            gpu_lower_bound(scenario, types, found, served),
        )

    exact_usd, exact_gpus = bounds()
    monkeypatch.setattr(plan_bounds, "_BOUND_MAX_NONZEROS", 0)
    relaxed_usd, relaxed_gpus = bounds()
    plan = recommend(scenario, rates).plan
    assert check_plan(plan, scenario) == []
    assert 0 < relaxed_usd <= exact_usd * (1 + 1e-9)
    assert 0 < relaxed_gpus <= exact_gpus <= len(plan.gpu_configs)
    assert relaxed_usd <= _placed_and_cost(scenario)[1] * (1 + 1e-9)


def _placed_and_cost(scenario: Scenario) -> tuple[int, float]:
    """The recommended mix's instances served and its annual cost without busy power, after the
    checker passed it."""
    plan = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(plan, scenario) == []
    cost = measure_plan(plan, scenario).cost
    return _served(plan), cost.total_usd_per_year - cost.busy_power_usd_per_year


def test_a_crowded_type_is_planned_host_by_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """On this fleet the MILP's mix for the L40S hosts sums to their cores but does not fit
    host by host. Planning those hosts one by one (each a type of its own in the MILP, then
    packed host by host) serves every instance for less than placing the mix as packed and
    retrying what it left out."""
    scenario = fleet(100, seed=5)
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    by_host = _placed_and_cost(scenario)
    monkeypatch.setattr(placement, "_BY_HOST_MAX_HOSTS", 0)
    as_packed = _placed_and_cost(scenario)
    assert by_host[0] == as_packed[0] == sum(w.instances for w in scenario.workloads)
    assert by_host[1] < as_packed[1] * 0.97


def test_a_small_estate_is_planned_with_each_host_a_type_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On this 20-host fleet the MILP over host types plans a mix whose cores fit only summed
    over a type's hosts; with each host a type of its own the MILP plans what fits host by
    host, which serves every instance for less."""
    scenario = fleet(100, seed=3)
    assert len(scenario.inventory.hosts) <= mixed._ONE_TYPE_PER_HOST_MAX_HOSTS
    each_host = _placed_and_cost(scenario)
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    by_type = _placed_and_cost(scenario)
    assert each_host[0] == by_type[0] == sum(w.instances for w in scenario.workloads)
    assert each_host[1] < by_type[1] * 0.99


def test_shared_gpus_are_spread_to_what_a_host_leaves_beside_its_other_gpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six L40S hosts of four GPUs and 64 cores; eighteen 8-core inference jobs of a whole GPU
    and sixty 4-core desktops that must live-migrate (vGPU packs twelve to a GPU: 48 cores).
    Everything fits only with three jobs and a GPU of ten desktops on every host (24 + 40
    cores). Spreading to a share of a host (48 or 32 cores) leaves desktops out; to what a host
    leaves beside three of the lightest one-instance GPUs, every instance is served."""
    scenario = _jobs_beside_desktops()
    # Spreading alone: no type planned host by host.
    monkeypatch.setattr(mixed, "_ONE_TYPE_PER_HOST_MAX_HOSTS", 0)
    monkeypatch.setattr(placement, "_BY_HOST_MAX_HOSTS", 0)
    assert _placed_and_cost(scenario)[0] == 78

    def shares_of_a_host(host_type: HostType, requests: object) -> list[tuple[float, float]]:
        shape, g = host_type.shape, host_type.gpus
        return [(shape.cpu_cores * k / g, shape.ram_gib * k / g) for k in range(g - 1, 0, -1)]

    monkeypatch.setattr(placement, "_spread_caps", shares_of_a_host)
    assert _placed_and_cost(scenario)[0] < 78


def _jobs_beside_desktops() -> Scenario:
    """Six L40S hosts of four GPUs and 64 cores; eighteen 8-core inference jobs of a whole GPU
    that must be isolated (passthrough) and sixty 4-core desktops that must live-migrate
    (vGPU: twelve fit a GPU's memory)."""
    return _scenario(
        [host(f"h{i}", "L40S", 4, cpu_cores=64, ram_gib=1024) for i in range(6)],
        [
            _migrating_desktops(60),
            workload(
                "inference",
                kind=WorkloadKind.INFERENCE,
                instances=18,
                memory_gib=40,
                busy_fraction=0.9,
                needs_isolation=True,
                vcpus=8,
                ram_gib=64,
            ),
        ],
    )


def test_the_bound_knows_other_roles_keep_their_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """The jobs take eighteen GPUs and at least 8 cores each; a host's desktops then have at
    most 64 − 8 a cores beside its ``a`` jobs, so sixty desktops need six vGPU GPUs, not the
    five their memory and the hosts' summed cores allow. The bound by type counts all 24 GPUs
    and proves the plan optimal; without the row it is a GPU short. (The bound host by host,
    whose hosts hold their own cores, proves it too: it is left out here.)"""
    scenario = _jobs_beside_desktops()
    monkeypatch.setattr(plan_bounds, "_by_host_lower_bound", lambda *arguments: 0.0)
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    plan = recommended.result.plan
    assert check_plan(plan, scenario) == []
    assert _served(plan) == 78
    assert len(plan.gpu_configs) == 24
    assert recommended.result.metrics.lower_bound_gpus == 24
    assert recommended.cost_lower_bound_usd == pytest.approx(recommended.bounded_usd_per_year)

    monkeypatch.setattr(counts_module, "_other_roles_keep_their_cores", lambda *arguments: None)
    looser = plan_scenario(scenario).recommended
    assert looser is not None
    assert looser.result.metrics.lower_bound_gpus == 23
    assert looser.cost_lower_bound_usd < recommended.cost_lower_bound_usd


def _desktops_and_jobs(*, hosts: int, desktops: int, jobs: int) -> Scenario:
    """4-core desktops that must live-migrate (vGPU: twenty fit one A100) and 16-core
    fine-tuning jobs of a whole GPU, on A100 hosts of four GPUs and 64 cores."""
    return _scenario(
        [host(f"h{i}", "A100-80GB-PCIe", 4, cpu_cores=64, ram_gib=1024) for i in range(hosts)],
        [
            _migrating_desktops(desktops),
            workload(
                "finetune",
                kind=WorkloadKind.TRAINING,
                instances=jobs,
                memory_gib=70,
                busy_fraction=0.9,
                vcpus=16,
                ram_gib=128,
            ),
        ],
    )


def _migrating_desktops(instances: int, **changes: Any) -> WorkloadClass:
    """4-core desktops of 4 GiB that must live-migrate (vGPU), a tenth busy; ``changes`` are
    more of ``workload``'s arguments."""
    settings: dict[str, Any] = {
        "kind": WorkloadKind.VDI,
        "gpus": 0.05,
        "memory_gib": 4,
        "busy_fraction": 0.1,
        "needs_live_migration": True,
        "latency_tolerant": False,
        "vcpus": 4,
    }
    return workload("desktops", instances=instances, **{**settings, **changes})


def _served(plan: MethodPlan) -> int:
    return len({p.instance for p in plan.placements})


def test_the_bound_counts_pooled_instances_that_cannot_share_a_gpu() -> None:
    """Five always-on notebooks of 17 GiB on 48 GiB GPUs: two fit on one GPU, so the pool needs
    three GPUs though their memory adds up to 1.77. The bound agrees (its rows round each share
    where it cannot be cut finer), so the plan is proven to use the fewest GPUs."""
    scenario = _scenario(
        [host("pool", "L40S", 4)],
        [workload("nb", kind=WorkloadKind.NOTEBOOK, instances=5, gpus=0.3, memory_gib=17)],
    )
    mixed_plan = recommend(scenario, AnnualRates(scenario), methods=(Method.REMOTE_POOL,))
    plan = mixed_plan.plan
    assert check_plan(plan, scenario) == []
    assert _gpus(plan, Method.REMOTE_POOL) == 3
    bound = gpu_lower_bound(scenario, mixed_plan.types, mixed_plan.options, {"nb": 5})
    assert bound == 3


def test_the_bound_knows_a_host_s_cores_come_with_its_gpus() -> None:
    """Fifty-five 4-core desktops that must live-migrate, twenty to an H100 under vGPU, on 8-GPU
    hosts of 112 cores: three GPUs need three hosts (two GPUs on one host carry 28 desktops,
    not 40), or four GPUs two. Cores summed over the hosts would let the bound count three GPUs
    on two hosts; counted host by host it does not, and the plan is proven optimal."""
    scenario = _scenario(
        [host(f"h{i}", "H100-80GB-SXM", 8, cpu_cores=112, ram_gib=2048) for i in range(3)],
        [_migrating_desktops(55, schedule=OFFICE)],
    )
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    plan = recommended.result.plan
    assert check_plan(plan, scenario) == []
    hosts = len({key[0] for key in plan.gpu_configs})
    assert (len(plan.gpu_configs), hosts) in {(3, 3), (4, 2)}
    assert plan.status is SolveStatus.OPTIMAL
    assert recommended.cost_lower_bound_usd == pytest.approx(recommended.bounded_usd_per_year)


def test_the_bound_host_by_host_sees_each_host_s_own_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a fleet of some 300 GPUs the bound with each host set up by a configuration of its
    own (``_by_host_lower_bound``) is above the bound by host type, whose cores are a type's
    together; the cost bound is the better of the two, and no plan beats it. Its one-host
    models are priced whatever the by-type bound's size limit (they were refused past it)."""
    scenario = fleet(300, seed=1)
    rates = AnnualRates(scenario)
    types = host_types(scenario.inventory.hosts, scenario)
    found = bound_options(scenario, types)
    served = {w.name: w.instances for w in scenario.workloads}
    by_type = plan_bounds._by_type_lower_bound(scenario, types, found, rates, served)
    by_host = plan_bounds._by_host_lower_bound(scenario, types, found, rates, served)
    assert by_host > by_type * 1.005
    with monkeypatch.context() as patched:
        patched.setattr(plan_bounds, "_BOUND_MAX_NONZEROS", 0)
        assert plan_bounds._by_host_lower_bound(scenario, types, found, rates, served) == by_host
    assert cost_lower_bound(scenario, types, found, rates, served) == by_host
    placed, cost = _placed_and_cost(scenario)
    assert placed == sum(served.values())
    assert by_host <= cost


def test_the_bound_reaches_a_single_method_s_denser_plan_within_the_limits() -> None:
    """The mix sets memory aside for the notebooks-like inference class so that each of its
    GPUs stays within 1.5× bare metal; the remote pool alone packs five of them on one L40S at
    1.5× and three on an A100 at 1.15×, within the limit on average, and costs less. The bound
    must reach that plan too: it ranges over every plan within the classes' mean limits, not
    only the mix's options (a case found by the property test above)."""
    scenario = _scenario(
        [
            host("a100", "A100-80GB-PCIe", 2, mig_enabled=True),
            host("l40s", "L40S", 4, rdma=False),
        ],
        [
            workload("w0", instances=7, gpus=0.5, memory_gib=8, busy_fraction=0.6,
                     schedule=OFFICE, priority=1),
            workload("w1", instances=1, gpus=0.125, memory_gib=40, busy_fraction=0.1,
                     schedule=OFFICE, priority=1),
        ],
    )  # fmt: skip
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    assert within_limits(recommended.result, scenario)
    assert recommended.result.metrics.instances_placed == 8
    assert 0 < recommended.cost_lower_bound_usd <= recommended.bounded_usd_per_year + 1e-6


def test_an_instance_left_out_gets_room_made_by_moving_gpus_between_hosts() -> None:
    """Host a: a GPU of twelve 4-core desktops (48 of its 56 cores) beside a free GPU; host b:
    a 16-core job's GPU and a 4-core service's, 36 cores free and no free GPU. A second job of
    one GPU and 16 cores fits neither host as placed. Moving or swapping a GPU whole makes room
    (the service's GPU to a, or the desktops' GPU for the job's), and the plan that results
    serves everything and keeps every method's rules."""
    hosts = [host(name, "L40S", 2, cpu_cores=56, ram_gib=512) for name in "ab"]
    scenario = _scenario(
        hosts,
        [
            workload(
                "desktops",
                kind=WorkloadKind.VDI,
                instances=12,
                gpus=0.05,
                memory_gib=4,
                needs_live_migration=True,
                latency_tolerant=False,
                vcpus=4,
            ),
            workload("jobs", kind=WorkloadKind.TRAINING, instances=2, memory_gib=40, vcpus=16),
            workload("service", memory_gib=40, vcpus=4),
        ],
    )
    types = host_types(hosts, scenario)
    found, _ = options(scenario, types)
    by_name = {w.name: w for w in scenario.workloads}
    instances = {i.id: i for i in instances_of(scenario.workloads)}
    placing = Placing(free_hosts={0: []})
    pool = placing.shared[0] = HostPool(hosts)
    for method, names, on in (
        (Method.VGPU, [f"desktops#{n}" for n in range(1, 13)], 0),
        (Method.PASSTHROUGH, ["jobs#1", "service#1"], 1),
    ):
        packing = pack(method, [instances[n] for n in names], types[0].model, scenario, "auto")
        fixed = [on] * len(packing.requests)
        assigned = assign_hosts(packing.requests, pool, fixed=fixed)
        assert assigned.not_placed == ()
        record(assigned.placements, assigned.gpu_configs, (), dict.fromkeys(names, method), placing)
    assert (pool.free_gpus, pool.free_cores) == ([[1], []], [8.0, 36.0])
    placing.missed["jobs#2"] = NotPlaced("jobs#2", "jobs", "no host has room")
    job = pack(Method.PASSTHROUGH, [instances["jobs#2"]], types[0].model, scenario, "auto")
    assert pool.copy().place(job.requests[0]) is None  # stranded as placed

    cheapest = cheapest_first(found, types, AnnualRates(scenario))
    make_room(scenario, types, cheapest, placing)

    plan = mixed._as_plan(scenario, placing, mixed._NO_COUNTS, 0.0, tuple(hosts))
    assert plan.not_placed == ()
    assert _served(plan) == 15
    assert check_plan(plan, scenario) == []
    cores: Counter[str] = Counter()
    for p in {p.instance: p for p in plan.placements}.values():
        cores[p.host] += int(by_name[p.workload].vcpus)
    assert sorted(cores.values()) == [32, 52]


def test_a_small_class_within_its_limit_on_average_is_packed_densely() -> None:
    """Three notebooks that must live-migrate, on two one-GPU A16 hosts: vGPU packs two to a
    GPU and one alone. The pair runs over the 1.5× limit, the class's mean does not, so vGPU
    alone serves all three; the mix does too (before, it set memory aside for one notebook per
    GPU and left one out)."""
    hosts = [host(f"a16-{n}", "A16", 1, cpu_cores=32, ram_gib=256) for n in range(2)]
    notebooks = workload(
        "nb",
        kind=WorkloadKind.NOTEBOOK,
        instances=3,
        gpus=0.125,
        memory_gib=5.0,
        busy_fraction=0.3,
        schedule=OFFICE,
        needs_live_migration=True,
        latency_tolerant=False,
        vcpus=1,
        ram_gib=4,
    )
    scenario = _scenario(hosts, [notebooks])
    types = host_types(hosts, scenario)
    solos = mixed.SoloFits(scenario)
    assert solos(Method.VGPU, notebooks, 0, types[0]).slowdown > 1.5
    mix = recommend(scenario, AnnualRates(scenario), methods=(Method.VGPU,))
    assert [o.on_average for o in mix.options] == [True]
    planned = plan_scenario(scenario, methods=(Method.VGPU,)).recommended
    assert planned is not None
    assert planned.source == "a mix of sharing methods"
    assert planned.result.metrics.instances_placed == 3
    assert planned.result.feasibility_violations == ()
    assert within_limits(planned.result, scenario)


def test_a_host_whose_gpus_fit_on_the_others_in_use_is_emptied() -> None:
    """Two 2-GPU hosts, each with one 16-core job's GPU: the second host's GPU moves to the
    first, which has a free GPU and the cores, so the plan holds the same GPUs on one host fewer
    (it costs less) and keeps every method's rules."""
    hosts = [host(name, "L40S", 2, cpu_cores=64, ram_gib=512) for name in "ab"]
    scenario = _scenario(
        hosts,
        [workload("jobs", kind=WorkloadKind.TRAINING, instances=2, memory_gib=40, vcpus=16)],
    )
    types = host_types(hosts, scenario)
    instances = {i.id: i for i in instances_of(scenario.workloads)}
    placing = Placing(free_hosts={0: []})
    pool = placing.shared[0] = HostPool(hosts)
    for name, on in (("jobs#1", 0), ("jobs#2", 1)):
        packing = pack(Method.PASSTHROUGH, [instances[name]], types[0].model, scenario, "auto")
        assigned = assign_hosts(packing.requests, pool, fixed=[on])
        record(assigned.placements, assigned.gpu_configs, (), {name: Method.PASSTHROUGH}, placing)
    before = mixed._as_plan(scenario, placing, mixed._NO_COUNTS, 0.0, tuple(hosts))
    assert {p.host for p in before.placements} == {"a", "b"}
    cost_before = measure_plan(before, scenario).cost.total_usd_per_year

    consolidate(scenario, types, placing)

    after = mixed._as_plan(scenario, placing, mixed._NO_COUNTS, 0.0, tuple(hosts))
    assert check_plan(after, scenario) == []
    assert _served(after) == 2
    assert len({p.host for p in after.placements}) == 1
    assert len(after.gpu_configs) == 2
    assert measure_plan(after, scenario).cost.total_usd_per_year < cost_before


@pytest.mark.parametrize(("mode", "hosts_after"), [("equal-size", 1), ("host-equal", 2)])
def test_a_gpu_moves_only_where_its_method_s_host_rules_hold(mode: str, hosts_after: int) -> None:
    """Host a holds a GPU of desktops on 4 GiB vGPU profiles, host b a GPU of services on 8 GiB
    ones and a free GPU. Emptying a onto b is one host fewer; in host-equal mode (one partial
    profile size per host) b may not hold both sizes, so the GPU stays where it is."""
    hosts = [host(name, "L40S", 2, cpu_cores=64, ram_gib=512) for name in "ab"]
    scenario = _scenario(
        hosts,
        [
            workload("desk", kind=WorkloadKind.VDI, instances=4, gpus=0.05, memory_gib=4),
            workload("svc", instances=2, gpus=0.2, memory_gib=8),
        ],
    )
    scenario = dataclasses.replace(
        scenario,
        assumptions=dataclasses.replace(scenario.assumptions, vgpu_mode=VgpuMode(mode)),
    )
    types = host_types(hosts, scenario)
    instances = {i.id: i for i in instances_of(scenario.workloads)}
    placing = Placing(free_hosts={0: []})
    pool = placing.shared[0] = HostPool(hosts)
    for names, on in ((["desk#1", "desk#2", "desk#3", "desk#4"], 0), (["svc#1", "svc#2"], 1)):
        batch = [instances[n] for n in names]
        packing = pack(Method.VGPU, batch, types[0].model, scenario, "auto")
        assigned = assign_hosts(packing.requests, pool, fixed=[on] * len(packing.requests))
        assert assigned.not_placed == ()
        methods = dict.fromkeys(names, Method.VGPU)
        record(assigned.placements, assigned.gpu_configs, (), methods, placing)
    assert len(placing.configs) == 2

    consolidate(scenario, types, placing)

    plan = mixed._as_plan(scenario, placing, mixed._NO_COUNTS, 0.0, tuple(hosts))
    assert check_plan(plan, scenario) == []
    assert _served(plan) == 6
    assert len({p.host for p in plan.placements}) == hosts_after


def test_an_instance_left_out_says_why_under_its_cheapest_option_and_the_others() -> None:
    """Two whole-GPU jobs on one host of one GPU: one is left out, and its reason names the
    resource that ran out under its cheapest option and says how many others had no room."""
    scenario = _scenario(
        [host("one", "L40S", 1)],
        [workload("jobs", kind=WorkloadKind.TRAINING, instances=2, memory_gib=40, vcpus=16)],
    )
    mix = recommend(scenario, AnnualRates(scenario), methods=(Method.PASSTHROUGH, Method.VGPU))
    assert _served(mix.plan) == 1
    [left] = mix.plan.not_placed
    assert "free GPU" in left.reason
    assert "on L40S, its cheapest option; its 1 other option had no room either" in left.reason


def test_hosts_are_filled_by_configuration_where_best_fit_strands_gpus() -> None:
    """Ten each of an urgent 24-core GPU, an urgent 16-core GPU pair and 48- and 40-core pairs
    on thirty 4-GPU, 64-core hosts: best fit leaves GPUs free beside too few cores (25 hosts
    even after emptying some); hosts set up as {48-core pair, 16-core pair} and {40-core pair,
    24-core GPU} hold everything on 20, as few as the 1,280 cores allow."""
    hosts = [host(f"h{i:02}", "L40S", 4, cpu_cores=64, ram_gib=512) for i in range(30)]
    jobs = [
        ("tune", 1.0, 24.0, 1),
        ("train-a", 2.0, 48.0, 2),
        ("train-b", 2.0, 40.0, 2),
        ("train-c", 2.0, 16.0, 1),
    ]
    scenario = _scenario(
        hosts,
        [
            workload(
                name,
                kind=WorkloadKind.TRAINING,
                instances=10,
                gpus=gpus,
                memory_gib=40 * gpus,
                vcpus=cores,
                priority=priority,
                needs_isolation=True,
            )
            for name, gpus, cores, priority in jobs
        ],
    )

    plan = recommend(scenario, AnnualRates(scenario)).plan

    assert check_plan(plan, scenario) == []
    assert _served(plan) == 40
    assert len({p.host for p in plan.placements}) == 20


def test_left_out_work_is_placed_where_a_type_s_gpus_are_set_on_its_hosts_anew() -> None:
    """Five 4-GPU, 64-core hosts; four urgent 2-GPU jobs and two others (16 cores each), three
    1-GPU 16-core jobs and four 1-GPU 40-core ones, all on passthrough. A host with a 40-core
    job has 24 cores left: one 16-core job more; a host without one holds at most three of the
    16-core jobs (GPUs: a pair and two single GPUs, and there are three of those). So at most
    11 of the 13 are served (four 40-core jobs, four pairs beside them, a pair and two single
    jobs on the fifth host), every urgent pair among them. Placing GPU by GPU, then moving GPUs
    whole, left 3 out; the GPUs set on hosts anew, by configuration, serve 11."""
    hosts = [host(f"h{i}", "L40S", 4, cpu_cores=64, ram_gib=512) for i in range(5)]
    jobs = [("pair", 2, 2.0, 16, 2), ("one", 3, 1.0, 16, 2), ("urgent-pair", 4, 2.0, 16, 1),
            ("big", 4, 1.0, 40, 2)]  # fmt: skip
    scenario = _scenario(
        hosts,
        [
            workload(
                name,
                kind=WorkloadKind.TRAINING,
                instances=n,
                gpus=gpus,
                memory_gib=40 * gpus,
                vcpus=cores,
                priority=priority,
                needs_isolation=True,
            )
            for name, n, gpus, cores, priority in jobs
        ],
    )

    plan = recommend(scenario, AnnualRates(scenario)).plan

    assert check_plan(plan, scenario) == []
    assert _served(plan) == 11
    assert _methods_of(plan)["urgent-pair"][Method.PASSTHROUGH] == 4


def test_a_plan_s_gpus_can_be_held_to_one_host_s_cores() -> None:
    """Twenty 4-core desktops fit one A100's memory under vGPU, but their 80 cores no 64-core
    host has: summed over two hosts the MILP gives them one GPU; held to one host's cores per
    GPU (as a plan that leaves work out is planned again) it gives them two."""
    scenario = _desktops_and_jobs(hosts=2, desktops=20, jobs=3)
    types = host_types(scenario.inventory.hosts, scenario)
    found, _ = options(scenario, types)
    rates = AnnualRates(scenario)

    summed = mixed.solve_counts(scenario, types, found, rates)
    held = mixed.solve_counts(scenario, types, found, rates, host_rows=mixed.HostRows.PER_GPU)

    assert summed is not None
    assert held is not None
    assert summed.gpus[(Method.VGPU, 0)] == 1
    assert held.gpus[(Method.VGPU, 0)] == 2
    assert held.served[("desktops", Method.VGPU, 0)] == 20


def test_a_plan_that_leaves_work_out_is_planned_again_with_gpus_held_to_a_host_s_cores() -> None:
    """On fleet(2000, seed=4) the MILP's GPUs, their cores summed over each type's hosts, do
    not all fit host by host, and placing, retrying and making room leave 3 fine-tuning jobs
    out; planned again with each GPU held to one host's cores, every instance is served."""
    scenario = fleet(2000, seed=4)

    plan = recommend(scenario, AnnualRates(scenario)).plan

    assert _served(plan) == sum(w.instances for w in scenario.workloads)
    assert check_plan(plan, scenario) == []


def test_a_whole_node_a_retry_left_unused_goes_back_to_the_others() -> None:
    """One Kubernetes node of four L40S and 16 cores, nothing placed yet. A 64-core job (no node
    has the cores) is retried first under time-slicing, which takes a node whole; the node it
    left unused goes back, so an 8-core job retried next is placed on it (it was left out: 'no
    host of model L40S has 1 free GPU left'), and the 64-core job is said to lack cores."""
    node = host("n1", "L40S", 4, cpu_cores=16, ram_gib=512, platform=Platform.KUBERNETES)
    jobs = [
        workload(name, vcpus=cores, memory_gib=16) for name, cores in (("big", 64), ("small", 8))
    ]
    scenario = _scenario([node], jobs)
    types = host_types([node], scenario)
    placing = Placing(free_hosts={0: [node]})
    for job in jobs:
        placing.missed[f"{job.name}#1"] = NotPlaced(f"{job.name}#1", job.name, "not placed")
    cheapest = {
        job.name: [mixed.Option(job.name, Method.K8S_TIME_SLICING, 0, 1.0, 1.0)] for job in jobs
    }

    retry(scenario, types, cheapest, (), placing)

    assert {p.instance for p in placing.placements} == {"small#1"}
    assert placing.missed["big#1"].reason == (
        "no host of model L40S has 1 free GPU and 64 free cores left"
    )


def test_a_spread_leaving_out_fewer_gpus_of_work_ranks_first() -> None:
    """Spreads are compared by the GPUs the work they leave out takes elsewhere: eighteen 2-GPU
    training jobs (36 GPUs) rank below 179 desktops at a tenth of a GPU each (17.9), though
    they are fewer instances; a more urgent level is compared first."""
    scenario = _scenario(
        [host("h0", "A100-80GB-PCIe", 4)],
        [
            workload("train", kind=WorkloadKind.TRAINING, instances=18, gpus=2.0, memory_gib=80),
            workload("desktops", kind=WorkloadKind.VDI, instances=179, gpus=0.1, memory_gib=4),
            workload("urgent", kind=WorkloadKind.INFERENCE, instances=1, priority=1),
        ],
    )

    def leaving_out(name: str, count: int) -> HostAssignment:
        missed = tuple(NotPlaced(f"{name}#{i}", name, "no room") for i in range(count))
        return HostAssignment(placements=(), not_placed=missed, gpu_configs={})

    def rank(assigned: HostAssignment) -> tuple[list[float], int]:
        return placement._gpus_left_out_rank(scenario, assigned)

    assert rank(leaving_out("desktops", 179)) < rank(leaving_out("train", 18))
    assert rank(leaving_out("train", 18)) < rank(leaving_out("urgent", 1))


def test_a_small_estate_is_also_planned_with_its_cores_host_by_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On this 20-host fleet the MILP with the bound's rows of cores and RAM host by host plans
    a mix its hosts hold at the bound's cost: the plan is proven optimal. Planned with cores
    summed over a type (by type, or with each host a type of its own) it costs more."""
    scenario = fleet(100, seed=0)
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    assert check_plan(recommended.result.plan, scenario) == []
    assert recommended.result.plan.status is SolveStatus.OPTIMAL
    assert recommended.bounded_usd_per_year == pytest.approx(recommended.cost_lower_bound_usd)

    planned = mixed._solve_and_place

    def summed(
        *arguments: object, host_rows: mixed.HostRows = mixed.HostRows.SUMMED, **more: object
    ) -> object:
        rows = mixed.HostRows.SUMMED if host_rows is mixed.HostRows.HOST_BY_HOST else host_rows
        return planned(*arguments, host_rows=rows, **more)  # type: ignore[arg-type]

    monkeypatch.setattr(mixed, "_solve_and_place", summed)
    looser = plan_scenario(scenario).recommended
    assert looser is not None
    assert looser.bounded_usd_per_year > recommended.bounded_usd_per_year


def test_a_small_estate_s_plan_proven_the_best_is_not_planned_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the 20-host fleet the plan with the bound's host rows is proven optimal (it serves
    every instance at the bound's cost), so the two plans with each host a type of its own are
    not made; made anyway, they change nothing."""
    scenario = fleet(100, seed=0)
    planned = mixed._solve_and_place
    typed: list[int] = []

    def counted(scenario: Scenario, types: Sequence[HostType], *rest: Any, **named: Any) -> Any:
        typed.append(len(types))
        return planned(scenario, types, *rest, **named)

    monkeypatch.setattr(mixed, "_solve_and_place", counted)
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    assert recommended.result.plan.status is SolveStatus.OPTIMAL
    hosts = len(scenario.inventory.hosts)
    assert hosts not in typed
    assert len(typed) == 2

    monkeypatch.setattr(mixed._ProvenBest, "__call__", lambda *_: False)
    typed.clear()
    every = plan_scenario(scenario).recommended
    assert every is not None
    assert typed.count(hosts) == 2
    assert every.bounded_usd_per_year == pytest.approx(recommended.bounded_usd_per_year)
    assert every.result.metrics.gpus_used == recommended.result.metrics.gpus_used


def test_other_roles_keep_the_cores_of_instances_that_span_gpus() -> None:
    """Seven isolated 8-core inference jobs of half a GPU whose 40 GiB span two 24 GiB L4s
    (4 cores per GPU) beside eight desktops under vGPU, on two 8-GPU, 64-core hosts: the
    bound's row for the desktops counts each job's GPU at the 4 cores it carries, not 8, so
    the plan (all 16 GPUs) stays within reach and is proven optimal. Counted at 8 cores per GPU
    the bound had no solution and read $0."""
    scenario = _scenario(
        [host(f"h{i}", "L4", 8, cpu_cores=64, ram_gib=512) for i in range(2)],
        [
            workload(
                "llm",
                kind=WorkloadKind.INFERENCE,
                instances=7,
                gpus=0.5,
                memory_gib=40,
                busy_fraction=0.9,
                needs_isolation=True,
                vcpus=8,
                ram_gib=32,
            ),
            workload(
                "desktops",
                kind=WorkloadKind.VDI,
                instances=8,
                gpus=0.1,
                memory_gib=2,
                busy_fraction=0.1,
                needs_live_migration=True,
                latency_tolerant=False,
                vcpus=4,
                ram_gib=8,
            ),
        ],
    )
    recommended = plan_scenario(scenario).recommended
    assert recommended is not None
    plan = recommended.result.plan
    assert check_plan(plan, scenario) == []
    assert _served(plan) == 15
    assert recommended.result.metrics.lower_bound_gpus == len(plan.gpu_configs) == 16
    assert recommended.cost_lower_bound_usd == pytest.approx(recommended.bounded_usd_per_year)


def test_a_round_that_only_keeps_classes_apart_does_not_solve_the_milp_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A class over its slowdown limit is first kept apart from others: placement changes, the
    MILP does not, so its counts are not solved again; the plan is the one solving again
    gives."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    first = scenario.workloads[0].name
    rounds: list[int] = []
    best_plan = mixed._best_plan

    def round_of(*arguments: Any) -> tuple[mixed.Counts, Placing]:
        rounds.append(1)
        return best_plan(*arguments)

    # Over its limit in the first round only.
    monkeypatch.setattr(mixed, "_best_plan", round_of)
    monkeypatch.setattr(mixed, "over_limit", lambda *_: {first} if len(rounds) == 1 else set())
    solved: list[tuple[object, ...]] = []
    solve = mixed.solve_counts

    def counted(*arguments: Any, **keywords: Any) -> mixed.Counts | None:
        if "caps" in keywords:  # a plan's counts, not a bound's or one host type's
            solved.append((tuple(arguments[1]), tuple(arguments[2]), str(sorted(keywords.items()))))
        return solve(*arguments, **keywords)

    monkeypatch.setattr(mixed, "solve_counts", counted)
    kept = recommend(scenario, AnnualRates(scenario)).plan
    assert len(rounds) == 2
    assert solved
    assert len(solved) == len(set(solved))
    rounds.clear()
    monkeypatch.setattr(
        mixed._SolvedCounts,
        "__call__",
        lambda _, scenario, types, found, rates, caps, rows: solve(
            scenario, types, found, rates, caps=caps, host_rows=rows
        ),
    )
    again = recommend(scenario, AnnualRates(scenario)).plan
    assert check_plan(kept, scenario) == []
    assert set(kept.placements) == set(again.placements)
    assert kept.roles == again.roles


def test_a_large_estate_s_plan_by_configuration_starts_from_the_single_method_plans(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The plans ``recommend`` is given to start from reach the configuration master as one
    configuration per host they use, each holding what the plan placed there under the
    plan's method; the mix then serves at least what the plan serves."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    monkeypatch.setattr(mixed, "_BY_CONFIGURATION_MIN_HOSTS", 0)
    single = plan_method(Method.VGPU, scenario)
    assert check_plan(single, scenario) == []
    starts: list[Sequence[Any]] = []
    plan_configurations = configurations.plan_configurations

    def kept(*arguments: Any, **keywords: Any) -> Any:
        if "start" in keywords:  # a plan's, not a bound's
            starts.append(keywords["start"])
        return plan_configurations(*arguments, **keywords)

    monkeypatch.setattr(configurations, "plan_configurations", kept)
    plan = recommend(scenario, AnnualRates(scenario), starts=[single]).plan
    assert check_plan(plan, scenario) == []
    assert _served(plan) >= _served(single)
    # The single plan's hosts come last, after those of the mix's own placement.
    held = Counter(p.host for p in single.placements)
    from_single = starts[0][-len(held) :]
    assert sorted(round(sum(c.holds.values())) for c in from_single) == sorted(held.values())
    assert all(set(c.setup.gpus) == {Method.VGPU} for c in from_single)


def test_a_plan_by_configuration_over_a_limit_from_the_starts_keeps_that_class_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hosts set up as a single-method plan's may leave a class beyond its slowdown limit: the
    plan by configuration from them is placed again with that class kept apart; still over,
    it is not kept, and the mix's own hosts' plan by configuration is."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    monkeypatch.setattr(mixed, "_BY_CONFIGURATION_MIN_HOSTS", 0)
    single = plan_method(Method.VGPU, scenario)
    calls: list[tuple[int, frozenset[str]]] = []
    by_configurations = mixed.by_configurations

    def counted(*arguments: Any) -> Any:
        calls.append((len(arguments[-1]), frozenset(arguments[-2])))
        return by_configurations(*arguments)

    over_limit = mixed._over_limit
    monkeypatch.setattr(mixed, "by_configurations", counted)
    # Over a limit whenever the last plan by configuration started from the single plan.
    monkeypatch.setattr(
        mixed,
        "_over_limit",
        lambda *arguments: {"d"} if calls and calls[-1][0] == 2 else over_limit(*arguments),
    )
    plan = recommend(scenario, AnnualRates(scenario), starts=[single]).plan
    assert check_plan(plan, scenario) == []
    assert calls[:3] == [(2, frozenset()), (2, frozenset({"d"})), (1, frozenset())]


def test_a_start_configuration_holds_only_what_its_class_may_still_use() -> None:
    """A plan placed by one method may hold a class the mix no longer lets use that method (an
    earlier round of the slowdown loop took it away): its hosts' configurations leave those
    instances out, so the master does not count them as served."""
    scenario = _desktops_and_jobs(hosts=3, desktops=40, jobs=2)
    single = plan_method(Method.VGPU, scenario)
    types = host_types(scenario.inventory.hosts, scenario)
    found, _ = options(scenario, types)
    group_of = {w.name: i for i, w in enumerate(scenario.workloads)}
    rates = AnnualRates(scenario)
    placed = mixed._placing_of(single)
    every = configurations._configurations_of(placed, types, group_of, found, rates)
    desktops = group_of[scenario.workloads[0].name]
    assert sum(c.holds.get(desktops, 0) for c in every) == scenario.workloads[0].instances
    taken = [
        o
        for o in found
        if not (o.workload == scenario.workloads[0].name and o.method is Method.VGPU)
    ]
    kept = configurations._configurations_of(placed, types, group_of, taken, rates)
    assert sum(c.holds.get(desktops, 0) for c in kept) == 0
    assert (
        sum(sum(c.holds.values()) for c in kept)
        == _served(single) - scenario.workloads[0].instances
    )


def test_a_cost_bound_never_stands_above_a_plan_serving_the_same() -> None:
    """Ten pool shares of 2.4 GiB rounded up to whole KiB are a few KiB over one 24 GiB A30:
    within HiGHS' feasibility tolerance of fitting, and the bound's MILP, misled, claimed an
    optimum of $7,500 a year over the plan it bounds (a second host). A bound above a plan
    serving the same cannot hold: the LP relaxation's is given instead, and the plan is not
    called optimal."""
    server = ServerType("A30", 8, 16.0, 512.0, mig_enabled=True, platform=Platform.BARE_METAL)
    jobs = workload(
        "jobs", instances=10, gpus=0.1, memory_gib=2.4, vcpus=4, ram_gib=2, latency_tolerant=True
    )
    scenario = scenario_of([], [], [jobs], catalog=CATALOG)
    plan = size_cluster(scenario, server).recommended
    assert plan is not None
    assert plan.result.metrics.instances_not_placed == 0
    assert 0 < plan.cost_lower_bound_usd <= plan.bounded_usd_per_year + 1e-6
    assert plan.result.plan.status is not SolveStatus.OPTIMAL


def test_a_sizing_on_two_server_types_costs_no_more_than_on_one_it_bought_alone() -> None:
    """Free to buy HGX H100 8-GPU and H100 PCIe 4-GPU servers, the mix bought 3 + 1 (or 3 + 3)
    for more a year than 4 HGX alone serve the same with: a type the mix bought, bought alone,
    is weighed too (the fuzzer's seed 20004, shrunk)."""
    servers = {s.name: s for s in load_server_types(CATALOG).value}
    both = (servers["hgx-h100-8"], servers["h100-pcie-4"])
    classes = [
        workload("w0", kind=WorkloadKind.TRAINING, gpus=0.25, memory_gib=7.6, busy_fraction=0.51,
                 schedule=OFFICE, days_per_week=5, vcpus=4, ram_gib=256,
                 needs_live_migration=True, latency_tolerant=False, priority=1),
        dataclasses.replace(
            workload("w2", kind=WorkloadKind.VDI, instances=15, gpus=0.25, memory_gib=5.8,
                     busy_fraction=0.9, schedule=OFFICE, vcpus=1, ram_gib=64,
                     latency_tolerant=False, priority=2),
            max_slowdown=2.0,
        ),
        dataclasses.replace(
            workload("w5", kind=WorkloadKind.BATCH, instances=10, gpus=0.25, memory_gib=13.4,
                     busy_fraction=0.29, schedule=OFFICE, vcpus=32, ram_gib=4,
                     needs_isolation=True, latency_tolerant=False, priority=3),
            max_slowdown=1.0,
        ),
    ]  # fmt: skip
    scenario = scenario_of([], [], classes, catalog=CATALOG)

    sized = size_cluster(scenario, both).recommended
    alone = size_cluster(scenario, both[0]).recommended

    assert sized is not None
    assert alone is not None
    assert sized.result.metrics.instances_not_placed == 0
    assert alone.result.metrics.instances_not_placed == 0
    assert sized.result.cost.total_usd_per_year <= alone.result.cost.total_usd_per_year + 1e-6
    assert check_plan(sized.result.plan, scenario) == []
    # The bound still ranges over both types: no higher than over one of them.
    assert 0 < sized.cost_lower_bound_usd <= alone.cost_lower_bound_usd + 1e-6


class _CountedLookups(dict):  # type: ignore[type-arg]
    """Options by (class, method, type), counting the lookups of whether one exists."""

    looked = 0

    def __contains__(self, key: object) -> bool:
        self.looked += 1
        return super().__contains__(key)


def test_a_host_takes_its_instances_from_the_head_or_tail_of_a_long_queue() -> None:
    """A host set up for 2 of 200 waiting notebooks takes the first two (the most active), or
    the last two under a method that serves the idlest first (the remote pool), looking at
    those two only, and leaves the other 198 waiting in order."""
    scenario = _scenario(
        [host(f"p{i}", "L40S", 1) for i in range(2)],
        [workload("nb", kind=WorkloadKind.NOTEBOOK, instances=200, gpus=0.3, memory_gib=4)],
    )
    types = host_types(scenario.inventory.hosts, scenario)
    found, _ = options(scenario, types, (Method.REMOTE_POOL, Method.VGPU))
    groups = [Group(tuple(scenario.workloads), tuple(found))]
    ids = [f"nb#{n}" for n in range(1, 201)]
    for method, expected in ((Method.VGPU, ids[:2]), (Method.REMOTE_POOL, ids[-2:])):
        waiting = configurations._Waiting(scenario, found, groups)
        lookups = _CountedLookups(waiting._option_of)
        waiting._option_of = lookups
        taken = waiting.take(HostSetup({(0, method): 2}, {method: 1}), 0)[method]
        assert [x.id for x in taken] == expected
        assert lookups.looked == 2
        assert [x.id for x in waiting.left()] == [i for i in ids if i not in expected]


def test_a_job_no_host_can_hold_is_refused_naming_the_largest_hosts() -> None:
    """A 16-GPU job on 2-GPU and 8-GPU hosts: the refusal names the 8-GPU hosts, which come
    nearest to holding it, whatever the order of the types (it named the first type's 2)."""
    for hosts in (
        [host("small", "A100-80GB-PCIe", 2), host("big", "L40S", 8)],
        [host("big", "L40S", 8), host("small", "A100-80GB-PCIe", 2)],
    ):
        scenario = _scenario(hosts, [workload("gang", gpus=16, memory_gib=20)])
        _, refusals = options(scenario, host_types(scenario.inventory.hosts, scenario))
        (passthrough,) = [r for r in refusals if r.method is Method.PASSTHROUGH]
        assert passthrough.kind == "no host"
        assert "needs 16 GPUs on one host and the L40S hosts here have 8" in passthrough.reason


def test_a_method_refused_on_every_host_it_serves_says_why_not_the_platform_of_others() -> None:
    """MIG (Kubernetes) on an L40S vSphere host and an L40S Kubernetes node: the refusal is the
    node's ('L40S does not support MIG'), not that the vSphere host runs no Kubernetes; with
    no node it is the platform's."""
    job = workload("notebook", gpus=0.25, memory_gib=8)
    vsphere = host("esx-1", "L40S", 4)
    node = host("node-1", "L40S", 4, platform=Platform.KUBERNETES)
    for hosts, said in (
        ([vsphere, node], "L40S does not support MIG"),
        ([vsphere], "runs on Kubernetes hosts, and the host runs vSphere"),
    ):
        scenario = _scenario(hosts, [job])
        _, refusals = options(scenario, host_types(scenario.inventory.hosts, scenario))
        (mig,) = [r for r in refusals if r.method is Method.K8S_MIG]
        assert said in mig.reason
        assert mig.kind == "no host"


def test_a_plan_resting_on_a_solve_the_clock_stopped_says_so_whichever_counts_it_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the 20-host fleet the plan kept is placed from the MILP with the bound's host rows;
    the MILP by type, solved first, is what the later plans start from. When only that first
    solve is stopped by the wall-clock backstop, the plan kept still says it may differ by
    machine."""
    scenario = fleet(100, seed=0)
    solve = mixed.solve_counts
    first: list[bool] = []

    def first_stopped(*arguments: Any, **keywords: Any) -> mixed.Counts | None:
        counts = solve(*arguments, **keywords)
        if counts is not None and not first:
            first.append(True)
            return dataclasses.replace(counts, stopped_by_clock=True)
        return counts

    monkeypatch.setattr(mixed, "solve_counts", first_stopped)
    mix = recommend(scenario, AnnualRates(scenario))
    assert first
    assert not mix.counts.stopped_by_clock
    assert check_plan(mix.plan, scenario) == []
    assert any("time backstop (60 s)" in n for n in mix.plan.notes)
