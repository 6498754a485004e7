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
4. **Placement** (``planner.solve.placement``): the instances each option got are put on that
   type's hosts, and what does not fit is retried on the other options of its class and
   placed where a type's GPUs moved, swapped or set anew make room. Where a type could not take
   what the MILP gave it, the MILP is solved again with that type held to what it took
   (``_solve_and_place``). A small estate is also planned with each host a type of its own
   (``one_type_per_host``) and with the bound's rows of cores and RAM host by host in the
   MILP (``HostRows.HOST_BY_HOST``), and a plan that leaves out more than its MILP did is
   planned again with each GPU held to one host's cores (``HostRows.PER_GPU``); a large
   estate is also planned host by host by configuration
   (``planner.solve.configurations``: column generation over one-host MILPs,
   each host set up by one configuration of GPU roles and instances within its own cores and
   RAM); the best plan is kept.
5. **Re-packing** (``planner.solve.repacking``): an option gives a class one slowdown, that of
   a GPU filled with its own class, so the MILP never puts tenants of several classes on a
   GPU; whole hosts of the plan re-packed by a method that packs within the classes' limits
   itself (time-slicing) are kept where they cost less.

How far a plan can at most be from the best is told by its lower bounds
(``planner.solve.plan_bounds``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from planner.assumptions import facts
from planner.inputs.inventory import Host
from planner.methods.registry import METHODS, Method
from planner.plan import MethodPlan, SolveStatus
from planner.scenario import Scenario
from planner.solve.collector import collector_paused
from planner.solve.configurations import by_configurations
from planner.solve.counts import Counts, HostRows, solve_counts
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
from planner.solve.packing import instances_of
from planner.solve.placement import (
    Placing,
    PlacingInputs,
    cheapest_first,
    consolidate,
    host_usd_per_year,
    make_room,
    place,
    placed_per_option,
    rearrange,
    retry,
    roles_per_host,
)
from planner.solve.plan_bounds import cost_lower_bound, gpu_lower_bound
from planner.solve.repacking import repacked
from planner.solve.views import PlanView, instance_slowdowns

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
        plan = _as_plan(scenario, placing, counts, started, opened, solved.stopped_by_clock)
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


def _ranks_first(
    scenario: Scenario,
    types: Sequence[HostType],
    rates: Rates,
    challenger: tuple[Counts, Placing],
    kept: tuple[Counts, Placing],
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
    scenario: Scenario, types: Sequence[HostType], counts: Counts, placing: Placing
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
(``by_configurations``); a smaller one is planned with each host a type of its own
(``_ONE_TYPE_PER_HOST_MAX_HOSTS``)."""


def _placing_of(plan: MethodPlan) -> Placing:
    """A placed plan as a plan being placed: its placements and each GPU's role."""
    return Placing(
        placements=list(plan.placements),
        configs=dict(plan.gpu_configs),
        roles={key: plan.role(key) for key in plan.gpu_configs},
    )


def _best_plan(
    scenario: Scenario,
    types: Sequence[HostType],
    choices: tuple[Sequence[Option], Sequence[Refusal]],
    rates: Rates,
    isolated: Set[str],
    hosts: int,
    proven_best: _ProvenBest,
    solved: _SolvedCounts,
    starts: Sequence[Placing] = (),
) -> tuple[Counts, Placing]:
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
    # Also whole hosts re-packed by a method that puts tenants of several classes on a GPU
    # within their limits, where the options' one slowdown per class kept them apart.
    for repacking in repacked(scenario, types, found, placing):
        if _ranks_first(scenario, types, rates, (counts, repacking), (counts, placing)):
            placing = repacking
    return counts, placing


def _configured_plans(
    scenario: Scenario,
    types: Sequence[HostType],
    choices: tuple[Sequence[Option], Sequence[Refusal]],
    rates: Rates,
    isolated: Set[str],
    starts: tuple[Placing, Sequence[Placing]],
) -> list[tuple[Counts, Placing]]:
    """The mix chosen host by host by configuration (``by_configurations``) from the hosts of
    the plan by type and, when given, of the single-method plans; those may pack a class with
    others past its slowdown limit, and are then placed again with the classes over it kept
    apart, until none is (a plan still over is not kept). Where they did, also the mix from the
    plan by type's hosts alone: kept apart, their plan may cost more than that one."""
    found, refusals = choices
    by_type, singles = starts
    plans: list[tuple[Counts, Placing]] = []
    kept_apart = set(isolated)
    for _ in range(_LIMIT_ROUNDS if singles else 0):
        configured = by_configurations(
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
    alone = by_configurations(scenario, types, found, refusals, rates, isolated, (by_type,))
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

    @property
    def stopped_by_clock(self) -> bool:
        """The wall-clock backstop stopped some solve so far: the plan kept may rest on its
        counts (a start of the plan by configuration) whichever counts it was placed from."""
        return any(c is not None and c.stopped_by_clock for c in self._solved.values())


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

    def __call__(self, counts: Counts, placing: Placing) -> bool:
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
) -> tuple[Counts, Placing]:
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
    best: tuple[tuple[list[int], float], Counts, Placing] | None = None
    inputs = PlacingInputs(found, rates, isolated)
    cheapest = cheapest_first(found, types, rates)
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
            retry(scenario, types, cheapest, refusals, attempt)
            make_room(scenario, types, cheapest, attempt)
            rearrange(scenario, types, cheapest, attempt)
            consolidate(scenario, types, attempt)
            key = _rank(scenario, types, rates, attempt)
            if best is None or key < best[0]:
                best = (key, counts, attempt)
        if not short:
            break
        # What fits there now includes what the retry added; per type, the attempt (as
        # packed or spread) that placed most there.
        per_attempt = [placed_per_option(attempt, types) for attempt in tried]
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
    inputs: PlacingInputs,
    *,
    spreading: bool,
) -> tuple[Placing, set[int]]:
    """The MILP's counts placed (``place``), and the types that could not take them all."""
    placing = Placing(free_hosts={t: list(ht.hosts) for t, ht in enumerate(types)})
    place(scenario, types, counts, placing, inputs, spreading=spreading)
    return placing, _short_types(counts, placed_per_option(placing, types))


def _rank(
    scenario: Scenario, types: Sequence[HostType], rates: Rates, placing: Placing
) -> tuple[list[int], float]:
    """Placements compared: fewest instances left out by priority, then the lowest cost."""
    return _left_out(scenario, placing), _plan_usd_per_year(placing, types, rates)


def _short_types(counts: Counts, placed: Mapping[tuple[str, Method, int], int]) -> set[int]:
    """Host types where placement put fewer instances of an option than the MILP did."""
    return {key[2] for key, wanted in counts.served.items() if placed.get(key, 0) < wanted}


def _left_out(scenario: Scenario, placing: Placing) -> list[int]:
    """Instances not placed per priority level, most urgent first (compared as a list)."""
    placed = {p.instance for p in placing.placements}
    levels = sorted({w.priority for w in scenario.workloads})
    by_name = {w.name: w.priority for w in scenario.workloads}
    left = dict.fromkeys(levels, 0)
    for miss in placing.missed.values():
        if miss.instance not in placed:
            left[by_name[miss.workload]] += 1
    return list(left.values())


def _plan_usd_per_year(placing: Placing, types: Sequence[HostType], rates: Rates) -> float:
    """What the placed plan costs per year at ``rates``: its GPUs under their roles, the hosts
    they are on and host-wide roles' networks (busy power left out, as in the MILP)."""
    host_of = {h.name: h for ht in types for h in ht.hosts}
    return sum(
        host_usd_per_year(host_of[name], roles, rates)
        for name, roles in roles_per_host(placing).items()
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


def _as_plan(
    scenario: Scenario,
    placing: Placing,
    counts: Counts,
    started: float,
    hosts: tuple[Host, ...],
    clock: bool = False,
) -> MethodPlan:
    """The plan being placed as a ``MethodPlan``; its notes say so when the wall-clock
    backstop stopped a solve it may rest on (``clock``, or its own ``counts``')."""
    order = {i.id: n for n, i in enumerate(instances_of(scenario.workloads))}
    placed = {p.instance for p in placing.placements}
    missed = sorted(
        (n for n in placing.missed.values() if n.instance not in placed),
        key=lambda n: order[n.instance],
    )
    as_solved = len(placing.configs) == sum(counts.gpus.values())
    status = counts.status if as_solved else SolveStatus.HEURISTIC
    notes = list(placing.notes)
    if clock or counts.stopped_by_clock:
        backstop = next(f for name, f, _ in facts(scenario.assumptions) if name == "time_limit_s")
        notes.append(
            f"A MILP of the mix was stopped by the {backstop.label.lower()} "
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
