"""How well a plan uses its GPUs: counts, memory and compute utilisation, stranded capacity."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadClass
from planner.methods.remote_pool import active_hours, instance_index
from planner.plan import Method, MethodPlan, Placement
from planner.scenario import Scenario

__all__ = [
    "GpuKey",
    "GpuMemory",
    "PlanMetrics",
    "busy_gpu_share",
    "gpu_compute_utilisation",
    "gpu_memory",
    "gpus_held",
    "hosts_of",
    "measure",
    "placements_by_gpu",
]

DAYS_PER_WEEK = 7

GpuKey = tuple[str, int]
"""(host name, 0-based GPU index in the host): one physical GPU."""


@dataclass(frozen=True)
class PlanMetrics:
    """What one method's plan uses and how well it uses it."""

    gpus_used: int
    """GPUs holding at least one instance [GPUs]."""
    hosts_used: int
    """Hosts with at least one GPU in use [hosts]."""
    gpus_available: int
    """GPUs in the hosts the plan could use (inventory, or the hosts opened when sizing) [GPUs]."""
    instances_placed: int
    """Instances placed on some GPU [instances]."""
    instances_not_placed: int
    """Instances the plan could not place [instances]."""
    memory_capacity_gib: float
    """Memory of the GPUs in use, each counted as ``max(frame buffer, memory reserved on it)``
    [GiB]: NVIDIA's vGPU maxima oversubscribe the frame buffer on paper (six 16 GiB H100 16C
    vGPUs on an 80 GiB GPU), and a utilisation above 1 would misstate the plan."""
    memory_allocated_gib: float
    """Frame buffer reserved for instances: whole GPUs, profiles, MIG instances, shares [GiB]."""
    memory_used_gib: float
    """GPU memory the placed instances themselves ask for [GiB]; for the remote pool, in its
    busiest hour, since the pool holds memory only while an instance runs."""
    memory_utilisation: float
    """``memory_used_gib / memory_capacity_gib`` [0-1]; 0 when no GPU is in use."""
    compute_utilisation: float
    """Busy GPU-hours over available GPU-hours of the GPUs in use, averaged over a week [0-1]."""
    stranded_memory_gib: float
    """Memory on GPUs in use that no instance can use [GiB]: reserved beyond an instance's need,
    held whole by passthrough, free but smaller than any workload's per-GPU request, or (MIG)
    free slices where no profile a workload fits can be placed."""
    stranded_gpus: int
    """Free GPUs on hosts whose spare cores or RAM cannot take any workload's instance [GPUs]."""
    lower_bound_gpus: int
    """No packing of the placed instances uses fewer GPUs [GPUs]."""
    ratio_to_bound: float | None
    """``gpus_used / lower_bound_gpus`` [-]: 1.0 is provably optimal; None when the bound is 0."""


def hosts_of(plan: MethodPlan, scenario: Scenario) -> tuple[Host, ...]:
    """The hosts a plan could use: those it carries, else the scenario's inventory."""
    return plan.hosts if plan.hosts else scenario.inventory.hosts


def placements_by_gpu(plan: MethodPlan) -> dict[GpuKey, list[Placement]]:
    """Placements grouped by the physical GPU they sit on, in plan order."""
    groups: dict[GpuKey, list[Placement]] = defaultdict(list)
    for placement in plan.placements:
        groups[(placement.host, placement.gpu_index)].append(placement)
    return dict(groups)


@dataclass(frozen=True)
class GpuMemory:
    """Memory of one GPU in use: what it has, what is reserved on it, what instances ask."""

    capacity_gib: float
    """``max(frame buffer, reserved_gib)`` [GiB]; the remote pool's per-hour rule keeps its
    reservations within the frame buffer, so there it is the frame buffer."""
    reserved_gib: float
    """Frame buffer reserved for the instances on this GPU [GiB]; for the remote pool, in the
    GPU's busiest hour."""
    used_gib: float
    """The instances' own memory on this GPU, each instance's ``memory_gib`` split evenly over
    the GPUs it holds [GiB]; for the remote pool, in the GPU's busiest hour."""

    @property
    def utilisation(self) -> float:
        """``used_gib / capacity_gib`` [0-1]; 0 for a GPU without memory."""
        return self.used_gib / self.capacity_gib if self.capacity_gib > 0 else 0.0


def gpus_held(plan: MethodPlan) -> dict[str, int]:
    """Physical GPUs each placed instance holds in ``plan`` (its placement rows) [GPUs]."""
    gpus: dict[str, set[GpuKey]] = defaultdict(set)
    for placement in plan.placements:
        gpus[placement.instance].add((placement.host, placement.gpu_index))
    return {instance: len(keys) for instance, keys in gpus.items()}


def _gpus_per_instance(workload: WorkloadClass) -> int:
    """GPUs one instance spans by its compute alone: a fraction of a GPU still sits on one GPU."""
    return max(1, math.ceil(workload.gpus))


def busy_gpu_share(workload: WorkloadClass, gpus: int | None = None) -> float:
    """Week-averaged share of one GPU that one instance keeps busy, per GPU it spans [0-1].

    ``min(gpus asked / GPUs held, 1) × busy_fraction × (active hours per day / 24) × (days per
    week / 7)``: a quarter-GPU notebook busy half its active time, 6 h a day, 5 days a week,
    keeps its GPU ``0.25 × 0.5 × 0.25 × 5/7 = 0.0223`` busy. ``gpus`` is the number of GPUs the
    instance holds [GPUs], by default ``max(1, ceil(workload.gpus))``; a 0.5-GPU instance whose
    memory takes two GPUs keeps each a quarter busy.
    """
    held = gpus if gpus is not None else _gpus_per_instance(workload)
    per_gpu_demand = min(workload.gpus / max(held, 1), 1.0)
    active_share = workload.active_hours_per_day / HOURS_PER_DAY
    return (
        per_gpu_demand
        * workload.busy_fraction
        * active_share
        * (workload.days_per_week / DAYS_PER_WEEK)
    )


def gpu_compute_utilisation(plan: MethodPlan, scenario: Scenario) -> dict[GpuKey, float]:
    """Week-averaged compute utilisation of every GPU in use [0-1], capped at 1."""
    by_name = {w.name: w for w in scenario.workloads}
    held = gpus_held(plan)
    utilisation: dict[GpuKey, float] = {}
    for key, placements in placements_by_gpu(plan).items():
        busy = sum(busy_gpu_share(by_name[p.workload], held[p.instance]) for p in placements)
        utilisation[key] = min(busy, 1.0)
    return utilisation


def gpu_memory(plan: MethodPlan, scenario: Scenario) -> dict[GpuKey, GpuMemory]:
    """Memory capacity, reservations and use of every GPU in use; see ``GpuMemory``.

    Capacity is ``max(frame buffer, reserved)`` because NVIDIA's vGPU maxima oversubscribe the
    frame buffer on paper (H100 16C: six 16 GiB vGPUs on 80 GiB); dividing by the frame buffer
    alone would report a GPU more than fully used.
    """
    by_name = {w.name: w for w in scenario.workloads}
    held = gpus_held(plan)
    figures: dict[GpuKey, GpuMemory] = {}
    for key, placements in placements_by_gpu(plan).items():
        frame_buffer = _gpu_memory_gib(scenario, placements[0].gpu_model)
        if plan.method is Method.REMOTE_POOL:
            reserved = _busiest_hour_gib(
                (p.instance, by_name[p.workload], p.memory_gib) for p in placements
            )
            used = _busiest_hour_gib(
                (
                    p.instance,
                    by_name[p.workload],
                    _memory_per_gpu_gib(by_name[p.workload], held[p.instance]),
                )
                for p in placements
            )
            capacity = frame_buffer
        else:
            reserved = sum(p.memory_gib for p in placements)
            used = sum(
                _memory_per_gpu_gib(by_name[p.workload], held[p.instance]) for p in placements
            )
            capacity = max(frame_buffer, reserved)
        figures[key] = GpuMemory(capacity_gib=capacity, reserved_gib=reserved, used_gib=used)
    return figures


def _memory_per_gpu_gib(workload: WorkloadClass, gpus: int) -> float:
    """An instance's own memory on each of the ``gpus`` GPUs it holds [GiB]."""
    return workload.memory_gib / max(gpus, 1)


def _gpu_memory_gib(scenario: Scenario, gpu_model: str) -> float:
    return scenario.catalog.gpus[gpu_model].memory_gib


def _gpus_per_workload(plan: MethodPlan, scenario: Scenario) -> dict[str, int]:
    """GPUs one instance of each workload holds: the most any of its placed instances holds,
    else ``max(1, ceil(gpus))`` for a workload with nothing placed [GPUs]."""
    spans = {w.name: 0 for w in scenario.workloads}
    held = gpus_held(plan)
    for placement in plan.placements:
        spans[placement.workload] = max(spans[placement.workload], held[placement.instance])
    return {
        w.name: spans[w.name] if spans[w.name] > 0 else _gpus_per_instance(w)
        for w in scenario.workloads
    }


def _stranded_memory_gib(plan: MethodPlan, scenario: Scenario) -> float:
    """Memory on GPUs in use that no instance can use [GiB]; see ``PlanMetrics``."""
    by_name = {w.name: w for w in scenario.workloads}
    held = gpus_held(plan)
    spans = _gpus_per_workload(plan, scenario)
    # The smallest per-GPU memory request any workload makes: free memory below it is stranded.
    smallest_request_gib = min(
        (_memory_per_gpu_gib(w, spans[w.name]) for w in scenario.workloads), default=0.0
    )
    stranded = 0.0
    for placements in placements_by_gpu(plan).values():
        capacity = _gpu_memory_gib(scenario, placements[0].gpu_model)
        reserved = sum(p.memory_gib for p in placements)
        needed = sum(_memory_per_gpu_gib(by_name[p.workload], held[p.instance]) for p in placements)
        # Memory reserved for an instance beyond its own need helps no other instance.
        stranded += max(reserved - needed, 0.0)
        free = max(capacity - reserved, 0.0)
        # A passthrough GPU belongs to one instance whole; nothing else may use its free memory.
        exclusive = plan.method is Method.PASSTHROUGH or any(
            p.profile == "whole GPU" for p in placements
        )
        mig_usable = (
            _mig_room_usable(placements, scenario, spans) if plan.method is Method.MIG else None
        )
        if exclusive or free < smallest_request_gib or mig_usable is False:
            stranded += free
    return stranded


def _mig_room_usable(
    placements: list[Placement], scenario: Scenario, spans: Mapping[str, int]
) -> bool | None:
    """Whether some workload fits a MIG instance in the GPU's free slices; None if unknown.

    The free room is usable when a profile of the model can start at a free memory slice, its
    memory slices are all free, enough compute slices remain, and some workload's per-GPU memory
    and compute share fit the profile (NVIDIA's placement table, as ``catalog.mig_profiles``).
    ``spans`` gives the GPUs one instance of each workload holds, over which its memory and
    compute are split.
    """
    model = scenario.catalog.gpus[placements[0].gpu_model]
    profiles = {p.name: p for p in scenario.catalog.mig_profiles.get(model.name, ())}
    occupied: set[int] = set()
    compute_used = 0
    for placement in placements:
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
            _memory_per_gpu_gib(w, spans[w.name]) <= profile.memory_gib
            and min(w.gpus / spans[w.name], 1.0)
            <= profile.compute_slices / model.mig_compute_slices
            for w in scenario.workloads
        ):
            return True
    return False


def _stranded_gpus(plan: MethodPlan, scenario: Scenario) -> int:
    """Free GPUs on hosts whose spare cores or RAM fit no workload's instance [GPUs]."""
    if plan.method is Method.REMOTE_POOL or not scenario.workloads:
        # Remote-pool clients run on any host, so a GPU server's own CPU and RAM strand nothing.
        return 0
    by_name = {w.name: w for w in scenario.workloads}
    gpus_in_use: dict[str, set[int]] = defaultdict(set)
    instances_on: dict[str, dict[str, str]] = defaultdict(dict)
    for p in plan.placements:
        gpus_in_use[p.host].add(p.gpu_index)
        instances_on[p.host][p.instance] = p.workload
    stranded = 0
    for host in hosts_of(plan, scenario):
        free_gpus = host.gpus - len(gpus_in_use[host.name])
        if free_gpus <= 0:
            continue
        workloads = [by_name[name] for name in instances_on[host.name].values()]
        spare_cores = host.cpu_cores - sum(w.vcpus for w in workloads)
        spare_ram_gib = host.ram_gib - sum(w.ram_gib for w in workloads)
        fits_some = any(
            w.vcpus <= spare_cores and w.ram_gib <= spare_ram_gib for w in scenario.workloads
        )
        if not fits_some:
            stranded += free_gpus
    return stranded


def _busiest_hour_gib(held: Iterable[tuple[str, WorkloadClass, float]]) -> float:
    """Memory held in the busiest hour of the day [GiB], from (instance, workload, GiB) rows."""
    hourly = [0.0] * HOURS_PER_DAY
    for instance, workload, gib in held:
        for hour, active in enumerate(active_hours(workload, instance_index(instance))):
            if active:
                hourly[hour] += gib
    return max(hourly)


def measure(plan: MethodPlan, scenario: Scenario) -> PlanMetrics:
    """Count what a plan uses and how well; every figure is described in ``PlanMetrics``.

    Compute utilisation is ``Σ busy_gpu_share(instance, GPUs it holds) / gpus_used`` summed over
    each GPU an instance holds, with each GPU capped at fully busy.
    """
    by_name: Mapping[str, WorkloadClass] = {w.name: w for w in scenario.workloads}
    groups = placements_by_gpu(plan)
    gpus_used = len(groups)
    hosts_used = len({host for host, _ in groups})
    placed = {p.instance: p.workload for p in plan.placements}
    capacity = sum(g.capacity_gib for g in gpu_memory(plan, scenario).values())
    if plan.method is Method.REMOTE_POOL:
        allocated = _busiest_hour_gib(
            (p.instance, by_name[p.workload], p.memory_gib) for p in plan.placements
        )
        used = _busiest_hour_gib(
            (instance, by_name[name], by_name[name].memory_gib) for instance, name in placed.items()
        )
    else:
        allocated = sum(p.memory_gib for p in plan.placements)
        used = sum(by_name[workload].memory_gib for workload in placed.values())
    busy = sum(gpu_compute_utilisation(plan, scenario).values())
    bound = plan.lower_bound_gpus
    return PlanMetrics(
        gpus_used=gpus_used,
        hosts_used=hosts_used,
        gpus_available=sum(h.gpus for h in hosts_of(plan, scenario)),
        instances_placed=len(placed),
        instances_not_placed=len({n.instance for n in plan.not_placed}),
        memory_capacity_gib=capacity,
        memory_allocated_gib=allocated,
        memory_used_gib=used,
        memory_utilisation=used / capacity if capacity > 0 else 0.0,
        compute_utilisation=busy / gpus_used if gpus_used else 0.0,
        stranded_memory_gib=_stranded_memory_gib(plan, scenario),
        stranded_gpus=_stranded_gpus(plan, scenario),
        lower_bound_gpus=bound,
        ratio_to_bound=gpus_used / bound if bound > 0 else None,
    )
