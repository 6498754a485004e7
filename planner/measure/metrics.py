"""How well a plan uses its GPUs: counts, memory and compute utilisation, stranded capacity."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadClass
from planner.methods.contract import GpuKey, GpuMemory
from planner.methods.registry import METHODS
from planner.plan import MethodPlan, Placement
from planner.scenario import Scenario
from planner.solve.views import PlanView

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
    memory_utilisation: float | None
    """``memory_used_gib / memory_capacity_gib`` [0-1]; None when no GPU is in use: it is a
    share of the GPUs in use, and 0 would read as GPUs standing idle."""
    compute_utilisation: float | None
    """Busy GPU-hours over available GPU-hours of the GPUs in use, averaged over a week [0-1];
    None when no GPU is in use."""
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
    # (class, GPUs an instance holds) -> its share: a class's instances are alike.
    shares: dict[tuple[str, int], float] = {}

    def share(placement: Placement) -> float:
        alike = (placement.workload, held[placement.instance])
        if alike not in shares:
            shares[alike] = busy_gpu_share(by_name[alike[0]], alike[1])
        return shares[alike]

    utilisation: dict[GpuKey, float] = {}
    for key, placements in placements_by_gpu(plan).items():
        utilisation[key] = min(sum(share(p) for p in placements), 1.0)
    return utilisation


def gpu_memory(
    plan: MethodPlan, scenario: Scenario, view: PlanView | None = None
) -> dict[GpuKey, GpuMemory]:
    """Memory capacity, reservations and use of every GPU in use, by its role's rule; see
    ``GpuMemory`` (NVIDIA's vGPU maxima oversubscribe the frame buffer on paper, a remote pool
    holds memory only while an instance runs). ``view``: the plan's, when already built."""
    view = view or PlanView.of(plan, scenario)
    return {
        key: METHODS[plan.role(key)].gpu_memory(gpu, view.context) for key, gpu in view.gpus.items()
    }


def _stranded_memory_gib(plan: MethodPlan, scenario: Scenario, view: PlanView) -> float:
    """Memory on GPUs in use that no instance can use [GiB]; see ``PlanMetrics``."""
    context = view.context
    # The smallest per-GPU memory request any workload makes: free memory below it is stranded.
    smallest_request_gib = min(
        (w.memory_gib / context.spans[w.name] for w in scenario.workloads), default=0.0
    )
    stranded = 0.0
    for key, gpu in view.gpus.items():
        reserved = sum(p.memory_gib for p in gpu.placements)
        needed = sum(context.memory_per_gpu_gib(p) for p in gpu.placements)
        # Memory reserved for an instance beyond its own need helps no other instance.
        stranded += max(reserved - needed, 0.0)
        free = max(gpu.model.memory_gib - reserved, 0.0)
        usable = METHODS[plan.role(key)].free_memory_usable(gpu, context)
        whole = any(p.profile == "whole GPU" for p in gpu.placements)
        if usable is False or whole or free < smallest_request_gib:
            stranded += free
    return stranded


def _stranded_gpus(plan: MethodPlan, scenario: Scenario) -> int:
    """Free GPUs on hosts whose spare cores or RAM fit no workload's instance [GPUs]; a host
    whose GPUs serve clients that run elsewhere (a remote-pool server) strands none."""
    if not scenario.workloads:
        return 0
    by_name = {w.name: w for w in scenario.workloads}
    gpus_in_use: dict[str, set[int]] = defaultdict(set)
    instances_on: dict[str, dict[str, str]] = defaultdict(dict)
    remote_hosts: set[str] = set()
    for p in plan.placements:
        key = (p.host, p.gpu_index)
        gpus_in_use[p.host].add(p.gpu_index)
        if METHODS[plan.role(key)].instances_on_gpu_host:
            instances_on[p.host][p.instance] = p.workload
        else:
            remote_hosts.add(p.host)
    stranded = 0
    for host in hosts_of(plan, scenario):
        free_gpus = host.gpus - len(gpus_in_use[host.name])
        if free_gpus <= 0 or host.name in remote_hosts:
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


def measure(
    plan: MethodPlan,
    scenario: Scenario,
    view: PlanView | None = None,
    utilisation: Mapping[GpuKey, float] | None = None,
) -> PlanMetrics:
    """Count what a plan uses and how well; every figure is described in ``PlanMetrics``.

    Memory figures sum each GPU's (``gpu_memory``, by its role's rule). Compute utilisation is
    ``Σ busy_gpu_share(instance, GPUs it holds) / gpus_used`` summed over each GPU an instance
    holds, with each GPU capped at fully busy. ``view`` and ``utilisation`` (the plan's
    ``gpu_compute_utilisation``): the plan's, when already worked out.
    """
    view = view or PlanView.of(plan, scenario)
    groups = placements_by_gpu(plan)
    gpus_used = len(groups)
    memory = gpu_memory(plan, scenario, view)
    capacity = sum(g.capacity_gib for g in memory.values())
    used = sum(g.used_gib for g in memory.values())
    if utilisation is None:
        utilisation = gpu_compute_utilisation(plan, scenario)
    busy = sum(utilisation.values())
    bound = plan.lower_bound_gpus
    return PlanMetrics(
        gpus_used=gpus_used,
        hosts_used=len({host for host, _ in groups}),
        gpus_available=sum(h.gpus for h in hosts_of(plan, scenario)),
        instances_placed=len({p.instance for p in plan.placements}),
        instances_not_placed=len({n.instance for n in plan.not_placed}),
        memory_capacity_gib=capacity,
        memory_allocated_gib=sum(g.reserved_gib for g in memory.values()),
        memory_used_gib=used,
        memory_utilisation=used / capacity if capacity > 0 else None,
        compute_utilisation=busy / gpus_used if gpus_used else None,
        stranded_memory_gib=_stranded_memory_gib(plan, scenario, view),
        stranded_gpus=_stranded_gpus(plan, scenario),
        lower_bound_gpus=bound,
        ratio_to_bound=gpus_used / bound if bound > 0 else None,
    )
