"""The committed scenario inputs of one browser session: what the dashboard is planning right now.

Only inputs live here (file bytes as the user gave them, assumptions, the question asked), never a
derived result. Pages change them on intent through the ``commit_*`` functions; everything derived
is recomputed by cached functions in ``ui.planning``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import NoReturn

import streamlit as st

from planner.assumptions import Assumptions
from planner.inputs.inventory import ServerType
from planner.scenario import GivenCluster
from planner.time.demand import WeeklyCurve
from planner.time.harvesting import HarvestSettings

__all__ = [
    "KEEP",
    "SAMPLE_DIR",
    "TEMPLATE_DIR",
    "HarvestChoice",
    "InputFile",
    "Question",
    "QuestionKind",
    "ScenarioInputs",
    "before_last_apply",
    "commit_assumptions",
    "commit_inventory",
    "commit_own_gpus",
    "commit_question",
    "commit_replacing",
    "commit_workloads",
    "harvest_choice",
    "keep_harvest_choice",
    "open_scenario",
    "question",
    "replace_inputs",
    "replaced",
    "reset_to_sample",
    "sample_inputs",
    "scenario_inputs",
    "sizing_question",
    "undo_replacement",
]

_REPO = Path(__file__).resolve().parent.parent
SAMPLE_DIR = _REPO / "data" / "sample"
"""The bundled sample scenario a newcomer sees first."""
TEMPLATE_DIR = _REPO / "data" / "templates"
"""Empty-ish CSV templates users download and fill in."""

# Private session-state keys: only this module reads or writes them.
_INPUTS_KEY = "_session_scenario_inputs"
_QUESTION_KEY = "_session_question"
_PREVIOUS_KEY = "_session_previous_inputs"
_PREVIOUS_QUESTION_KEY = "_session_previous_question"
_OPEN_KEY = "_session_open_scenario"
_BEFORE_APPLY_KEY = "_session_before_apply"
_HARVEST_KEY = "_session_harvest_choice"


@dataclass(frozen=True)
class InputFile:
    """A CSV file as the user gave it (or the bundled sample)."""

    name: str
    """File name as the user knows it; problems are reported against it."""
    content: bytes
    """The raw bytes, never evaluated."""
    is_sample: bool = False
    """True for the bundled sample file."""


@dataclass(frozen=True)
class ScenarioInputs:
    """Everything a plan is made from, in the form the user gave it; hashable for caching."""

    inventory: InputFile
    workloads: InputFile
    assumptions: Assumptions = dataclasses.field(default_factory=Assumptions)
    mig_clusters: tuple[str, ...] | None = None
    """Clusters whose hosts have MIG enabled, sorted; None keeps each host's ``mig_enabled`` as the
    inventory file says. A sorted tuple, not a set, so the cache key is stable."""
    own_gpus: InputFile | None = None
    """The user's own GPU models (a CSV with the columns of ``gpus.csv``) added to the bundled
    catalog; None plans with the bundled catalog alone."""
    cluster: GivenCluster | None = None
    """The cluster the nodes of ``inventory``, a trace node list, are planned in, as a restored
    plan workbook keeps it (the list has no column for one); None: the trace's own cluster,
    and for any other inventory file."""


class KeepMig(Enum):
    """Marker: leave the MIG choice per cluster as it is."""

    KEEP = "keep"


KEEP = KeepMig.KEEP


class QuestionKind(StrEnum):
    """The questions the planner answers."""

    FIT = "fit"
    """Fit the workload mix to my inventory."""
    SIZE = "size"
    """Size a new cluster: how many servers of one type."""
    ADD = "add"
    """Add to my inventory: the servers to buy on top of the hosts owned."""


@dataclass(frozen=True)
class Question:
    """The question asked, with the server type when sizing a cluster."""

    kind: QuestionKind = QuestionKind.FIT
    server: ServerType | None = None
    catalog_servers: tuple[ServerType, ...] = ()
    """Server types of the catalog the sizing may choose among; when empty, ``server``."""
    headroom: int = 0
    """Host failures each cluster tolerates when sizing (N+k) [hosts]."""

    @property
    def servers(self) -> tuple[ServerType, ...]:
        """The server types the question sizes with (the catalog's choice, else ``server``);
        none when it fits the inventory."""
        if self.kind is QuestionKind.FIT:
            return ()
        return self.catalog_servers or (() if self.server is None else (self.server,))


def sizing_question(
    servers: Sequence[ServerType], *, add_to_inventory: bool, headroom: int
) -> Question:
    """The question that buys ``servers`` (a new cluster, or ``add_to_inventory``) with
    ``headroom`` [hosts]; the fit when there are none. A lone type of no catalog name is the
    typed server, others are the catalog's types to choose among."""
    kind = QuestionKind.ADD if add_to_inventory else QuestionKind.SIZE
    match tuple(servers):
        case ():
            return Question()
        case (server,) if not server.name:
            return Question(kind=kind, server=server, headroom=headroom)
        case chosen:
            return Question(kind=kind, catalog_servers=chosen, headroom=headroom)


def sample_inputs() -> ScenarioInputs:
    """The bundled sample scenario with default assumptions."""
    return ScenarioInputs(
        inventory=_sample_file("inventory.csv"),
        workloads=_sample_file("workloads.csv"),
    )


def _sample_file(name: str) -> InputFile:
    return InputFile(
        name=f"sample {name}", content=(SAMPLE_DIR / name).read_bytes(), is_sample=True
    )


def scenario_inputs() -> ScenarioInputs:
    """The committed inputs of this session (the sample scenario until the user changes it)."""
    inputs = st.session_state.get(_INPUTS_KEY)
    if not isinstance(inputs, ScenarioInputs):
        inputs = sample_inputs()
        st.session_state[_INPUTS_KEY] = inputs
    return inputs


def _commit(inputs: ScenarioInputs) -> NoReturn:
    """Store the inputs and rerun, so every part of the page (the sidebar too) shows them."""
    st.session_state[_INPUTS_KEY] = inputs
    st.rerun()


def commit_inventory(file: InputFile) -> NoReturn:
    """Plan with this inventory from now on; MIG choices per cluster, and the cluster of a trace
    node list, start again from the file."""
    _commit(dataclasses.replace(scenario_inputs(), inventory=file, mig_clusters=None, cluster=None))


def commit_own_gpus(file: InputFile | None) -> NoReturn:
    """Plan with the bundled catalog extended by ``file`` from now on (None: the bundled catalog
    alone). Inventory and workload rows naming a model that is no longer known are skipped and
    listed by their pages."""
    _commit(dataclasses.replace(scenario_inputs(), own_gpus=file))


def commit_workloads(file: InputFile) -> NoReturn:
    """Plan with this workload mix from now on."""
    _commit(dataclasses.replace(scenario_inputs(), workloads=file))


def commit_assumptions(
    assumptions: Assumptions, mig_clusters: Iterable[str] | KeepMig | None = KEEP
) -> NoReturn:
    """Plan with these assumptions from now on, and MIG enabled on exactly ``mig_clusters``
    (None: as the inventory file says; ``KEEP``: unchanged). ``before_last_apply`` then
    returns the inputs with the assumptions in force until now."""
    current = scenario_inputs()
    st.session_state[_BEFORE_APPLY_KEY] = (current.assumptions, current.mig_clusters)
    inputs = dataclasses.replace(current, assumptions=assumptions)
    if not isinstance(mig_clusters, KeepMig):
        chosen = None if mig_clusters is None else tuple(sorted(set(mig_clusters)))
        inputs = dataclasses.replace(inputs, mig_clusters=chosen)
    _commit(inputs)


def before_last_apply() -> ScenarioInputs | None:
    """The committed inputs with the assumptions and MIG choices in force before the last
    ``commit_assumptions``, to show what the change did; None when nothing was applied since the
    scenario was opened, or the applied change left the inputs as they were."""
    saved = st.session_state.get(_BEFORE_APPLY_KEY)
    if not isinstance(saved, tuple):
        return None
    inputs = scenario_inputs()
    assumptions, mig_clusters = saved
    before = dataclasses.replace(inputs, assumptions=assumptions, mig_clusters=mig_clusters)
    return None if before == inputs else before


def commit_replacing(inputs: ScenarioInputs, what: str, asked: Question | None = None) -> NoReturn:
    """Plan with ``inputs`` from now on, and answer ``asked`` when given (None: the question
    stays), keeping the inputs and question in use so ``undo_replacement`` can bring them back;
    ``what`` names the change for the undo button (``the import of a.json``)."""
    st.session_state[_PREVIOUS_KEY] = (what, scenario_inputs())
    if asked is None:
        st.session_state.pop(_PREVIOUS_QUESTION_KEY, None)
    else:
        st.session_state[_PREVIOUS_QUESTION_KEY] = question()
        st.session_state[_QUESTION_KEY] = asked
    _commit(inputs)


def replaced() -> tuple[str, ScenarioInputs] | None:
    """The last replacement made with ``commit_replacing`` and the inputs it replaced."""
    previous = st.session_state.get(_PREVIOUS_KEY)
    return previous if isinstance(previous, tuple) else None


def undo_replacement() -> NoReturn:
    """Plan with the inputs in use before the last ``commit_replacing`` again."""
    previous = replaced()
    st.session_state.pop(_PREVIOUS_KEY, None)
    asked = st.session_state.pop(_PREVIOUS_QUESTION_KEY, None)
    if isinstance(asked, Question):
        st.session_state[_QUESTION_KEY] = asked
    _commit(scenario_inputs() if previous is None else previous[1])


def reset_to_sample() -> NoReturn:
    """Forget every change: the sample scenario, default assumptions, the fit question."""
    st.session_state[_QUESTION_KEY] = Question()
    st.session_state.pop(_BEFORE_APPLY_KEY, None)
    _commit(sample_inputs())


def question() -> Question:
    """The committed question (fit to my inventory until the user asks to size a cluster)."""
    asked = st.session_state.get(_QUESTION_KEY)
    return asked if isinstance(asked, Question) else Question()


def commit_question(asked: Question) -> NoReturn:
    """Answer this question from now on (and rerun, so the whole page shows it)."""
    st.session_state[_QUESTION_KEY] = asked
    st.rerun()


def open_scenario() -> str | None:
    """Name of the saved scenario this session opened or saved last; None when there is none."""
    name = st.session_state.get(_OPEN_KEY)
    return name if isinstance(name, str) else None


def replace_inputs(inputs: ScenarioInputs, asked: Question, *, opened: str | None) -> None:
    """Plan with these inputs and this question from now on, as the saved scenario ``opened``
    (None: no saved scenario). No rerun: the caller decides whether the page must start over."""
    st.session_state[_INPUTS_KEY] = inputs
    st.session_state[_QUESTION_KEY] = asked
    st.session_state[_OPEN_KEY] = opened
    st.session_state.pop(_BEFORE_APPLY_KEY, None)


@dataclass(frozen=True)
class HarvestChoice:
    """What the Harvesting page simulates; the plan workbook's harvest sheets use the same."""

    settings: HarvestSettings = dataclasses.field(default_factory=HarvestSettings)
    curve: WeeklyCurve | None = None
    """Desktops' demand over the week; None: each VDI class's own schedule."""
    pool_gpus: int | None = None
    """A pool of this many GPUs following ``curve`` (the vdi-office preset when None); None:
    the scenario's VDI desktops as their vGPU plan places them."""


def harvest_choice() -> HarvestChoice:
    """The harvest the Harvesting page showed last (the defaults until it is opened)."""
    choice = st.session_state.get(_HARVEST_KEY)
    return choice if isinstance(choice, HarvestChoice) else HarvestChoice()


def keep_harvest_choice(choice: HarvestChoice) -> None:
    """Remember the harvest on screen, so the workbook and a return to the page show it. No
    rerun: the page that shows it is already running."""
    st.session_state[_HARVEST_KEY] = choice
