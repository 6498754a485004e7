"""Scenarios page: save what is being planned under a name, open, copy, rename or delete saved
scenarios, and compare two of them side by side."""

from __future__ import annotations

import math
from functools import partial

import pandas as pd
import streamlit as st

from planner.output.comparison import HIGHER_IS_BETTER, compare_plans
from planner.output.report import ScenarioPlan
from planner.store import ScenarioExistsError, StoreError
from ui import components, planning, scenarios, session
from ui import format as fmt

# Session key of the pair of scenarios the user asked to compare (names, never results):
_COMPARED = "_scenarios_compared"

st.title("Scenarios")
st.caption(
    "Save the inputs and assumptions you are planning with under a name, come back to them "
    "later (the name is in the page address, so a reload or a shared link opens it), and "
    "compare two scenarios side by side. Changes you have not saved stay in this browser tab."
)

try:
    store = scenarios.store()
    saved = store.summaries()
except StoreError as error:
    st.error(f"The scenario store cannot be used: {error}.", icon=":material/error:")
    st.stop()

open_name = session.open_scenario()


def _done(message: str) -> None:
    st.toast(message, icon=":material/check:")
    st.rerun()


def _shown(name: str) -> str:
    return fmt.markdown_literal(name)


def _figure_text(figure: str, value: float, *, signed: bool = False) -> str:
    if math.isnan(value):
        return "–"
    text = (fmt.usd if "USD" in figure else fmt.count)(value)
    if not signed:
        return text
    return "no change" if value == 0 else ("+" if value > 0 else "") + text


# --- Save --------------------------------------------------------------------------------------
st.subheader("Save what you are planning")
if open_name is not None:
    changed = scenarios.has_unsaved_changes()
    state = "has changes that are not saved" if changed else "is saved as it is"
    st.markdown(f"You are planning with the scenario **{_shown(open_name)}**, which {state}.")
    if st.button(
        "Save the changes",
        key="scenarios_save_changes",
        icon=":material/save:",
        disabled=not changed,
        type="primary",
    ):
        try:
            store.save(open_name, scenarios.saved_from_session(), replace=True)
        except StoreError as error:
            st.error(f"Could not save: {_shown(str(error))}.", icon=":material/error:")
        else:
            _done(f"Saved {_shown(open_name)}")
with st.form("scenarios_save_form", border=True):
    new_name = st.text_input(
        "Save as a new scenario named",
        key="scenarios_save_name",
        max_chars=100,
        placeholder="Q3 budget, 12 more L40S",
    )
    replace = st.checkbox("Replace a scenario of that name", key="scenarios_save_replace")
    if st.form_submit_button("Save as", key="scenarios_save_as", icon=":material/bookmark_add:"):
        try:
            name = store.save(new_name, scenarios.saved_from_session(), replace=replace)
        except ScenarioExistsError as error:
            st.error(f"Not saved: {_shown(str(error))} (tick Replace).", icon=":material/error:")
        except StoreError as error:
            st.error(f"Not saved: {_shown(str(error))}.", icon=":material/error:")
        else:
            session.replace_inputs(session.scenario_inputs(), session.question(), opened=name)
            st.query_params[scenarios.QUERY_PARAM] = name
            _done(f"Saved {_shown(name)}")

# --- Saved scenarios ----------------------------------------------------------------------------
st.subheader("Saved scenarios")
if not saved:
    st.info(
        "No scenario is saved yet. Save what you are planning above; it is kept in "
        f"`{store.path}` (set GPU_PLANNER_DB to use another file).",
        icon=":material/bookmarks:",
    )
    st.stop()

components.table(
    pd.DataFrame(
        {
            "Scenario": [s.name for s in saved],
            "Saved (UTC)": [s.saved_at.strftime("%Y-%m-%d %H:%M") for s in saved],
            "Inventory": [s.inventory_name for s in saved],
            "Workloads": [s.workloads_name for s in saved],
        }
    ),
    key="scenarios_list",
)
st.caption(f"Kept in `{store.path}`.")
names = [s.name for s in saved]
chosen = st.selectbox(
    "Scenario",
    options=names,
    index=names.index(open_name) if open_name in names else 0,
    key="scenarios_chosen",
)
actions = st.container(horizontal=True)
if actions.button("Open", key="scenarios_open", icon=":material/folder_open:", type="primary"):
    try:
        scenarios.open_saved(chosen)
    except StoreError as error:
        st.error(f"Could not open it: {_shown(str(error))}.", icon=":material/error:")
    else:
        _done(f"Opened {_shown(chosen)}")
with actions.popover("Copy or rename", icon=":material/edit:"):
    other = st.text_input("New name", key="scenarios_new_name", max_chars=100)
    copy_col, rename_col = st.columns(2)
    copy = copy_col.button("Save a copy", key="scenarios_duplicate", icon=":material/content_copy:")
    rename = rename_col.button("Rename", key="scenarios_rename", icon=":material/edit:")
with actions.popover("Delete", icon=":material/delete:"):
    st.markdown(f"Delete **{_shown(chosen)}** for good? Other people's links to it stop working.")
    delete = st.button("Delete it", key="scenarios_delete", icon=":material/delete_forever:")
try:
    if copy:
        _copy = store.duplicate(chosen, other)
        _done(f"Saved a copy of {_shown(chosen)} as {_shown(_copy)}")
    if rename:
        renamed = store.rename(chosen, other)
        if open_name == chosen:
            session.replace_inputs(session.scenario_inputs(), session.question(), opened=renamed)
            st.query_params[scenarios.QUERY_PARAM] = renamed
        _done(f"Renamed {_shown(chosen)} to {_shown(renamed)}")
    if delete:
        store.delete(chosen)
        if open_name == chosen:
            scenarios.close_scenario()
        _done(f"Deleted {_shown(chosen)}")
except StoreError as error:
    st.error(f"Not done: {_shown(str(error))}.", icon=":material/error:")

# --- Compare ------------------------------------------------------------------------------------
st.subheader("Compare two scenarios")
with st.form("scenarios_compare_form", border=True):
    first_col, second_col = st.columns(2)
    first = first_col.selectbox("First", options=names, index=0, key="scenarios_first")
    second = second_col.selectbox(
        "Second", options=names, index=min(1, len(names) - 1), key="scenarios_second"
    )
    if st.form_submit_button("Compare", key="scenarios_compare", icon=":material/compare:"):
        st.session_state[_COMPARED] = (first, second)

pair = st.session_state.get(_COMPARED)
if not (isinstance(pair, tuple) and all(name in names for name in pair)):
    st.caption("Choose two saved scenarios and press Compare; each is planned as it was saved.")
    st.stop()


def _plan(name: str) -> ScenarioPlan:
    inputs, asked = scenarios.session_from_saved(store.open(name))
    return planning.scenario_plan(inputs, asked)


with st.spinner("Planning both scenarios…"):
    plans = [
        planning.guarded(partial(_plan, name), doing=f"plan the scenario {name}") for name in pair
    ]
frame = compare_plans(plans[0], plans[1])
st.markdown(f"**{_shown(pair[0])}** → **{_shown(pair[1])}**: changes are second minus first.")
leading = frame[frame["plan"] == frame["plan"].iloc[0]]
st.markdown(f"**{leading['plan'].iloc[0]}** of *{_shown(pair[1])}*, against *{_shown(pair[0])}*")
cards = st.columns(len(leading))
for card, row in zip(cards, leading.itertuples(index=False), strict=True):
    unchanged = row.change == 0 or math.isnan(row.change)
    card.metric(
        str(row.figure).split(" [")[0],
        _figure_text(row.figure, row.second),
        delta=_figure_text(row.figure, row.change, signed=True),
        delta_color="off"
        if unchanged
        else ("normal" if row.figure in HIGHER_IS_BETTER else "inverse"),
        delta_arrow="off" if unchanged else "auto",
        help=f"{_shown(pair[0])}: {_figure_text(row.figure, row.first)}",
    )
first_title, second_title = (pair[0], pair[1]) if pair[0] != pair[1] else ("First", "Second")
components.table(
    pd.DataFrame(
        {
            "Plan": frame["plan"],
            "Figure": frame["figure"],
            first_title: [
                _figure_text(f, v) for f, v in zip(frame["figure"], frame["first"], strict=True)
            ],
            second_title: [
                _figure_text(f, v) for f, v in zip(frame["figure"], frame["second"], strict=True)
            ],
            "Change": [
                _figure_text(f, v, signed=True)
                for f, v in zip(frame["figure"], frame["change"], strict=True)
            ],
            "Change [%]": [
                "–" if math.isnan(p) else f"{p * 100:+.1f} %" for p in frame["change_pct"]
            ],
        }
    ),
    key="scenarios_comparison",
    max_rows=None,
)
