"""Tests of the ``scenarios`` command and ``plan --scenario``: the store from the command line."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from planner.cli import main
from planner.store import DB_ENV, ScenarioStore

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample"
OPTIONS = ["--methods", "vgpu", "passthrough"]
CONNECT = sqlite3.connect


def _out(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_saved_scenario_plans_like_its_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --scenario NAME` prints the same plan as `plan` given the saved files and options."""
    db = str(tmp_path / "s.sqlite")
    files = ["--workloads", str(SAMPLE / "workloads.csv"), "--pue", "1.2", "--vsphere", "7"]
    assert main(["scenarios", "save", "lab", *files, "--db", db]) == 0
    assert "Saved 'lab'" in _out(capsys)[0]
    assert main(["plan", *OPTIONS, *files]) == 0
    direct = _out(capsys)[0]
    assert main(["plan", *OPTIONS, "--scenario", "lab", "--db", db]) == 0
    assert _out(capsys)[0] == direct
    assert main(["plan", *OPTIONS]) == 0
    assert _out(capsys)[0] != direct  # the saved PUE and vSphere release changed the plan


def test_a_saved_purchase_on_top_of_the_inventory_plans_as_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario saved with --size, --add-to-inventory and --headroom plans as that question
    again with `plan --scenario` (a --headroom given beside it wins, 0 too); --headroom without
    --size is refused, nothing saved."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    half = tmp_path / "inventory.csv"
    lines = (SAMPLE / "inventory.csv").read_text().splitlines()
    half.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    asked = ["--inventory", str(half), "--size", "a16-vdi-8", "--add-to-inventory"]
    assert main(["scenarios", "save", "grow", *asked, "--headroom", "1", *db]) == 0
    _out(capsys)
    saved = ScenarioStore(tmp_path / "s.sqlite").open("grow")
    assert (saved.add_to_inventory, saved.headroom) == (True, 1)
    assert main(["plan", *OPTIONS, *asked, "--headroom", "1"]) == 0
    direct = _out(capsys)[0]
    assert main(["plan", *OPTIONS, "--scenario", "grow", *db]) == 0
    assert _out(capsys)[0] == direct
    # --headroom 0 given beside the scenario wins over its saved 1, as any option given does.
    assert main(["plan", *OPTIONS, *asked, "--headroom", "0"]) == 0
    without = _out(capsys)[0]
    assert without != direct
    assert main(["plan", *OPTIONS, "--scenario", "grow", "--headroom", "0", *db]) == 0
    assert _out(capsys)[0] == without
    assert main(["scenarios", "save", "no type", "--headroom", "1", *db]) != 0
    assert "--size" in _out(capsys)[1]
    assert "no type" not in ScenarioStore(tmp_path / "s.sqlite").names()


def test_the_database_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --db, GPU_PLANNER_DB names the file the command uses."""
    monkeypatch.setenv(DB_ENV, str(tmp_path / "env.sqlite"))
    assert main(["scenarios", "save", "from env"]) == 0
    assert ScenarioStore(tmp_path / "env.sqlite").names() == ("from env",)


def test_list_duplicate_rename_delete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each action changes the store and says what it did; list shows names and files."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    assert main(["scenarios", "list", *db]) == 0
    assert "No scenario is saved" in _out(capsys)[0]
    assert main(["scenarios", "save", "base", *db]) == 0
    assert main(["scenarios", "duplicate", "base", "copy", *db]) == 0
    assert main(["scenarios", "rename", "copy", "renamed", *db]) == 0
    _out(capsys)
    assert main(["scenarios", "list", *db]) == 0
    listed = _out(capsys)[0].splitlines()
    assert [line.split("\t")[0] for line in listed] == ["base", "renamed"]
    assert "inventory.csv · workloads.csv" in listed[0]
    assert main(["scenarios", "delete", "base", *db]) == 0
    assert ScenarioStore(tmp_path / "s.sqlite").names() == ("renamed",)


def test_store_mistakes_exit_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing name, a taken name, and options --scenario would ignore: exit 2, nothing done."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    assert main(["plan", "--scenario", "ghost", *db]) == 2
    assert "no scenario named 'ghost'" in _out(capsys)[1]
    assert main(["scenarios", "save", "base", *db]) == 0
    assert main(["scenarios", "save", "base", *db]) == 2
    assert "already saved" in _out(capsys)[1]
    assert main(["scenarios", "save", "base", "--replace", "--pue", "2", *db]) == 0
    assert main(["plan", "--scenario", "base", "--pue", "1.3", *db]) == 2
    assert "--pue would be ignored" in _out(capsys)[1]
    assert main(["scenarios", "delete", "ghost", *db]) == 2
    assert ScenarioStore(tmp_path / "s.sqlite").open("base").assumptions.pue == 2.0


def test_an_unusable_file_is_not_saved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Saving checks the files plan: a non-CSV inventory is refused with the problem, not saved."""
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    db = tmp_path / "s.sqlite"
    assert main(["scenarios", "save", "bad", "--inventory", str(bad), "--db", str(db)]) == 2
    assert "bad.csv" in _out(capsys)[1]
    assert ScenarioStore(db).names() == ()


def test_a_saved_server_type_sizes_a_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario saved with --size sizes that server type when planned."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    assert main(["scenarios", "save", "size", "--size", "L40S:4:64:768", *db]) == 0
    assert main(["plan", *OPTIONS, "--scenario", "size", *db]) == 0
    assert "Sizing servers of 4× L40S" in _out(capsys)[0]


def test_catalog_server_types_are_saved_by_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Server types named from the catalog are saved whole, so the saved sizing never changes."""
    db = tmp_path / "s.sqlite"
    assert main(["scenarios", "save", "buy", "--size", "catalog", "--db", str(db)]) == 0
    servers = ScenarioStore(db).open("buy").servers
    assert len(servers) > 1
    assert all(s.name for s in servers)


@pytest.mark.parametrize(
    "option",
    [
        ["--cluster", "prod"],
        ["--host-name", "gpu9"],
        ["--cluster-gpus", "prod=L40S:4"],
        ["--group-by", "app"],
        ["--from-workbook", "plan.xlsx"],
    ],
)
def test_an_import_option_a_scenario_cannot_keep_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    """A saved scenario keeps its files as given and its assumptions: an import option given
    to save would be lost, so it is refused naming it, exit 2, nothing saved."""
    db = tmp_path / "s.sqlite"
    assert main(["scenarios", "save", "lab", *option, "--db", str(db)]) == 2
    err = _out(capsys)[1]
    assert f"{option[0]} would be lost" in err
    assert ScenarioStore(db).names() == ()


def test_strict_saves_nothing_when_a_row_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --strict, a workload row that cannot be used stops the save, exit 2; without it the
    scenario is saved and the row listed."""
    header, first, *rest = (SAMPLE / "workloads.csv").read_text().splitlines()
    name, kind, _, *tail = first.split(",")
    broken = tmp_path / "mix.csv"
    broken.write_text("\n".join([header, ",".join([name, kind, "many", *tail]), *rest]) + "\n")
    db = tmp_path / "s.sqlite"
    given = ["--workloads", str(broken), "--db", str(db)]
    assert main(["scenarios", "save", "lab", "--strict", *given]) == 2
    assert "--strict: stopped" in _out(capsys)[1]
    assert ScenarioStore(db).names() == ()
    assert main(["scenarios", "save", "lab", *given]) == 0
    assert "mix.csv, row 2, column 'instances'" in _out(capsys)[1]
    assert ScenarioStore(db).names() == ("lab",)


def _database_full(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    """A connection whose database cannot grow by a page, as on a full disk (SQLITE_FULL)."""
    db: sqlite3.Connection = CONNECT(*args, **kwargs)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    return db


def test_a_full_disk_stops_a_save_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scenarios save` (and duplicate) on a full disk exits 1, as README says of an output that
    cannot be written, naming the database, the full disk, that nothing was changed and the
    fix; the scenario saved before is kept as it was."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    assert main(["scenarios", "save", "base", *db]) == 0
    _out(capsys)
    before = ScenarioStore(tmp_path / "s.sqlite").open("base")
    monkeypatch.setattr(sqlite3, "connect", _database_full)
    for command in (
        ["save", "more", "--pue", "1.7"],
        ["duplicate", "base", "copy"],
    ):
        assert main(["scenarios", *command, *db]) == 1
        said = _out(capsys)[1]
        assert f"scenarios: cannot write the scenario database {tmp_path / 's.sqlite'}" in said
        assert "the disk holding it is full; nothing in the database was changed" in said
        assert "Traceback" not in said
    monkeypatch.setattr(sqlite3, "connect", CONNECT)
    store = ScenarioStore(tmp_path / "s.sqlite")
    assert store.names() == ("base",)
    assert store.open("base") == before


def test_a_read_only_folder_stops_a_save_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scenarios save` beside a database whose folder is not writable exits 1 naming the
    folder, that it is not writable, that the database was left untouched and the fix."""
    db = tmp_path / "s.sqlite"
    assert main(["scenarios", "save", "base", "--db", str(db)]) == 0
    _out(capsys)

    def read_only(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        # Root ignores permissions, so the folder's refusal is SQLite's read-only answer.
        opened: sqlite3.Connection = CONNECT(f"file:{db}?mode=ro", uri=True, **kwargs)
        return opened

    monkeypatch.setattr(sqlite3, "connect", read_only)
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != tmp_path)
    assert main(["scenarios", "save", "more", "--db", str(db)]) == 1
    said = _out(capsys)[1]
    assert f"its folder {tmp_path} is not writable" in said
    assert "the database was left untouched" in said
    assert "Traceback" not in said
    monkeypatch.undo()
    assert ScenarioStore(db).names() == ("base",)


def test_a_trace_node_lists_cluster_is_saved_and_planned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`scenarios save --cluster prod` with a trace node list (which has no column for a
    cluster) keeps the cluster: the saved scenario puts every node in prod and `plan --scenario`
    prints the plan `plan --cluster prod` prints; beside a planner CSV, which names each
    host's cluster, --cluster is still refused as lost."""
    nodes, pods = tmp_path / "nodes.csv", tmp_path / "pods.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu,model\nnode-0,64000,262144,2,T4\n")
    pods.write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\npod-0,8000,16384,1,500,\n"
    )
    db = ["--db", str(tmp_path / "s.sqlite")]
    given = ["--inventory", str(nodes), "--workloads", str(pods), "--cluster", "prod"]
    assert main(["scenarios", "save", "trace", *given, *db]) == 0
    _out(capsys)
    saved = ScenarioStore(tmp_path / "s.sqlite").open("trace")
    assert saved.cluster is not None
    assert saved.cluster.name == "prod"
    assert {h.cluster for h in saved.scenario()[0].inventory.hosts} == {"prod"}
    assert main(["plan", *OPTIONS, *given]) == 0
    direct = _out(capsys)[0]
    assert main(["plan", *OPTIONS, "--scenario", "trace", *db]) == 0
    assert _out(capsys)[0] == direct
    assert main(["scenarios", "save", "csv", "--cluster", "prod", *db]) == 2
    assert "--cluster would be lost" in _out(capsys)[1]
