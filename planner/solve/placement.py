"""Placement: the MILP's counts put on hosts, and what did not fit placed again.

The instances each option got are packed by the method's own packer and put on that type's hosts
(host-wide methods on hosts of their own: ``place``); anything that does not fit is tried again
on the other options of its class, cheapest first (``retry``). Where a type's hosts could not
take its GPUs as packed, a type of few hosts is planned host by host (``_host_by_host``) and the
placement is also tried with the GPUs whose instances need most of a host's cores or RAM split
(``_spread_out``). Where a type's requests come in few kinds, hosts are set up by configuration
(``_fewest_hosts``), holding the most by priority when not all fit. What is still left out is
placed where moving or swapping GPUs whole between a type's hosts makes room (``make_room``),
then where the type's GPUs set on its hosts anew do (``rearrange``); hosts whose GPUs can all
move to the type's other hosts are emptied (``consolidate``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance
from planner.methods.contract import GpuKey, GpuView, PlanContext, RoleScope
from planner.methods.registry import METHODS, Method
from planner.plan import GpuLoad, GpuPacking, HostRequest, NotPlaced, Placement, Slot
from planner.scenario import Scenario
from planner.solve.counts import Counts, solve_counts
from planner.solve.feasibility import host_rule_problems
from planner.solve.hosts import (
    HostAssignment,
    HostPool,
    assign_hosts,
    min_hosts,
    min_hosts_by_configuration,
    most_by_configuration,
    on_fewer_hosts,
)
from planner.solve.options import HostType, Option, Rates, Refusal, one_type_per_host
from planner.solve.packing import fit_on_pool, instances_of, pack, spread
from planner.solve.room import GpuMove, MovableGpu, moves_emptying, room_for
from planner.words import counted

__all__ = [
    "Placing",
    "PlacingInputs",
    "cheapest_first",
    "consolidate",
    "fit",
    "host_usd_per_year",
    "make_room",
    "packed_host_by_host",
    "packing_batches",
    "place",
    "placed_per_option",
    "rearrange",
    "record",
    "retry",
    "roles_per_host",
    "shaped_instance",
]


@dataclass
class Placing:
    """The plan being placed (mutable)."""

    placements: list[Placement] = field(default_factory=list)
    configs: dict[tuple[str, int], str] = field(default_factory=dict)
    roles: dict[tuple[str, int], Method] = field(default_factory=dict)
    missed: dict[str, NotPlaced] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    free_hosts: dict[int, list[Host]] = field(default_factory=dict)
    """Host type -> hosts no host-wide role has taken, in name order."""
    shared: dict[int, HostPool] = field(default_factory=dict)
    """Host type -> the pool per-GPU roles place on."""
    crowded: set[int] = field(default_factory=set)
    """Host types whose hosts could not take every per-GPU role's GPUs as packed."""
    left_out_by_milp: int = 0
    """Instances the first MILP solve (no type held to what it took) left out: what placement
    leaves out beyond them, the MILP's summed cores and RAM promised."""


def packed_host_by_host(
    scenario: Scenario,
    model: GpuModel,
    per_host: Sequence[Mapping[Method, Sequence[Instance]]],
    isolated: Set[str],
) -> tuple[list[HostRequest], list[int], list[GpuPacking]]:
    """Each host's instances packed by their methods, isolated classes apart: the requests,
    the index of the host each must go to, and the packings."""
    requests: list[HostRequest] = []
    fixed: list[int] = []
    packings: list[GpuPacking] = []
    for j, on in enumerate(per_host):
        for method, instances in on.items():
            for batch in packing_batches(instances, isolated):
                packing = pack(method, batch, model, scenario, "auto")
                requests.extend(packing.requests)
                fixed.extend([j] * len(packing.requests))
                packings.append(packing)
    return requests, fixed, packings


def placed_per_option(
    placing: Placing, types: Sequence[HostType]
) -> dict[tuple[str, Method, int], int]:
    """(class, method, host type) -> instances placed so far."""
    type_of = {h.name: t for t, ht in enumerate(types) for h in ht.hosts}
    placed: dict[tuple[str, Method, int], set[str]] = {}
    for p in placing.placements:
        key = (p.workload, placing.roles[(p.host, p.gpu_index)], type_of[p.host])
        placed.setdefault(key, set()).add(p.instance)
    return {key: len(ids) for key, ids in placed.items()}


def roles_per_host(placing: Placing) -> dict[str, dict[Method, int]]:
    """Host name -> its GPUs per role, hosts in the order their GPUs were placed."""
    roles: dict[str, dict[Method, int]] = {}
    for (name, _), method in placing.roles.items():
        on = roles.setdefault(name, {})
        on[method] = on.get(method, 0) + 1
    return roles


def host_usd_per_year(host: Host, roles: Mapping[Method, int], rates: Rates) -> float:
    """One host in use at ``rates``, with ``roles`` (method -> its GPUs): its GPUs under their
    roles, the host and host-wide roles' networks [USD/year]."""
    return rates.host_usd_per_year(host) + sum(
        n * rates.gpu_usd_per_year(m, host)
        + (rates.network_usd_per_host_year(m, host) if METHODS[m].scope is RoleScope.HOST else 0.0)
        for m, n in roles.items()
    )


def _chosen_instances(
    scenario: Scenario, counts: Counts, found: Sequence[Option]
) -> dict[tuple[Method, int], list[Instance]]:
    """The instances of each (method, host type), most urgent first, shaped as the option packs
    them: each class's instances in id order (the most active first), handed to its options in
    the order the MILP lists them, those of methods that serve the idlest first last."""
    by_class: dict[str, list[tuple[Method, int, int]]] = {}
    for (name, method, t), n in counts.served.items():
        by_class.setdefault(name, []).append((method, t, n))
    for options_of_class in by_class.values():
        options_of_class.sort(key=lambda option: METHODS[option[0]].serves_idlest_first)
    option_of = {(o.workload, o.method, o.host_type): o for o in found}
    chosen: dict[tuple[Method, int], list[Instance]] = {}
    for instance in instances_of(scenario.workloads):
        queue = by_class.get(instance.workload.name)
        if not queue:
            continue
        method, t, n = queue[0]
        option = option_of[(instance.workload.name, method, t)]
        chosen.setdefault((method, t), []).append(shaped_instance(instance, option))
        if n == 1:
            queue.pop(0)
        else:
            queue[0] = (method, t, n - 1)
    return chosen


def shaped_instance(instance: Instance, option: Option) -> Instance:
    """The instance as ``option`` packs it (with the memory it sets aside)."""
    if option.reserve_gib is None:
        return instance
    return Instance(instance.id, option.shape(instance.workload))


def packing_batches(instances: Sequence[Instance], isolated: Set[str]) -> list[list[Instance]]:
    """The instances packed together: all classes but the isolated ones, then each isolated
    class on its own, so that it shares no GPU with another class."""
    mixed = [i for i in instances if i.workload.name not in isolated]
    alone: dict[str, list[Instance]] = {}
    for instance in instances:
        if instance.workload.name in isolated:
            alone.setdefault(instance.workload.name, []).append(instance)
    return [batch for batch in (mixed, *alone.values()) if batch]


def place(
    scenario: Scenario,
    types: Sequence[HostType],
    counts: Counts,
    placing: Placing,
    inputs: PlacingInputs,
    *,
    spreading: bool,
) -> None:
    """Per type: host-wide roles on hosts of their own first, then every per-GPU role's
    requests together on the rest; ``inputs.isolated`` classes share no GPU with another
    class; ``spreading``: see ``_place_shared``."""
    found, isolated = inputs.found, inputs.isolated
    chosen = _chosen_instances(scenario, counts, found)
    for o in found:
        if o.reserve_gib is not None and counts.served.get((o.workload, o.method, o.host_type)):
            note = (
                f"{o.workload}: {o.reserve_gib:.3g} GiB set aside per instance under "
                f"{o.method.label} on {types[o.host_type].model.name}, so that fewer share a "
                f"GPU and it stays within its slowdown limit ({o.slowdown:.2f}× bare metal)."
            )
            if note not in placing.notes:
                placing.notes.append(note)
    for t, host_type in enumerate(types):
        shared: list[tuple[Method, list[Instance]]] = []
        for method in METHODS:
            instances = chosen.get((method, t))
            if not instances:
                continue
            batches = packing_batches(instances, isolated)
            if METHODS[method].scope is not RoleScope.HOST:
                shared.extend((method, batch) for batch in batches)
                continue
            hosts = placing.free_hosts[t][: counts.hosts.get((method, t), 0)]
            del placing.free_hosts[t][: len(hosts)]
            pool = HostPool(hosts)
            for batch in batches:
                pool = fit(scenario, method, host_type, batch, pool, placing)
        placing.shared[t] = _place_shared(
            scenario,
            (t, host_type),
            placing.free_hosts[t],
            shared,
            placing,
            spreading=spreading,
            inputs=inputs,
        )


_EXACT_HOSTS_MAX_REQUESTS = 60
"""When best fit leaves requests out, hosts are assigned by MILP up to this many requests."""


def _place_shared(
    scenario: Scenario,
    typed: tuple[int, HostType],
    hosts: Sequence[Host],
    shared: Sequence[tuple[Method, list[Instance]]],
    placing: Placing,
    *,
    spreading: bool,
    inputs: PlacingInputs,
) -> HostPool:
    """Every per-GPU role's requests on the type's remaining hosts in one assignment (largest
    first, so roles fill hosts together; by priority or by size, whichever uses fewer hosts);
    when best fit leaves some out, an exact assignment on the same hosts is tried, then on a
    type of at most ``_BY_HOST_MAX_HOSTS`` hosts the plan host by host (``_host_by_host``), and
    with ``spreading`` the GPUs whose instances need most of a host's cores or RAM are split
    (``_spread_out``); each kept when it leaves fewer instances out."""
    t, host_type = typed
    method_of: dict[str, Method] = {}
    requests: list[HostRequest] = []
    packings: list[tuple[Method, list[Instance], GpuPacking]] = []
    for method, instances in shared:
        packing = pack(method, instances, host_type.model, scenario, "auto")
        packings.append((method, instances, packing))
        requests.extend(packing.requests)
        for instance in instances:
            method_of[instance.id] = method
        for miss in packing.not_placed:
            placing.missed[miss.instance] = miss
        placing.notes.extend(n for n in packing.notes if n not in placing.notes)
    pool, assigned = _fewest_hosts(scenario, host_type, hosts, requests)
    if assigned.not_placed:
        placing.crowded.add(t)
        if len(hosts) <= _BY_HOST_MAX_HOSTS:
            one_by_one = _host_by_host(scenario, typed, hosts, shared, inputs)
            if one_by_one is not None and _assignment_rank(
                scenario, one_by_one[1]
            ) < _assignment_rank(scenario, assigned):
                pool, assigned = one_by_one
    if assigned.not_placed and spreading:
        pool, assigned = _spread_out(scenario, host_type, hosts, packings, (pool, assigned))
    record(assigned.placements, assigned.gpu_configs, assigned.not_placed, method_of, placing)
    return pool


def _fewest_hosts(
    scenario: Scenario,
    host_type: HostType,
    hosts: Sequence[Host],
    requests: Sequence[HostRequest],
) -> tuple[HostPool, HostAssignment]:
    """The requests on the type's ``hosts`` by best fit (``assign_hosts``, fewest hosts), then on
    fewer hosts by configuration (``hosts.on_fewer_hosts``); where best fit left some out, on
    any of the hosts by configuration or, for at most ``_EXACT_HOSTS_MAX_REQUESTS`` requests, by
    assigning each (``hosts.min_hosts``), kept when that places them all; else the most, by
    priority, that the hosts set up by configuration hold (``hosts.most_by_configuration``),
    kept when that leaves fewer out than best fit."""
    pool = HostPool(hosts)
    assigned = assign_hosts(requests, pool, fewest_hosts=True)
    best_fit = (pool, assigned)
    limit = scenario.assumptions.time_limit_s
    if not assigned.not_placed:
        fewer = on_fewer_hosts(
            requests, hosts, host_type.shape, in_use=pool.hosts_in_use(), time_limit_s=limit
        )
        return best_fit if fewer is None else fewer
    host_of = min_hosts(
        requests,
        host_type.shape,
        upper_bound=len(hosts),
        time_limit_s=limit,
        max_assigned=_EXACT_HOSTS_MAX_REQUESTS,
    )
    if host_of is not None:
        fewer_pool = HostPool(hosts)
        placed = assign_hosts(requests, fewer_pool, fixed=host_of[0])
        return best_fit if placed.not_placed else (fewer_pool, placed)
    # Not all fit: the most, by priority, that hosts set up by configuration hold.
    most = most_by_configuration(requests, host_type.shape, hosts=len(hosts), time_limit_s=limit)
    if most is None:
        return best_fit
    filled = HostPool(hosts)
    placed = assign_hosts(requests, filled, fixed=most)
    if _assignment_rank(scenario, placed) < _assignment_rank(scenario, assigned):
        return filled, placed
    return best_fit


def _spread_out(
    scenario: Scenario,
    host_type: HostType,
    hosts: Sequence[Host],
    packings: Sequence[tuple[Method, list[Instance], GpuPacking]],
    as_packed: tuple[HostPool, HostAssignment],
) -> tuple[HostPool, HostAssignment]:
    """The type's per-GPU requests with no GPU's instances taking more of a host's cores and
    RAM than a cap (``packing.spread``; caps from ``_spread_caps``, largest first), for the
    largest cap whose assignment leaves nothing out, else the one that leaves out least by
    priority, counted in GPUs (``_gpus_left_out_rank``)."""
    best = as_packed
    for cores, ram_gib in _spread_caps(host_type, [r for *_, p in packings for r in p.requests]):
        requests = [
            r
            for method, instances, packing in packings
            for r in spread(
                method, packing, instances, host_type.model, scenario, cores=cores, ram_gib=ram_gib
            ).requests
        ]
        pool, assigned = _fewest_hosts(scenario, host_type, hosts, requests)
        if _gpus_left_out_rank(scenario, assigned) < _gpus_left_out_rank(scenario, best[1]):
            best = (pool, assigned)
        if not assigned.not_placed:
            break
    return best


def _spread_caps(host_type: HostType, requests: Sequence[HostRequest]) -> list[tuple[float, float]]:
    """(cores, RAM) a shared GPU's instances may take, largest first: ``k/G`` of a host for
    ``k < G``, and what a host has left for ``j`` shared GPUs beside ``G − j`` of the lightest
    one-instance GPUs, ``(C − (G − j) c_min) / j`` (twelve 4-core desktops on a 64-core host
    leave room for two 8-core GPUs, ten leave room for three and use all four GPUs)."""
    shape, g = host_type.shape, host_type.gpus
    caps = {(shape.cpu_cores * k / g, shape.ram_gib * k / g) for k in range(1, g)}
    alone = [
        r
        for r in requests
        if len(r.loads) == 1 and len({s.instance for s in r.loads[0].slots}) == 1
    ]
    if alone:
        cores = min(r.cpu_cores for r in alone)
        ram = min(r.ram_gib for r in alone)
        for j in range(1, g):
            cap = ((shape.cpu_cores - (g - j) * cores) / j, (shape.ram_gib - (g - j) * ram) / j)
            if min(cap) > 0:
                caps.add(cap)
    return sorted(caps, reverse=True)


def _assignment_rank(scenario: Scenario, assigned: HostAssignment) -> tuple[list[int], int]:
    """Assignments compared: fewest instances left out by priority, then fewest GPUs."""
    priority = {w.name: w.priority for w in scenario.workloads}
    left = {(n.instance, priority[n.workload]) for n in assigned.not_placed}
    levels = sorted(set(priority.values()))
    return [sum(1 for _, p in left if p == level) for level in levels], len(assigned.gpu_configs)


def _gpus_left_out_rank(scenario: Scenario, assigned: HostAssignment) -> tuple[list[float], int]:
    """Assignments compared by the GPUs their left-out instances take per priority level, then
    fewest GPUs: what is left out is placed elsewhere, and eighteen 2-GPU training jobs cost
    more there than 179 desktops at a tenth of a GPU each."""
    by_name = {w.name: w for w in scenario.workloads}
    levels = sorted({w.priority for w in scenario.workloads})
    left: dict[str, str] = {n.instance: n.workload for n in assigned.not_placed}
    gpus = dict.fromkeys(levels, 0.0)
    for workload in left.values():
        gpus[by_name[workload].priority] += by_name[workload].gpus
    return [gpus[level] for level in levels], len(assigned.gpu_configs)


_BY_HOST_MAX_HOSTS = 16
"""A type whose hosts cannot take its per-GPU roles' GPUs as packed is planned host by host
(each host a type of its own in the MILP) when it has at most this many hosts."""


@dataclass(frozen=True)
class PlacingInputs:
    """What placing the MILP's counts works from besides the counts: the options, the rates
    (to plan a type host by host) and the classes kept apart from others."""

    found: Sequence[Option]
    rates: Rates
    isolated: Set[str]


def _host_by_host(
    scenario: Scenario,
    typed: tuple[int, HostType],
    hosts: Sequence[Host],
    shared: Sequence[tuple[Method, list[Instance]]],
    inputs: PlacingInputs,
) -> tuple[HostPool, HostAssignment] | None:
    """The type's per-GPU instances planned host by host: the MILP of ``solve_counts`` with each
    host a type of its own (so its cores, RAM and GPUs hold host by host, not summed), each
    (class, method) kept to the instances it has here; then each host's instances packed by
    their method and assigned to that host. ``None`` when the MILP finds nothing."""
    t, host_type = typed
    waiting: dict[tuple[str, Method], list[Instance]] = {}
    for method, instances in shared:
        for instance in instances:
            waiting.setdefault((instance.workload.name, method), []).append(instance)
    by_name = {w.name: w for w in scenario.workloads}
    names = {pair: f"{pair[0]} / {pair[1].value}" for pair in waiting}
    each_host, found = one_type_per_host(
        [HostType(host_type.model, host_type.shape, tuple(hosts))],
        [
            dataclasses.replace(o, workload=names[(o.workload, o.method)], host_type=0)
            for o in inputs.found
            if o.host_type == t and (o.workload, o.method) in waiting
        ],
    )
    one_by_one = dataclasses.replace(
        scenario,
        workloads=tuple(
            dataclasses.replace(by_name[name], name=names[(name, m)], instances=len(instances))
            for (name, m), instances in waiting.items()
        ),
    )
    counts = solve_counts(one_by_one, each_host, found, inputs.rates)
    if counts is None:
        return None
    per_host: list[dict[Method, list[Instance]]] = []
    for j in range(len(hosts)):
        on: dict[Method, list[Instance]] = {}
        for method in METHODS:
            for (name, m), instances in waiting.items():
                if m is method:
                    n = counts.served.get((names[(name, m)], m, j), 0)
                    on.setdefault(method, []).extend(instances[:n])
                    del instances[:n]
        per_host.append(on)
    requests, fixed, packings = packed_host_by_host(
        scenario, host_type.model, per_host, inputs.isolated
    )
    not_placed = [miss for packing in packings for miss in packing.not_placed]
    for (name, _), instances in waiting.items():
        not_placed.extend(
            NotPlaced(i.id, name, "the hosts it may use have no room left for it")
            for i in instances
        )
    pool = HostPool(hosts)
    assigned = assign_hosts(requests, pool, fixed=fixed)
    return pool, dataclasses.replace(assigned, not_placed=(*assigned.not_placed, *not_placed))


def record(
    placements: Sequence[Placement],
    configs: Mapping[tuple[str, int], str],
    not_placed: Sequence[NotPlaced],
    method_of: Mapping[str, Method],
    placing: Placing,
) -> None:
    """Add what an assignment placed, each GPU's role from the instances on it, and its misses."""
    placing.placements.extend(placements)
    placing.configs.update(configs)
    for p in placements:
        placing.roles[(p.host, p.gpu_index)] = method_of[p.instance]
        placing.missed.pop(p.instance, None)
    placed = {p.instance for p in placements}
    for miss in not_placed:
        if miss.instance not in placed:
            placing.missed[miss.instance] = miss


def fit(
    scenario: Scenario,
    method: Method,
    host_type: HostType,
    instances: Sequence[Instance],
    pool: HostPool,
    placing: Placing,
) -> HostPool:
    """Pack and place ``instances`` under ``method`` on ``pool``; record roles and misses, and
    return the pool with what was placed taken."""
    fit = fit_on_pool(method, instances, host_type.model, scenario, pool, "auto")
    placing.placements.extend(fit.placements)
    placing.configs.update(fit.gpu_configs)
    for key in fit.gpu_configs:
        placing.roles[key] = method
    for packing in fit.packings:
        placing.notes.extend(n for n in packing.notes if n not in placing.notes)
    placed = {p.instance for p in fit.placements}
    for miss in fit.not_placed:
        if miss.instance not in placed:
            placing.missed[miss.instance] = miss
    for instance in instances:
        if instance.id in placed:
            placing.missed.pop(instance.id, None)
    return fit.pool


def retry(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    refusals: Sequence[Refusal],
    placing: Placing,
) -> None:
    """Instances left out (by the MILP or by placement) try the other options of their class
    (``cheapest``: each class's, cheapest per instance first) on what is left: shared hosts'
    free GPUs, or whole free hosts for a host-wide method. One still left out says why under
    its cheapest option, and that the others had no room either."""
    _mark_left_out(scenario, cheapest, refusals, placing)
    by_class: dict[str, list[Instance]] = {}
    for instance in instances_of(scenario.workloads):
        if instance.id in placing.missed:
            by_class.setdefault(instance.workload.name, []).append(instance)
    for name, waiting in by_class.items():
        mine = cheapest.get(name, ())
        # Why each instance fits nowhere, as its cheapest option tried says it.
        first: dict[str, str] = {}
        for option in mine:
            waiting = [i for i in waiting if i.id in placing.missed]
            if not waiting:
                break
            pool = _retry_pool(option, types, placing)
            if pool is None:
                continue
            shaped = [shaped_instance(i, option) for i in waiting]
            fitted = fit(scenario, option.method, types[option.host_type], shaped, pool, placing)
            if METHODS[option.method].scope is not RoleScope.HOST:
                placing.shared[option.host_type] = fitted
            elif not fitted.hosts_in_use():
                # Nothing fitted on the whole host withdrawn for the method: others may use it.
                placing.shared[option.host_type].give_back(pool.hosts[0])
            tried = f"{option.method.label} on {types[option.host_type].model.name}"
            for i in waiting:
                if i.id in placing.missed and i.id not in first:
                    first[i.id] = f"{placing.missed[i.id].reason} under {tried}"
        _say_why(name, len(mine) - 1, first, placing)


def _say_why(name: str, others: int, first: Mapping[str, str], placing: Placing) -> None:
    """Each instance of class ``name`` still left out says why under its cheapest option
    (``first``), and that its ``others`` other options had no room either."""
    if others < 1:
        return
    for instance_id, reason in first.items():
        if instance_id in placing.missed:
            placing.missed[instance_id] = NotPlaced(
                instance_id,
                name,
                f"{reason}, its cheapest option; its {counted(others, 'other option')} had no "
                "room either",
            )


def _mark_left_out(
    scenario: Scenario,
    with_options: Mapping[str, object],
    refusals: Sequence[Refusal],
    placing: Placing,
) -> None:
    """Every instance neither placed nor yet missed is missed: for lack of room, or, for a
    class without options (not in ``with_options``), with each method's refusal."""
    placed = {p.instance for p in placing.placements}
    for instance in instances_of(scenario.workloads):
        if instance.id in placed or instance.id in placing.missed:
            continue
        name = instance.workload.name
        reason = "the estate has no room left for it"
        if name not in with_options:
            reason = "no method can serve it here: " + "; ".join(
                f"{r.method.label}: {r.reason}" for r in refusals if r.workload == name
            )
        placing.missed[instance.id] = NotPlaced(instance.id, name, reason)


def cheapest_first(
    found: Sequence[Option], types: Sequence[HostType], rates: Rates
) -> dict[str, list[Option]]:
    """Each class's options, cheapest per instance first."""
    by_class: dict[str, list[Option]] = {}
    for o in found:
        by_class.setdefault(o.workload, []).append(o)
    for options_of in by_class.values():
        options_of.sort(
            key=lambda o: (
                rates.gpu_usd_per_year(o.method, types[o.host_type].shape) * o.gpus_per_instance
            )
        )
    return by_class


def make_room(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    placing: Placing,
) -> None:
    """Instances still left out, most urgent first, each placed on its class's cheapest
    per-GPU option (``cheapest``: each class's, cheapest first) that can make room for it on a
    host of its type by moving or swapping GPUs whole (``room.room_for``): free GPUs may lie on
    hosts whose cores are given out while others have cores and no free GPU."""
    waiting = _still_left_out(scenario, placing)
    if not waiting:
        return
    rows = _rows_by_host(placing)
    # Until a type changes, what found no room there (an option of classes alike, or a request
    # of one shape, whatever its class) finds none again; keys start with the type.
    no_room: set[tuple[object, ...]] = set()
    movable: dict[int, list[MovableGpu]] = {}
    for instance in waiting:
        name = instance.workload.name
        # Classes alike but for their name and size pack alike.
        alike = dataclasses.replace(instance.workload, name="", instances=1)
        for option in cheapest.get(name, ()):
            t = option.host_type
            tried = (t, option.method, option.reserve_gib, alike)
            if METHODS[option.method].scope is RoleScope.HOST or t not in placing.shared:
                continue
            if tried in no_room:
                continue
            if t not in movable:
                names = [host.name for host in placing.shared[t].hosts]
                movable[t] = _movable_on(scenario, names, rows, placing)
            touched = _placed_with_room(
                scenario, (types[t], option), instance, (movable[t], no_room), rows, placing
            )
            if touched:
                no_room = {k for k in no_room if k[0] != t}
                movable[t] = [g for g in movable[t] if g.key[0] not in touched]
                movable[t] += _movable_on(scenario, sorted(touched), rows, placing)
                break
            no_room.add(tried)


_REARRANGED_MAX_WAITING = 64
"""Instances still left out offered to one type's rearrangement, most urgent first."""


def rearrange(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    placing: Placing,
) -> None:
    """Instances still left out, placed where a type's GPUs set on its hosts anew make room:
    every GPU of a per-GPU role there keeps its set-up and instances (those sharing a
    multi-GPU instance stay together) and goes, with the waiting instances' requests, to hosts
    set up by configuration (``hosts.min_hosts_by_configuration``), as many waiting instances
    as fit, most urgent first. Moving a few GPUs (``make_room``) cannot pair free GPUs on
    hosts whose cores are given out with free cores on hosts whose GPUs are; kept when every
    host keeps its methods' host rules."""
    left = _still_left_out(scenario, placing)
    for t, pool in placing.shared.items():
        if not left:
            return
        waiting = _waiting_on(t, left, cheapest)
        if not waiting:
            continue
        host_type = types[t]
        names = {host.name for host in pool.hosts}
        on_type = [p for p in placing.placements if p.host in names]
        held = _gpus_as_requests(scenario, host_type, on_type, placing)
        if held is None:
            continue
        units, roles_of = held
        fits = _most_that_fit(scenario, host_type, pool.hosts, units, waiting)
        if fits is None:
            continue
        trial, assigned, taken = fits
        method_of = {**roles_of, **{i: option.method for i, (option, _) in taken.items()}}
        roles = {(p.host, p.gpu_index): method_of[p.instance] for p in assigned.placements}
        if _host_rules_broken(
            scenario, host_type, trial.hosts, assigned.placements, assigned.gpu_configs, roles
        ):
            continue
        placing.placements[:] = [p for p in placing.placements if p.host not in names]
        for key in [k for k in placing.configs if k[0] in names]:
            del placing.configs[key]
            del placing.roles[key]
        placing.placements.extend(assigned.placements)
        placing.configs.update(assigned.gpu_configs)
        placing.roles.update(roles)
        for instance in taken:
            placing.missed.pop(instance, None)
        placing.shared[t] = trial
        left = [i for i in left if i.id not in taken]


def _waiting_on(
    t: int, left: Sequence[Instance], cheapest: Mapping[str, Sequence[Option]]
) -> list[tuple[Option, Instance]]:
    """The instances ``left`` out (most urgent first) that have a per-GPU option on type ``t``
    (the cheapest there), at most ``_REARRANGED_MAX_WAITING``."""
    waiting: list[tuple[Option, Instance]] = []
    for instance in left:
        option = next(
            (
                o
                for o in cheapest.get(instance.workload.name, ())
                if o.host_type == t and METHODS[o.method].scope is not RoleScope.HOST
            ),
            None,
        )
        if option is not None:
            waiting.append((option, instance))
        if len(waiting) == _REARRANGED_MAX_WAITING:
            break
    return waiting


def _gpus_as_requests(
    scenario: Scenario, host_type: HostType, placed: Sequence[Placement], placing: Placing
) -> tuple[list[HostRequest], dict[str, Method]] | None:
    """The GPUs of ``placed`` as requests to place again, one per set of GPUs a multi-GPU
    instance ties to one host, with the cores and RAM their instances take, and each
    instance's role; None when a GPU there has a host-wide role."""
    by_name = {w.name: w for w in scenario.workloads}
    on_gpu: dict[GpuKey, list[Placement]] = {}
    for p in placed:
        on_gpu.setdefault((p.host, p.gpu_index), []).append(p)
    if any(METHODS[placing.roles[key]].scope is RoleScope.HOST for key in on_gpu):
        return None
    tied: dict[GpuKey, GpuKey] = {key: key for key in on_gpu}

    def root(key: GpuKey) -> GpuKey:
        while tied[key] != key:
            key = tied[key]
        return key

    first_of: dict[str, GpuKey] = {}
    for p in placed:
        key = (p.host, p.gpu_index)
        if p.instance in first_of:
            tied[root(key)] = root(first_of[p.instance])
        else:
            first_of[p.instance] = key
    units: dict[GpuKey, list[GpuKey]] = {}
    for key in on_gpu:
        units.setdefault(root(key), []).append(key)
    requests: list[HostRequest] = []
    roles_of: dict[str, Method] = {}
    for keys in units.values():
        loads: list[GpuLoad] = []
        counted: set[str] = set()
        cores = ram = 0.0
        priority = math.inf
        for key in keys:
            method = placing.roles[key]
            slots = tuple(
                Slot(p.instance, p.workload, p.profile, p.memory_gib, p.compute_share,
                     p.start_slice)
                for p in on_gpu[key]
            )  # fmt: skip
            loads.append(GpuLoad(host_type.model.name, placing.configs[key], slots))
            for p in on_gpu[key]:
                roles_of[p.instance] = method
                workload = by_name[p.workload]
                priority = min(priority, workload.priority)
                if p.instance not in counted and METHODS[method].instances_on_gpu_host:
                    counted.add(p.instance)
                    cores += workload.vcpus
                    ram += workload.ram_gib
        requests.append(HostRequest(host_type.model.name, tuple(loads), cores, ram, int(priority)))
    return requests, roles_of


def _most_that_fit(
    scenario: Scenario,
    host_type: HostType,
    hosts: Sequence[Host],
    units: Sequence[HostRequest],
    waiting: Sequence[tuple[Option, Instance]],
) -> tuple[HostPool, HostAssignment, dict[str, tuple[Option, HostRequest]]] | None:
    """``units`` and the requests of the longest run of ``waiting`` (each packed alone under
    its option) that hosts set up by configuration hold, assigned to a fresh pool of
    ``hosts``; None when not even the first fits."""
    asked: list[tuple[str, Option, HostRequest]] = []
    for option, instance in waiting:
        shaped = shaped_instance(instance, option)
        packing = pack(option.method, [shaped], host_type.model, scenario, "auto")
        if len(packing.requests) == 1 and not packing.not_placed:
            asked.append((instance.id, option, packing.requests[0]))

    def configured(count: int) -> list[int] | None:
        requests = [*units, *(r for _, _, r in asked[:count])]
        solved = min_hosts_by_configuration(
            requests,
            host_type.shape,
            upper_bound=len(hosts),
            time_limit_s=scenario.assumptions.time_limit_s,
        )
        return None if solved is None else solved[0]

    fitted, failed, host_of = 0, len(asked) + 1, None
    for count in dict.fromkeys((len(asked), 1)):
        host_of = configured(count)
        if host_of is not None:
            fitted = count
            break
        failed = count
    if host_of is None:
        return None
    while failed - fitted > 1:
        probe = (fitted + failed) // 2
        found = configured(probe)
        if found is None:
            failed = probe
        else:
            fitted, host_of = probe, found
    requests = [*units, *(r for _, _, r in asked[:fitted])]
    trial = HostPool(hosts)
    assigned = assign_hosts(requests, trial, fixed=host_of)
    if assigned.not_placed or not fitted:
        return None
    return trial, assigned, {i: (o, r) for i, o, r in asked[:fitted]}


def _still_left_out(scenario: Scenario, placing: Placing) -> list[Instance]:
    """The instances no placement holds yet, most urgent first (in scenario order within a
    priority)."""
    if not placing.missed:
        return []
    placed = {p.instance for p in placing.placements}
    return sorted(
        (
            i
            for i in instances_of(scenario.workloads)
            if i.id in placing.missed and i.id not in placed
        ),
        key=lambda i: i.workload.priority,
    )


def _rows_by_host(placing: Placing) -> dict[str, list[int]]:
    """Host -> the positions of its placements in ``placing.placements``."""
    rows: dict[str, list[int]] = {}
    for k, p in enumerate(placing.placements):
        rows.setdefault(p.host, []).append(k)
    return rows


def _rows_on(
    hosts: Sequence[str], rows: Mapping[str, Sequence[int]], placing: Placing
) -> list[Placement]:
    """The placements on ``hosts``, by the index ``rows`` (host -> positions)."""
    return [placing.placements[k] for name in hosts for k in rows.get(name, ())]


def _movable_on(
    scenario: Scenario, hosts: Sequence[str], rows: Mapping[str, Sequence[int]], placing: Placing
) -> list[MovableGpu]:
    """The GPUs on ``hosts`` that may move whole (``_movable_gpus``)."""
    return _movable_gpus(scenario, _rows_on(hosts, rows, placing), placing.roles)


def _placed_with_room(
    scenario: Scenario,
    typed: tuple[HostType, Option],
    instance: Instance,
    searched: tuple[Sequence[MovableGpu], set[tuple[object, ...]]],
    rows: dict[str, list[int]],
    placing: Placing,
) -> set[str]:
    """``instance`` packed alone under the option and placed on a host of the option's type
    once GPUs (``searched[0]``: those that may move) are moved off it or swapped to make room;
    kept (``placing`` and ``rows``, its placements' positions by host, changed) only when every
    host it touches keeps its methods' host rules. A request shape that finds no room is added
    to ``searched[1]`` and not sought again. The hosts touched; none when it was not placed."""
    host_type, option = typed
    movable, no_room = searched
    pool = placing.shared[option.host_type]
    packing = pack(
        option.method, [shaped_instance(instance, option)], host_type.model, scenario, "auto"
    )
    if len(packing.requests) != 1 or packing.not_placed:
        return set()
    request = packing.requests[0]
    shape = (option.host_type, len(request.loads), request.cpu_cores, request.ram_gib)
    if (*shape, request.host_group) in no_room:
        return set()
    room = room_for(request, pool, movable)
    if room is None:
        no_room.add((*shape, request.host_group))
        return set()
    trial = pool.copy()
    moved = _moved(trial, room.moves)
    assigned = assign_hosts([request], trial, fixed=[room.host])
    if assigned.not_placed:
        return set()
    touched = _kept(scenario, (host_type, option.method), (trial, moved, assigned), rows, placing)
    if touched:
        placing.missed.pop(instance.id, None)
        pool.adopt(trial)
    return touched


def consolidate(scenario: Scenario, types: Sequence[HostType], placing: Placing) -> None:
    """Hosts of per-GPU roles emptied, those with fewest GPUs in use first, where every GPU on
    one can move whole to free GPUs of its type's other hosts in use with the cores and RAM its
    instances take (``room.moves_emptying``): one host fewer for the same GPUs, kept when the
    hosts the GPUs land on keep their methods' host rules."""
    rows = _rows_by_host(placing)
    for t, pool in placing.shared.items():
        names = [host.name for host in pool.hosts]
        on_host: dict[str, list[MovableGpu]] = {}
        for gpu in _movable_on(scenario, names, rows, placing):
            on_host.setdefault(gpu.key[0], []).append(gpu)
        in_use = [i for i, host in enumerate(pool.hosts) if len(pool.free_gpus[i]) < host.gpus]
        targets = [i for i in in_use if pool.free_gpus[i]]
        for index in sorted(
            in_use, key=lambda i: (-len(pool.free_gpus[i]), -pool.free_cores[i], i)
        ):
            mine = on_host.get(pool.hosts[index].name, [])
            moves = moves_emptying(index, pool, mine, targets)
            if moves is None:
                continue
            trial = pool.copy()
            moved = _moved(trial, moves)
            touched = _kept(scenario, (types[t], None), (trial, moved, _NOTHING), rows, placing)
            if not touched:
                continue
            pool.adopt(trial)
            for name in touched:
                on_host.pop(name, None)
            for gpu in _movable_on(scenario, sorted(touched), rows, placing):
                on_host.setdefault(gpu.key[0], []).append(gpu)
            targets = [i for i in targets if pool.free_gpus[i] and i != index]


def _moved(trial: HostPool, moves: Sequence[GpuMove]) -> dict[GpuKey, GpuKey]:
    """Make ``moves`` on the pool ``trial``: each GPU moved, its old key -> its new one."""
    moved: dict[GpuKey, GpuKey] = {}
    for move in moves:
        source = trial.index_of(move.gpu.key[0])
        assert source is not None
        if move.swapped is None:
            gpu = trial.move_gpu(
                source, move.gpu.key[1], move.target, move.gpu.cores, move.gpu.ram_gib
            )
            moved[move.gpu.key] = (trial.hosts[move.target].name, gpu)
        else:
            given = (move.gpu.cores - move.swapped.cores, move.gpu.ram_gib - move.swapped.ram_gib)
            trial.swap_gpus(source, move.target, *given)
            moved[move.gpu.key] = move.swapped.key
            moved[move.swapped.key] = move.gpu.key
    return moved


_NOTHING = HostAssignment((), (), {})


def _kept(
    scenario: Scenario,
    typed: tuple[HostType, Method | None],
    made: tuple[HostPool, Mapping[GpuKey, GpuKey], HostAssignment],
    rows: dict[str, list[int]],
    placing: Placing,
) -> set[str]:
    """GPUs ``moved`` on the pool ``trial`` and what was ``assigned`` there (set up by the
    method) written into ``placing`` (and ``rows``, its placements' positions by host) when
    every host touched keeps its methods' host rules: the hosts touched, none when not."""
    host_type, method = typed
    trial, moved, assigned = made
    assert method is not None or not assigned.gpu_configs
    touched = sorted(
        {key[0] for key in moved}
        | {key[0] for key in moved.values()}
        | {p.host for p in assigned.placements}
    )
    came_from = {new: old for old, new in moved.items()}
    after = [
        dataclasses.replace(p, host=moved[key][0], gpu_index=moved[key][1])
        if (key := (p.host, p.gpu_index)) in moved
        else p
        for p in _rows_on(touched, rows, placing)
    ]
    after += assigned.placements
    kept = {(p.host, p.gpu_index) for p in after} - assigned.gpu_configs.keys()
    configs = {k: placing.configs[came_from.get(k, k)] for k in kept} | assigned.gpu_configs
    roles = {k: placing.roles[came_from.get(k, k)] for k in kept}
    if method is not None:
        roles.update(dict.fromkeys(assigned.gpu_configs, method))
    if _host_rules_broken(scenario, host_type, trial.hosts, after, configs, roles):
        return set()
    positions = [k for name in touched for k in rows.pop(name, ())]
    positions += range(len(placing.placements), len(placing.placements) + len(assigned.placements))
    placing.placements.extend(assigned.placements)
    for k, p in zip(positions, after, strict=True):
        placing.placements[k] = p
        rows.setdefault(p.host, []).append(k)
    for old in moved:
        placing.configs.pop(old, None)
        placing.roles.pop(old, None)
    placing.configs.update(configs)
    placing.roles.update(roles)
    return set(touched)


def _movable_gpus(
    scenario: Scenario, placements: Sequence[Placement], roles: Mapping[GpuKey, Method]
) -> list[MovableGpu]:
    """The GPUs of per-GPU roles among ``placements`` (every placement on their hosts) whose
    instances all lie on that GPU alone, with the cores and RAM they take on its host (an
    instance's GPUs lie on one host)."""
    by_name = {w.name: w for w in scenario.workloads}
    gpus_of: dict[str, set[GpuKey]] = {}
    on_gpu: dict[GpuKey, dict[str, str]] = {}
    for p in placements:
        key = (p.host, p.gpu_index)
        gpus_of.setdefault(p.instance, set()).add(key)
        on_gpu.setdefault(key, {})[p.instance] = p.workload
    movable: list[MovableGpu] = []
    for key, instances in on_gpu.items():
        rules = METHODS[roles[key]]
        if rules.scope is RoleScope.HOST or any(len(gpus_of[i]) > 1 for i in instances):
            continue
        on_host = [by_name[w] for w in instances.values()] if rules.instances_on_gpu_host else []
        movable.append(
            MovableGpu(key, sum(w.vcpus for w in on_host), sum(w.ram_gib for w in on_host))
        )
    return movable


def _host_rules_broken(
    scenario: Scenario,
    host_type: HostType,
    hosts: Sequence[Host],
    placements: Sequence[Placement],
    configs: Mapping[GpuKey, str],
    roles: Mapping[GpuKey, Method],
) -> bool:
    """Whether a method's host rules (one profile size per host, ...) break on the hosts of
    ``placements`` (every placement on them)."""
    rows: dict[GpuKey, list[Placement]] = {}
    for p in placements:
        rows.setdefault((p.host, p.gpu_index), []).append(p)
    by_name = {h.name: h for h in hosts}
    views = {
        key: GpuView(key, by_name[key[0]], host_type.model, configs[key], tuple(placed))
        for key, placed in rows.items()
    }
    return bool(host_rule_problems(views, roles, PlanContext.of(scenario, placements, hosts)))


def _retry_pool(option: Option, types: Sequence[HostType], placing: Placing) -> HostPool | None:
    """Where a retried option may place: the type's shared hosts, or one whole host that no role
    uses yet, withdrawn from them."""
    t = option.host_type
    if t not in placing.shared:
        placing.shared[t] = HostPool(placing.free_hosts[t])
    if METHODS[option.method].scope is not RoleScope.HOST:
        return placing.shared[t]
    host = placing.shared[t].withdraw()
    return None if host is None else HostPool([host])
