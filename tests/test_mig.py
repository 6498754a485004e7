"""Tests for mig: MIG profile choice, layouts derived from placements, and packing."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest

from planner.assumptions import Assumptions, VsphereVersion
from planner.inputs.catalog import Catalog, GpuModel, MigProfile, load_catalog
from planner.inputs.inventory import Host, Inventory
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass, WorkloadKind
from planner.methods import mig
from planner.methods.mig import Layout, enumerate_layouts, layout_is_valid
from planner.methods.registry import Method
from planner.plan import GpuPacking, SolveStatus
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import packing_gpus, plan_method
from tests import builders

CATALOG = load_catalog()
A100_80 = CATALOG.gpus["A100-80GB-PCIe"]
A30 = CATALOG.gpus["A30"]
H200 = CATALOG.gpus["H200-141GB-SXM"]
L40S = CATALOG.gpus["L40S"]
ASSUME = Assumptions()


def _profile(model: GpuModel, name: str) -> MigProfile:
    return next(p for p in CATALOG.mig_profiles[model.name] if p.name == name)


def _workload(
    name: str, n: int, gpus: float, memory_gib: float, **changes: object
) -> WorkloadClass:
    workload = builders.workload(
        name,
        kind=WorkloadKind.INFERENCE,
        instances=n,
        gpus=gpus,
        memory_gib=memory_gib,
        busy_fraction=0.3,
        latency_tolerant=False,
    )
    return replace(workload, **changes)  # type: ignore[arg-type]


def _instances(*workloads: WorkloadClass) -> list[Instance]:
    return [Instance(i, w) for w in workloads for i in w.instance_ids()]


def _assert_feasible(
    packing: GpuPacking,
    instances: Sequence[Instance],
    model: GpuModel,
    catalog: Catalog = CATALOG,
    assumptions: Assumptions = ASSUME,
) -> None:
    """Every instance placed once (in every load of its request) or not placed; every GPU's
    layout valid and named by its config; host cores and RAM summed per request; bound honest."""
    by_id = {i.id: i for i in instances}
    placed: Counter[str] = Counter()
    for request in packing.requests:
        in_request = {s.instance for load in request.loads for s in load.slots}
        for instance_id in in_request:
            placed[instance_id] += 1
            choice = mig.choose_profile(by_id[instance_id].workload, model, catalog, assumptions)
            assert choice is not None
            holding = [ld for ld in request.loads if instance_id in {s.instance for s in ld.slots}]
            assert len(holding) == choice.gpus
            assert {s.profile for ld in holding for s in ld.slots if s.instance == instance_id} == {
                choice.profile.name
            }
        assert request.cpu_cores == pytest.approx(sum(by_id[i].workload.vcpus for i in in_request))
        assert request.ram_gib == pytest.approx(sum(by_id[i].workload.ram_gib for i in in_request))
        assert request.priority == min(by_id[i].workload.priority for i in in_request)
        for load in request.loads:
            assert load.gpu_model == model.name
            profiles = {p.name: p for p in catalog.mig_profiles[model.name]}
            placed_slices = [(profiles[s.profile], s.start_slice) for s in load.slots]
            assert all(start is not None for _, start in placed_slices)
            layout = [(p, int(start)) for p, start in placed_slices if start is not None]
            assert layout_is_valid(layout, model), load.config
            for profile, start in layout:
                assert f"{profile.name}@{start}" in load.config
    not_placed = Counter(n.instance for n in packing.not_placed)
    assert set(placed) | set(not_placed) == set(by_id)
    assert all(n == 1 for n in (placed + not_placed).values())
    assert packing.lower_bound_gpus <= packing_gpus(packing)
    if packing.status is SolveStatus.OPTIMAL:
        assert packing.lower_bound_gpus == packing_gpus(packing)


# Layouts


def test_a30_maximal_layouts_are_the_four_nvidia_lists() -> None:
    """A30 maximal layouts, as profile multisets, are exactly {4g}, {2g,2g}, {2g,1g,1g}, {1g×4}."""
    layouts = enumerate_layouts(CATALOG.mig_profiles["A30"], A30)
    multisets = {tuple(sorted(layout.counts().items())) for layout in layouts}
    assert multisets == {
        (("4g.24gb", 1),),
        (("2g.12gb", 2),),
        (("1g.6gb", 2), ("2g.12gb", 1)),
        (("1g.6gb", 4),),
    }


@pytest.mark.parametrize("model", [A100_80, A30, H200], ids=lambda m: m.name)
def test_enumerated_layouts_are_valid_and_maximal(model: GpuModel) -> None:
    """Every enumerated layout passes layout_is_valid and no catalog placement can be added."""
    profiles = CATALOG.mig_profiles[model.name]
    placements = [(p, s) for p in profiles for s in p.starts]
    layouts = enumerate_layouts(profiles, model)
    assert layouts
    for layout in layouts:
        assert layout_is_valid(layout.placed, model), layout.config
        addable = [p for p in placements if p not in layout.placed]
        assert not any(layout_is_valid([*layout.placed, p], model) for p in addable)


def test_enumeration_finds_every_maximal_layout() -> None:
    """Brute force over every set of up to 7 A100-80GB placements finds the same maximal layouts
    as the search."""
    profiles = CATALOG.mig_profiles[A100_80.name]
    placements = [(p, s) for p in profiles for s in p.starts]
    valid = {
        frozenset(combo)
        for size in range(1, A100_80.mig_compute_slices + 1)
        for combo in itertools.combinations(placements, size)
        if layout_is_valid(combo, A100_80)
    }
    maximal = {v for v in valid if not any(v < w for w in valid)}
    found = {frozenset(layout.placed) for layout in enumerate_layouts(profiles, A100_80)}
    assert found == maximal


def test_placement_table_allows_3g_with_four_1g() -> None:
    """NVIDIA's MIG placement table for A100/H100 (3g at slice 0 or 4, 1g at 0-6) allows
    3g.40gb@4 plus four 1g.10gb at 0-3, even where prose says 'at most three'; the table is
    followed."""
    three = _profile(A100_80, "3g.40gb")
    one = _profile(A100_80, "1g.10gb")
    assert layout_is_valid([(three, 4), (one, 0), (one, 1), (one, 2), (one, 3)], A100_80)
    assert not layout_is_valid([(three, 0), (one, 4), (one, 5), (one, 6), (one, 3)], A100_80)


def test_invalid_layouts_fail() -> None:
    """Overlapping slices, a start outside the placements, running past the last slice, another
    model's profile, and a GPU without MIG are all refused."""
    three = _profile(A100_80, "3g.40gb")
    two = _profile(A100_80, "2g.20gb")
    one = _profile(A100_80, "1g.10gb")
    assert not layout_is_valid([(three, 0), (two, 2)], A100_80)  # slices 2-3 twice
    assert not layout_is_valid([(three, 2)], A100_80)  # 3g may start at 0 or 4 only
    assert not layout_is_valid([(one, 7)], A100_80)  # 1g may start at 0-6 only
    assert not layout_is_valid([(_profile(A30, "1g.6gb"), 0)], A100_80)
    assert not layout_is_valid([(three, 0)], replace(A100_80, mig_capable=False))
    assert layout_is_valid([(three, 0), (two, 4), (one, 6)], A100_80)


def test_too_many_compute_slices_or_instances_fail() -> None:
    """Hand-made profiles: two 4-slice instances on separate memory exceed 7 compute slices,
    and a third instance of a profile limited to two per GPU is refused."""
    wide = MigProfile("A100-80GB-PCIe", "4g.test", 4, 20, 2, (0, 2, 4, 6), 4, "test")
    limited = MigProfile("A100-80GB-PCIe", "1g.test", 1, 10, 1, tuple(range(7)), 2, "test")
    assert layout_is_valid([(wide, 0)], A100_80)
    assert not layout_is_valid([(wide, 0), (wide, 2)], A100_80)
    assert layout_is_valid([(limited, 0), (limited, 1)], A100_80)
    assert not layout_is_valid([(limited, 0), (limited, 1), (limited, 2)], A100_80)


def test_layout_config_names_each_instance_and_start() -> None:
    """A layout's config reads like 'MIG 3g.40gb@0 + 1g.10gb@4'."""
    layout = Layout(((_profile(A100_80, "3g.40gb"), 0), (_profile(A100_80, "1g.10gb"), 4)))
    assert layout.config == "MIG 3g.40gb@0 + 1g.10gb@4"


# Profile choice and eligibility


@pytest.mark.parametrize(
    ("gpus", "memory_gib", "profile"),
    [
        (0.1, 10, "1g.10gb"),
        (0.1, 15, "1g.20gb"),  # memory decides: one compute slice with 20 GB
        (0.2, 10, "2g.20gb"),  # compute decides: 0.2 × 7 = 1.4 slices -> 2
        (0.3, 5, "3g.40gb"),  # 2.1 slices -> 3
        (0.5, 30, "4g.40gb"),  # 3.5 slices -> 4
        (1 / 7, 10, "1g.10gb"),  # exactly one slice, despite float noise
    ],
)
def test_smallest_profile_covers_memory_and_compute(
    gpus: float, memory_gib: float, profile: str
) -> None:
    """An instance takes the smallest profile covering both its memory and its compute share."""
    choice = mig.choose_profile(_workload("w", 1, gpus, memory_gib), A100_80, CATALOG, ASSUME)
    assert choice is not None
    assert (choice.profile.name, choice.gpus, choice.shared) == (profile, 1, True)


def test_whole_gpu_instances_get_one_whole_profile_per_gpu_on_one_host() -> None:
    """gpus = 2 takes two 7g.80gb instances, one per GPU, in one host request."""
    instances = _instances(_workload("train", 1, 2, 100))
    packing = mig.MIG.pack_exact(instances, A100_80, CATALOG, ASSUME)
    assert len(packing.requests) == 1
    loads = packing.requests[0].loads
    assert [ld.config for ld in loads] == ["MIG 7g.80gb@0", "MIG 7g.80gb@0"]
    _assert_feasible(packing, instances, A100_80)


def test_memory_beyond_every_partial_profile_takes_whole_gpus() -> None:
    """A fractional instance needing 100 GB takes two whole-GPU instances on A100-80GB."""
    choice = mig.choose_profile(_workload("w", 1, 0.5, 100), A100_80, CATALOG, ASSUME)
    assert choice is not None
    assert (choice.profile.name, choice.gpus, choice.shared) == ("7g.80gb", 2, False)


def test_model_without_mig_is_not_eligible() -> None:
    """If the GPU model has no MIG, no MIG profile is offered and the reason says so."""
    reason = mig.MIG.ineligible_reason(_workload("w", 1, 0.1, 5), L40S, CATALOG, ASSUME)
    assert reason is not None
    assert "does not support MIG" in reason


def test_live_migration_is_not_eligible_and_says_why() -> None:
    """MIG is treated as not live-migratable; the reason names live migration."""
    workload = _workload("w", 1, 0.1, 5, needs_live_migration=True)
    reason = mig.MIG.ineligible_reason(workload, A100_80, CATALOG, ASSUME)
    assert reason is not None
    assert "live migrat" in reason


def test_isolation_is_eligible() -> None:
    """MIG isolates instances in hardware, so a workload needing isolation is eligible."""
    workload = _workload("w", 1, 0.1, 5, needs_isolation=True)
    assert mig.MIG.ineligible_reason(workload, A100_80, CATALOG, ASSUME) is None


def test_too_many_whole_gpus_for_vsphere_7_is_not_placed() -> None:
    """On vSphere 7 a VM holds at most 4 MIG-backed vGPUs: a 6-GPU instance is NotPlaced with
    that reason, while a 4-GPU one is placed."""
    assumptions = Assumptions(vsphere_version=VsphereVersion.V7)
    instances = _instances(_workload("big", 1, 6, 100), _workload("ok", 1, 4, 100))
    packing = mig.MIG.pack_exact(instances, A100_80, CATALOG, assumptions)
    assert [n.instance for n in packing.not_placed] == ["big#1"]
    assert "at most 4" in packing.not_placed[0].reason
    assert packing_gpus(packing) == 4
    _assert_feasible(packing, instances, A100_80, assumptions=assumptions)


# Packing: DOMAIN sizing checks


def test_four_a100_80gb_hold_28_1g_10gb() -> None:
    """4 × A100-80GB hold 28 instances of 1g.10gb (seven each); a 29th needs a fifth GPU."""
    for packer in (mig.MIG.pack_exact, mig.MIG.pack_heuristic):
        instances = _instances(_workload("nb", 28, 0.1, 10))
        packing = packer(instances, A100_80, CATALOG, ASSUME)
        assert packing_gpus(packing) == 4
        assert packing.status is SolveStatus.OPTIMAL
        _assert_feasible(packing, instances, A100_80)
        more = _instances(_workload("nb", 29, 0.1, 10))
        assert packing_gpus(packer(more, A100_80, CATALOG, ASSUME)) == 5


def test_fixed_layout_3g_plus_three_1g_holds_16_on_four_gpus() -> None:
    """With the fixed layout {3g.40gb + 3 × 1g.10gb} per GPU, 4 × A100-80GB hold 16 instances
    (4 of 3g.40gb, 12 of 1g.10gb); a 13th 1g.10gb needs a fifth GPU."""
    three, one = _profile(A100_80, "3g.40gb"), _profile(A100_80, "1g.10gb")
    layout = Layout(((three, 0), (one, 4), (one, 5), (one, 6)))
    big = _workload("big", 4, 0.4, 40)
    instances = _instances(big, _workload("nb", 12, 0.1, 10))
    packing = mig.pack_with_layout(instances, A100_80, CATALOG, ASSUME, layout)
    assert packing_gpus(packing) == 4
    assert sum(len(ld.slots) for r in packing.requests for ld in r.loads) == 16
    assert {ld.config for r in packing.requests for ld in r.loads} == {layout.config}
    _assert_feasible(packing, instances, A100_80)
    more = _instances(big, _workload("nb", 13, 0.1, 10))
    assert packing_gpus(mig.pack_with_layout(more, A100_80, CATALOG, ASSUME, layout)) == 5


def test_fixed_layout_without_a_profile_leaves_its_instances_unplaced() -> None:
    """An instance whose profile the fixed layout lacks is NotPlaced, naming profile and layout."""
    layout = Layout(((_profile(A100_80, "3g.40gb"), 0), (_profile(A100_80, "3g.40gb"), 4)))
    instances = _instances(_workload("nb", 2, 0.1, 10))
    packing = mig.pack_with_layout(instances, A100_80, CATALOG, ASSUME, layout)
    assert packing_gpus(packing) == 0
    assert len(packing.not_placed) == 2
    assert "1g.10gb" in packing.not_placed[0].reason
    assert layout.config in packing.not_placed[0].reason


def test_invalid_fixed_layout_is_refused() -> None:
    """A fixed layout that breaks the placement rules raises, naming the layout."""
    three = _profile(A100_80, "3g.40gb")
    with pytest.raises(ValueError, match="not a valid MIG layout"):
        mig.pack_with_layout([], A100_80, CATALOG, ASSUME, Layout(((three, 0), (three, 2))))


def test_optimiser_fits_four_3g_and_sixteen_1g_on_four_gpus() -> None:
    """Following the placement table, the optimiser puts 3g.40gb@4 + 4 × 1g.10gb on each GPU:
    4 × A100-80GB hold 20 instances, more than the fixed layout's 16."""
    instances = _instances(_workload("big", 4, 0.4, 40), _workload("nb", 16, 0.1, 10))
    packing = mig.MIG.pack_exact(instances, A100_80, CATALOG, ASSUME)
    assert packing_gpus(packing) == 4
    assert packing.status is SolveStatus.OPTIMAL
    _assert_feasible(packing, instances, A100_80)


# Packing: exact, heuristic, brute force


def _random_mix(rng: random.Random, count: int) -> list[WorkloadClass]:
    shapes = [(0.1, 10), (0.1, 15), (0.25, 20), (0.4, 40), (0.5, 30), (0.1, 5)]
    return [
        _workload(f"w{k}", rng.randint(1, 3), *rng.choice(shapes), priority=rng.randint(1, 3))
        for k in range(count)
    ]


def _fits_one_gpu(profiles: Sequence[MigProfile], model: GpuModel) -> bool:
    """Some choice of starts puts all ``profiles`` on one GPU (depth-first over the starts)."""

    def place(placed: list[tuple[MigProfile, int]]) -> bool:
        if not layout_is_valid(placed, model):
            return False
        if len(placed) == len(profiles):
            return True
        profile = profiles[len(placed)]
        return any(place([*placed, (profile, start)]) for start in profile.starts)

    return place([])


def _brute_force_gpus(profiles: Sequence[MigProfile], model: GpuModel) -> int:
    """Fewest GPUs for the instances, over every partition of them into GPUs."""

    def partitions(items: list[int]) -> list[list[list[int]]]:
        if not items:
            return [[]]
        first, rest = items[0], items[1:]
        result = []
        for smaller in partitions(rest):
            result.append([[first], *smaller])
            for k in range(len(smaller)):
                result.append([*smaller[:k], [first, *smaller[k]], *smaller[k + 1 :]])
        return result

    return min(
        len(blocks)
        for blocks in partitions(list(range(len(profiles))))
        if all(_fits_one_gpu([profiles[i] for i in block], model) for block in blocks)
    )


def test_exact_matches_brute_force_on_small_cases() -> None:
    """On 30 random mixes of at most 6 instances, the exact packer uses exactly as many GPUs as
    the best partition found by brute force, and the heuristic never fewer."""
    rng = random.Random(7)
    for _ in range(30):
        instances = _instances(*_random_mix(rng, 3))[:6]
        profiles = []
        for instance in instances:
            choice = mig.choose_profile(instance.workload, A100_80, CATALOG, ASSUME)
            assert choice is not None
            profiles.append(choice.profile)
        exact = mig.MIG.pack_exact(instances, A100_80, CATALOG, ASSUME)
        heuristic = mig.MIG.pack_heuristic(instances, A100_80, CATALOG, ASSUME)
        _assert_feasible(exact, instances, A100_80)
        _assert_feasible(heuristic, instances, A100_80)
        assert packing_gpus(exact) == _brute_force_gpus(profiles, A100_80)
        assert exact.status is SolveStatus.OPTIMAL
        assert packing_gpus(heuristic) >= packing_gpus(exact)


@pytest.mark.parametrize("model", [A100_80, A30, H200], ids=lambda m: m.name)
def test_larger_mixes_pack_into_valid_layouts(model: GpuModel) -> None:
    """On larger random mixes every GPU's layout is valid, every instance is accounted for, the
    exact packer uses no more GPUs than the heuristic and no fewer than the lower bound."""
    rng = random.Random(11)
    for _ in range(5):
        instances = _instances(*_random_mix(rng, 12))
        exact = mig.MIG.pack_exact(instances, model, CATALOG, ASSUME)
        heuristic = mig.MIG.pack_heuristic(instances, model, CATALOG, ASSUME)
        _assert_feasible(exact, instances, model)
        _assert_feasible(heuristic, instances, model)
        assert heuristic.lower_bound_gpus <= packing_gpus(exact) <= packing_gpus(heuristic)


def test_exact_beats_the_greedy_where_it_can() -> None:
    """Eight 1g.20gb and eight 1g.10gb: largest-first greedy opens four GPUs, the exact packer
    proves three enough; the heuristic reports the gap to the bound."""
    instances = _instances(_workload("a", 8, 0.1, 15), _workload("b", 8, 0.1, 10))
    exact = mig.MIG.pack_exact(instances, A100_80, CATALOG, ASSUME)
    heuristic = mig.MIG.pack_heuristic(instances, A100_80, CATALOG, ASSUME)
    _assert_feasible(exact, instances, A100_80)
    _assert_feasible(heuristic, instances, A100_80)
    assert (packing_gpus(exact), packing_gpus(heuristic)) == (3, 4)
    assert exact.status is SolveStatus.OPTIMAL
    assert heuristic.status is SolveStatus.HEURISTIC
    assert heuristic.lower_bound_gpus == 3


def test_packing_is_deterministic() -> None:
    """The same instances give the same packing, request for request."""
    instances = _instances(*_random_mix(random.Random(3), 10))
    first = mig.MIG.pack_exact(instances, A100_80, CATALOG, ASSUME)
    second = mig.MIG.pack_exact(list(instances), A100_80, CATALOG, ASSUME)
    assert first == second


def test_urgent_instances_share_the_first_gpus() -> None:
    """Instances are handed out most urgent first, so priority-1 instances fill the first GPU."""
    urgent = _workload("urgent", 7, 0.1, 10, priority=1)
    later = _workload("later", 7, 0.1, 10, priority=3)
    packing = mig.MIG.pack_exact(_instances(later, urgent), A100_80, CATALOG, ASSUME)
    assert [r.priority for r in packing.requests] == [1, 3]
    assert {s.workload for s in packing.requests[0].loads[0].slots} == {"urgent"}


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "heuristic"])
def test_placed_plans_pass_the_feasibility_checker(exact: bool) -> None:
    """Packed and placed on an inventory of A100-80GB and H100 hosts, a random mix (some needing
    live migration, some whole GPUs) gives a MIG plan the shared feasibility checker accepts."""
    rng = random.Random(21)
    workloads = (
        *_random_mix(rng, 10),
        _workload("train", 2, 2, 120),
        _workload("vmotion", 3, 0.1, 10, needs_live_migration=True),
    )
    hosts = tuple(
        Host(f"{model.lower()}-{i}", "c1", model, 4, 64, 1024, 100, True, mig_enabled=True)
        for model in ("A100-80GB-PCIe", "H100-80GB-PCIe")
        for i in range(3)
    )
    scenario = Scenario(CATALOG, Inventory(hosts), workloads, ASSUME)
    plan = plan_method(Method.MIG, scenario, exact=exact)
    assert check_plan(plan, scenario) == []
    assert plan.placements
    assert {n.workload for n in plan.not_placed} >= {"vmotion"}


@pytest.mark.parametrize("method", [Method.MIG, Method.K8S_MIG])
def test_two_3g_71gb_fill_an_h200_without_breaking_its_memory(method: Method) -> None:
    """NVIDIA offers two 3g.71gb on a 141 GB H200 (memory slices 0-3 and 4-7): the checker
    holds MIG to its slices, not to the rounded gigabytes of the profiles' names (142 GB)."""
    platform = Platform.VSPHERE if method is Method.MIG else Platform.KUBERNETES
    scenario = builders.scenario_of(
        [],
        [builders.host("h1", "H200-141GB-SXM", 1, mig_enabled=True, platform=platform)],
        [builders.workload("half", instances=2, gpus=0.4, memory_gib=60)],
        catalog=load_catalog(),
    )
    plan = plan_method(method, scenario)
    assert sorted(p.profile for p in plan.placements) == ["3g.71gb", "3g.71gb"]
    assert len(plan.gpu_configs) == 1
    assert check_plan(plan, scenario) == []


@pytest.mark.parametrize("method", [Method.MIG, Method.K8S_MIG])
def test_an_instance_holding_more_memory_than_its_mig_profile_is_a_violation(
    method: Method,
) -> None:
    """Two 50 GiB instances each in a 1g.10gb slice: the slices are valid, the memory is not
    (each holds more than its profile's 10 GiB; 100 GiB on an 80 GiB A100)."""
    platform = Platform.VSPHERE if method is Method.MIG else Platform.KUBERNETES
    scenario = builders.scenario_of(
        [],
        [builders.host("h1", "A100-80GB-PCIe", 1, mig_enabled=True, platform=platform)],
        [builders.workload("big", instances=2, gpus=0.1, memory_gib=50)],
        catalog=load_catalog(),
    )
    rows = [
        builders.placement(
            f"big#{i + 1}",
            "h1",
            0,
            gpu_model="A100-80GB-PCIe",
            profile="1g.10gb",
            memory_gib=50,
            compute_share=1 / 7,
            start_slice=start,
        )
        for i, start in enumerate((0, 1))
    ]
    plan = builders.hand_plan(method, rows, hosts=scenario.inventory.hosts)
    problems = check_plan(plan, scenario)
    assert any(
        "1g.10gb on GPU 0 of host h1 holds 50 GiB, more than its 10 GiB" in p for p in problems
    )
