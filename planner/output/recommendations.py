"""The recommended plan as an answer: the plan, why each class got its method, what it saves.

``recommend_plan`` takes the recommended mix (``planner.solve.mixed``) and every single-method
plan, keeps the best of them in this order: (1) by priority, the most instances served; (2) the
lowest annual cost; (3) the fewest GPUs, so the recommendation never costs more than a
single-method plan serving the same instances. It then proves a lower bound on the cost of any
plan serving those instances within their limits, and explains each class's method from the
numbers: the rule that ruled the others out, the slowdown limit, the cost, or the capacity left.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from planner.inputs.inventory import Host, ServerType
from planner.inputs.platform import DEFAULT_PLATFORM
from planner.inputs.workloads import WorkloadClass
from planner.measure.costs import (
    AnnualRates,
    OwnedRates,
    amortised_usd_per_year,
    server_price_usd,
    workload_usd_per_instance_year,
)
from planner.measure.metrics import placements_by_gpu
from planner.measure.result import MethodResult, measure_plan
from planner.methods.registry import METHODS, Method, server_for
from planner.plan import MethodPlan, SolveStatus
from planner.scenario import Scenario
from planner.solve.headroom import ClusterHeadroom, check_headroom, standby_hosts
from planner.solve.mixed import (
    HostType,
    MixedPlan,
    Option,
    Refusal,
    bound_options,
    cost_lower_bound,
    gpu_lower_bound,
    recommend,
    slowdown_limit,
)
from planner.solve.packing import size_method
from planner.words import counted

__all__ = [
    "ADDED_CLUSTER",
    "DECISION_COLUMNS",
    "ClassDecision",
    "Purchase",
    "RecommendedDraft",
    "RecommendedPlan",
    "decisions_frame",
    "draft_recommendation",
    "prove_bounds",
    "purchases",
    "rank",
    "recommend_additions",
    "recommend_plan",
    "servers_to_buy",
    "today_method",
    "within_limits",
]


@dataclass(frozen=True)
class ClassDecision:
    """What the recommended plan gives one workload class, and why, from the numbers."""

    workload: str
    instances: int
    served: tuple[tuple[Method, int], ...]
    """Methods serving the class, most instances first, with their instance counts."""
    not_served: int
    gpus: float
    """GPUs the class occupies, each shared GPU split by reserved memory [GPUs]."""
    usd_per_instance_year: float | None
    """The class's share of the plan's cost per served instance [USD/year]."""
    slowdown: float | None
    """Mean runtime over bare metal of its served instances [-]."""
    limit: float
    """The class's slowdown limit [-]."""
    decided_by: str
    """``requirement``, ``slowdown limit``, ``cost``, ``capacity``, ``nothing fits`` or
    ``no instances``."""
    reason: str
    alternatives: tuple[str, ...]
    """Every other method: its estimated cost and slowdown, or why it cannot serve the class."""

    @property
    def method(self) -> Method | None:
        """The method serving most of the class; None when nothing serves it."""
        return self.served[0][0] if self.served else None


@dataclass(frozen=True)
class RecommendedPlan:
    """The recommended plan, measured, with its bound, its decisions and its references."""

    result: MethodResult
    decisions: tuple[ClassDecision, ...]
    cost_lower_bound_usd: float
    """No plan serving the same instances within their limits costs less per year (GPUs, hosts,
    licences, idle power and network; busy power, known only once packed, is left out)
    [USD/year]."""
    source: str
    """How the plan was found: a mix of methods, or one method alone when no mix beat it."""
    today: MethodResult | None
    """The single-method plan of how the estate is shared today (``Assumptions.today_method``)."""
    best_single: MethodResult | None
    """The best single-method plan: most instances by priority, then cheapest."""
    purchase: tuple[Purchase, ...] = ()
    """When sizing: the servers to buy, per type."""
    owned_hosts: int | None = None
    """When adding to the inventory: the hosts already owned the purchase goes on top of."""
    purchase_usd_per_year: float = 0.0
    """The purchase spread over the amortisation period [USD/year]."""
    headroom: tuple[ClusterHeadroom, ...] = ()
    """Per cluster, whether it tolerates the host failures asked (empty when none asked)."""

    @property
    def purchase_usd(self) -> float:
        """What the servers to buy cost, GPUs included [USD]."""
        return sum(p.price_usd for p in self.purchase)

    @property
    def bounded_usd_per_year(self) -> float:
        """The annual cost the bound is on: everything but busy power [USD/year]."""
        cost = self.result.cost
        return cost.total_usd_per_year - cost.busy_power_usd_per_year

    @property
    def ratio_to_bound(self) -> float | None:
        """``bounded_usd_per_year`` over its lower bound [-]; 1.0 is provably the cheapest."""
        bound = self.cost_lower_bound_usd
        return self.bounded_usd_per_year / bound if bound > 0 else None

    def bound_said(self) -> str:
        """The cost bound in words, as the CLI and the Compare page say it: what no plan
        serving the same instances undercuts, or that no bound above $0 was proven."""
        if self.bounded_usd_per_year <= 0:
            return "it costs nothing, so no plan costs less"
        if self.ratio_to_bound is None:
            return "no lower bound on its cost could be proven"
        return (
            "no plan serving the same instances within their limits costs under "
            f"${self.cost_lower_bound_usd:,.0f} a year without busy power"
        )

    def headline(self) -> str:
        """The answer in one sentence: what it serves, on what, against today."""
        m = self.result.metrics
        total = m.instances_placed + m.instances_not_placed
        if m.instances_placed == 0 and total:
            # Every method was weighed: not one instance fits (each class says why).
            text = (
                f"Serves none of the {counted(total, 'instance')}: "
                "no method can place one within its limits here"
            )
        elif m.instances_not_placed == 0:
            every = "all" if m.instances_placed > 1 else "the"
            text = f"Serves {every} {counted(m.instances_placed, 'instance')}"
        else:
            text = f"Serves {m.instances_placed:,} of {counted(total, 'instance')}"
        if m.instances_placed:
            text += f" on {counted(m.gpus_used, 'GPU')} in {counted(m.hosts_used, 'host')}"
        if self.owned_hosts is not None:
            return self._added(text)
        if self.purchase:
            servers = " + ".join(p.said for p in self.purchase)
            text = (
                f"Buy {servers} for ${self.purchase_usd:,.0f}: {text[0].lower()}{text[1:]}, "
                f"${self.result.cost.total_usd_per_year:,.0f} per year"
            )
        if self.today is not None and m.instances_placed:
            text += ", " + _against(self.result, self.today, f"today ({self.today.label})")
        return text + "."

    def _added(self, serves: str) -> str:
        """``Buy N × T (for $X, $Y per year) on top of your M hosts: serves …; still not
        served: …``."""
        if self.purchase:
            servers = " + ".join(p.said for p in self.purchase)
            buy = (
                f"Buy {servers} (for ${self.purchase_usd:,.0f}, "
                f"${self.purchase_usd_per_year:,.0f} per year amortised)"
            )
        else:
            buy = "Buy nothing"
        if self.owned_hosts:
            hosts = "host" if self.owned_hosts == 1 else "hosts"
            buy += f" on top of your {self.owned_hosts} {hosts}"
        text = (
            f"{buy}: {serves[0].lower()}{serves[1:]}, "
            f"${self.result.cost.total_usd_per_year:,.0f} per year in all"
        )
        if self.headroom:
            k = self.headroom[0].headroom
            broken = [h.cluster for h in self.headroom if not h.holds]
            text += (
                f", any {counted(k, 'host')} per cluster can fail"
                if not broken
                else f", but clusters {', '.join(broken)} do not tolerate "
                f"{counted(k, 'host failure')}"
            )
        left = self.still_not_served()
        if left:
            text += "; still not served: " + "; ".join(left)
        return text + "."

    def purchase_facts(self) -> tuple[tuple[str, str], ...]:
        """The purchase and the headroom as (figure, value in words) rows, for a printout or a
        sheet: each server type bought, what it costs, the owned hosts it goes on top of, each
        cluster's tolerance of host failures, and what is still not served."""
        rows: list[tuple[str, str]] = []
        if self.owned_hosts is not None:
            rows.append(("hosts already owned", f"{self.owned_hosts}, every one kept as it is"))
        for p in self.purchase:
            idle = f", {p.standby} of them kept idle for failover" if p.standby else ""
            rows.append(
                (
                    f"buy {p.server.label}",
                    f"{p.count} at ${p.unit_price_usd:,.0f} each: ${p.price_usd:,.0f}{idle}",
                )
            )
        if self.purchase or self.owned_hosts is not None:
            rows.append(("purchase price [USD]", f"${self.purchase_usd:,.0f}"))
        if self.purchase_usd_per_year:
            rows.append(("purchase amortised [USD/year]", f"${self.purchase_usd_per_year:,.0f}"))
        if any(p.standby for p in self.purchase):
            rows.append(
                (
                    "servers kept idle",
                    "priced in the purchase; the annual cost counts only the hosts in use",
                )
            )
        rows.extend(("headroom", c.sentence) for c in self.headroom)
        if self.owned_hosts is not None:
            rows.extend(("still not served", line) for line in self.still_not_served())
        return tuple(rows)

    def still_not_served(self) -> tuple[str, ...]:
        """``3 × train-big because …`` per class with instances left out, with the first
        reason given."""
        reasons: dict[str, list[str]] = {}
        for n in self.result.plan.not_placed:
            reasons.setdefault(n.workload, []).append(n.reason)
        return tuple(f"{len(r)} × {name} because {r[0]}" for name, r in reasons.items())


def _against(plan: MethodResult, reference: MethodResult, name: str) -> str:
    gpus = reference.metrics.gpus_used - plan.metrics.gpus_used
    usd = reference.cost.total_usd_per_year - plan.cost.total_usd_per_year
    more = plan.metrics.instances_placed - reference.metrics.instances_placed
    if gpus == 0 and round(usd) == 0 and more == 0:
        return f"the same GPUs, cost and service as {name}"
    parts = [
        f"as many GPUs as {name}"
        if gpus == 0
        else f"{counted(abs(gpus), 'GPU', between='fewer' if gpus > 0 else 'more')} than {name}",
        f"${abs(usd):,.0f} {'less' if usd >= 0 else 'more'} per year",
    ]
    if more:
        served = counted(abs(more), "instance", between="more" if more > 0 else "fewer")
        parts.append(f"{served} served")
    return ", ".join(parts)


def today_method(scenario: Scenario) -> Method:
    """How the estate is shared today; ``ValueError`` naming the methods for an unknown one."""
    value = scenario.assumptions.today_method
    try:
        return Method(value)
    except ValueError:
        known = ", ".join(m.value for m in METHODS)
        raise ValueError(f"today_method {value!r} is not a method; use one of {known}") from None


def _service(result: MethodResult, scenario: Scenario) -> tuple[int, ...]:
    """Instances served per priority level, most urgent level first."""
    priority = {w.name: w.priority for w in scenario.workloads}
    levels = sorted(set(priority.values()))
    placed = {p.instance: p.workload for p in result.plan.placements}
    counts = Counter(priority[name] for name in placed.values())
    return tuple(counts[level] for level in levels)


def rank(result: MethodResult, scenario: Scenario) -> tuple[object, ...]:
    """Sort key: most served by priority, then cheapest, then fewest GPUs."""
    return (
        tuple(-n for n in _service(result, scenario)),
        round(result.cost.total_usd_per_year, 6),
        result.metrics.gpus_used,
    )


def within_limits(result: MethodResult, scenario: Scenario) -> bool:
    """Whether every class the plan serves runs within its slowdown limit (on average)."""
    limits = {w.name: slowdown_limit(w, scenario) for w in scenario.workloads}
    return all(s.slowdown <= limits[s.workload] + 1e-9 for s in result.slowdowns)


def _as_recommended(plan: MethodPlan) -> MethodPlan:
    """A single-method plan relabelled as the recommended plan (every GPU keeps its role)."""
    roles = {key: plan.role(key) for key in plan.gpu_configs}
    return dataclasses.replace(plan, method=None, roles=roles)


def servers_to_buy(
    scenario: Scenario,
    servers: Sequence[ServerType],
    sizings: Sequence[MethodPlan],
    *,
    cluster: str = "sized",
) -> tuple[Host, ...]:
    """The servers sizing may open, per type as many as the single-method ``sizings`` opened in
    all (each class fits on some method's servers, so that many are always enough) and at least
    one; each type in a cluster of its own (``cluster``, or ``cluster-2-l40s`` and so on)."""
    opened = sum(len(plan.hosts) for plan in sizings)
    hosts: list[Host] = []
    for n, server in enumerate(servers):
        name = cluster if len(servers) == 1 else f"{cluster}-{n + 1}-{server.gpu_model.lower()}"
        hosts.extend(server.host(i, name) for i in range(max(1, opened)))
    return tuple(hosts)


@dataclass(frozen=True)
class Purchase:
    """Servers of one type a sized plan opens."""

    server: ServerType
    count: int
    unit_price_usd: float
    """One server with its GPUs [USD]."""
    standby: int = 0
    """Of ``count``, the servers kept idle so that hosts can fail (N+k headroom)."""

    @property
    def price_usd(self) -> float:
        return self.count * self.unit_price_usd

    @property
    def said(self) -> str:
        """``3 × l40s-4 (4× L40S)``, or ``3 servers of 4× L40S`` for a type without a name."""
        if self.server.name:
            return f"{self.count} × {self.server.label}"
        return f"{counted(self.count, 'server')} of {self.server.label}"


def purchases(
    scenario: Scenario, hosts: Sequence[Host], servers: Sequence[ServerType]
) -> tuple[Purchase, ...]:
    """The servers ``hosts`` are, counted per type of ``servers`` (matched by shape), in the
    order of ``servers``."""
    counts = Counter(ServerType.of(h) for h in hosts)
    return tuple(
        Purchase(
            server,
            counts[server.shape],
            server_price_usd(scenario, server.gpu_model, server.gpus),
        )
        for server in dict.fromkeys(servers)
        if counts[server.shape]
    )


@dataclass(frozen=True)
class RecommendedDraft:
    """The recommended plan chosen, before its bounds are proven (``draft_recommendation``).

    ``recommended`` is already the plan and every figure of it (GPUs, hosts, cost, what is
    served, each class's decision); only its bounds are still the trivial 0, and its status
    heuristic, until ``prove_bounds`` proves them without solving the mix again.
    """

    recommended: RecommendedPlan
    mixed: MixedPlan
    """The mix the plan was chosen against: its options and host types are what the bounds
    range over."""
    from_mix: bool
    """Whether the plan chosen is the mix itself (rather than a single method alone)."""


def recommend_plan(
    scenario: Scenario,
    singles: Sequence[MethodResult],
    *,
    servers: Sequence[ServerType] = (),
    draft: RecommendedDraft | None = None,
) -> RecommendedPlan | None:
    """The recommended plan for ``scenario``'s inventory (or, given ``servers``, for a cluster of
    them to buy), or None when there is nothing to plan on: ``draft_recommendation`` (unless its
    ``draft`` is given), then ``prove_bounds``."""
    draft = draft or draft_recommendation(scenario, singles, servers=servers)
    return None if draft is None else prove_bounds(scenario, draft)


def draft_recommendation(
    scenario: Scenario,
    singles: Sequence[MethodResult],
    *,
    servers: Sequence[ServerType] = (),
) -> RecommendedDraft | None:
    """The recommended plan chosen, with its figures, before its bounds are proven; None when
    there is nothing to plan on.

    ``singles`` are the single-method plans of the comparison: their methods are those the mix
    may use, and each that keeps every class within its slowdown limit is a candidate too, so
    the recommendation never serves fewer instances, or the same for more, than the best of
    them.
    """
    hosts = servers_to_buy(scenario, servers, [r.plan for r in singles]) if servers else None
    if not (hosts or scenario.inventory.hosts):
        return None
    rates = AnnualRates(scenario)
    methods = tuple(r.plan.method for r in singles if r.plan.method is not None)
    within = [
        r
        for r in singles
        if r.plan.method is not None and r.plan.placements and within_limits(r, scenario)
    ]
    # On the inventory, the mix may start from the hosts of the single-method plans.
    starts = [r.plan for r in within] if hosts is None else []
    mixed = recommend(scenario, rates, hosts=hosts, methods=methods, starts=starts)
    if len(_by_server(servers)) > 1:
        mixed = _cheaper_on_one_type(scenario, rates, servers, singles, mixed)
    # Single-method plans are ranked on their own results: relabelling changes no figure.
    candidates: list[tuple[MethodResult, MethodPlan, str]] = [
        (r, _as_recommended(r.plan), f"{r.label} alone: no mix did better") for r in within
    ]
    mix = measure_plan(mixed.plan, scenario)
    candidates.insert(0, (mix, mixed.plan, "a mix of sharing methods"))
    best, chosen, source = min(candidates, key=lambda c: rank(c[0], scenario))
    # The trivial bounds (0 GPUs, $0) until prove_bounds replaces them.
    result = _with_bounds(best, chosen, gpu_bound=0, status=SolveStatus.HEURISTIC)
    today = None if servers else _single(singles, today_method(scenario))
    # Against the best single method that keeps every class within its limit where one does:
    # a plan over a class's limit is no alternative the user would take.
    ranked = within or [r for r in singles if r.plan.method is not None]
    best_single = min(ranked, key=lambda r: rank(r, scenario)) if ranked else None
    decisions = _decisions(scenario, result, mixed, rates) if mixed is not None else ()
    bought = purchases(scenario, result.plan.hosts, servers) if servers else ()
    recommended = RecommendedPlan(result, decisions, 0.0, source, today, best_single, bought)
    return RecommendedDraft(recommended, mixed, from_mix=chosen is mixed.plan)


def _cheaper_on_one_type(
    scenario: Scenario,
    rates: AnnualRates,
    servers: Sequence[ServerType],
    singles: Sequence[MethodResult],
    mixed: MixedPlan,
) -> MixedPlan:
    """The mix sized on several server types, or on one type alone where that ranks first: the
    mix's MILP counts a type's hosts together, placing its counts may open a server of another
    type that one more of the first would spare, and a search over several types stops further
    from its best than one over a type alone. The types bought are weighed alone, and every
    type up to ``_EACH_TYPE_ALONE_MAX_INSTANCES`` instances. The types and options stay every
    type's, so that the bound and the decisions range over every server that may be bought;
    the counts are then the one type's (read for the solve's status only). A type is one server
    on each platform it may run (``_by_server``)."""
    bought = {ServerType.of(h) for h in mixed.plan.hosts}
    instances = sum(w.instances for w in scenario.workloads)
    weighed = [
        group
        for group in _by_server(servers)
        if any(s.shape in bought for s in group) or instances <= _EACH_TYPE_ALONE_MAX_INSTANCES
    ]
    best, best_rank = mixed, rank(measure_plan(mixed.plan, scenario), scenario)
    sizings = [r.plan for r in singles]
    for group in weighed:
        alone = recommend(
            scenario,
            rates,
            hosts=servers_to_buy(scenario, group, sizings),
            methods=mixed.methods,
        )
        alone_rank = rank(measure_plan(alone.plan, scenario), scenario)
        if alone_rank < best_rank:
            best = dataclasses.replace(mixed, plan=alone.plan, counts=alone.counts)
            best_rank = alone_rank
    return best


def prove_bounds(
    scenario: Scenario, draft: RecommendedDraft, *, over: MixedPlan | None = None
) -> RecommendedPlan:
    """The drafted recommended plan with its GPU bound, its status and the bound on its annual
    cost [USD/year] over the hosts the mix could use, or those of ``over`` (a mix that could
    use more servers than the draft's: the bound then ranges over all of them)."""
    mixed, result = draft.mixed, draft.recommended.result
    reach = over or mixed
    chosen = result.plan
    served = Counter(p.workload for p in {p.instance: p for p in chosen.placements}.values())
    cost_bound, gpu_bound = 0.0, 0
    bounded = result.cost.total_usd_per_year - result.cost.busy_power_usd_per_year
    if reach.options:
        rates = AnnualRates(scenario)
        # The bound ranges over every plan within the classes' limits, not only the mix's
        # options: the plan chosen may be a single method's, packed more densely.
        found = bound_options(scenario, reach.types, reach.methods, reach.solos)
        cost_bound = cost_lower_bound(scenario, reach.types, found, rates, served)
        if cost_bound > bounded * (1 + 1e-9):
            # No bound is above a plan serving the same: the MILP's feasibility tolerance (ten
            # shares a few KiB over one GPU's memory) misled its search. Its LP relaxation
            # still bounds every plan; failing that, none is proven.
            relaxed = cost_lower_bound(scenario, reach.types, found, rates, served, relax=True)
            cost_bound = relaxed if relaxed <= bounded * (1 + 1e-9) else 0.0
        gpu_bound = gpu_lower_bound(scenario, reach.types, found, served)
    if bounded <= cost_bound * (1 + 1e-9):
        status = SolveStatus.OPTIMAL
    elif draft.from_mix and mixed.counts.status is SolveStatus.LIMIT_REACHED:
        status = SolveStatus.LIMIT_REACHED
    else:
        status = SolveStatus.HEURISTIC
    return dataclasses.replace(
        draft.recommended,
        result=_with_bounds(result, chosen, gpu_bound=gpu_bound, status=status),
        cost_lower_bound_usd=cost_bound,
    )


def _with_bounds(
    best: MethodResult, chosen: MethodPlan, *, gpu_bound: int, status: SolveStatus
) -> MethodResult:
    """``best`` as the plan ``chosen`` (the recommended plan), with its GPU bound and status."""
    plan = dataclasses.replace(chosen, lower_bound_gpus=gpu_bound, status=status)
    metrics = dataclasses.replace(
        best.metrics,
        lower_bound_gpus=gpu_bound,
        ratio_to_bound=best.metrics.gpus_used / gpu_bound if gpu_bound > 0 else None,
    )
    cost = dataclasses.replace(best.cost, plan=plan.name)
    return dataclasses.replace(best, plan=plan, metrics=metrics, cost=cost)


_EACH_TYPE_ALONE_MAX_INSTANCES = 200
"""Instances up to which a sizing, or an addition without headroom, on several server types
also weighs each type alone, bought or not: a work limit (each type is a planning as long as
the mix's; the gaps found beyond it were under 1 %)."""

ADDED_CLUSTER = "new"
"""Cluster of the servers bought on top of the inventory (one per type: ``new-2-l40s``)."""


def recommend_additions(
    scenario: Scenario,
    servers: Sequence[ServerType],
    sized: Sequence[MethodPlan],
    *,
    headroom: int = 0,
    methods: Sequence[Method] = tuple(METHODS),
) -> RecommendedPlan:
    """The recommended plan on the inventory as it is plus what to buy on top of it.

    Every owned host keeps its shape; it costs no purchase (``OwnedRates``), so the mix fills
    the inventory before it buys servers of ``servers`` (each type a new cluster, at most as
    many as the single-method sizings ``sized`` opened); on the hosts owned and bought, the mix
    is then planned again with every host's price counted and kept when it ranks better
    (serves as much for less). With ``headroom`` ``k``, each failover
    group of a cluster keeps its ``k`` largest hosts idle and each new cluster gets ``k`` more
    servers (``planner.solve.headroom``); the combined plan is then checked for feasibility and
    with hosts down. Everything any method can serve is served when the servers allow it.
    """
    owned = scenario.inventory.hosts
    standby = set(standby_hosts(owned, headroom))
    active = tuple(h for h in owned if h not in standby)
    drafts = [_additions(scenario, tuple(servers), sized, active, headroom, methods)]
    groups = _by_server(servers)
    instances = sum(w.instances for w in scenario.workloads)
    weighed: list[tuple[ServerType, ...]] = []
    if len(groups) > 1 and (
        headroom or (drafts[0].recommended.purchase and instances <= _EACH_TYPE_ALONE_MAX_INSTANCES)
    ):
        # One type bought alone (as asked alone: its own sizings) may cost less a year than the
        # mix of types: each new cluster gets its own spare servers, and placing the MILP's
        # counts may open servers of one type where another's would cost less.
        weighed.extend(groups)
    if headroom:
        # A type bought on two platforms is two new clusters, each with its spares: on one
        # platform alone, with the methods that platform serves, it may need fewer servers.
        weighed.extend((s,) for group in groups if len(group) > 1 for s in group)
    for group in weighed:
        serving = [m for m in methods if server_for(m, group[0]) in group]
        if serving:
            alone = _sizings_on(scenario, group, sized, serving)
            drafts.append(_additions(scenario, group, alone, active, headroom, serving))
    best = min(drafts, key=lambda d: _rank_with_spares(d.recommended, scenario))
    # A type bought alone is bounded over every server that may be bought, as it was asked.
    return prove_bounds(scenario, best, over=drafts[0].mixed)


def _by_server(servers: Sequence[ServerType]) -> list[tuple[ServerType, ...]]:
    """``servers`` grouped by the server bought: one type on each platform it may run
    (``registry.servers_for``) is one server to buy, in order of first appearance."""
    groups: dict[ServerType, list[ServerType]] = {}
    for server in servers:
        groups.setdefault(dataclasses.replace(server, platform=DEFAULT_PLATFORM), []).append(server)
    return [tuple(group) for group in groups.values()]


def _sizings_on(
    scenario: Scenario,
    group: Sequence[ServerType],
    sized: Sequence[MethodPlan],
    methods: Sequence[Method],
) -> list[MethodPlan]:
    """Each method's sizing on one server type alone (``group``: the type on each platform it
    may run), as asked alone: those of ``sized`` on it, and the others sized now (a sizing's
    single-method plans are each on its method's best type, so a type none chose would get one
    server to buy)."""
    shapes = {s.shape for s in group}
    alone = [p for p in sized if all(ServerType.of(h) in shapes for h in p.hosts)]
    have = {p.method for p in alone}
    missing = [m for m in methods if m not in have]
    alone.extend(size_method(m, scenario, server_for(m, group[0])) for m in missing)
    return alone


def _rank_with_spares(plan: RecommendedPlan, scenario: Scenario) -> tuple[object, ...]:
    """``rank`` with the spare servers' write-off counted in the cost: idle, they cost no
    power, but they are bought."""
    spares_usd = sum(p.standby * p.unit_price_usd for p in plan.purchase)
    years = scenario.assumptions.amortisation_years
    result = plan.result
    return (
        tuple(-n for n in _service(result, scenario)),
        round(result.cost.total_usd_per_year + amortised_usd_per_year(spares_usd, years), 6),
        result.metrics.gpus_used,
    )


def _additions(
    scenario: Scenario,
    servers: Sequence[ServerType],
    sized: Sequence[MethodPlan],
    active: Sequence[Host],
    headroom: int,
    methods: Sequence[Method],
) -> RecommendedDraft:
    """``recommend_additions`` buying servers of ``servers``, on the ``active`` owned hosts."""
    owned = scenario.inventory.hosts
    candidates = servers_to_buy(scenario, servers, sized, cluster=ADDED_CLUSTER)
    owned_names = {h.name for h in owned}
    mixed = recommend(
        scenario,
        OwnedRates(scenario, frozenset(owned_names)),
        hosts=candidates,
        owned=active,
        methods=methods,
    )
    # What to buy is settled. On the hosts owned and bought, the plan that costs least with
    # every host's price counted (as the annual cost shown counts it) is kept when it serves
    # as much for less: an owned GPU that costs no purchase is no reason to use more of them.
    # With no host owned in use and none bought there is nothing to plan again on.
    opened = tuple(h for h in mixed.plan.hosts if h.name not in owned_names)
    if opened or active:
        priced = recommend(
            scenario, AnnualRates(scenario), hosts=opened, owned=active, methods=methods
        )
        if rank(measure_plan(priced.plan, scenario), scenario) < rank(
            measure_plan(mixed.plan, scenario), scenario
        ):
            mixed = priced
    bought = tuple(h for h in mixed.plan.hosts if h.name not in owned_names)
    spare = _spares(bought, candidates, headroom)
    plan = dataclasses.replace(mixed.plan, hosts=(*owned, *bought, *spare))
    rates = AnnualRates(scenario)
    # The trivial bounds (0 GPUs, $0) until prove_bounds replaces them.
    result = _with_bounds(
        measure_plan(plan, scenario), plan, gpu_bound=0, status=SolveStatus.HEURISTIC
    )
    a = scenario.assumptions
    bought_all = purchases(scenario, (*bought, *spare), servers)
    kept = Counter(ServerType.of(h) for h in spare)
    bought_all = tuple(dataclasses.replace(p, standby=kept[p.server.shape]) for p in bought_all)
    price = sum(p.price_usd for p in bought_all)
    drafted = RecommendedPlan(
        result=result,
        decisions=_decisions(scenario, result, mixed, rates),
        cost_lower_bound_usd=0.0,
        source="a mix of sharing methods on your hosts and the servers to buy",
        today=None,
        best_single=None,
        purchase=bought_all,
        owned_hosts=len(owned),
        purchase_usd_per_year=amortised_usd_per_year(price, a.amortisation_years),
        headroom=check_headroom(plan, scenario, headroom) if headroom else (),
    )
    return RecommendedDraft(drafted, mixed, from_mix=True)


def _spares(bought: Sequence[Host], candidates: Sequence[Host], headroom: int) -> tuple[Host, ...]:
    """``headroom`` more servers for each new cluster a plan opened, of its type."""
    spares: list[Host] = []
    for cluster in dict.fromkeys(h.cluster for h in bought):
        first = next(h for h in bought if h.cluster == cluster)
        after = sum(1 for h in candidates if h.cluster == cluster)
        spares.extend(ServerType.of(first).host(after + j, cluster) for j in range(headroom))
    return tuple(spares)


def _single(singles: Sequence[MethodResult], method: Method) -> MethodResult | None:
    return next((r for r in singles if r.plan.method is method), None)


def _class_gpus(plan: MethodPlan) -> dict[str, float]:
    """GPUs per class, each shared GPU split by the memory its instances reserve [GPUs]."""
    share: dict[str, float] = defaultdict(float)
    for placements in placements_by_gpu(plan).values():
        reserved = sum(p.memory_gib for p in placements)
        for p in placements:
            share[p.workload] += p.memory_gib / reserved if reserved > 0 else 1.0 / len(placements)
    return share


def _decisions(
    scenario: Scenario, result: MethodResult, mixed: MixedPlan, rates: AnnualRates
) -> tuple[ClassDecision, ...]:
    plan = result.plan
    gpus = _class_gpus(plan)
    usd = workload_usd_per_instance_year(plan, scenario)
    slow = {s.workload: s for s in result.slowdowns}
    methods_of: dict[str, Counter[Method]] = defaultdict(Counter)
    seen: set[str] = set()
    for p in plan.placements:
        if p.instance not in seen:
            seen.add(p.instance)
            methods_of[p.workload][plan.role((p.host, p.gpu_index))] += 1
    missed = {n.workload: n.reason for n in plan.not_placed}
    options_of: dict[str, list[Option]] = defaultdict(list)
    for option in mixed.options:
        options_of[option.workload].append(option)
    refusals_of: dict[str, dict[Method, Refusal]] = defaultdict(dict)
    for refusal in mixed.refusals:
        refusals_of[refusal.workload][refusal.method] = refusal
    decisions = []
    for workload in scenario.workloads:
        counts = methods_of.get(workload.name, Counter())
        served = tuple(sorted(counts.items(), key=lambda mc: (-mc[1], list(METHODS).index(mc[0]))))
        estimates = _estimates(options_of[workload.name], mixed.types, rates)
        refusals = refusals_of[workload.name]
        decided_by, reason = _why(workload, served, estimates, refusals, missed, scenario)
        s = slow.get(workload.name)
        decisions.append(
            ClassDecision(
                workload=workload.name,
                instances=workload.instances,
                served=served,
                not_served=workload.instances - sum(counts.values()),
                gpus=gpus.get(workload.name, 0.0),
                usd_per_instance_year=usd.get(workload.name),
                slowdown=None if s is None else s.slowdown,
                limit=slowdown_limit(workload, scenario),
                decided_by=decided_by,
                reason=reason,
                alternatives=_alternatives(served, estimates, refusals),
            )
        )
    return tuple(decisions)


@dataclass(frozen=True)
class _Estimate:
    """A method's cheapest option for a class, from the class packed alone."""

    option: Option
    host_type: HostType
    usd_per_instance_year: float


def _estimates(
    options: Sequence[Option], types: Sequence[HostType], rates: AnnualRates
) -> dict[Method, _Estimate]:
    """Each method's cheapest option per instance among a class's ``options``."""
    best: dict[Method, _Estimate] = {}
    for option in options:
        host_type = types[option.host_type]
        shape = host_type.shape
        per_gpu = (
            rates.gpu_usd_per_year(option.method, shape)
            + rates.host_usd_per_year(shape) / shape.gpus
            + rates.network_usd_per_host_year(option.method, shape) / shape.gpus
        )
        estimate = _Estimate(option, host_type, per_gpu * option.gpus_per_instance)
        known = best.get(option.method)
        if known is None or estimate.usd_per_instance_year < known.usd_per_instance_year:
            best[option.method] = estimate
    return best


def _why(
    workload: WorkloadClass,
    served: Sequence[tuple[Method, int]],
    estimates: Mapping[Method, _Estimate],
    refusals: Mapping[Method, Refusal],
    missed: Mapping[str, str],
    scenario: Scenario,
) -> tuple[str, str]:
    """The constraint that decided the class's method, and the sentence that says so."""
    if workload.instances == 0:
        return "no instances", "The class has no instances: there is nothing to place."
    if not served:
        if not estimates:
            rules = "; ".join(f"{m.label}: {r.reason}" for m, r in refusals.items())
            return "nothing fits", f"No method can serve it: {rules}."
        return "capacity", f"No room left: {missed.get(workload.name, 'the estate is full')}."
    main = served[0][0]
    label = main.label
    if set(estimates) == {main}:
        return "requirement", f"Only {label} meets its needs."
    mine = estimates.get(main)
    mine_usd = mine.usd_per_instance_year if mine is not None else math.inf
    slower = [m for m, r in refusals.items() if r.kind == "slowdown" and m is not main]
    cheaper = [
        m for m, e in estimates.items() if m is not main and e.usd_per_instance_year < mine_usd
    ]
    if slower and not cheaper:
        shown = ", ".join(f"{m.label} ({refusals[m].reason})" for m in slower)
        return "slowdown limit", f"{label}: the methods that share more are too slow: {shown}."
    if cheaper:
        shown = ", ".join(m.label for m in cheaper)
        if not scenario.inventory.hosts:
            # Sizing: room can be bought, so what decided is the servers the classes share.
            return "cost", (
                f"{label}: {shown} would cost less per instance on servers of its own; on the "
                "servers bought for the other classes too, this plan costs less in all."
            )
        return "capacity", f"{label}: {shown} would cost less but had no room left for it."
    limit = slowdown_limit(workload, scenario)
    return "cost", f"{label} is the cheapest method within its {limit:.2f}× limit."


_REFUSED = {"requirement": "ruled out", "slowdown": "too slow", "no host": "no host"}


def _alternatives(
    served: Sequence[tuple[Method, int]],
    estimates: Mapping[Method, _Estimate],
    refusals: Mapping[Method, Refusal],
) -> tuple[str, ...]:
    chosen = {m for m, _ in served}
    lines = []
    for method in METHODS:
        if method in chosen:
            continue
        if method in estimates:
            e = estimates[method]
            lines.append(
                f"{method.label}: ~${e.usd_per_instance_year:,.0f} per instance-year, "
                f"{e.option.slowdown:.2f}× bare metal"
            )
        elif method in refusals:
            r = refusals[method]
            kind = {"requirement": "ruled out", "slowdown": "too slow", "no host": "no host"}[
                r.kind
            ]
            lines.append(f"{method.label}: {kind}: {r.reason}")
    return tuple(lines)


DECISION_COLUMNS: Mapping[str, str] = {
    "workload": "workload class",
    "instances": "instances in the class",
    "method": "method serving most of the class (empty when none)",
    "served": "instances served per method",
    "not_served": "instances left out",
    "gpus": "GPUs the class occupies, shared GPUs split by reserved memory [GPUs]",
    "usd_per_instance_year": "the class's share of the annual cost per served instance [USD/year]",
    "slowdown": "mean runtime over bare metal of its served instances [-]",
    "limit": "the class's slowdown limit [-]",
    "decided_by": "what decided the method: requirement, slowdown limit, cost, capacity",
    "reason": "the decision in words",
    "alternatives": "every other method: its estimate, or why it cannot serve the class",
}
"""Columns of ``decisions_frame`` with their meaning and unit."""


def decisions_frame(recommended: RecommendedPlan) -> pd.DataFrame:
    """One row per workload class; columns as in ``DECISION_COLUMNS``."""
    rows = [
        {
            "workload": d.workload,
            "instances": d.instances,
            "method": d.method.label if d.method is not None else "",
            "served": ", ".join(f"{m.label} {n}" for m, n in d.served),
            "not_served": d.not_served,
            "gpus": d.gpus,
            "usd_per_instance_year": d.usd_per_instance_year,
            "slowdown": d.slowdown,
            "limit": d.limit,
            "decided_by": d.decided_by,
            "reason": d.reason,
            "alternatives": "; ".join(d.alternatives),
        }
        for d in recommended.decisions
    ]
    return pd.DataFrame(rows, columns=list(DECISION_COLUMNS))
