"""What each key figure on screen means, in one place: the cards' help and the tables' column.

A figure the workbook's Overview also shows takes its definition from there
(``planner.output.figures``); the rest are the screen's own (placement, solve and mix figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from planner.output.figures import key_figure

__all__ = ["FIGURES", "define"]

_SHARED = {
    "GPUs used": "gpus_used",
    "Hosts used": "hosts_used",
    "Memory utilisation": "memory_utilisation",
    "Compute utilisation": "compute_utilisation",
    "Stranded memory": "stranded_memory_gib",
    "Stranded GPUs": "stranded_gpus",
    "Annual cost": "usd_per_year",
    "Mean slowdown": "mean_slowdown",
    "Lower bound (GPUs)": "lower_bound_gpus",
    "GPUs used / lower bound": "ratio_to_bound",
}
"""Figures the screen shows under its own name -> the workbook's key figure, whose definition it
takes, so the screen and the workbook define them alike."""

FIGURES: Mapping[str, str] = MappingProxyType(
    {
        **{shown: key_figure(code).definition for shown, code in _SHARED.items()},
        "Instances placed": "Instances (VMs, pods, desktops) placed on some GPU.",
        "Not placed": "Instances the plan could not place; Inside a plan says why for each.",
        "Cost per placed instance": "Annual cost divided by the instances placed.",
        "Solve": "How the plan was found (optimal, solver limit reached, or heuristic) and the "
        "packing's wall time.",
        "Cost over its lower bound": "The plan's annual cost without busy power, over a bound no "
        "plan serving the same instances within their limits can beat; 1.000× is provably the "
        "cheapest.",
        "Against one method": "Annual cost saved against the cheapest single method "
        "that serves the most instances, and the instances served beyond it.",
    }
)
"""Key figure name as shown on screen -> its definition, one sentence."""


def define(figure: str) -> str:
    """The definition of ``figure``; KeyError naming it when it has none (so a new figure
    cannot reach the screen undefined without a test noticing)."""
    try:
        return FIGURES[figure]
    except KeyError:
        raise KeyError(f"no definition for the key figure {figure!r}; add it to FIGURES") from None
