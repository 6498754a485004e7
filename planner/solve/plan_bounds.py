"""Lower bounds on the recommended plan: what no plan serving the instances can beat.

:func:`cost_lower_bound` solves the MILP over counts (``planner.solve.counts``) with the served
instances fixed over ``bound_options`` (every option the rules allow, packed as densely as they
allow, at its least slowdown, each class's mean within its limit), with the bound's rows of
cores, RAM and busy work, which no plan serving them within the classes' limits can beat. The
bound is the better of that and the same rows for one host at a time, each host set up by a
configuration, the served instances held exactly (``_by_host_lower_bound``, a Lagrangian bound
of column generation): summed over a type, cores bind loosely; host by host, a host's cores hold
its own GPUs' instances. :func:`gpu_lower_bound` is the bound by type with each GPU costing one.

Bounds on one packing's GPUs (dual feasible functions, Martello and Toth's L2) are another
concept and live in ``planner.solve.bounds``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.methods.registry import Method
from planner.plan import SolveStatus
from planner.scenario import Scenario
from planner.solve.collector import collector_paused
from planner.solve.counts import (
    CONFIGURATION_PRICING_WORK,
    CONFIGURATION_ROUNDS,
    PRICING_NODE_WORK,
    gpu_demands,
    group_classes,
    host_pricer,
    left_out_usd,
    solve_counts,
)
from planner.solve.milp import SolverLimits, plan_configurations
from planner.solve.options import HostType, Option, Rates, slowdown_limit

__all__ = ["cost_lower_bound", "gpu_lower_bound"]


@collector_paused()
def cost_lower_bound(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    rates: Rates,
    served: Mapping[str, int],
    *,
    relax: bool = False,
) -> float:
    """No plan that serves ``served`` instances per class, each class's mean slowdown within its
    limit, costs less per year than this [USD/year] (GPU, host and network rates; busy power
    left out), when ``found`` are the ``bound_options``: the better of the bound by host type
    (the MILP with the served instances fixed) and the bound host by host by configuration
    (``_by_host_lower_bound``); with ``relax``, the by-type MILP's LP relaxation alone."""
    if relax:
        counts = solve_counts(
            scenario, types, found, rates, served=served, relax=True, limits=_bound_limits(scenario)
        )
        return 0.0 if counts is None else max(0.0, counts.dual_bound_usd)
    return max(
        _by_type_lower_bound(scenario, types, found, rates, served),
        _by_host_lower_bound(scenario, types, found, rates, served),
    )


def _by_type_lower_bound(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    rates: Rates,
    served: Mapping[str, int],
) -> float:
    """The bound by host type: the MILP's dual bound with the served instances fixed, and where
    the MILP is too large to solve or stops before its optimum, the better of that and its LP
    relaxation's optimum (HiGHS' dual bound at a limit may be below it); 0 when none is
    proven."""
    bound = -math.inf
    for relax in (False, True):
        counts = solve_counts(
            scenario,
            types,
            found,
            rates,
            served=served,
            relax=relax,
            limits=_bound_limits(scenario),
        )
        if counts is not None:
            bound = max(bound, counts.dual_bound_usd)
            if counts.status is SolveStatus.OPTIMAL:
                break
    return max(0.0, bound)


def _by_host_lower_bound(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    rates: Rates,
    served: Mapping[str, int],
) -> float:
    """The bound host by host: every host set up by a configuration of the bound's one-host
    model (``host_pricer``), the served instances held exactly and each class's mean slowdown
    within its limit (side rows), the Lagrangian bound of ``milp.plan_configurations``. At
    scale it sees what the by-type model does not: a host's cores hold its own GPUs'
    instances, not a share of the type's."""
    if not found:
        return 0.0
    demands = gpu_demands(scenario, found, types)
    groups = group_classes(scenario, found, demands, types, by_slowdown=True)
    side: dict[int, tuple[int, float]] = {}
    for i, group in enumerate(groups):
        limit = slowdown_limit(group.first, scenario)
        if any(o.slowdown - limit > 1e-9 for o in group.options):
            side[i] = (len(groups) + len(side), limit)
    need = [float(sum(served.get(w.name, 0) for w in g.members)) for g in groups]
    # One-host pricing models are the planning's own size, held by the pricing work, not by
    # the by-type bound's size limit.
    limits = dataclasses.replace(
        _bound_limits(scenario),
        node_work=PRICING_NODE_WORK,
        max_nonzeros=SolverLimits().max_nonzeros,
    )
    plan = plan_configurations(
        need,
        [left_out_usd(types, found, rates)] * len(groups),
        [len(t.hosts) for t in types],
        host_pricer(scenario, types, groups, demands, rates, limits, planning=False, side=side),
        side_rows=len(side),
        exact=True,
        rounds=CONFIGURATION_ROUNDS,
        pricing_work=CONFIGURATION_PRICING_WORK,
        limits=limits,
        integral=False,
    )
    return 0.0 if plan is None else max(0.0, plan.lower_bound)


def _bound_limits(scenario: Scenario) -> SolverLimits:
    """A bound's solve goes on until it is within a millionth of its value: HiGHS' default gap
    (1e-4) left a $320,051 plan $32 over a bound it equals. A model over
    ``_BOUND_MAX_NONZEROS`` is not solved as a MILP: its bound is its LP relaxation's."""
    return SolverLimits(
        time_limit_s=scenario.assumptions.time_limit_s,
        mip_rel_gap=1e-6,
        max_nonzeros=_BOUND_MAX_NONZEROS,
    )


_BOUND_MAX_NONZEROS = 20_000
"""Largest by-type bound model solved as a MILP [constraint nonzeros]. Past it integrality
adds next to nothing to the LP relaxation (on the trace's gpushare100 list with other shares:
$5 over the LP's $3,567,597 for the cost, nothing found for the GPUs), while HiGHS' root
node, which the node limit does not hold, runs to the clock backstop, where the bound would
differ by machine. The fleets' and the sample's bound models have under 2,500."""


@dataclass(frozen=True)
class _GpuCount:
    """Rates that count GPUs: the MILP then finds the fewest GPUs."""

    def gpu_usd_per_year(self, method: Method, host: Host) -> float:
        return 1.0

    def host_usd_per_year(self, host: Host) -> float:
        return 0.0

    def network_usd_per_host_year(self, method: Method, host: Host) -> float:
        return 0.0


@collector_paused()
def gpu_lower_bound(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    served: Mapping[str, int],
) -> int:
    """No plan that serves ``served`` instances per class within their limits uses fewer GPUs,
    when ``found`` are the ``bound_options``."""
    return max(
        0, math.ceil(_by_type_lower_bound(scenario, types, found, _GpuCount(), served) - 1e-6)
    )
