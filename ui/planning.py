"""Every ``planner`` call the dashboard makes, cached on the committed inputs and guarded.

The functions here are pure functions of hashable inputs (file bytes, frozen assumptions, the
question), so ``st.cache_data`` makes a rerun with unchanged inputs free and a changed input can
never show a stale result. ``guarded`` turns whatever a planner call raises into a readable message.
"""

from __future__ import annotations

import dataclasses
import logging
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn, TypeVar

import pandas as pd
import streamlit as st

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers import ImportNote
from planner.inputs.inventory import (
    Inventory,
    ServerType,
    inventory_frame,
    with_mig_clusters,
)
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.problems import problems_frame as planner_problems_frame
from planner.inputs.servers import load_server_types
from planner.inputs.workloads import WorkloadClass, workloads_frame
from planner.methods.registry import METHODS, Method
from planner.output.recommendations import RecommendedDraft
from planner.output.report import (
    ScenarioPlan,
    add_to_inventory,
    plan_scenario,
    size_cluster,
    with_recommended,
)
from planner.output.report import recommended_draft as draft_of
from planner.scenario import GivenCluster, LoadedHosts, Scenario, load_hosts, load_mix
from planner.time.harvesting import (
    HarvestResult,
    harvest_given_pool,
    harvest_scenario,
    harvest_tables,
    plan_harvest_tables,
)
from ui import trace
from ui.session import HarvestChoice, InputFile, Question, QuestionKind, ScenarioInputs

__all__ = [
    "BuiltScenario",
    "PlanningError",
    "ReadInventory",
    "ReadWorkloads",
    "build_scenario",
    "by_method",
    "catalog",
    "guarded",
    "harvest",
    "harvest_sheets",
    "method_plan",
    "own_gpus_problems",
    "own_models",
    "problems_frame",
    "read_inventory",
    "read_workloads",
    "recommended_draft",
    "scenario_plan",
    "show_problems",
    "single_plans",
    "with_mig_clusters",
    "workbook",
]

_LOG = logging.getLogger(__name__)
T = TypeVar("T")


class PlanningError(RuntimeError):
    """A planner call failed for a reason other than bad input; the message is for the user."""


@dataclass(frozen=True)
class BuiltScenario:
    """A scenario built from the committed inputs, with the rows that were skipped."""

    scenario: Scenario
    inventory_problems: tuple[InputProblem, ...]
    """Inventory rows that were skipped (or changed), each with its reason and fix."""
    workload_problems: tuple[InputProblem, ...]
    """Workload rows that were skipped, each with its reason and fix."""
    inventory_notes: tuple[ImportNote, ...] = ()
    """What reading the inventory file assumed or derived (a trace node list's); empty for a
    planner CSV, whose every value is in the file."""
    workload_notes: tuple[ImportNote, ...] = ()
    """The same for the workload file (a trace pod list's)."""


# A resource, not data: the catalog is never mutated, so every page shares one object instead of
# unpickling a copy on each rerun. A few entries: the bundled catalog and recent own-GPU files.
@st.cache_resource(show_spinner=False, max_entries=8)
def catalog(own_gpus: InputFile | None = None) -> Catalog:
    """The bundled GPU catalog, extended by the user's own models in ``own_gpus`` when given.

    Raises ``InputError`` (file, row, column, fix) when ``own_gpus`` cannot be used; the catalog
    is all or nothing, so a bad file adds no model at all.
    """
    if own_gpus is None:
        return load_catalog()
    return load_catalog(extra_gpus=own_gpus.content, extra_gpus_name=own_gpus.name)


@st.cache_resource(show_spinner=False, max_entries=8)
def server_types(own_gpus: InputFile | None = None) -> tuple[ServerType, ...]:
    """The catalog's server types (``data/catalog/servers.csv``); none when it cannot be read."""
    try:
        return load_server_types(catalog(own_gpus)).value
    except InputError:
        return ()


def own_gpus_problems(own_gpus: InputFile) -> tuple[InputProblem, ...]:
    """Why ``own_gpus`` cannot extend the catalog (file, row, column, fix); empty when it can."""
    try:
        catalog(own_gpus)
    except InputError as error:
        return tuple(error.problems)
    return ()


def own_models(own_gpus: InputFile) -> tuple[str, ...]:
    """The model names ``own_gpus`` adds to the bundled catalog, in file order.

    Raises ``InputError`` when the file cannot be used.
    """
    bundled = catalog().gpus
    return tuple(name for name in catalog(own_gpus).gpus if name not in bundled)


@dataclass(frozen=True)
class ReadInventory:
    """An inventory file as read: the catalog it is planned with, its hosts, skipped rows and
    notes."""

    catalog: Catalog
    """``catalog(own_gpus)``, extended by a trace node list's models the catalog lacked."""
    inventory: Inventory
    problems: tuple[InputProblem, ...]
    notes: tuple[ImportNote, ...]


@st.cache_data(show_spinner=False, max_entries=16)
def read_inventory(
    file: InputFile, own_gpus: InputFile | None, cluster: GivenCluster | None = None
) -> ReadInventory:
    """The inventory ``file``: a trace node list through the trace's loader (its nodes in the
    ``cluster`` given, else the trace's own), else a planner CSV
    (``planner.scenario.load_hosts``); ``InputError`` when unusable."""
    loaded = load_hosts(
        (file.name, file.content),
        catalog(own_gpus),
        own_gpus_at=trace.OWN_GPUS_AT,
        cluster=cluster,
    )
    hosts = loaded.value
    notes = hosts.notes
    return ReadInventory(hosts.catalog, hosts.inventory, loaded.problems, notes)


@dataclass(frozen=True)
class ReadWorkloads:
    """A workload file as read: GPU classes, classes without GPU, skipped rows and notes."""

    workloads: tuple[WorkloadClass, ...]
    cpu_only: tuple[WorkloadClass, ...]
    problems: tuple[InputProblem, ...]
    notes: tuple[ImportNote, ...]


@st.cache_data(show_spinner=False, max_entries=16)
def read_workloads(
    file: InputFile, inventory: InputFile, own_gpus: InputFile | None
) -> ReadWorkloads:
    """The workload ``file`` planned on the ``inventory`` file: a trace pod list through the
    trace's loader (its shares and allowed models depend on the inventory's GPU models), else a
    planner CSV (``planner.scenario.load_mix``); ``InputError`` when unusable."""
    hosts = read_inventory(inventory, own_gpus)
    loaded = load_mix((file.name, file.content), LoadedHosts(hosts.inventory, hosts.catalog))
    mix = loaded.value
    notes = mix.notes
    return ReadWorkloads(mix.workloads, mix.cpu_only, loaded.problems, notes)


@st.cache_data(show_spinner=False, max_entries=32)
def build_scenario(inputs: ScenarioInputs) -> BuiltScenario:
    """The ``Scenario`` the committed inputs describe; raises ``InputError`` on an unusable file.

    A trace node list or pod list is read by the trace's loader, as the command line reads it.
    """
    hosts = read_inventory(inputs.inventory, inputs.own_gpus, inputs.cluster)
    mix = read_workloads(inputs.workloads, inputs.inventory, inputs.own_gpus)
    scenario = Scenario(
        catalog=hosts.catalog,
        inventory=with_mig_clusters(hosts.inventory, inputs.mig_clusters, hosts.catalog),
        workloads=mix.workloads,
        assumptions=inputs.assumptions,
        cpu_only=mix.cpu_only,
    )
    return BuiltScenario(scenario, hosts.problems, mix.problems, hosts.notes, mix.notes)


def by_method(asked: Question) -> bool:
    """Whether ``asked`` is answered method by method (``method_plan``), so a page may show each
    method's figures as soon as its plan is made. Adding to the inventory solves what to buy with
    every method's plan at once: its answer comes whole."""
    return asked.kind is not QuestionKind.ADD


@st.cache_data(show_spinner=False, max_entries=256)
def method_plan(inputs: ScenarioInputs, asked: Question, method: Method) -> ScenarioPlan:
    """The plan of one sharing method for the committed inputs and question (cached), measured;
    ``single_plans`` puts them together. Only for a question answered ``by_method``."""
    scenario = build_scenario(inputs).scenario
    if asked.kind is QuestionKind.FIT:
        return plan_scenario(scenario, methods=(method,), recommended=False)
    if asked.kind is QuestionKind.ADD:
        raise ValueError("adding to the inventory plans every method at once: use single_plans")
    return size_cluster(
        scenario,
        _sizing_servers(asked),
        methods=(method,),
        headroom=asked.headroom,
        recommended=False,
    )


@st.cache_data(show_spinner=False, max_entries=32)
def single_plans(inputs: ScenarioInputs, asked: Question) -> ScenarioPlan:
    """The plan of each single sharing method for the committed inputs and question (cached),
    without the recommended mix: a second or so on the sample, where the mix takes several, so
    pages show these figures first. Adding to the inventory makes its mix with them: its plan
    comes whole."""
    if asked.kind is QuestionKind.ADD:
        # What to buy is solved with the plans on the inventory: there is no earlier answer.
        scenario = build_scenario(inputs).scenario
        return add_to_inventory(scenario, _sizing_servers(asked), headroom=asked.headroom)
    parts = [method_plan(inputs, asked, method) for method in METHODS]
    return dataclasses.replace(parts[0], results=tuple(r for p in parts for r in p.results))


def _sizing_servers(asked: Question) -> tuple[ServerType, ...]:
    """The server types a sizing may buy; PlanningError when the question names none."""
    servers = asked.servers
    if not servers:
        raise PlanningError("choose a server type to size a cluster")
    return servers


@st.cache_data(show_spinner=False, max_entries=32)
def scenario_plan(inputs: ScenarioInputs, asked: Question) -> ScenarioPlan:
    """The plan of every sharing method and the recommended mix of them, first, for the
    committed inputs and question (cached): the ``recommended_draft`` with its bounds proven."""
    singles = single_plans(inputs, asked)
    if singles.recommended is not None:
        return singles
    return with_recommended(singles, draft=recommended_draft(inputs, asked))


@st.cache_data(show_spinner=False, max_entries=32)
def recommended_draft(inputs: ScenarioInputs, asked: Question) -> RecommendedDraft | None:
    """The recommended plan chosen for the committed inputs and question, with every figure,
    before its bounds are proven (cached): the bounds are as much work again, so pages show its
    figures first. None when adding to the inventory or sizing with headroom (those plans come
    whole) or when there is nothing to plan on."""
    singles = single_plans(inputs, asked)
    if singles.recommended is not None:
        return None
    return draft_of(singles)


def harvest(scenario: Scenario, choice: HarvestChoice) -> HarvestResult:
    """The harvest ``choice`` asks for: the scenario's VDI desktops, or a given pool."""
    if choice.pool_gpus is None:
        return harvest_scenario(scenario, choice.settings, curve=choice.curve)
    return harvest_given_pool(choice.pool_gpus, choice.settings, curve=choice.curve)


def harvest_sheets(scenario: Scenario, choice: HarvestChoice) -> dict[str, pd.DataFrame]:
    """The harvest sheets of the plan workbook for ``choice``; a one-row summary saying why
    when the scenario cannot be harvested."""
    if choice.pool_gpus is None:
        return plan_harvest_tables(scenario, choice.settings, curve=choice.curve)
    return harvest_tables(harvest(scenario, choice))


@st.cache_data(show_spinner=False, max_entries=8)
def workbook(
    inputs: ScenarioInputs, asked: Question, harvested: HarvestChoice | None = None
) -> bytes:
    """The plan workbook (.xlsx) for the committed inputs and question, with the harvest sheets
    of ``harvested`` (what the Harvesting page shows; its defaults when None) when fitting the
    inventory. A trace list among the inputs is kept in it as given, so restoring it plans the
    same scenario."""
    # Imported on first download: the workbook writer (openpyxl) is not needed to show a plan.
    from planner.output.export import workbook_bytes

    plan = scenario_plan(inputs, asked)
    choice = harvested or HarvestChoice()
    extra = harvest_sheets(plan.scenario, choice) if plan.server is None else {}
    built = build_scenario(inputs)
    skipped = (*built.inventory_problems, *built.workload_problems)
    given = {"inventory.csv": inputs.inventory.content, "workloads.csv": inputs.workloads.content}
    return workbook_bytes(plan, extra_sheets=extra, input_problems=skipped, given=given)


def guarded(call: Callable[[], T], *, doing: str) -> T:
    """``call()``, or a readable error on screen and a clean stop of the page.

    ``doing`` completes the sentence "Could not ...", e.g. ``"plan the scenario"``.
    """
    try:
        return call()
    except InputError as error:
        _stop_on_input_error(error, doing=doing)
    except PlanningError as error:
        st.error(f"Could not {doing}: {error}.", icon=":material/error:")
        st.stop()
    except Exception as error:
        # The traceback goes to the server log for the maintainers, never to the screen.
        _LOG.exception("planner call failed while trying to %s", doing)
        st.error(
            f"Could not {doing}: the planner stopped with {type(error).__name__}: {error}. "
            "Check the inputs for unusual values (the Inventory and Workloads pages list every "
            "problem found), or go back to the sample scenario with the button in the sidebar.",
            icon=":material/error:",
        )
        st.stop()


def _stop_on_input_error(error: InputError, *, doing: str) -> NoReturn:
    st.error(
        f"Could not {doing}: a file could not be used. Fix the problems below, upload another "
        "file, or go back to the sample scenario with the button in the sidebar.",
        icon=":material/error:",
    )
    show_problems(error.problems)
    st.stop()


def problems_frame(problems: Sequence[InputProblem]) -> pd.DataFrame:
    """Problems as a table: file, row, column, what is wrong, how to fix it."""
    return planner_problems_frame(problems)


CHAR_PX = 7
"""Width of one character of a table cell's text, a little over its average [px]."""
PROBLEM_TEXT_PX = 190
"""Width of a problem table's problem and fix columns [px]."""
PROBLEM_CHARS_PER_LINE = PROBLEM_TEXT_PX // CHAR_PX
"""Characters of a problem or its fix that fit on one line of their column: counted at its set
width, not the wider one it may stretch to, so a long fix is never cut at its last lines."""
LINE_PX = 21
"""Height of one wrapped line of a table cell [px]."""
WRAPPED_MIN_LINES = 3
"""Fewest lines of a row whose text wraps: Streamlit wraps a cell's text only in rows taller than
64 px."""
PROBLEM_COLUMNS = {
    "file": st.column_config.TextColumn(width=80),
    "row": st.column_config.NumberColumn(width=40),
    "column": st.column_config.TextColumn(width=80),
    "problem": st.column_config.TextColumn(width=PROBLEM_TEXT_PX),
    "fix": st.column_config.TextColumn(width=PROBLEM_TEXT_PX),
}
"""Widths of a problem table's columns [px]: narrow enough to fit the import panel's column at
1,280 px, where they stretch; wider ones push the fix past the table's right edge."""
PROBLEM_ROWS_SHOWN = 10
"""Rows of a problem table shown before it scrolls."""
_HEADER_PX = 38
"""Height of a table's header row and border [px]."""


def wrapped_row_px(
    texts: Sequence[str], *, chars_per_line: int, max_lines: int | None = None
) -> int | None:
    """Row height that shows the longest of ``texts`` whole [px], wrapped at word breaks into
    lines of ``chars_per_line`` characters, up to ``max_lines`` lines (None: as many as the text
    takes); None (one line) when every text fits on one line."""
    lines = max(
        (len(textwrap.wrap(t, chars_per_line, break_on_hyphens=False)) for t in texts), default=0
    )
    if lines <= 1:
        return None
    lines = max(WRAPPED_MIN_LINES, lines if max_lines is None else min(max_lines, lines))
    return lines * LINE_PX + 8


def show_problems(problems: Sequence[InputProblem], *, key: str | None = None) -> None:
    """Problems as a table whose problem and fix columns are wide and wrap, its rows grown until
    every problem and fix is read whole (a file of no known kind is refused with a fix listing
    every format the page reads); a whole-file problem shows no row number."""
    frame = problems_frame(problems)
    texts = [str(t) for column in ("problem", "fix") for t in frame[column]]
    row_px = wrapped_row_px(texts, chars_per_line=PROBLEM_CHARS_PER_LINE)
    shown = min(len(frame), PROBLEM_ROWS_SHOWN)
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        row_height=row_px,
        height="auto" if row_px is None else shown * row_px + _HEADER_PX,
        placeholder="–",
        column_config=PROBLEM_COLUMNS,
    )


def inventory_table(inventory: Inventory) -> pd.DataFrame:
    """The inventory as a table (one row per host)."""
    return inventory_frame(inventory)


def workload_table(workloads: Sequence[WorkloadClass]) -> pd.DataFrame:
    """The workload mix as a workload-CSV frame (one row per class)."""
    return workloads_frame(tuple(workloads))
