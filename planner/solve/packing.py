"""Packing engine: plan one sharing method on the user's inventory, or size a cluster for it.

Two stages, shared by every method of ``planner.methods.registry.METHODS``:

- Stage A, per method and *GPU kind* (a GPU model on one platform): the method's packer
  (``SharingMethod.pack_heuristic`` / ``pack_exact``) turns instances into ``HostRequest``s: the
  GPU loads that must share one host, with the host cores and RAM their instances need.
- Stage B (``planner.solve.hosts``): requests go onto hosts of that kind with free GPUs, cores and
  RAM, most urgent priority first; what does not fit is ``NotPlaced`` with the resource that ran
  out.

When capacity is short, priority decides: the largest run of priority levels (1, then 1-2, ...)
that fits whole is packed together, and each later level is packed on its own into what is left,
so a less urgent instance never takes room a more urgent one could have used. Instances eligible
on several GPU kinds are spread over them by water-filling (each goes where the share of that
kind's GPUs already asked for stays lowest); what one kind cannot hold moves to the next kind it
is eligible for.

Results are deterministic: every order is a sort on explicit keys, never on hash order.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host, ServerType
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import HostFit
from planner.methods.registry import METHODS, Method, host_reason, workload_reason
from planner.plan import (
    GpuPacking,
    HostRequest,
    MethodPlan,
    NotPlaced,
    Placement,
    SolveStatus,
)
from planner.scenario import Scenario
from planner.solve.collector import collector_paused
from planner.solve.hosts import (
    HostAssignment,
    HostPool,
    assign_hosts,
    fits_all,
    min_hosts,
    on_fewer_hosts,
)

__all__ = [
    "GpuKind",
    "PackMode",
    "PoolFit",
    "fit_on_pool",
    "instances_of",
    "pack",
    "packing_gpus",
    "plan_method",
    "size_method",
    "spread",
    "usable_kinds",
]

PackMode = Literal["heuristic", "exact", "auto"]

_MAX_BISECTIONS = 6
"""When capacity is short, at most this many extra packings search for the longest run of
instances (in priority order) that fits whole; 6 halvings pin it to 1/64 of a level, and the
rest of that level is then packed into what is left."""


@dataclass(frozen=True)
class GpuKind:
    """GPUs of one model on hosts of one platform: the unit a method packs for."""

    model: GpuModel
    platform: Platform

    @property
    def label(self) -> str:
        """``A100-80GB-PCIe``, or ``A100-80GB-PCIe on Kubernetes`` off vSphere."""
        if self.platform is Platform.VSPHERE:
            return self.model.name
        return f"{self.model.name} on {self.platform.label}"


def packing_gpus(packing: GpuPacking) -> int:
    """GPUs a packing uses: one per load over all its requests."""
    return sum(len(request.loads) for request in packing.requests)


def instances_of(workloads: Sequence[WorkloadClass]) -> list[Instance]:
    """Every instance, most urgent priority first, then in workload and instance order."""
    if not isinstance(workloads, tuple):
        return list(_ordered_instances(workloads))
    # A scenario's mix (a tuple of frozen classes, so the same object always holds the same
    # instances): every plan of a comparison asks for its instances again.
    kept = _INSTANCES_OF_MIX.get(id(workloads))
    if kept is None or kept[0] is not workloads:
        kept = (workloads, _ordered_instances(workloads))
        if len(_INSTANCES_OF_MIX) >= _MIXES_KEPT:
            _INSTANCES_OF_MIX.clear()
        _INSTANCES_OF_MIX[id(workloads)] = kept
    return list(kept[1])


_MIXES_KEPT = 2
"""Mixes whose instances ``instances_of`` keeps (a comparison plans one mix)."""

_INSTANCES_OF_MIX: dict[int, tuple[tuple[WorkloadClass, ...], tuple[Instance, ...]]] = {}
"""id(mix) -> the mix, kept so that its id is not reused, and its instances."""


def _ordered_instances(workloads: Sequence[WorkloadClass]) -> tuple[Instance, ...]:
    ordered = sorted(enumerate(workloads), key=lambda pair: (pair[1].priority, pair[0]))
    return tuple(
        Instance(instance_id, workload)
        for _, workload in ordered
        for instance_id in workload.instance_ids()
    )


def usable_kinds(method: Method, scenario: Scenario) -> dict[GpuKind, list[Host]]:
    """The inventory's hosts ``method`` can set up, by GPU kind, kinds in first-seen order."""
    catalog = scenario.catalog
    kinds: dict[GpuKind, list[Host]] = {}
    for host in scenario.inventory.hosts:
        if host_reason(method, host, catalog) is None:
            kind = GpuKind(catalog.gpus[host.gpu_model], host.platform)
            kinds.setdefault(kind, []).append(host)
    return kinds


def pack(
    method: Method,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    mode: PackMode,
) -> GpuPacking:
    """Stage A for one model: heuristic, exact, or exact when small and not already optimal."""
    rules = METHODS[method]
    args = (instances, model, scenario.catalog, scenario.assumptions)
    if mode == "exact":
        return rules.pack_exact(*args)
    heuristic = rules.pack_heuristic(*args)
    small = len(instances) <= rules.exact_max_instances
    if mode == "heuristic" or heuristic.status is SolveStatus.OPTIMAL or not small:
        return heuristic
    exact = rules.pack_exact(*args)
    bound = max(heuristic.lower_bound_gpus, exact.lower_bound_gpus)
    best = exact if packing_gpus(exact) <= packing_gpus(heuristic) else heuristic
    status = SolveStatus.OPTIMAL if packing_gpus(best) == bound else best.status
    if best is heuristic and status is not SolveStatus.OPTIMAL:
        status = exact.status
    return replace(best, lower_bound_gpus=bound, status=status)


def spread(
    method: Method,
    packing: GpuPacking,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    *,
    cores: float,
    ram_gib: float,
) -> GpuPacking:
    """``packing`` with every one-GPU request whose instances need more than ``cores`` or
    ``ram_gib`` of their host split into runs that do not, each run packed again by the method
    (so its rules hold: fewer tenants on a GPU never break them).

    A method packs a GPU as full as its memory and profiles allow, whatever the host: twenty
    4-core desktops on one GPU need 80 cores, more than a 64-core host has, and fewer cores per
    GPU let a host's other GPUs keep theirs. Multi-GPU requests and one-instance GPUs are kept.
    """
    by_id = {i.id: i for i in instances}
    kept: list[HostRequest] = []
    runs: list[list[Instance]] = []
    tails: list[Instance] = []
    for request in packing.requests:
        ids = (
            list(dict.fromkeys(s.instance for s in request.loads[0].slots))
            if len(request.loads) == 1
            else []
        )
        within = request.cpu_cores <= cores + 1e-9 and request.ram_gib <= ram_gib + 1e-9
        if within or len(ids) < 2:
            kept.append(request)
            continue
        split = _runs([by_id[i] for i in ids], cores, ram_gib)
        runs.extend(split[:-1])
        tails.extend(split[-1])
    # The GPUs' last, partly filled runs go together, so that splitting twelve desktops into
    # ten and two on every GPU does not leave a GPU of two each time.
    runs.extend(_runs(tails, cores, ram_gib) if tails else [])
    if not runs:
        return packing
    not_placed = list(packing.not_placed)
    for run in runs:
        repacked = pack(method, run, model, scenario, "heuristic")
        kept.extend(repacked.requests)
        not_placed.extend(repacked.not_placed)
    return replace(
        packing,
        requests=tuple(kept),
        not_placed=tuple(not_placed),
        status=SolveStatus.HEURISTIC,
    )


def _runs(instances: Sequence[Instance], cores: float, ram_gib: float) -> list[list[Instance]]:
    """``instances`` in order, cut into runs that need at most ``cores`` and ``ram_gib``."""
    runs: list[list[Instance]] = []
    run: list[Instance] = []
    run_cores = run_ram = 0.0
    for instance in instances:
        workload = instance.workload
        full = (
            run_cores + workload.vcpus > cores + 1e-9 or run_ram + workload.ram_gib > ram_gib + 1e-9
        )
        if run and full:
            runs.append(run)
            run, run_cores, run_ram = [], 0.0, 0.0
        run.append(instance)
        run_cores += workload.vcpus
        run_ram += workload.ram_gib
    runs.append(run)
    return runs


@dataclass(frozen=True)
class PoolFit:
    """Stage A and B for one batch of instances on one GPU model."""

    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    gpu_configs: dict[tuple[str, int], str]
    pool: HostPool
    packings: tuple[GpuPacking, ...]
    """Every stage-A packing whose requests were committed (one when it all fitted at once)."""


def fit_on_pool(
    method: Method,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    pool: HostPool,
    mode: PackMode,
) -> PoolFit:
    """Pack ``instances`` on ``model`` and place them on a copy of ``pool``'s hosts, by priority
    (the copy, with what was placed taken, is ``PoolFit.pool``)."""
    first = pack(method, instances, model, scenario, mode)
    trial = pool.copy()
    assigned = assign_hosts(first.requests, trial)
    if not assigned.not_placed:
        trial, assigned = _on_fewest_hosts(first.requests, pool, (trial, assigned), scenario)
        return PoolFit(
            assigned.placements,
            first.not_placed,
            assigned.gpu_configs,
            trial,
            (first,),
        )
    shortfall = len({n.instance for n in assigned.not_placed})
    fitted, fitting = _longest_fitting_run(method, instances, model, scenario, pool, shortfall)
    committed = _Committed(pool.copy())
    if fitting is not None:
        # The packing of the longest run that fitted, placed for real.
        committed.add(fitting)
    # The rest is packed level by level into what is left, most urgent first.
    rest = instances[fitted:]
    for level in sorted({i.workload.priority for i in rest}):
        subset = [i for i in rest if i.workload.priority == level]
        committed.add(pack(method, subset, model, scenario, "heuristic"))
        committed.fill_free_room(method, subset, model, scenario)
    return PoolFit(
        tuple(committed.placements),
        tuple(committed.not_placed),
        committed.configs,
        committed.pool,
        tuple(committed.packings),
    )


def _on_fewest_hosts(
    requests: Sequence[HostRequest],
    pool: HostPool,
    placed: tuple[HostPool, HostAssignment],
    scenario: Scenario,
) -> tuple[HostPool, HostAssignment]:
    """``requests``, all placed on a copy of ``pool`` by best fit (``placed``), on fewer of its
    hosts where hosts set up by configuration hold them (``hosts.on_fewer_hosts``); only for a
    pool of untouched hosts of one shape, as a single method's fit starts with."""
    shapes = {(h.gpu_model, h.gpus, h.cpu_cores, h.ram_gib) for h in pool.hosts}
    if len(shapes) != 1 or pool.hosts_in_use() or pool.opened:
        return placed
    fewer = on_fewer_hosts(
        requests,
        pool.hosts,
        pool.hosts[0],
        in_use=placed[0].hosts_in_use(),
        time_limit_s=scenario.assumptions.time_limit_s,
    )
    return placed if fewer is None else fewer


def _longest_fitting_run(
    method: Method,
    instances: Sequence[Instance],
    model: GpuModel,
    scenario: Scenario,
    pool: HostPool,
    shortfall: int,
) -> tuple[int, GpuPacking | None]:
    """The longest run of instances, in priority order, that fits whole on ``pool`` when packed
    together, and its packing: whole priority levels first, then a bisection inside the first
    level that does not fit, first probing ``shortfall`` instances fewer. Placement is
    deterministic, so the run fits again when placed."""
    fitting: GpuPacking | None = None

    def attempt(count: int) -> bool:
        nonlocal fitting
        packing = pack(method, instances[:count], model, scenario, "heuristic")
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
    # The first probe drops as many instances as host assignment could not place: usually close.
    probes = [max(fitted + 1, failed - shortfall)]
    for _ in range(_MAX_BISECTIONS + 1):
        probe = probes.pop() if probes else (fitted + failed) // 2
        if failed - fitted <= 1:
            break
        if not fitted < probe < failed:
            continue
        if attempt(probe):
            fitted = probe
        else:
            failed = probe
    return fitted, fitting


@dataclass
class _Committed:
    """Packings placed for real on a pool, with what they placed and left out."""

    pool: HostPool
    packings: list[GpuPacking] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    not_placed: list[NotPlaced] = field(default_factory=list)
    configs: dict[tuple[str, int], str] = field(default_factory=dict)

    def add(self, packing: GpuPacking) -> None:
        result = assign_hosts(packing.requests, self.pool)
        self.packings.append(packing)
        self.placements.extend(result.placements)
        self.not_placed.extend(packing.not_placed)
        self.not_placed.extend(result.not_placed)
        self.configs.update(result.gpu_configs)

    def fill_free_room(
        self,
        method: Method,
        instances: Sequence[Instance],
        model: GpuModel,
        scenario: Scenario,
    ) -> None:
        """Those of ``instances`` still left out packed again into what is free, round after
        round: GPUs holding no more instances than the cores and RAM of the host with a free
        GPU and most cores free (``spread``). Packed for an empty host, a GPU of desktops may
        need more cores than any host has left while many hosts have a free GPU and some."""
        for _ in range(_FILL_ROUNDS):
            missed = {n.instance for n in self.not_placed}
            waiting = [i for i in instances if i.id in missed]
            room = self.pool.most_free(model.name)
            if not waiting or room is None:
                return
            packing = pack(method, waiting, model, scenario, "heuristic")
            packing = spread(
                method, packing, waiting, model, scenario, cores=room[0], ram_gib=room[1]
            )
            result = assign_hosts(packing.requests, self.pool)
            if not result.placements:
                return
            placed = {p.instance for p in result.placements}
            self.packings.append(packing)
            self.placements.extend(result.placements)
            self.configs.update(result.gpu_configs)
            self.not_placed = [n for n in self.not_placed if n.instance not in placed]
            seen = {n.instance for n in self.not_placed}
            self.not_placed.extend(
                n
                for n in (*packing.not_placed, *result.not_placed)
                if n.instance not in seen and n.instance not in placed
            )


_FILL_ROUNDS = 8
"""Rounds of packing what is left out into the room left (``_Committed.fill_free_room``)."""


def _placed_bound(
    method: Method,
    fit: PoolFit,
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
    return pack(method, kept, model, scenario, "heuristic").lower_bound_gpus


def _eligible_kinds(
    method: Method, workload: WorkloadClass, kinds: Sequence[GpuKind], scenario: Scenario
) -> tuple[list[GpuKind], str]:
    """The kinds ``workload`` may use under ``method``, and why none when the list is empty."""
    if not kinds:
        return [], f"no host in the inventory can serve {method.label}"
    eligible: list[GpuKind] = []
    reasons: list[str] = []
    for kind in kinds:
        reason = workload_reason(
            method, workload, kind.model, kind.platform, scenario.catalog, scenario.assumptions
        )
        if reason is None:
            eligible.append(kind)
        elif reason not in reasons:
            reasons.append(reason)
    if not eligible and workload.gpu_models:
        if not any(k.model.name in workload.gpu_models for k in kinds):
            wanted = ", ".join(workload.gpu_models)
            return [], f"restricted to {wanted}; no usable host has those GPUs for {method.label}"
        reasons = [r for r in reasons if not r.startswith("restricted to ")]
    return eligible, "; ".join(reasons)


def _spread(
    instances: Sequence[Instance],
    eligible: Mapping[str, list[GpuKind]],
    capacity_gpus: Mapping[GpuKind, int],
) -> dict[str, GpuKind]:
    """Instance id -> GPU kind, water-filling the share of each kind's GPUs asked for.

    Classes with a single eligible kind are counted first, so flexible classes fill around
    them. Demand is estimated as ``max(gpus, memory / GPU memory)`` GPUs per instance.
    """
    asked: dict[GpuKind, float] = dict.fromkeys(capacity_gpus, 0.0)
    choice: dict[str, GpuKind] = {}
    forced = [i for i in instances if len(eligible[i.workload.name]) == 1]
    flexible = [i for i in instances if len(eligible[i.workload.name]) > 1]
    for instance in [*forced, *flexible]:
        workload = instance.workload
        best: GpuKind | None = None
        best_share = math.inf
        for kind in eligible[workload.name]:
            demand = max(workload.gpus, workload.memory_gib / kind.model.memory_gib)
            share = (asked[kind] + demand) / capacity_gpus[kind]
            if share < best_share:
                best, best_share = kind, share
        assert best is not None  # every instance here has at least one eligible kind
        asked[best] += max(workload.gpus, workload.memory_gib / best.model.memory_gib)
        choice[instance.id] = best
    return choice


@dataclass
class _Progress:
    """What the fit of one method over the GPU kinds has placed so far (mutable)."""

    placements: list[Placement] = field(default_factory=list)
    not_placed: list[NotPlaced] = field(default_factory=list)
    configs: dict[tuple[str, int], str] = field(default_factory=dict)
    bound: int = 0
    statuses: list[SolveStatus] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fits: dict[GpuKind, int] = field(default_factory=dict)
    """Batches fitted per kind: more than one means instances moved between kinds."""

    def take(self, fit: HostFit) -> None:
        """Record a method's placement straight onto hosts."""
        self.placements.extend(fit.placements)
        self.not_placed.extend(fit.not_placed)
        self.configs.update(fit.gpu_configs)
        self.bound += fit.lower_bound_gpus
        self.statuses.append(SolveStatus.HEURISTIC)
        self.notes.extend(fit.notes)

    def status(self) -> SolveStatus:
        """Proven optimal when the GPUs meet the bound, else what the packings say."""
        if len(self.configs) == self.bound:
            return SolveStatus.OPTIMAL
        if any(n > 1 for n in self.fits.values()):
            return SolveStatus.HEURISTIC
        if SolveStatus.LIMIT_REACHED in self.statuses:
            return SolveStatus.LIMIT_REACHED
        if self.statuses and all(s is SolveStatus.OPTIMAL for s in self.statuses):
            return SolveStatus.OPTIMAL
        return SolveStatus.HEURISTIC


def _triage(
    method: Method, scenario: Scenario, kinds: Sequence[GpuKind], instances: Sequence[Instance]
) -> tuple[dict[str, list[GpuKind]], list[Instance], list[NotPlaced]]:
    """Each class's eligible kinds; the instances with one, and the others not placed."""
    eligible: dict[str, list[GpuKind]] = {}
    why_not: dict[str, str] = {}
    for workload in scenario.workloads:
        eligible[workload.name], why_not[workload.name] = _eligible_kinds(
            method, workload, kinds, scenario
        )
    servable = [i for i in instances if eligible[i.workload.name]]
    not_placed = [
        NotPlaced(i.id, i.workload.name, why_not[i.workload.name])
        for i in instances
        if not eligible[i.workload.name]
    ]
    return eligible, servable, not_placed


def _fit_kinds(
    method: Method,
    scenario: Scenario,
    servable: Sequence[Instance],
    eligible: Mapping[str, list[GpuKind]],
    hosts: Mapping[GpuKind, list[Host]],
    mode: PackMode,
    progress: _Progress,
) -> None:
    """Pack and place ``servable`` kind by kind; what a kind cannot hold tries the next one."""
    order = {instance.id: n for n, instance in enumerate(servable)}
    capacity = {kind: sum(h.gpus for h in group) for kind, group in hosts.items()}
    choice = _spread(servable, eligible, capacity)
    pending: dict[GpuKind, list[Instance]] = {}
    for instance in servable:
        pending.setdefault(choice[instance.id], []).append(instance)
    pools = {kind: HostPool(group) for kind, group in hosts.items()}
    tried: dict[str, list[GpuKind]] = {}
    failures: dict[str, list[str]] = {}
    while True:
        kind = next((k for k in hosts if pending.get(k)), None)
        if kind is None:
            return
        batch = sorted(pending.pop(kind), key=lambda i: order[i.id])
        fit = fit_on_pool(method, batch, kind.model, scenario, pools[kind], mode)
        pools[kind] = fit.pool
        progress.fits[kind] = progress.fits.get(kind, 0) + 1
        progress.placements.extend(fit.placements)
        progress.configs.update(fit.gpu_configs)
        progress.bound += _placed_bound(method, fit, batch, kind.model, scenario)
        for packing in fit.packings:
            one = len(fit.packings) == 1
            progress.statuses.append(packing.status if one else SolveStatus.HEURISTIC)
            progress.notes.extend(n for n in packing.notes if n not in progress.notes)
        by_id = {i.id: i for i in batch}
        for miss in fit.not_placed:
            tried.setdefault(miss.instance, []).append(kind)
            failures.setdefault(miss.instance, []).append(f"on {kind.label}: {miss.reason}")
            untried = [k for k in eligible[miss.workload] if k not in tried[miss.instance]]
            if untried:
                pending.setdefault(untried[0], []).append(by_id[miss.instance])
                continue
            reasons = failures[miss.instance]
            reason = miss.reason if len(reasons) == 1 else "; ".join(reasons)
            progress.not_placed.append(NotPlaced(miss.instance, miss.workload, reason))


@collector_paused()
def plan_method(method: Method, scenario: Scenario, *, exact: bool | None = None) -> MethodPlan:
    """Fit the scenario's workloads to its inventory under one sharing method (question 1).

    Parameters
    ----------
    method : the sharing method.
    scenario : catalog, inventory, workloads and assumptions.
    exact : True for the exact packer, False for the heuristic, None for exact where it solves
        within the solver's work limit (small or pattern-structured cases), else heuristic.

    Returns
    -------
    MethodPlan : placements on the inventory's hosts, instances not placed with the reason, the
        lower bound on GPUs for the placed instances (given each instance's GPU kind) and the
        solve status: OPTIMAL only when proven.
    """
    started = time.perf_counter()
    mode: PackMode = "auto" if exact is None else ("exact" if exact else "heuristic")
    hosts = usable_kinds(method, scenario)
    instances = instances_of(scenario.workloads)
    eligible, servable, not_placed = _triage(method, scenario, list(hosts), instances)
    progress = _Progress(not_placed=not_placed)
    plan_hosts = scenario.inventory.hosts
    usable = {h.name for group in hosts.values() for h in group}
    direct = METHODS[method].fit_hosts(
        servable,
        [h for h in scenario.inventory.hosts if h.name in usable],
        {w: tuple(dict.fromkeys(k.model.name for k in kinds)) for w, kinds in eligible.items()},
        scenario,
    )
    if direct is None:
        _fit_kinds(method, scenario, servable, eligible, hosts, mode, progress)
    else:
        progress.take(direct)
        plan_hosts = _with_hosts(scenario.inventory.hosts, direct.hosts)
    if len(progress.fits) > 1:
        progress.notes.append(
            "The lower bound holds for the GPU model each instance was given; "
            "instances eligible on several models were spread by remaining capacity."
        )
    order = {instance.id: n for n, instance in enumerate(instances)}
    progress.not_placed.sort(key=lambda n: order[n.instance])
    return MethodPlan(
        method=method,
        placements=tuple(progress.placements),
        not_placed=tuple(progress.not_placed),
        gpu_configs=progress.configs,
        lower_bound_gpus=progress.bound,
        status=progress.status(),
        solve_seconds=time.perf_counter() - started,
        notes=tuple(progress.notes),
        hosts=plan_hosts,
        roles=dict.fromkeys(progress.configs, method),
    )


def _with_hosts(inventory: Sequence[Host], changed: Sequence[Host]) -> tuple[Host, ...]:
    """The inventory's hosts, each replaced by its namesake in ``changed`` when there is one."""
    by_name = {h.name: h for h in changed}
    return tuple(by_name.get(h.name, h) for h in inventory)


def _host_lower_bound(gpus_bound: int, cores: float, ram_gib: float, server: ServerType) -> int:
    """No cluster of ``server`` hosts smaller than this holds the GPUs, cores and RAM."""
    by_gpus = math.ceil(gpus_bound / server.gpus) if server.gpus > 0 else 0
    by_cores = math.ceil(cores / server.cpu_cores - 1e-9) if server.cpu_cores > 0 else 0
    by_ram = math.ceil(ram_gib / server.ram_gib - 1e-9) if server.ram_gib > 0 else 0
    return max(by_gpus, by_cores, by_ram)


_EXACT_HOSTS_MAX_REQUESTS = 40
"""Host counts are proven by MILP when stage A gives at most this many requests."""


def _servable_on(
    method: Method, scenario: Scenario, server: ServerType, instances: Sequence[Instance]
) -> tuple[list[Instance], list[NotPlaced]]:
    """The instances a cluster of ``server`` can serve under ``method``, and why not the rest."""
    catalog = scenario.catalog
    unusable = host_reason(method, server.host(0), catalog)
    model = catalog.gpus.get(server.gpu_model)
    servable: list[Instance] = []
    not_placed: list[NotPlaced] = []
    reasons: dict[str, str | None] = {}
    for instance in instances:
        workload = instance.workload
        if unusable is not None or model is None:
            why = unusable or f"GPU model {server.gpu_model} is not in the catalog"
            not_placed.append(NotPlaced(instance.id, workload.name, f"server type: {why}"))
            continue
        if workload.name not in reasons:
            reasons[workload.name] = workload_reason(
                method, workload, model, server.platform, catalog, scenario.assumptions
            )
        reason = reasons[workload.name]
        if reason is None:
            servable.append(instance)
        else:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
    return servable, not_placed


@dataclass(frozen=True)
class _Sized:
    """Stage A and B on a growing cluster of one server type."""

    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    configs: dict[tuple[str, int], str]
    hosts: tuple[Host, ...]
    bound: int
    status: SolveStatus
    notes: tuple[str, ...]


def _size(
    method: Method, scenario: Scenario, server: ServerType, servable: Sequence[Instance]
) -> _Sized:
    """Pack ``servable`` on servers opened as needed, then minimise the host count."""
    model = scenario.catalog.gpus[server.gpu_model]
    packing = pack(method, servable, model, scenario, "auto")
    pool = HostPool((), open_host=server.host)
    assigned = assign_hosts(packing.requests, pool)
    # Instances no server holds stay left out when the hosts are assigned again below.
    left_out = (*packing.not_placed, *assigned.not_placed)
    dropped = {n.instance for n in assigned.not_placed}
    placed_requests = [
        r
        for r in packing.requests
        if not any(s.instance in dropped for ld in r.loads for s in ld.slots)
    ]
    gpu_bound = packing.lower_bound_gpus
    if dropped:
        # The bound must cover only what was placed: instances too big for one server are out.
        kept = [i for i in servable if i.id not in dropped]
        gpu_bound = pack(method, kept, model, scenario, "heuristic").lower_bound_gpus
    cores = sum(r.cpu_cores for r in placed_requests)
    ram = sum(r.ram_gib for r in placed_requests)
    host_bound = _host_lower_bound(gpu_bound, cores, ram, server)
    hosts_proven = pool.opened == host_bound
    if not hosts_proven:
        exact_hosts = min_hosts(
            placed_requests,
            server.host(0),
            upper_bound=pool.opened,
            time_limit_s=scenario.assumptions.time_limit_s,
            max_assigned=_EXACT_HOSTS_MAX_REQUESTS,
        )
        if exact_hosts is not None:
            assignment, proven = exact_hosts
            if max(assignment, default=-1) + 1 < pool.opened:
                pool = HostPool([server.host(i) for i in range(max(assignment) + 1)])
                pool.opened = len(pool.hosts)
                assigned = assign_hosts(placed_requests, pool, fixed=assignment)
                left_out = (*left_out, *assigned.not_placed)
            hosts_proven = proven and packing.status is SolveStatus.OPTIMAL
    if len(assigned.gpu_configs) == gpu_bound:
        status = SolveStatus.OPTIMAL
    else:
        status = SolveStatus.HEURISTIC if dropped else packing.status
    proof = "proven minimum" if hosts_proven else f"no cluster needs fewer than {host_bound}"
    note = (
        f"{len(pool.hosts)} hosts of {server.gpus} × {server.gpu_model}, "
        f"{server.cpu_cores:g} cores, {server.ram_gib:g} GiB RAM ({proof})."
    )
    return _Sized(
        placements=assigned.placements,
        not_placed=left_out,
        configs=assigned.gpu_configs,
        hosts=tuple(pool.hosts),
        bound=gpu_bound,
        status=status,
        notes=(*packing.notes, note),
    )


@collector_paused()
def size_method(method: Method, scenario: Scenario, server: ServerType) -> MethodPlan:
    """Size a cluster of ``server`` hosts for the scenario's workloads (question 2).

    Opens hosts of ``server`` as needed (``MethodPlan.hosts`` lists them). Stage A uses the
    exact packer where it solves in time; the host count is then minimised exactly where the
    requests come in few kinds (cutting stock over host configurations) or are few (a MILP
    over the requests), best fit otherwise. The notes give the host count and a
    lower bound on it: the larger of GPUs, cores and RAM over one server's.
    """
    started = time.perf_counter()
    instances = instances_of(scenario.workloads)
    servable, not_placed = _servable_on(method, scenario, server, instances)
    sized = _Sized((), (), {}, (), 0, SolveStatus.OPTIMAL, ())
    if servable:
        sized = _size(method, scenario, server, servable)
    order = {instance.id: n for n, instance in enumerate(instances)}
    missed = sorted([*not_placed, *sized.not_placed], key=lambda n: order[n.instance])
    return MethodPlan(
        method=method,
        placements=sized.placements,
        not_placed=tuple(missed),
        gpu_configs=sized.configs,
        lower_bound_gpus=sized.bound,
        status=sized.status,
        solve_seconds=time.perf_counter() - started,
        notes=sized.notes,
        hosts=sized.hosts,
        roles=dict.fromkeys(sized.configs, method),
    )
