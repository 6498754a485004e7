"""Remote pool: GPUs on GPU servers shared over the network, held only while a workload runs.

Modelled on VMware Bitfusion, which pooled passthrough GPUs of GPU servers and handed client VMs
on any host an arbitrary fraction of a GPU's memory over the network. Bitfusion reached end of
availability in 2023; the method is named "remote pool" here because GPU-over-IP products carry
the same idea on.

Rules:

- Unit: a fraction of one GPU's memory, ``memory / GPU memory`` (one third and two thirds of the
  same GPU are fine); compute is not partitioned, it is contended. An instance with
  ``gpus >= 1`` (or more memory than one GPU) takes whole GPUs, all from one server.
- Time: a partition is taken when the application starts and released when it exits, so a GPU's
  memory need only hold, in every hour of the day, the instances active in that hour. Instance
  ``i`` (0-based) of a class of ``n`` is active in hour ``h`` when ``i < round(share[h] × n)``
  (half rounds up), which turns the class's ``daily_schedule`` shares into concrete instances.
- Client VMs run on any host, so requests carry no CPU or RAM onto the GPU servers.
- Not eligible for a workload that needs hardware isolation, one that is not latency tolerant
  (the user's word on it), or a VDI desktop (the pool forwards CUDA calls, not a display). The
  network (VMware recommends at most ``MAX_LATENCY_US`` with RDMA) sets the slowdown, in
  ``planner.measure.performance``, not eligibility.

Heuristic: best fit decreasing over (hour, memory) vectors; instances with equal vectors are
placed together, each batch filling the tightest GPUs that still hold it, so it scales to
fleets of thousands of GPUs. Exact: a small MILP (``scipy.optimize.milp``). Multi-GPU instances
are packed as *gangs* of whole GPUs that share over time only with instances of the same size.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from planner.assumptions import Assumptions, Network
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.platform import Platform
from planner.inputs.workloads import HOURS_PER_DAY, Instance, WorkloadClass, WorkloadKind
from planner.methods.contract import (
    MEMORY_TOLERANCE_GIB,
    GpuDemand,
    GpuMemory,
    GpuView,
    PlanContext,
    RoleScope,
    SharingMethod,
)
from planner.methods.passthrough import whole_gpus
from planner.methods.slowdown_model import (
    SEED_BUSY_FRACTION,
    SEED_JOBS,
    SEED_SLOWDOWN,
    ModelConstant,
    co_tenant_demands,
    gpu_work_floor,
)
from planner.plan import GpuLoad, GpuPacking, HostRequest, NotPlaced, Placement, Slot, SolveStatus
from planner.solve.bounds import DFF_MAX_K, dual_feasible, vector_bound
from planner.solve.milp import SolverLimits, min_bins

__all__ = [
    "CONFIG",
    "MAX_LATENCY_US",
    "NETWORK_OVERHEAD",
    "PROFILE_SHARE",
    "PROFILE_WHOLE",
    "REMOTE_POOL",
    "UNITS_PER_GIB",
    "RemotePool",
    "active_hours",
    "busiest_hour_gib",
    "capacity_units",
    "gpus_per_instance",
    "instance_index",
    "remote_pool_slowdown",
    "share_units",
]

CONFIG = "pool"
"""``GpuLoad.config`` of a pooled GPU."""
PROFILE_SHARE = "share"
"""``Slot.profile`` of a fraction of one GPU's memory."""
PROFILE_WHOLE = "whole GPU"
"""``Slot.profile`` of an instance holding whole GPUs while it runs."""
MAX_LATENCY_US = 50.0
"""VMware's recommended maximum client-to-server round-trip latency [µs]."""
UNITS_PER_GIB = 1024 * 1024
"""Memory is packed in whole KiB, so sums stay exact integers (a third of 48 GiB is 16 GiB)."""

_NOTES = (
    "Remote pool: client VMs run on any host, so GPU servers carry no client CPU or RAM here.",
    "Remote pool: GPU memory is held only in the hours an instance runs; instance i of n is "
    "active in hour h when i < round(share[h] × n).",
)


def instance_index(instance_id: str) -> int:
    """0-based index of an instance in its class, from its id ``workload#n``."""
    return int(instance_id.rsplit("#", 1)[1]) - 1


def active_hours(workload: WorkloadClass, index: int) -> tuple[bool, ...]:
    """Hours of the day (0-23) in which instance ``index`` (0-based) of ``workload`` runs."""
    return tuple(
        index < active for active in _active_counts(workload.instances, workload.daily_schedule)
    )


@functools.lru_cache(maxsize=4096)
def _active_counts(instances: int, schedule: tuple[float, ...]) -> tuple[int, ...]:
    """Instances of a class of ``instances`` active in each hour: ``round(share[h] × n)``, half
    up. Cached on the schedule alone: hashing a whole class on every call costs more."""
    return tuple(math.floor(share * instances + 0.5) for share in schedule)


def gpus_per_instance(workload: WorkloadClass, model: GpuModel) -> int:
    """Whole GPUs an instance takes, or 0 when it takes a fraction of one GPU."""
    if workload.gpus < 1.0 and workload.memory_gib <= model.memory_gib:
        return 0
    return whole_gpus(workload, model)


def capacity_units(model: GpuModel) -> int:
    """Memory of one GPU of ``model`` [KiB]."""
    return round(model.memory_gib * UNITS_PER_GIB)


def share_units(workload: WorkloadClass, model: GpuModel) -> int:
    """Memory one instance holds on one GPU while it runs [KiB], rounded up; at least 1 KiB."""
    capacity = capacity_units(model)
    if gpus_per_instance(workload, model):
        return capacity
    share = math.ceil(workload.memory_gib * UNITS_PER_GIB - 1e-6)
    return min(capacity, max(1, share))


def _ineligible_reason(workload: WorkloadClass) -> str | None:
    """Why ``workload`` cannot use a remote pool; None when it can."""
    if workload.needs_isolation:
        return "the remote pool shares GPUs without hardware isolation, which the workload needs"
    if workload.kind is WorkloadKind.VDI:
        # The pool forwards CUDA calls; a desktop needs a display GPU in its own host.
        return "a remote pool serves CUDA applications, not virtual desktops' graphics"
    if not workload.latency_tolerant:
        return (
            "the workload does not tolerate GPU access over the network "
            "(set latency_tolerant = yes if it does)"
        )
    return None


@dataclass(frozen=True)
class _Item:
    """One instance as the packer sees it: its memory per hour on each GPU it takes."""

    instance: Instance
    gpus: int
    """1 for a share or a single whole GPU; k >= 2 for a gang of k whole GPUs."""
    hourly: tuple[int, ...]
    """Memory held per GPU in each hour [KiB]."""


def _items(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> tuple[list[_Item], list[NotPlaced]]:
    items: list[_Item] = []
    not_placed: list[NotPlaced] = []
    for instance in instances:
        workload = instance.workload
        reason = _ineligible_reason(workload)
        if reason is not None:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
            continue
        size = share_units(workload, model)
        hours = active_hours(workload, instance_index(instance.id))
        items.append(
            _Item(
                instance=instance,
                gpus=max(1, gpus_per_instance(workload, model)),
                hourly=tuple(size if on else 0 for on in hours),
            )
        )
    return items, not_placed


def _best_fit(vectors: Sequence[tuple[int, ...]], capacity: int) -> list[int]:
    """Bin index per vector: best fit decreasing, equal vectors placed as one batch.

    Batches go largest first (peak, then total). A batch fills the open bins that hold at
    least one copy, tightest first (least free capacity left in the batch's active hours),
    each taking as many copies as it holds; the rest open new bins.
    """
    if not vectors:
        return []
    batches: dict[tuple[int, ...], list[int]] = {}
    for index, vector in enumerate(vectors):
        batches.setdefault(vector, []).append(index)
    order = sorted(batches, key=lambda v: (-max(v), -sum(v), batches[v][0]))
    bins = _Bins(np.zeros((len(vectors), HOURS_PER_DAY), dtype=np.int64), [0] * len(vectors))
    for vector in order:
        if any(vector):
            bins.place(np.asarray(vector, dtype=np.int64), batches[vector], capacity)
    idle = [m for v in order if not any(v) for m in batches[v]]
    if idle:
        # Instances that never run hold nothing; they join the first bin (one is opened if none).
        bins.opened = max(bins.opened, 1)
        for m in idle:
            bins.where[m] = 0
    return bins.where


@dataclass
class _Bins:
    """Best fit's state: each bin's hourly load, the bin of each vector, bins opened."""

    loads: np.ndarray
    where: list[int]
    opened: int = 0

    def place(self, size: np.ndarray, members: Sequence[int], capacity: int) -> None:
        """Copies of one vector: into the tightest open bins that hold one, then new bins."""
        cursor = 0
        for b, copies in self._ranked(size, capacity):
            if cursor >= len(members):
                break
            cursor += self._put(b, size, members[cursor : cursor + copies])
        per_bin = capacity // int(size.max())
        while cursor < len(members):
            self.opened += 1
            cursor += self._put(self.opened - 1, size, members[cursor : cursor + per_bin])

    def _ranked(self, size: np.ndarray, capacity: int) -> list[tuple[int, int]]:
        """Open bins holding at least one copy, tightest first, with the copies each holds."""
        if not self.opened:
            return []
        active = size > 0
        free = capacity - self.loads[: self.opened][:, active]
        copies = (free // size[active]).min(axis=1)
        tightness = free.sum(axis=1)
        candidates = np.flatnonzero(copies > 0)
        ranked = candidates[np.lexsort((candidates, tightness[candidates]))]
        return [(int(b), int(copies[b])) for b in ranked.tolist()]

    def _put(self, b: int, size: np.ndarray, members: Sequence[int]) -> int:
        for m in members:
            self.where[m] = b
        self.loads[b] += size * len(members)
        return len(members)


def _compute_shares(members: Sequence[_Item], gpus: int) -> list[float]:
    """Share of the pooled GPU's compute each member gets when every tenant active in the same
    hour is busy [0-1].

    Compute is contended, not partitioned: member ``i`` asks ``g_i = min(1, gpus_i / gpus)`` of
    each GPU, and in an hour whose active tenants ask more than one GPU in all, each gets its ask
    scaled down by that sum (the GPU delivers one GPU of work). The share is the member's worst
    hour among those it is active in; a member that never runs asks nothing.
    """
    asks = [min(1.0, item.instance.workload.gpus / gpus) for item in members]
    # Asks of the tenants active in each hour, summed in member order.
    asked = [0.0] * HOURS_PER_DAY
    for item, ask in zip(members, asks, strict=True):
        for h, held in enumerate(item.hourly):
            if held:
                asked[h] += ask
    shares = []
    for item, ask in zip(members, asks, strict=True):
        busiest = max((asked[h] for h, held in enumerate(item.hourly) if held), default=None)
        shares.append(0.0 if busiest is None else ask / max(1.0, busiest))
    return shares


def _requests(
    items: Sequence[_Item], bins: Sequence[int], model: GpuModel, gpus: int
) -> list[HostRequest]:
    """One request per bin: one pooled GPU, or a gang of ``gpus`` whole GPUs on one server."""
    members: dict[int, list[_Item]] = {}
    for item, b in zip(items, bins, strict=True):
        members.setdefault(b, []).append(item)
    requests = []
    for b in sorted(members):
        shares = _compute_shares(members[b], gpus)
        slots = tuple(
            Slot(
                instance=item.instance.id,
                workload=item.instance.workload.name,
                profile=PROFILE_WHOLE
                if gpus_per_instance(item.instance.workload, model)
                else PROFILE_SHARE,
                memory_gib=min(model.memory_gib, item.instance.workload.memory_gib / gpus),
                compute_share=share,
            )
            for item, share in zip(members[b], shares, strict=True)
        )
        load = GpuLoad(gpu_model=model.name, config=CONFIG, slots=slots)
        requests.append(
            HostRequest(
                gpu_model=model.name,
                loads=(load,) * gpus,
                cpu_cores=0.0,
                ram_gib=0.0,
                priority=min(item.instance.workload.priority for item in members[b]),
            )
        )
    return requests


def _lower_bound(items: Sequence[_Item], model: GpuModel) -> int:
    """Per-hour Martello-Toth bound with each gang counted as its whole GPUs: holds for any plan."""
    rows = [item.hourly for item in items for _ in range(item.gpus)]
    return vector_bound(rows, capacity_units(model))


def _groups(items: Sequence[_Item]) -> dict[int, list[_Item]]:
    """Items by GPUs per instance: shares and single GPUs (1), then gangs of 2, 3, ..."""
    grouped: dict[int, list[_Item]] = {}
    for item in items:
        grouped.setdefault(item.gpus, []).append(item)
    return dict(sorted(grouped.items()))


def _packing(
    requests: list[HostRequest],
    not_placed: list[NotPlaced],
    bound: int,
    status: SolveStatus,
    network: Network,
) -> GpuPacking:
    used = sum(len(r.loads) for r in requests)
    if used == bound:
        status = SolveStatus.OPTIMAL
    return GpuPacking(
        requests=tuple(requests),
        not_placed=tuple(not_placed),
        lower_bound_gpus=bound,
        status=status,
        notes=_NOTES
        + (
            ("Remote pool: multi-GPU instances share whole GPUs over time only with instances "
             "of the same GPU count.",)
            if any(r for r in requests if len(r.loads) > 1)
            else ()
        )
        + _network_note(network),
    )  # fmt: skip


def _network_note(network: Network) -> tuple[str, ...]:
    """A warning when the network is worse than VMware's recommendation for a remote pool."""
    if network.latency_us <= MAX_LATENCY_US and network.rdma:
        return ()
    transport = "with RDMA" if network.rdma else "without RDMA"
    return (
        f"Remote pool: the network ({network.latency_us:g} µs {transport}) is worse than "
        f"VMware's recommendation (at most {MAX_LATENCY_US:g} µs with RDMA); the slowdowns "
        "grow with it, and interactive or chatty workloads may time out.",
    )


def _pack_heuristic(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """Best fit decreasing over (hour, memory) vectors; see the module docstring."""
    items, not_placed = _items(instances, model, catalog, assumptions)
    requests: list[HostRequest] = []
    for gpus, group in _groups(items).items():
        bins = _best_fit([item.hourly for item in group], capacity_units(model))
        requests.extend(_requests(group, bins, model, gpus))
    return _packing(
        requests, not_placed, _lower_bound(items, model), SolveStatus.HEURISTIC, assumptions.network
    )


_EXACT_MAX_CELLS = 2_000
"""Items x GPUs of the largest group the MILP packs [-]: beyond it HiGHS can spend minutes in
the root node, where no node limit applies, so best fit stands (a size rule, so reproducible)."""


def _exact_bins(
    vectors: Sequence[tuple[int, ...]], capacity: int, upper_bound: int, time_limit_s: float
) -> tuple[list[int], bool] | None:
    """Fewest GPUs for the hourly vectors (:func:`planner.solve.milp.min_bins`): the GPU of each
    item and whether that is proven optimal, or None when the solver has no packing (or its
    packing breaks a capacity once read back in integers)."""
    hours = [h for h in range(HOURS_PER_DAY) if any(v[h] for v in vectors)]
    packed = min_bins(
        [[v[h] / capacity for h in hours] for v in vectors],
        [1.0] * len(hours),
        upper_bound=upper_bound,
        limits=SolverLimits(time_limit_s=time_limit_s),
    )
    if packed is None:
        return None
    loads = np.zeros((upper_bound, HOURS_PER_DAY), dtype=np.int64)
    for i, b in enumerate(packed.bins):
        loads[b] += np.asarray(vectors[i], dtype=np.int64)
    if (loads > capacity).any():
        return None  # the solver's tolerance let a bin overflow in integers; keep the heuristic
    return list(packed.bins), packed.proven


def _pack_exact(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """The fewest GPUs by MILP per group of equal GPU count, each solve within its work limit.

    Proven optimal when every group solves to optimality and there are no gangs (gangs are
    kept apart from shares, a restriction of the model), or when the GPUs equal the bound.
    """
    items, not_placed = _items(instances, model, catalog, assumptions)
    requests: list[HostRequest] = []
    proven = True
    limited = False
    groups = _groups(items)
    for gpus, group in groups.items():
        vectors = [item.hourly for item in group]
        heuristic = _best_fit(vectors, capacity_units(model))
        upper = max(heuristic) + 1
        bins = heuristic
        if any(any(v) for v in vectors) and len(vectors) * upper <= _EXACT_MAX_CELLS:
            solved = _exact_bins(vectors, capacity_units(model), upper, assumptions.time_limit_s)
            if solved is None:
                proven, limited = False, True
            else:
                where, optimal = solved
                if len(set(where)) <= upper:
                    bins = [sorted(set(where)).index(b) for b in where]
                proven = proven and optimal
                limited = limited or not optimal
        else:
            proven = proven and not any(any(v) for v in vectors)
        requests.extend(_requests(group, bins, model, gpus))
    if any(gpus > 1 for gpus in groups):
        proven = False
    if proven:
        status = SolveStatus.OPTIMAL
    elif limited:
        status = SolveStatus.LIMIT_REACHED
    else:
        status = SolveStatus.HEURISTIC
    bound = _lower_bound(items, model)
    if status is SolveStatus.OPTIMAL:
        bound = sum(len(r.loads) for r in requests)
    return _packing(requests, not_placed, bound, status, assumptions.network)


_DEFAULT = "planner guess (no public figure; edit to match your measurements)"
_SEED = (
    "VMware seed slide (2019): one GPU shared by several mostly idle jobs, 2.5–3× the work of "
    "one such job per GPU, each ~17 % slower"
)

NETWORK_OVERHEAD: Mapping[WorkloadKind, float] = MappingProxyType(
    {
        WorkloadKind.TRAINING: 0.05,
        WorkloadKind.BATCH: 0.05,
        WorkloadKind.INFERENCE: 0.15,
        WorkloadKind.NOTEBOOK: 0.10,
        WorkloadKind.VDI: 0.50,
    }
)
"""Remote-pool runtime added per 20 µs of RDMA latency [-], by how often the kind talks to the
GPU: large batched kernels little, request-sized inference and VDI frames much (defaults)."""

REFERENCE_LATENCY_US = 20.0
"""Latency at which ``NETWORK_OVERHEAD`` holds [µs] (VMware recommends at most 50 µs)."""

NO_RDMA_FACTOR = 2.0
"""Multiplier on the network overhead over TCP instead of RDMA/PVRDMA [-] (a default)."""

_NETWORK_OVERHEADS: Mapping[WorkloadKind, ModelConstant] = MappingProxyType(
    {
        kind: ModelConstant(
            f"network_overhead_{kind.value}",
            overhead,
            "fraction of runtime per reference latency",
            _DEFAULT,
            f"remote-pool runtime added to {kind.value} work per reference latency of RDMA",
            is_guess=True,
        )
        for kind, overhead in NETWORK_OVERHEAD.items()
    }
)
_REFERENCE_LATENCY = ModelConstant(
    "reference_latency",
    REFERENCE_LATENCY_US,
    "µs",
    "VMware Bitfusion guidance: ≤ 50 µs, RDMA/PVRDMA recommended",
    "latency at which the network overheads hold (at least 1 µs, an RDMA round trip)",
    minimum=1.0,
)
_NO_RDMA = ModelConstant(
    "no_rdma_factor",
    NO_RDMA_FACTOR,
    "multiplier",
    _DEFAULT,
    "network overhead over TCP relative to RDMA (TCP is never faster: at least 1)",
    is_guess=True,
    minimum=1.0,
)


def _seed_interference(training_network_overhead: float) -> float:
    """κ such that ``SEED_JOBS`` whole-GPU training jobs, each ``SEED_BUSY_FRACTION`` busy, on
    one GPU over RDMA at the reference latency run ``SEED_SLOWDOWN`` slower, given the training
    network overhead ``ν`` [-].

    Each job meets ``(n − 1) × b`` GPUs of co-tenant demand, so ``o_net × (1 + κ (n − 1) b) = s``
    with ``o_net = 1 + ν`` gives ``κ = (s / o_net − 1) / ((n − 1) b)``; a network overhead that
    alone exceeds the seed slowdown leaves no room for contention, so ``κ`` stops at 0. The seed
    jobs ask ``n × b = 0.9`` GPUs of work, under one GPU, so the work floor does not bind there.
    """
    network = 1.0 + training_network_overhead
    return max(0.0, (SEED_SLOWDOWN / network - 1.0) / ((SEED_JOBS - 1) * SEED_BUSY_FRACTION))


REMOTE_INTERFERENCE = _seed_interference(NETWORK_OVERHEAD[WorkloadKind.TRAINING])
"""κ: runtime a tenant loses per GPU of co-tenant busy demand on its pooled GPU [-]."""

_INTERFERENCE = ModelConstant(
    "remote_interference",
    REMOTE_INTERFERENCE,
    "runtime fraction per GPU of co-tenant busy demand",
    _SEED + "; calibrated for three training jobs each ~30 % busy (the busy share is a guess: "
    "the slide does not state it)",
    "κ: how much a pooled GPU's co-tenants delay a tenant, per GPU of their busy demand (0-1); "
    "unless set, recalibrated to the seed slide from the training network overhead in use",
    is_guess=True,
    maximum=1.0,
    derived=lambda overrides: _seed_interference(
        _NETWORK_OVERHEADS[WorkloadKind.TRAINING].in_use(overrides)
    ),
)
_NO_OVERRIDES: Mapping[str, float] = MappingProxyType({})


def remote_pool_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    network: Network,
    *,
    asked_compute_share: float = 1.0,
    own_busy: float = 1.0,
    co_demand: Sequence[float] | None = None,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal through a remote GPU pool [-].

    ``s = max(o_net × max(1, g × (1 + κ × Σ_j D_j)), g × b + Σ_j D_j)`` with ``o_net = 1 +
    ν_kind × (latency / 20 µs) × (1 if RDMA else τ)`` and ``D_j = g_j × d_j`` the GPUs of work
    co-tenant ``j`` asks while this instance runs. Compute is shared, not time-sliced per
    client, so only the part ``κ`` of a co-tenant's busy demand delays this one; ``κ`` is
    calibrated at the seed slide's point: three whole-GPU training jobs, each ~30 % busy, on one
    GPU over 20 µs RDMA each run ~17 % slower (together ~2.5× the work of one such job per
    GPU). The second term is physics (``gpu_work_floor``): a GPU delivers at most one GPU of
    work, so three always-busy jobs on one GPU each run at least 3× slower.

    Parameters: ``kind`` the workload kind; ``co_busy`` each co-tenant's busy share while this
    instance runs [0-1]; ``network`` latency [µs] and RDMA between client and GPU server;
    ``asked_compute_share`` share of a GPU the workload asked for [0-1]; ``own_busy`` the
    instance's own busy share of its active time [0-1]; ``co_demand`` GPUs of work each
    co-tenant asks while this one runs (whole-GPU jobs, ``co_busy``, when not given) [GPUs];
    ``performance_constants`` overrides by name (``ValueError`` if one is out of range).
    """
    overrides = performance_constants
    transport = 1.0 if network.rdma else _NO_RDMA.in_use(overrides)
    latency = network.latency_us / _REFERENCE_LATENCY.in_use(overrides)
    overhead = 1.0 + _NETWORK_OVERHEADS[kind].in_use(overrides) * latency * transport
    interference = _INTERFERENCE.in_use(overrides)
    demands = co_busy if co_demand is None else co_demand
    contended = overhead * max(1.0, asked_compute_share * (1.0 + interference * sum(demands)))
    return max(contended, gpu_work_floor(asked_compute_share * own_busy, demands))


def busiest_hour_gib(held: Iterable[tuple[str, WorkloadClass, float]]) -> float:
    """Memory held in the busiest hour of the day [GiB], from (instance, workload, GiB) rows."""
    hourly = [0.0] * HOURS_PER_DAY
    for instance, workload, gib in held:
        for hour, active in enumerate(active_hours(workload, instance_index(instance))):
            if active:
                hourly[hour] += gib
    return max(hourly)


REMOTE_POOL_LICENCE_NOTE = (
    "Remote-pool software is not costed: VMware Bitfusion reached end of availability in 2023, "
    "and today's GPU-over-IP products carry their own licence; add it to the total."
)


class RemotePool(SharingMethod):
    """GPU servers whose GPUs are shared over the network, held only while a workload runs."""

    label = "Remote pool"
    scope = RoleScope.HOST
    platforms = frozenset({Platform.VSPHERE, Platform.BARE_METAL})
    # The exact model has a variable per instance and GPU.
    exact_max_instances = 300
    instances_on_gpu_host = False
    serves_idlest_first = True
    settings = ("network",)
    constants = (
        *_NETWORK_OVERHEADS.values(),
        _REFERENCE_LATENCY,
        _NO_RDMA,
        _INTERFERENCE,
    )
    slowdown_summary = (
        "network overhead plus contention with co-tenants; never faster than the GPU's one GPU "
        "of work allows"
    )
    map_note = (
        "Remote pool: capacity is held only while a workload runs, so instances active at "
        "different hours can share the same memory and a GPU's blocks may add up to more than "
        "its memory."
    )

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot use a remote pool of ``model`` GPUs; None when it can."""
        return _ineligible_reason(workload)

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        return max(1, gpus_per_instance(workload, model))

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Best fit decreasing over (hour, memory) vectors; see the module docstring."""
        return _pack_heuristic(instances, model, catalog, assumptions)

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """The fewest GPUs by MILP per group of equal GPU count, each within its work limit."""
        return _pack_exact(instances, model, catalog, assumptions)

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """One dimension per hour of the day: an instance uses its share of a GPU's memory (whole
        GPUs for a gang) times the share of its class active in that hour; a GPU offers all of
        its memory in every hour. A relaxation: it lets shares of a GPU be cut finer than
        instances, and ``resting`` lets a bound hand the pool a class's least active instances
        (``use`` spreads the activity evenly, as a plan is built). The same hours again with
        each share rounded by a dual feasible function, once per ``k`` instances of one class
        that fit on a GPU (``DFF_MAX_K``), tighten it where shares cannot be cut: five 17 GiB
        instances on 48 GiB GPUs need three, not two."""
        capacity = capacity_units(model)
        eligible = [w for w in workloads if _ineligible_reason(w) is None]
        sizes: dict[str, float] = {}
        fit: dict[str, int] = {}  # instances per GPU when placed whole
        for w in eligible:
            gpus = gpus_per_instance(w, model)
            share = share_units(w, model)
            sizes[w.name] = float(gpus) if gpus else share / capacity
            fit[w.name] = 0 if gpus else max(capacity // max(share, 1), 1)
        rounded = sorted({min(k, DFF_MAX_K) for k in fit.values() if k})
        use: dict[str, tuple[float, ...]] = {}
        packed: dict[str, tuple[float, ...]] = {}
        resting: dict[str, tuple[int, ...]] = {}
        while_active: dict[str, tuple[float, ...]] = {}
        for w in eligible:
            size = sizes[w.name]
            # Placed whole, an instance takes 1/k of a GPU when k of its size fit on one.
            whole = 1.0 / fit[w.name] if fit[w.name] else size
            counts = _active_counts(w.instances, w.daily_schedule)
            # A class of no instances is active in no hour: its shares are all 0.
            active = [n / w.instances if w.instances else 0.0 for n in counts]
            shares = (size, *(dual_feasible(size, k) if fit[w.name] else size for k in rounded))
            use[w.name] = tuple(z * a for z in shares for a in active)
            # Whole instances per GPU imply the rounded rows (k of them fit: k u(x) <= 1): a
            # plan needs none.
            placed = (whole, *(0.0 for _ in rounded))
            packed[w.name] = tuple(z * a for z in placed for a in active)
            resting[w.name] = tuple(w.instances - n for _ in shares for n in counts)
            while_active[w.name] = tuple(z for z in shares for _ in counts)
        hours = tuple(
            f"memory in hour {h}{'' if k == 0 else f' (rounded, k={k})'}"
            for k in (0, *rounded)
            for h in range(HOURS_PER_DAY)
        )
        return GpuDemand(
            hours,
            use,
            ((1.0,) * len(hours),),
            exact=False,
            packed=packed,
            resting=resting,
            while_active=while_active,
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """In every hour, the instances running on a pooled GPU fit in its memory; a whole-GPU
        slot holds the GPU's full memory while its instance runs."""
        model = gpu.model
        held = [0.0] * HOURS_PER_DAY
        for row in gpu.placements:
            hours = active_hours(plan.workload(row), instance_index(row.instance))
            size = model.memory_gib if row.profile == PROFILE_WHOLE else row.memory_gib
            for hour, on in enumerate(hours):
                if on:
                    held[hour] += size
        return [
            f"{gpu.name} holds {held[hour]:g} GiB in hour {hour} but a {model.name} has "
            f"{model.memory_gib:g} GiB"
            for hour in range(HOURS_PER_DAY)
            if held[hour] > model.memory_gib + MEMORY_TOLERANCE_GIB
        ]

    def gpu_memory(self, gpu: GpuView, plan: PlanContext) -> GpuMemory:
        """The pool holds memory only while an instance runs: reservations and use in the GPU's
        busiest hour, within the frame buffer by the per-hour rule."""
        reserved = busiest_hour_gib(
            (p.instance, plan.workload(p), p.memory_gib) for p in gpu.placements
        )
        used = busiest_hour_gib(
            (p.instance, plan.workload(p), plan.memory_per_gpu_gib(p)) for p in gpu.placements
        )
        return GpuMemory(capacity_gib=gpu.model.memory_gib, reserved_gib=reserved, used_gib=used)

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        workload = plan.workload(placement)
        others = [plan.workload(r) for r in gpu.placements if r.instance != placement.instance]
        co_busy, co_demand = co_tenant_demands(workload, others)
        network = plan.assumptions.network
        if not gpu.host.rdma:
            # The GPU server's own NIC decides too: RDMA end to end needs it on both sides.
            network = dataclasses.replace(network, rdma=False)
        return remote_pool_slowdown(
            workload.kind,
            co_busy,
            network,
            asked_compute_share=min(workload.gpus, 1.0),
            own_busy=workload.busy_fraction,
            co_demand=co_demand,
            performance_constants=plan.assumptions.performance_constants,
        )

    def network_usd_per_host_year(self, assumptions: Assumptions) -> float:
        """NIC, switch port and optics per GPU server."""
        return assumptions.network.usd_per_server_year

    def cost_notes(self, assumptions: Assumptions) -> tuple[str, ...]:
        return (REMOTE_POOL_LICENCE_NOTE,)


REMOTE_POOL = RemotePool()
"""The remote-pool method, as the registry holds it."""
