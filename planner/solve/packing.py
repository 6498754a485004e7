"""Packing engine: plan one sharing method on the user's inventory, or size a cluster for it.

Two stages, shared by all four methods:

- Stage A, per method and GPU model: a *method packer* (the modules of
  ``planner.methods``; each satisfies ``MethodPacker``)
  turns instances into ``HostRequest``s: the GPU loads that must share one host, with the host
  cores and RAM their instances need.
- Stage B (``planner.solve.hosts``): requests go onto hosts with free GPUs, cores and RAM, most
  urgent priority first; what does not fit is ``NotPlaced`` with the resource that ran out.

When capacity is short, priority decides: the largest run of priority levels (1, then 1-2, ...)
that fits whole is packed together, and each later level is packed on its own into what is left,
so a less urgent instance never takes room a more urgent one could have used. Instances eligible
on several GPU models are spread over the models by water-filling (each goes where the share of
that model's GPUs already asked for stays lowest); what one model cannot hold moves to the next
model it is eligible for.

Results are deterministic: every order is a sort on explicit keys, never on hash order.
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, cast

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host, ServerType
from planner.inputs.workloads import Instance, WorkloadClass
from planner.plan import (
    GpuPacking,
    Method,
    MethodPlan,
    NotPlaced,
    Placement,
    SolveStatus,
)
from planner.scenario import Scenario
from planner.solve.hosts import HostPool, assign_hosts, fits_all, min_hosts_exact

__all__ = [
    "PACKERS",
    "MethodPacker",
    "instances_of",
    "packing_gpus",
    "plan_method",
    "size_method",
    "usable_host_reason",
]


class MethodPacker(Protocol):
    """What every sharing-method module provides (stage A); modules satisfy it as they are."""

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why the workload cannot use the method on ``model``; None when it can."""
        ...

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """A fast packing of ``instances`` onto GPUs of ``model``."""
        ...

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """The fewest GPUs, proven within ``assumptions.time_limit_s`` (else the best found)."""
        ...


_MODULES: Mapping[Method, str] = {
    Method.PASSTHROUGH: "planner.methods.passthrough",
    Method.VGPU: "planner.methods.vgpu",
    Method.MIG: "planner.methods.mig",
    Method.REMOTE_POOL: "planner.methods.remote_pool",
}


class _PackerRegistry(Mapping[Method, MethodPacker]):
    """Method -> packer module, imported on first use so a missing module breaks only its method."""

    def __getitem__(self, method: Method) -> MethodPacker:
        name = _MODULES[method]
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            raise KeyError(f"no packer for {method.label}: module {name} is missing") from None
        return cast(MethodPacker, module)

    def _available(self) -> list[Method]:
        available = []
        for method in _MODULES:
            try:
                self[method]
            except KeyError:
                continue
            available.append(method)
        return available

    def __iter__(self) -> Iterator[Method]:
        return iter(self._available())

    def __len__(self) -> int:
        return len(self._available())


PACKERS: Mapping[Method, MethodPacker] = _PackerRegistry()
"""The packer of each sharing method whose module exists."""

_AUTO_EXACT_MAX_INSTANCES: Mapping[Method, int] = {
    # Passthrough's heuristic is already optimal.
    Method.PASSTHROUGH: 0,
    # vGPU and MIG solve pattern MILPs whose size depends on profiles, not instance counts.
    Method.VGPU: 100_000,
    Method.MIG: 100_000,
    # The remote pool's exact model has a variable per instance and GPU.
    Method.REMOTE_POOL: 300,
}
"""With ``exact=None``, the exact packer runs on at most this many instances of one model."""

PackMode = Literal["heuristic", "exact", "auto"]

_MAX_BISECTIONS = 6
"""When capacity is short, at most this many extra packings search for the longest run of
instances (in priority order) that fits whole; 6 halvings pin it to 1/64 of a level, and the
rest of that level is then packed into what is left."""


def packing_gpus(packing: GpuPacking) -> int:
    """GPUs a packing uses: one per load over all its requests."""
    return sum(len(request.loads) for request in packing.requests)


def instances_of(workloads: Sequence[WorkloadClass]) -> list[Instance]:
    """Every instance, most urgent priority first, then in workload and instance order."""
    ordered = sorted(enumerate(workloads), key=lambda pair: (pair[1].priority, pair[0]))
    return [
        Instance(instance_id, workload)
        for _, workload in ordered
        for instance_id in workload.instance_ids()
    ]


def usable_host_reason(method: Method, host: Host, catalog: Catalog) -> str | None:
    """Why ``host`` cannot serve ``method`` at all; None when it can."""
    model = catalog.gpus.get(host.gpu_model)
    if model is None:
        return f"GPU model {host.gpu_model} is not in the catalog"
    if host.gpus <= 0:
        return "the host has no GPUs"
    if method is Method.MIG:
        if not model.mig_capable:
            return f"{model.name} does not support MIG"
        if not host.mig_enabled:
            return "MIG mode is not enabled on the host"
    if method is Method.VGPU and not model.vgpu_capable:
        return f"{model.name} has no C-series vGPU profiles"
    return None


def _pack(
    method: Method,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    mode: PackMode,
) -> GpuPacking:
    """Stage A for one model: heuristic, exact, or exact when small and not already optimal."""
    packer = PACKERS[method]
    args = (instances, model, scenario.catalog, scenario.assumptions)
    if mode == "exact":
        return packer.pack_exact(*args)
    heuristic = packer.pack_heuristic(*args)
    small = len(instances) <= _AUTO_EXACT_MAX_INSTANCES[method]
    if mode == "heuristic" or heuristic.status is SolveStatus.OPTIMAL or not small:
        return heuristic
    exact = packer.pack_exact(*args)
    bound = max(heuristic.lower_bound_gpus, exact.lower_bound_gpus)
    best = exact if packing_gpus(exact) <= packing_gpus(heuristic) else heuristic
    status = SolveStatus.OPTIMAL if packing_gpus(best) == bound else best.status
    if best is heuristic and status is not SolveStatus.OPTIMAL:
        status = exact.status
    return replace(best, lower_bound_gpus=bound, status=status)


@dataclass(frozen=True)
class _ModelFit:
    """Stage A and B for one batch of instances on one GPU model."""

    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    gpu_configs: dict[tuple[str, int], str]
    pool: HostPool
    packings: tuple[GpuPacking, ...]
    """Every stage-A packing whose requests were committed (one when it all fitted at once)."""


def _fit_model(
    method: Method,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    pool: HostPool,
    mode: PackMode,
) -> _ModelFit:
    """Pack ``instances`` on ``model`` and place them on ``pool``'s hosts, by priority."""
    first = _pack(method, instances, model, scenario, mode)
    trial = pool.copy()
    assigned = assign_hosts(first.requests, trial)
    if not assigned.not_placed:
        return _ModelFit(
            assigned.placements,
            first.not_placed,
            assigned.gpu_configs,
            trial,
            (first,),
        )
    # Capacity is short: find the longest run of instances, in priority order, that fits whole
    # when packed together: whole priority levels first, then a bisection inside the first
    # level that does not fit. Placement is deterministic, so the run fits again when placed.
    fitting: GpuPacking | None = None

    def attempt(count: int) -> bool:
        nonlocal fitting
        packing = _pack(method, instances[:count], model, scenario, "heuristic")
        if not fits_all(packing.requests, pool.copy()):
            return False
        fitting = packing
        return True

    level_ends = [
        n
        for n in range(1, len(instances))
        if instances[n].workload.priority != instances[n - 1].workload.priority
    ]
    fitted, failed = 0, len(instances)
    for end in level_ends:
        if not attempt(end):
            failed = end
            break
        fitted = end
    # First probe: drop as many instances as stage B could not place; usually close.
    shortfall = len({n.instance for n in assigned.not_placed})
    probe = max(fitted + 1, failed - shortfall)
    if fitted < probe < failed:
        if attempt(probe):
            fitted = probe
        else:
            failed = probe
    for _ in range(_MAX_BISECTIONS):
        if failed - fitted <= 1:
            break
        middle = (fitted + failed) // 2
        if attempt(middle):
            fitted = middle
        else:
            failed = middle
    committed = pool.copy()
    packings: list[GpuPacking] = []
    placements: list[Placement] = []
    not_placed: list[NotPlaced] = []
    configs: dict[tuple[str, int], str] = {}
    if fitting is not None:
        # The packing of the longest run that fitted, placed for real.
        result = assign_hosts(fitting.requests, committed)
        packings.append(fitting)
        placements.extend(result.placements)
        not_placed.extend(fitting.not_placed)
        not_placed.extend(result.not_placed)
        configs.update(result.gpu_configs)
    # The rest is packed level by level into what is left, most urgent first.
    rest = instances[fitted:]
    for level in sorted({i.workload.priority for i in rest}):
        subset = [i for i in rest if i.workload.priority == level]
        packing = _pack(method, subset, model, scenario, "heuristic")
        result = assign_hosts(packing.requests, committed)
        packings.append(packing)
        placements.extend(result.placements)
        not_placed.extend(packing.not_placed)
        not_placed.extend(result.not_placed)
        configs.update(result.gpu_configs)
    return _ModelFit(tuple(placements), tuple(not_placed), configs, committed, tuple(packings))


def _placed_bound(
    method: Method,
    fit: _ModelFit,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
) -> int:
    """A lower bound on the GPUs of ``model`` for the instances of ``fit`` that were placed."""
    placed = {p.instance for p in fit.placements}
    if len(fit.packings) == 1:
        packed = {
            slot.instance
            for request in fit.packings[0].requests
            for load in request.loads
            for slot in load.slots
        }
        if packed <= placed:
            return fit.packings[0].lower_bound_gpus  # everything it bounded was placed
    kept = [i for i in instances if i.id in placed]
    if not kept:
        return 0
    return _pack(method, kept, model, scenario, "heuristic").lower_bound_gpus


def _eligible_models(
    method: Method, workload: WorkloadClass, models: Sequence[GpuModel], scenario: Scenario
) -> tuple[list[GpuModel], str]:
    """The models ``workload`` may use under ``method``, and why none when the list is empty."""
    packer = PACKERS[method]
    if not models:
        return [], f"no host in the inventory can serve {method.label}"
    allowed = [m for m in models if not workload.gpu_models or m.name in workload.gpu_models]
    if not allowed:
        wanted = ", ".join(workload.gpu_models)
        return [], f"restricted to {wanted}; no usable host has those GPUs for {method.label}"
    eligible: list[GpuModel] = []
    reasons: list[str] = []
    for model in allowed:
        reason = packer.ineligible_reason(workload, model, scenario.catalog, scenario.assumptions)
        if reason is None:
            eligible.append(model)
        elif reason not in reasons:
            reasons.append(reason)
    return eligible, "; ".join(reasons)


def _spread(
    method: Method,
    instances: Sequence[Instance],
    eligible: Mapping[str, list[GpuModel]],
    capacity_gpus: Mapping[str, int],
) -> dict[str, str]:
    """Instance id -> GPU model, water-filling the share of each model's GPUs asked for.

    Classes with a single eligible model are counted first, so flexible classes fill around
    them. Demand is estimated as ``max(gpus, memory / GPU memory)`` GPUs per instance.
    """
    asked: dict[str, float] = dict.fromkeys(capacity_gpus, 0.0)
    choice: dict[str, str] = {}
    forced = [i for i in instances if len(eligible[i.workload.name]) == 1]
    flexible = [i for i in instances if len(eligible[i.workload.name]) > 1]
    for instance in [*forced, *flexible]:
        workload = instance.workload
        best: GpuModel | None = None
        best_share = math.inf
        for model in eligible[workload.name]:
            demand = max(workload.gpus, workload.memory_gib / model.memory_gib)
            share = (asked[model.name] + demand) / capacity_gpus[model.name]
            if share < best_share:
                best, best_share = model, share
        assert best is not None  # every instance here has at least one eligible model
        asked[best.name] += max(workload.gpus, workload.memory_gib / best.memory_gib)
        choice[instance.id] = best.name
    return choice


def plan_method(method: Method, scenario: Scenario, *, exact: bool | None = None) -> MethodPlan:
    """Fit the scenario's workloads to its inventory under one sharing method (question 1).

    Parameters
    ----------
    method : the sharing method.
    scenario : catalog, inventory, workloads and assumptions.
    exact : True for the exact packer, False for the heuristic, None for exact where it solves
        within ``assumptions.time_limit_s`` (small or pattern-structured cases), else heuristic.

    Returns
    -------
    MethodPlan : placements on the inventory's hosts, instances not placed with the reason, the
        lower bound on GPUs for the placed instances (given each instance's GPU model) and the
        solve status: OPTIMAL only when proven.
    """
    started = time.perf_counter()
    mode: PackMode = "auto" if exact is None else ("exact" if exact else "heuristic")
    catalog = scenario.catalog
    usable = [h for h in scenario.inventory.hosts if usable_host_reason(method, h, catalog) is None]
    model_order: list[GpuModel] = []
    capacity: dict[str, int] = {}
    for host in usable:
        if host.gpu_model not in capacity:
            model_order.append(catalog.gpus[host.gpu_model])
            capacity[host.gpu_model] = 0
        capacity[host.gpu_model] += host.gpus

    instances = instances_of(scenario.workloads)
    order = {instance.id: n for n, instance in enumerate(instances)}
    eligible: dict[str, list[GpuModel]] = {}
    not_placed: list[NotPlaced] = []
    servable: list[Instance] = []
    why_not: dict[str, str] = {}
    for workload in scenario.workloads:
        models, why = _eligible_models(method, workload, model_order, scenario)
        eligible[workload.name] = models
        why_not[workload.name] = why
    for instance in instances:
        if eligible[instance.workload.name]:
            servable.append(instance)
        else:
            name = instance.workload.name
            not_placed.append(NotPlaced(instance.id, name, why_not[name]))

    choice = _spread(method, servable, eligible, capacity)
    pending: dict[str, list[Instance]] = {}
    for instance in servable:
        pending.setdefault(choice[instance.id], []).append(instance)
    tried: dict[str, list[str]] = {}
    failures: dict[str, list[str]] = {}

    pool = HostPool(usable)
    placements: list[Placement] = []
    configs: dict[tuple[str, int], str] = {}
    bound = 0
    statuses: list[SolveStatus] = []
    notes: list[str] = []
    fits_per_model: dict[str, int] = {}
    while True:
        model = next((m for m in model_order if pending.get(m.name)), None)
        if model is None:
            break
        batch = sorted(pending.pop(model.name), key=lambda i: order[i.id])
        fit = _fit_model(method, batch, model, scenario, pool, mode)
        pool = fit.pool
        fits_per_model[model.name] = fits_per_model.get(model.name, 0) + 1
        placements.extend(fit.placements)
        configs.update(fit.gpu_configs)
        bound += _placed_bound(method, fit, batch, model, scenario)
        for packing in fit.packings:
            statuses.append(packing.status if len(fit.packings) == 1 else SolveStatus.HEURISTIC)
            notes.extend(n for n in packing.notes if n not in notes)
        by_id = {i.id: i for i in batch}
        for miss in fit.not_placed:
            instance = by_id[miss.instance]
            tried.setdefault(miss.instance, []).append(model.name)
            failures.setdefault(miss.instance, []).append(f"on {model.name}: {miss.reason}")
            untried = [m for m in eligible[miss.workload] if m.name not in tried[miss.instance]]
            if untried:
                pending.setdefault(untried[0].name, []).append(instance)
            else:
                reasons = failures[miss.instance]
                reason = miss.reason if len(reasons) == 1 else "; ".join(reasons)
                not_placed.append(NotPlaced(miss.instance, miss.workload, reason))

    used = len(configs)
    if used == bound:
        status = SolveStatus.OPTIMAL
    elif any(n > 1 for n in fits_per_model.values()):
        status = SolveStatus.HEURISTIC
    elif SolveStatus.TIME_LIMIT in statuses:
        status = SolveStatus.TIME_LIMIT
    elif statuses and all(s is SolveStatus.OPTIMAL for s in statuses):
        status = SolveStatus.OPTIMAL
    else:
        status = SolveStatus.HEURISTIC
    if len(fits_per_model) > 1:
        notes.append(
            "The lower bound holds for the GPU model each instance was given; "
            "instances eligible on several models were spread by remaining capacity."
        )
    not_placed.sort(key=lambda n: order[n.instance])
    return MethodPlan(
        method=method,
        placements=tuple(placements),
        not_placed=tuple(not_placed),
        gpu_configs=configs,
        lower_bound_gpus=bound,
        status=status,
        solve_seconds=time.perf_counter() - started,
        notes=tuple(notes),
        hosts=scenario.inventory.hosts,
    )


def _host_lower_bound(gpus_bound: int, cores: float, ram_gib: float, server: ServerType) -> int:
    """No cluster of ``server`` hosts smaller than this holds the GPUs, cores and RAM."""
    by_gpus = math.ceil(gpus_bound / server.gpus) if server.gpus > 0 else 0
    by_cores = math.ceil(cores / server.cpu_cores - 1e-9) if server.cpu_cores > 0 else 0
    by_ram = math.ceil(ram_gib / server.ram_gib - 1e-9) if server.ram_gib > 0 else 0
    return max(by_gpus, by_cores, by_ram)


_EXACT_HOSTS_MAX_REQUESTS = 40
"""Host counts are proven by MILP when stage A gives at most this many requests."""


def size_method(method: Method, scenario: Scenario, server: ServerType) -> MethodPlan:
    """Size a cluster of ``server`` hosts for the scenario's workloads (question 2).

    Opens hosts of ``server`` as needed (``MethodPlan.hosts`` lists them). Stage A uses the
    exact packer where it solves in time; the host count is then minimised exactly (MILP over
    the requests) on small cases and best fit otherwise. The notes give the host count and a
    lower bound on it: the larger of GPUs, cores and RAM over one server's.
    """
    started = time.perf_counter()
    catalog = scenario.catalog
    probe = server.host(0)
    instances = instances_of(scenario.workloads)
    unusable = usable_host_reason(method, probe, catalog)
    not_placed: list[NotPlaced] = []
    servable: list[Instance] = []
    model = catalog.gpus.get(server.gpu_model)
    for instance in instances:
        workload = instance.workload
        if unusable is not None or model is None:
            why = unusable or f"GPU model {server.gpu_model} is not in the catalog"
            not_placed.append(NotPlaced(instance.id, workload.name, f"server type: {why}"))
            continue
        if workload.gpu_models and server.gpu_model not in workload.gpu_models:
            why = f"restricted to {', '.join(workload.gpu_models)}, not {server.gpu_model}"
            not_placed.append(NotPlaced(instance.id, workload.name, why))
            continue
        reason = PACKERS[method].ineligible_reason(
            workload, catalog.gpus[server.gpu_model], catalog, scenario.assumptions
        )
        if reason is not None:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
            continue
        servable.append(instance)

    placements: tuple[Placement, ...] = ()
    configs: dict[tuple[str, int], str] = {}
    hosts: tuple[Host, ...] = ()
    bound = 0
    status = SolveStatus.OPTIMAL
    notes: list[str] = []
    if servable and model is not None:
        packing = _pack(method, servable, model, scenario, "auto")
        pool = HostPool((), open_host=server.host)
        assigned = assign_hosts(packing.requests, pool)
        dropped = {n.instance for n in assigned.not_placed}
        placed_requests = [
            r
            for r in packing.requests
            if not any(s.instance in dropped for ld in r.loads for s in ld.slots)
        ]
        cores = sum(r.cpu_cores for r in placed_requests)
        ram = sum(r.ram_gib for r in placed_requests)
        gpu_bound = packing.lower_bound_gpus
        if dropped:
            # The bound must cover only what was placed: instances too big for one server are out.
            kept = [i for i in servable if i.id not in dropped]
            gpu_bound = _pack(method, kept, model, scenario, "heuristic").lower_bound_gpus
        host_bound = _host_lower_bound(gpu_bound, cores, ram, server)
        hosts_proven = pool.opened == host_bound
        if not hosts_proven and len(placed_requests) <= _EXACT_HOSTS_MAX_REQUESTS:
            exact_hosts = min_hosts_exact(
                placed_requests,
                server.host(0),
                upper_bound=pool.opened,
                time_limit_s=scenario.assumptions.time_limit_s,
            )
            if exact_hosts is not None:
                assignment, proven = exact_hosts
                if max(assignment, default=-1) + 1 < pool.opened:
                    exact_pool = HostPool([server.host(i) for i in range(max(assignment) + 1)])
                    assigned = assign_hosts(placed_requests, exact_pool, fixed=assignment)
                    pool = exact_pool
                    pool.opened = len(exact_pool.hosts)
                hosts_proven = proven and packing.status is SolveStatus.OPTIMAL
        placements = assigned.placements
        configs = assigned.gpu_configs
        not_placed.extend(assigned.not_placed)
        hosts = tuple(pool.hosts)
        bound = gpu_bound
        if len(configs) == bound:
            status = SolveStatus.OPTIMAL
        elif dropped:
            status = SolveStatus.HEURISTIC
        else:
            status = packing.status
        notes.extend(packing.notes)
        proof = "proven minimum" if hosts_proven else f"no cluster needs fewer than {host_bound}"
        notes.append(
            f"{len(hosts)} hosts of {server.gpus} × {server.gpu_model}, "
            f"{server.cpu_cores:g} cores, {server.ram_gib:g} GiB RAM ({proof})."
        )
    order = {instance.id: n for n, instance in enumerate(instances)}
    not_placed.sort(key=lambda n: order[n.instance])
    return MethodPlan(
        method=method,
        placements=placements,
        not_placed=tuple(not_placed),
        gpu_configs=configs,
        lower_bound_gpus=bound,
        status=status,
        solve_seconds=time.perf_counter() - started,
        notes=tuple(notes),
        hosts=hosts,
    )
