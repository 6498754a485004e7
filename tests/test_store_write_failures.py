"""Tests of the scenario store when its file cannot be written: a full disk, a read-only folder
or file. Each change is undone whole and the error says which file, why and what to do."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.store import SavedFile, SavedScenario, ScenarioStore, StoreWriteError

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"
CONNECT = sqlite3.connect


def _sample() -> SavedScenario:
    return SavedScenario(
        inventory=SavedFile("inventory.csv", (SAMPLE / "inventory.csv").read_bytes()),
        workloads=SavedFile("workloads.csv", (SAMPLE / "workloads.csv").read_bytes()),
    )


def _full_disk(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    """A connection whose database cannot grow by a page: SQLite answers a write needing one
    as it answers a full disk (SQLITE_FULL)."""
    db: sqlite3.Connection = CONNECT(*args, **kwargs)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    return db


def _read_only(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    """A connection SQLite may only read, as a file it is not allowed to write (root ignores
    file permissions, so they cannot be tested with chmod)."""
    path = Path(str(args[0])).resolve()
    db: sqlite3.Connection = CONNECT(f"file:{path}?mode=ro", uri=True, **kwargs)
    return db


@pytest.fixture
def store(tmp_path: Path) -> ScenarioStore:
    saved = ScenarioStore(tmp_path / "s.sqlite")
    saved.save("base", _sample())
    return saved


def _every_change(store: ScenarioStore) -> list[Callable[[], object]]:
    # Larger than the one it replaces, so the replacement needs pages the deletion does not free.
    larger = dataclasses.replace(_sample(), own_gpus=SavedFile("gpus.csv", b"model\n" * 20_000))
    return [
        lambda: store.save("new", _sample()),
        lambda: store.save("base", larger, replace=True),
        lambda: store.duplicate("base", "copy"),
    ]


def test_a_full_disk_changes_nothing_and_says_so(
    store: ScenarioStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the disk fills up during a save, a replace or a copy, the error names the database,
    says the disk is full and nothing was changed, and how to fix it; the database holds what it
    held (SQLite's own undo is not hidden by a second 'no transaction is active' error)."""
    monkeypatch.setattr(sqlite3, "connect", _full_disk)
    for change in _every_change(store):
        with pytest.raises(StoreWriteError) as refused:
            change()
        message = str(refused.value)
        assert str(store.path) in message
        assert "the disk holding it is full" in message
        assert "nothing in the database was changed" in message
        assert "Free space on that disk" in message
        assert "no transaction" not in message
    monkeypatch.setattr(sqlite3, "connect", CONNECT)
    assert store.names() == ("base",)
    assert store.open("base") == _sample()


def test_a_read_only_folder_leaves_the_database_untouched(
    store: ScenarioStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the database's folder is not writable (SQLite writes its journal files beside the
    file), the error names the folder, says it is not writable and the database was left
    untouched, and says to choose a file in a writable folder."""
    folder = store.path.parent
    monkeypatch.setattr(sqlite3, "connect", _read_only)
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != folder)
    for change in _every_change(store):
        with pytest.raises(StoreWriteError) as refused:
            change()
        message = str(refused.value)
        assert f"its folder {folder} is not writable" in message
        assert "the database was left untouched" in message
        assert "--db) to a file in a writable folder" in message
    monkeypatch.undo()
    assert store.names() == ("base",)
    assert store.open("base") == _sample()


def test_a_read_only_file_is_named_as_such(
    store: ScenarioStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database file that may not be written in a writable folder is said to be read-only,
    not its folder."""
    monkeypatch.setattr(sqlite3, "connect", _read_only)
    with pytest.raises(StoreWriteError, match="the file is read-only; it was left untouched"):
        store.delete("base")
    monkeypatch.undo()
    assert store.names() == ("base",)
