"""Settings a sharing method declares in its module reach every view of the assumptions: facts,
``with_facts``, the CLI, saved scenarios, the workbook and the dashboard, with no edit elsewhere.

The proof registers a method that declares new settings (MPS with a queue in front, a test-only
subclass of the real MPS method) in a copy of the registry, and finds each setting everywhere.
"""

from __future__ import annotations

import io
import json
import sqlite3
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

import pytest
from openpyxl import Workbook
from streamlit.testing.v1 import AppTest

from planner.assumptions import Assumptions, Setting, facts, setting
from planner.cli import build_parser, scenario_from_args
from planner.inputs.catalog import load_catalog
from planner.inputs.importers import write_inputs_sheet
from planner.inputs.importers.workbook import assumption_rows, assumptions_from_rows
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import load_workloads
from planner.methods import k8s_mps, k8s_time_slicing, registry
from planner.methods.fractional import AI_ENTERPRISE_USD
from planner.methods.k8s_mig import STRATEGY, MigStrategy
from planner.methods.k8s_mps import Mps
from planner.methods.kubernetes import AI_ENTERPRISE
from planner.methods.registry import Method, declared_settings
from planner.scenario import Scenario
from planner.store import SavedFile, SavedScenario, ScenarioStore, StoreError
from ui import session

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample"
APP = str(REPO / "app.py")


class QueueOrder(StrEnum):
    FIFO = "fifo"
    FAIR = "fair"


DEPTH = setting(
    "queue_depth", 2, "Queue depth", "pods/GPU", "pods waiting per GPU",
    minimum=1, maximum=16, flag="--queue-depth",
)  # fmt: skip
ORDER = setting(
    "queue_order", QueueOrder.FIFO, "Queue order", "choice", "order queued pods start in",
    flag="--queue-order",
)  # fmt: skip
PREEMPT = setting(
    "queue_preempt", False, "Preemption", "yes/no", "a queued pod may stop a running one",
    flag="--queue-preempt",
)  # fmt: skip
WAIT = setting(
    "queue_wait_s", 30.0, "Longest wait", "s", "longest a pod waits in the queue",
    minimum=0.0, maximum=3600.0, guess=True, flag="--queue-wait",
)  # fmt: skip
QUEUE = (DEPTH, ORDER, PREEMPT, WAIT)


class QueuedMps(Mps):
    """MPS with a queue in front of each GPU: MPS's rules plus four settings of every kind."""

    own_settings = (*Mps.own_settings, *QUEUE)

    def slowdown_note(self, assumptions: Assumptions) -> str:
        queue = f"queue of {DEPTH.of(assumptions)} ({ORDER.of(assumptions).value})"
        return f"{super().slowdown_note(assumptions)}; {queue}, wait {WAIT.of(assumptions):g} s"


def _registered(monkeypatch: pytest.MonkeyPatch, method: Mps) -> None:
    """``method`` in a copy of the registry, in MPS's place, for the test's duration."""
    copy = MappingProxyType({**registry.METHODS, Method.K8S_MPS: method})
    monkeypatch.setattr(registry, "METHODS", copy)


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> None:
    _registered(monkeypatch, QueuedMps())


def _sample(assumptions: Assumptions) -> Scenario:
    catalog = load_catalog()
    return Scenario(
        catalog,
        load_inventory((SAMPLE / "inventory.csv").read_bytes(), catalog).value,
        load_workloads((SAMPLE / "workloads.csv").read_bytes(), catalog).value,
        assumptions,
    )


def _saved(assumptions: Assumptions) -> SavedScenario:
    return SavedScenario(
        inventory=SavedFile("inventory.csv", (SAMPLE / "inventory.csv").read_bytes()),
        workloads=SavedFile("workloads.csv", (SAMPLE / "workloads.csv").read_bytes()),
        assumptions=assumptions,
    )


QUEUED = {"queue_depth": 5, "queue_order": QueueOrder.FAIR, "queue_preempt": True}
QUEUED_ARGS = ["--queue-depth", "5", "--queue-order", "fair", "--queue-preempt"]


# A new method's settings everywhere


@pytest.mark.usefixtures("queued")
def test_a_new_methods_settings_are_facts_with_defaults() -> None:
    """Each declared setting is a fact of every ``Assumptions``, with its ``Fact`` and default,
    after the settings of the methods registered before it."""
    listed = {name: (about, value) for name, about, value in facts(Assumptions())}
    for declared in QUEUE:
        assert listed[declared.name] == (declared.fact, declared.default)
    names = list(listed)
    assert names.index("mps_replicas") < names.index("queue_depth")
    assert DEPTH.fact.whole
    assert not WAIT.fact.whole


@pytest.mark.usefixtures("queued")
def test_a_new_methods_settings_are_set_and_checked_by_name() -> None:
    """``with_facts`` sets them by name and checks each against its kind and range; the
    method's rules read what was set."""
    queued = Assumptions().with_facts({**QUEUED, "queue_wait_s": 12.5})
    assert [s.of(queued) for s in QUEUE] == [5, QueueOrder.FAIR, True, 12.5]
    note = registry.METHODS[Method.K8S_MPS].slowdown_note(queued)
    assert note.endswith("queue of 5 (fair), wait 12.5 s")
    assert ORDER.of(Assumptions().with_facts({"queue_order": "fair"})) is QueueOrder.FAIR
    for value, rule in [(17, "from 1 to 16"), (2.5, "whole number"), (True, "whole number")]:
        with pytest.raises(ValueError, match=rf"queue_depth \(Queue depth\).*{rule}"):
            Assumptions().with_facts({"queue_depth": value})
    with pytest.raises(ValueError, match=r"queue_order .* must be one of fifo, fair"):
        Assumptions().with_facts({"queue_order": "lifo"})
    with pytest.raises(ValueError, match=r"queue_preempt .* yes or no"):
        Assumptions().with_facts({"queue_preempt": 1})


@pytest.mark.usefixtures("queued")
def test_a_new_methods_settings_are_cli_options() -> None:
    """Each setting with a flag is a CLI option of its kind: a number, a choice, a switch."""
    assumptions = scenario_from_args(build_parser().parse_args(["plan", *QUEUED_ARGS]))[
        0
    ].assumptions
    assert [s.of(assumptions) for s in QUEUE] == [5, QueueOrder.FAIR, True, WAIT.default]
    assert isinstance(DEPTH.of(assumptions), int)
    defaults = scenario_from_args(build_parser().parse_args(["plan"]))[0].assumptions
    assert [s.of(defaults) for s in QUEUE] == [s.default for s in QUEUE]
    for wrong in (["--queue-depth", "17"], ["--queue-depth", "2.5"], ["--queue-order", "lifo"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["plan", *wrong])


@pytest.mark.usefixtures("queued")
def test_a_new_methods_settings_are_saved_and_restored(tmp_path: Path) -> None:
    """A saved scenario and the workbook's inputs sheet both bring the settings back equal."""
    queued = Assumptions().with_facts({**QUEUED, "queue_wait_s": 0.1 + 0.2})
    store = ScenarioStore(tmp_path / "scenarios.sqlite")
    store.save("queued", _saved(queued))
    assert store.open("queued").assumptions == queued
    rows = [(n, name, text) for n, (name, text) in enumerate(assumption_rows(queued), start=3)]
    assert ("queue_order", "fair") in [(name, text) for _, name, text in rows]
    restored, notes, problems = assumptions_from_rows(rows, "plan.xlsx")
    assert (restored, notes, problems) == (queued, [], [])


@pytest.mark.usefixtures("queued")
def test_a_new_methods_settings_are_dashboard_widgets() -> None:
    """The Assumptions page makes a widget of each setting's kind; Apply commits them."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("ui/pages/assumptions.py").run()
    assert not at.exception
    at.number_input(key="assumptions_queue_depth").set_value(5)
    at.selectbox(key="assumptions_queue_order").set_value(QueueOrder.FAIR)
    at.checkbox(key="assumptions_queue_preempt").check()
    at.number_input(key="assumptions_queue_wait_s").set_value(45.0)
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    inputs = at.session_state[session._INPUTS_KEY]
    assert isinstance(inputs, session.ScenarioInputs)
    assert [s.of(inputs.assumptions) for s in QUEUE] == [5, QueueOrder.FAIR, True, 45.0]


# Names: one per setting, never a field's


def test_a_setting_named_like_a_field_or_another_setting_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A setting may not take a field's name (``pue``) or another setting's name with other
    facts: either would make the name ambiguous."""
    for clash in (
        setting("pue", 1.0, "PUE again", "-", "a clash"),
        setting("mps_replicas", 2, "Other replicas", "pods/GPU", "a clash"),
    ):

        class Clashing(Mps):
            own_settings = (*Mps.own_settings, clash)

        _registered(monkeypatch, Clashing())
        with pytest.raises(ValueError, match=f"setting named {clash.name}"):
            declared_settings()


def test_a_setting_no_method_declares_is_refused() -> None:
    with pytest.raises(ValueError, match="no sharing method has a setting warp_drive"):
        Assumptions(method_settings={"warp_drive": 1})


def test_the_kubernetes_settings_live_in_their_methods() -> None:
    """The registry collects the Kubernetes methods' settings from their modules, the shared
    AI Enterprise switch once, in registry order."""
    declared: dict[str, Setting[object]] = dict(declared_settings())
    assert declared == {
        "kubernetes_ai_enterprise": AI_ENTERPRISE,
        "time_slicing_replicas": k8s_time_slicing.REPLICAS,
        "mps_replicas": k8s_mps.REPLICAS,
        "kubernetes_mig_strategy": STRATEGY,
        "ai_enterprise_usd_per_gpu_year": AI_ENTERPRISE_USD,
    }
    assert Assumptions().method_settings == {n: s.default for n, s in declared.items()}


# Saves and workbooks written when the settings were fields of their own

OLD_FIELDS = {
    "kubernetes_ai_enterprise": True,
    "time_slicing_replicas": 8,
    "mps_replicas": 2,
    "kubernetes_mig_strategy": "single",
    "ai_enterprise_usd_per_gpu_year": 1200.0,
}


def _expected_old(assumptions: Assumptions) -> None:
    assert AI_ENTERPRISE.of(assumptions) is True
    assert k8s_time_slicing.REPLICAS.of(assumptions) == 8
    assert k8s_mps.REPLICAS.of(assumptions) == 2
    assert STRATEGY.of(assumptions) is MigStrategy.SINGLE
    assert AI_ENTERPRISE_USD.of(assumptions) == 1200.0


def test_a_scenario_saved_with_the_settings_as_fields_opens(tmp_path: Path) -> None:
    """Saves holding each Kubernetes setting as a field of its own (``mps_replicas``) open
    with the settings in their methods; saves without them take the defaults."""
    store = ScenarioStore(tmp_path / "scenarios.sqlite")
    store.save("old", _saved(Assumptions(pue=1.2)))
    with sqlite3.connect(store.path) as db:
        (text,) = db.execute("SELECT assumptions FROM scenario").fetchone()
        plain = json.loads(text)
        del plain["method_settings"]
        db.execute("UPDATE scenario SET assumptions = ?", (json.dumps(plain),))
    assert store.open("old").assumptions == Assumptions(pue=1.2)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scenario SET assumptions = ?", (json.dumps(plain | OLD_FIELDS),))
    opened = store.open("old").assumptions
    _expected_old(opened)
    assert opened.pue == 1.2
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scenario SET assumptions = ?", (json.dumps({"mps_replicas": 99}),))
    with pytest.raises(StoreError, match="mps_replicas"):
        store.open("old")


def test_a_workbook_with_the_settings_as_rows_of_their_own_restores_them() -> None:
    """The inputs sheet names each setting by itself, as workbooks always did; a missing one
    keeps its default with a note."""
    rows = [(n, name, text) for n, (name, text) in enumerate(assumption_rows(Assumptions()))]
    assert not any(name.startswith("method_settings") for _, name, _ in rows)
    old = {name: ("yes" if v is True else str(v)) for name, v in OLD_FIELDS.items()}
    edited = [(n, name, old.get(name, text)) for n, name, text in rows]
    restored, notes, problems = assumptions_from_rows(edited, "plan.xlsx")
    _expected_old(restored)
    assert (notes, problems) == ([], [])
    lacking = [row for row in rows if row[1] != "mps_replicas"]
    restored, notes, problems = assumptions_from_rows(lacking, "plan.xlsx")
    assert k8s_mps.REPLICAS.of(restored) == k8s_mps.REPLICAS.default
    assert [note.field for note in notes] == ["mps_replicas"]
    assert problems == []


def test_cli_options_override_one_setting_of_a_restored_workbook(tmp_path: Path) -> None:
    """``--from-workbook`` keeps the workbook's settings but those the options change."""
    book = Workbook()
    write_inputs_sheet(book, _sample(Assumptions().with_facts(OLD_FIELDS)))
    out = io.BytesIO()
    book.save(out)
    path = tmp_path / "plan.xlsx"
    path.write_bytes(out.getvalue())
    args = build_parser().parse_args(["plan", "--from-workbook", str(path), "--mps-replicas", "6"])
    assumptions = scenario_from_args(args)[0].assumptions
    assert k8s_mps.REPLICAS.of(assumptions) == 6
    assert k8s_time_slicing.REPLICAS.of(assumptions) == 8
    assert STRATEGY.of(assumptions) is MigStrategy.SINGLE
    assert AI_ENTERPRISE.of(assumptions) is True
