"""Tests of the scenario store: exact round trips, listing and editing, names, versions, writers."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from planner.assumptions import Assumptions, Network, VgpuMode, VsphereVersion
from planner.cli import summary_lines
from planner.inputs import alibaba_trace
from planner.inputs.inventory import ServerType
from planner.methods.registry import Method
from planner.output.report import plan_scenario
from planner.scenario import GivenCluster
from planner.store import (
    DB_ENV,
    SCHEMA_VERSION,
    SavedFile,
    SavedHarvest,
    SavedScenario,
    ScenarioExistsError,
    ScenarioNotFoundError,
    ScenarioStore,
    StoreError,
    check_name,
    default_store_path,
)
from planner.time.harvesting import HarvestSettings

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample"


def _sample() -> SavedScenario:
    return SavedScenario(
        inventory=SavedFile("inventory.csv", (SAMPLE / "inventory.csv").read_bytes()),
        workloads=SavedFile("workloads.csv", (SAMPLE / "workloads.csv").read_bytes()),
    )


def _edited() -> SavedScenario:
    """The sample with every kind of input changed: assumptions, MIG choice, a server type."""
    assumptions = dataclasses.replace(
        Assumptions(),
        vgpu_mode=VgpuMode.MIXED_SIZE,
        vsphere_version=VsphereVersion.V7,
        licence_usd_per_gpu_year=4321.1,
        power_usd_per_kwh=0.1 + 0.2,  # 0.30000000000000004: floats must survive exactly
        gpu_price_usd={"L40S": 7777.7},
        network=Network(latency_us=35.5, rdma=False),
        max_slowdown=2.25,
        performance_constants={"no_rdma_factor": 3.0},
    )
    return dataclasses.replace(
        _sample(),
        assumptions=assumptions,
        mig_clusters=("dev-inference",),
        servers=(ServerType(gpu_model="H100-80GB-SXM", gpus=8, cpu_cores=112, ram_gib=2048),),
        add_to_inventory=True,
        headroom=1,
        harvest=SavedHarvest(
            settings=HarvestSettings(
                backlog_gpu_hours_per_day=0.1 + 0.2,
                submit_hour=20.0,
                gpus_per_job=2,
                gpu_hours_per_job=3.5,
                checkpointing=False,
                submit_days=(0, 6),
                resolution_minutes=15,
            ),
            given_pool=True,
            pool_gpus=48,
            curve="paste",
            curve_values="0.1,0.2,0.3\n" * 8,
        ),
    )


@pytest.fixture
def store(tmp_path: Path) -> ScenarioStore:
    return ScenarioStore(tmp_path / "scenarios.sqlite")


def test_a_saved_scenario_reopens_equal(store: ScenarioStore) -> None:
    """Files (bytes), assumptions (floats, enums, maps), MIG choice and server read back equal."""
    saved = _edited()
    store.save("edited", saved)
    reopened = store.open("edited")
    assert reopened == saved
    assert reopened.assumptions.power_usd_per_kwh == 0.1 + 0.2
    assert isinstance(reopened.assumptions.vgpu_mode, VgpuMode)


def test_a_reopened_scenario_plans_identically(store: ScenarioStore) -> None:
    """The scenario built from a reopened save is equal to the original's, and so is its plan."""
    saved = _edited()
    store.save("plan me", saved)
    before, before_problems = saved.scenario()
    after, after_problems = ScenarioStore(store.path).open("plan me").scenario()
    assert after == before
    assert after_problems == before_problems
    methods = (Method("vgpu"), Method("passthrough"))
    assert summary_lines(plan_scenario(after, methods=methods)) == summary_lines(
        plan_scenario(before, methods=methods)
    )


def test_saved_mig_choice_reaches_the_scenario() -> None:
    """MIG clusters saved with the scenario set which hosts have MIG enabled."""
    none_chosen = dataclasses.replace(_sample(), mig_clusters=())
    scenario, _ = none_chosen.scenario()
    assert not any(h.mig_enabled for h in scenario.inventory.hosts)


def test_list_duplicate_rename_delete(store: ScenarioStore) -> None:
    """Scenarios list by name; a copy is independent; renaming keeps the content; delete forgets."""
    store.save("b plan", _sample())
    store.save("A plan", _edited())
    assert store.names() == ("A plan", "b plan")
    store.duplicate("A plan", "A copy")
    assert store.open("A copy") == store.open("A plan")
    store.rename("A plan", "Z plan")
    assert store.names() == ("A copy", "b plan", "Z plan")
    assert store.open("Z plan") == _edited()
    store.delete("A copy")
    assert "A copy" not in store
    assert store.open("Z plan") == _edited()
    summary = store.summaries()[0]
    assert (summary.name, summary.inventory_name) == ("b plan", "inventory.csv")


def test_taken_and_missing_names_are_refused(store: ScenarioStore) -> None:
    """Saving over a name needs replace; copying or renaming onto it fails; a missing name too."""
    store.save("one", _sample())
    store.save("two", _sample())
    with pytest.raises(ScenarioExistsError, match="'one' is already saved"):
        store.save("one", _edited())
    assert store.open("one") == _sample()
    store.save("one", _edited(), replace=True)
    assert store.open("one") == _edited()
    with pytest.raises(ScenarioExistsError):
        store.duplicate("one", "two")
    with pytest.raises(ScenarioExistsError):
        store.rename("one", "two")
    for call in (store.open, store.delete, lambda n: store.rename(n, "x")):
        with pytest.raises(ScenarioNotFoundError, match="no scenario named 'ghost'"):
            call("ghost")


@pytest.mark.parametrize(
    "name",
    [
        "Robert'); DROP TABLE scenario;--",
        "../../etc/passwd",
        "<script>alert(1)</script>",
        "a&b=c?d#e%20f+g",
        "GPU 🚀 plan — Q3",
        "x" * 100,
    ],
)
def test_hostile_names_are_stored_as_given(store: ScenarioStore, name: str) -> None:
    """Quotes, SQL, paths, markup, URL characters and emoji are plain text in a name."""
    store.save(name, _sample())
    store.save("other", _sample())
    assert name in store.names()
    assert store.open(name) == _sample()
    assert len(store.names()) == 2


@pytest.mark.parametrize(
    ("name", "why"),
    [("", "empty"), ("   ", "empty"), ("x" * 101, "at most 100"), ("a\nb", "control")],
)
def test_unusable_names_are_refused_with_the_reason(
    store: ScenarioStore, name: str, why: str
) -> None:
    """Empty, too long and control characters are refused with the rule."""
    with pytest.raises(StoreError, match=why):
        store.save(name, _sample())
    assert store.names() == ()


def test_one_name_typed_two_ways_is_one_scenario(store: ScenarioStore) -> None:
    """Names are trimmed and NFC-normalised: 'é' composed or decomposed is the same scenario."""
    store.save("  café ", _sample())
    assert check_name("cafe\u0301") == "café"
    assert store.open("cafe\u0301") == _sample()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    """A file written by a newer schema is not read (its layout is unknown), with the fix."""
    path = tmp_path / "new.sqlite"
    ScenarioStore(path)
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer planner"):
        ScenarioStore(path)


_LAYOUT_1 = """
CREATE TABLE scenario (
    name TEXT PRIMARY KEY, saved_at TEXT NOT NULL, inventory_name TEXT NOT NULL,
    inventory BLOB NOT NULL, workloads_name TEXT NOT NULL, workloads BLOB NOT NULL,
    own_gpus_name TEXT, own_gpus BLOB, assumptions TEXT NOT NULL, mig_clusters TEXT,
    servers TEXT NOT NULL
)
"""
"""The table as the planner wrote it before harvest settings were saved (layout 1)."""


def test_a_database_saved_before_harvest_settings_opens_and_upgrades(tmp_path: Path) -> None:
    """A layout-1 file keeps its scenarios: they reopen with no harvest settings (the page's
    defaults), and new saves in the same file keep theirs."""
    path = tmp_path / "old.sqlite"
    sample = _sample()
    with sqlite3.connect(path) as db:
        db.execute(_LAYOUT_1)
        db.execute(
            "INSERT INTO scenario VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, '[]')",
            (
                "old",
                "2026-01-01T00:00:00+00:00",
                sample.inventory.name,
                sample.inventory.content,
                sample.workloads.name,
                sample.workloads.content,
                '{"max_slowdown": 2.0}',
            ),
        )
        db.execute("PRAGMA user_version = 1")
    store = ScenarioStore(path)
    old = store.open("old")
    assert old.harvest is None
    assert (old.add_to_inventory, old.headroom) == (False, 0)
    assert old.assumptions.max_slowdown == 2.0
    assert old.inventory == sample.inventory
    store.save("new", _edited())
    assert store.open("new") == _edited()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_harvest_settings_reopen_equal(store: ScenarioStore) -> None:
    """The Harvesting page's settings come back as saved, floats exactly, days as a tuple."""
    store.save("h", _edited())
    harvest = store.open("h").harvest
    assert harvest is not None
    assert harvest == _edited().harvest
    assert harvest.settings.backlog_gpu_hours_per_day == 0.1 + 0.2
    assert harvest.settings.submit_days == (0, 6)
    store.duplicate("h", "h copy")
    assert store.open("h copy").harvest == harvest


def test_an_unknown_saved_setting_is_refused(store: ScenarioStore) -> None:
    """A saved assumption this planner does not know is an error, never silently dropped."""
    store.save("s", _sample())
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scenario SET assumptions = '{\"warp_drive\": 1}'")
    with pytest.raises(StoreError, match="warp_drive"):
        store.open("s")


@pytest.mark.parametrize(
    "purchase",
    ['{"headroom": 99}', '{"headroom": -1}', '{"headroom": "2"}', '{"add_to_inventory": 1}'],
)
def test_an_unusable_saved_purchase_is_refused(store: ScenarioStore, purchase: str) -> None:
    """A saved headroom out of range or of the wrong kind is an error naming the scenario."""
    store.save("s", _edited())
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scenario SET purchase = ?", (purchase,))
    with pytest.raises(StoreError, match="'s' cannot be read"):
        store.open("s")


def test_the_database_runs_in_wal_mode(store: ScenarioStore) -> None:
    """WAL lets readers and one writer work at once; it is a property of the file."""
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_concurrent_writers_lose_nothing(store: ScenarioStore) -> None:
    """Eight threads, each with its own store object, saving 10 scenarios each: all 80 are kept."""
    errors: list[BaseException] = []

    def write(worker: int) -> None:
        mine = ScenarioStore(store.path)
        try:
            for i in range(10):
                mine.save(f"w{worker}-{i}", _sample())
                mine.rename(f"w{worker}-{i}", f"worker {worker} #{i}")
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.names()) == 80


def test_another_process_reads_what_was_saved(store: ScenarioStore) -> None:
    """The store is a file: a new Python process opens the scenario equal."""
    store.save("kept", _edited())
    code = (
        "import sys; from planner.store import ScenarioStore; "
        "s = ScenarioStore(sys.argv[1]).open('kept'); "
        "print(s.assumptions.power_usd_per_kwh, s.mig_clusters, s.servers[0].gpus)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(store.path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["0.30000000000000004", "('dev-inference',)", "8"]


def test_the_path_is_a_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """GPU_PLANNER_DB names the file; without it the file is in the user's data directory."""
    monkeypatch.setenv(DB_ENV, str(tmp_path / "mine.sqlite"))
    assert default_store_path() == tmp_path / "mine.sqlite"
    monkeypatch.delenv(DB_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_store_path() == tmp_path / "data" / "gpu-share-planner" / "scenarios.sqlite"


def test_a_saved_trace_scenario_is_read_as_the_trace(store: ScenarioStore) -> None:
    """A scenario saved with Alibaba's trace lists (as the dashboard saves an import of them)
    reopens to the scenario their loader reads: the node list's hosts and models, the pod
    list's classes and its pods without GPU."""
    nodes = (
        b"sn,cpu_milli,memory_mib,gpu,model\nnode-0,32000,131072,2,T4\nnode-1,96000,393216,8,G2\n"
    )
    pods = (
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        b"pod-0,4000,8192,1,500,\npod-1,2000,4096,0,0,\n"
    )
    store.save("trace", SavedScenario(SavedFile("nodes.csv", nodes), SavedFile("pods.csv", pods)))
    scenario, problems = store.open("trace").scenario()
    assert problems == ()
    assert [h.name for h in scenario.inventory.hosts] == ["node-0", "node-1"]
    assert "G2" in scenario.catalog.gpus
    assert [w.instances for w in scenario.workloads] == [1]
    assert [w.instances for w in scenario.cpu_only] == [1]


def test_a_trace_node_lists_cluster_is_saved_with_it(store: ScenarioStore) -> None:
    """A trace node list saved with the cluster it is planned in (as a restored plan workbook
    gives it; the list has no column for one) reopens with it, and its scenario puts every
    node there; a scenario saved without one keeps the trace's own cluster."""
    nodes = b"sn,cpu_milli,memory_mib,gpu,model\nnode-0,32000,131072,2,T4\n"
    pods = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\npod-0,4000,8192,1,500,\n"
    given = GivenCluster("prod", "plan.xlsx [Planner inputs]", "the cluster planned in")
    saved = SavedScenario(SavedFile("nodes.csv", nodes), SavedFile("pods.csv", pods))
    store.save("in prod", dataclasses.replace(saved, cluster=given))
    store.save("own", saved)
    reopened = store.open("in prod")
    assert reopened.cluster == given
    assert {h.cluster for h in reopened.scenario()[0].inventory.hosts} == {"prod"}
    assert store.open("own").cluster is None
    own = {h.cluster for h in store.open("own").scenario()[0].inventory.hosts}
    assert own == {alibaba_trace.CLUSTER}
