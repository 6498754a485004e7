"""The recommended plan: every workload class on a sharing method that suits it, on one estate.

Each GPU gets one role (a method of the registry; a whole host for methods that set up whole
hosts) and each class's instances go only to GPUs whose role the class may use. The plan is
chosen by a MILP over counts, then placed on hosts and checked:

1. **Host types** (``planner.solve.options``): hosts of one shape (GPU model and count,
   platform, cores, RAM, RDMA, MIG mode) are interchangeable, so the model counts them.
2. **Options** (``planner.solve.options``): a class may use method ``m`` on host type ``t``
   when the one eligibility rule allows it and its slowdown on a GPU filled with its own class
   is within the class's limit.
3. **The MILP** (``planner.solve.counts``): instances per option, GPUs per role and pattern,
   hosts per host-wide role; by priority as many instances served as possible, then the lowest
   annual cost, then the fewest GPUs.
4. **Placement**: the instances each option got are packed by the method's own packer and put
   on that type's hosts (host-wide methods on hosts of their own); anything that does not fit is
   tried again on the other options of its class, cheapest first. Where a type's hosts could
   not take its GPUs as packed, a type of few hosts is planned host by host (``_host_by_host``)
   and the placement is also tried with the GPUs whose instances need most of a host's cores
   or RAM split (``_spread_out``); where a type could not take what the MILP gave it, the MILP
   is solved again with that type held to what it took (``_solve_and_place``). Where a type's
   requests come in few kinds, hosts are set up by configuration (``_fewest_hosts``), holding the
   most by priority when not all fit. What
   is still left out is placed where moving or swapping GPUs whole between a type's hosts makes
   room (``_make_room``), then where the type's GPUs set on its hosts anew do
   (``_rearrange``). A small estate is also planned with each host a type of its own
   (``one_type_per_host``) and with the bound's rows of cores and RAM host by host in the
   MILP (``HostRows.HOST_BY_HOST``), and a plan that leaves out more than its MILP did is
   planned again with each GPU held to one host's cores (``HostRows.PER_GPU``); a large
   estate is also planned host by host by configuration (``_by_configurations``: column
   generation over one-host MILPs, each host set up by one configuration of GPU roles and
   instances within its own cores and RAM); the best plan is kept.

How far a plan can at most be from the best is told by its lower bounds
(``planner.solve.plan_bounds``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from planner.assumptions import facts
from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance
from planner.methods.contract import GpuKey, GpuView, PlanContext, RoleScope
from planner.methods.registry import METHODS, Method
from planner.plan import (
    GpuLoad,
    GpuPacking,
    HostRequest,
    MethodPlan,
    NotPlaced,
    Placement,
    Slot,
    SolveStatus,
)
from planner.scenario import Scenario
from planner.solve.collector import collector_paused
from planner.solve.counts import (
    CONFIGURATION_PRICING_WORK,
    CONFIGURATION_ROUNDS,
    PRICING_NODE_WORK,
    Counts,
    Group,
    HostRows,
    HostSetup,
    gpu_demands,
    group_classes,
    host_pricer,
    left_out_usd,
    solve_counts,
)
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
from planner.solve.milp import Configuration, ConfigurationPlan, SolverLimits, plan_configurations
from planner.solve.options import (
    HostType,
    Option,
    Rates,
    Refusal,
    Solo,
    SoloFits,
    bound_options,
    host_types,
    one_type_per_host,
    options,
    slowdown_limit,
    solo_fit,
    sparser_options,
)
from planner.solve.packing import fit_on_pool, instances_of, pack, spread
from planner.solve.plan_bounds import cost_lower_bound, gpu_lower_bound
from planner.solve.room import GpuMove, MovableGpu, moves_emptying, room_for
from planner.solve.views import PlanView, instance_slowdowns
from planner.words import counted

__all__ = [
    "Counts",
    "HostRows",
    "HostType",
    "MixedPlan",
    "Option",
    "Rates",
    "Refusal",
    "Solo",
    "SoloFits",
    "bound_options",
    "cost_lower_bound",
    "gpu_lower_bound",
    "host_types",
    "options",
    "over_limit",
    "recommend",
    "slowdown_limit",
    "solo_fit",
    "solve_counts",
]


@dataclass(frozen=True)
class MixedPlan:
    """The MILP's mix, placed on hosts: a plan whose GPUs have several roles."""

    plan: MethodPlan
    counts: Counts
    types: tuple[HostType, ...]
    options: tuple[Option, ...]
    refusals: tuple[Refusal, ...]
    methods: tuple[Method, ...]
    """The methods the mix could use."""
    solos: SoloFits
    """The classes' packings alone, worked out for the options (reused by ``bound_options``)."""


@dataclass
class _Placing:
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


_NO_COUNTS = Counts({}, {}, {}, 0.0, 0.0, SolveStatus.HEURISTIC)
"""What placement starts from when the MILP has nothing to say: every instance is retried."""


@collector_paused()
def recommend(
    scenario: Scenario,
    rates: Rates,
    *,
    hosts: Sequence[Host] | None = None,
    methods: Sequence[Method] = tuple(METHODS),
    owned: Sequence[Host] = (),
    starts: Sequence[MethodPlan] = (),
) -> MixedPlan:
    """The recommended mix on ``hosts`` (default: the scenario's inventory; when sizing, the
    servers that may be bought) and the ``owned`` hosts beside them: the MILP's counts placed
    on hosts, what did not fit retried on the other options of its class; a class without any
    option is not placed, with the reason each method gave. The plan's ``hosts`` are those it
    may use: the inventory, or when sizing the ``owned`` hosts and the servers it opens. An
    estate of at most ``_ONE_TYPE_PER_HOST_MAX_HOSTS`` hosts is planned by host type, with
    each host a type of its own and with the MILP's cores and RAM host by host, and the best
    plan kept. A large estate's plan by configuration also starts from the hosts of the plans
    ``starts`` (the single-method plans within the classes' limits, on these hosts)."""
    started = time.perf_counter()
    available = scenario.inventory.hosts if hosts is None else (*owned, *hosts)
    types = host_types(available, scenario, owned={h.name for h in owned})
    solos = SoloFits(scenario)
    found, refusals = options(scenario, types, methods, solos)
    isolated: set[str] = set()
    proven_best = _ProvenBest(scenario, types, methods, solos, rates)
    solved = _SolvedCounts()
    placed = [_placing_of(plan) for plan in starts]
    for _ in range(_LIMIT_ROUNDS):
        counts, placing = _best_plan(
            scenario,
            types,
            (found, refusals),
            rates,
            isolated,
            len(available),
            proven_best,
            solved,
            placed,
        )
        opened = available
        if hosts is not None:
            in_use = {key[0] for key in placing.configs}
            opened = (*owned, *(h for h in hosts if h.name in in_use))
        plan = _as_plan(scenario, placing, counts, started, opened)
        over = over_limit(scenario, plan)
        if not over:
            break
        # First keep the classes over their limit apart from others; then pack densely only
        # those whose fullest GPU is within it; if that is not enough, the methods that served
        # them are no longer options for them.
        if not over <= isolated:
            isolated |= over
            continue
        if any(o.on_average and o.workload in over for o in found):
            found = sparser_options(scenario, types, found, over, solos)
            continue
        served_by = _methods_serving(plan)
        found, more = _without(found, {(c, m) for c in over for m in served_by[c]}, scenario)
        refusals = (*refusals, *more)
    return MixedPlan(plan, counts, tuple(types), tuple(found), refusals, tuple(methods), solos)


def _by_configurations(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    refusals: Sequence[Refusal],
    rates: Rates,
    isolated: Set[str],
    starts: Sequence[_Placing],
) -> tuple[Counts, _Placing] | None:
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
    served = _placed_per_option(placing, types)
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
    cheapest = _cheapest_first(found, types, rates)
    _retry(scenario, types, cheapest, refusals, placing)
    _make_room(scenario, types, cheapest, placing)
    _rearrange(scenario, types, cheapest, placing)
    _consolidate(scenario, types, placing)
    return counts, placing


def _ranks_first(
    scenario: Scenario,
    types: Sequence[HostType],
    rates: Rates,
    challenger: tuple[Counts, _Placing],
    kept: tuple[Counts, _Placing],
) -> bool:
    """The challenger leaves out fewer instances by priority, or as few for less, and does not
    take a plan whose classes are all within their slowdown limits over them (another round of
    planning would then keep the classes over their limit apart, for nothing)."""
    if _rank(scenario, types, rates, challenger[1]) >= _rank(scenario, types, rates, kept[1]):
        return False
    return not _over_limit(scenario, types, *challenger) or bool(
        _over_limit(scenario, types, *kept)
    )


def _over_limit(
    scenario: Scenario, types: Sequence[HostType], counts: Counts, placing: _Placing
) -> set[str]:
    """``over_limit`` of a plan being placed, on the types' hosts."""
    hosts = tuple(h for host_type in types for h in host_type.hosts)
    return over_limit(scenario, _as_plan(scenario, placing, counts, time.perf_counter(), hosts))


def _plans_by_configuration(scenario: Scenario, hosts: int) -> bool:
    """An estate of ``hosts`` hosts is also planned by configuration: a large one, whose
    classes have at most three priority levels (leaving an instance out costs a hundred times
    more per level in the master, and more levels would be too far apart to solve)."""
    levels = {w.priority for w in scenario.workloads}
    return hosts >= _BY_CONFIGURATION_MIN_HOSTS and len(levels) <= _BY_CONFIGURATION_MAX_LEVELS


_BY_CONFIGURATION_MAX_LEVELS = 3
"""Most priority levels an estate planned by configuration may have."""

_BY_CONFIGURATION_MIN_HOSTS = 25
"""An estate of at least this many hosts is also planned host by host by configuration
(``_by_configurations``); a smaller one is planned with each host a type of its own
(``_ONE_TYPE_PER_HOST_MAX_HOSTS``)."""


def _configurations_of(
    placing: _Placing,
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
    roles = _roles_per_host(placing)
    configurations: list[Configuration] = []
    for name, mine in held.items():
        t, host = type_of[name]
        cost = _host_usd_per_year(host, roles[name], rates)
        instances = {key: len(ids) for key, ids in mine.items()}
        holds: dict[int, float] = {}
        for (i, _), n in instances.items():
            holds[i] = holds.get(i, 0.0) + n
        setup = HostSetup(instances, dict(roles[name]))
        configurations.append(Configuration(t, cost, holds, setup))
    return configurations


def _placing_of(plan: MethodPlan) -> _Placing:
    """A placed plan as a plan being placed: its placements and each GPU's role."""
    return _Placing(
        placements=list(plan.placements),
        configs=dict(plan.gpu_configs),
        roles={key: plan.role(key) for key in plan.gpu_configs},
    )


def _place_configurations(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    groups: Sequence[Group],
    plan: ConfigurationPlan,
    isolated: Set[str],
) -> _Placing:
    """Each type's hosts set up by the configurations chosen, host-wide ones first, each host's
    instances (see ``_Waiting.take``) packed by their methods onto it."""
    placing = _Placing(free_hosts={t: list(ht.hosts) for t, ht in enumerate(types)})
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
                for batch in _batches(instances, isolated):
                    pool = _fit(scenario, method, host_type, batch, pool, placing)
        placing.free_hosts[t] = list(host_type.hosts[len(whole) :])
        per_host = [waiting.take(s, t) for s in setups if not _host_wide(s)]
        requests, fixed, packings = _packed_host_by_host(
            scenario, host_type.model, per_host, isolated
        )
        for packing in packings:
            _note_packing(packing, placing)
        method_of = {x.id: m for on in per_host for m, mine in on.items() for x in mine}
        pool = HostPool(placing.free_hosts[t])
        assigned = assign_hosts(requests, pool, fixed=fixed)
        _record(assigned.placements, assigned.gpu_configs, assigned.not_placed, method_of, placing)
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


def _packed_host_by_host(
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
            for batch in _batches(instances, isolated):
                packing = pack(method, batch, model, scenario, "auto")
                requests.extend(packing.requests)
                fixed.extend([j] * len(packing.requests))
                packings.append(packing)
    return requests, fixed, packings


def _note_packing(packing: GpuPacking, placing: _Placing) -> None:
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
                _shaped(x, self._option_of[(x.workload.name, method, t)]) for x in mine
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


def _best_plan(
    scenario: Scenario,
    types: Sequence[HostType],
    choices: tuple[Sequence[Option], Sequence[Refusal]],
    rates: Rates,
    isolated: Set[str],
    hosts: int,
    proven_best: _ProvenBest,
    solved: _SolvedCounts,
    starts: Sequence[_Placing] = (),
) -> tuple[Counts, _Placing]:
    """The mix of ``choices`` (options, refusals) on an estate of ``hosts`` hosts, placed: the
    MILP's by type, then, where they may do better, the tighter models' (a small estate), each
    GPU held to one host's cores (when placement left out more than the MILP) and the mix
    chosen host by host by configuration (a large estate, starting from the hosts of the plan
    by type and of the placed plans ``starts``); the best kept (``solved``: the MILP's counts
    solved so far)."""
    found, refusals = choices
    # A large estate's rounds of holding types to what they took are left to the plan by
    # configuration, which chooses the mix host by host.
    by_configuration = _plans_by_configuration(scenario, hosts)
    rounds = 1 if by_configuration else None
    counts, placing = _solve_and_place(
        scenario, types, found, refusals, rates, isolated, solved, rounds=rounds
    )
    if hosts <= _ONE_TYPE_PER_HOST_MAX_HOSTS:
        # Also with the bound's rows of cores and RAM host by host in the MILP, and with
        # each host a type of its own: mixes more hosts can hold, from tighter models;
        # until a plan is proven the best.
        each_host, each_found = one_type_per_host(types, found)
        tighter = (
            (types, found, HostRows.HOST_BY_HOST),
            (each_host, each_found, HostRows.SUMMED),
            (each_host, each_found, HostRows.HOST_BY_HOST),
        )
        for planned_types, planned_found, rows in tighter:
            if proven_best(counts, placing):
                break
            planned = _solve_and_place(
                scenario,
                planned_types,
                planned_found,
                refusals,
                rates,
                isolated,
                solved,
                host_rows=rows,
            )
            if _rank(scenario, types, rates, planned[1]) < _rank(scenario, types, rates, placing):
                counts, placing = planned
    if sum(_left_out(scenario, placing)) > placing.left_out_by_milp:
        # Placement left out more than the MILP: summed over a type's hosts, cores let it
        # pack a GPU with more instances than a host can run. Planned again with each GPU
        # held to one host's cores.
        by_gpu = _solve_and_place(
            scenario,
            types,
            found,
            refusals,
            rates,
            isolated,
            solved,
            host_rows=HostRows.PER_GPU,
            rounds=rounds,
        )
        if _rank(scenario, types, rates, by_gpu[1]) < _rank(scenario, types, rates, placing):
            counts, placing = by_gpu
    if by_configuration:
        # Also chosen host by host, by configuration: a mix the hosts hold one by one.
        for challenger in _configured_plans(
            scenario, types, choices, rates, isolated, (placing, starts)
        ):
            if _ranks_first(scenario, types, rates, challenger, (counts, placing)):
                counts, placing = challenger
    return counts, placing


def _configured_plans(
    scenario: Scenario,
    types: Sequence[HostType],
    choices: tuple[Sequence[Option], Sequence[Refusal]],
    rates: Rates,
    isolated: Set[str],
    starts: tuple[_Placing, Sequence[_Placing]],
) -> list[tuple[Counts, _Placing]]:
    """The mix chosen host by host by configuration (``_by_configurations``) from the hosts of
    the plan by type and, when given, of the single-method plans; those may pack a class with
    others past its slowdown limit, and are then placed again with the classes over it kept
    apart, until none is (a plan still over is not kept). Where they did, also the mix from the
    plan by type's hosts alone: kept apart, their plan may cost more than that one."""
    found, refusals = choices
    by_type, singles = starts
    plans: list[tuple[Counts, _Placing]] = []
    kept_apart = set(isolated)
    for _ in range(_LIMIT_ROUNDS if singles else 0):
        configured = _by_configurations(
            scenario, types, found, refusals, rates, kept_apart, (by_type, *singles)
        )
        over = set() if configured is None else _over_limit(scenario, types, *configured)
        if configured is not None and not over:
            plans.append(configured)
        if not over or over <= kept_apart:
            break
        kept_apart |= over
    if plans and kept_apart == isolated:
        return plans
    alone = _by_configurations(scenario, types, found, refusals, rates, isolated, (by_type,))
    return plans if alone is None else [*plans, alone]


_LIMIT_ROUNDS = 5
"""Placements checked against the classes' slowdown limits at most this many times."""

_ONE_TYPE_PER_HOST_MAX_HOSTS = 24
"""An estate of at most this many hosts is also planned with each host a type of its own, so
that cores, RAM and GPUs hold host by host in the MILP, not summed over a type, and with the
bound's host-by-host rows in the MILP; the plan that leaves out fewer instances by priority,
then costs less, is kept."""


@dataclass
class _SolvedCounts:
    """``solve_counts`` of a plan, each model solved once per recommendation: a round of the
    slowdown loop that only keeps classes apart places the same counts again. The key leaves
    out the scenario and the rates: one memo serves one ``recommend``, where both are fixed."""

    _solved: dict[tuple[object, ...], Counts | None] = field(default_factory=dict)

    def __call__(
        self,
        scenario: Scenario,
        types: Sequence[HostType],
        found: Sequence[Option],
        rates: Rates,
        caps: Mapping[tuple[str, Method, int], int],
        host_rows: HostRows,
    ) -> Counts | None:
        key = (tuple(types), tuple(found), frozenset(caps.items()), host_rows)
        if key not in self._solved:
            self._solved[key] = solve_counts(
                scenario, types, found, rates, caps=caps, host_rows=host_rows
            )
        return self._solved[key]


@dataclass
class _ProvenBest:
    """Whether no plan can rank before a placed one: it serves every instance, within each
    class's slowdown limit, at the cost bound on every plan that does (``cost_lower_bound``,
    solved once, when first asked)."""

    scenario: Scenario
    types: Sequence[HostType]
    methods: Sequence[Method]
    solos: SoloFits
    rates: Rates
    _bound_usd: float | None = None

    def __call__(self, counts: Counts, placing: _Placing) -> bool:
        scenario, types = self.scenario, self.types
        if any(_left_out(scenario, placing)):
            return False
        if _over_limit(scenario, types, counts, placing):
            return False
        if self._bound_usd is None:
            found = bound_options(scenario, types, self.methods, self.solos)
            served = {w.name: w.instances for w in scenario.workloads}
            self._bound_usd = cost_lower_bound(scenario, types, found, self.rates, served)
        return _plan_usd_per_year(placing, types, self.rates) <= self._bound_usd * (1 + 1e-9)


_PLACEMENT_ROUNDS = 3
"""MILP solves at most per placement, each held to what the previous placements managed."""


def _solve_and_place(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    refusals: Sequence[Refusal],
    rates: Rates,
    isolated: Set[str],
    solved: _SolvedCounts,
    *,
    host_rows: HostRows = HostRows.SUMMED,
    rounds: int | None = None,
) -> tuple[Counts, _Placing]:
    """The MILP's counts (``solved``) placed on hosts, the best of a few rounds (``rounds``,
    default ``_PLACEMENT_ROUNDS``).

    The MILP sums cores and RAM over a type's hosts, so its mix may not fit host by host (an
    80-core GPU's instances beside four 24-core ones on a 112-core host). When placement could
    not put on a type all the instances the MILP gave it, the next solve holds every option on
    that type to what was placed there (what fitted once), so the MILP itself chooses where
    the rest go; the plan kept leaves out the fewest instances by priority, then costs least
    (``_plan_usd_per_year``). Where a type's hosts could not take its GPUs as packed, each round
    also places them spread (``_spread_out``); the next round holds each type to the attempt
    that placed most there.
    """
    caps: dict[tuple[str, Method, int], int] = {}
    best: tuple[tuple[list[int], float], Counts, _Placing] | None = None
    inputs = _PlacingInputs(found, rates, isolated)
    cheapest = _cheapest_first(found, types, rates)
    left_out_by_milp: int | None = None
    for _ in range(_PLACEMENT_ROUNDS if rounds is None else rounds):
        counts = (
            solved(scenario, types, found, rates, caps, host_rows) if found else None
        ) or _NO_COUNTS
        if left_out_by_milp is None:
            total = sum(w.instances for w in scenario.workloads)
            left_out_by_milp = total - sum(counts.served.values())
        placing, short = _placed(scenario, types, counts, inputs, spreading=False)
        tried = [placing]
        if placing.crowded:
            tried.append(_placed(scenario, types, counts, inputs, spreading=True)[0])
        for attempt in tried:
            attempt.left_out_by_milp = left_out_by_milp
            _retry(scenario, types, cheapest, refusals, attempt)
            _make_room(scenario, types, cheapest, attempt)
            _rearrange(scenario, types, cheapest, attempt)
            _consolidate(scenario, types, attempt)
            key = _rank(scenario, types, rates, attempt)
            if best is None or key < best[0]:
                best = (key, counts, attempt)
        if not short:
            break
        # What fits there now includes what the retry added; per type, the attempt (as
        # packed or spread) that placed most there.
        per_attempt = [_placed_per_option(attempt, types) for attempt in tried]
        held = {}
        for t in short:
            placed = max(per_attempt, key=lambda p: sum(n for key, n in p.items() if key[2] == t))
            held.update(
                {
                    (o.workload, o.method, t): placed.get((o.workload, o.method, t), 0)
                    for o in found
                    if o.host_type == t
                }
            )
        if held.items() <= caps.items():
            break  # the next solve would be this one
        caps.update(held)
    assert best is not None
    return best[1], best[2]


def _placed(
    scenario: Scenario,
    types: Sequence[HostType],
    counts: Counts,
    inputs: _PlacingInputs,
    *,
    spreading: bool,
) -> tuple[_Placing, set[int]]:
    """The MILP's counts placed (``_place``), and the types that could not take them all."""
    placing = _Placing(free_hosts={t: list(ht.hosts) for t, ht in enumerate(types)})
    _place(scenario, types, counts, placing, inputs, spreading=spreading)
    return placing, _short_types(counts, _placed_per_option(placing, types))


def _rank(
    scenario: Scenario, types: Sequence[HostType], rates: Rates, placing: _Placing
) -> tuple[list[int], float]:
    """Placements compared: fewest instances left out by priority, then the lowest cost."""
    return _left_out(scenario, placing), _plan_usd_per_year(placing, types, rates)


def _placed_per_option(
    placing: _Placing, types: Sequence[HostType]
) -> dict[tuple[str, Method, int], int]:
    """(class, method, host type) -> instances placed so far."""
    type_of = {h.name: t for t, ht in enumerate(types) for h in ht.hosts}
    placed: dict[tuple[str, Method, int], set[str]] = {}
    for p in placing.placements:
        key = (p.workload, placing.roles[(p.host, p.gpu_index)], type_of[p.host])
        placed.setdefault(key, set()).add(p.instance)
    return {key: len(ids) for key, ids in placed.items()}


def _short_types(counts: Counts, placed: Mapping[tuple[str, Method, int], int]) -> set[int]:
    """Host types where placement put fewer instances of an option than the MILP did."""
    return {key[2] for key, wanted in counts.served.items() if placed.get(key, 0) < wanted}


def _left_out(scenario: Scenario, placing: _Placing) -> list[int]:
    """Instances not placed per priority level, most urgent first (compared as a list)."""
    placed = {p.instance for p in placing.placements}
    levels = sorted({w.priority for w in scenario.workloads})
    by_name = {w.name: w.priority for w in scenario.workloads}
    left = dict.fromkeys(levels, 0)
    for miss in placing.missed.values():
        if miss.instance not in placed:
            left[by_name[miss.workload]] += 1
    return list(left.values())


def _plan_usd_per_year(placing: _Placing, types: Sequence[HostType], rates: Rates) -> float:
    """What the placed plan costs per year at ``rates``: its GPUs under their roles, the hosts
    they are on and host-wide roles' networks (busy power left out, as in the MILP)."""
    host_of = {h.name: h for ht in types for h in ht.hosts}
    return sum(
        _host_usd_per_year(host_of[name], roles, rates)
        for name, roles in _roles_per_host(placing).items()
    )


def _roles_per_host(placing: _Placing) -> dict[str, dict[Method, int]]:
    """Host name -> its GPUs per role, hosts in the order their GPUs were placed."""
    roles: dict[str, dict[Method, int]] = {}
    for (name, _), method in placing.roles.items():
        on = roles.setdefault(name, {})
        on[method] = on.get(method, 0) + 1
    return roles


def _host_usd_per_year(host: Host, roles: Mapping[Method, int], rates: Rates) -> float:
    """One host in use at ``rates``, with ``roles`` (method -> its GPUs): its GPUs under their
    roles, the host and host-wide roles' networks [USD/year]."""
    return rates.host_usd_per_year(host) + sum(
        n * rates.gpu_usd_per_year(m, host)
        + (rates.network_usd_per_host_year(m, host) if METHODS[m].scope is RoleScope.HOST else 0.0)
        for m, n in roles.items()
    )


def over_limit(scenario: Scenario, plan: MethodPlan) -> set[str]:
    """Classes whose mean slowdown in ``plan`` is over their limit."""
    totals: dict[str, list[float]] = {}
    for one in instance_slowdowns(plan, PlanView.of(plan, scenario)).values():
        totals.setdefault(one.workload, []).append(one.slowdown)
    by_name = {w.name: w for w in scenario.workloads}
    return {
        name
        for name, values in totals.items()
        if sum(values) / len(values) > slowdown_limit(by_name[name], scenario) + 1e-9
    }


def _methods_serving(plan: MethodPlan) -> dict[str, set[Method]]:
    serving: dict[str, set[Method]] = {}
    for p in plan.placements:
        serving.setdefault(p.workload, set()).add(plan.role((p.host, p.gpu_index)))
    return serving


def _without(
    found: Sequence[Option], dropped: Set[tuple[str, Method]], scenario: Scenario
) -> tuple[tuple[Option, ...], tuple[Refusal, ...]]:
    """The options without the (class, method) pairs dropped, and the refusals that say why."""
    kept = tuple(o for o in found if (o.workload, o.method) not in dropped)
    by_name = {w.name: w for w in scenario.workloads}
    refusals = tuple(
        Refusal(
            name,
            method,
            f"placed beside others it runs over its limit of "
            f"{slowdown_limit(by_name[name], scenario):.2f}×",
            "slowdown",
        )
        for name, method in sorted(dropped)
    )
    return kept, refusals


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
        chosen.setdefault((method, t), []).append(_shaped(instance, option))
        if n == 1:
            queue.pop(0)
        else:
            queue[0] = (method, t, n - 1)
    return chosen


def _shaped(instance: Instance, option: Option) -> Instance:
    """The instance as ``option`` packs it (with the memory it sets aside)."""
    if option.reserve_gib is None:
        return instance
    return Instance(instance.id, option.shape(instance.workload))


def _batches(instances: Sequence[Instance], isolated: Set[str]) -> list[list[Instance]]:
    """The instances packed together: all classes but the isolated ones, then each isolated
    class on its own, so that it shares no GPU with another class."""
    mixed = [i for i in instances if i.workload.name not in isolated]
    alone: dict[str, list[Instance]] = {}
    for instance in instances:
        if instance.workload.name in isolated:
            alone.setdefault(instance.workload.name, []).append(instance)
    return [batch for batch in (mixed, *alone.values()) if batch]


def _place(
    scenario: Scenario,
    types: Sequence[HostType],
    counts: Counts,
    placing: _Placing,
    inputs: _PlacingInputs,
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
            batches = _batches(instances, isolated)
            if METHODS[method].scope is not RoleScope.HOST:
                shared.extend((method, batch) for batch in batches)
                continue
            hosts = placing.free_hosts[t][: counts.hosts.get((method, t), 0)]
            del placing.free_hosts[t][: len(hosts)]
            pool = HostPool(hosts)
            for batch in batches:
                pool = _fit(scenario, method, host_type, batch, pool, placing)
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
    placing: _Placing,
    *,
    spreading: bool,
    inputs: _PlacingInputs,
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
    _record(assigned.placements, assigned.gpu_configs, assigned.not_placed, method_of, placing)
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
class _PlacingInputs:
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
    inputs: _PlacingInputs,
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
    requests, fixed, packings = _packed_host_by_host(
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


def _record(
    placements: Sequence[Placement],
    configs: Mapping[tuple[str, int], str],
    not_placed: Sequence[NotPlaced],
    method_of: Mapping[str, Method],
    placing: _Placing,
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


def _fit(
    scenario: Scenario,
    method: Method,
    host_type: HostType,
    instances: Sequence[Instance],
    pool: HostPool,
    placing: _Placing,
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


def _retry(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    refusals: Sequence[Refusal],
    placing: _Placing,
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
            shaped = [_shaped(i, option) for i in waiting]
            fitted = _fit(scenario, option.method, types[option.host_type], shaped, pool, placing)
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


def _say_why(name: str, others: int, first: Mapping[str, str], placing: _Placing) -> None:
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
    placing: _Placing,
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


def _cheapest_first(
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


def _make_room(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    placing: _Placing,
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


def _rearrange(
    scenario: Scenario,
    types: Sequence[HostType],
    cheapest: Mapping[str, Sequence[Option]],
    placing: _Placing,
) -> None:
    """Instances still left out, placed where a type's GPUs set on its hosts anew make room:
    every GPU of a per-GPU role there keeps its set-up and instances (those sharing a
    multi-GPU instance stay together) and goes, with the waiting instances' requests, to hosts
    set up by configuration (``hosts.min_hosts_by_configuration``), as many waiting instances
    as fit, most urgent first. Moving a few GPUs (``_make_room``) cannot pair free GPUs on
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
    scenario: Scenario, host_type: HostType, placed: Sequence[Placement], placing: _Placing
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
        shaped = _shaped(instance, option)
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


def _still_left_out(scenario: Scenario, placing: _Placing) -> list[Instance]:
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


def _rows_by_host(placing: _Placing) -> dict[str, list[int]]:
    """Host -> the positions of its placements in ``placing.placements``."""
    rows: dict[str, list[int]] = {}
    for k, p in enumerate(placing.placements):
        rows.setdefault(p.host, []).append(k)
    return rows


def _rows_on(
    hosts: Sequence[str], rows: Mapping[str, Sequence[int]], placing: _Placing
) -> list[Placement]:
    """The placements on ``hosts``, by the index ``rows`` (host -> positions)."""
    return [placing.placements[k] for name in hosts for k in rows.get(name, ())]


def _movable_on(
    scenario: Scenario, hosts: Sequence[str], rows: Mapping[str, Sequence[int]], placing: _Placing
) -> list[MovableGpu]:
    """The GPUs on ``hosts`` that may move whole (``_movable_gpus``)."""
    return _movable_gpus(scenario, _rows_on(hosts, rows, placing), placing.roles)


def _placed_with_room(
    scenario: Scenario,
    typed: tuple[HostType, Option],
    instance: Instance,
    searched: tuple[Sequence[MovableGpu], set[tuple[object, ...]]],
    rows: dict[str, list[int]],
    placing: _Placing,
) -> set[str]:
    """``instance`` packed alone under the option and placed on a host of the option's type
    once GPUs (``searched[0]``: those that may move) are moved off it or swapped to make room;
    kept (``placing`` and ``rows``, its placements' positions by host, changed) only when every
    host it touches keeps its methods' host rules. A request shape that finds no room is added
    to ``searched[1]`` and not sought again. The hosts touched; none when it was not placed."""
    host_type, option = typed
    movable, no_room = searched
    pool = placing.shared[option.host_type]
    packing = pack(option.method, [_shaped(instance, option)], host_type.model, scenario, "auto")
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


def _consolidate(scenario: Scenario, types: Sequence[HostType], placing: _Placing) -> None:
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
    placing: _Placing,
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


def _retry_pool(option: Option, types: Sequence[HostType], placing: _Placing) -> HostPool | None:
    """Where a retried option may place: the type's shared hosts, or one whole host that no role
    uses yet, withdrawn from them."""
    t = option.host_type
    if t not in placing.shared:
        placing.shared[t] = HostPool(placing.free_hosts[t])
    if METHODS[option.method].scope is not RoleScope.HOST:
        return placing.shared[t]
    host = placing.shared[t].withdraw()
    return None if host is None else HostPool([host])


def _as_plan(
    scenario: Scenario,
    placing: _Placing,
    counts: Counts,
    started: float,
    hosts: tuple[Host, ...],
) -> MethodPlan:
    order = {i.id: n for n, i in enumerate(instances_of(scenario.workloads))}
    placed = {p.instance for p in placing.placements}
    missed = sorted(
        (n for n in placing.missed.values() if n.instance not in placed),
        key=lambda n: order[n.instance],
    )
    as_solved = len(placing.configs) == sum(counts.gpus.values())
    status = counts.status if as_solved else SolveStatus.HEURISTIC
    notes = list(placing.notes)
    if counts.stopped_by_clock:
        backstop = next(f for name, f, _ in facts(scenario.assumptions) if name == "time_limit_s")
        notes.append(
            f"The mix's MILP was stopped by the {backstop.label.lower()} "
            f"({scenario.assumptions.time_limit_s:g} {backstop.unit}) before its work limit: "
            "the same inputs may give another plan on a faster or slower machine. Raise it "
            f"({backstop.label}, {backstop.flag}) for a plan every machine gives alike."
        )
    return MethodPlan(
        method=None,
        placements=tuple(placing.placements),
        not_placed=tuple(missed),
        gpu_configs=placing.configs,
        lower_bound_gpus=0,
        status=status,
        solve_seconds=time.perf_counter() - started,
        notes=tuple(notes),
        hosts=hosts,
        roles=placing.roles,
    )
