"""The scenario report: one call per user intent, plans of every method measured and compared.

``plan_scenario`` fits the workload mix into the user's inventory; ``size_cluster`` asks how many
servers of one type each method needs. Both return a ``ScenarioPlan``; the ``*_frame`` functions
turn it into tables with documented columns for the dashboard and the workbook.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import pandas as pd

from planner.inputs.inventory import Inventory, ServerType
from planner.measure.costs import COST_COMPONENTS
from planner.measure.metrics import (
    gpu_compute_utilisation,
    gpu_memory,
    placements_by_gpu,
)
from planner.measure.result import MethodResult, measure_plan
from planner.methods.registry import METHODS, Method, server_for, servers_for
from planner.output.recommendations import (
    RecommendedDraft,
    RecommendedPlan,
    draft_recommendation,
    rank,
    recommend_additions,
    recommend_plan,
)
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.packing import plan_method, size_method

__all__ = [
    "COMPARISON_COLUMNS",
    "MethodResult",
    "Question",
    "ScenarioPlan",
    "add_to_inventory",
    "assemble",
    "comparison_frame",
    "cost_frame",
    "map_notes",
    "measure_plan",
    "not_placed_frame",
    "placement_frame",
    "plan_scenario",
    "recommended_draft",
    "size_cluster",
    "slowdown_frame",
    "utilisation_frame",
    "with_recommended",
]

Question = Literal["fit", "size", "add"]
"""``fit``: place the mix on the inventory; ``size``: count the servers of one type needed;
``add``: count the servers to buy on top of the inventory."""


@dataclass(frozen=True)
class ScenarioPlan:
    """The answer to one question about one scenario, for every method asked."""

    scenario: Scenario
    question: Question
    server: ServerType | None
    """The server type sized (``size``, ``add``); None when fitting the inventory (``fit``)."""
    results: tuple[MethodResult, ...]
    """Every plan measured: the recommended plan first when there is one, then each method's."""
    recommended: RecommendedPlan | None = None
    """The recommended plan with its bound, per-class decisions and references."""
    servers: tuple[ServerType, ...] = ()
    """Every server type the sizing could buy (``size``, ``add``); ``server`` is the first."""
    headroom: int = 0
    """Host failures each cluster of the recommended plan is sized to tolerate [hosts]."""
    given_inventory: Inventory | None = None
    """The inventory a sizing (``size``) was asked with: its plans open new servers only, so
    ``scenario`` holds none, and the plan workbook keeps this one to restore the question.
    None when ``scenario``'s inventory is the one given."""

    @property
    def given_scenario(self) -> Scenario:
        """The scenario as the user gave it: ``scenario`` with ``given_inventory``."""
        if self.given_inventory is None:
            return self.scenario
        return dataclasses.replace(self.scenario, inventory=self.given_inventory)

    def result(self, method: Method) -> MethodResult:
        """The result of one method; KeyError naming the method when it was not planned."""
        for result in self.results:
            if result.plan.method is method:
                return result
        raise KeyError(f"method {method.value!r} was not planned; planned: {self.methods}")

    @property
    def methods(self) -> tuple[Method, ...]:
        return tuple(r.plan.method for r in self.results if r.plan.method is not None)

    @property
    def singles(self) -> tuple[MethodResult, ...]:
        """The single-method plans, in registry order."""
        return tuple(r for r in self.results if r.plan.method is not None)


def map_notes(plan: MethodPlan) -> tuple[str, ...]:
    """What a reader of the plan's placement map must know about the methods its GPUs use."""
    used = dict.fromkeys(plan.role(key) for key in plan.gpu_configs)
    return tuple(METHODS[m].map_note for m in used if METHODS[m].map_note)


def assemble(
    scenario: Scenario,
    plans: Iterable[MethodPlan],
    *,
    question: Question = "fit",
    server: ServerType | None = None,
) -> ScenarioPlan:
    """A ``ScenarioPlan`` from plans already made (by any packer), each measured."""
    results = tuple(measure_plan(plan, scenario) for plan in plans)
    return ScenarioPlan(scenario=scenario, question=question, server=server, results=results)


def plan_scenario(
    scenario: Scenario,
    *,
    methods: Sequence[Method] = tuple(METHODS),
    exact: bool | None = None,
    recommended: bool = True,
) -> ScenarioPlan:
    """Fit the workload mix into the inventory under each method, measure each plan, and (with
    ``recommended``) make the recommended plan that mixes them.

    ``exact`` is passed to ``planner.solve.packing.plan_method``: True always runs the exact
    solver (within its limits), False only the heuristic, None decides by size.
    """
    singles = assemble(scenario, (plan_method(method, scenario, exact=exact) for method in methods))
    return with_recommended(singles) if recommended else singles


def size_cluster(
    scenario: Scenario,
    server: ServerType | Sequence[ServerType],
    *,
    methods: Sequence[Method] = tuple(METHODS),
    recommended: bool = True,
    headroom: int = 0,
) -> ScenarioPlan:
    """Count the servers each method needs for the mix, measure each, and (with
    ``recommended``) size the cheapest mix of methods and server types.

    Given several server types, each method's plan is its best sizing on one type (most
    instances by priority, then cheapest); the recommended plan may mix types. The plans are
    measured against the servers they open only: the inventory plays no part in sizing, so a
    method that opens no server has no GPUs available either. With ``headroom`` ``k``, the
    recommended plan buys ``k`` more servers per type so that any ``k`` can fail
    (``planner.solve.headroom``). Each method sizes the types on a platform it serves
    (``server_for``: Kubernetes for the Kubernetes methods); the recommended plan may buy them on
    each such platform.
    """
    servers = _server_list(server)
    sized = dataclasses.replace(scenario, inventory=Inventory(hosts=()))
    results = tuple(_best_sizing(method, scenario, sized, servers) for method in methods)
    singles = ScenarioPlan(
        scenario=sized,
        question="size",
        server=servers[0],
        results=results,
        servers=servers,
        headroom=headroom,
        given_inventory=scenario.inventory,
    )
    return with_recommended(singles) if recommended else singles


def with_recommended(
    singles: ScenarioPlan, *, draft: RecommendedDraft | None = None
) -> ScenarioPlan:
    """``singles`` (the single-method plans of a fit or a sizing) with the recommended plan that
    mixes them put first; unchanged when there is nothing to plan on.

    ``plan_scenario`` and ``size_cluster`` call it last; a caller that shows the single-method
    plans while the mix is still being solved calls it itself, with the ``draft`` of
    ``recommended_draft`` when it showed that too (its bounds are then proven, the mix is not
    solved again). A sizing with headroom buys the spare servers too (``recommend_additions``).
    """
    if singles.question == "add":
        raise ValueError("add_to_inventory makes its recommended plan with its single plans")
    if singles.headroom:
        best: RecommendedPlan | None = recommend_additions(
            singles.scenario,
            servers_for(singles.methods, singles.servers),
            [r.plan for r in singles.results],
            headroom=singles.headroom,
            methods=singles.methods,
        )
    else:
        best = recommend_plan(
            singles.scenario,
            singles.results,
            servers=servers_for(singles.methods, singles.servers),
            draft=draft,
        )
    if best is None:
        return singles
    return dataclasses.replace(singles, results=(best.result, *singles.results), recommended=best)


def recommended_draft(singles: ScenarioPlan) -> RecommendedDraft | None:
    """The recommended plan of ``singles`` chosen, with every figure, before its bounds are
    proven (the bounds are as much work again on the sample); None when there is
    nothing to plan on, or for a sizing with headroom, whose plan comes whole."""
    if singles.question == "add":
        raise ValueError("add_to_inventory makes its recommended plan with its single plans")
    if singles.headroom:
        return None
    return draft_recommendation(
        singles.scenario, singles.results, servers=servers_for(singles.methods, singles.servers)
    )


def _server_list(server: ServerType | Sequence[ServerType]) -> tuple[ServerType, ...]:
    servers = (server,) if isinstance(server, ServerType) else tuple(server)
    if not servers:
        raise ValueError("sizing needs at least one server type")
    return servers


def add_to_inventory(
    scenario: Scenario,
    server: ServerType | Sequence[ServerType],
    *,
    methods: Sequence[Method] = tuple(METHODS),
    headroom: int = 0,
) -> ScenarioPlan:
    """What to buy on top of the inventory, of the server types given, so that every instance
    any method can serve is served (``recommend_additions``), with ``headroom`` host failures
    tolerated per cluster. The other plans are each method alone on the inventory as it is."""
    servers = _server_list(server)
    fits = tuple(measure_plan(plan_method(method, scenario), scenario) for method in methods)
    sized = tuple(size_method(m, scenario, server_for(m, s)) for m in methods for s in servers)
    offered = servers_for(methods, servers)
    best = recommend_additions(scenario, offered, sized, headroom=headroom, methods=methods)
    if not headroom:
        # Buying nothing, the plan fitted to the inventory as it is (which also weighs each
        # method alone and starts the mix from their hosts) may serve as much for less.
        fitted = recommend_plan(scenario, fits)
        if fitted is not None and rank(fitted.result, scenario) < rank(best.result, scenario):
            best = dataclasses.replace(
                fitted, today=None, best_single=None, owned_hosts=len(scenario.inventory.hosts)
            )
    return ScenarioPlan(
        scenario=scenario,
        question="add",
        server=servers[0],
        results=(best.result, *fits),
        recommended=best,
        servers=servers,
        headroom=headroom,
    )


def _best_sizing(
    method: Method, scenario: Scenario, sized: Scenario, servers: Sequence[ServerType]
) -> MethodResult:
    """The method's sizing on the server type that serves most by priority, then costs least."""
    results = [
        measure_plan(size_method(method, scenario, server_for(method, s)), sized) for s in servers
    ]
    return min(results, key=lambda r: rank(r, sized))


COMPARISON_COLUMNS: Mapping[str, str] = MappingProxyType(
    {
        "method": "plan id: a method (passthrough, vgpu, mig, remote-pool, ...) or recommended",
        "label": "plan name for people",
        "gpus_used": "GPUs holding at least one instance [GPUs]",
        "hosts_used": "hosts with a GPU in use [hosts]",
        "gpus_available": "GPUs in the hosts the plan could use [GPUs]",
        "placed": "instances placed [instances]",
        "not_placed": "instances not placed [instances]",
        "memory_utilisation": "instances' own GPU memory / memory of GPUs in use [0-1]",
        "compute_utilisation": "busy GPU-hours / GPU-hours of GPUs in use, week average [0-1]",
        "stranded_memory_gib": "memory on GPUs in use that no instance can use [GiB]",
        "stranded_gpus": "free GPUs on hosts without spare CPU/RAM for any instance [GPUs]",
        "usd_per_year": "annual cost: hardware, licences, power, network [USD/year]",
        "usd_per_instance_year": "annual cost per placed instance [USD/year]",
        "mean_slowdown": "runtime / bare metal, mean over placed instances [-]",
        "lower_bound_gpus": "no packing of the placed instances uses fewer GPUs [GPUs]",
        "ratio_to_bound": "gpus_used / lower_bound_gpus; 1.0 is provably optimal [-]",
        "status": "optimal, solver limit reached or heuristic",
        "solve_seconds": "wall time of the packing [s]",
        "violations": "feasibility rules the plan breaks (should be 0)",
    }
)
"""Columns of ``comparison_frame`` with their meaning and unit."""


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def _mean_slowdown(result: MethodResult) -> float:
    """Instance-weighted mean slowdown over placed instances [-]; NaN when none is placed."""
    placed: dict[str, set[str]] = {}
    for p in result.plan.placements:
        placed.setdefault(p.workload, set()).add(p.instance)
    weights = [len(placed.get(s.workload, ())) for s in result.slowdowns]
    if sum(weights) == 0:
        return math.nan
    return sum(s.slowdown * w for s, w in zip(result.slowdowns, weights, strict=True)) / sum(
        weights
    )


def comparison_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per method; columns as in ``COMPARISON_COLUMNS`` (None becomes NaN)."""
    rows = []
    for r in plan.results:
        m, c = r.metrics, r.cost
        rows.append(
            {
                "method": r.name,
                "label": r.label,
                "gpus_used": m.gpus_used,
                "hosts_used": m.hosts_used,
                "gpus_available": m.gpus_available,
                "placed": m.instances_placed,
                "not_placed": m.instances_not_placed,
                "memory_utilisation": _nan(m.memory_utilisation),
                "compute_utilisation": _nan(m.compute_utilisation),
                "stranded_memory_gib": m.stranded_memory_gib,
                "stranded_gpus": m.stranded_gpus,
                "usd_per_year": c.total_usd_per_year,
                "usd_per_instance_year": _nan(c.usd_per_instance_year),
                "mean_slowdown": _mean_slowdown(r),
                "lower_bound_gpus": m.lower_bound_gpus,
                "ratio_to_bound": _nan(m.ratio_to_bound),
                "status": r.plan.status.value,
                "solve_seconds": r.plan.solve_seconds,
                "violations": len(r.feasibility_violations),
            }
        )
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def placement_frame(result: MethodResult) -> pd.DataFrame:
    """One row per instance per GPU: instance, workload, host, gpu_index (0-based), gpu_model,
    role (the method setting the GPU up), gpu_config, profile, memory_gib [GiB], compute_share
    [0-1], start_slice (MIG, else empty)."""
    columns = [
        "instance",
        "workload",
        "host",
        "gpu_index",
        "gpu_model",
        "role",
        "gpu_config",
        "profile",
        "memory_gib",
        "compute_share",
        "start_slice",
    ]
    rows = [
        {
            "instance": p.instance,
            "workload": p.workload,
            "host": p.host,
            "gpu_index": p.gpu_index,
            "gpu_model": p.gpu_model,
            "role": result.plan.role((p.host, p.gpu_index)).value,
            "gpu_config": result.plan.gpu_configs.get((p.host, p.gpu_index), ""),
            "profile": p.profile,
            "memory_gib": p.memory_gib,
            "compute_share": p.compute_share,
            "start_slice": p.start_slice,
        }
        for p in result.plan.placements
    ]
    frame = pd.DataFrame(rows, columns=columns)
    frame["start_slice"] = frame["start_slice"].astype("Int64")
    return frame


def not_placed_frame(result: MethodResult) -> pd.DataFrame:
    """One row per instance not placed: instance, workload, reason."""
    rows = [
        {"instance": n.instance, "workload": n.workload, "reason": n.reason}
        for n in result.plan.not_placed
    ]
    return pd.DataFrame(rows, columns=["instance", "workload", "reason"])


def cost_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """Long form for a stacked chart: method, label, component (``COST_COMPONENTS``),
    usd_per_year [USD/year]."""
    rows = [
        {
            "method": r.name,
            "label": r.label,
            "component": component,
            "usd_per_year": r.cost.component_usd_per_year(component),
        }
        for r in plan.results
        for component in COST_COMPONENTS
    ]
    return pd.DataFrame(rows, columns=["method", "label", "component", "usd_per_year"])


def utilisation_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per GPU in use per method: method, label, host, gpu_index, gpu_model, gpu_config,
    instances, memory_gib (capacity) [GiB], memory_reserved_gib [GiB], memory_used_gib
    (instances' own) [GiB], memory_utilisation [0-1], compute_utilisation (week average) [0-1]."""
    columns = [
        "method",
        "label",
        "host",
        "gpu_index",
        "gpu_model",
        "gpu_config",
        "instances",
        "memory_gib",
        "memory_reserved_gib",
        "memory_used_gib",
        "memory_utilisation",
        "compute_utilisation",
    ]
    rows = []
    for r in plan.results:
        compute = gpu_compute_utilisation(r.plan, plan.scenario)
        memory = gpu_memory(r.plan, plan.scenario)
        for (host, index), placements in placements_by_gpu(r.plan).items():
            figures = memory[(host, index)]
            rows.append(
                {
                    "method": r.name,
                    "label": r.label,
                    "host": host,
                    "gpu_index": index,
                    "gpu_model": placements[0].gpu_model,
                    "gpu_config": r.plan.gpu_configs.get((host, index), ""),
                    "instances": len({p.instance for p in placements}),
                    "memory_gib": figures.capacity_gib,
                    "memory_reserved_gib": figures.reserved_gib,
                    "memory_used_gib": figures.used_gib,
                    "memory_utilisation": figures.utilisation,
                    "compute_utilisation": compute[(host, index)],
                }
            )
    return pd.DataFrame(rows, columns=columns)


def slowdown_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """One row per workload class per method: workload, method, label, slowdown (mean) [-],
    worst_slowdown [-], note."""
    rows = [
        {
            "workload": s.workload,
            "method": r.name,
            "label": r.label,
            "slowdown": s.slowdown,
            "worst_slowdown": s.worst_slowdown,
            "note": s.note,
        }
        for r in plan.results
        for s in r.slowdowns
    ]
    columns = ["workload", "method", "label", "slowdown", "worst_slowdown", "note"]
    return pd.DataFrame(rows, columns=columns)
