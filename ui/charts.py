"""Altair charts of a plan: pure functions from frames to charts, testable without Streamlit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import altair as alt
import pandas as pd

from planner.methods import passthrough
from planner.methods.registry import METHODS

__all__ = [
    "LEFT_OUT",
    "METHOD_COLOURS",
    "METHOD_ORDER",
    "PLAN_PALETTE",
    "WORKLOAD_PALETTE",
    "comparison_chart_height_px",
    "cost_chart",
    "gpus_vs_bound_chart",
    "methods_by_class_chart",
    "methods_by_class_height_px",
    "peak_scale",
    "placement_chart",
    "placement_chart_height_px",
    "placement_layout",
    "utilisation_chart",
    "workload_colours",
]

METHOD_ORDER = ["Recommended plan", *(rules.label for rules in METHODS.values())]
"""Plan labels in the order every chart lists them."""

GPU_ROW_PX = 28
"""Height of one GPU's bar row in the placement map [px]; less and the GPU labels drop out."""

LEFT_OUT = "left out"
"""The methods-by-class chart's name for instances no method serves."""

PLAN_PALETTE = (
    "#54a24b",  # the recommended plan: green, as its headline
    "#4c78a8",
    "#f58518",
    "#e45756",
    "#72b7b2",
    "#b279a2",
    "#eeca3b",
    "#9d755d",
    "#ff9da6",
    "#439894",
    "#d67195",
)
"""Plan colours in ``METHOD_ORDER``; the grey of ``LEFT_OUT`` is kept apart from them."""

METHOD_COLOURS = alt.Scale(
    domain=[*METHOD_ORDER, LEFT_OUT],
    range=[*(PLAN_PALETTE[i % len(PLAN_PALETTE)] for i in range(len(METHOD_ORDER))), "#9e9e9e"],
)
"""One colour per plan in every chart that tells plans apart, whatever plans a chart holds."""

WORKLOAD_PALETTE = (
    # Tableau 20's darker halves first, then its lighter halves, then five more from Vega's
    # category20b: neighbours in a sorted list of names differ in hue, not only in shade.
    "#4c78a8",
    "#f58518",
    "#e45756",
    "#72b7b2",
    "#54a24b",
    "#eeca3b",
    "#b279a2",
    "#ff9da6",
    "#9d755d",
    "#bab0ac",
    "#9ecae9",
    "#ffbf79",
    "#ff9d98",
    "#88d27a",
    "#83bcb6",
    "#f2cf5b",
    "#d6a5c9",
    "#fcbfd2",
    "#d8b5a5",
    "#79706e",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
)
"""Distinct workload colours: up to this many classes no two share one; beyond, they repeat in
this order (the tooltip still names every block)."""


def workload_colours(workloads: Iterable[str]) -> alt.Scale:
    """The colour scale of every chart that tells workload classes apart: the scenario's whole
    sorted list of class names, so a class keeps its colour in every chart and every map, even
    where only some of the classes appear."""
    domain = sorted(set(workloads))
    palette = [WORKLOAD_PALETTE[i % len(WORKLOAD_PALETTE)] for i in range(len(domain))]
    return alt.Scale(domain=domain, range=palette)


_COMPONENT_COLOURS = alt.Scale(
    domain=["hardware", "licences", "power", "network"],
    range=["#4c78a8", "#f58518", "#54a24b", "#b279a2"],
)


PLAN_ROW_PX = 26
"""Height of one plan's row in the comparison charts [px]; less and Vega drops axis labels."""
COMPARISON_FRAME_PX = 180
"""Pixels a comparison chart needs around its plot: title, axis, a legend of four lines."""


def _plans_axis() -> alt.Y:
    """The plan axis of the comparison charts: every plan, in order, named in full."""
    return alt.Y(
        "method:N",
        sort=METHOD_ORDER,
        title=None,
        axis=alt.Axis(labelLimit=0, labelOverlap=False),
    )


def _plans_height_px(frame: pd.DataFrame) -> int:
    """The plot height of a comparison chart of ``frame``'s plans (its ``method`` column)."""
    return PLAN_ROW_PX * max(1, frame["method"].nunique())


def comparison_chart_height_px(plans: int) -> int:
    """Pixels a comparison chart of ``plans`` plans needs on screen, axis and legend included."""
    return PLAN_ROW_PX * max(1, plans) + COMPARISON_FRAME_PX


PEAK_HEADROOM = 0.08
"""Share of the highest value a value axis reaches beyond it, so no peak touches the frame."""


def peak_scale(peak: float) -> alt.Scale:
    """A value scale from 0 that holds ``peak`` with headroom, rounded to nice ticks."""
    top = peak * (1 + PEAK_HEADROOM) if peak > 0 else 1.0
    return alt.Scale(domain=[0, top], nice=True, zero=True)


def cost_chart(costs: pd.DataFrame) -> alt.Chart:
    """Annual cost per method, stacked by component.

    ``costs`` is long form: ``method`` (label), ``component``, ``usd_per_year`` [USD/year].
    """
    chart: alt.Chart = (
        alt.Chart(costs, title="Annual cost by component")
        .mark_bar()
        .encode(
            y=_plans_axis(),
            x=alt.X("sum(usd_per_year):Q", title="USD per year", axis=alt.Axis(format="$~s")),
            color=alt.Color(
                "component:N",
                scale=_COMPONENT_COLOURS,
                # One row above the bars: the chart takes the page's width, and a legend of one
                # line per component would take the height the plans' rows need.
                legend=alt.Legend(orient="top", title=None, direction="horizontal", labelLimit=0),
            ),
            order=alt.Order("component:N"),
            tooltip=[
                alt.Tooltip("method:N", title="method"),
                alt.Tooltip("component:N", title="component"),
                alt.Tooltip("sum(usd_per_year):Q", title="USD per year", format="$,.0f"),
            ],
        )
        .properties(height=_plans_height_px(costs))
    )
    return chart


def utilisation_chart(utilisation: pd.DataFrame) -> alt.Chart:
    """Memory and compute utilisation of the GPUs each method uses.

    ``utilisation`` is long form: ``method`` (label), ``measure`` (``memory``/``compute``),
    ``share`` [0-1].
    """
    chart: alt.Chart = (
        alt.Chart(utilisation, title="Utilisation of the GPUs in use")
        .mark_bar()
        .encode(
            y=_plans_axis(),
            yOffset=alt.YOffset("measure:N"),
            x=alt.X(
                "share:Q",
                title="share used",
                axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1]),
            ),
            color=alt.Color(
                "measure:N",
                scale=alt.Scale(domain=["memory", "compute"], range=["#4c78a8", "#e45756"]),
                legend=alt.Legend(orient="bottom", title=None, direction="vertical", labelLimit=0),
            ),
            tooltip=[
                alt.Tooltip("method:N"),
                alt.Tooltip("measure:N"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        .properties(height=_plans_height_px(utilisation))
    )
    return chart


WHOLE_NUMBERS = alt.Axis(tickMinStep=1, format=",d")
"""Axis of a count (GPUs, instances): whole-number ticks, never 0.2 of an instance."""


def gpus_vs_bound_chart(comparison: pd.DataFrame) -> alt.LayerChart:
    """GPUs each method uses against the lower bound no packing can beat.

    ``comparison`` has ``method`` (label), ``gpus_used`` and ``lower_bound_gpus``.
    """
    # The bound's tick has no legend entry (the bars' colour has none either): the subtitle is it.
    title = alt.TitleParams(
        "GPUs used against the lower bound",
        subtitle="Grey tick: the lower bound, fewest GPUs any packing could use",
    )
    base = alt.Chart(comparison, title=title).encode(y=_plans_axis())
    bars = base.mark_bar().encode(
        x=alt.X("gpus_used:Q", title="GPUs", axis=WHOLE_NUMBERS),
        # The axis names each plan: the colour only matches the other charts, so no legend.
        color=alt.Color("method:N", scale=METHOD_COLOURS, legend=None),
        tooltip=[
            alt.Tooltip("method:N"),
            alt.Tooltip("gpus_used:Q", title="GPUs used"),
            alt.Tooltip("lower_bound_gpus:Q", title="lower bound"),
        ],
    )
    # A mid grey reads on the bars and on both the light and the dark theme's background.
    bound = base.mark_tick(color="#7f7f7f", thickness=3, size=26).encode(
        x=alt.X("lower_bound_gpus:Q"),
        tooltip=[alt.Tooltip("lower_bound_gpus:Q", title="lower bound [GPUs]")],
    )
    return alt.LayerChart(layer=[bars, bound]).properties(height=_plans_height_px(comparison))


def methods_by_class_chart(frame: pd.DataFrame) -> alt.Chart:
    """Which method serves which workload class: one bar per class, stacked by method.

    ``frame`` is ``ui.tables.methods_by_class``: ``workload``, ``method``, ``instances``.
    """
    chart: alt.Chart = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            y=alt.Y("workload:N", title=None, sort=None, axis=alt.Axis(labelOverlap=False)),
            x=alt.X("instances:Q", title="instances", axis=WHOLE_NUMBERS),
            color=alt.Color(
                "method:N",
                title="method",
                scale=METHOD_COLOURS,
                # The scale holds every plan; the legend lists the methods in this chart.
                legend=alt.Legend(
                    orient="bottom",
                    labelLimit=0,
                    columns=4,
                    values=[m for m in METHOD_COLOURS.domain if m in set(frame["method"])],
                ),
            ),
            order=alt.Order("method:N"),
            tooltip=[
                alt.Tooltip("workload:N"),
                alt.Tooltip("method:N"),
                alt.Tooltip("instances:Q"),
            ],
        )
        .properties(
            height=CLASS_ROW_PX * frame["workload"].nunique(),
            title="Which method serves which class",
        )
    )
    return chart


CLASS_ROW_PX = 22
"""Height of one workload class's bar in the methods-by-class chart [px]."""


def methods_by_class_height_px(frame: pd.DataFrame) -> int:
    """Pixels the methods-by-class chart needs on screen: its bars plus title, axis, legend."""
    methods = frame["method"].nunique()
    # Title, axis, the legend's title and one line per four methods: Streamlit fits the whole
    # chart into this height, and with less a single class's bar is squeezed to nothing.
    return CLASS_ROW_PX * max(1, frame["workload"].nunique()) + 165 + 22 * -(-methods // 4)


def placement_layout(
    placements: pd.DataFrame,
    gpu_memory_gib: Mapping[str, float],
    mig_memory_slices: Mapping[str, int],
    *,
    with_role: bool = False,
) -> pd.DataFrame:
    """Where each slot sits on its GPU's memory bar, for the placement map.

    ``placements`` is ``planner.output.report.placement_frame``: one row per (instance, GPU) with
    ``instance``, ``workload``, ``host``, ``gpu_index``, ``gpu_model``, ``gpu_config``,
    ``profile``, ``memory_gib``, ``compute_share`` and, for MIG, ``start_slice``. A MIG slot
    starts at its first memory slice (slice width = GPU memory / memory slices); other slots are
    laid end to end in instance order. Adds ``gpu`` (row label; with ``with_role`` it names the
    method setting the GPU up, from the ``role`` column), ``start_gib``, ``end_gib``,
    ``held_end_gib`` (where the memory the slot holds ends: the GPU's whole memory for a
    passthrough instance, which owns its GPU, else ``end_gib``) and ``capacity_gib`` [GiB].
    """
    columns = [*placements.columns, "gpu", "start_gib", "end_gib", "held_end_gib", "capacity_gib"]
    if placements.empty:
        return pd.DataFrame(columns=columns)
    frame = placements.sort_values(["host", "gpu_index", "instance"], kind="stable").copy()
    frame["gpu"] = (
        frame["host"].astype(str) + " · GPU " + frame["gpu_index"].astype(int).astype(str)
    )
    if with_role and "role" in frame.columns:
        labels = {m.value: m.label for m in METHODS}
        frame["gpu"] = frame["gpu"] + " · " + frame["role"].map(labels).fillna(frame["role"])
    frame["capacity_gib"] = frame["gpu_model"].map(gpu_memory_gib).astype(float)
    stacked_end = frame.groupby("gpu", sort=False)["memory_gib"].cumsum()
    frame["start_gib"] = stacked_end - frame["memory_gib"]
    if "start_slice" in frame.columns:
        slices = frame["gpu_model"].map(mig_memory_slices).fillna(0).astype(float)
        on_mig = frame["start_slice"].notna() & (slices > 0)
        slice_gib = frame["capacity_gib"] / slices.where(slices > 0)
        frame.loc[on_mig, "start_gib"] = (
            frame.loc[on_mig, "start_slice"].astype(float) * slice_gib[on_mig]
        )
    frame["end_gib"] = frame["start_gib"] + frame["memory_gib"]
    owns_gpu = frame["profile"] == passthrough.PROFILE
    frame["held_end_gib"] = frame["end_gib"].where(~owns_gpu, frame["capacity_gib"])
    return frame[columns].reset_index(drop=True)


def placement_chart(
    layout: pd.DataFrame, colours: alt.Scale, *, max_label_chars: int = 24
) -> alt.LayerChart:
    """Hosts × GPUs: each GPU a memory bar, each slot a coloured block with its workload.

    ``layout`` comes from ``placement_layout``; ``colours`` is ``workload_colours`` of the
    scenario's classes. Grey is the GPU's memory, blocks are the slots; a passthrough instance's
    block is followed by a pale one of its colour up to the GPU's full width: memory it holds
    and does not use, which no other instance can have.
    """
    gpus = layout.drop_duplicates("gpu")[["gpu", "host", "gpu_model", "gpu_config", "capacity_gib"]]
    order = list(gpus["gpu"])
    height = max(120, GPU_ROW_PX * len(order))
    y = alt.Y("gpu:N", sort=order, title=None, axis=alt.Axis(labelLimit=220))
    memory = (
        alt.Chart(gpus)
        # Translucent grey: a light bar on the light theme, a dark one on the dark theme.
        .mark_bar(color="#9e9e9e", opacity=0.25, stroke="#9e9e9e", strokeWidth=0.5)
        .encode(
            y=y,
            x=alt.X("capacity_gib:Q", title="GPU memory [GiB]"),
            tooltip=[
                alt.Tooltip("gpu:N", title="GPU"),
                alt.Tooltip("gpu_model:N", title="model"),
                alt.Tooltip("capacity_gib:Q", title="memory [GiB]", format=",.0f"),
                alt.Tooltip("gpu_config:N", title="set-up"),
            ],
        )
    )
    slots = (
        alt.Chart(layout)
        .mark_bar(stroke="white", strokeWidth=1)
        .encode(
            y=y,
            x=alt.X("start_gib:Q"),
            x2=alt.X2("end_gib:Q"),
            color=alt.Color(
                "workload:N",
                # The scale holds every class; the legend lists those on this map.
                legend=alt.Legend(
                    orient="bottom",
                    title="workload",
                    columns=4,
                    labelLimit=0,
                    values=sorted(set(layout["workload"])),
                ),
                scale=colours,
            ),
            tooltip=[
                alt.Tooltip("instance:N", title="instance"),
                alt.Tooltip("workload:N", title="workload"),
                alt.Tooltip("profile:N", title="profile"),
                alt.Tooltip("memory_gib:Q", title="memory [GiB]", format=",.1f"),
                alt.Tooltip("compute_share:Q", title="compute share", format=".0%"),
                alt.Tooltip("gpu:N", title="GPU"),
            ],
        )
    )
    held = (
        alt.Chart(layout)
        .transform_filter("datum.held_end_gib > datum.end_gib")
        # Its own field for the class: the map's colour scale is shared, its legend set once.
        .transform_calculate(unused="datum.held_end_gib - datum.end_gib", held_by="datum.workload")
        .mark_bar(stroke="white", strokeWidth=1, opacity=0.35)
        .encode(
            y=y,
            x=alt.X("end_gib:Q"),
            x2=alt.X2("held_end_gib:Q"),
            color=alt.Color("held_by:N", scale=colours, title="workload"),
            tooltip=[
                alt.Tooltip("instance:N", title="held by"),
                alt.Tooltip("workload:N", title="workload"),
                alt.Tooltip("unused:Q", title="held, unused [GiB]", format=",.1f"),
                alt.Tooltip("gpu:N", title="GPU"),
            ],
        )
    )
    labels = (
        alt.Chart(layout)
        .transform_calculate(
            mid="(datum.start_gib + datum.held_end_gib) / 2",
            short=f"substring(datum.profile, 0, {max_label_chars})",
        )
        # Only blocks wide enough to hold their label get one; the tooltip names every block.
        .transform_filter("(datum.held_end_gib - datum.start_gib) >= 0.12 * datum.capacity_gib")
        .mark_text(fontSize=10, color="white", baseline="middle")
        .encode(y=y, x=alt.X("mid:Q"), text=alt.Text("short:N"))
    )
    return alt.LayerChart(layer=[memory, slots, held, labels]).properties(height=height)


def placement_chart_height_px(layout: pd.DataFrame) -> int:
    """Pixels the placement map needs on screen: its plot plus axis and legend."""
    gpus = layout["gpu"].nunique() if not layout.empty else 0
    workloads = layout["workload"].nunique() if not layout.empty else 0
    legend_rows = -(-workloads // 4)
    # Streamlit fits the whole chart (axis and legend too) into the height it is given.
    return max(120, GPU_ROW_PX * gpus) + 90 + 24 * legend_rows
