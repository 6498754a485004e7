"""Valid but unusual estates and workload mixes, the kind other users bring: empty classes, a
class of 5,000, gangs larger than any host, memory above every GPU's, one platform only, a
single host, hosts of one core, rarely seen GPU models, limits at their bounds, schedules of no
hours or one, priorities 1-9 far beyond the estate, servers that serve nothing and headroom
larger than the cluster.

Every answer holds the promises users rely on: no exception; every plan passes the shared
checker; instances served plus not served is the demand and each left-out instance has a
reason; the recommended plan's cost bound is at most its cost and its GPU bound at most its
GPUs; and it serves, by priority, at least what every single-method plan within the limits
serves.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.assumptions import Assumptions
from planner.cli import main
from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import Host, ServerType
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.costs import AnnualRates
from planner.methods.registry import Method
from planner.output.recommendations import within_limits
from planner.output.report import ScenarioPlan, add_to_inventory, plan_scenario, size_cluster
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.mixed import recommend
from planner.time.harvesting import HarvestSettings, harvest_scenario, harvest_summary
from tests.builders import ALWAYS, NEVER, NIGHT, OFFICE, host, scenario_of, workload

CATALOG = load_catalog()
ONE_HOUR = tuple(1.0 if h == 3 else 0.0 for h in range(24))
"""Active from 03:00 to 04:00 only."""
BASE = (host("a100", "A100-80GB-PCIe", 4, mig_enabled=True), host("l40s", "L40S", 4))
"""A MIG host and a plain host, both vSphere."""
L40S_4 = ServerType("L40S", 4, 64.0, 512.0, name="l40s-4")


def _scenario(
    hosts: Sequence[Host],
    workloads: Sequence[WorkloadClass],
    assumptions: Assumptions | None = None,
) -> Scenario:
    return scenario_of([], hosts, workloads, assumptions=assumptions, catalog=CATALOG)


def _served(plan: MethodPlan, scenario: Scenario) -> tuple[int, ...]:
    """Instances served per priority level, most urgent first."""
    priority = {w.name: w.priority for w in scenario.workloads}
    levels = sorted(set(priority.values()))
    placed = {p.instance: p.workload for p in plan.placements}
    counts = Counter(priority[name] for name in placed.values())
    return tuple(counts[level] for level in levels)


def _assert_sound(planned: ScenarioPlan, scenario: Scenario) -> None:
    """The promises of the module docstring, on every plan of ``planned``."""
    demand = sum(w.instances for w in scenario.workloads)
    for result in planned.results:
        plan = result.plan
        assert check_plan(plan, planned.scenario) == [], result.label
        assert result.feasibility_violations == (), result.label
        placed = {p.instance for p in plan.placements}
        left_out = [n.instance for n in plan.not_placed]
        assert len(left_out) == len(set(left_out)), result.label
        assert not placed & set(left_out), result.label
        assert len(placed) + len(left_out) == demand, result.label
        assert all(n.reason.strip() for n in plan.not_placed), result.label
    recommended = planned.recommended
    if recommended is None:
        # Nothing to plan on: no server opened and no inventory.
        assert all(not r.plan.placements for r in planned.singles)
        return
    result = recommended.result
    assert recommended.cost_lower_bound_usd <= recommended.bounded_usd_per_year + 1e-6
    assert result.metrics.lower_bound_gpus <= result.metrics.gpus_used
    assert within_limits(result, scenario)
    assert {d.workload for d in recommended.decisions} <= {w.name for w in scenario.workloads}
    # Idle failover hosts serve nothing: a single method on the inventory as it is, with no
    # hosts held back, is no yardstick for a plan that tolerates host failures.
    if planned.question == "add" and planned.headroom:
        return
    mine = _served(result.plan, scenario)
    for single in planned.singles:
        if within_limits(single, scenario):
            assert mine >= _served(single.plan, scenario), single.label


@dataclass(frozen=True)
class _Case:
    """One question about one odd scenario."""

    name: str
    workloads: tuple[WorkloadClass, ...]
    hosts: tuple[Host, ...] = BASE
    question: str = "fit"
    servers: tuple[ServerType, ...] = (L40S_4,)
    headroom: int = 0
    assumptions: Assumptions | None = None

    def answer(self) -> tuple[ScenarioPlan, Scenario]:
        scenario = _scenario(self.hosts, self.workloads, self.assumptions)
        if self.question == "fit":
            return plan_scenario(scenario), scenario
        if self.question == "size":
            return size_cluster(scenario, self.servers, headroom=self.headroom), scenario
        return add_to_inventory(scenario, self.servers, headroom=self.headroom), scenario


def _small(name: str = "small", **changes: object) -> WorkloadClass:
    """Quarter-GPU inference, 4 GiB, six instances, unless ``changes`` say otherwise."""
    fields: dict[str, object] = {"gpus": 0.25, "memory_gib": 4.0, "instances": 6}
    fields.update(changes)
    return workload(name, **fields)  # type: ignore[arg-type]


_KUBERNETES = tuple(
    host(f"k8s-{n}", model, 4, mig_enabled=mig, platform=Platform.KUBERNETES)
    for n, (model, mig) in enumerate([("A100-80GB-PCIe", True), ("L40S", False), ("L4", False)])
)
_VSPHERE_MIG_OFF = tuple(host(f"v{n}", "A100-80GB-PCIe", 4) for n in range(2))
_NO_NETWORK = tuple(
    dataclasses.replace(host(f"n{n}", "L40S", 4, rdma=False), network_gbps=0.0) for n in range(2)
)
_MIXED_MODELS = (
    host("x", "L4", 2),
    host("y", "H100-80GB-PCIe", 2, mig_enabled=True),
    host("z", "T4", 4),
    host("w", "A16", 4),
)
_BUSY = workload("busy", gpus=0.25, memory_gib=4, instances=8, busy_fraction=1.0)

CASES = [
    _Case("a class of 0 instances beside one of 2", (workload("none", instances=0), _small())),
    _Case("only a class of 0 instances", (workload("none", instances=0),)),
    _Case("no workload classes at all", ()),
    _Case("8 GPUs asked on 4-GPU hosts", (workload("gang", gpus=8, memory_gib=200), _small())),
    _Case(
        "16 GPUs asked on 8-GPU hosts",
        (workload("gang", gpus=16, memory_gib=400),),
        hosts=(host("h100", "H100-80GB-SXM", 8, cpu_cores=112, ram_gib=2048),),
    ),
    _Case("memory above every GPU's", (workload("huge", gpus=1, memory_gib=500), _small())),
    _Case(
        "a fraction asking more memory than one GPU", (workload("wide", gpus=0.5, memory_gib=100),)
    ),
    _Case(
        "every host Kubernetes, desktops needing vMotion",
        (
            _small(),
            workload(
                "desk",
                kind=WorkloadKind.VDI,
                gpus=0.25,
                memory_gib=4,
                instances=3,
                needs_live_migration=True,
            ),
        ),
        hosts=_KUBERNETES,
    ),
    _Case(
        "every host vSphere with MIG off, isolation asked",
        (_small(needs_isolation=True),),
        hosts=_VSPHERE_MIG_OFF,
    ),
    _Case("a single one-GPU host", (_small(),), hosts=(host("only", "L4", 1),)),
    _Case(
        "a host of 1 core and 1 GiB RAM",
        (_small(),),
        hosts=(host("tiny", "L40S", 4, cpu_cores=1.0, ram_gib=1.0),),
    ),
    _Case("hosts with 0 network", (_small(latency_tolerant=True),), hosts=_NO_NETWORK),
    _Case(
        "mixed GPU models in one cluster",
        (_small(instances=10), workload("train", gpus=1, memory_gib=60, instances=2)),
        hosts=_MIXED_MODELS,
    ),
    _Case("a slowdown limit of exactly 1.0", (_BUSY,), assumptions=Assumptions(max_slowdown=1.0)),
    _Case("a slowdown limit of 100", (_BUSY,), assumptions=Assumptions(max_slowdown=100.0)),
    _Case(
        "classes own limits of 1.0 and 100",
        (
            dataclasses.replace(_BUSY, name="strict", max_slowdown=1.0),
            dataclasses.replace(_BUSY, name="lax", max_slowdown=100.0),
        ),
    ),
    _Case(
        "every class needing isolation and live migration",
        (
            _small("a", needs_isolation=True, needs_live_migration=True),
            workload("b", gpus=1, memory_gib=40, needs_isolation=True, needs_live_migration=True),
        ),
    ),
    _Case("a schedule of all zeros", (_small(schedule=NEVER),)),
    _Case("a schedule of all ones, always busy", (_small(schedule=ALWAYS, busy_fraction=1.0),)),
    _Case("a schedule of one hour", (_small(schedule=ONE_HOUR),)),
    _Case("days_per_week 1", (_small(days_per_week=1, schedule=OFFICE),)),
    _Case("busy_fraction 0", (_small(busy_fraction=0.0),)),
    _Case("busy_fraction 1", (_small(busy_fraction=1.0, schedule=NIGHT),)),
    _Case(
        "priorities 1 to 9 far beyond the estate",
        tuple(
            workload(f"p{p}", gpus=1, memory_gib=40, instances=10, priority=p) for p in range(1, 10)
        ),
    ),
    _Case(
        "sizing with a server type that can serve nothing",
        (workload("big", gpus=1, memory_gib=100),),
        question="size",
        servers=(ServerType("T4", 1, 8.0, 32.0),),
    ),
    _Case(
        "sizing with a server type that can serve nothing, headroom 1",
        (workload("big", gpus=1, memory_gib=100),),
        question="size",
        servers=(ServerType("T4", 1, 8.0, 32.0),),
        headroom=1,
    ),
    _Case(
        "sizing 8 GPUs on 4-GPU servers",
        (workload("gang", gpus=8, memory_gib=100),),
        question="size",
    ),
    _Case(
        "sizing with headroom 5 for a class that needs one server",
        (_small(instances=3),),
        question="size",
        headroom=5,
    ),
    _Case(
        "sizing a class of 0 instances, headroom 1",
        (workload("none", instances=0),),
        question="size",
        headroom=1,
    ),
    _Case("sizing no classes, headroom 1", (), question="size", headroom=1),
    _Case(
        "sizing servers of 1 core and 1 GiB",
        (_small(instances=3),),
        question="size",
        servers=(ServerType("L40S", 4, 1.0, 1.0),),
    ),
    _Case(
        "adding with headroom 3 to a one-host cluster",
        (_small(instances=3),),
        hosts=(host("l40s", "L40S", 4),),
        question="add",
        headroom=3,
    ),
    _Case(
        "adding a server type that can serve nothing",
        (workload("big", gpus=1, memory_gib=100),),
        hosts=(host("l40s", "L40S", 4),),
        question="add",
        servers=(ServerType("T4", 1, 8.0, 32.0),),
    ),
    _Case(
        "adding a server type that can serve nothing, headroom 1",
        (workload("big", gpus=1, memory_gib=100),),
        hosts=(host("l40s", "L40S", 4),),
        question="add",
        servers=(ServerType("T4", 1, 8.0, 32.0),),
        headroom=1,
    ),
    _Case(
        "adding for a class of 0 instances, headroom 1",
        (workload("none", instances=0),),
        hosts=(host("l40s", "L40S", 4),),
        question="add",
        headroom=1,
    ),
    _Case(
        "adding to no inventory",
        (_small(),),
        hosts=(),
        question="add",
    ),
    _Case(
        "pooled jobs never active beside a job for the only vSphere GPU, added to",
        (
            dataclasses.replace(
                workload(
                    "idle",
                    kind=WorkloadKind.TRAINING,
                    days_per_week=1,
                    instances=3,
                    gpus=0.125,
                    memory_gib=17.5,
                    busy_fraction=0.0,
                    schedule=NEVER,
                    vcpus=1.0,
                    ram_gib=256.0,
                    priority=1,
                ),
                max_slowdown=1.2,
            ),
            workload(
                "train",
                kind=WorkloadKind.TRAINING,
                days_per_week=1,
                gpus=0.125,
                memory_gib=0.25,
                busy_fraction=0.0,
                schedule=OFFICE,
                vcpus=1.0,
                ram_gib=1.0,
                latency_tolerant=False,
                priority=1,
            ),
        ),
        hosts=(
            host("h0", "A100-40GB-PCIe", 1, cpu_cores=1.0, ram_gib=1.0),
            host(
                "h1", "A100-40GB-PCIe", 1, cpu_cores=1.0, ram_gib=1.0, platform=Platform.KUBERNETES
            ),
        ),
        question="add",
        servers=(ServerType("A16", 1, 1.0, 1.0),),
        assumptions=Assumptions(max_slowdown=1.0),
    ),
    _Case(
        "one class of 5,000 instances, sized",
        (_small(instances=5000, vcpus=1.0, ram_gib=2.0),),
        question="size",
        servers=(ServerType("L40S", 8, 128.0, 2048.0),),
    ),
    _Case(
        "one class of 5,000 notebooks on an estate far too small",
        (
            workload(
                "notes",
                kind=WorkloadKind.NOTEBOOK,
                gpus=0.125,
                memory_gib=5,
                instances=5000,
                vcpus=1.0,
                ram_gib=1.0,
                schedule=OFFICE,
            ),
        ),
        hosts=(host("a100", "A100-80GB-PCIe", 4, mig_enabled=True), host("l4", "L4", 2)),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_an_odd_estate_gets_a_sound_answer(case: _Case) -> None:
    """Whatever the odd estate or mix, fitting, sizing and adding answer without an exception,
    every plan passes the checker and accounts for every instance with a reason, the bounds are
    below the plan and the recommended plan serves at least what any single method does."""
    planned, scenario = case.answer()
    _assert_sound(planned, scenario)


def test_pooled_jobs_never_active_still_take_a_pool_gpu_in_the_mix() -> None:
    """Jobs active in no hour hold no pooled memory, yet each is placed on a pool GPU: the
    mix's MILP gives the pool a GPU for them (it gave none, so placement left them out while
    the passthrough job took the only vSphere GPU), and all four are served."""
    case = next(c for c in CASES if c.name.startswith("pooled jobs never active"))
    scenario = _scenario(case.hosts, case.workloads, case.assumptions)
    mix = recommend(scenario, AnnualRates(scenario))
    assert check_plan(mix.plan, scenario) == []
    assert mix.plan.not_placed == ()
    assert mix.counts.gpus[(Method.REMOTE_POOL, 0)] >= 1


def test_a_class_of_no_instances_is_decided_as_having_nothing_to_place() -> None:
    """A class of 0 instances is not said to have no method that can serve it."""
    planned, _ = CASES[0].answer()
    assert planned.recommended is not None
    decision = next(d for d in planned.recommended.decisions if d.workload == "none")
    assert decision.decided_by == "no instances"
    assert decision.not_served == 0


_MODEL_NAMES = tuple(CATALOG.gpus)


@pytest.mark.parametrize("model", _MODEL_NAMES)
def test_every_catalog_model_gets_a_sound_answer(model: str) -> None:
    """Every GPU model of the catalog, the rarely seen ones too (T4, A10G, V100, H800, GH200,
    B200 ...), with MIG asked on a vSphere host and on a Kubernetes host: isolated inference,
    notebooks and a two-GPU training job get a sound answer."""
    hosts = (
        host("vs", model, 4, mig_enabled=True),
        host("k8s", model, 4, mig_enabled=True, platform=Platform.KUBERNETES),
        host("plain", model, 2),
    )
    mix = (
        _small("isolated", needs_isolation=True),
        _small("notebook", kind=WorkloadKind.NOTEBOOK, gpus=0.5, memory_gib=10, schedule=OFFICE),
        workload("train", kind=WorkloadKind.TRAINING, gpus=2, memory_gib=30),
    )
    scenario = _scenario(hosts, mix)
    _assert_sound(plan_scenario(scenario), scenario)


# --- The command line -------------------------------------------------------------------------

_INVENTORY_HEADER = (
    "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count,"
    "mig_enabled,platform"
)
_WORKLOADS_HEADER = (
    "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
    "ram_gib,live_migration,isolation,latency_tolerant,priority,gpu_models,max_slowdown"
)
_ODD_INVENTORY = f"""{_INVENTORY_HEADER}
t4,c1,T4,4,1,1,10,no,1,no,vsphere
b200,c2,B200-180GB-SXM,8,112,2048,400,yes,1,yes,kubernetes
gh,c2,GH200-96GB,1,72,480,200,yes,2,yes,kubernetes
v100,c3,V100-32GB-SXM,8,32,256,25,no,1,no,vsphere
a10g,c3,A10G,4,48,192,25,no,1,no,bare-metal
a16,c3,A16,4,64,512,25,no,1,no,vsphere
"""
_ODD_WORKLOADS = f"""{_WORKLOADS_HEADER}
gang,training,2,16,1000,1,24x7,7,32,256,no,no,no,1,,
both,inference,3,0.25,10,0,3-4,1,2,8,yes,yes,yes,9,,1.0
desk,vdi,10,0.125,2,0.1,9-17,1,2,4,yes,no,no,2,,
batch,batch,50,1,40,1,22-6,7,8,64,no,no,yes,3,,100
"""


def _files(tmp_path: Path) -> list[str]:
    inventory, workloads = tmp_path / "hosts.csv", tmp_path / "mix.csv"
    inventory.write_text(_ODD_INVENTORY)
    workloads.write_text(_ODD_WORKLOADS)
    return ["--inventory", str(inventory), "--workloads", str(workloads)]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--size", "L40S:4:64:512", "--headroom", "2"],
        ["--add-to-inventory", "--size", "T4:1:8:32", "--headroom", "3"],
    ],
    ids=["fit", "size with headroom", "add a server that serves nothing"],
)
def test_the_command_line_plans_an_odd_estate(
    tmp_path: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m planner plan`` on rare GPU models, one-core hosts, a 16-GPU gang, a class
    needing isolation and vMotion at once and limits of 1.0 and 100 writes its workbook and
    exits 0."""
    out = tmp_path / "plan.xlsx"
    assert main(["plan", *_files(tmp_path), *extra, "--out", str(out)]) == 0
    assert out.stat().st_size > 0
    assert "Recommended plan" in capsys.readouterr().out


def test_the_command_line_harvests_an_odd_estate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m planner harvest`` on desktops active one day a week, on an A16 host beside
    rarely seen models, exits 0 and names the pool."""
    out = tmp_path / "harvest.xlsx"
    assert main(["harvest", *_files(tmp_path), "--workbook", str(out)]) == 0
    assert "VDI pool" in capsys.readouterr().out
    assert out.stat().st_size > 0


_DESKTOP = workload("desk", kind=WorkloadKind.VDI, gpus=0.125, memory_gib=2, instances=8)


@pytest.mark.parametrize(
    "desktops",
    [
        (dataclasses.replace(_DESKTOP, days_per_week=1),),
        (dataclasses.replace(_DESKTOP, daily_schedule=ONE_HOUR),),
        (dataclasses.replace(_DESKTOP, daily_schedule=NEVER),),
        (dataclasses.replace(_DESKTOP, busy_fraction=0.0),),
        (dataclasses.replace(_DESKTOP, instances=0), dataclasses.replace(_DESKTOP, name="d2")),
        (dataclasses.replace(_DESKTOP, instances=5000, vcpus=0.1, ram_gib=0.1),),
    ],
    ids=["days 1", "one hour", "never", "busy 0", "a class of 0", "5,000 desktops"],
)
def test_harvesting_odd_desktops_is_sound(desktops: tuple[WorkloadClass, ...]) -> None:
    """Harvesting desktops of odd schedules and sizes never harvests more GPU-hours than the
    pool has in a week, at any resolution, job size or checkpointing."""
    scenario = _scenario((host("a16", "A16", 8, cpu_cores=128, ram_gib=2048),), desktops)
    for chosen in (
        HarvestSettings(),
        HarvestSettings(
            resolution_minutes=15,
            gpus_per_job=8,
            checkpointing=False,
            submit_days=(6,),
            backlog_gpu_hours_per_day=0.0,
        ),
    ):
        result = harvest_scenario(scenario, chosen)
        assert not harvest_summary(result).empty
        assert 0.0 <= result.harvested_gpu_hours_per_week <= result.pool_gpus * 168 + 1e-6


# --- Generated odd estates --------------------------------------------------------------------


@st.composite
def _odd_estates(draw: st.DrawFn) -> Scenario:
    """One to three host shapes of any catalog model, platform and MIG mode, down to one core,
    1 GiB of RAM and no network; one to four classes of 0 to 40 instances, from an eighth of a
    GPU to a 16-GPU gang, with any memory, schedule, days, busy fraction, requirement, limit
    and a priority from 1 to 9."""
    hosts: list[Host] = []
    for shape in range(draw(st.integers(1, 3))):
        made = host(
            f"h{shape}",
            draw(st.sampled_from(_MODEL_NAMES)),
            draw(st.sampled_from([1, 2, 4, 8])),
            cpu_cores=draw(st.sampled_from([1.0, 16.0, 64.0])),
            ram_gib=draw(st.sampled_from([1.0, 64.0, 512.0])),
            mig_enabled=draw(st.booleans()),
            rdma=draw(st.booleans()),
            cluster=draw(st.sampled_from(["c1", "c2"])),
            platform=draw(st.sampled_from(list(Platform))),
        )
        network = draw(st.sampled_from([0.0, 100.0]))
        hosts.extend(
            dataclasses.replace(made, name=f"h{shape}-{n}", network_gbps=network)
            for n in range(draw(st.integers(1, 2)))
        )
    classes = []
    for n in range(draw(st.integers(1, 4))):
        gpus = draw(st.sampled_from([0.125, 0.25, 0.5, 1.0, 2.0, 8.0, 16.0]))
        memory = draw(st.sampled_from([1.0, 4.0, 20.0, 70.0, 200.0, 2000.0]))
        classes.append(
            dataclasses.replace(
                workload(
                    f"w{n}",
                    kind=draw(st.sampled_from(list(WorkloadKind))),
                    instances=draw(st.sampled_from([0, 1, 3, 12, 40])),
                    gpus=gpus,
                    memory_gib=memory * min(max(gpus, 0.25), 1.0),
                    busy_fraction=draw(st.sampled_from([0.0, 0.3, 1.0])),
                    schedule=draw(st.sampled_from([OFFICE, ALWAYS, NIGHT, NEVER, ONE_HOUR])),
                    days_per_week=draw(st.sampled_from([1, 5, 7])),
                    vcpus=draw(st.sampled_from([1.0, 4.0, 32.0])),
                    ram_gib=draw(st.sampled_from([1.0, 16.0, 256.0])),
                    needs_isolation=draw(st.booleans()),
                    needs_live_migration=draw(st.booleans()),
                    latency_tolerant=draw(st.booleans()),
                    priority=draw(st.integers(1, 9)),
                ),
                max_slowdown=draw(st.sampled_from([None, 1.0, 1.2, 100.0])),
            )
        )
    limit = draw(st.sampled_from([1.0, 1.5, 100.0]))
    return _scenario(hosts, classes, Assumptions(max_slowdown=limit))


_SERVERS = st.builds(
    ServerType,
    st.sampled_from(_MODEL_NAMES),
    st.sampled_from([1, 4, 8]),
    st.sampled_from([1.0, 64.0]),
    st.sampled_from([1.0, 512.0]),
    mig_enabled=st.booleans(),
    platform=st.sampled_from(list(Platform)),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_odd_estates())
def test_a_generated_odd_estate_gets_a_sound_fit(scenario: Scenario) -> None:
    """Fitting any generated odd estate keeps every promise of the module docstring."""
    _assert_sound(plan_scenario(scenario), scenario)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _odd_estates(),
    st.lists(_SERVERS, min_size=1, max_size=2),
    st.sampled_from([0, 1, 5]),
    st.booleans(),
)
def test_a_generated_odd_sizing_or_addition_is_sound(
    scenario: Scenario, servers: list[ServerType], headroom: int, adding: bool
) -> None:
    """Sizing a cluster, or adding to the inventory, of any generated server types (of one
    core, of a model that serves nothing), with headroom up to 5, keeps the same promises."""
    ask: Callable[..., ScenarioPlan] = add_to_inventory if adding else size_cluster
    _assert_sound(ask(scenario, servers, headroom=headroom), scenario)


# --- Left to the mix (planner/solve/mixed.py) -------------------------------------------------


def test_the_mix_plans_beside_a_class_of_no_instances() -> None:
    """The mix itself plans an estate holding a class of 0 instances (the recommendation
    leaves such classes out before it asks the mix)."""
    scenario = _scenario(BASE, (workload("none", instances=0), _small()))
    mixed = recommend(scenario, AnnualRates(scenario))
    assert len({p.instance for p in mixed.plan.placements}) == 6


def test_the_mix_plans_nothing_on_nothing() -> None:
    """The mix of no classes on no hosts is the empty plan (the recommendation does not ask
    it then)."""
    scenario = _scenario((), ())
    mixed = recommend(scenario, AnnualRates(scenario), hosts=(), owned=())
    assert mixed.plan.placements == ()
