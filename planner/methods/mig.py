"""MIG (Multi-Instance GPU): hardware-isolated GPU instances laid out by NVIDIA's placement rules.

Profile choice
    An instance takes the smallest profile (fewest compute slices, then least memory) whose
    memory holds its ``memory_gib`` and whose compute share ``compute_slices / total compute
    slices`` covers its ``gpus``. An instance with ``gpus >= 1``, or whose memory no partial
    profile holds, takes ``max(ceil(gpus), ceil(memory / whole-GPU profile memory))`` whole-GPU
    profiles (``7g.80gb``), one per GPU, all on one host. Under vSphere a MIG instance is a
    MIG-backed vGPU, so a VM holds at most ``max_vgpus_per_vm`` of them.

Layouts
    A layout is a set of (profile, start memory slice) with each start in the profile's catalog
    placements, no two instances sharing a memory slice, compute slices summing to at most the
    GPU's, and no profile above its per-GPU maximum. :func:`enumerate_layouts` derives every
    *maximal* layout (nothing more fits) by searching the placements; any valid layout is a
    subset of a maximal one, so covering with maximal layouts loses nothing.

Packing
    Instances are counted per profile, so the packing works on counts: the exact packer solves
    the pattern MILP of :mod:`planner.solve.milp` over the distinct maximal layouts (its size
    depends on the layouts, never on the fleet), the heuristic repeatedly takes the layout that
    holds the most remaining demand (largest instances weigh most). Both then hand instances to
    slots in a fixed order (priority, then input order), so results are deterministic. A GPU is
    set up with the instances it actually holds, so its ``config`` lists occupied instances only,
    except under :func:`pack_with_layout`, where the user fixed the full layout.

Profile choice is fixed before packing: ``lower_bound_gpus`` is a bound for these profiles
(giving an instance a larger profile than it needs is never considered).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel, MigProfile
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import (
    MEMORY_TOLERANCE_GIB,
    GpuDemand,
    GpuView,
    PlanContext,
    SharingMethod,
)
from planner.methods.grouping import Demand, group_by_profile, request_for
from planner.methods.vgpu import vm_vgpu_count_problems
from planner.plan import (
    GpuLoad,
    GpuPacking,
    HostRequest,
    NotPlaced,
    Placement,
    Slot,
    SolveStatus,
)
from planner.solve.milp import Contents, pack_counts
from planner.words import counted

__all__ = [
    "MIG",
    "Layout",
    "Mig",
    "ProfileChoice",
    "choose_profile",
    "enumerate_layouts",
    "layout_demand",
    "layout_is_valid",
    "mig_problems",
    "mig_room_usable",
    "mig_slowdown",
    "pack_profiles",
    "pack_with_layout",
    "profile_choice",
]

_TOLERANCE = 1e-9
"""Float noise allowed when comparing memory [GiB] and compute shares [-]."""

LIVE_MIGRATION_REASON = (
    "MIG-backed vGPU VMs are treated as not live-migratable (no public source confirmed vMotion "
    "of MIG-backed vGPUs on this stack), and the workload needs live migration"
)


@dataclass(frozen=True)
class ProfileChoice:
    """The MIG profile one instance takes, and on how many GPUs."""

    profile: MigProfile
    gpus: int
    """GPUs the instance spans: 1 for a partial profile, n whole-GPU profiles otherwise."""
    shared: bool
    """The instance takes part of one GPU, so others may share that GPU."""


@dataclass(frozen=True)
class Layout:
    """One valid way to partition a GPU into MIG instances."""

    placed: tuple[tuple[MigProfile, int], ...]
    """(profile, first memory slice) per GPU instance, ordered by start slice."""

    @property
    def config(self) -> str:
        """How the GPU is set up, e.g. ``MIG 3g.40gb@0 + 1g.10gb@4 + 1g.10gb@5``."""
        return "MIG " + " + ".join(f"{p.name}@{start}" for p, start in self.placed)

    def counts(self) -> Counter[str]:
        """GPU instances per profile name."""
        return Counter(p.name for p, _ in self.placed)


def _whole_profile(profiles: Sequence[MigProfile], model: GpuModel) -> MigProfile | None:
    """The profile taking every compute and memory slice (``7g.80gb``), if the catalog has one."""
    for profile in profiles:
        if (
            profile.compute_slices >= model.mig_compute_slices
            and profile.memory_slices >= model.mig_memory_slices
        ):
            return profile
    return None


def _ordered(profiles: Sequence[MigProfile]) -> list[MigProfile]:
    """Smallest first: fewest compute slices, then least memory, then name."""
    return sorted(profiles, key=lambda p: (p.compute_slices, p.memory_gib, p.name))


def profile_choice(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog
) -> ProfileChoice | str:
    """The MIG profile one instance of ``workload`` takes on ``model``, or why there is none.

    The smallest profile whose memory and compute share cover the instance, or whole-GPU
    profiles (one per GPU) for an instance of a GPU or more.
    """
    if not model.mig_capable:
        return f"{model.name} does not support MIG"
    profiles = _ordered(catalog.mig_profiles.get(model.name, ()))
    if not profiles or model.mig_compute_slices <= 0:
        return f"the catalog lists no MIG profiles for {model.name}"
    if workload.gpus < 1 - _TOLERANCE:
        for profile in profiles:
            share = profile.compute_slices / model.mig_compute_slices
            if (
                profile.memory_gib >= workload.memory_gib - _TOLERANCE
                and share >= workload.gpus - _TOLERANCE
            ):
                return ProfileChoice(profile, 1, shared=True)
    whole = _whole_profile(profiles, model)
    if whole is None:
        return f"the catalog lists no whole-GPU MIG profile for {model.name}"
    gpus = max(
        1,
        math.ceil(workload.gpus - _TOLERANCE),
        math.ceil((workload.memory_gib - _TOLERANCE) / whole.memory_gib),
    )
    return ProfileChoice(whole, gpus, shared=False)


def _choice_or_reason(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> ProfileChoice | str:
    """The profile choice for ``workload`` on ``model`` under vSphere or bare metal, or why
    there is none: MIG-backed vGPU VMs do not live-migrate and hold at most
    ``max_vgpus_per_vm`` GPU instances."""
    if workload.needs_live_migration:
        return LIVE_MIGRATION_REASON
    choice = profile_choice(workload, model, catalog)
    if isinstance(choice, str):
        return choice
    most = assumptions.vsphere_version.max_vgpus_per_vm
    if assumptions.mig_backed_vgpu and choice.gpus > most:
        return (
            f"needs {choice.gpus} MIG-backed vGPUs ({choice.profile.name}, one per GPU) but "
            f"vSphere {assumptions.vsphere_version.value} allows at most {most} vGPUs per VM"
        )
    return choice


def choose_profile(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> ProfileChoice | None:
    """The MIG profile (and GPU count) one instance of ``workload`` takes; None if not eligible."""
    choice = _choice_or_reason(workload, model, catalog, assumptions)
    return choice if isinstance(choice, ProfileChoice) else None


def layout_is_valid(placed: Sequence[tuple[MigProfile, int]], model: GpuModel) -> bool:
    """True when ``placed`` (profile, start slice) pairs can coexist on one GPU of ``model``.

    Rules: the model supports MIG; each profile is the model's; each start is one of the
    profile's placements and the instance ends within the GPU's memory slices; no memory slice is
    used twice; compute slices sum to at most the GPU's; no profile exceeds its per-GPU maximum.
    """
    if not model.mig_capable:
        return False
    used = 0  # bit i set: memory slice i is taken
    compute = 0
    counts: Counter[str] = Counter()
    for profile, start in placed:
        if profile.gpu_model != model.name or start not in profile.starts:
            return False
        if start < 0 or start + profile.memory_slices > model.mig_memory_slices:
            return False
        mask = ((1 << profile.memory_slices) - 1) << start
        if used & mask:
            return False
        used |= mask
        compute += profile.compute_slices
        counts[profile.name] += 1
        if counts[profile.name] > profile.max_per_gpu:
            return False
    return compute <= model.mig_compute_slices


def enumerate_layouts(profiles: Sequence[MigProfile], model: GpuModel) -> list[Layout]:
    """Every maximal valid layout of ``profiles`` on ``model``: no further placement fits.

    Depth-first search over the catalog's placements (profile, start), each taken at most once
    and in a fixed order, so each set is met once. Layouts come ordered by their config string.
    Results are cached per (profiles, model): the search takes ~50 ms on an 8-slice GPU.
    """
    return list(_maximal_layouts(tuple(profiles), model))


@functools.lru_cache(maxsize=256)
def _maximal_layouts(profiles: tuple[MigProfile, ...], model: GpuModel) -> tuple[Layout, ...]:
    placements = [
        (profile, start)
        for profile in _ordered(profiles)
        for start in sorted(profile.starts)
        if profile.gpu_model == model.name
    ]
    found: list[Layout] = []

    def fits(chosen: list[tuple[MigProfile, int]], candidate: tuple[MigProfile, int]) -> bool:
        return layout_is_valid([*chosen, candidate], model)

    def search(next_index: int, chosen: list[tuple[MigProfile, int]]) -> None:
        for index in range(next_index, len(placements)):
            if fits(chosen, placements[index]):
                chosen.append(placements[index])
                search(index + 1, chosen)
                chosen.pop()
        # Maximal: no placement at all (earlier ones included) can be added.
        if chosen and not any(fits(chosen, p) for p in placements if p not in chosen):
            found.append(Layout(tuple(sorted(chosen, key=lambda ps: (ps[1], ps[0].name)))))

    if model.mig_capable:
        search(0, [])
    return tuple(sorted(found, key=lambda layout: layout.config))


def _distinct_patterns(
    layouts: Sequence[Layout], names: Sequence[str]
) -> list[tuple[tuple[int, ...], Layout]]:
    """One layout per non-dominated count vector over ``names`` (first met wins)."""
    by_counts: dict[tuple[int, ...], Layout] = {}
    for layout in layouts:
        counts = layout.counts()
        by_counts.setdefault(tuple(counts[n] for n in names), layout)
    vectors = list(by_counts)
    kept = [
        v
        for v in vectors
        if any(v)
        and not any(w != v and all(a <= b for a, b in zip(v, w, strict=True)) for w in vectors)
    ]
    return [(v, by_counts[v]) for v in sorted(kept, reverse=True)]


_Demand = Demand[ProfileChoice, MigProfile]


Choose = Callable[[WorkloadClass], ProfileChoice | str]
"""A method's profile choice for a workload class on one model, or why it has none."""


def _group(instances: Sequence[Instance], choose: Choose) -> _Demand:
    """Instances per partial profile, whole-GPU instances apart, the ineligible NotPlaced."""
    return group_by_profile(
        instances, choose, lambda choice: choice.profile if choice.shared else None
    )


def _slot(instance: Instance, profile: MigProfile, model: GpuModel, start: int) -> Slot:
    return Slot(
        instance=instance.id,
        workload=instance.workload.name,
        profile=profile.name,
        memory_gib=profile.memory_gib,
        compute_share=profile.compute_slices / model.mig_compute_slices,
        start_slice=start,
    )


def _whole_requests(demand: _Demand, model: GpuModel) -> list[HostRequest]:
    requests = []
    configs: dict[str, str] = {}
    for instance, choice in demand.whole:
        config = configs.get(choice.profile.name)
        if config is None:
            config = configs[choice.profile.name] = Layout(((choice.profile, 0),)).config
        load = GpuLoad(
            gpu_model=model.name,
            config=config,
            slots=(_slot(instance, choice.profile, model, 0),),
        )
        requests.append(request_for(model.name, (load,) * choice.gpus, [instance]))
    return requests


def _hand_out(
    layouts: Sequence[tuple[Layout, int]],
    demand: _Demand,
    model: GpuModel,
    *,
    full_config: bool,
) -> list[HostRequest]:
    """Fill ``count`` GPUs of each layout with the grouped instances, in order.

    Each profile's instances go, in hand-out order, to that profile's slots GPU by GPU, so the
    most urgent instances share the first GPUs. GPUs left empty are dropped.
    """
    queues = {name: iter(queue) for name, queue in demand.shared.items()}
    share = {p.name: p.compute_slices / model.mig_compute_slices for p in demand.profiles.values()}
    # GPUs of one layout with the same instances filled share one config string.
    described: dict[tuple[int, tuple[int, ...]], str] = {}
    requests = []
    for index, (layout, count) in enumerate(layouts):
        for _ in range(count):
            slots: list[Slot] = []
            instances: list[Instance] = []
            positions: list[int] = []
            for position, (profile, start) in enumerate(layout.placed):
                queue = queues.get(profile.name)
                instance = next(queue, None) if queue is not None else None
                if instance is not None:
                    positions.append(position)
                    instances.append(instance)
                    slots.append(
                        Slot(
                            instance.id,
                            instance.workload.name,
                            profile.name,
                            profile.memory_gib,
                            share[profile.name],
                            start,
                        )
                    )
            if not slots:
                continue
            key = (index, tuple(positions))
            if key not in described:
                described[key] = (
                    layout.config
                    if full_config
                    else Layout(tuple(layout.placed[k] for k in positions)).config
                )
            load = GpuLoad(gpu_model=model.name, config=described[key], slots=tuple(slots))
            requests.append(request_for(model.name, (load,), instances))
    return requests


def _greedy_uses(
    patterns: Sequence[tuple[int, ...]], demand: Sequence[int], weights: Sequence[int]
) -> list[int]:
    """Largest-first greedy on counts.

    Take the largest profile still in demand; among the layouts, pick the one holding most of
    it, then the most remaining demand weighted by instance size; use it as many times as every
    profile it holds stays fully used (at least once). Repeat until all demand is held.
    """
    remaining = list(demand)
    uses = [0] * len(patterns)
    while any(remaining):
        largest = max((k for k, r in enumerate(remaining) if r), key=lambda k: (weights[k], -k))

        fit = [
            (
                min(pattern[largest], remaining[largest]),
                sum(min(a, r) * w for a, r, w in zip(pattern, remaining, weights, strict=True)),
                -index,
            )
            for index, pattern in enumerate(patterns)
        ]
        best = max(range(len(patterns)), key=fit.__getitem__)
        pattern = patterns[best]
        copies = max(
            1, min((r // a for a, r in zip(pattern, remaining, strict=True) if a), default=1)
        )
        uses[best] += copies
        remaining = [max(0, r - a * copies) for a, r in zip(pattern, remaining, strict=True)]
    return uses


def pack_profiles(
    instances: Sequence[Instance],
    model: GpuModel,
    choose: Choose,
    *,
    exact: bool,
    time_limit_s: float,
) -> GpuPacking:
    """Pack ``instances`` into MIG layouts of ``model``, each taking the profile ``choose`` gives.

    The pattern MILP over the distinct maximal layouts (``exact``, within its work limit), or
    the greedy largest-first cover, with the LP lower bound; OPTIMAL only when proven.
    """
    demand = _group(instances, choose)
    whole = _whole_requests(demand, model)
    whole_gpus = sum(len(r.loads) for r in whole)
    names = [p.name for p in _ordered([demand.profiles[n] for n in demand.shared])]
    if not names:
        return GpuPacking(
            requests=tuple(whole),
            not_placed=tuple(demand.not_placed),
            lower_bound_gpus=whole_gpus,
            status=SolveStatus.OPTIMAL,
        )
    profiles = [demand.profiles[n] for n in names]
    counts = [len(demand.shared[n]) for n in names]
    pattern_layouts = _distinct_patterns(enumerate_layouts(profiles, model), names)
    patterns = [v for v, _ in pattern_layouts]
    weights = [p.memory_slices * model.mig_compute_slices + p.compute_slices for p in profiles]

    layout_of = dict(pattern_layouts)

    def greedy(remaining: Sequence[int]) -> Contents:
        uses = _greedy_uses(patterns, remaining, weights)
        return tuple((p, n) for p, n in zip(patterns, uses, strict=True) if n)

    packing = pack_counts(patterns, counts, greedy, exact=exact, time_limit_s=time_limit_s)
    notes = [f"{counted(len(patterns), 'distinct maximal MIG layout')} considered", *packing.notes]
    lower, status = packing.lower_bound, packing.status
    requests = _hand_out(
        [(layout_of[vector], n) for vector, n in packing.contents],
        demand,
        model,
        full_config=False,
    )
    if len(requests) <= lower:
        # A GPU the cover left empty was dropped, and what remains meets the bound.
        status = SolveStatus.OPTIMAL
    return GpuPacking(
        requests=tuple(requests + whole),
        not_placed=tuple(demand.not_placed),
        lower_bound_gpus=lower + whole_gpus,
        status=status,
        notes=tuple(notes),
    )


def pack_with_layout(
    instances: Sequence[Instance],
    model: GpuModel,
    catalog: Catalog,
    assumptions: Assumptions,
    layout: Layout,
) -> GpuPacking:
    """Every shared GPU set up with the user's fixed ``layout``: GPUs = max over profiles of
    ``ceil(instances of the profile / its slots in the layout)``, which is optimal for that layout.

    Instances whose profile has no slot in the layout are NotPlaced, saying so. Whole-GPU
    instances still get whole GPUs.
    """
    if not layout_is_valid(layout.placed, model):
        raise ValueError(f"layout: '{layout.config}' is not a valid MIG layout on {model.name}")
    demand = _group(
        instances, lambda workload: _choice_or_reason(workload, model, catalog, assumptions)
    )
    slots = layout.counts()
    for name in [n for n in demand.shared if slots[n] == 0]:
        for instance in demand.shared.pop(name):
            demand.not_placed.append(
                NotPlaced(
                    instance.id,
                    instance.workload.name,
                    f"needs MIG profile {name}, which the fixed layout '{layout.config}' lacks",
                )
            )
    gpus = max((math.ceil(len(q) / slots[n]) for n, q in demand.shared.items()), default=0)
    requests = _hand_out([(layout, gpus)], demand, model, full_config=True)
    whole = _whole_requests(demand, model)
    used = len(requests) + sum(len(r.loads) for r in whole)
    return GpuPacking(
        requests=tuple(requests + whole),
        not_placed=tuple(demand.not_placed),
        lower_bound_gpus=used,
        status=SolveStatus.OPTIMAL,
        notes=(
            f"fixed MIG layout {layout.config} on every shared GPU; the GPU count is optimal "
            "for that layout, and free layouts (pack_exact) may need fewer",
        ),
    )


def layout_demand(workloads: Sequence[WorkloadClass], model: GpuModel, choose: Choose) -> GpuDemand:
    """One dimension per partial profile the classes take and one for whole-GPU profiles; a GPU
    is set up by one maximal layout of those profiles, or as one whole-GPU instance: exact at
    the GPU level."""
    choices = {w.name: choice for w in workloads if isinstance(choice := choose(w), ProfileChoice)}
    profiles = _ordered(list({c.profile for c in choices.values() if c.shared}))
    names = [p.name for p in profiles]
    whole = len(names)
    use: dict[str, tuple[float, ...]] = {}
    for name, choice in choices.items():
        row = [0.0] * (whole + 1)
        if choice.shared:
            row[names.index(choice.profile.name)] = 1.0
        else:
            row[whole] = float(choice.gpus)
        use[name] = tuple(row)
    vectors = [v for v, _ in _distinct_patterns(enumerate_layouts(profiles, model), names)]
    patterns = [(*(float(n) for n in v), 0.0) for v in vectors]
    patterns.append((*(0.0,) * whole, 1.0))
    return GpuDemand((*names, "whole-GPU instances"), use, tuple(patterns), exact=True)


def mig_problems(gpu: GpuView, plan: PlanContext) -> list[str]:
    """Valid starts, no overlapping memory slices, each instance's memory within its profile's,
    compute slices and per-profile maxima kept, and each GPU instance's ``compute_slices / GPU
    compute slices`` covers the instance's ``min(gpus, 1)``: MIG compute is dedicated, so a
    smaller slice cannot run it at its rate."""
    model = gpu.model
    profiles = {p.name: p for p in plan.catalog.mig_profiles.get(model.name, ())}
    problems: list[str] = []
    used_slices: dict[int, str] = {}
    compute = 0
    counts: Counter[str] = Counter()
    for row in sorted(gpu.placements, key=lambda r: (r.start_slice or 0, r.instance)):
        profile = profiles.get(row.profile)
        if profile is None:
            problems.append(f"{gpu.name} uses MIG profile {row.profile}, unknown on {model.name}")
            continue
        counts[profile.name] += 1
        compute += profile.compute_slices
        if row.memory_gib > profile.memory_gib + MEMORY_TOLERANCE_GIB:
            problems.append(
                f"{row.instance}: {profile.name} on {gpu.name} holds {row.memory_gib:g} GiB, "
                f"more than its {profile.memory_gib:g} GiB"
            )
        needed = min(plan.workload(row).gpus, 1.0)
        if model.mig_compute_slices > 0 and (
            profile.compute_slices / model.mig_compute_slices + _TOLERANCE < needed
        ):
            problems.append(
                f"{row.instance}: {profile.name} on {gpu.name} has "
                f"{profile.compute_slices}/{model.mig_compute_slices} of the compute but needs "
                f"{needed:g} GPU"
            )
        if row.start_slice is None or row.start_slice not in profile.starts:
            problems.append(
                f"{row.instance}: {profile.name} on {gpu.name} starts at slice "
                f"{row.start_slice}, allowed {', '.join(map(str, profile.starts))}"
            )
            continue
        end = row.start_slice + profile.memory_slices
        if end > model.mig_memory_slices:
            problems.append(
                f"{row.instance}: {profile.name} on {gpu.name} ends past memory slice "
                f"{model.mig_memory_slices - 1}"
            )
        for memory_slice in range(row.start_slice, end):
            if memory_slice in used_slices:
                problems.append(
                    f"{row.instance} and {used_slices[memory_slice]} overlap on memory slice "
                    f"{memory_slice} of {gpu.name}"
                )
            used_slices[memory_slice] = row.instance
    if compute > model.mig_compute_slices:
        problems.append(
            f"{gpu.name} uses {compute} compute slices but has {model.mig_compute_slices}"
        )
    for name, count in sorted(counts.items()):
        if count > profiles[name].max_per_gpu:
            problems.append(
                f"{gpu.name} holds {count} × {name}, at most {profiles[name].max_per_gpu} allowed"
            )
    return problems


def mig_room_usable(gpu: GpuView, plan: PlanContext) -> bool | None:
    """Whether some workload fits a MIG instance in the GPU's free slices; None if unknown.

    The free room is usable when a profile of the model can start at a free memory slice, its
    memory slices are all free, enough compute slices remain, and some workload's per-GPU memory
    and compute share fit the profile (NVIDIA's placement table, as ``catalog.mig_profiles``);
    a workload's memory and compute are split over the GPUs one instance holds.
    """
    model = gpu.model
    profiles = {p.name: p for p in plan.catalog.mig_profiles.get(model.name, ())}
    occupied: set[int] = set()
    compute_used = 0
    for placement in gpu.placements:
        profile = profiles.get(placement.profile)
        if profile is None or placement.start_slice is None:
            return None
        occupied.update(range(placement.start_slice, placement.start_slice + profile.memory_slices))
        compute_used += profile.compute_slices
    compute_free = model.mig_compute_slices - compute_used
    for profile in profiles.values():
        fits_slices = profile.compute_slices <= compute_free and any(
            occupied.isdisjoint(range(start, start + profile.memory_slices))
            for start in profile.starts
        )
        if fits_slices and any(
            w.memory_gib / plan.spans[w.name] <= profile.memory_gib
            and min(w.gpus / plan.spans[w.name], 1.0)
            <= profile.compute_slices / model.mig_compute_slices
            for w in plan.scenario.workloads
        ):
            return True
    return False


def mig_slowdown(asked_compute_share: float, instance_compute_share: float) -> float:
    """Runtime / bare metal on a MIG instance [-]: ``max(1, asked / given)`` compute share.

    Parameters: ``asked_compute_share`` share of a GPU the workload asked for [0-1];
    ``instance_compute_share`` compute slices of its instance over the GPU's [0-1]. More than
    asked is not counted as a speed-up; hardware isolation means no interference.
    """
    if instance_compute_share <= 0:
        return 1.0
    return max(1.0, asked_compute_share / instance_compute_share)


class Mig(SharingMethod):
    """MIG GPU instances: MIG-backed vGPU on vSphere, plain MIG on bare metal."""

    label = "MIG"
    platforms = frozenset({Platform.VSPHERE, Platform.BARE_METAL})
    # Pattern MILPs whose size depends on layouts, not instance counts.
    exact_max_instances = 100_000
    settings = ("mig_backed_vgpu", "vsphere_version", "licence_usd_per_gpu_year")
    slowdown_summary = "hardware-isolated slices; slower only with less compute than asked"

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        if not model.mig_capable:
            return f"{model.name} does not support MIG"
        if not host.mig_enabled:
            return "MIG mode is not enabled on the host"
        return None

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot use MIG on ``model``; None when it can.

        MIG isolates instances in hardware, so workloads needing isolation are eligible.
        """
        choice = _choice_or_reason(workload, model, catalog, assumptions)
        return choice if isinstance(choice, str) else None

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        choice = choose_profile(workload, model, catalog, assumptions)
        return 1 if choice is None else choice.gpus

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Greedy largest-first packing into best-fitting MIG layouts, with the LP lower bound.

        OPTIMAL when the GPU count meets the lower bound, HEURISTIC otherwise.
        """
        return pack_profiles(
            instances,
            model,
            lambda w: _choice_or_reason(w, model, catalog, assumptions),
            exact=False,
            time_limit_s=assumptions.time_limit_s,
        )

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Fewest GPUs: the pattern MILP over maximal layouts, bounded by the heuristic's answer.

        Falls back to the heuristic when the solver finds nothing better within
        its work limit; OPTIMAL only when proven.
        """
        return pack_profiles(
            instances,
            model,
            lambda w: _choice_or_reason(w, model, catalog, assumptions),
            exact=True,
            time_limit_s=assumptions.time_limit_s,
        )

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        return layout_demand(
            workloads, model, lambda w: _choice_or_reason(w, model, catalog, assumptions)
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """MIG's placement rules (``mig_problems``): its memory slices, not the gigabytes in
        the profiles' names, which NVIDIA rounds (two 3g.71gb fill a 141 GB H200)."""
        return mig_problems(gpu, plan)

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """A MIG-backed vGPU VM on vSphere holds at most ``max_vgpus_per_vm`` GPU instances."""
        host = plan.hosts.get(placements[0].host)
        if not plan.assumptions.mig_backed_vgpu or host is None:
            return []
        if host.platform is not Platform.VSPHERE:
            return []
        return vm_vgpu_count_problems(instance, len(placements), plan.assumptions.vsphere_version)

    def free_memory_usable(self, gpu: GpuView, plan: PlanContext) -> bool | None:
        return mig_room_usable(gpu, plan)

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        asked = min(plan.workload(placement).gpus, 1.0)
        return mig_slowdown(asked, placement.compute_share)

    def licence_usd_per_gpu_year(self, host: Host, assumptions: Assumptions) -> float:
        """MIG-backed vGPU on vSphere needs NVIDIA AI Enterprise per GPU; bare metal does not."""
        if assumptions.mig_backed_vgpu and host.platform is Platform.VSPHERE:
            return assumptions.licence_usd_per_gpu_year
        return 0.0

    def cost_notes(self, assumptions: Assumptions) -> tuple[str, ...]:
        if assumptions.mig_backed_vgpu:
            return ()
        return ("MIG without vGPU (bare-metal or container host): no vGPU licence charged.",)


MIG = Mig()
"""The MIG method, as the registry holds it."""
