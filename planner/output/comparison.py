"""Two scenarios side by side: the key figures of each plan, and how the second differs."""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from planner.measure.result import MethodResult
from planner.output.report import ScenarioPlan

__all__ = ["COMPARISON_COLUMNS", "HIGHER_IS_BETTER", "KEY_FIGURES", "compare_plans"]

KEY_FIGURES: tuple[tuple[str, Callable[[MethodResult], float | None]], ...] = (
    ("GPUs used", lambda r: r.metrics.gpus_used),
    ("Hosts used", lambda r: r.metrics.hosts_used),
    ("Instances placed", lambda r: r.metrics.instances_placed),
    ("Instances not placed", lambda r: r.metrics.instances_not_placed),
    ("Annual cost [USD/year]", lambda r: r.cost.total_usd_per_year),
    ("Cost per placed instance [USD/year]", lambda r: r.cost.usd_per_instance_year),
)
"""The figures compared for each plan, with their unit, and how each is read from a result."""

HIGHER_IS_BETTER = frozenset({"Instances placed"})
"""Figures where a rise is an improvement; for every other figure (GPUs, hosts, instances left
out, dollars) a fall is."""

COMPARISON_COLUMNS = ("plan", "figure", "first", "second", "change", "change_pct")
"""``plan`` label; ``figure`` from ``KEY_FIGURES``; ``first`` and ``second`` the two scenarios'
values (NaN when that plan was not made, or has no value such as the cost per instance of a plan
placing nothing); ``change`` = second - first; ``change_pct`` = change / |first| [-] (NaN when
first is 0 or missing)."""


def _by_name(plan: ScenarioPlan) -> dict[str, MethodResult]:
    return {r.name: r for r in plan.results}


def compare_plans(first: ScenarioPlan, second: ScenarioPlan) -> pd.DataFrame:
    """One row per plan and key figure (``COMPARISON_COLUMNS``): the recommended plan first, then
    each single-method plan, in the order the first scenario lists them (plans only the second
    has come last)."""
    a, b = _by_name(first), _by_name(second)
    labels = {r.name: r.label for r in (*second.results, *first.results)}
    names = list(dict.fromkeys([*a, *b]))
    rows = []
    for name in names:
        for figure, read in KEY_FIGURES:
            one = _value(a.get(name), read)
            two = _value(b.get(name), read)
            change = two - one
            pct = change / abs(one) if one != 0 and not math.isnan(one) else math.nan
            rows.append((labels[name], figure, one, two, change, pct))
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def _value(result: MethodResult | None, read: Callable[[MethodResult], float | None]) -> float:
    if result is None:
        return math.nan
    value = read(result)
    return math.nan if value is None else float(value)
