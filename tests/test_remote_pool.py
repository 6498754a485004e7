"""Remote pool: fractional shares held only while running, gangs on one server, exact MILP."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from bench.fleets import fleet
from planner.assumptions import Assumptions, Network
from planner.inputs.catalog import Catalog
from planner.inputs.workloads import Instance, WorkloadClass, WorkloadKind
from planner.measure.result import measure_plan
from planner.methods.registry import Method
from planner.methods.remote_pool import (
    REMOTE_POOL,
    active_hours,
    capacity_units,
    share_units,
)
from planner.output.report import placement_frame
from planner.plan import SolveStatus
from planner.solve.feasibility import check_plan
from planner.solve.packing import instances_of, packing_gpus, plan_method
from tests.builders import ALWAYS, NIGHT, OFFICE, gpu_model, host, scenario_of, workload
from tests.k8s_fixtures import fewest_gpus

L40S = gpu_model("L40S", 48.0)
CATALOG = Catalog(gpus={"L40S": L40S}, vgpu_profiles={}, mig_profiles={})
ASSUMPTIONS = Assumptions()


def _instances(*classes: WorkloadClass) -> list[Instance]:
    return [Instance(i, w) for w in classes for i in w.instance_ids()]


def test_shares_turn_into_concrete_active_instances() -> None:
    """With share 0.5 of 4 instances in an hour, instances 0 and 1 run in it, 2 and 3 do not."""
    schedule = [0.5] * 12 + [0.0] * 12
    cls = workload("a", instances=4, schedule=schedule)
    assert [active_hours(cls, i)[0] for i in range(4)] == [True, True, False, False]
    assert not any(active_hours(cls, 0)[12:])


def test_a_third_and_two_thirds_share_one_gpu() -> None:
    """An arbitrary fraction of memory: 16 GiB and 32 GiB of a 48 GiB GPU fit one GPU."""
    packing = REMOTE_POOL.pack_heuristic(
        _instances(workload("third", gpus=0.2, memory_gib=16),
                   workload("two-thirds", gpus=0.5, memory_gib=32)),
        L40S, CATALOG, ASSUMPTIONS,
    )  # fmt: skip
    assert packing_gpus(packing) == 1
    assert packing.status is SolveStatus.OPTIMAL


def test_day_and_night_work_share_a_gpu() -> None:
    """Capacity is held only while running: a full-GPU office job and a night job share a GPU."""
    instances = _instances(
        workload("day", gpus=1, memory_gib=48, schedule=OFFICE),
        workload("night", gpus=1, memory_gib=48, schedule=NIGHT),
    )
    assert packing_gpus(REMOTE_POOL.pack_heuristic(instances, L40S, CATALOG, ASSUMPTIONS)) == 1
    always = _instances(workload("a", instances=2, gpus=1, memory_gib=48, schedule=ALWAYS))
    assert packing_gpus(REMOTE_POOL.pack_heuristic(always, L40S, CATALOG, ASSUMPTIONS)) == 2


def test_multi_gpu_requests_stay_on_one_server() -> None:
    """A 4-GPU training job takes four GPUs of one host, never two hosts of two."""
    scenario = scenario_of(
        [L40S],
        [host("a", gpus=2), host("b", gpus=2), host("c", gpus=4)],
        [workload("train", gpus=4, memory_gib=150, schedule=ALWAYS)],
    )
    plan = plan_method(Method.REMOTE_POOL, scenario)
    assert {p.host for p in plan.placements} == {"c"}
    assert len({p.gpu_index for p in plan.placements}) == 4
    assert check_plan(plan, scenario) == []
    split = replace(
        scenario, inventory=replace(scenario.inventory, hosts=scenario.inventory.hosts[:2])
    )
    unplaced = plan_method(Method.REMOTE_POOL, split).not_placed
    assert [n.reason for n in unplaced] == [
        "needs 4 GPUs on one host; the largest host of model L40S has 2"
    ]


def test_requests_carry_no_host_cpu_or_ram() -> None:
    """Clients run on any host: GPU-server requests take 0 cores and 0 GiB, and a note says so."""
    packing = REMOTE_POOL.pack_heuristic(
        _instances(workload("a", instances=3, gpus=0.3, vcpus=16)), L40S, CATALOG, ASSUMPTIONS
    )
    assert all(r.cpu_cores == 0 and r.ram_gib == 0 for r in packing.requests)
    assert any("no client CPU or RAM" in note for note in packing.notes)


def test_isolation_rules_the_pool_out() -> None:
    """A workload needing hardware isolation is not eligible."""
    reason = REMOTE_POOL.ineligible_reason(
        workload("a", needs_isolation=True), L40S, CATALOG, ASSUMPTIONS
    )
    assert reason is not None
    assert "isolation" in reason


def test_latency_intolerant_work_never_uses_the_pool() -> None:
    """A workload that does not tolerate remote GPU access is not eligible, whatever the network."""
    sensitive = workload("a", latency_tolerant=False)
    for assumptions in (ASSUMPTIONS, Assumptions(network=Network(latency_us=5.0, rdma=True))):
        reason = REMOTE_POOL.ineligible_reason(sensitive, L40S, CATALOG, assumptions)
        assert reason is not None
        assert "latency_tolerant" in reason
    slow = Assumptions(network=Network(latency_us=80.0, rdma=False))
    assert REMOTE_POOL.ineligible_reason(workload("b"), L40S, CATALOG, slow) is None


def test_desktops_never_use_the_pool() -> None:
    """The pool forwards CUDA work; VDI desktops need a local display GPU."""
    desktop = workload("d", kind=WorkloadKind.VDI)
    reason = REMOTE_POOL.ineligible_reason(desktop, L40S, CATALOG, ASSUMPTIONS)
    assert reason is not None
    assert "desktops" in reason


def _brute_force_gpus(instances: list[Instance]) -> int:
    """Fewest GPUs by trying every assignment of single-GPU instances to GPUs."""
    vectors = []
    for instance in instances:
        size = share_units(instance.workload, L40S)
        index = int(instance.id.split("#")[1]) - 1
        vectors.append([size if on else 0 for on in active_hours(instance.workload, index)])
    for gpus in range(1, len(instances) + 1):
        for assignment in itertools.product(range(gpus), repeat=len(instances)):
            loads = [[0] * 24 for _ in range(gpus)]
            for vector, g in zip(vectors, assignment, strict=True):
                for hour in range(24):
                    loads[g][hour] += vector[hour]
            if all(max(load) <= capacity_units(L40S) for load in loads):
                return gpus
    return 0


def _random_classes(rng: random.Random, count: int) -> list[WorkloadClass]:
    classes = []
    for n in range(count):
        start = rng.randint(0, 23)
        length = rng.randint(4, 20)
        schedule = [1.0 if (h - start) % 24 < length else 0.0 for h in range(24)]
        memory = rng.choice([8, 12, 16, 20, 24, 30, 36, 48])
        classes.append(workload(f"w{n}", gpus=0.5, memory_gib=memory, schedule=schedule))
    return classes


def test_exact_matches_brute_force_and_heuristic_is_close() -> None:
    """On 25 random cases of up to 6 instances the MILP hits the brute-force optimum, proven,
    and the heuristic never beats it nor falls below the lower bound."""
    rng = random.Random(11)
    for _ in range(25):
        instances = _instances(*_random_classes(rng, rng.randint(2, 6)))
        optimum = _brute_force_gpus(instances)
        exact = REMOTE_POOL.pack_exact(instances, L40S, CATALOG, ASSUMPTIONS)
        heuristic = REMOTE_POOL.pack_heuristic(instances, L40S, CATALOG, ASSUMPTIONS)
        assert packing_gpus(exact) == optimum
        assert exact.status is SolveStatus.OPTIMAL
        assert heuristic.lower_bound_gpus <= optimum <= packing_gpus(heuristic)
        assert packing_gpus(heuristic) <= optimum + 1


def test_exact_and_heuristic_agree_on_small_cases() -> None:
    """On small structured cases (office notebooks, night batch) both packers use the same GPUs."""
    instances = _instances(
        workload("nb", instances=5, gpus=0.25, memory_gib=12, schedule=OFFICE),
        workload("batch", instances=3, gpus=0.5, memory_gib=24, schedule=NIGHT),
    )
    exact = REMOTE_POOL.pack_exact(instances, L40S, CATALOG, ASSUMPTIONS)
    heuristic = REMOTE_POOL.pack_heuristic(instances, L40S, CATALOG, ASSUMPTIONS)
    assert packing_gpus(exact) == packing_gpus(heuristic) == 2


def test_fleet_plans_are_feasible_and_near_the_bound() -> None:
    """On the 2,000-GPU fleet the heuristic plan passes the checker within 5 % of the bound."""
    scenario = fleet(2000)
    plan = plan_method(Method.REMOTE_POOL, scenario)
    assert check_plan(plan, scenario) == []
    assert len(plan.gpu_configs) <= 1.05 * plan.lower_bound_gpus


def test_a_slow_network_is_named_in_the_plan_notes() -> None:
    """Above 50 µs or without RDMA the pool still plans, and its notes say the network is worse
    than VMware's recommendation; a recommended network adds no such note."""
    instances = [Instance("a#1", workload("a", gpus=0.5, memory_gib=10.0))]
    slow = Assumptions(network=Network(latency_us=80.0))
    packing = REMOTE_POOL.pack_heuristic(instances, L40S, CATALOG, slow)
    assert any("worse than VMware's recommendation" in n for n in packing.notes)
    assert packing.requests
    fine = REMOTE_POOL.pack_heuristic(instances, L40S, CATALOG, ASSUMPTIONS)
    assert not any("recommendation" in n for n in fine.notes)


def test_each_pooled_instance_gets_its_share_of_compute() -> None:
    """Compute shares on a pooled GPU: a 0.2 and a 0.5 request that fit one GPU get what they ask;
    three 0.9-GPU jobs on one GPU ask 2.7 GPUs and get a third each."""
    small = REMOTE_POOL.pack_heuristic(
        _instances(workload("a", gpus=0.2, memory_gib=16), workload("b", gpus=0.5, memory_gib=16)),
        L40S, CATALOG, ASSUMPTIONS,
    )  # fmt: skip
    shares = {s.workload: s.compute_share for r in small.requests for s in r.loads[0].slots}
    assert shares == {"a": 0.2, "b": 0.5}
    crowded = REMOTE_POOL.pack_heuristic(
        _instances(workload("c", instances=3, gpus=0.9, memory_gib=16)), L40S, CATALOG, ASSUMPTIONS
    )
    assert packing_gpus(crowded) == 1
    slots = [s for r in crowded.requests for s in r.loads[0].slots]
    assert [s.compute_share for s in slots] == pytest.approx([1 / 3] * 3)


def test_the_placement_sheet_shows_each_pooled_instance_s_compute_share() -> None:
    """The placement sheet of a remote-pool plan carries each instance's compute share, not 0."""
    scenario = scenario_of(
        [L40S],
        [host("h1")],
        [workload("a", instances=2, gpus=0.25, memory_gib=8), workload("b", gpus=0.5)],
    )
    sheet = placement_frame(measure_plan(plan_method(Method.REMOTE_POOL, scenario), scenario))
    assert sorted(sheet["compute_share"]) == [0.25, 0.25, 0.5]


@pytest.mark.parametrize(
    ("memory_gib", "instances", "gpus"),
    [(17.0, 5, 3), (25.0, 3, 3), (14.0, 7, 3), (12.0, 8, 2), (16.0, 4, 2)],
)
def test_the_rows_count_instances_that_cannot_share_a_gpu_by_memory(
    memory_gib: float, instances: int, gpus: int
) -> None:
    """Five always-active 17 GiB instances on 48 GiB GPUs need three GPUs (two fit on one),
    though their memory adds up to 1.77 GPUs: the rounded rows (a dual feasible function of
    each instance's share) give the bound its third GPU, and never more than the exact packing
    uses."""
    classes = [workload("w", instances=instances, gpus=0.3, memory_gib=memory_gib, schedule=ALWAYS)]
    demand = REMOTE_POOL.gpu_demand(classes, L40S, CATALOG, Assumptions())
    packing = REMOTE_POOL.pack_exact(instances_of(classes), L40S, CATALOG, Assumptions())
    assert fewest_gpus(demand, {"w": instances}) == packing_gpus(packing) == gpus
