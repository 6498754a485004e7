"""Tests of the cluster a plan workbook keeps for a node list of Alibaba's GPU-sharing trace,
which has no column for one: the cluster given with ``--cluster`` comes back on restore."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook
from streamlit.testing.v1 import AppTest

from planner.cli import build_parser, main, scenario_from_args, summary_lines
from planner.inputs import alibaba_trace
from planner.inputs.catalog import load_catalog
from planner.inputs.importers.workbook import (
    PLAN_INPUTS_SHEET,
    read_plan_inputs,
    write_inputs_sheet,
)
from planner.scenario import Scenario, load_hosts
from ui import planning, scenarios, session

REPO = Path(__file__).resolve().parent.parent
APP = str(REPO / "app.py")
APP_TIMEOUT_S = 60

TRACE_NODES = (
    "sn,cpu_milli,memory_mib,gpu,model\nnode-0,64000,262144,2,T4\nnode-1,96000,393216,8,G2\n"
)


def _planned(nodes: Path, *options: str) -> Scenario:
    """The scenario ``plan --inventory nodes`` reads with ``options``."""
    scenario, _ = scenario_from_args(
        build_parser().parse_args(["plan", "--inventory", str(nodes), *options])
    )
    return scenario


def _workbook(tmp_path: Path, *options: str) -> Path:
    """A plan workbook's inputs sheet for the trace node list planned with ``options``."""
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(TRACE_NODES)
    book = Workbook()
    write_inputs_sheet(book, _planned(nodes, *options), {"inventory.csv": TRACE_NODES.encode()})
    path = tmp_path / "plan.xlsx"
    book.save(path)
    return path


def _restored(path: Path, *options: str) -> Scenario:
    """The scenario ``plan --from-workbook path`` reads with ``options``."""
    scenario, _ = scenario_from_args(
        build_parser().parse_args(["plan", "--from-workbook", str(path), *options])
    )
    return scenario


def test_a_trace_node_lists_cluster_given_comes_back_from_its_workbook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A node list planned with ``--cluster prod`` is restored in cluster prod, by the command
    line and by ``PlanInputs.scenario``, and the note names the workbook as its source; the
    node list itself is kept as given."""
    path = _workbook(tmp_path, "--cluster", "prod")
    restored = read_plan_inputs(path)
    assert restored.cluster == "prod"
    assert restored.inventory_csv == TRACE_NODES.encode()
    assert not restored.problems
    assert {h.cluster for h in restored.scenario().value.inventory.hosts} == {"prod"}
    capsys.readouterr()
    assert {h.cluster for h in _restored(path).inventory.hosts} == {"prod"}
    assert f"plan.xlsx [{PLAN_INPUTS_SHEET}]: read: cluster = prod" in capsys.readouterr().err


def test_a_cluster_given_beside_the_workbook_wins(tmp_path: Path) -> None:
    """``--cluster`` given with ``--from-workbook`` puts the nodes in the cluster it names."""
    path = _workbook(tmp_path, "--cluster", "prod")
    assert {h.cluster for h in _restored(path, "--cluster", "lab").inventory.hosts} == {"lab"}


def test_a_node_list_in_the_traces_own_cluster_has_no_cluster_row(tmp_path: Path) -> None:
    """Without ``--cluster`` the sheet holds no cluster row and the nodes come back in the
    trace's own cluster, as from a workbook written before the row existed."""
    path = _workbook(tmp_path)
    kinds = [r[0] for r in load_workbook(path)[PLAN_INPUTS_SHEET].iter_rows(values_only=True)]
    assert "cluster" not in kinds
    assert read_plan_inputs(path).cluster is None
    hosts = _restored(path).inventory.hosts
    assert {h.cluster for h in hosts} == {alibaba_trace.CLUSTER}


def test_a_cluster_row_beside_a_planner_csv_is_listed_and_ignored(tmp_path: Path) -> None:
    """A cluster row in a workbook whose stored inventory is a planner CSV (it names each
    host's cluster, here the bundled sample's) changes no host: the row is listed as a problem
    naming its row and column."""
    book = Workbook()
    sample, _ = scenario_from_args(build_parser().parse_args(["plan"]))
    write_inputs_sheet(book, sample)
    sheet = book[PLAN_INPUTS_SHEET]
    sheet.append(("cluster", "inventory.csv", "prod"))
    path = tmp_path / "plan.xlsx"
    book.save(path)
    restored = read_plan_inputs(path)
    assert restored.cluster is None
    [problem] = restored.problems
    assert (problem.row, problem.column) == (sheet.max_row, "value")
    assert "names each host's cluster: row ignored" in problem.message
    clusters = {h.cluster for h in restored.scenario().value.inventory.hosts}
    assert clusters == {h.cluster for h in sample.inventory.hosts}


def test_a_node_list_loads_in_the_cluster_a_workbook_gives(tmp_path: Path) -> None:
    """``load_hosts`` given the cluster a plan workbook keeps puts every node of a trace node
    list in it, its note naming the workbook's inputs sheet as the source in place of the
    assumed cluster's; a planner CSV names each host's cluster, so it is left as it is."""
    path = _workbook(tmp_path, "--cluster", "prod")
    given = read_plan_inputs(path).given_cluster("plan.xlsx")
    assert given is not None
    loaded = load_hosts(("nodes.csv", TRACE_NODES.encode()), load_catalog(), cluster=given)
    assert {h.cluster for h in loaded.value.inventory.hosts} == {"prod"}
    [note] = [n for n in loaded.value.notes if n.field == "cluster"]
    assert (note.file, note.value, note.source) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        "prod",
        "read",
    )
    sample = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
    planner_csv = load_hosts(("inventory.csv", sample), load_catalog(), cluster=given)
    assert "prod" not in {h.cluster for h in planner_csv.value.inventory.hosts}
    assert read_plan_inputs(_workbook(tmp_path)).given_cluster() is None


TRACE_PODS = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
    "pod-0,8000,16384,1,500,\npod-1,8000,16384,1,500,\npod-2,16000,65536,2,1000,G2\n"
)


def _dashboard_restore(workbook: bytes, page: str, upload: str) -> AppTest:
    """The dashboard with ``workbook`` uploaded on ``page`` and its whole plan restored."""
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S).run()
    at.switch_page(page).run()
    at.file_uploader(key=upload).set_value(
        ("plan.xlsx", workbook, "application/octet-stream")
    ).run()
    at.button(key=f"{upload}_restore").click().run()
    assert not at.exception
    return at


def test_the_dashboard_restores_a_trace_plan_in_its_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trace plan made with ``--cluster prod`` and restored on the dashboard plans its nodes
    in cluster prod, as the command line planned them: the Inventory page shows the cluster
    and says the workbook gave it, the plan's figures are the command line's, and the
    dashboard's own workbook keeps the cluster for the next restore."""
    nodes, pods, out = tmp_path / "nodes.csv", tmp_path / "pods.csv", tmp_path / "plan.xlsx"
    nodes.write_text(TRACE_NODES)
    pods.write_text(TRACE_PODS)
    given = ["--inventory", str(nodes), "--workloads", str(pods), "--cluster", "prod"]
    assert main(["plan", *given, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    at = _dashboard_restore(out.read_bytes(), "ui/pages/inventory.py", "inventory_upload")
    assert at.subheader[0].value == "In use: plan.xlsx inventory"
    hosts = next(df.value for df in at.dataframe if "cluster" in df.value.columns)
    assert set(hosts["cluster"]) == {"prod"}
    notes = next(df.value for df in at.dataframe if "why" in df.value.columns)
    given_by = notes[notes["field"] == "cluster"]
    assert list(given_by["value"]) == ["prod"]
    assert list(given_by["source"]) == ["read"]
    inputs = at.session_state[session._INPUTS_KEY]
    assert inputs.cluster is not None
    assert inputs.cluster.name == "prod"
    plan = planning.scenario_plan(inputs, session.Question())
    assert {h.cluster for h in plan.scenario.inventory.hosts} == {"prod"}
    for line in summary_lines(plan):
        assert line in printed
    again = read_plan_inputs(planning.workbook(inputs, session.Question()))
    assert again.cluster == "prod"


def test_a_dashboard_upload_of_a_new_inventory_forgets_the_cluster(tmp_path: Path) -> None:
    """Applying another inventory after a restored trace plan plans it as its file says: the
    restored node list's cluster is not carried over to it."""
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(TRACE_NODES)
    out = tmp_path / "plan.xlsx"
    assert main(["plan", "--inventory", str(nodes), "--cluster", "prod", "--out", str(out)]) == 0
    at = _dashboard_restore(out.read_bytes(), "ui/pages/inventory.py", "inventory_upload")
    at.file_uploader(key="inventory_upload").set_value(
        ("nodes.csv", TRACE_NODES.encode(), "text/csv")
    ).run()
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.session_state[session._INPUTS_KEY].cluster is None
    hosts = next(df.value for df in at.dataframe if "cluster" in df.value.columns)
    assert set(hosts["cluster"]) == {alibaba_trace.CLUSTER}


def test_a_dashboard_scenario_keeps_the_cluster_it_was_saved_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard's inputs of a trace plan restored in cluster prod, saved as a scenario and
    opened again, plan its nodes in prod: the saved scenario carries the cluster both ways."""
    from planner.store import ScenarioStore

    nodes, pods, out = tmp_path / "nodes.csv", tmp_path / "pods.csv", tmp_path / "plan.xlsx"
    nodes.write_text(TRACE_NODES)
    pods.write_text(TRACE_PODS)
    given = ["--inventory", str(nodes), "--workloads", str(pods), "--cluster", "prod"]
    assert main(["plan", *given, "--out", str(out)]) == 0
    at = _dashboard_restore(out.read_bytes(), "ui/pages/inventory.py", "inventory_upload")
    inputs = at.session_state[session._INPUTS_KEY]
    monkeypatch.setattr(session, "scenario_inputs", lambda: inputs)
    monkeypatch.setattr(session, "question", session.Question)
    store = ScenarioStore(tmp_path / "s.sqlite")
    store.save("restored", scenarios.saved_from_session())
    reopened, _ = scenarios.session_from_saved(store.open("restored"))
    assert reopened.cluster == inputs.cluster
    built = planning.build_scenario(reopened).scenario
    assert {h.cluster for h in built.inventory.hosts} == {"prod"}
