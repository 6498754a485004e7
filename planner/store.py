"""Named scenarios in an embedded SQLite file: saved, listed, reopened, copied, renamed, deleted.

A saved scenario holds the inputs exactly as the user gave them (file names and bytes, never
evaluated), the assumptions, the question and the Harvesting page's settings, so reopening it
plans identically. The database is a single file (``default_store_path``: ``$GPU_PLANNER_DB``,
else the user's data directory); it runs in WAL mode and every change is one short transaction,
so several dashboard sessions and command lines may write at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import types
import typing
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from planner.assumptions import Assumptions, lift_method_settings
from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import ServerType, with_mig_clusters
from planner.inputs.problems import InputProblem
from planner.scenario import GivenCluster, Scenario, load_scenario
from planner.solve.headroom import MAX_HEADROOM
from planner.time.harvesting import HarvestSettings

__all__ = [
    "DB_ENV",
    "MAX_NAME_LENGTH",
    "SCHEMA_VERSION",
    "SavedFile",
    "SavedHarvest",
    "SavedScenario",
    "ScenarioExistsError",
    "ScenarioNotFoundError",
    "ScenarioStore",
    "ScenarioSummary",
    "StoreError",
    "StoreWriteError",
    "check_name",
    "default_store_path",
]

DB_ENV = "GPU_PLANNER_DB"
"""Environment variable naming the scenario database file."""
SCHEMA_VERSION = 4
"""Layout of the database, kept in SQLite's ``user_version``; a newer file is refused, an older
one upgraded in place (layout 2 added the harvest settings, layout 3 the purchase question,
layout 4 a trace node list's cluster; older rows have none)."""
MAX_NAME_LENGTH = 100
"""Longest scenario name [characters]."""
BUSY_TIMEOUT_MS = 10_000
"""How long a writer waits for another writer's transaction to finish [ms]."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenario (
    name TEXT PRIMARY KEY,
    saved_at TEXT NOT NULL,
    inventory_name TEXT NOT NULL,
    inventory BLOB NOT NULL,
    workloads_name TEXT NOT NULL,
    workloads BLOB NOT NULL,
    own_gpus_name TEXT,
    own_gpus BLOB,
    assumptions TEXT NOT NULL,
    mig_clusters TEXT,
    servers TEXT NOT NULL,
    harvest TEXT,
    purchase TEXT,
    cluster TEXT
)
"""
_UPGRADES = {
    1: "ALTER TABLE scenario ADD COLUMN harvest TEXT",
    2: "ALTER TABLE scenario ADD COLUMN purchase TEXT",
    3: "ALTER TABLE scenario ADD COLUMN cluster TEXT",
}
"""The statement that brings a database of layout N to layout N + 1."""
_COLUMNS = (
    "name, saved_at, inventory_name, inventory, workloads_name, workloads, own_gpus_name, "
    "own_gpus, assumptions, mig_clusters, servers, harvest, purchase, cluster"
)


class StoreError(ValueError):
    """The store cannot do what was asked; the message says why and what to do."""


class StoreWriteError(StoreError):
    """The database file could not be written (a full disk, a read-only file or folder); the
    change asked was not made, so the database holds what it held before."""


class ScenarioNotFoundError(StoreError, KeyError):
    """No scenario has that name."""

    def __str__(self) -> str:
        return str(self.args[0])


class ScenarioExistsError(StoreError):
    """A scenario with that name is already saved."""


def default_store_path() -> Path:
    """``$GPU_PLANNER_DB`` when set, else ``scenarios.sqlite`` in the user's data directory
    (``$XDG_DATA_HOME/gpu-share-planner``, by default ``~/.local/share/gpu-share-planner``)."""
    given = os.environ.get(DB_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local/share")
    return Path(data_home) / "gpu-share-planner" / "scenarios.sqlite"


def check_name(name: str) -> str:
    """The scenario name as stored: trimmed and in Unicode NFC form, so one name typed two ways
    is one scenario. Raises ``StoreError`` for an empty or too long name, or one holding control
    characters (line breaks, tabs); any other character, quotes and slashes included, is kept."""
    cleaned = unicodedata.normalize("NFC", str(name)).strip()
    if not cleaned:
        raise StoreError("the scenario name is empty; give it a name such as 'Q3 budget'")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise StoreError(
            f"the scenario name has {len(cleaned)} characters; use at most {MAX_NAME_LENGTH}"
        )
    if any(unicodedata.category(c).startswith("C") for c in cleaned):
        raise StoreError(
            "the scenario name holds a control character (a line break or tab); "
            "use letters, digits, spaces and punctuation"
        )
    return cleaned


@dataclass(frozen=True)
class SavedFile:
    """An input file as the user gave it: its name and its bytes, never evaluated."""

    name: str
    content: bytes


@dataclass(frozen=True)
class SavedHarvest:
    """The Harvesting page's settings, as the user left them."""

    settings: HarvestSettings = field(default_factory=HarvestSettings)
    """The backlog and how its jobs run."""
    given_pool: bool = False
    """Harvest a pool of ``pool_gpus`` GPUs following ``curve``; False: the GPUs that serve the
    scenario's VDI desktops."""
    pool_gpus: int = 64
    """Size of the given pool [GPUs]."""
    curve: str = "own-schedule"
    """Desktop demand over the week: ``own-schedule`` (each VDI class's own), a preset of
    ``planner.time.demand.CURVE_PRESETS``, or ``paste`` (the values in ``curve_values``)."""
    curve_values: str = ""
    """24 or 168 shares or percents, as pasted or uploaded (a file's text is kept here)."""


@dataclass(frozen=True)
class SavedScenario:
    """Everything a plan is made from, as the user gave it."""

    inventory: SavedFile
    workloads: SavedFile
    assumptions: Assumptions = field(default_factory=Assumptions)
    own_gpus: SavedFile | None = None
    """The user's own GPU models (columns of ``gpus.csv``) added to the bundled catalog."""
    mig_clusters: tuple[str, ...] | None = None
    """Clusters whose MIG-capable hosts have MIG enabled, sorted; None: as the inventory says."""
    servers: tuple[ServerType, ...] = ()
    """Server types a new cluster is sized with (the plan may mix them); empty fits the mix to
    the inventory."""
    harvest: SavedHarvest | None = None
    """The Harvesting page's settings; None: the page's defaults (and scenarios saved before
    they were kept)."""
    add_to_inventory: bool = False
    """With ``servers``: buy them on top of the inventory rather than size a new cluster."""
    headroom: int = 0
    """With ``servers``: host failures each cluster tolerates (N+k) [hosts]."""
    cluster: GivenCluster | None = None
    """The cluster the nodes of ``inventory``, a trace node list, are planned in (the list has
    no column for one), with where it was given; None: the trace's own cluster."""

    def __post_init__(self) -> None:
        if not 0 <= self.headroom <= MAX_HEADROOM:
            raise ValueError(
                f"headroom must be 0 to {MAX_HEADROOM} host failures per cluster, "
                f"got {self.headroom}"
            )

    def scenario(self) -> tuple[Scenario, tuple[InputProblem, ...]]:
        """The scenario these inputs describe and the input rows that were skipped.

        Raises ``InputError`` when a file cannot be used at all.
        """
        own = self.own_gpus
        catalog = (
            load_catalog()
            if own is None
            else load_catalog(extra_gpus=own.content, extra_gpus_name=own.name)
        )
        loaded = load_scenario(
            (self.inventory.name, self.inventory.content),
            (self.workloads.name, self.workloads.content),
            catalog,
            self.assumptions,
            cluster=self.cluster,
        )
        scenario = loaded.value
        inventory = with_mig_clusters(scenario.inventory, self.mig_clusters, scenario.catalog)
        return dataclasses.replace(scenario, inventory=inventory), loaded.problems


@dataclass(frozen=True)
class ScenarioSummary:
    """One line of the list of saved scenarios."""

    name: str
    saved_at: datetime
    """When it was last saved (UTC)."""
    inventory_name: str
    workloads_name: str


class ScenarioStore:
    """The scenarios saved in one SQLite file (created, with its folder, on first use)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = default_store_path() if path is None else Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreWriteError(
                f"cannot create the folder of the scenario database {self.path}: "
                f"{error.strerror}; set {DB_ENV} to a writable file"
            ) from None
        with self._connection() as db:
            self._migrate(db)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection for one operation; closed afterwards (SQLite connections are cheap and
        must not cross threads)."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(
                f"cannot open the scenario database {self.path}: {error}; "
                f"set {DB_ENV} to a writable file"
            ) from None
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            yield db
        except sqlite3.DatabaseError as error:
            raise _failure(self.path, error) from None
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once so two writers never deadlock upgrading locks."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                _undo(db)
                raise

    def _migrate(self, db: sqlite3.Connection) -> None:
        # WAL: readers never block the writer and a crash mid-write leaves the last commit.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the scenario database {self.path} was written by a newer planner "
                    f"(layout {version}, this one reads {SCHEMA_VERSION}); upgrade the planner "
                    f"or set {DB_ENV} to another file"
                )
            if version == 0:
                db.execute(_SCHEMA)
            else:
                for step in range(version, SCHEMA_VERSION):
                    db.execute(_UPGRADES[step])
            if version < SCHEMA_VERSION:
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            _undo(db)
            raise

    def names(self) -> tuple[str, ...]:
        """Names of the saved scenarios, sorted ignoring case."""
        return tuple(s.name for s in self.summaries())

    def summaries(self) -> tuple[ScenarioSummary, ...]:
        """The saved scenarios, sorted by name ignoring case."""
        with self._connection() as db:
            rows = db.execute(
                "SELECT name, saved_at, inventory_name, workloads_name FROM scenario"
            ).fetchall()
        summaries = (
            ScenarioSummary(name, datetime.fromisoformat(saved_at), inventory, workloads)
            for name, saved_at, inventory, workloads in rows
        )
        return tuple(sorted(summaries, key=lambda s: (s.name.casefold(), s.name)))

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            key = check_name(name)
        except StoreError:
            return False
        with self._connection() as db:
            found = db.execute("SELECT 1 FROM scenario WHERE name = ?", (key,)).fetchone()
        return found is not None

    def save(self, name: str, scenario: SavedScenario, *, replace: bool = False) -> str:
        """Save ``scenario`` as ``name`` and return the name as stored.

        Raises ``ScenarioExistsError`` when the name is taken and ``replace`` is False.
        """
        key = check_name(name)
        row = (key, datetime.now(UTC).isoformat(), *_encode(scenario))
        verb = "INSERT OR REPLACE" if replace else "INSERT"
        with self._write() as db:
            try:
                db.execute(f"{verb} INTO scenario ({_COLUMNS}) VALUES ({_marks(len(row))})", row)
            except sqlite3.IntegrityError:
                raise ScenarioExistsError(
                    f"a scenario named '{key}' is already saved; choose another name or replace it"
                ) from None
        return key

    def open(self, name: str) -> SavedScenario:
        """The scenario saved as ``name``; ``ScenarioNotFoundError`` when there is none."""
        key = check_name(name)
        with self._connection() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM scenario WHERE name = ?", (key,)).fetchone()
        if row is None:
            raise ScenarioNotFoundError(self._not_found(key))
        return _decode(row[2:], key)

    def duplicate(self, name: str, new_name: str) -> str:
        """Save a copy of ``name`` as ``new_name``; returns the new name as stored."""
        source, target = check_name(name), check_name(new_name)
        with self._write() as db:
            if db.execute("SELECT 1 FROM scenario WHERE name = ?", (target,)).fetchone():
                raise ScenarioExistsError(
                    f"a scenario named '{target}' is already saved; choose another name"
                )
            copied = db.execute(
                f"INSERT INTO scenario ({_COLUMNS}) SELECT ?, ?, {_COLUMNS.split(', ', 2)[2]} "
                "FROM scenario WHERE name = ?",
                (target, datetime.now(UTC).isoformat(), source),
            ).rowcount
            if not copied:
                raise ScenarioNotFoundError(self._not_found(source))
        return target

    def rename(self, name: str, new_name: str) -> str:
        """Give ``name`` the name ``new_name``; returns the new name as stored."""
        source, target = check_name(name), check_name(new_name)
        if source == target:
            if source not in self:
                raise ScenarioNotFoundError(self._not_found(source))
            return target
        with self._write() as db:
            try:
                changed = db.execute(
                    "UPDATE scenario SET name = ? WHERE name = ?", (target, source)
                ).rowcount
            except sqlite3.IntegrityError:
                raise ScenarioExistsError(
                    f"a scenario named '{target}' is already saved; choose another name"
                ) from None
            if not changed:
                raise ScenarioNotFoundError(self._not_found(source))
        return target

    def delete(self, name: str) -> None:
        """Forget the scenario ``name``; ``ScenarioNotFoundError`` when there is none."""
        key = check_name(name)
        with self._write() as db:
            if not db.execute("DELETE FROM scenario WHERE name = ?", (key,)).rowcount:
                raise ScenarioNotFoundError(self._not_found(key))

    def _not_found(self, name: str) -> str:
        return f"no scenario named '{name}' is saved in {self.path}"


def _undo(db: sqlite3.Connection) -> None:
    """Roll back the transaction a failed change left open. SQLite has already undone one that a
    full disk or a disk error stopped (a ROLLBACK then fails, hiding the cause), and closing the
    connection undoes what a failed ROLLBACK leaves."""
    if db.in_transaction:
        with suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def _failure(path: Path, error: sqlite3.DatabaseError) -> StoreError:
    """The store's error for SQLite's ``error`` on the database ``path``: a write the disk or the
    file system refused is a ``StoreWriteError`` naming the cause and the fix. A change SQLite
    could not finish is undone whole, so each says the database was left as it was."""
    code = getattr(error, "sqlite_errorcode", 0)
    primary = code & 0xFF  # an extended result code's low byte is its primary code
    elsewhere = f"set {DB_ENV} (on the command line --db) to a file"
    if primary == sqlite3.SQLITE_FULL:
        return StoreWriteError(
            f"cannot write the scenario database {path}: the disk holding it is full; nothing in "
            f"the database was changed. Free space on that disk and try again, or {elsewhere} on "
            "another disk"
        )
    if code == sqlite3.SQLITE_READONLY_DIRECTORY or (
        primary in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN)
        and not os.access(path.parent, os.W_OK)
    ):
        return StoreWriteError(
            f"cannot write the scenario database {path}: its folder {path.parent} is not "
            "writable (SQLite writes its journal files beside the database); the database was "
            f"left untouched. Make the folder writable, or {elsewhere} in a writable folder"
        )
    if primary == sqlite3.SQLITE_READONLY:
        return StoreWriteError(
            f"cannot write the scenario database {path}: the file is read-only; it was left "
            f"untouched. Make the file writable, or {elsewhere} in a writable folder"
        )
    if primary == sqlite3.SQLITE_IOERR:
        return StoreWriteError(
            f"cannot write the scenario database {path}: the disk reported an error ({error}); "
            f"the change was not saved. Check the disk and try again, or {elsewhere} on another "
            "disk"
        )
    return StoreError(f"the scenario database {path} failed: {error}")


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def _encode(scenario: SavedScenario) -> tuple[object, ...]:
    own = scenario.own_gpus
    return (
        scenario.inventory.name,
        scenario.inventory.content,
        scenario.workloads.name,
        scenario.workloads.content,
        None if own is None else own.name,
        None if own is None else own.content,
        json.dumps(_plain(scenario.assumptions), sort_keys=True),
        None if scenario.mig_clusters is None else json.dumps(list(scenario.mig_clusters)),
        json.dumps(_plain(scenario.servers), sort_keys=True),
        None if scenario.harvest is None else json.dumps(_plain(scenario.harvest), sort_keys=True),
        json.dumps(
            {"add_to_inventory": scenario.add_to_inventory, "headroom": scenario.headroom},
            sort_keys=True,
        ),
        None if scenario.cluster is None else json.dumps(_plain(scenario.cluster), sort_keys=True),
    )


def _decode(row: tuple[Any, ...], name: str) -> SavedScenario:
    (inv_name, inv, work_name, work, own_name, own) = row[:6]
    (assumptions, mig, servers, harvest, bought, cluster) = row[6:]
    try:
        purchase = {} if bought is None else dict(json.loads(bought))
        return SavedScenario(
            inventory=SavedFile(inv_name, bytes(inv)),
            workloads=SavedFile(work_name, bytes(work)),
            own_gpus=None if own is None else SavedFile(own_name, bytes(own)),
            assumptions=_typed(Assumptions, lift_method_settings(json.loads(assumptions))),
            mig_clusters=None if mig is None else tuple(str(c) for c in json.loads(mig)),
            servers=tuple(_typed(ServerType, s) for s in json.loads(servers)),
            harvest=None if harvest is None else _typed(SavedHarvest, json.loads(harvest)),
            add_to_inventory=_typed(bool, purchase.get("add_to_inventory", False)),
            headroom=_typed(int, purchase.get("headroom", 0)),
            cluster=None if cluster is None else _typed(GivenCluster, json.loads(cluster)),
        )
    except (ValueError, TypeError, KeyError) as error:
        raise StoreError(
            f"the saved scenario '{name}' cannot be read ({error}); it was written by another "
            "version of the planner: delete it or save it again"
        ) from None


def _plain(value: object) -> Any:
    """A frozen dataclass (and its enums, mappings, nested dataclasses) as JSON-ready values.
    Floats stay floats: JSON writes their shortest exact text, so they read back equal."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _typed(kind: Any, value: Any) -> Any:
    """``value`` (from ``_plain``) back as ``kind``; a field missing from an older save takes
    its default, a field this planner does not know is refused (it would change the plan)."""
    if kind is Any:
        return value
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in typing.get_args(kind):
            return None
        options = [k for k in typing.get_args(kind) if k is not type(None)]
        return _typed(options[0], value)
    if origin is not None and issubclass(origin, Mapping):
        key_kind, value_kind = typing.get_args(kind)
        return {_typed(key_kind, k): _typed(value_kind, v) for k, v in dict(value).items()}
    if origin is tuple:
        return tuple(_typed(typing.get_args(kind)[0], v) for v in value)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(value)
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return _typed_dataclass(kind, value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{value!r} is not a number")
        return float(value)
    if kind in (int, bool, str) and type(value) is not kind:
        raise TypeError(f"{value!r} is not a {kind.__name__}")
    return value


def _typed_dataclass(kind: type[Any], value: Any) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"{kind.__name__} must be an object, got {value!r}")
    hints = typing.get_type_hints(kind)
    known = {f.name for f in dataclasses.fields(kind)}
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"{kind.__name__} has no setting {', '.join(unknown)}")
    return kind(**{name: _typed(hints[name], v) for name, v in value.items()})
