"""The MILP over counts: instances of each class per option, GPUs and hosts per role.

Over classes ``c`` (identical classes merged into one row), options ``o = (c, m, t)``
(``planner.solve.options``), each method's GPU patterns ``p`` (``SharingMethod.gpu_demand``)::

    x[o]       instances of c served by m on t          integer, 0..n_c
    u[c]       instances of c left out                  continuous >= 0
    y[m,t,p]   GPUs of type t set up by m with pattern p integer >= 0
    h[m,t]     hosts of type t a host-wide method takes integer, 0..N_t
    g[t]       hosts of type t holding per-GPU roles    integer, 0..N_t

    Σ_o∈c x[o] + u[c] = n_c                                  every instance served or left out
    Σ_c use[c,m][d] x[c,m,t] <= Σ_p pattern[p][d] y[m,t,p]    each method's GPU rows hold
    Σ_p y[m,t,p] <= G_t h[m,t]          (host-wide m)         its GPUs lie on its hosts
    Σ_{per-GPU m,p} y[m,t,p] <= G_t g[t]                     per-GPU roles on shared hosts
    g[t] + Σ_m h[m,t] <= N_t                                  the hosts there are
    Σ vcpus_c x[o] <= cores_t g[t] (or h[m,t]), same for RAM  instances' cores and RAM fit

Objective, in order: (1) by priority, serve as many instances as possible (a first solve
when not everything fits); (2) the lowest annual cost: each GPU's rate under its role (price
over the amortisation period, licence, idle power), each host's rate and the network of a
host-wide role's host; (3) ties to fewer GPUs.

The rows are exact at the GPU level where the methods say so, and relax the rest (a method's
relaxed rows, cores and RAM summed per type). For a lower bound (``served`` given, rows as
relaxed), cores and RAM also follow the GPUs host by host (``_cores_and_ram_follow_gpus``), no
GPU carries more of them than one host has (``_each_gpu_s_instances_on_one_host``) and a role's
instances have only what a host's other roles leave (``_other_roles_keep_their_cores``), and
busy work on GPUs whose compute is shared gets the GPUs its classes' slowdown limits need
(``_busy_work_within_limits``: a GPU asked for more than one GPU of work slows each tenant that
much). Its rows that follow the clock count a class's active instances, not its average
(``_Resting``): a plan may give such a method a class's idlest instances, and placement does
(``SharingMethod.serves_idlest_first``).

The same MILP on a type of one host prices a host's configuration for column generation over
configurations (:func:`host_pricer`): the bound host by host and the plan by configuration.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from planner.inputs.workloads import WorkloadClass
from planner.methods.contract import GpuDemand, RoleScope
from planner.methods.registry import METHODS, Method
from planner.methods.slowdown_model import busy_demand
from planner.plan import SolveStatus
from planner.scenario import Scenario
from planner.solve.milp import Block, Configuration, Model, Priced, Solution, SolverLimits
from planner.solve.options import HostType, Option, Rates, slowdown_limit

__all__ = [
    "CONFIGURATION_PRICING_WORK",
    "CONFIGURATION_ROUNDS",
    "PRICING_NODE_WORK",
    "Counts",
    "Group",
    "HostRows",
    "HostSetup",
    "gpu_demands",
    "group_classes",
    "host_pricer",
    "left_out_usd",
    "solve_counts",
]

_GPU_TIE_BREAK_USD = 1.0
"""Added per GPU so that, at equal cost, fewer GPUs win [USD/year]."""


@dataclass(frozen=True)
class Group:
    """Identical classes merged into one MILP row: same priority, cores, RAM and options."""

    members: tuple[WorkloadClass, ...]
    options: tuple[Option, ...]
    """The first member's options; every member has the same methods, types and GPU use."""

    @property
    def instances(self) -> int:
        return sum(w.instances for w in self.members)

    @property
    def first(self) -> WorkloadClass:
        return self.members[0]


@dataclass(frozen=True)
class Counts:
    """The MILP's answer: instances per option, GPUs and hosts per role and type."""

    served: Mapping[tuple[str, Method, int], int]
    """(class, method, host type) -> instances."""
    gpus: Mapping[tuple[Method, int], int]
    """(method, host type) -> GPUs the rows say the method needs there."""
    hosts: Mapping[tuple[Method, int], int]
    """(host-wide method, host type) -> hosts it takes."""
    usd_per_year: float
    """The MILP's annual cost (without the tie break) [USD/year]."""
    dual_bound_usd: float
    status: SolveStatus
    stopped_by_clock: bool = False
    """The wall-clock backstop, not the work limit, stopped the solve: the same inputs may give
    other counts on another machine."""


@dataclass
class _Rows:
    """The MILP's variable blocks by what they stand for."""

    x: dict[int, int] = field(default_factory=dict)
    """Option index -> column."""
    u: dict[int, int] = field(default_factory=dict)
    """Group index -> column."""
    y: dict[tuple[Method, int], Block] = field(default_factory=dict)
    h: dict[tuple[Method, int], int] = field(default_factory=dict)
    g: dict[int, int] = field(default_factory=dict)
    cost: dict[int, float] = field(default_factory=dict)
    """Column -> annual cost per unit [USD/year], without the tie break."""


def group_classes(
    scenario: Scenario,
    found: Sequence[Option],
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
    *,
    by_slowdown: bool,
) -> list[Group]:
    """Classes merged when the MILP cannot tell them apart (``by_slowdown``: their slowdown
    limits and options' slowdowns too, for the bound's mean slowdown rows)."""
    by_class: dict[str, list[Option]] = {}
    for option in found:
        by_class.setdefault(option.workload, []).append(option)
    merged: dict[tuple[object, ...], list[WorkloadClass]] = {}
    firsts: dict[tuple[object, ...], tuple[Option, ...]] = {}
    for workload in scenario.workloads:
        mine = tuple(by_class.get(workload.name, ()))
        key = (
            workload.priority,
            workload.vcpus,
            workload.ram_gib,
            slowdown_limit(workload, scenario) if by_slowdown else None,
            tuple(
                (
                    o.method,
                    o.host_type,
                    o.slowdown if by_slowdown else None,
                    demands[(o.method, types[o.host_type].model.name)].use[workload.name],
                    demands[(o.method, types[o.host_type].model.name)].planning_use(workload.name),
                )
                for o in mine
            ),
        )
        merged.setdefault(key, []).append(workload)
        firsts.setdefault(key, mine)
    return [Group(tuple(members), firsts[key]) for key, members in merged.items()]


def gpu_demands(
    scenario: Scenario, found: Sequence[Option], types: Sequence[HostType]
) -> dict[tuple[Method, str], GpuDemand]:
    """Each method's GPU rows per model, over the classes with an option there."""
    classes: dict[tuple[Method, str], dict[str, WorkloadClass]] = {}
    by_name = {w.name: w for w in scenario.workloads}
    for option in found:
        key = (option.method, types[option.host_type].model.name)
        classes.setdefault(key, {})[option.workload] = option.shape(by_name[option.workload])
    return {
        (method, model): METHODS[method].gpu_demand(
            list(members.values()),
            scenario.catalog.gpus[model],
            scenario.catalog,
            scenario.assumptions,
        )
        for (method, model), members in classes.items()
    }


class HostRows(Enum):
    """How a plan's MILP holds instances' cores and RAM to the hosts (a bound's always host by
    host)."""

    SUMMED = "summed"
    """Summed over a type's hosts (``_cores_and_ram_fit``)."""
    PER_GPU = "per GPU"
    """And no GPU carries more than one host has (``_each_gpu_s_instances_on_one_host``)."""
    HOST_BY_HOST = "host by host"
    """And, as a bound's, cores and RAM follow the GPUs host by host
    (``_cores_and_ram_follow_gpus``, ``_other_roles_keep_their_cores``)."""


def _build(
    scenario: Scenario,
    types: Sequence[HostType],
    groups: Sequence[Group],
    demands: Mapping[tuple[Method, str], GpuDemand],
    rates: Rates,
    *,
    planning: bool,
    host_rows: HostRows = HostRows.SUMMED,
) -> tuple[Model, _Rows, list[tuple[int, Option]]]:
    """The MILP of the module docstring, without its objective's service part; ``planning``
    builds relaxed methods' rows as their packers place instances, else as relaxed (a bound,
    its cores and RAM host by host whatever ``host_rows`` says)."""
    model = Model()
    rows = _Rows()
    flat = [(i, o) for i, group in enumerate(groups) for o in group.options]

    # Variables
    for k, (i, _) in enumerate(flat):
        rows.x[k] = model.variables(f"x{k}", 1, upper=groups[i].instances)[0]
    for i in range(len(groups)):
        rows.u[i] = model.variables(f"u{i}", 1, integral=False)[0]
    pairs = sorted({(o.method, o.host_type) for _, o in flat}, key=lambda p: (p[1], p[0]))
    for method, t in pairs:
        demand = demands[(method, types[t].model.name)]
        rows.y[(method, t)] = model.variables(f"y[{method},{t}]", len(demand.patterns))
        if METHODS[method].scope is RoleScope.HOST:
            rows.h[(method, t)] = model.variables(f"h[{method},{t}]", 1, upper=len(types[t].hosts))[
                0
            ]
    for t, host_type in enumerate(types):
        rows.g[t] = model.variables(f"g{t}", 1, upper=len(host_type.hosts))[0]

    _every_instance_served_or_left_out(model, rows, flat, groups)
    _method_rows_hold(model, rows, flat, groups, pairs, demands, types, planning=planning)
    _gpus_lie_on_their_hosts(model, rows, pairs, types)
    _cores_and_ram_fit(model, rows, flat, groups, types)
    if not planning:
        host_rows = HostRows.HOST_BY_HOST
    if host_rows is not HostRows.SUMMED:
        _each_gpu_s_instances_on_one_host(model, rows, flat, groups, demands, types)
    if host_rows is HostRows.HOST_BY_HOST:
        _cores_and_ram_follow_gpus(model, rows, flat, groups, demands, types)
        _other_roles_keep_their_cores(model, rows, flat, groups, types)
    _costs(rows, pairs, types, rates)
    return model, rows, flat


def _every_instance_served_or_left_out(
    model: Model, rows: _Rows, flat: Sequence[tuple[int, Option]], groups: Sequence[Group]
) -> None:
    """Σ_o∈c x[o] + u[c] = n_c."""
    by_group: dict[int, list[int]] = {}
    for k, (i, _) in enumerate(flat):
        by_group.setdefault(i, []).append(rows.x[k])
    for i, group in enumerate(groups):
        row = dict.fromkeys(by_group.get(i, []), 1.0)
        row[rows.u[i]] = 1.0
        model.constrain(row, lower=group.instances, upper=group.instances)


def _method_rows_hold(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    pairs: Sequence[tuple[Method, int]],
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
    *,
    planning: bool,
) -> None:
    """Σ_c use[c,m][d] x[c,m,t] <= Σ_p pattern[p][d] y[m,t,p] in every dimension; for a bound,
    rows that follow the clock count a class's active instances (see ``_Resting``)."""
    resting = _Resting()
    for method, t in pairs:
        demand = demands[(method, types[t].model.name)]
        y = rows.y[(method, t)]
        members = [
            (
                k,
                i,
                demand.planning_use(groups[i].first.name)
                if planning
                else demand.use[groups[i].first.name],
            )
            for k, (i, o) in enumerate(flat)
            if o.method is method and o.host_type == t
        ]
        for d in range(len(demand.dimensions)):
            if not planning and demand.resting is not None:
                row = resting.active_row(model, rows, groups, demand, method, d, members)
            else:
                row = {rows.x[k]: use[d] for k, _, use in members if use[d]}
            if not row:
                continue
            for p, pattern in enumerate(demand.patterns):
                if pattern[d]:
                    row[y[p]] = -pattern[d]
            model.constrain(row, upper=0.0)
        _unused_work_still_takes_a_gpu(model, rows, groups, y, members)
    resting.constrain(model)


def _unused_work_still_takes_a_gpu(
    model: Model,
    rows: _Rows,
    groups: Sequence[Group],
    y: Block,
    members: Sequence[tuple[int, int, tuple[float, ...]]],
) -> None:
    """Σ_{c: use[c] = 0} x[c,m,t] <= N Σ_p y[m,t,p], N the instances of those classes: an
    instance that uses nothing of any dimension (a pooled job active in no hour) is still
    placed on a GPU of its method, so serving any needs one."""
    idle = [(k, i) for k, i, use in members if not any(use)]
    if not idle:
        return
    row = {rows.x[k]: 1.0 for k, _ in idle}
    most = float(sum(groups[i].instances for i in {i for _, i in idle}))
    for column in y.columns():
        row[column] = -most
    model.constrain(row, upper=0.0)


@dataclass
class _Resting:
    """Active instances of classes whose instances are not all active in every dimension.

    A method's rows may count ``x`` instances of class ``c`` as ``x × use[c][d]``: its activity
    spread evenly. A plan may hand the method the class's least active instances instead, of
    which at least ``max(0, x − resting[c][d])`` are active, so a lower bound counts
    ``while_active[c][d] × a`` with ``a >= 0``, ``a <= x`` per option and ``Σ_t a >= Σ_t x −
    resting[c][d]`` over the class's options of the method (its host types)."""

    linked: dict[tuple[int, Method, int], list[tuple[int, int]]] = field(default_factory=dict)
    """(group, method, dimension) -> (active column, instances column) per option."""
    idle: dict[tuple[int, Method, int], int] = field(default_factory=dict)
    """(group, method, dimension) -> the group's instances idle in that dimension."""

    def active_row(
        self,
        model: Model,
        rows: _Rows,
        groups: Sequence[Group],
        demand: GpuDemand,
        method: Method,
        d: int,
        members: Sequence[tuple[int, int, tuple[float, ...]]],
    ) -> dict[int, float]:
        """Dimension ``d``'s row over ``members`` (option, group, use), each partly idle
        class counted by its active instances."""
        resting, while_active = demand.resting, demand.while_active
        assert resting is not None
        assert while_active is not None
        row: dict[int, float] = {}
        for k, i, use in members:
            if not use[d]:
                continue
            idle = sum(resting[w.name][d] for w in groups[i].members)
            if idle == 0:
                row[rows.x[k]] = use[d]
                continue
            active = model.variables(f"a[{k},{d}]", 1, upper=groups[i].instances, integral=False)
            row[active[0]] = while_active[groups[i].first.name][d]
            self.linked.setdefault((i, method, d), []).append((active[0], rows.x[k]))
            self.idle[(i, method, d)] = idle
        return row

    def constrain(self, model: Model) -> None:
        for key, pairs in self.linked.items():
            total: dict[int, float] = {}
            for active, instances in pairs:
                model.constrain({active: 1.0, instances: -1.0}, upper=0.0)
                total[active] = 1.0
                total[instances] = -1.0
            model.constrain(total, lower=-float(self.idle[key]))


def _mean_slowdown_within_limit(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    scenario: Scenario,
) -> None:
    """Σ_o (slowdown_o − limit_c) x[o] <= 0 per class: its instances' mean slowdown within its
    limit, each counted at its option's slowdown (for ``bound_options``, the least)."""
    by_group: dict[int, dict[int, float]] = {}
    for k, (i, o) in enumerate(flat):
        excess = o.slowdown - slowdown_limit(groups[i].first, scenario)
        by_group.setdefault(i, {})[rows.x[k]] = excess
    for row in by_group.values():
        if any(excess > 1e-9 for excess in row.values()):
            model.constrain(row, upper=1e-9)


def _busy_work_within_limits(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    types: Sequence[HostType],
    scenario: Scenario,
) -> None:
    """For each set S of classes active at the same hours (hourly active shares ``α``,
    ``κ = Σα² / Σα``):
    ``κ (2 a B − a² G) <= W`` at tangent points ``a`` (1, 2 and each limit over ``κ``, where
    a plan at its limits would cut) [GPUs], where ``B = Σ w x[o]``
    is the busy demand (``busy_demand``, ``w``) S places on GPUs of a method with a
    ``work_floor`` (one GPU per instance), ``G`` those methods' GPUs and ``W = Σ w (limit −
    [o elsewhere] slowdown_o) x[o]``.

    Why: on such a GPU ``g`` an instance of S runs at least ``κ D_g`` slower, ``D_g`` the busy
    demand S puts there, so ``κ Σ_g D_g² <= Σ w × slowdown <= W`` (each class's mean slowdown
    within its limit), and ``Σ_g D_g² >= 2 a B − a² G`` for any ``a``. Without it a bound packs
    busy work as densely as memory allows at the slowdown of one instance alone."""
    floor_gpus = [
        column
        for (method, _), block in rows.y.items()
        if METHODS[method].work_floor
        for column in block.columns()
    ]
    if not floor_gpus:
        return
    gpus: int | None = None
    for n, (hours, members) in enumerate(_active_at_the_same_hours(groups).items()):
        schedule = hours[:-1]
        kappa = sum(a * a for a in schedule) / sum(schedule)
        placed, allowed, densest = _busy_work_terms(rows, flat, groups, members, types, scenario)
        if kappa * densest <= 1.0 + 1e-9:
            # No GPU gets over one GPU of work: the rows would only slow the solve.
            continue
        # G, B and W each once, as variables: the tangent rows stay short, and the MILP's
        # work limit (per nonzero) is not spent on them.
        if gpus is None:
            gpus = model.variables("busy G", 1, integral=False)[0]
            model.constrain({**dict.fromkeys(floor_gpus, 1.0), gpus: -1.0}, lower=0.0, upper=0.0)
        busy, room = model.variables(f"busy B W {n}", 2, lower=-math.inf, integral=False).columns()
        model.constrain({**placed, busy: -1.0}, lower=0.0, upper=0.0)
        model.constrain({**allowed, room: -1.0}, lower=0.0, upper=0.0)
        limits = {slowdown_limit(groups[i].first, scenario) for i in members}
        for a in sorted({1.0, 2.0} | {limit / kappa for limit in limits}):
            model.constrain({busy: 2.0 * kappa * a, gpus: -kappa * a * a, room: -1.0}, upper=1e-9)


def _active_at_the_same_hours(groups: Sequence[Group]) -> dict[tuple[float, ...], set[int]]:
    """Groups whose members all keep one schedule, by that schedule and its days a week."""
    by_hours: dict[tuple[float, ...], set[int]] = {}
    for i, group in enumerate(groups):
        hours = {(*w.daily_schedule, w.days_per_week) for w in group.members}
        if len(hours) == 1 and sum(group.first.daily_schedule) > 0:
            by_hours.setdefault(hours.pop(), set()).add(i)
    return by_hours


def _busy_work_terms(
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    members: Set[int],
    types: Sequence[HostType],
    scenario: Scenario,
) -> tuple[dict[int, float], dict[int, float], float]:
    """``B``'s and ``W``'s coefficients of ``_busy_work_within_limits`` per ``x`` column of the
    ``members`` groups (the least busy demand of a group's members counts in ``B``, the most in
    ``W``, so that merged classes keep the rows valid), and the most busy work one GPU of such
    a method gets from them packed densely [GPUs]."""
    placed: dict[int, float] = {}
    allowed: dict[int, float] = {}
    densest = 0.0
    for k, (i, option) in enumerate(flat):
        if i not in members:
            continue
        demands = [busy_demand(w) for w in groups[i].members]
        limit = slowdown_limit(groups[i].first, scenario)
        method = METHODS[option.method]
        model = types[option.host_type].model
        if method.work_floor and (
            method.gpus_needed(groups[i].first, model, scenario.catalog, scenario.assumptions) == 1
        ):
            placed[rows.x[k]] = min(demands)
            allowed[rows.x[k]] = max(demands) * limit
            per_gpu = option.gpus_per_instance
            densest = max(densest, max(demands) / per_gpu if per_gpu > 0 else math.inf)
        else:
            allowed[rows.x[k]] = max(demands) * (limit - option.slowdown)
    return placed, allowed, densest


def _gpus_lie_on_their_hosts(
    model: Model, rows: _Rows, pairs: Sequence[tuple[Method, int]], types: Sequence[HostType]
) -> None:
    """A host-wide method's GPUs lie on its own hosts, per-GPU roles share the others, and no
    type gives out more hosts than it has."""
    for t, host_type in enumerate(types):
        shared: dict[int, float] = {rows.g[t]: -float(host_type.gpus)}
        hosts: dict[int, float] = {rows.g[t]: 1.0}
        for method, pair_t in pairs:
            if pair_t != t:
                continue
            y = rows.y[(method, t)]
            if METHODS[method].scope is RoleScope.HOST:
                own = dict.fromkeys(y.columns(), 1.0)
                own[rows.h[(method, t)]] = -float(host_type.gpus)
                model.constrain(own, upper=0.0)
                hosts[rows.h[(method, t)]] = 1.0
            else:
                shared.update(dict.fromkeys(y.columns(), 1.0))
        model.constrain(shared, upper=0.0)
        model.constrain(hosts, upper=float(len(host_type.hosts)))


def _cores_and_ram_fit(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    types: Sequence[HostType],
) -> None:
    """Instances' cores and RAM fit on the hosts their role has on the type (summed, a
    relaxation of host by host)."""
    for host_column, members in _on_gpu_hosts(rows, flat, groups).items():
        for capacity, _, row in _host_needs(rows, members, types):
            row[host_column] = -capacity
            model.constrain(row, upper=1e-6)


def _each_gpu_s_instances_on_one_host(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
) -> None:
    """Σ_c vcpus_c x[c,m,t] <= Σ_p min(κ_p, cores_t) y[m,t,p], same for RAM: a GPU set up with
    pattern p carries at most κ_p cores of instances (``_carried``), and no more than one host
    has, since they run on its host (twenty 4-core desktops fit one GPU's memory, not a 64-core
    host)."""
    by_pair: dict[tuple[Method, int], list[tuple[int, Option, WorkloadClass]]] = {}
    for k, (i, o) in enumerate(flat):
        if METHODS[o.method].instances_on_gpu_host:
            by_pair.setdefault((o.method, o.host_type), []).append((k, o, groups[i].first))
    for members in by_pair.values():
        for capacity, need, row in _host_needs(rows, members, types):
            carried = _carried(members, rows, demands, types, need, capacity)
            row.update({column: -kappa for column, kappa in carried.items()})
            model.constrain(row, upper=1e-6)


def _host_needs(
    rows: _Rows,
    members: Sequence[tuple[int, Option, WorkloadClass]],
    types: Sequence[HostType],
) -> Iterator[tuple[float, Callable[[WorkloadClass], float], dict[int, float]]]:
    """For cores, then RAM, where the members (option index, option, class; one host type)
    need any: a host's capacity, the need per class and the row Σ need_c x[o]."""
    shape = types[members[0][1].host_type].shape
    for capacity, need in ((shape.cpu_cores, _vcpus), (shape.ram_gib, _ram_gib)):
        row = {rows.x[k]: need(w) for k, _, w in members if need(w)}
        if row:
            yield capacity, need, row


def _on_gpu_hosts(
    rows: _Rows, flat: Sequence[tuple[int, Option]], groups: Sequence[Group]
) -> dict[int, list[tuple[int, Option, WorkloadClass]]]:
    """Host column (``g[t]``, or ``h[m,t]`` for a host-wide method) -> the options whose
    instances run on those hosts, with their option index and class."""
    loads: dict[int, list[tuple[int, Option, WorkloadClass]]] = {}
    for k, (i, o) in enumerate(flat):
        if not METHODS[o.method].instances_on_gpu_host:
            continue
        host_column = (
            rows.h[(o.method, o.host_type)]
            if METHODS[o.method].scope is RoleScope.HOST
            else rows.g[o.host_type]
        )
        loads.setdefault(host_column, []).append((k, o, groups[i].first))
    return loads


def _cores_and_ram_follow_gpus(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
) -> None:
    """Host by host, a host's instances take their cores from its GPUs: tighter than the summed
    row of ``_cores_and_ram_fit``, for a bound.

    A GPU set up with pattern ``p`` carries at most ``κ_p`` cores of instances (``_carried``;
    at most the host's ``C``). On a host whose GPUs carry ``κ_i`` the cores in use are at most
    ``min(C, Σ κ_i)``, which for a host with a GPU is at most ``Σ min(κ_i, C − κ_max) + 2 κ_max
    − C`` (one GPU carries at most ``κ_max``, two may carry ``C``). Summed over the hosts of a
    role on a type (``g`` or ``h``)::

        Σ_c vcpus_c x[c] <= Σ_p min(κ_p, C − κ_max) y[p] + (2 κ_max − C) hosts

    when ``2 κ_max > C`` (else it adds nothing); the same for RAM. Fifty-five 4-core desktops,
    twenty on a GPU, on 8-GPU hosts of 112 cores: ``κ = 80``, and three GPUs on two hosts, which
    the summed row allows, carry at most 192 of their 220 cores. Instances that use no GPU are
    left out of the row: their cores only leave the others less.
    """
    for host_column, members in _on_gpu_hosts(rows, flat, groups).items():
        shape = types[members[0][1].host_type].shape
        for capacity, need in ((shape.cpu_cores, _vcpus), (shape.ram_gib, _ram_gib)):
            carried = _carried(members, rows, demands, types, need, capacity)
            most = max(carried.values(), default=0.0)
            if 2 * most <= capacity + 1e-9:
                continue
            row = {
                rows.x[k]: need(w)
                for k, o, w in members
                if need(w) and any(_use(demands, types, o, w))
            }
            for column, kappa in carried.items():
                row[column] = -min(kappa, capacity - most)
            row[host_column] = -(2 * most - capacity)
            model.constrain(row, upper=1e-6)


def _other_roles_keep_their_cores(
    model: Model,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    types: Sequence[HostType],
) -> None:
    """Per type and per-GPU role ``m`` beside others on shared hosts (``g``), cores then RAM::

        Σ_c vcpus_c x[c,m,t] <= λ (G g − A) + (C − λ G) B

    with ``B`` the GPUs of role ``m``, ``A`` those of the other per-GPU roles, each carrying at
    least ``λ`` cores (the least any of their options' instances has per GPU it spans, at most
    ``C / G``). On one host with ``a``
    other GPUs and ``b`` of role ``m``, the role's instances have at most ``C − λ a`` cores when
    ``b >= 1`` and none when ``b = 0``; the right side is at least that in both cases, and
    summed over the hosts it is the row. Desktops at twelve to a GPU (48 cores) beside 8-core
    jobs on 4-GPU, 64-core hosts: a host holds ten of them beside three jobs, which cores and
    GPUs summed over the hosts do not see."""
    on_hosts = _on_gpu_hosts(rows, flat, groups)
    for t, host_type in enumerate(types):
        members: dict[Method, list[tuple[int, Option, WorkloadClass]]] = {}
        for k, o, w in on_hosts.get(rows.g[t], ()):
            members.setdefault(o.method, []).append((k, o, w))
        if len(members) < 2:
            continue
        shape, g = host_type.shape, host_type.gpus
        for capacity, need in ((shape.cpu_cores, _vcpus), (shape.ram_gib, _ram_gib)):
            for method, own in members.items():
                # An instance spans the GPUs its memory needs on the model, at most a host's.
                least = min(
                    need(w) / min(g, max(1, math.ceil(o.gpus_per_instance - 1e-9)))
                    for m, listed in members.items()
                    if m is not method
                    for _, o, w in listed
                )
                least = min(least, capacity / g)
                row = {rows.x[k]: need(w) for k, _, w in own if need(w)}
                if least <= 0 or not row:
                    continue
                for m in members:
                    for column in rows.y[(m, t)].columns():
                        row[column] = -(capacity - least * g) if m is method else least
                row[rows.g[t]] = -least * g
                model.constrain(row, upper=1e-6)


def _vcpus(workload: WorkloadClass) -> float:
    return workload.vcpus


def _ram_gib(workload: WorkloadClass) -> float:
    return workload.ram_gib


def _carried(
    members: Sequence[tuple[int, Option, WorkloadClass]],
    rows: _Rows,
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
    need: Callable[[WorkloadClass], float],
    capacity: float,
) -> dict[int, float]:
    """GPU column -> the most of ``need`` (cores or RAM) its pattern's instances can take: each
    dimension's room times the most ``need`` per unit of it any member class uses, summed (an
    instance counted in one of the dimensions it uses), at most ``capacity``."""
    carried: dict[int, float] = {}
    t = members[0][1].host_type
    for method in dict.fromkeys(o.method for _, o, _ in members):
        demand = demands[(method, types[t].model.name)]
        per_unit = [0.0] * len(demand.dimensions)
        for _, o, w in members:
            if o.method is method:
                for d, amount in enumerate(_use(demands, types, o, w)):
                    if amount > 0:
                        per_unit[d] = max(per_unit[d], need(w) / amount)
        for pattern, column in zip(demand.patterns, rows.y[(method, t)].columns(), strict=True):
            room = sum(unit * offered for unit, offered in zip(per_unit, pattern, strict=True))
            carried[column] = min(room, capacity)
    return carried


def _use(
    demands: Mapping[tuple[Method, str], GpuDemand],
    types: Sequence[HostType],
    option: Option,
    workload: WorkloadClass,
) -> tuple[float, ...]:
    """What one instance of ``workload`` uses of its option's GPU rows, as a bound counts it."""
    return demands[(option.method, types[option.host_type].model.name)].use[workload.name]


def _costs(
    rows: _Rows, pairs: Sequence[tuple[Method, int]], types: Sequence[HostType], rates: Rates
) -> None:
    """Each column's annual cost: GPUs at their role's rate, hosts and host-wide networks."""
    for method, t in pairs:
        shape = types[t].shape
        rate = rates.gpu_usd_per_year(method, shape)
        for column in rows.y[(method, t)].columns():
            rows.cost[column] = rate
        if (method, t) in rows.h:
            rows.cost[rows.h[(method, t)]] = rates.host_usd_per_year(
                shape
            ) + rates.network_usd_per_host_year(method, shape)
    for t, column in rows.g.items():
        rows.cost[column] = rates.host_usd_per_year(types[t].shape)


def _priority_weights(groups: Sequence[Group]) -> dict[int, float] | None:
    """Weight per unserved instance by priority, so that serving one more urgent instance beats
    any number of less urgent ones; None when the levels are too many for one solve."""
    levels = sorted({g.first.priority for g in groups})
    if len(levels) > 3:
        return None
    total = sum(g.instances for g in groups) + 1
    rank = {level: len(levels) - 1 - n for n, level in enumerate(levels)}
    return {i: float(total ** rank[g.first.priority]) for i, g in enumerate(groups)}


def _serve_most(model: Model, rows: _Rows, groups: Sequence[Group], limits: SolverLimits) -> None:
    """Fix the service level: by priority, as many instances as the estate can serve."""
    weights = _priority_weights(groups)
    levels = sorted({g.first.priority for g in groups})
    stages = (
        [weights]
        if weights is not None
        else [
            {i: 1.0 for i, g in enumerate(groups) if g.first.priority == level} for level in levels
        ]
    )
    for stage in stages:
        trial = _copy(model)
        trial.minimise({rows.u[i]: w for i, w in stage.items()})
        solution = trial.solve(limits)
        if solution is None:
            return
        left = sum(solution[rows.u[i]] * w for i, w in stage.items())
        model.constrain({rows.u[i]: w for i, w in stage.items()}, upper=left + 0.5)


def _copy(model: Model) -> Model:
    clone = Model()
    for name in (
        "_lower",
        "_upper",
        "_integral",
        "_cost",
        "_rows",
        "_cols",
        "_vals",
        "_row_lower",
        "_row_upper",
    ):
        setattr(clone, name, list(getattr(model, name)))
    clone.blocks = dict(model.blocks)
    return clone


def solve_counts(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    rates: Rates,
    *,
    served: Mapping[str, int] | None = None,
    caps: Mapping[tuple[str, Method, int], int] | None = None,
    relax: bool = False,
    limits: SolverLimits | None = None,
    host_rows: HostRows = HostRows.SUMMED,
) -> Counts | None:
    """The MILP of the module docstring. With ``served`` (class -> instances), exactly that many
    instances of each class are served and no tie break is added, as for a lower bound on a
    given plan's cost (``Counts.dual_bound_usd``). ``caps`` ((class, method, host type) ->
    instances) holds options to what placement managed there (a plan's cut, never a bound's).
    ``host_rows``: how a plan's instances' cores and RAM are held to the hosts."""
    tie_break = served is None
    limits = limits or SolverLimits(time_limit_s=scenario.assumptions.time_limit_s)
    demands = gpu_demands(scenario, found, types)
    groups = group_classes(scenario, found, demands, types, by_slowdown=served is not None)
    model, rows, flat = _build(
        scenario, types, groups, demands, rates, planning=served is None, host_rows=host_rows
    )
    held = caps or {}
    for k, (i, option) in enumerate(flat if held else ()):
        cap = sum(
            held.get((w.name, option.method, option.host_type), w.instances)
            for w in groups[i].members
        )
        model.bound(rows.x[k], 0.0, float(cap))
    if served is not None:
        for i, group in enumerate(groups):
            wanted = sum(served.get(w.name, 0) for w in group.members)
            model.bound(rows.u[i], group.instances - wanted, group.instances - wanted)
        _mean_slowdown_within_limit(model, rows, flat, groups, scenario)
        _busy_work_within_limits(model, rows, flat, groups, types, scenario)
    else:
        quick = _copy(model)
        for i in range(len(groups)):
            quick.bound(rows.u[i], 0.0, 0.0 if groups[i].options else math.inf)
        if _solve(quick, rows, limits, relax=True, tie_break=False) is None:
            _serve_most(model, rows, groups, limits)
        else:
            model = quick
    solution = _solve(model, rows, limits, relax=relax, tie_break=tie_break)
    if solution is None:
        return None
    return _read(solution, rows, flat, groups, relax=relax, tie_break=tie_break)


def _solve(
    model: Model, rows: _Rows, limits: SolverLimits, *, relax: bool, tie_break: bool
) -> Solution | None:
    objective = dict(rows.cost)
    if tie_break:
        for block in rows.y.values():
            for column in block.columns():
                objective[column] = objective.get(column, 0.0) + _GPU_TIE_BREAK_USD
    solvable = _copy(model)
    solvable.minimise(objective)
    return solvable.solve(limits, relax=relax)


def _read(
    solution: Solution,
    rows: _Rows,
    flat: Sequence[tuple[int, Option]],
    groups: Sequence[Group],
    *,
    relax: bool,
    tie_break: bool,
) -> Counts:
    """Counts per class from the solution: each group's instances handed to its members in
    scenario order, options in the order found."""
    served: dict[tuple[str, Method, int], int] = {}
    remaining = {i: [(w, w.instances) for w in g.members] for i, g in enumerate(groups)}
    for k, (i, option) in enumerate(flat):
        count = round(solution[rows.x[k]]) if not relax else math.floor(solution[rows.x[k]])
        queue = remaining[i]
        while count > 0 and queue:
            workload, left = queue[0]
            take = min(count, left)
            key = (workload.name, option.method, option.host_type)
            served[key] = served.get(key, 0) + take
            count -= take
            if take == left:
                queue.pop(0)
            else:
                queue[0] = (workload, left - take)
    gpus = {
        pair: round(sum(solution[c] for c in block.columns())) for pair, block in rows.y.items()
    }
    hosts = {pair: round(solution[c]) for pair, c in rows.h.items()}
    cost = sum(solution[c] * rate for c, rate in rows.cost.items())
    # With the tie break in the objective the solver's dual bound is not one on cost alone.
    dual = cost if tie_break else min(solution.dual_bound, cost)
    return Counts(
        served=served,
        gpus=gpus,
        hosts=hosts,
        usd_per_year=cost,
        dual_bound_usd=dual,
        status=solution.status,
        stopped_by_clock=solution.stopped_by_clock,
    )


def left_out_usd(types: Sequence[HostType], found: Sequence[Option], rates: Rates) -> float:
    """More than any host of ``types`` costs a year, set up by any option, a hundred times
    over [USD/year]: what leaving an instance out costs in a configuration master."""
    most = 0.0
    for o in found:
        shape = types[o.host_type].shape
        most = max(
            most,
            rates.host_usd_per_year(shape)
            + shape.gpus * rates.gpu_usd_per_year(o.method, shape)
            + rates.network_usd_per_host_year(o.method, shape),
        )
    return 100.0 * max(most, 1.0)


@dataclass(frozen=True)
class HostSetup:
    """One host's configuration: instances per (merged class, method), GPUs per role."""

    instances: Mapping[tuple[int, Method], int]
    gpus: Mapping[Method, int]


CONFIGURATION_ROUNDS = 40
"""Column generation rounds at most; each prices one configuration per host type."""

CONFIGURATION_PRICING_WORK = 60_000
"""Most one-host MILP work one column generation does over its rounds [constraint nonzeros
summed over the solves]: some fifty solves of a host type with a few dozen classes, a round
or two where hundreds of classes make each model large."""

PRICING_NODE_WORK = 200_000
"""Branch-and-bound work per one-host MILP [constraint nonzeros x nodes]: a tenth of a
plan's; a configuration needs to be good, not proven the best, and a bound takes the
solve's own dual bound."""


def host_pricer(
    scenario: Scenario,
    types: Sequence[HostType],
    groups: Sequence[Group],
    demands: Mapping[tuple[Method, str], GpuDemand],
    rates: Rates,
    limits: SolverLimits,
    *,
    planning: bool = True,
    side: Mapping[int, tuple[int, float]] | None = None,
) -> Callable[[int, np.ndarray], Priced]:
    """Per host type, the configuration of one host of least cost net of the duals: the MILP
    of ``solve_counts`` (``planning``, else a bound's) on a type of that one host, each
    instance served worth its merged class's dual, and, for a class in ``side`` (group ->
    side row, slowdown limit), its slowdown over the limit worth that row's dual."""
    side = side or {}
    built = []
    for t, host_type in enumerate(types):
        one = HostType(host_type.model, host_type.shape, (host_type.shape,))
        here = [
            Group(g.members, tuple(_on_type(o, 0) for o in g.options if o.host_type == t))
            for g in groups
        ]
        built.append(_build(scenario, [one], here, demands, rates, planning=planning))

    def price(kind: int, duals: np.ndarray) -> Priced:
        model, rows, flat = built[kind]
        objective = dict(rows.cost)
        for k, (i, o) in enumerate(flat):
            worth = float(duals[i])
            if i in side:
                row, limit = side[i]
                worth += float(duals[row]) * (o.slowdown - limit)
            objective[rows.x[k]] = objective.get(rows.x[k], 0.0) - worth
        trial = _copy(model)
        trial.minimise(objective)
        solution = trial.solve(limits)
        if solution is None:
            return Priced(None, -math.inf, trial.nonzeros)
        instances: dict[tuple[int, Method], int] = {}
        holds: dict[int, float] = {}
        for k, (i, o) in enumerate(flat):
            n = round(solution[rows.x[k]])
            if n:
                instances[(i, o.method)] = instances.get((i, o.method), 0) + n
                holds[i] = holds.get(i, 0.0) + n
                if i in side:
                    row, limit = side[i]
                    holds[row] = holds.get(row, 0.0) + n * (o.slowdown - limit)
        gpus = {
            method: round(sum(solution[c] for c in block.columns()))
            for (method, _), block in rows.y.items()
        }
        cost = sum(solution[c] * rate for c, rate in rows.cost.items())
        setup = HostSetup(instances, {m: n for m, n in gpus.items() if n})
        return Priced(Configuration(kind, cost, holds, setup), solution.dual_bound, trial.nonzeros)

    return price


def _on_type(option: Option, t: int) -> Option:
    """The option on host type ``t``."""
    return dataclasses.replace(option, host_type=t)
