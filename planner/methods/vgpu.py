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
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from planner.assumptions import Assumptions, VgpuMode, VgpuScheduler, VsphereVersion
from planner.inputs.catalog import Catalog, GpuModel, VgpuProfile
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass, WorkloadKind
from planner.methods.contract import GpuDemand, GpuView, PlanContext, SharingMethod
from planner.methods.grouping import Demand, group_by_profile, request_for
from planner.methods.slowdown_model import (
    ModelConstant,
    any_busy,
    co_tenant_demands,
    gpu_work_floor,
)
from planner.plan import GpuLoad, GpuPacking, HostRequest, Placement, Slot, SolveStatus
from planner.solve.milp import Contents, pack_counts

__all__ = [
    "VGPU",
    "VGPU_LOAD_PENALTY",
    "VGPU_OVERHEAD",
    "ProfileChoice",
    "Vgpu",
    "choose_profile",
    "max_per_gpu",
    "mixed_patterns",
    "vgpu_slowdown",
    "vm_vgpu_count_problems",
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
                if not room:
                    occupancy.append(0)
                    continue
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


_COLFAX = "Colfax Research 2024, A30 split four ways under vGPU time slicing"

VGPU_OVERHEAD = 1.0 / 0.972
"""Uncontended vGPU runtime / bare metal: VMware MLPerf v1.1 inference ran at 94.4–100 % of bare
metal; the midpoint 97.2 % is used for every kind, as no other public figure exists."""

VGPU_LOAD_PENALTY: Mapping[WorkloadKind, float] = MappingProxyType(
    {
        WorkloadKind.TRAINING: 0.05,
        WorkloadKind.BATCH: 0.05,
        WorkloadKind.INFERENCE: 0.20,
        WorkloadKind.VDI: 0.20,
        WorkloadKind.NOTEBOOK: 2.0,
    }
)
"""Extra runtime while a co-resident vGPU is busy [-]: large matrix work ~5 %, memory-bound work
~20 % (memory bandwidth), small interactive kernels several (here 3) times slower (Colfax)."""

_VGPU_LOAD_SOURCES: Mapping[WorkloadKind, tuple[str, bool]] = MappingProxyType(
    {
        WorkloadKind.TRAINING: (f"{_COLFAX}: ~5 % on large matrix work", False),
        WorkloadKind.BATCH: (f"{_COLFAX}: ~5 % on large matrix work", False),
        WorkloadKind.INFERENCE: (f"{_COLFAX}: ~20 % of memory bandwidth (memory-bound)", False),
        WorkloadKind.VDI: (f"planner guess: VDI taken as memory-bound, ~20 % ({_COLFAX})", True),
        WorkloadKind.NOTEBOOK: (
            f"planner guess: small kernels 'several times' slower, 3× chosen ({_COLFAX})",
            True,
        ),
    }
)
"""Source of each kind's vGPU load penalty, and whether the figure is the team's guess."""

_OVERHEAD = ModelConstant(
    "vgpu_overhead",
    VGPU_OVERHEAD,
    "runtime ratio",
    "VMware MLPerf Inference v1.1 on vGPU: 94.4–100 % of bare metal (midpoint)",
    "vGPU runtime over bare metal with no contention (1 = none; never below 1)",
    minimum=1.0,
)
_LOAD_PENALTIES: Mapping[WorkloadKind, ModelConstant] = MappingProxyType(
    {
        kind: ModelConstant(
            f"vgpu_load_penalty_{kind.value}",
            penalty,
            "fraction of runtime",
            _VGPU_LOAD_SOURCES[kind][0],
            f"extra {kind.value} runtime while a co-resident vGPU is busy",
            is_guess=_VGPU_LOAD_SOURCES[kind][1],
        )
        for kind, penalty in VGPU_LOAD_PENALTY.items()
    }
)
_NO_OVERRIDES: Mapping[str, float] = MappingProxyType({})


def vgpu_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    *,
    asked_compute_share: float = 1.0,
    scheduler: VgpuScheduler = VgpuScheduler.BEST_EFFORT,
    fixed_slots: float = 1.0,
    own_busy: float = 1.0,
    co_demand: Sequence[float] | None = None,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal of a time-sliced vGPU [-].

    ``s = max(o_vgpu × max(1, g × share) × (1 + λ_kind × p), g × b + Σ_j D_j)``, where
    ``o_vgpu`` is the vGPU overhead with no contention, ``p = 1 − Π_j (1 − d_j)`` the chance that
    some co-resident is busy while this instance runs, ``λ_kind`` the extra cost of time slicing
    under load, and ``1 / share`` the part of the GPU's time it gets: best effort ``share = 1 +
    Σ_j d_j`` (idle slots go to busy vGPUs), equal share ``n`` (resident vGPUs), fixed share the
    profile's max per GPU. The second term is physics (``gpu_work_floor``): the GPU delivers at
    most one GPU of work, so when the busy demand on it (``g × b`` of this instance, ``D_j =
    g_j × d_j`` of each co-resident) passes 1, the instance runs at least that many times slower.

    Parameters: ``kind`` the workload kind; ``co_busy`` each co-resident's busy share while
    this instance runs [0-1]; ``asked_compute_share`` share of a GPU the workload asked for
    [0-1]; ``scheduler`` NVIDIA's time-slice scheduler; ``fixed_slots`` the vGPUs of this profile
    one GPU can hold (fixed share gives ``1 / fixed_slots`` of the time); ``own_busy`` the
    instance's busy share of its active time [0-1]; ``co_demand`` GPUs of work each co-resident
    asks while this one runs (whole-GPU vGPUs, ``co_busy``, when not given) [GPUs];
    ``performance_constants`` overrides by name (``ValueError`` if one is out of range).
    """
    if scheduler is VgpuScheduler.BEST_EFFORT:
        share = 1.0 + sum(co_busy)
    elif scheduler is VgpuScheduler.EQUAL_SHARE:
        share = 1.0 + len(co_busy)
    else:
        share = max(1.0, fixed_slots)
    contention = max(1.0, asked_compute_share * share)
    overhead = _OVERHEAD.in_use(performance_constants)
    penalty = _LOAD_PENALTIES[kind].in_use(performance_constants)
    modelled = overhead * contention * (1.0 + penalty * any_busy(co_busy))
    demands = co_busy if co_demand is None else co_demand
    return max(modelled, gpu_work_floor(asked_compute_share * own_busy, demands))


class Vgpu(SharingMethod):
    """NVIDIA vGPU with time-sliced C-series profiles on vSphere."""

    label = "vGPU (time-sliced)"
    work_floor = True
    platforms = frozenset({Platform.VSPHERE})
    # Pattern MILPs whose size depends on profiles, not instance counts.
    exact_max_instances = 100_000
    settings = ("vgpu_mode", "vgpu_scheduler", "vsphere_version", "licence_usd_per_gpu_year")
    constants = (_OVERHEAD, *_LOAD_PENALTIES.values())
    slowdown_summary = "time-sliced with co-resident vGPUs"

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        if not model.vgpu_capable:
            return f"{model.name} has no C-series vGPU profiles"
        return None

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot use time-sliced vGPU on ``model``; None when it can."""
        choice = _choice_or_reason(workload, model, catalog, assumptions)
        return choice if isinstance(choice, str) else None

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        choice = choose_profile(workload, model, catalog, assumptions)
        return 1 if choice is None else choice.vgpus

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Pack on counts: equal-size and host-equal modes are optimal by construction;
        mixed-size uses best-fit decreasing with the LP lower bound (OPTIMAL when it meets the
        bound)."""
        return _pack(instances, model, catalog, assumptions, exact=False)

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Fewest GPUs: mixed-size mode solves the pattern MILP over maximal profile sets,
        bounded by best-fit decreasing and falling back to it when the solver finds nothing
        better within its work limit; the other modes are already optimal."""
        return _pack(instances, model, catalog, assumptions, exact=True)

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """One dimension per single-vGPU profile and one for full profiles combined in one VM;
        a GPU holds one profile up to NVIDIA's equal-size maximum, or (mixed-size mode) any
        maximal profile set: exact at the GPU level."""
        choices = {
            w.name: choice
            for w in workloads
            if isinstance(
                choice := _choice_or_reason(w, model, catalog, assumptions), ProfileChoice
            )
        }
        profiles = sorted(
            {c.profile for c in choices.values() if c.vgpus == 1},
            key=lambda p: (-p.memory_gib, p.name),
        )
        names = [p.name for p in profiles]
        whole = len(names)
        use: dict[str, tuple[float, ...]] = {}
        for name, choice in choices.items():
            row = [0.0] * (whole + 1)
            if choice.vgpus == 1:
                row[names.index(choice.profile.name)] = 1.0
            else:
                row[whole] = float(choice.vgpus)
            use[name] = tuple(row)
        if assumptions.vgpu_mode is VgpuMode.MIXED_SIZE:
            sets = [tuple(float(n) for n in s) for s in mixed_patterns(profiles, model)]
        else:
            sets = [
                tuple(float(p.max_equal) if k == i else 0.0 for k in range(whole))
                for i, p in enumerate(profiles)
            ]
        patterns = [(*s, 0.0) for s in sets]
        patterns.append((*(0.0,) * whole, 1.0))
        return GpuDemand((*names, "full vGPUs of one VM"), use, tuple(patterns), exact=True)

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """Profiles exist; equal-size GPUs hold one profile within NVIDIA's maximum (which may
        exceed the frame buffer on paper: H100 16C allows 6 per GPU); mixed-size GPUs keep each
        profile's mixed maximum and the frame buffer; the fixed-share scheduler's time share
        covers each instance's compute."""
        mode = plan.assumptions.vgpu_mode
        problems = super().gpu_problems(gpu, plan) if mode is VgpuMode.MIXED_SIZE else []
        problems += _profile_problems(gpu, mode, plan)
        problems += _fixed_share_problems(gpu, plan)
        return problems

    def host_problems(self, host: Host, gpus: Sequence[GpuView], plan: PlanContext) -> list[str]:
        """Host-equal mode (VMware's 2020 guidance): partial profiles of one size per host."""
        if plan.assumptions.vgpu_mode is not VgpuMode.HOST_EQUAL:
            return []
        sizes: set[float] = set()
        for gpu in gpus:
            profiles = _profiles_by_name(plan.catalog, gpu.model.name)
            for placement in gpu.placements:
                profile = profiles.get(placement.profile)
                if profile is not None and not profile.is_full:
                    sizes.add(profile.memory_gib)
        if len(sizes) <= 1:
            return []
        shown = ", ".join(f"{s:g} GiB" for s in sorted(sizes))
        return [f"host {host.name} mixes partial vGPU profile sizes {shown} in host-equal mode"]

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """One VM holds at most ``max_vgpus_per_vm`` vGPUs (4 on vSphere 7, 8 on vSphere 8) and,
        on vSphere 7, combines full-frame-buffer profiles only."""
        if len(placements) <= 1:
            return []
        version = plan.assumptions.vsphere_version
        problems = vm_vgpu_count_problems(instance, len(placements), version)
        if version is VsphereVersion.V7:
            partial = sorted(
                {
                    p.profile
                    for p in placements
                    if not _profiles_by_name(plan.catalog, p.gpu_model)
                    .get(p.profile, _FULL)
                    .is_full
                }
            )
            if partial:
                problems.append(
                    f"{instance} combines {len(placements)} vGPUs including partial profile "
                    f"{', '.join(partial)}, but vSphere 7 combines full-frame-buffer profiles only"
                )
        return problems

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        workload = plan.workload(placement)
        others = [plan.workload(r) for r in gpu.placements if r.instance != placement.instance]
        co_busy, co_demand = co_tenant_demands(workload, others)
        return vgpu_slowdown(
            workload.kind,
            co_busy,
            asked_compute_share=min(workload.gpus, 1.0),
            scheduler=plan.assumptions.vgpu_scheduler,
            fixed_slots=_fixed_share_slots(placement, plan),
            own_busy=workload.busy_fraction,
            co_demand=co_demand,
            performance_constants=plan.assumptions.performance_constants,
        )

    def slowdown_note(self, assumptions: Assumptions) -> str:
        return f"{self.slowdown_summary} ({assumptions.vgpu_scheduler.value} scheduler)"

    def licence_usd_per_gpu_year(self, host: Host, assumptions: Assumptions) -> float:
        """NVIDIA AI Enterprise per GPU in use."""
        return assumptions.licence_usd_per_gpu_year


VGPU = Vgpu()
"""The time-sliced vGPU method, as the registry holds it."""

_FULL = VgpuProfile("", "", 0.0, 1, 1, False, "")
"""Stands in for an unknown profile (reported elsewhere), counted as full."""


def _profiles_by_name(catalog: Catalog, gpu_model: str) -> dict[str, VgpuProfile]:
    return {p.name: p for p in catalog.vgpu_profiles.get(gpu_model, ())}


def _is_full(placement: Placement, catalog: Catalog) -> bool:
    """Whether the placement's vGPU profile is full-frame-buffer (unknown profiles are reported
    elsewhere, so they count as full here)."""
    return _profiles_by_name(catalog, placement.gpu_model).get(placement.profile, _FULL).is_full


def vm_vgpu_count_problems(instance: str, vgpus: int, version: VsphereVersion) -> list[str]:
    """One VM holds at most ``max_vgpus_per_vm`` vGPUs (MIG-backed ones included)."""
    most = version.max_vgpus_per_vm
    if vgpus <= most:
        return []
    return [
        f"{instance} holds {vgpus} vGPUs in one VM but vSphere {version.value} allows at most "
        f"{most}"
    ]


def _profile_problems(gpu: GpuView, mode: VgpuMode, plan: PlanContext) -> list[str]:
    """Profiles exist; equal-size GPUs hold one profile within its maximum; mixed maxima hold."""
    profiles = _profiles_by_name(plan.catalog, gpu.model.name)
    counts = Counter(p.profile for p in gpu.placements)
    unknown = [
        f"{gpu.name} uses vGPU profile {name}, unknown on {gpu.model.name}"
        for name in sorted(counts)
        if name not in profiles
    ]
    if unknown:
        return unknown
    if mode is VgpuMode.MIXED_SIZE:
        return [
            f"{gpu.name} holds {count} × {name} but mixed-size mode allows "
            f"{profiles[name].max_mixed}"
            for name, count in sorted(counts.items())
            if count > profiles[name].max_mixed
        ]
    if len(counts) > 1:
        return [f"{gpu.name} mixes profiles {', '.join(sorted(counts))} in {mode.value} mode"]
    name, count = next(iter(counts.items()))
    if count > profiles[name].max_equal:
        return [
            f"{gpu.name} holds {count} × {name} but NVIDIA allows "
            f"{profiles[name].max_equal} per GPU"
        ]
    return []


def _fixed_share_problems(gpu: GpuView, plan: PlanContext) -> list[str]:
    """Fixed share gives each vGPU ``1 / max per GPU`` of the GPU's time (the equal or mixed
    maximum, by mode); that share must cover the instance's ``min(gpus, 1)``. Best effort and
    equal share reserve no compute, so they have nothing to cover."""
    assumptions = plan.assumptions
    if assumptions.vgpu_scheduler is not VgpuScheduler.FIXED_SHARE:
        return []
    profiles = _profiles_by_name(plan.catalog, gpu.model.name)
    problems: list[str] = []
    for placement in gpu.placements:
        profile = profiles.get(placement.profile)
        if profile is None:
            continue  # reported as an unknown profile
        most = max_per_gpu(profile, assumptions.vgpu_mode)
        needed = min(plan.workload(placement).gpus, 1.0)
        if 1 / most + _TOLERANCE < needed:
            problems.append(
                f"{placement.instance}: {profile.name} on {gpu.name} gets 1/{most} of the GPU "
                f"under the fixed-share scheduler but needs {needed:g} GPU of compute"
            )
    return problems


def _fixed_share_slots(placement: Placement, plan: PlanContext) -> float:
    """Time slots of the fixed-share scheduler: the profile's max vGPUs per GPU (NVIDIA's table,
    mixed-size maxima in mixed-size mode), else GPU memory over the profile's memory."""
    profile = _profiles_by_name(plan.catalog, placement.gpu_model).get(placement.profile)
    if profile is not None:
        return float(max_per_gpu(profile, plan.assumptions.vgpu_mode))
    gpu_memory = plan.catalog.gpus[placement.gpu_model].memory_gib
    if placement.memory_gib <= 0:
        return 1.0
    return float(math.floor(gpu_memory / placement.memory_gib + _TOLERANCE))
