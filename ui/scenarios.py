"""Saved scenarios in the dashboard: the store, the open scenario in the URL, and the sidebar line.

The committed inputs of a session (``ui.session``) are saved to and opened from the scenario store
(``planner.store``); the open scenario's name is the URL's ``scenario`` query parameter, so a
reload or a shared link comes back to it. Unsaved changes stay in their own session. The
Harvesting page's settings are kept in the session too (``harvest_page``), and saved with the rest.
"""

from __future__ import annotations

import streamlit as st

from planner.store import (
    SavedFile,
    SavedHarvest,
    SavedScenario,
    ScenarioNotFoundError,
    ScenarioStore,
    StoreError,
    default_store_path,
)
from ui import format as fmt
from ui import session

__all__ = [
    "QUERY_PARAM",
    "follow_url",
    "harvest_page",
    "has_unsaved_changes",
    "keep_harvest_page",
    "open_saved",
    "saved_from_session",
    "scenario_sidebar",
    "session_from_saved",
    "store",
]

QUERY_PARAM = "scenario"
"""The URL query parameter naming the open scenario: ``?scenario=Q3%20budget``."""
_HARVEST_KEY = "scenario_harvest_page"
"""Session state: the Harvesting page's settings as last simulated (a ``SavedHarvest``)."""
_HARVEST_WIDGETS = "harvest_"
"""Prefix of the Harvesting page's widget keys, cleared when a scenario brings its own."""


@st.cache_resource(show_spinner=False, max_entries=4)
def _store_at(path: str) -> ScenarioStore:
    return ScenarioStore(path)


def store() -> ScenarioStore:
    """The scenario store at ``default_store_path()`` (``$GPU_PLANNER_DB`` when set).

    Raises ``StoreError`` when the file cannot be opened or was written by a newer planner.
    """
    return _store_at(str(default_store_path()))


def saved_from_session() -> SavedScenario:
    """This session's committed inputs and question, as the store keeps them."""
    inputs, asked = session.scenario_inputs(), session.question()
    own = inputs.own_gpus
    servers = asked.servers
    return SavedScenario(
        inventory=SavedFile(inputs.inventory.name, inputs.inventory.content),
        workloads=SavedFile(inputs.workloads.name, inputs.workloads.content),
        assumptions=inputs.assumptions,
        own_gpus=None if own is None else SavedFile(own.name, own.content),
        mig_clusters=inputs.mig_clusters,
        servers=servers,
        cluster=inputs.cluster,
        harvest=harvest_page(),
        add_to_inventory=asked.kind is session.QuestionKind.ADD,
        headroom=asked.headroom if servers else 0,
    )


def harvest_page() -> SavedHarvest | None:
    """The Harvesting page's settings as this session last simulated them or opened them with a
    scenario; None: the page's defaults."""
    kept = st.session_state.get(_HARVEST_KEY)
    return kept if isinstance(kept, SavedHarvest) else None


def keep_harvest_page(harvest: SavedHarvest | None) -> None:
    """Keep the Harvesting page's settings in this session (saved with the scenario)."""
    st.session_state[_HARVEST_KEY] = harvest


def _restore_harvest_page(harvest: SavedHarvest | None) -> None:
    """Show ``harvest`` on the Harvesting page from now on: its widgets start over from it."""
    keep_harvest_page(harvest)
    # The workbook's harvest follows the page: back to the defaults until the page simulates it.
    session.keep_harvest_choice(session.HarvestChoice())
    for key in [k for k in st.session_state if str(k).startswith(_HARVEST_WIDGETS)]:
        del st.session_state[key]


def _input_file(saved: SavedFile, sample: session.InputFile) -> session.InputFile:
    """A saved file; the bundled sample when it is that file, so pages still recognise it."""
    if (saved.name, saved.content) == (sample.name, sample.content):
        return sample
    return session.InputFile(name=saved.name, content=saved.content)


def session_from_saved(saved: SavedScenario) -> tuple[session.ScenarioInputs, session.Question]:
    """The session inputs and question a saved scenario describes."""
    sample = session.sample_inputs()
    own = saved.own_gpus
    inputs = session.ScenarioInputs(
        inventory=_input_file(saved.inventory, sample.inventory),
        workloads=_input_file(saved.workloads, sample.workloads),
        assumptions=saved.assumptions,
        mig_clusters=saved.mig_clusters,
        own_gpus=None if own is None else session.InputFile(name=own.name, content=own.content),
        cluster=saved.cluster,
    )
    asked = session.sizing_question(
        saved.servers, add_to_inventory=saved.add_to_inventory, headroom=saved.headroom
    )
    return inputs, asked


def open_saved(name: str) -> None:
    """Plan with the saved scenario ``name`` from now on and put its name in the URL.

    Raises ``StoreError`` (``ScenarioNotFoundError`` when it is not saved).
    """
    saved = store().open(name)
    inputs, asked = session_from_saved(saved)
    session.replace_inputs(inputs, asked, opened=name)
    _restore_harvest_page(saved.harvest)
    st.query_params[QUERY_PARAM] = name


def close_scenario() -> None:
    """Keep planning with the same inputs, but as no saved scenario (the URL forgets it too)."""
    session.replace_inputs(session.scenario_inputs(), session.question(), opened=None)
    del st.query_params[QUERY_PARAM]


def has_unsaved_changes() -> bool:
    """True when the session's inputs differ from the saved version of the open scenario (or
    the open scenario is no longer saved)."""
    name = session.open_scenario()
    if name is None:
        return False
    try:
        return store().open(name) != saved_from_session()
    except StoreError:
        return True


def follow_url() -> None:
    """Open the scenario the URL names when it is not the one open (a reload, a shared link);
    put the open scenario back into the URL when a page change dropped it."""
    wanted = st.query_params.get(QUERY_PARAM)
    current = session.open_scenario()
    if wanted is None:
        if current is not None:
            st.query_params[QUERY_PARAM] = current
        return
    if wanted == current:
        return
    try:
        open_saved(wanted)
    except ScenarioNotFoundError:
        del st.query_params[QUERY_PARAM]
        st.toast(
            f"The link names a scenario '{fmt.markdown_literal(wanted)}' that is not saved "
            "(deleted or renamed); the planner shows what this session had.",
            icon=":material/warning:",
        )
    except StoreError as error:
        del st.query_params[QUERY_PARAM]
        st.toast(
            f"Could not open the scenario '{fmt.markdown_literal(wanted)}': "
            f"{fmt.markdown_literal(str(error))}.",
            icon=":material/error:",
        )


def scenario_sidebar() -> None:
    """One sidebar line: the open scenario and whether this session changed it since it was saved,
    and a link to the Scenarios page."""
    name = session.open_scenario()
    with st.sidebar:
        if name is None:
            st.caption(":material/bookmark_border: Not saved as a scenario")
        else:
            unsaved = " · **unsaved changes**" if has_unsaved_changes() else ""
            st.caption(f":material/bookmark: Scenario **{fmt.markdown_literal(name)}**{unsaved}")
        st.page_link(
            "ui/pages/scenarios.py", label="Save, open or compare", icon=":material/bookmarks:"
        )
