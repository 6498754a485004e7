"""What each key figure on screen means, in one place: the cards' help and the tables' column.

The wording follows the planner's own definitions (``planner.measure.metrics.PlanMetrics`` and
``planner.output.report.COMPARISON_COLUMNS``), said for a reader rather than a programmer.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["FIGURES", "define"]

FIGURES: Mapping[str, str] = MappingProxyType(
    {
        "GPUs used": "GPUs holding at least one instance, of the GPUs the plan could use.",
        "Hosts used": "Hosts with at least one GPU in use.",
        "Instances placed": "Instances (VMs, pods, desktops) placed on some GPU.",
        "Not placed": "Instances the plan could not place; Inside a plan says why for each.",
        "Memory utilisation": "GPU memory the placed instances ask for, over the memory of the "
        "GPUs in use.",
        "Compute utilisation": "Busy GPU-hours over the GPU-hours of the GPUs in use, averaged "
        "over a week.",
        "Stranded memory": "Memory on GPUs in use that no instance can use: reserved beyond an "
        "instance's need, held whole, or free but smaller than any request.",
        "Stranded GPUs": "Free GPUs on hosts whose spare cores or RAM cannot take any "
        "workload's instance.",
        "Annual cost": "Hardware amortised over its life, licences, power and network, per year.",
        "Cost per placed instance": "Annual cost divided by the instances placed.",
        "Mean slowdown": "Run time against bare metal, averaged over the placed instances "
        "(+17 % takes 1.17 times as long).",
        "Lower bound (GPUs)": "No packing of the placed instances can use fewer GPUs.",
        "GPUs used / lower bound": "GPUs used over the lower bound: 1.00× is provably the "
        "fewest possible.",
        "Solve": "How the plan was found (optimal, solver limit reached, or heuristic) and the "
        "packing's wall time.",
        "Cost over its lower bound": "The plan's annual cost without busy power, over a bound no "
        "plan serving the same instances within their limits can beat; 1.000× is provably the "
        "cheapest.",
        "Against the best single method": "Annual cost saved against the cheapest single method "
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
