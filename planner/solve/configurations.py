"""The plan by configuration: the mix chosen host by host by column generation.

Each host is set up by one *configuration* (its GPUs' roles and the instances of each class it
holds, within its GPUs, cores and RAM as the one-host MILP over counts sees them:
``planner.solve.counts.host_pricer``), chosen by ``milp.plan_configurations``; then each host's
instances are packed by their methods onto that host, and what is left is retried, made room
for and consolidated as a placement from counts is (``planner.solve.placement``). The MILP by
type sums cores and RAM over a type's hosts, so its mix may not fit host by host; here the mix
is chosen with each host's own.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence, Set

from planner.inputs.workloads import Instance
from planner.methods.contract import RoleScope
from planner.methods.registry import METHODS, Method
from planner.plan import GpuPacking, NotPlaced, SolveStatus
from planner.scenario import Scenario
from planner.solve.counts import (
    CONFIGURATION_PRICING_WORK,
    CONFIGURATION_ROUNDS,
    PRICING_NODE_WORK,
    Counts,
    Group,
    HostSetup,
    gpu_demands,
    group_classes,
    host_pricer,
    left_out_usd,
)
from planner.solve.hosts import HostPool, assign_hosts
from planner.solve.milp import Configuration, ConfigurationPlan, SolverLimits, plan_configurations
from planner.solve.options import HostType, Option, Rates, Refusal
from planner.solve.packing import instances_of
from planner.solve.placement import (
    Placing,
    cheapest_first,
    consolidate,
    fit,
    host_usd_per_year,
    make_room,
    packed_host_by_host,
    packing_batches,
    placed_per_option,
    rearrange,
    record,
    retry,
    roles_per_host,
    shaped_instance,
)

__all__ = ["by_configurations"]


def by_configurations(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    refusals: Sequence[Refusal],
    rates: Rates,
    isolated: Set[str],
    starts: Sequence[Placing],
) -> tuple[Counts, Placing] | None:
    """The mix planned host by host: each host set up by one *configuration* (its GPUs' roles
    and the instances of each class it holds, within its GPUs, cores and RAM as the one-host
    MILP of ``solve_counts`` sees them), chosen by column generation over the configurations
    (``milp.plan_configurations``, starting from the hosts of the plans ``starts``), then each
    host's instances packed by their methods onto that host, and what is left retried, made
    room for and consolidated as a placement from counts is. The MILP by type sums cores and
    RAM over a type's hosts, so its mix may not fit host by host; here the mix is chosen with
    each host's own. None when there are no options or the master has no solution."""
    if not found:
        return None
    levels = sorted({w.priority for w in scenario.workloads})
    demands = gpu_demands(scenario, found, types)
    groups = group_classes(scenario, found, demands, types, by_slowdown=False)
    group_of = {w.name: i for i, g in enumerate(groups) for w in g.members}
    # Leaving an instance out costs more than any host, and a hundred times more per level
    # of priority: the master serves what it can, most urgent first.
    short_usd = left_out_usd(types, found, rates)
    short_cost = [
        short_usd * 100.0 ** (len(levels) - 1 - levels.index(g.first.priority)) for g in groups
    ]
    limits = SolverLimits(
        time_limit_s=scenario.assumptions.time_limit_s, node_work=PRICING_NODE_WORK
    )
    plan = plan_configurations(
        [float(g.instances) for g in groups],
        short_cost,
        [len(t.hosts) for t in types],
        host_pricer(scenario, types, groups, demands, rates, limits),
        start=[
            c
            for placed in starts
            for c in _configurations_of(placed, types, group_of, found, rates)
        ],
        rounds=CONFIGURATION_ROUNDS,
        pricing_work=CONFIGURATION_PRICING_WORK,
        limits=limits,
    )
    if plan is None or not any(plan.uses):
        return None
    placing = _place_configurations(scenario, types, found, groups, plan, isolated)
    served = placed_per_option(placing, types)
    gpus: dict[tuple[Method, int], int] = {}
    hosts: dict[tuple[Method, int], int] = {}
    for configuration, uses in zip(plan.configurations, plan.uses, strict=True):
        setup = configuration.setup
        assert isinstance(setup, HostSetup)
        for method, n in setup.gpus.items():
            key = (method, configuration.kind)
            gpus[key] = gpus.get(key, 0) + n * uses
            if METHODS[method].scope is RoleScope.HOST:
                hosts[key] = hosts.get(key, 0) + uses
    cost = sum(c.cost * n for c, n in zip(plan.configurations, plan.uses, strict=True))
    # The master's bound is on cost plus what it leaves out, not on cost: none is given.
    counts = Counts(served, gpus, hosts, cost, 0.0, SolveStatus.HEURISTIC)
    cheapest = cheapest_first(found, types, rates)
    retry(scenario, types, cheapest, refusals, placing)
    make_room(scenario, types, cheapest, placing)
    rearrange(scenario, types, cheapest, placing)
    consolidate(scenario, types, placing)
    return counts, placing


def _configurations_of(
    placing: Placing,
    types: Sequence[HostType],
    group_of: Mapping[str, int],
    found: Sequence[Option],
    rates: Rates,
) -> list[Configuration]:
    """Each host of a placed plan as the configuration it is set up by: of ``types``' hosts, the
    instances of classes with a merged class in ``group_of`` under a method that is still one of
    their options (``found``) on the host's type (a plan placed in an earlier round, or by one
    method, may hold others)."""
    type_of = {h.name: (t, h) for t, ht in enumerate(types) for h in ht.hosts}
    usable = {(o.workload, o.method, o.host_type) for o in found}
    held: dict[str, dict[tuple[int, Method], set[str]]] = {}
    for p in placing.placements:
        if p.host not in type_of or p.workload not in group_of:
            continue
        method = placing.roles[(p.host, p.gpu_index)]
        if (p.workload, method, type_of[p.host][0]) not in usable:
            continue
        held.setdefault(p.host, {}).setdefault((group_of[p.workload], method), set()).add(
            p.instance
        )
    roles = roles_per_host(placing)
    configurations: list[Configuration] = []
    for name, mine in held.items():
        t, host = type_of[name]
        cost = host_usd_per_year(host, roles[name], rates)
        instances = {key: len(ids) for key, ids in mine.items()}
        holds: dict[int, float] = {}
        for (i, _), n in instances.items():
            holds[i] = holds.get(i, 0.0) + n
        setup = HostSetup(instances, dict(roles[name]))
        configurations.append(Configuration(t, cost, holds, setup))
    return configurations


def _place_configurations(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    groups: Sequence[Group],
    plan: ConfigurationPlan,
    isolated: Set[str],
) -> Placing:
    """Each type's hosts set up by the configurations chosen, host-wide ones first, each host's
    instances (see ``_Waiting.take``) packed by their methods onto it."""
    placing = Placing(free_hosts={t: list(ht.hosts) for t, ht in enumerate(types)})
    waiting = _Waiting(scenario, found, groups)
    for t, host_type in enumerate(types):
        setups = [
            c.setup
            for c, n in zip(plan.configurations, plan.uses, strict=True)
            if c.kind == t and isinstance(c.setup, HostSetup)
            for _ in range(n)
        ]
        whole = [s for s in setups if _host_wide(s)]
        for host, setup in zip(host_type.hosts, whole, strict=False):
            pool = HostPool([host])
            for method, instances in waiting.take(setup, t).items():
                for batch in packing_batches(instances, isolated):
                    pool = fit(scenario, method, host_type, batch, pool, placing)
        placing.free_hosts[t] = list(host_type.hosts[len(whole) :])
        per_host = [waiting.take(s, t) for s in setups if not _host_wide(s)]
        requests, fixed, packings = packed_host_by_host(
            scenario, host_type.model, per_host, isolated
        )
        for packing in packings:
            _note_packing(packing, placing)
        method_of = {x.id: m for on in per_host for m, mine in on.items() for x in mine}
        pool = HostPool(placing.free_hosts[t])
        assigned = assign_hosts(requests, pool, fixed=fixed)
        record(assigned.placements, assigned.gpu_configs, assigned.not_placed, method_of, placing)
        placing.shared[t] = pool
    # A class no option serves is left to say each method's refusal (``_mark_left_out``).
    with_options = {o.workload for o in found}
    for instance in waiting.left():
        if instance.workload.name in with_options:
            placing.missed.setdefault(
                instance.id,
                NotPlaced(
                    instance.id, instance.workload.name, "no host configuration chosen holds it"
                ),
            )
    return placing


def _note_packing(packing: GpuPacking, placing: Placing) -> None:
    """A packing's misses and notes, kept with the plan being placed."""
    for miss in packing.not_placed:
        placing.missed[miss.instance] = miss
    placing.notes.extend(n for n in packing.notes if n not in placing.notes)


class _Waiting:
    """Instances not yet handed to a host, per merged class, most urgent first."""

    def __init__(
        self, scenario: Scenario, found: Sequence[Option], groups: Sequence[Group]
    ) -> None:
        self._option_of = {(o.workload, o.method, o.host_type): o for o in found}
        group_of = {w.name: i for i, g in enumerate(groups) for w in g.members}
        self._queues: dict[int, list[Instance]] = {}
        for instance in instances_of(scenario.workloads):
            if instance.workload.name in group_of:
                self._queues.setdefault(group_of[instance.workload.name], []).append(instance)
        waiting = [x.id for queue in self._queues.values() for x in queue]
        # Ids taken are struck from a queue: with every id once, by position.
        self._ids_unique = len(set(waiting)) == len(waiting)

    def take(self, setup: HostSetup, t: int) -> dict[Method, list[Instance]]:
        """The instances a host of type ``t`` so set up holds, by method, shaped as their
        options pack them: a class's first in id order (the most active), or its last for a
        method that serves the idlest first (``SharingMethod.serves_idlest_first``), as the
        configurations taken from a placed plan held them."""
        by_method: dict[Method, list[Instance]] = {}
        for (i, method), n in setup.instances.items():
            queue = self._queues.get(i, [])
            picked = self._usable(queue, method, t, n)
            mine = [queue[k] for k in picked]
            if mine:
                self._queues[i] = self._without(queue, picked)
            by_method.setdefault(method, []).extend(
                shaped_instance(x, self._option_of[(x.workload.name, method, t)]) for x in mine
            )
        return by_method

    def _usable(self, queue: list[Instance], method: Method, t: int, n: int) -> list[int]:
        """Positions, in order, of the ``n`` instances of ``queue`` that ``take`` gives
        ``method`` on type ``t``: the first with an option there, or the last for a method
        that serves the idlest first (a class's queue is long and ``n`` small, so the scan
        stops at the ``n``-th)."""
        idlest = METHODS[method].serves_idlest_first
        scan = range(len(queue) - 1, -1, -1) if idlest and n >= 0 else range(len(queue))
        usable = (k for k in scan if (queue[k].workload.name, method, t) in self._option_of)
        if n < 0:
            every = list(usable)
            return every[max(0, len(every) - n) :] if idlest else every[:n]
        return sorted(itertools.islice(usable, n))

    def _without(self, queue: list[Instance], picked: list[int]) -> list[Instance]:
        """``queue`` without the instances at ``picked`` (ascending), nor any other of their
        ids."""
        if not self._ids_unique:
            taken = {queue[k].id for k in picked}
            return [x for x in queue if x.id not in taken]
        if picked[-1] == len(picked) - 1:
            return queue[len(picked) :]
        if picked[0] == len(queue) - len(picked):
            return queue[: picked[0]]
        struck = set(picked)
        return [x for k, x in enumerate(queue) if k not in struck]

    def left(self) -> list[Instance]:
        """The instances no host took."""
        return [instance for queue in self._queues.values() for instance in queue]


def _host_wide(setup: HostSetup) -> bool:
    """The host is set up by a host-wide method."""
    return any(METHODS[m].scope is RoleScope.HOST for m in setup.gpus)
