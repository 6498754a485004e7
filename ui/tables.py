"""Display frames of a plan: the planner's typed results reshaped and formatted for the screen.

Nothing here computes a plan figure; every number comes from ``planner.output.report``'s results
(``MethodResult.metrics``, ``.cost``, ``.plan``) and is only reshaped or formatted.
"""

from __future__ import annotations

import pandas as pd

from planner.inputs.platform import Platform
from planner.measure.result import MethodResult
from planner.output.recommendations import RecommendedPlan
from planner.output.report import ScenarioPlan
from ui import definitions
from ui import format as fmt

__all__ = [
    "COST_COMPONENTS",
    "PODS",
    "VMS",
    "bound_frame",
    "cost_long",
    "key_figure_groups",
    "key_figures",
    "methods_by_class",
    "not_placed_summary",
    "short_plan_label",
    "utilisation_long",
]

COST_COMPONENTS = ("hardware", "licences", "power", "network")
"""Cost components in stacking order."""


def _mean_slowdowns(comparison: pd.DataFrame | None) -> dict[str, float]:
    """``mean_slowdown`` per method value from the report's comparison frame, when it has one."""
    if comparison is None or "mean_slowdown" not in comparison.columns:
        return {}
    return {
        str(method): float(slowdown)
        for method, slowdown in zip(comparison["method"], comparison["mean_slowdown"], strict=True)
        if pd.notna(slowdown)
    }


def _per_year(usd: str) -> str:
    """A cost a year as a key figure: ``$1.22M /yr``; a dash stays a dash."""
    return usd if usd == fmt.usd(None) else f"{usd} /yr"


def key_figures(plan: ScenarioPlan, comparison: pd.DataFrame | None = None) -> pd.DataFrame:
    """Key figures as text: a ``figure`` column, one column per method (label), and the
    figure's ``definition`` (``ui.definitions``)."""
    slowdowns = _mean_slowdowns(comparison)
    columns: dict[str, list[str]] = {}
    index = [
        "GPUs used",
        "Hosts used",
        "Instances placed",
        "Not placed",
        "Memory utilisation",
        "Compute utilisation",
        "Stranded memory",
        "Stranded GPUs",
        "Annual cost",
        "Cost per placed instance",
        "Mean slowdown",
        "Lower bound (GPUs)",
        "GPUs used / lower bound",
        "Solve",
    ]
    for result in plan.results:
        m, cost, p = result.metrics, result.cost, result.plan
        slowdown = slowdowns.get(p.name)
        columns[p.label] = [
            f"{fmt.count(m.gpus_used)} of {fmt.count(m.gpus_available)}",
            fmt.count(m.hosts_used),
            fmt.count(m.instances_placed),
            fmt.count(m.instances_not_placed),
            # The planner gives 0 for a plan using no GPU: there is no utilisation to show.
            fmt.pct(m.memory_utilisation),
            fmt.pct(m.compute_utilisation),
            fmt.gib(m.stranded_memory_gib),
            fmt.count(m.stranded_gpus),
            _per_year(fmt.usd(cost.total_usd_per_year)),
            _per_year(fmt.usd(cost.usd_per_instance_year)),
            fmt.slowdown(slowdown),
            fmt.count(m.lower_bound_gpus),
            fmt.ratio(m.ratio_to_bound),
            f"{p.status} · {fmt.seconds(p.solve_seconds)}",
        ]
    # The definition last: beside its figure, yet the plans' columns stay in view first.
    return pd.DataFrame(
        {"figure": index, **columns, "definition": [definitions.define(f) for f in index]}
    )


VMS = "VMs and GPU servers"
"""Title of the key figures of methods that serve VMs or GPU servers."""
PODS = "Kubernetes pods"
"""Title of the key figures of methods that run on Kubernetes nodes only."""
_ON_KUBERNETES = " (Kubernetes)"


def short_plan_label(label: str, group: str) -> str:
    """A plan's column heading in the key-figure table ``group``: its label without
    " (Kubernetes)" in the Kubernetes table, whose title says it (the heading's tooltip keeps the
    label whole)."""
    return label.removesuffix(_ON_KUBERNETES) if group == PODS else label


def _pods_only(result: MethodResult) -> bool:
    """Whether ``result`` is a sharing method's plan that runs on Kubernetes nodes only."""
    return result.method is not None and result.method.rules.platforms == {Platform.KUBERNETES}


def key_figure_groups(plan: ScenarioPlan) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(title, plan labels) of the key-figure tables: the methods of VMs and GPU servers, then
    those of Kubernetes pods, so that each table fits the page without scrolling sideways. The
    recommended plan leads each, as the figures every method is read against; a table with no
    method of its own is left out."""
    recommended = tuple(r.plan.label for r in plan.results if r.method is None)
    pods = tuple(r.plan.label for r in plan.results if _pods_only(r))
    others = tuple(
        r.plan.label
        for r in plan.results
        if r.plan.label not in pods and r.plan.label not in recommended
    )
    groups = ((VMS, others), (PODS, pods))
    return tuple((title, (*recommended, *labels)) for title, labels in groups if labels)


def cost_long(plan: ScenarioPlan) -> pd.DataFrame:
    """Annual cost per method and component: ``method`` (label), ``component``, ``usd_per_year``."""
    rows = [
        {
            "method": result.plan.label,
            "component": component,
            "usd_per_year": result.cost.component_usd_per_year(component),
        }
        for result in plan.results
        for component in COST_COMPONENTS
    ]
    return pd.DataFrame(rows, columns=["method", "component", "usd_per_year"])


def utilisation_long(plan: ScenarioPlan) -> pd.DataFrame:
    """Memory and compute utilisation per method: ``method`` (label), ``measure``, ``share``."""
    rows = [
        {"method": result.plan.label, "measure": measure, "share": share}
        for result in plan.results
        for measure, share in (
            ("memory", result.metrics.memory_utilisation),
            ("compute", result.metrics.compute_utilisation),
        )
    ]
    return pd.DataFrame(rows, columns=["method", "measure", "share"])


def bound_frame(plan: ScenarioPlan) -> pd.DataFrame:
    """GPUs used and the lower bound per method: ``method`` (label), ``gpus_used``,
    ``lower_bound_gpus``."""
    return pd.DataFrame(
        [
            {
                "method": result.plan.label,
                "gpus_used": result.metrics.gpus_used,
                "lower_bound_gpus": result.metrics.lower_bound_gpus,
            }
            for result in plan.results
        ],
        columns=["method", "gpus_used", "lower_bound_gpus"],
    )


def not_placed_summary(not_placed: pd.DataFrame) -> pd.DataFrame:
    """The report's not-placed rows counted per workload and reason: ``workload``, ``reason``,
    ``instances``; most instances first, so the biggest gap leads."""
    if not_placed.empty:
        return pd.DataFrame(columns=["workload", "reason", "instances"])
    counted = (
        not_placed.groupby(["workload", "reason"], sort=False).size().reset_index(name="instances")
    )
    return counted.sort_values(
        ["instances", "workload"], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)


def methods_by_class(recommended: RecommendedPlan) -> pd.DataFrame:
    """Instances per workload class and method in the recommended plan, long form: ``workload``,
    ``method`` (label, or ``left out``), ``instances``."""
    rows = [
        {"workload": d.workload, "method": m.label, "instances": n}
        for d in recommended.decisions
        for m, n in d.served
    ]
    rows.extend(
        {"workload": d.workload, "method": "left out", "instances": d.not_served}
        for d in recommended.decisions
        if d.not_served
    )
    return pd.DataFrame(rows, columns=["workload", "method", "instances"])
