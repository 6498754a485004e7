"""Harvesting page: ML batch work on the GPUs that serve VDI desktops, at night and at weekends."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from planner.inputs.limits import MAX_CURVE_FILE_MB
from planner.inputs.problems import InputError
from planner.inputs.workloads import WorkloadKind
from planner.output.export import sheets_bytes
from planner.store import SavedHarvest
from planner.time.demand import (
    CURVE_PRESETS,
    DAYS,
    HOURS_PER_WEEK,
    WeeklyCurve,
    curve_file_text,
    parse_curve,
    pool_vs_static,
)
from planner.time.harvesting import (
    HarvestResult,
    HarvestSettings,
    NoDesktopPoolError,
    check_settings,
    harvest_tables,
    utilisation_by_hour,
)
from ui import charts, components, planning, scenarios, session
from ui import format as fmt

OWN_SCHEDULE = "own-schedule"
PASTE = "paste"
UPLOAD = "upload"
FROM_SCENARIO = "scenario"
GIVEN_POOL = "given"
WEEK_AXIS = alt.Axis(
    values=list(range(0, HOURS_PER_WEEK + 1, 24)),
    labelExpr=f"{list(DAYS)}[floor(datum.value / 24)] || ''",
    title="Day of the week (ticks at 00:00)",
)
SERIES_COLOURS = alt.Scale(
    domain=["VDI desktops", "Harvested ML", "Idle"], range=["#4c78a8", "#f58518", "#d9d9d9"]
)

st.title("Harvesting")
st.caption(
    "GPUs that serve VDI desktops by day can run ML batch work at night and at weekends. "
    "Desktops keep priority (shares 100 vs 1); ML jobs are suspended or, without checkpoints, "
    "restarted when desktops come back. Set the backlog and press Simulate."
)

inputs = session.scenario_inputs()
built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the scenario")
scenario = built.scenario
has_desktops = any(w.kind is WorkloadKind.VDI for w in scenario.workloads)

# --- Inputs ---------------------------------------------------------------------------------
curve_options = [OWN_SCHEDULE, *CURVE_PRESETS, PASTE, UPLOAD]
curve_labels = {
    OWN_SCHEDULE: "Each VDI class's own schedule",
    PASTE: "Paste 24 or 168 values",
    UPLOAD: "Upload a file of values",
    **{name: f"Preset: {name}" for name in CURVE_PRESETS},
}
# Step lengths offered [min].
RESOLUTIONS = [60, 15]
# What the form starts from: the settings last simulated, or opened with a scenario.
kept = scenarios.harvest_page() or SavedHarvest(
    given_pool=not has_desktops, curve=OWN_SCHEDULE if has_desktops else "vdi-office"
)
for key, value in {
    "harvest_pool_source": GIVEN_POOL if kept.given_pool else FROM_SCENARIO,
    "harvest_pool_gpus": kept.pool_gpus,
    "harvest_curve": kept.curve if kept.curve in curve_options else OWN_SCHEDULE,
    "harvest_curve_text": kept.curve_values,
    "harvest_backlog": kept.settings.backlog_gpu_hours_per_day,
    "harvest_submit_hour": int(kept.settings.submit_hour),
    "harvest_job_gpus": kept.settings.gpus_per_job,
    "harvest_job_gpu_hours": kept.settings.gpu_hours_per_job,
    "harvest_days": list(kept.settings.submit_days),
    "harvest_checkpointing": kept.settings.checkpointing,
    "harvest_resolution": (
        kept.settings.resolution_minutes
        if kept.settings.resolution_minutes in RESOLUTIONS
        else RESOLUTIONS[0]
    ),
}.items():
    st.session_state.setdefault(key, value)
with st.form("harvest_form"):
    pool_col, curve_col = st.columns(2)
    pool_source = pool_col.radio(
        "GPUs that serve desktops",
        options=[FROM_SCENARIO, GIVEN_POOL],
        format_func={
            FROM_SCENARIO: "The scenario's VDI desktops, as their vGPU plan places them",
            GIVEN_POOL: "A pool of GPUs I give, following the curve",
        }.__getitem__,
        key="harvest_pool_source",
    )
    given_pool = pool_col.number_input(
        "Pool size [GPUs] (for a given pool)",
        min_value=1,
        max_value=100_000,
        key="harvest_pool_gpus",
    )
    curve_choice = curve_col.selectbox(
        "Desktop demand over the week",
        options=curve_options,
        format_func=curve_labels.__getitem__,
        key="harvest_curve",
        help="Share of desktops active per hour. A given pool with its own schedule uses the "
        "vdi-office preset.",
    )
    pasted = curve_col.text_area(
        "Values (share 0-1 or percent), Monday 00:00 first",
        key="harvest_curve_text",
        height=68,
    )
    uploaded = curve_col.file_uploader(
        "File of values",
        type=["csv", "txt"],
        key="harvest_curve_file",
        max_upload_size=MAX_CURVE_FILE_MB,
    )

    cols = st.columns(4)
    backlog = cols[0].number_input(
        "ML backlog [GPU-hours per day]",
        min_value=0.0,
        max_value=10_000_000.0,
        step=10.0,
        key="harvest_backlog",
    )
    submit_hour = cols[1].number_input(
        "Submitted at [hour of day]",
        min_value=0,
        max_value=23,
        key="harvest_submit_hour",
    )
    gpus_per_job = cols[2].number_input(
        "GPUs per job",
        min_value=1,
        max_value=64,
        key="harvest_job_gpus",
    )
    job_gpu_hours = cols[3].number_input(
        "Work per job [GPU-hours]",
        min_value=0.25,
        max_value=10_000.0,
        step=1.0,
        key="harvest_job_gpu_hours",
    )
    # The days take half the form so that all seven show; the checkbox a row of its own so
    # that its label is read whole at 1,280 px.
    days_col, resolution_col = st.columns([2, 1])
    submit_days = days_col.multiselect(
        "Days that submit",
        options=list(range(7)),
        format_func=DAYS.__getitem__,
        key="harvest_days",
    )
    resolution = resolution_col.radio(
        "Resolution",
        options=RESOLUTIONS,
        format_func=lambda m: f"{m} minutes",
        horizontal=True,
        key="harvest_resolution",
    )
    checkpointing = st.checkbox(
        "Jobs checkpoint (lose nothing when suspended)",
        key="harvest_checkpointing",
    )
    simulated = st.form_submit_button(
        "Simulate", key="harvest_simulate", type="primary", icon=":material/play_arrow:"
    )


def chosen_values() -> tuple[str, str]:
    """(the values the form gives, where from): the text pasted, or the uploaded file decoded
    as the planner's CSV files are (UTF-8, or UTF-16 as Excel's "Unicode Text" writes it)."""
    if curve_choice != UPLOAD:
        return pasted, "pasted values"
    if uploaded is None:
        st.info(
            "Choose a file of 24, 168 or 672 values to upload, or pick a preset.",
            icon=":material/upload_file:",
        )
        st.stop()
    return curve_file_text(uploaded.getvalue(), uploaded.name), uploaded.name


def chosen_curve(values: str, source: str) -> WeeklyCurve | None:
    """The curve the form asks for; None means each VDI class's own schedule."""
    if curve_choice == OWN_SCHEDULE:
        return None
    if curve_choice in (PASTE, UPLOAD):
        return parse_curve(values, source=source)
    return CURVE_PRESETS[curve_choice]


try:
    curve_values, curve_source = chosen_values()
    curve = chosen_curve(curve_values, curve_source)
except InputError as error:
    st.error(
        "The demand curve could not be read. Fix the values listed below, or pick a preset.",
        icon=":material/error:",
    )
    planning.show_problems(error.problems)
    st.stop()

if not submit_days:
    st.warning("Pick at least one day that submits work.", icon=":material/warning:")
    st.stop()

settings = HarvestSettings(
    backlog_gpu_hours_per_day=float(backlog),
    submit_hour=float(submit_hour),
    gpus_per_job=int(gpus_per_job),
    gpu_hours_per_job=float(job_gpu_hours),
    checkpointing=bool(checkpointing),
    submit_days=tuple(sorted(submit_days)),
    resolution_minutes=int(resolution),
)
try:
    check_settings(settings)
except ValueError as error:
    # The planner's rule, said against the form's fields rather than as a planner failure.
    st.error(
        f"These settings cannot be simulated: {error}. Change **ML backlog** or **Work per job** "
        "and press Simulate.",
        icon=":material/error:",
    )
    st.stop()
on_form = SavedHarvest(
    settings=settings,
    given_pool=pool_source == GIVEN_POOL,
    pool_gpus=int(given_pool),
    # An uploaded file is kept as its values, so a reopened scenario shows them pasted.
    curve=PASTE if curve_choice == UPLOAD else curve_choice,
    curve_values=curve_values,
)
if simulated and on_form != kept:
    scenarios.keep_harvest_page(on_form)

choice = session.HarvestChoice(
    settings, curve, None if pool_source == FROM_SCENARIO else int(given_pool)
)

# --- One planner call -------------------------------------------------------------------------
if choice.pool_gpus is None and not has_desktops:
    st.info(
        "The scenario has no VDI workload, so there are no desktop GPUs to harvest. Add a "
        "workload of kind 'vdi' on the Workloads page (the 'VDI plus ML' preset has two), or "
        "choose 'A pool of GPUs I give' above.",
        icon=":material/info:",
    )
    components.stop_if_empty(built, need_inventory=False)
    st.stop()


def harvested() -> HarvestResult:
    """The harvest the form asks for; a scenario whose desktops give no GPU is said as such,
    with the form's way round it, not as a failure of the planner."""
    try:
        return planning.harvest(scenario, choice)
    except NoDesktopPoolError as why:
        st.info(
            f"Nothing to harvest from the scenario's desktops: {why}. Or choose 'A pool of GPUs "
            "I give' above and press Simulate.",
            icon=":material/info:",
        )
        st.stop()


result = planning.guarded(harvested, doing="simulate harvesting")
session.keep_harvest_choice(choice)

# --- Summary ----------------------------------------------------------------------------------
st.subheader("What harvesting gives")


def hours_text(hours: float | None) -> str:
    return "not done within a week" if hours is None else f"{hours:.0f} h"


# Three figures to a row: five side by side cut their labels at 1,280 px.
cards = [*st.columns(3), *st.columns(3)[:2]]
cards[0].metric(
    "Harvested [GPU-h/week]",
    fmt.count(result.useful_gpu_hours_per_week),
    delta=f"{fmt.count(result.lost_gpu_hours_per_week)} GPU-h lost to restarts",
    delta_color="off",
    delta_arrow="off",
)
cards[1].metric(
    "Pool utilisation",
    fmt.pct(result.utilisation_after),
    delta=f"from {fmt.pct(result.utilisation_before)} without harvesting",
    delta_color="off",
    delta_arrow="off",
    help="Share of the pool's GPU-hours in use with harvesting; below, the desktops alone.",
)
cards[2].metric(
    f"{settings.submit_hour:02.0f}:00 batch turnaround",
    hours_text(result.turnaround_hours) if result.turnarounds else "no work submitted",
    delta=f"{hours_text(result.dedicated_turnaround_hours)} on dedicated GPUs",
    delta_color="off",
    delta_arrow="off",
    help="Longest time from submission until a day's batch is done, over the week; below, "
    "the same batches on the dedicated GPUs harvesting replaces.",
)
cards[3].metric(
    "Dedicated GPUs replaced",
    fmt.count(result.dedicated_gpus),
    help="The fewest dedicated GPUs that keep up with the same submissions.",
)
cards[4].metric(
    "Their annual cost",
    fmt.usd(result.dedicated_usd_per_year),
    help="Amortised GPU and host share plus power at full use (passthrough, no licence).",
)
if settings.gpus_per_job > result.pool_gpus:
    st.warning(
        f"A job takes {fmt.counted(settings.gpus_per_job, 'GPU')} and the pool has "
        f"{fmt.count(result.pool_gpus)}, so no job can ever run. Lower **GPUs per job** or give "
        "a larger pool.",
        icon=":material/warning:",
    )
elif not result.keeps_up:
    st.warning(
        f"The backlog grows by "
        f"{fmt.counted(result.backlog_growth_gpu_hours_per_week, 'GPU-hour')} a week: the idle "
        "desktop GPUs cannot keep up. Lower the backlog or add GPUs.",
        icon=":material/warning:",
    )
for note in result.notes:
    st.caption(note)

# --- Charts -----------------------------------------------------------------------------------
by_step = harvest_tables(result)["Harvest by step"]
by_step["hour_of_week"] = np.arange(len(by_step)) / result.steps_per_hour
view = st.segmented_control(
    "Show",
    options=["Week", "Average day"],
    default="Week",
    key="harvest_view",
    required=True,
)
if view == "Average day":
    by_step["hour_of_day"] = by_step["hour_of_week"] % 24
    shown = by_step.groupby("hour_of_day", as_index=False)[
        ["vdi_gpus", "ml_gpus", "idle_gpus", "backlog_gpu_hours"]
    ].mean()
    shown["x"] = shown["hour_of_day"]
    shown["step"] = [f"{int(h):02d}:{round(h % 1 * 60):02d}" for h in shown["hour_of_day"]]
    x_axis = alt.Axis(values=list(range(0, 25, 3)), title="Hour of day (mean of the week's days)")
    span = 24
else:
    shown = by_step.assign(x=by_step["hour_of_week"])
    x_axis = WEEK_AXIS
    span = HOURS_PER_WEEK
# Step charts draw each value until the next row: a closing row draws the last step to the end.
shown = pd.concat([shown, shown.tail(1).assign(x=float(span))], ignore_index=True)
x_scale = alt.Scale(domain=[0, span], nice=False)

stacked = shown.melt(
    id_vars=["x", "step"],
    value_vars=["vdi_gpus", "ml_gpus", "idle_gpus"],
    var_name="use",
    value_name="gpus",
)
stacked["use"] = stacked["use"].map(
    {"vdi_gpus": "VDI desktops", "ml_gpus": "Harvested ML", "idle_gpus": "Idle"}
)
stacked["order"] = stacked["use"].map({"VDI desktops": 0, "Harvested ML": 1, "Idle": 2})
use_chart = (
    alt.Chart(stacked, title="What the pool's GPUs do")
    .mark_area(interpolate="step-after")
    .encode(
        x=alt.X("x:Q", axis=x_axis, scale=x_scale),
        y=alt.Y("gpus:Q", stack="zero", title="GPUs"),
        color=alt.Color(
            "use:N", scale=SERIES_COLOURS, legend=alt.Legend(orient="bottom", title=None)
        ),
        order=alt.Order("order:Q"),
        tooltip=[
            alt.Tooltip("step:N", title="when"),
            alt.Tooltip("use:N", title="use"),
            alt.Tooltip("gpus:Q", title="GPUs", format=",.1f"),
        ],
    )
    .properties(height=380)
)
st.altair_chart(use_chart, width="stretch", key="harvest_use_chart")

left, right = st.columns(2)
utilisation = utilisation_by_hour(result).melt(id_vars="hour", var_name="when", value_name="share")
utilisation["when"] = utilisation["when"].map(
    {"before": "Before (desktops only)", "after": "After harvesting"}
)
# Before is drawn as a filled area under the After line: in office hours the two coincide, and
# two overlapping lines would hide the desktops' curve.
utilisation_base = alt.Chart(utilisation, title="Utilisation by hour of day, before and after")
utilisation_encoding = {
    "x": alt.X("hour:Q", title="Hour of day", scale=alt.Scale(domain=[0, 23])),
    "y": alt.Y("share:Q", title="Share of pool in use", axis=alt.Axis(format="%")),
    "color": alt.Color(
        "when:N",
        scale=alt.Scale(
            domain=["Before (desktops only)", "After harvesting"], range=["#4c78a8", "#f58518"]
        ),
        legend=alt.Legend(orient="bottom", title=None),
    ),
    "tooltip": [
        alt.Tooltip("hour:Q", title="hour"),
        alt.Tooltip("when:N", title="case"),
        alt.Tooltip("share:Q", title="in use", format=".0%"),
    ],
}
left.altair_chart(
    alt.layer(
        utilisation_base.transform_filter(alt.datum.when == "Before (desktops only)")
        .mark_area(interpolate="step-after", opacity=0.45)
        .encode(**utilisation_encoding),
        utilisation_base.transform_filter(alt.datum.when == "After harvesting")
        .mark_line(interpolate="step-after", strokeWidth=2.5)
        .encode(**utilisation_encoding),
    ).properties(height=330),
    width="stretch",
    key="harvest_utilisation_chart",
)
right.altair_chart(
    alt.Chart(shown, title="ML backlog waiting or running")
    .mark_area(interpolate="step-after", opacity=0.7, color="#f58518")
    .encode(
        x=alt.X("x:Q", axis=x_axis, scale=x_scale),
        # The scale reaches past the highest backlog so its peaks are drawn whole.
        y=alt.Y(
            "backlog_gpu_hours:Q",
            title="GPU-hours",
            scale=charts.peak_scale(float(shown["backlog_gpu_hours"].max())),
        ),
        tooltip=[
            alt.Tooltip("step:N", title="when"),
            alt.Tooltip("backlog_gpu_hours:Q", title="GPU-hours", format=",.0f"),
        ],
    )
    .properties(height=330),
    width="stretch",
    key="harvest_backlog_chart",
)

turnarounds = pd.DataFrame(
    {
        "batch": [f"{t.day} {settings.submit_hour:02.0f}:00" for t in result.turnarounds],
        "harvested": [hours_text(t.hours) for t in result.turnarounds],
        "on dedicated GPUs": [hours_text(t.hours) for t in result.dedicated_turnarounds]
        or ["–"] * len(result.turnarounds),
    }
)
with st.expander("Turnaround of each day's batch"):
    st.dataframe(turnarounds, hide_index=True, width="stretch", key="harvest_turnarounds")
st.download_button(
    "Download the harvest sheets",
    data=lambda: sheets_bytes(harvest_tables(result)),
    file_name="gpu-harvest.xlsx",
    mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    key="harvest_download",
    icon=":material/table_view:",
    on_click="ignore",
    help="The summary and the week step by step, as an Excel workbook.",
)

# --- Pool versus static ------------------------------------------------------------------------
st.subheader("A pool follows the combined peak")
st.caption(
    "Static methods (passthrough, vGPU, MIG) reserve GPUs for each VM's lifetime; a remote pool "
    "holds them only while applications run, so it needs the peak of the combined demand, "
    "not the sum of each class's peak."
)
if not scenario.workloads:
    st.info("The workload mix is empty, so there is nothing to compare.", icon=":material/info:")
    st.stop()
comparison = planning.guarded(
    lambda: pool_vs_static(scenario, steps_per_hour=settings.steps_per_hour),
    doing="compare the pool with static reservation",
)
pool_cards = st.columns(3)
pool_cards[0].metric("Peak of the combined demand", f"{comparison.combined_peak_gpus:,.1f} GPUs")
pool_cards[1].metric("Sum of each class's peak", f"{comparison.sum_of_peaks_gpus:,.1f} GPUs")
pool_cards[2].metric("Static reservation", f"{comparison.static_gpus:,.1f} GPUs")
per_class = comparison.demand_gpus.drop(columns="combined")
per_class = per_class.assign(x=np.arange(len(per_class)) / settings.steps_per_hour)
per_class = pd.concat([per_class, per_class.tail(1).assign(x=float(HOURS_PER_WEEK))])
per_class = per_class.reset_index().melt(
    id_vars=["step", "x"], var_name="workload", value_name="gpus"
)
st.altair_chart(
    alt.Chart(per_class, title="GPU demand per workload class over the week")
    .mark_area(interpolate="step-after")
    .encode(
        x=alt.X("x:Q", axis=WEEK_AXIS, scale=alt.Scale(domain=[0, HOURS_PER_WEEK], nice=False)),
        y=alt.Y("gpus:Q", stack="zero", title="GPUs (by memory share)"),
        color=alt.Color(
            "workload:N",
            scale=charts.workload_colours(w.name for w in scenario.workloads),
            legend=alt.Legend(orient="bottom", title=None, columns=5, labelLimit=0),
        ),
        tooltip=[
            alt.Tooltip("step:N", title="when"),
            alt.Tooltip("workload:N", title="workload"),
            alt.Tooltip("gpus:Q", title="GPUs", format=",.2f"),
        ],
    )
    .properties(height=380),
    width="stretch",
    key="harvest_pool_chart",
)
