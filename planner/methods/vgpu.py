"""NVIDIA vGPU with time-sliced C-series profiles: frame-buffer slices, compute shared in time.

Profile choice
    An instance takes the smallest C-series profile whose frame buffer holds its ``memory_gib``;
    under the fixed-share scheduler the profile's time share ``1 / max vGPUs per GPU`` must also
    cover its ``gpus``. An instance with ``gpus >= 1``, or whose memory no profile holds, takes
    ``max(ceil(gpus), ceil(memory / full profile memory))`` full-frame-buffer vGPUs, one per GPU,
    all on one host, and at most ``max_vgpus_per_vm`` of them (4 on vSphere 7, 8 on vSphere 8).
    Only full profiles are ever combined in one VM, which vSphere 7 requires and 8 allows.
    Capacities come from NVIDIA's maxima in the catalog, never from ``memory / profile size``.

Modes (``Assumptions.vgpu_mode``)
    equal-size
        One profile per GPU, at most ``max_equal`` vGPUs. GPUs needed per profile are
        ``ceil(n / max_equal)``: each GPU holds one profile and at most ``max_equal`` of it, so
        no packing does better, and chunking the instances in order achieves it (optimal).
    host-equal
        As equal-size per GPU, and partial profiles of one size per *host* (VMware's 2020
        guidance): each request carries ``host_group`` = its profile so host assignment keeps
        sizes apart. Full profiles carry no group.
    mixed-size
        Several profiles on one GPU, frame buffers summing to at most the GPU's memory and each
        profile at most ``max_mixed``: bin packing. Exact: the pattern MILP of
        :mod:`planner.solve.milp` over the maximal feasible profile multisets. Heuristic: best-fit
        decreasing, run on counts (identical instances are interchangeable).

Time slicing shares the GPU's engines, so workloads that need hardware isolation are not
eligible. vGPU VMs support vMotion. Every GPU used needs an NVIDIA AI Enterprise licence; the
``config`` strings (``vGPU 16C x5``, ``vGPU 16C x2 + 8C x3``) name each GPU's set-up for costing.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from planner.assumptions import Assumptions, VgpuMode, VgpuScheduler, VsphereVersion
from planner.inputs.catalog import Catalog, GpuModel, VgpuProfile
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.grouping import Demand, group_by_profile, request_for
from planner.plan import GpuLoad, GpuPacking, HostRequest, Slot, SolveStatus
from planner.solve.milp import Contents, pack_counts

__all__ = [
    "ProfileChoice",
    "choose_profile",
    "ineligible_reason",
    "max_per_gpu",
    "mixed_patterns",
    "pack_exact",
    "pack_heuristic",
]

_TOLERANCE = 1e-9
"""Float noise allowed when comparing memory [GiB] and time shares [-]."""

ISOLATION_REASON = (
    "time-sliced vGPU shares the GPU's engines among VMs, so it gives no hardware isolation, "
    "and the workload needs isolation (use MIG or passthrough)"
)


@dataclass(frozen=True)
class ProfileChoice:
    """The vGPU profile one instance takes, and how many vGPUs (one per GPU)."""

    profile: VgpuProfile
    vgpus: int
    """vGPUs the VM holds: 1, or n full-frame-buffer vGPUs on n GPUs of one host."""


def max_per_gpu(profile: VgpuProfile, mode: VgpuMode) -> int:
    """vGPUs of ``profile`` one GPU may hold in ``mode`` (NVIDIA's table, from the catalog)."""
    return profile.max_mixed if mode is VgpuMode.MIXED_SIZE else profile.max_equal


def _choice_or_reason(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> ProfileChoice | str:
    """The profile choice for ``workload`` on ``model``, or why there is none."""
    if not model.vgpu_capable:
        return f"{model.name} has no NVIDIA AI Enterprise C-series vGPU profiles"
    profiles = sorted(
        catalog.vgpu_profiles.get(model.name, ()), key=lambda p: (p.memory_gib, p.name)
    )
    if not profiles:
        return f"the catalog lists no C-series vGPU profiles for {model.name}"
    if workload.needs_isolation:
        return ISOLATION_REASON
    mode = assumptions.vgpu_mode
    if mode is VgpuMode.MIXED_SIZE and assumptions.vsphere_version is VsphereVersion.V7:
        return (
            "mixed-size vGPU needs vGPU 17 and vSphere 8.0 U3 or later; the plan assumes vSphere 7"
        )
    fixed_share = assumptions.vgpu_scheduler is VgpuScheduler.FIXED_SHARE
    if workload.gpus < 1 - _TOLERANCE:
        for profile in profiles:
            share = 1 / max_per_gpu(profile, mode)
            if profile.memory_gib >= workload.memory_gib - _TOLERANCE and (
                not fixed_share or share >= workload.gpus - _TOLERANCE
            ):
                return ProfileChoice(profile, 1)
    full = max((p for p in profiles if p.is_full), key=lambda p: p.memory_gib, default=None)
    if full is None:
        return f"the catalog lists no full-frame-buffer vGPU profile for {model.name}"
    vgpus = max(
        1,
        math.ceil(workload.gpus - _TOLERANCE),
        math.ceil((workload.memory_gib - _TOLERANCE) / full.memory_gib),
    )
    most = assumptions.vsphere_version.max_vgpus_per_vm
    if vgpus > most:
        return (
            f"needs {vgpus} vGPUs ({full.name}, one per GPU) but vSphere "
            f"{assumptions.vsphere_version.value} allows at most {most} vGPUs per VM"
        )
    return ProfileChoice(full, vgpus)


def choose_profile(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> ProfileChoice | None:
    """The vGPU profile (and vGPU count) an instance of ``workload`` takes; None if ineligible."""
    choice = _choice_or_reason(workload, model, catalog, assumptions)
    return choice if isinstance(choice, ProfileChoice) else None


def ineligible_reason(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> str | None:
    """Why ``workload`` cannot use time-sliced vGPU on ``model``; None when it can."""
    choice = _choice_or_reason(workload, model, catalog, assumptions)
    return choice if isinstance(choice, str) else None


def mixed_patterns(profiles: Sequence[VgpuProfile], model: GpuModel) -> list[tuple[int, ...]]:
    """Every maximal multiset of ``profiles`` one GPU may hold in mixed-size mode.

    A multiset (one count per profile, in the order given) is feasible when its frame buffers sum
    to at most the GPU's memory and no profile exceeds ``max_mixed``; maximal when no profile can
    be added. Any feasible multiset is contained in a maximal one, so covering with these loses
    nothing. Ordered largest count vector first. Cached per (profiles, model): all nine H200
    profiles give 5,875 sets in ~80 ms.
    """
    return list(_maximal_sets(tuple(profiles), model))


@functools.lru_cache(maxsize=256)
def _maximal_sets(
    profiles: tuple[VgpuProfile, ...], model: GpuModel
) -> tuple[tuple[int, ...], ...]:
    found: list[tuple[int, ...]] = []
    counts = [0] * len(profiles)

    def fits(index: int, free_gib: float) -> bool:
        profile = profiles[index]
        return counts[index] < profile.max_mixed and profile.memory_gib <= free_gib + _TOLERANCE

    def search(index: int, free_gib: float) -> None:
        if index == len(profiles):
            if any(counts) and not any(fits(i, free_gib) for i in range(len(profiles))):
                found.append(tuple(counts))
            return
        profile = profiles[index]
        most = min(profile.max_mixed, math.floor((free_gib + _TOLERANCE) / profile.memory_gib))
        for n in range(most, -1, -1):
            counts[index] = n
            search(index + 1, free_gib - n * profile.memory_gib)
        counts[index] = 0

    search(0, model.memory_gib)
    return tuple(sorted(found, reverse=True))


_Demand = Demand[ProfileChoice, VgpuProfile]


def _group(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> _Demand:
    """Single-vGPU instances per profile, multi-vGPU instances apart, the ineligible NotPlaced."""
    return group_by_profile(
        instances,
        lambda workload: _choice_or_reason(workload, model, catalog, assumptions),
        lambda choice: choice.profile if choice.vgpus == 1 else None,
    )


def _compute_share(profile: VgpuProfile, assumptions: Assumptions) -> float:
    """Compute reserved per vGPU: all of it for a full profile, ``1 / max`` under fixed share,
    none otherwise (best effort and equal share let vGPUs contend for time slices)."""
    most = max_per_gpu(profile, assumptions.vgpu_mode)
    if most == 1:
        return 1.0
    if assumptions.vgpu_scheduler is VgpuScheduler.FIXED_SHARE:
        return 1 / most
    return 0.0


def _slot(instance: Instance, profile: VgpuProfile, assumptions: Assumptions) -> Slot:
    return Slot(
        instance=instance.id,
        workload=instance.workload.name,
        profile=profile.name,
        memory_gib=profile.memory_gib,
        compute_share=_compute_share(profile, assumptions),
    )


def _config(counts: Sequence[tuple[VgpuProfile, int]]) -> str:
    """``vGPU 16C x5`` or ``vGPU 16C x2 + 8C x3``, largest profile first."""
    parts = sorted(((p, n) for p, n in counts if n), key=lambda pn: (-pn[0].memory_gib, pn[0].name))
    return "vGPU " + " + ".join(f"{p.name} x{n}" for p, n in parts)


def _multi_requests(
    demand: _Demand, model: GpuModel, assumptions: Assumptions
) -> list[HostRequest]:
    requests = []
    for instance, choice in demand.whole:
        load = GpuLoad(
            gpu_model=model.name,
            config=_config([(choice.profile, 1)]),
            slots=(_slot(instance, choice.profile, assumptions),),
        )
        requests.append(request_for(model.name, (load,) * choice.vgpus, [instance]))
    return requests


def _hand_out(
    patterns: Sequence[tuple[tuple[int, ...], int]],
    names: Sequence[str],
    demand: _Demand,
    model: GpuModel,
    assumptions: Assumptions,
) -> list[HostRequest]:
    """Fill ``count`` GPUs of each pattern with the grouped instances, in order.

    Each profile's instances go, in hand-out order, to that profile's slots GPU by GPU, so the
    most urgent instances share the first GPUs. GPUs left empty are dropped.
    """
    profiles = [demand.profiles[n] for n in names]
    queues = [demand.shared[n] for n in names]
    shares = [_compute_share(p, assumptions) for p in profiles]
    taken = [0] * len(names)
    host_equal = assumptions.vgpu_mode is VgpuMode.HOST_EQUAL
    # GPUs with the same occupancy share one config string and host group.
    described: dict[tuple[int, ...], tuple[str, str]] = {}
    requests = []
    for pattern, count in patterns:
        for _ in range(count):
            slots: list[Slot] = []
            instances: list[Instance] = []
            occupancy = []
            for k, room in enumerate(pattern):
                chunk = queues[k][taken[k] : taken[k] + room]
                taken[k] += len(chunk)
                occupancy.append(len(chunk))
                profile = profiles[k]
                instances.extend(chunk)
                slots.extend(
                    Slot(i.id, i.workload.name, profile.name, profile.memory_gib, shares[k])
                    for i in chunk
                )
            if not slots:
                continue
            key = tuple(occupancy)
            if key not in described:
                partial = [
                    p.name for p, n in zip(profiles, key, strict=True) if n and not p.is_full
                ]
                described[key] = (
                    _config(list(zip(profiles, key, strict=True))),
                    # Host-equal mode: partial profiles of one size per host.
                    partial[0] if host_equal and partial else "",
                )
            config, host_group = described[key]
            load = GpuLoad(gpu_model=model.name, config=config, slots=tuple(slots))
            requests.append(request_for(model.name, (load,), instances, host_group=host_group))
    return requests


def _best_fit_decreasing(
    profiles: Sequence[VgpuProfile], counts: Sequence[int], model: GpuModel
) -> Contents:
    """Best-fit decreasing on counts: GPUs per content vector.

    Instances go largest profile first, each into the fullest GPU it fits (least free memory,
    its profile below ``max_mixed``), else a new GPU. Identical instances are interchangeable, so
    the GPUs are tracked as (content vector -> how many GPUs hold it): a GPU that takes an
    instance stays the best fit until it is full, so whole groups fill in one step.
    """
    groups: dict[tuple[int, ...], int] = {}

    def free_gib(content: tuple[int, ...]) -> float:
        return model.memory_gib - sum(
            n * p.memory_gib for n, p in zip(content, profiles, strict=True)
        )

    def room(content: tuple[int, ...], k: int) -> int:
        """Instances of profile k one more GPU with ``content`` can still take."""
        by_memory = math.floor((free_gib(content) + _TOLERANCE) / profiles[k].memory_gib)
        return max(0, min(profiles[k].max_mixed - content[k], by_memory))

    def add(content: tuple[int, ...], k: int, n: int, gpus: int) -> None:
        grown = tuple(c + n if i == k else c for i, c in enumerate(content))
        groups[grown] = groups.get(grown, 0) + gpus

    order = sorted(range(len(profiles)), key=lambda k: (-profiles[k].memory_gib, profiles[k].name))
    for k in order:
        left = counts[k]
        while left:
            fitting = [c for c in groups if room(c, k)]
            if fitting:
                content = min(fitting, key=lambda c: (free_gib(c), c))
                gpus, each = groups.pop(content), room(content, k)
            else:
                content, gpus = (
                    (0,) * len(profiles),
                    math.ceil(left / room((0,) * len(profiles), k)),
                )
                each = room(content, k)
            full, rest = divmod(min(left, gpus * each), each)
            if full:
                add(content, k, each, full)
            if rest:
                add(content, k, rest, 1)
            untouched = gpus - full - (1 if rest else 0)
            if untouched:
                groups[content] = groups.get(content, 0) + untouched
            left -= full * each + rest
    return tuple(sorted(groups.items(), reverse=True))


def _pack_mixed(
    demand: _Demand, model: GpuModel, assumptions: Assumptions, *, exact: bool
) -> tuple[list[HostRequest], int, SolveStatus, list[str]]:
    names = sorted(demand.shared, key=lambda n: (-demand.profiles[n].memory_gib, n))
    profiles = [demand.profiles[n] for n in names]
    counts = [len(demand.shared[n]) for n in names]
    patterns = mixed_patterns(profiles, model)
    packing = pack_counts(
        patterns,
        counts,
        lambda remaining: _best_fit_decreasing(profiles, remaining, model),
        exact=exact,
        time_limit_s=assumptions.time_limit_s,
    )
    notes = [f"{len(patterns)} maximal mixed-size profile sets considered", *packing.notes]
    lower, status, chosen = packing.lower_bound, packing.status, packing.contents
    requests = _hand_out(chosen, names, demand, model, assumptions)
    if len(requests) <= lower:
        # A GPU the cover left empty was dropped, and what remains meets the bound.
        status = SolveStatus.OPTIMAL
    return requests, lower, status, notes


def _pack_equal(
    demand: _Demand, model: GpuModel, assumptions: Assumptions
) -> tuple[list[HostRequest], int, SolveStatus, list[str]]:
    names = sorted(demand.shared, key=lambda n: (-demand.profiles[n].memory_gib, n))
    chosen: list[tuple[tuple[int, ...], int]] = []
    for k, name in enumerate(names):
        n = len(demand.shared[name])
        most = demand.profiles[name].max_equal
        # ceil(n / most) GPUs of this profile: full ones, then one holding the rest.
        one_profile = [0] * len(names)
        one_profile[k] = most
        chosen.append((tuple(one_profile), math.ceil(n / most)))
    requests = _hand_out(chosen, names, demand, model, assumptions)
    return requests, len(requests), SolveStatus.OPTIMAL, []


def _pack(
    instances: Sequence[Instance],
    model: GpuModel,
    catalog: Catalog,
    assumptions: Assumptions,
    *,
    exact: bool,
) -> GpuPacking:
    demand = _group(instances, model, catalog, assumptions)
    multi = _multi_requests(demand, model, assumptions)
    multi_gpus = sum(len(r.loads) for r in multi)
    if assumptions.vgpu_mode is VgpuMode.MIXED_SIZE and demand.shared:
        requests, lower, status, notes = _pack_mixed(demand, model, assumptions, exact=exact)
    else:
        requests, lower, status, notes = _pack_equal(demand, model, assumptions)
    return GpuPacking(
        requests=tuple(requests + multi),
        not_placed=tuple(demand.not_placed),
        lower_bound_gpus=lower + multi_gpus,
        status=status,
        notes=(f"vGPU {assumptions.vgpu_mode.value} mode", *notes),
    )


def pack_heuristic(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """Pack on counts: equal-size and host-equal modes are optimal by construction; mixed-size
    uses best-fit decreasing with the LP lower bound (OPTIMAL when it meets the bound)."""
    return _pack(instances, model, catalog, assumptions, exact=False)


def pack_exact(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """Fewest GPUs: mixed-size mode solves the pattern MILP over maximal profile sets, bounded
    by best-fit decreasing and falling back to it when the solver finds nothing better within
    ``assumptions.time_limit_s``; the other modes are already optimal."""
    return _pack(instances, model, catalog, assumptions, exact=True)
