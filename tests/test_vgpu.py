"""Tests for vgpu: C-series profile choice, the three modes, and mixed-size packing."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest

from planner.assumptions import Assumptions, VgpuMode, VgpuScheduler, VsphereVersion
from planner.inputs.catalog import Catalog, GpuModel, VgpuProfile, load_catalog
from planner.inputs.inventory import Host, Inventory
from planner.inputs.workloads import Instance, WorkloadClass, WorkloadKind
from planner.methods import vgpu
from planner.methods.registry import Method
from planner.plan import GpuPacking, SolveStatus
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import packing_gpus, plan_method
from tests import builders

CATALOG = load_catalog()
A100_80 = CATALOG.gpus["A100-80GB-PCIe"]
H100 = CATALOG.gpus["H100-80GB-PCIe"]
H200 = CATALOG.gpus["H200-141GB-SXM"]
L40S = CATALOG.gpus["L40S"]
EQUAL = Assumptions(vgpu_mode=VgpuMode.EQUAL_SIZE)
MIXED = Assumptions(vgpu_mode=VgpuMode.MIXED_SIZE)
HOST_EQUAL = Assumptions(vgpu_mode=VgpuMode.HOST_EQUAL)


def _workload(
    name: str, n: int, gpus: float, memory_gib: float, **changes: object
) -> WorkloadClass:
    workload = builders.workload(
        name,
        kind=WorkloadKind.NOTEBOOK,
        instances=n,
        gpus=gpus,
        memory_gib=memory_gib,
        busy_fraction=0.2,
        schedule=(0.5,) * 24,
        days_per_week=5,
        ram_gib=32,
    )
    return replace(workload, **changes)  # type: ignore[arg-type]


def _instances(*workloads: WorkloadClass) -> list[Instance]:
    return [Instance(i, w) for w in workloads for i in w.instance_ids()]


def _profiles(model: GpuModel) -> dict[str, VgpuProfile]:
    return {p.name: p for p in CATALOG.vgpu_profiles[model.name]}


def _assert_feasible(
    packing: GpuPacking,
    instances: Sequence[Instance],
    model: GpuModel,
    assumptions: Assumptions,
    catalog: Catalog = CATALOG,
) -> None:
    """Every instance placed once (in each of its vGPUs' loads) or not placed; every GPU obeys
    its mode's rules and maxima; requests sum their instances' cores and RAM; bound honest."""
    by_id = {i.id: i for i in instances}
    profiles = _profiles(model)
    placed: Counter[str] = Counter()
    for request in packing.requests:
        in_request = {s.instance for load in request.loads for s in load.slots}
        for instance_id in in_request:
            placed[instance_id] += 1
            choice = vgpu.choose_profile(by_id[instance_id].workload, model, catalog, assumptions)
            assert choice is not None
            holding = [ld for ld in request.loads if instance_id in {s.instance for s in ld.slots}]
            assert len(holding) == choice.vgpus
        assert request.cpu_cores == pytest.approx(sum(by_id[i].workload.vcpus for i in in_request))
        assert request.ram_gib == pytest.approx(sum(by_id[i].workload.ram_gib for i in in_request))
        for load in request.loads:
            assert load.gpu_model == model.name
            counts = Counter(s.profile for s in load.slots)
            if assumptions.vgpu_mode is VgpuMode.MIXED_SIZE:
                memory = sum(profiles[name].memory_gib * n for name, n in counts.items())
                assert memory <= model.memory_gib + 1e-9
                assert all(n <= profiles[name].max_mixed for name, n in counts.items())
            else:
                # NVIDIA's table, not the frame buffer, caps equal-size GPUs (H100 16C x6 = 96 GB).
                assert len(counts) == 1, load.config  # one profile size per GPU
                assert all(n <= profiles[name].max_equal for name, n in counts.items())
            for name, n in counts.items():
                assert f"{name} x{n}" in load.config
            partial = [name for name in counts if not profiles[name].is_full]
            if assumptions.vgpu_mode is VgpuMode.HOST_EQUAL and partial:
                assert request.host_group == partial[0]
            else:
                assert request.host_group == ""
    not_placed = Counter(n.instance for n in packing.not_placed)
    assert set(placed) | set(not_placed) == set(by_id)
    assert all(n == 1 for n in (placed + not_placed).values())
    assert packing.lower_bound_gpus <= packing_gpus(packing)
    if packing.status is SolveStatus.OPTIMAL:
        assert packing.lower_bound_gpus == packing_gpus(packing)


# DOMAIN sizing checks


@pytest.mark.parametrize(
    ("assumptions", "fits_on_four"), [(EQUAL, 20), (MIXED, 16), (HOST_EQUAL, 20)]
)
def test_four_a100_80gb_hold_20_16c_equal_and_16_mixed(
    assumptions: Assumptions, fits_on_four: int
) -> None:
    """4 × A100-80GB hold 20 vGPUs of 16C in equal-size mode and 16 in mixed-size mode (NVIDIA's
    maxima 5 and 4); one more needs a fifth GPU. Exact and heuristic agree."""
    for packer in (vgpu.VGPU.pack_exact, vgpu.VGPU.pack_heuristic):
        instances = _instances(_workload("nb", fits_on_four, 0.1, 16))
        packing = packer(instances, A100_80, CATALOG, assumptions)
        assert packing_gpus(packing) == 4
        assert packing.status is SolveStatus.OPTIMAL
        _assert_feasible(packing, instances, A100_80, assumptions)
        more = _instances(_workload("nb", fits_on_four + 1, 0.1, 16))
        assert packing_gpus(packer(more, A100_80, CATALOG, assumptions)) == 5


def test_h100_16c_allows_six_per_gpu_not_five() -> None:
    """H100-80GB takes six 16C vGPUs per GPU in equal-size mode (NVIDIA's table), not
    floor(80 / 16) = 5."""
    instances = _instances(_workload("nb", 6, 0.1, 16))
    packing = vgpu.VGPU.pack_exact(instances, H100, CATALOG, EQUAL)
    assert packing_gpus(packing) == 1
    assert packing.requests[0].loads[0].config == "vGPU 16C x6"
    _assert_feasible(packing, instances, H100, EQUAL)


def test_equal_size_never_mixes_sizes_on_a_gpu() -> None:
    """In equal-size mode every GPU holds one profile size, and each profile needs exactly
    ceil(n / max_equal) GPUs (optimal)."""
    workloads = [_workload("a", 7, 0.1, 4), _workload("b", 3, 0.1, 16), _workload("c", 9, 0.1, 8)]
    instances = _instances(*workloads)
    packing = vgpu.VGPU.pack_heuristic(instances, A100_80, CATALOG, EQUAL)
    _assert_feasible(packing, instances, A100_80, EQUAL)
    # 4C: 7 of max 20 -> 1; 16C: 3 of 5 -> 1; 8C: 9 of 10 -> 1.
    assert packing_gpus(packing) == 3
    assert packing.status is SolveStatus.OPTIMAL


# Profile choice and eligibility


@pytest.mark.parametrize(
    ("memory_gib", "profile"), [(3, "4C"), (4, "4C"), (9, "10C"), (16, "16C"), (41, "80C")]
)
def test_smallest_profile_holding_the_memory(memory_gib: float, profile: str) -> None:
    """An instance takes the smallest C-series profile whose frame buffer holds its memory."""
    choice = vgpu.choose_profile(_workload("w", 1, 0.1, memory_gib), A100_80, CATALOG, EQUAL)
    assert choice is not None
    assert (choice.profile.name, choice.vgpus) == (profile, 1)


def test_fixed_share_needs_a_time_share_covering_the_compute() -> None:
    """Under the fixed-share scheduler a 0.3-GPU instance with 4 GB needs a profile whose share
    1/max covers 0.3: 40C (1/2), not 4C (1/20) or 20C (1/4); its slot reserves that share."""
    assumptions = Assumptions(vgpu_scheduler=VgpuScheduler.FIXED_SHARE)
    workload = _workload("w", 1, 0.3, 4)
    choice = vgpu.choose_profile(workload, A100_80, CATALOG, assumptions)
    assert choice is not None
    assert choice.profile.name == "40C"
    packing = vgpu.VGPU.pack_exact(_instances(workload), A100_80, CATALOG, assumptions)
    assert packing.requests[0].loads[0].slots[0].compute_share == pytest.approx(0.5)
    best_effort = vgpu.choose_profile(workload, A100_80, CATALOG, EQUAL)
    assert best_effort is not None
    assert best_effort.profile.name == "4C"


def test_multi_gpu_instance_gets_full_profiles_on_one_host() -> None:
    """gpus = 2 gives two full-frame-buffer vGPUs (80C), one per GPU, in one host request."""
    instances = _instances(_workload("train", 1, 2, 60))
    packing = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, EQUAL)
    assert len(packing.requests) == 1
    assert [ld.config for ld in packing.requests[0].loads] == ["vGPU 80C x1", "vGPU 80C x1"]
    assert packing.requests[0].loads[0].slots[0].compute_share == 1.0
    _assert_feasible(packing, instances, A100_80, EQUAL)


@pytest.mark.parametrize(
    ("version", "placed"), [(VsphereVersion.V7, False), (VsphereVersion.V8, True)]
)
def test_vgpus_per_vm_limit_follows_the_vsphere_version(
    version: VsphereVersion, placed: bool
) -> None:
    """A 5-GPU VM exceeds vSphere 7's 4 vGPUs per VM (NotPlaced, saying so), fits vSphere 8's 8."""
    assumptions = Assumptions(vsphere_version=version)
    instances = _instances(_workload("train", 1, 5, 200))
    packing = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, assumptions)
    _assert_feasible(packing, instances, A100_80, assumptions)
    if placed:
        assert packing_gpus(packing) == 5
    else:
        assert packing_gpus(packing) == 0
        assert "at most 4 vGPUs per VM" in packing.not_placed[0].reason


def test_isolation_is_not_eligible_and_says_why() -> None:
    """Time slicing shares the GPU's engines: a workload needing isolation is not eligible."""
    workload = _workload("w", 1, 0.1, 4, needs_isolation=True)
    reason = vgpu.VGPU.ineligible_reason(workload, A100_80, CATALOG, EQUAL)
    assert reason is not None
    assert "isolation" in reason


def test_live_migration_is_eligible() -> None:
    """vGPU VMs support vMotion, so a workload needing live migration is eligible."""
    workload = _workload("w", 1, 0.1, 4, needs_live_migration=True)
    assert vgpu.VGPU.ineligible_reason(workload, A100_80, CATALOG, EQUAL) is None


def test_model_without_vgpu_is_not_eligible() -> None:
    """A model without C-series vGPU profiles is not eligible, and the reason names the model."""
    model = replace(L40S, vgpu_capable=False)
    reason = vgpu.VGPU.ineligible_reason(_workload("w", 1, 0.1, 4), model, CATALOG, EQUAL)
    assert reason is not None
    assert "L40S" in reason


def test_mixed_size_on_vsphere_7_is_not_eligible() -> None:
    """Mixed-size vGPU needs vSphere 8.0 U3+: with vSphere 7 assumed, no workload is eligible."""
    assumptions = Assumptions(vgpu_mode=VgpuMode.MIXED_SIZE, vsphere_version=VsphereVersion.V7)
    reason = vgpu.VGPU.ineligible_reason(_workload("w", 1, 0.1, 4), A100_80, CATALOG, assumptions)
    assert reason is not None
    assert "vSphere 8.0 U3" in reason


def test_host_equal_mode_groups_requests_by_profile() -> None:
    """Host-equal mode tags each partial-profile GPU with its profile, so hosts keep one size;
    full-profile VMs carry no group."""
    instances = _instances(
        _workload("a", 3, 0.1, 8), _workload("b", 2, 0.1, 20), _workload("c", 1, 1, 60)
    )
    packing = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, HOST_EQUAL)
    groups = sorted(r.host_group for r in packing.requests)
    assert groups == ["", "20C", "8C"]
    _assert_feasible(packing, instances, A100_80, HOST_EQUAL)


# Mixed-size packing


def test_mixed_patterns_are_feasible_and_maximal() -> None:
    """Every mixed-size profile set fits the frame buffer and the maxima, and no profile can be
    added to any of them."""
    profiles = list(CATALOG.vgpu_profiles[A100_80.name])
    patterns = vgpu.mixed_patterns(profiles, A100_80)
    assert patterns
    for pattern in patterns:
        memory = sum(n * p.memory_gib for n, p in zip(pattern, profiles, strict=True))
        assert memory <= A100_80.memory_gib
        assert all(n <= p.max_mixed for n, p in zip(pattern, profiles, strict=True))
        assert not any(
            n < p.max_mixed and memory + p.memory_gib <= A100_80.memory_gib
            for n, p in zip(pattern, profiles, strict=True)
        )


def _fits_one_gpu(
    profiles: Sequence[VgpuProfile], model: GpuModel, mode: VgpuMode = VgpuMode.MIXED_SIZE
) -> bool:
    counts = Counter(p.name for p in profiles)
    if mode is not VgpuMode.MIXED_SIZE:
        return len(counts) == 1 and len(profiles) <= profiles[0].max_equal
    by_name = {p.name: p for p in profiles}
    return sum(p.memory_gib for p in profiles) <= model.memory_gib and all(
        n <= by_name[name].max_mixed for name, n in counts.items()
    )


def _brute_force_gpus(
    profiles: Sequence[VgpuProfile], model: GpuModel, mode: VgpuMode = VgpuMode.MIXED_SIZE
) -> int:
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
        if all(_fits_one_gpu([profiles[i] for i in block], model, mode) for block in blocks)
    )


def _random_instances(rng: random.Random, count: int, sizes: Sequence[float]) -> list[Instance]:
    workloads = [
        _workload(f"w{k}", 1, 0.1, rng.choice(sizes), priority=rng.randint(1, 2))
        for k in range(count)
    ]
    return _instances(*workloads)


@pytest.mark.parametrize("model", [A100_80, H200], ids=lambda m: m.name)
def test_mixed_exact_matches_brute_force_on_small_cases(model: GpuModel) -> None:
    """On 40 random sets of at most 6 instances, mixed-size exact packing uses exactly the
    brute-force optimum and is marked optimal; the heuristic never uses fewer."""
    rng = random.Random(5)
    sizes = sorted({p.memory_gib for p in CATALOG.vgpu_profiles[model.name]})
    for _ in range(40):
        instances = _random_instances(rng, rng.randint(1, 6), sizes)
        profiles = []
        for instance in instances:
            choice = vgpu.choose_profile(instance.workload, model, CATALOG, MIXED)
            assert choice is not None
            profiles.append(choice.profile)
        exact = vgpu.VGPU.pack_exact(instances, model, CATALOG, MIXED)
        heuristic = vgpu.VGPU.pack_heuristic(instances, model, CATALOG, MIXED)
        _assert_feasible(exact, instances, model, MIXED)
        _assert_feasible(heuristic, instances, model, MIXED)
        assert packing_gpus(exact) == _brute_force_gpus(profiles, model)
        assert exact.status is SolveStatus.OPTIMAL
        assert packing_gpus(heuristic) >= packing_gpus(exact)


def test_equal_size_matches_brute_force_on_small_cases() -> None:
    """Equal-size packing (ceil(n / max_equal) GPUs per profile) equals the best partition into
    single-profile GPUs within NVIDIA's maxima, found by brute force, on 40 random small sets."""
    rng = random.Random(4)
    for _ in range(40):
        # 40C (max 2) and 80C (max 1) make small sets spill over one GPU.
        instances = _random_instances(rng, rng.randint(1, 6), [16, 40, 80])
        profiles = []
        for instance in instances:
            choice = vgpu.choose_profile(instance.workload, A100_80, CATALOG, EQUAL)
            assert choice is not None
            profiles.append(choice.profile)
        packing = vgpu.VGPU.pack_heuristic(instances, A100_80, CATALOG, EQUAL)
        _assert_feasible(packing, instances, A100_80, EQUAL)
        assert packing_gpus(packing) == _brute_force_gpus(profiles, A100_80, VgpuMode.EQUAL_SIZE)


def test_mixed_exact_and_heuristic_agree_on_small_cases() -> None:
    """On small A100-80GB cases of partial profiles (at most 6 instances), best-fit decreasing
    finds the optimum too: the two packers use the same GPU count."""
    rng = random.Random(9)
    sizes = [4, 8, 10, 16, 20, 40]
    for _ in range(40):
        instances = _random_instances(rng, rng.randint(1, 6), sizes)
        exact = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, MIXED)
        heuristic = vgpu.VGPU.pack_heuristic(instances, A100_80, CATALOG, MIXED)
        assert packing_gpus(heuristic) == packing_gpus(exact)


def test_mixed_exact_beats_best_fit_where_it_can() -> None:
    """Best-fit decreasing can strand memory: on A100-80GB, five 40C, four 16C and five 10C take
    it five GPUs, while the exact packer proves four enough (314 of 320 GB used)."""
    instances = _instances(
        _workload("a", 5, 0.1, 40), _workload("b", 4, 0.1, 16), _workload("c", 5, 0.1, 10)
    )
    exact = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, MIXED)
    heuristic = vgpu.VGPU.pack_heuristic(instances, A100_80, CATALOG, MIXED)
    _assert_feasible(exact, instances, A100_80, MIXED)
    _assert_feasible(heuristic, instances, A100_80, MIXED)
    assert (packing_gpus(exact), packing_gpus(heuristic)) == (4, 5)
    assert exact.status is SolveStatus.OPTIMAL
    assert heuristic.status is SolveStatus.HEURISTIC
    assert heuristic.lower_bound_gpus == 4


def test_packing_is_deterministic() -> None:
    """The same instances give the same packing, request for request."""
    instances = _random_instances(random.Random(2), 30, [4, 8, 16, 20])
    first = vgpu.VGPU.pack_exact(instances, A100_80, CATALOG, MIXED)
    second = vgpu.VGPU.pack_exact(list(instances), A100_80, CATALOG, MIXED)
    assert first == second


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "heuristic"])
@pytest.mark.parametrize("assumptions", [EQUAL, MIXED, HOST_EQUAL], ids=lambda a: a.vgpu_mode)
def test_placed_plans_pass_the_feasibility_checker(exact: bool, assumptions: Assumptions) -> None:
    """Packed and placed on an inventory of A100-80GB and L40S hosts, a random mix (some needing
    isolation, some whole GPUs) gives a vGPU plan the shared feasibility checker accepts, in
    every mode."""
    rng = random.Random(13)
    workloads = (
        *(
            _workload(f"w{k}", rng.randint(1, 6), 0.1, rng.choice([4, 8, 10, 16, 20, 40]))
            for k in range(12)
        ),
        _workload("train", 2, 2, 100),
        _workload("isolated", 2, 0.1, 8, needs_isolation=True),
    )
    hosts = tuple(
        Host(f"{model.lower()}-{i}", "c1", model, 4, 64, 1024, 100, True, mig_enabled=False)
        for model in ("A100-80GB-PCIe", "L40S")
        for i in range(3)
    )
    scenario = Scenario(CATALOG, Inventory(hosts), workloads, assumptions)
    plan = plan_method(Method.VGPU, scenario, exact=exact)
    assert check_plan(plan, scenario) == []
    assert plan.placements
    assert {n.workload for n in plan.not_placed} >= {"isolated"}
