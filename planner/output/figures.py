"""The plan's key figures: each one's name for people, unit and one-line definition.

One place for what a figure means, so the workbook's Overview and the dashboard say the same thing.
Keys are the code names of ``planner.output.report.comparison_frame``'s columns where there is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["KEY_FIGURES", "KeyFigure", "key_figure"]


@dataclass(frozen=True)
class KeyFigure:
    """One key figure of a plan."""

    name: str
    """Code name, as a column of the comparison frame (``gpus_used``)."""
    label: str
    """Name for people (``GPUs used``)."""
    unit: str
    """Unit as shown beside the value (``$/year``, ``%``, ``GPUs``); ``-`` for a plain ratio."""
    definition: str
    """What the figure counts, in one line."""

    @property
    def header(self) -> str:
        """Column header with its unit: ``GPUs used [GPUs]``."""
        return f"{self.label} [{self.unit}]"


def _figures(*figures: KeyFigure) -> Mapping[str, KeyFigure]:
    return MappingProxyType({f.name: f for f in figures})


KEY_FIGURES: Mapping[str, KeyFigure] = _figures(
    KeyFigure("placed", "Instances served", "instances", "VMs or pods the plan places on a GPU."),
    KeyFigure(
        "not_placed",
        "Instances not served",
        "instances",
        "VMs or pods that fit nowhere under the plan; each has a reason on the Not placed sheet.",
    ),
    KeyFigure("gpus_used", "GPUs used", "GPUs", "GPUs holding at least one instance."),
    KeyFigure(
        "lower_bound_gpus",
        "Fewest GPUs possible",
        "GPUs",
        "Proven lower bound: no packing of the same instances uses fewer GPUs.",
    ),
    KeyFigure(
        "ratio_to_bound",
        "GPUs over the bound",
        "-",
        "GPUs used divided by the fewest possible; 1.00 means provably no GPU is wasted.",
    ),
    KeyFigure("hosts_used", "Hosts used", "hosts", "Servers with at least one GPU in use."),
    KeyFigure(
        "memory_utilisation",
        "Memory utilisation",
        "%",
        "GPU memory the instances use, over the memory of the GPUs in use.",
    ),
    KeyFigure(
        "compute_utilisation",
        "Compute utilisation",
        "%",
        "Busy GPU-hours over the GPU-hours of the GPUs in use, averaged over a week.",
    ),
    KeyFigure(
        "usd_per_year",
        "Annual cost",
        "$/year",
        "Hardware (amortised), licences, power and network of the GPUs and hosts in use.",
    ),
    KeyFigure(
        "usd_per_instance_year",
        "Cost per instance",
        "$/year",
        "Annual cost divided by the instances served.",
    ),
    KeyFigure(
        "saving_vs_today_usd_per_year",
        "Saving against today",
        "$/year",
        "Annual cost of sharing the way the estate is shared today, minus this plan's.",
    ),
    KeyFigure(
        "saving_vs_best_single_usd_per_year",
        "Saving against one method",
        "$/year",
        "Annual cost of the best plan using a single sharing method, minus this plan's.",
    ),
    KeyFigure(
        "purchase_usd",
        "Purchase",
        "$",
        "Price of the servers to buy, GPUs included (sizing only).",
    ),
    KeyFigure(
        "mean_slowdown",
        "Mean slowdown",
        "x bare metal",
        "Runtime under sharing over runtime on a dedicated GPU, mean over served instances.",
    ),
    KeyFigure(
        "stranded_gpus",
        "Stranded GPUs",
        "GPUs",
        "Free GPUs on hosts whose spare cores or RAM cannot take any workload's instance.",
    ),
    KeyFigure(
        "stranded_memory_gib",
        "Stranded memory",
        "GiB",
        "Memory on GPUs in use that no instance can use: reserved beyond an instance's need, "
        "held whole, or free but smaller than any request.",
    ),
)
"""Every key figure, in the order a reader meets them."""


def key_figure(name: str) -> KeyFigure:
    """The key figure named ``name``; KeyError listing the known names otherwise."""
    try:
        return KEY_FIGURES[name]
    except KeyError:
        raise KeyError(f"no key figure {name!r}; known: {', '.join(KEY_FIGURES)}") from None
