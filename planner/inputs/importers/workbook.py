"""The plan workbook's ``Planner inputs`` sheet: all it takes to restore the scenario, read back.

The sheet holds the inventory and workload CSV text as ``inventory_frame`` and
``workloads_frame`` write them (so they load back equal), or a list of Alibaba's GPU-sharing trace
as the user gave it (read back by the trace's loader), the user's own GPU models as a
``gpus.csv``-style CSV, and every field of ``Assumptions``, written generically from the
dataclass: enums by value, booleans ``yes``/``no``, floats as ``repr`` (exact), nested
dataclasses as ``network.latency_us``, mappings as ``gpu_price_usd[H100-80GB-SXM]``, and each
sharing method's setting by its own name (``mps_replicas``). Fields added to ``Assumptions`` and
settings added to methods later are written and read with no change here. Reading back, an
unknown name is a problem (not a crash) and a missing field keeps its default with a note; a
value that cannot be read, or that its assumption's rules refuse, is a problem naming its row,
and only that field keeps its default. A name given twice refuses the sheet, naming both rows:
which value is meant is not known.

Rows: a one-line note (row 1), a header (row 2: ``kind``, ``name``, ``value``), then one row per
item; a CSV longer than a cell holds (32,767 characters) continues over rows of the same name.
A ``check`` row after each file's rows (``parts of inventory.csv``) holds a digest of each of
its parts, in order (``3 parts, sha256: 0123456789abcdef ...``), so a part deleted or repeated
refuses the file, naming the rows, instead of a file restored short, and a part edited in place
is named as such. A workbook written before the
checks (format ``1``) keeps being read, with a note that its files could not be checked. A
``sheet`` row holds the size and a digest of each sheet that shows the inputs to the reader
(``Inventory``, ``Workloads``): the restore reads the stored files, never those sheets, and says
so when one of them was edited. A ``cluster`` row (name ``inventory.csv``) holds the cluster a
stored trace node list's nodes were planned in when it is not the trace's own: the list has no
column for one. A planner that predates the row lists it as an unknown row kind and ignores it.
``purchase`` rows hold a sizing's question: a ``server`` row per server type it may buy, in
order (a type of the server catalog by its name, another as ``--size`` takes it,
``MODEL:GPUS:CORES:RAM_GIB``), ``add_to_inventory`` (``yes``: bought on top of the inventory)
and ``headroom`` (host failures each cluster tolerates); a fit has none. A sizing keeps the
inventory it was asked with, which its plans do not use: possibly none, which is then restored
as none. A planner that predates the rows lists them as an unknown row kind and ignores them.
A ``methods`` row (name ``planned``) holds the sharing methods the plan was made with, in order
and as ``--methods`` takes them (``mig vgpu``), when they were not every method; a sheet without
it restores every method.
"""

from __future__ import annotations

import csv
import dataclasses
import enum
import hashlib
import io
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from planner.assumptions import (
    METHOD_SETTINGS,
    Assumptions,
    Fact,
    facts,
    performance_constant_facts,
)
from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog, GpuModel, load_catalog, own_gpus_template
from planner.inputs.importers.detect import PLAN_INPUTS_SHEET
from planner.inputs.importers.provenance import ImportNote
from planner.inputs.importers.sheets import (
    RowPastLastRowError,
    UnreadableCell,
    sheet_rows,
    workbook_sheets,
)
from planner.inputs.inventory import Inventory, ServerType, inventory_frame, server_type
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.servers import load_server_types
from planner.inputs.tabular import (
    CSV_TEXT,
    CellError,
    decode_file,
    parse_bool,
    parse_float,
    parse_int,
    quoted,
    shown,
    yes_no,
)
from planner.inputs.workloads import workloads_frame
from planner.methods.registry import Method
from planner.scenario import GivenCluster, LoadedHosts, Scenario, load_mix, load_scenario
from planner.solve.headroom import MAX_HEADROOM

__all__ = [
    "FORMAT_VERSION",
    "NOTE",
    "PLAN_INPUTS_SHEET",
    "PlanInputs",
    "assumption_rows",
    "assumptions_from_rows",
    "inputs_sheet_rows",
    "own_gpus_csv",
    "plan_inputs_of",
    "read_plan_inputs",
    "write_inputs_sheet",
]

NOTE = (
    "Read back by the planner (python -m planner plan --from-workbook, or the dashboard) to "
    "restore this plan's inputs and assumptions: do not edit by hand."
)
FORMAT_VERSION = "2"
"""``2``: each stored file has a ``check`` row; ``1`` (before the checks) is read too."""
_COLUMNS = ("kind", "name", "value")
"""The sheet's columns, as problems name them."""
_CHECK = re.compile(r"(\d+) parts?, sha256:((?: [0-9a-f]{16})+)")
"""A stored file's check (``_file_check``)."""
_CHECKED = "parts of "
"""What a check row's name puts before the file's name (a row named as the file is its text)."""
_PLANNED = "planned"
"""The name of the ``methods`` row."""
_SHEET_CHECK = re.compile(r"(\d+) rows?, sha256: ([0-9a-f]{16})")
"""A shown sheet's check (``_sheet_check``)."""
_CELL_LIMIT = 30_000
"""Characters per cell written (Excel holds 32,767)."""
_OWN_COLUMNS = tuple(next(csv.reader(io.StringIO(own_gpus_template()))))
"""The columns of the user's own GPU models: the template's, so every column the catalog reads
(``sms`` too) is kept."""


_CHOICES: Mapping[str, tuple[str, ...]] = {"today_method": tuple(m.value for m in Method)}
"""The text assumptions whose value is one of a fixed set, by sheet name: the sheet's text is
read as written (case and spaces too), as the planner matches it later."""


def _text(value: object) -> str:
    """An assumption value as the sheet holds it."""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, float):
        return repr(value)
    if value is None:
        return ""
    return str(value)


def assumption_rows(assumptions: Assumptions) -> list[tuple[str, str]]:
    """(name, value) for every field of ``assumptions``: nested dataclass fields as
    ``parent.field``, mapping entries as ``field[key]`` (sorted by key), the methods' settings
    by their own name (sorted)."""
    rows: list[tuple[str, str]] = []

    def walk(name: str, value: object) -> None:
        if name == METHOD_SETTINGS and isinstance(value, Mapping):
            rows.extend((key, _text(value[key])) for key in sorted(value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for item in dataclasses.fields(value):
                walk(f"{name}.{item.name}" if name else item.name, getattr(value, item.name))
        elif isinstance(value, Mapping):
            for key in sorted(value, key=str):
                rows.append((f"{name}[{key}]", _text(value[key])))
        else:
            rows.append((name, _text(value)))

    walk("", assumptions)
    return rows


def own_gpus_csv(catalog: Catalog, shipped: Catalog | None = None) -> str | None:
    """The models of ``catalog`` that are not in the shipped catalog, as the CSV
    ``load_catalog(extra_gpus=...)`` reads back to the same models; None when there are none.

    A model whose vGPU and MIG tables are a shipped model's (renamed) names it in
    ``profiles_like``, as the user's file did.
    """
    shipped = shipped or load_catalog()
    own = [m for name, m in catalog.gpus.items() if name not in shipped.gpus]
    if not own:
        return None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_OWN_COLUMNS)
    for model in own:
        like = _profiles_like(model, catalog, shipped)
        notes = model.notes
        if like:
            notes = notes.removesuffix(f"Profile tables as {like}.").strip()
        values = {
            **{f.name: getattr(model, f.name) for f in dataclasses.fields(GpuModel)},
            "notes": notes,
            "profiles_like": like or "",
        }
        writer.writerow([_text(values[c]) for c in _OWN_COLUMNS])
    return out.getvalue()


def _profiles_like(model: GpuModel, catalog: Catalog, shipped: Catalog) -> str | None:
    """The shipped model whose tables ``model`` shares: the one its notes name (``Profile tables
    as X.``, as ``load_catalog`` records it), else the first of the same memory and tables."""
    vgpu, migs = catalog.vgpu(model.name), catalog.mig(model.name)
    if not vgpu and not migs:
        return None
    named = re.search(r"Profile tables as (.+)\.$", model.notes)
    candidates = [named.group(1)] if named else []
    for name in [*candidates, *shipped.gpus]:
        template = shipped.gpus.get(name)
        if template is None or template.memory_gib != model.memory_gib:
            continue
        if [replace(p, gpu_model=name) for p in vgpu] == list(shipped.vgpu(name)) and [
            replace(p, gpu_model=name) for p in migs
        ] == list(shipped.mig(name)):
            return name
    return None


def _chunks(text: str) -> list[str]:
    return [text[i : i + _CELL_LIMIT] for i in range(0, len(text), _CELL_LIMIT)] or [""]


def _digest(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of ``text`` (line ends as ``\\n``: a program that
    saves them as CRLF changes no value)."""
    return hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()[:16]


def _file_check(parts: Sequence[str]) -> str:
    """The check row's value of a file stored in ``parts``: their count and digests, in order."""
    digests = " ".join(_digest(part) for part in parts)
    return f"{len(parts)} {'part' if len(parts) == 1 else 'parts'}, sha256: {digests}"


def inputs_sheet_rows(
    scenario: Scenario,
    given: Mapping[str, bytes] | None = None,
    *,
    servers: Sequence[ServerType] = (),
    add_to_inventory: bool = False,
    headroom: int = 0,
    methods: Sequence[Method] = (),
) -> list[tuple[str, str, str]]:
    """(kind, name, value) rows restoring ``scenario``: the format version, the inventory,
    workload and own-GPU CSV text (``file`` rows, split over rows when long, then the file's
    ``check`` row), the cluster a kept trace node list's nodes are in when it is not the trace's
    own (a ``cluster`` row: the list has no column for one), the sizing's question when
    ``servers`` names types to buy (``purchase`` rows: each server type, ``add_to_inventory``,
    ``headroom`` [host failures per cluster]), the sharing ``methods`` planned when they are not
    every method (a ``methods`` row), and every assumption (``assumption`` rows).

    ``given``: the input files as the user gave them, by the sheet's name for them
    (``inventory.csv``, ``workloads.csv``). One that is a list of Alibaba's GPU-sharing trace is
    written as given, to be read back by the trace's loader: the planner's CSV cannot hold what
    that loader makes of it (hosts without a network figure, pods without GPU).
    """
    rows = [("format", "planner inputs", FORMAT_VERSION)]
    files = {
        "inventory.csv": inventory_frame(scenario.inventory).to_csv(
            index=False, lineterminator="\n"
        ),
        "workloads.csv": workloads_frame(scenario.workloads).to_csv(
            index=False, lineterminator="\n"
        ),
    }
    kept = {
        name: data
        for name, is_list in (
            ("inventory.csv", alibaba_trace.is_node_list),
            ("workloads.csv", alibaba_trace.is_pod_list),
        )
        if (data := (given or {}).get(name)) is not None and is_list(data)
    }
    # Decoded as its loader decoded it (a UTF-16 list too); the sheet holds it as text.
    files.update({name: decode_file(data, name, CSV_TEXT) for name, data in kept.items()})
    shipped = load_catalog()
    if "inventory.csv" in kept:
        # A model the node list added comes back with it as the trace loader takes it; one the
        # user gave their own figures for is written with them.
        added = {
            name: model
            for name, model in scenario.catalog.gpus.items()
            if name not in shipped.gpus and model == alibaba_trace.trace_gpu_model(name)
        }
        shipped = dataclasses.replace(shipped, gpus={**shipped.gpus, **added})
    own = own_gpus_csv(scenario.catalog, shipped)
    if own is not None:
        files["my_gpus.csv"] = own
    for name, text in files.items():
        parts = _chunks(text)
        rows.extend(("file", name, part) for part in parts)
        rows.append(("check", f"{_CHECKED}{name}", _file_check(parts)))
    clusters = {h.cluster for h in scenario.inventory.hosts}
    if "inventory.csv" in kept and len(clusters) == 1 and clusters != {alibaba_trace.CLUSTER}:
        # The node list has no column for a cluster: the one its nodes were put in is kept here.
        rows.append(("cluster", "inventory.csv", clusters.pop()))
    if servers:
        named = {t.name: t for t in load_server_types(scenario.catalog).value}
        rows.extend(("purchase", "server", _server_text(s, named)) for s in servers)
        rows.append(("purchase", "add_to_inventory", yes_no(add_to_inventory)))
        rows.append(("purchase", "headroom", str(headroom)))
    if methods and set(methods) != set(Method):
        rows.append(("methods", _PLANNED, " ".join(m.value for m in dict.fromkeys(methods))))
    rows.extend(
        ("assumption", name, value) for name, value in assumption_rows(scenario.assumptions)
    )
    return rows


def _server_text(server: ServerType, named: Mapping[str, ServerType]) -> str:
    """A server type as ``--size`` names it: a type of the server catalog (``named``) by its
    name, another as ``MODEL:GPUS:CORES:RAM_GIB``."""
    if server.name and named.get(server.name) == server:
        return server.name
    return ":".join(
        (server.gpu_model, str(server.gpus), _text(server.cpu_cores), _text(server.ram_gib))
    )


def _cell_text(value: object) -> str:
    """A cell's value as a shown sheet's digest takes it: a number by its value (``64`` and
    ``64.0`` alike, as spreadsheets save either), anything else as its text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, (int, float)):
        return format(float(value), ".12g")
    return str(value)


def _sheet_lines(rows: Iterable[Sequence[object]]) -> list[str]:
    """A sheet's rows as lines of tab-separated cell texts, empty cells and rows at the ends
    left out (a spreadsheet saves them or not)."""
    lines = []
    for row in rows:
        cells = [_cell_text(v) for v in row]
        while cells and not cells[-1]:
            cells.pop()
        lines.append("\t".join(cells))
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _sheet_check(rows: Iterable[Sequence[object]]) -> str:
    """The ``sheet`` row's value of a shown sheet: its rows below the header, and a digest."""
    lines = _sheet_lines(rows)
    count = max(len(lines) - 1, 0)
    return f"{count} {'row' if count == 1 else 'rows'}, sha256: {_digest(chr(10).join(lines))}"


def write_inputs_sheet(
    book: Any,
    scenario: Scenario,
    given: Mapping[str, bytes] | None = None,
    *,
    shown_sheets: Sequence[str] = (),
    servers: Sequence[ServerType] = (),
    add_to_inventory: bool = False,
    headroom: int = 0,
    methods: Sequence[Method] = (),
) -> None:
    """Add the ``Planner inputs`` sheet, last, to an openpyxl workbook: the note, a header, and
    ``inputs_sheet_rows`` (``given``, the sizing's question and the methods as there), then a
    ``sheet`` row checking each of ``shown_sheets`` (titles of the book's sheets that show the
    inputs to the reader), so an edit made there is named on restore. Every cell is a plain
    string (never a formula)."""
    checks = [
        ("sheet", title, _sheet_check(book[title].iter_rows(values_only=True)))
        for title in shown_sheets
        if title in book.sheetnames
    ]
    sheet = book.create_sheet(PLAN_INPUTS_SHEET)
    rows: list[tuple[str, ...]] = [
        (NOTE,),
        _COLUMNS,
        *inputs_sheet_rows(
            scenario,
            given,
            servers=servers,
            add_to_inventory=add_to_inventory,
            headroom=headroom,
            methods=methods,
        ),
        *checks,
    ]
    for number, values in enumerate(rows, start=1):
        for column, value in enumerate(values, start=1):
            cell = sheet.cell(row=number, column=column)
            cell.value = value
            cell.data_type = "s"
    sheet.freeze_panes = "A2"  # the note stays in view
    sheet.column_dimensions["A"].width = 12
    sheet.column_dimensions["B"].width = 40
    sheet.column_dimensions["C"].width = 60


@dataclass(frozen=True)
class PlanInputs:
    """What a plan workbook's ``Planner inputs`` sheet restores: a scenario's files and
    assumptions, ready for ``load_catalog``, ``load_inventory`` and ``load_workloads``."""

    inventory_csv: bytes
    workloads_csv: bytes
    own_gpus_csv: bytes | None
    """The user's own GPU models (``load_catalog(extra_gpus=...)``); None when there were none."""
    assumptions: Assumptions
    cluster: str | None = None
    """The cluster the hosts of ``inventory_csv``, a node list of Alibaba's GPU-sharing trace,
    were planned in (given with ``--cluster``: the list has no column for one); None for the
    trace's own cluster, or another inventory file."""
    server_rows: tuple[tuple[int, str], ...] = ()
    """(row, text) of each server type the sizing may buy, as ``--size`` names it (``l40s-4``,
    ``H100-80GB-SXM:8:112:2048``), read by ``server_types``; none for a fit."""
    add_to_inventory: bool = False
    """The sizing buys its servers on top of the inventory rather than as a new cluster."""
    headroom: int = 0
    """Host failures each cluster of the sizing tolerates [hosts]."""
    methods: tuple[Method, ...] = tuple(Method)
    """The sharing methods the plan was made with, in order: every method when the sheet names
    none."""
    notes: tuple[ImportNote, ...] = ()
    """Fields missing from the sheet (their defaults kept)."""
    problems: tuple[InputProblem, ...] = ()
    """Names the sheet holds that this planner does not know, and values it cannot read or that
    their assumption's rules refuse (each such field keeps its default)."""

    def given_cluster(self, file_name: str = "plan.xlsx") -> GivenCluster | None:
        """``cluster`` as given by the workbook ``file_name``'s inputs sheet, for the note that
        its node list's nodes are in it; None when the sheet keeps none."""
        if self.cluster is None:
            return None
        return GivenCluster(
            self.cluster,
            f"{file_name} [{PLAN_INPUTS_SHEET}]",
            "the cluster the plan's node list was planned in",
        )

    @property
    def holds_no_host(self) -> bool:
        """The stored inventory has no host row (its header alone): a sizing asked with none."""
        text = self.inventory_csv.decode("utf-8", errors="replace")
        rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
        return len(rows) <= 1

    @property
    def sizes_new_cluster(self) -> bool:
        """The sheet asks to size a new cluster (server types, not bought on top of the
        inventory), which no host of the inventory is part of."""
        return bool(self.server_rows) and not self.add_to_inventory

    def server_types(
        self, catalog: Catalog, *, file_name: str = "plan.xlsx"
    ) -> Loaded[tuple[ServerType, ...]]:
        """The server types of ``server_rows`` with ``catalog``'s GPU models (the restored
        scenario's), in order, each once; a row naming no type of the server catalog, or a shape
        that breaks an inventory row's rules, is a problem and its row is ignored. Raises
        ``InputError`` when no row can be used: the sizing cannot be restored."""
        tab = f"{file_name} [{PLAN_INPUTS_SHEET}]"
        named = {t.name: t for t in load_server_types(catalog).value}
        servers: list[ServerType] = []
        problems: list[InputProblem] = []
        fix = "do not edit this sheet by hand, or give the server type with --size TYPE"
        for number, text in self.server_rows:
            if text in named:
                servers.append(named[text])
                continue
            parts = text.split(":")
            if len(parts) != 4:
                problems.append(
                    InputProblem(
                        tab,
                        number,
                        "value",
                        f"{quoted(text)} is no server type of the catalog ({', '.join(named)}) "
                        "nor MODEL:GPUS:CORES:RAM_GIB: row ignored, nothing is sized with it",
                        fix,
                    )
                )
                continue
            model, gpus, cores, ram_gib = parts
            try:
                servers.append(server_type(model, gpus, cores, ram_gib, catalog, source=tab))
            except InputError as error:
                problems.extend(
                    replace(
                        p,
                        row=number,
                        message=f"server type {quoted(text)}, {p.column}: {p.message}: row "
                        "ignored, nothing is sized with it",
                        column="value",
                    )
                    for p in error.problems
                )
        if self.server_rows and not servers:
            raise InputError(
                [
                    *problems,
                    InputProblem(
                        tab,
                        None,
                        None,
                        "no server type of the sizing can be used, so it is not restored",
                        "give the server types to size with: python -m planner plan "
                        f"--from-workbook {file_name} --size TYPE",
                    ),
                ]
            )
        return Loaded(tuple(dict.fromkeys(servers)), tuple(problems))

    def scenario(self, *, file_name: str = "plan.xlsx") -> Loaded[Scenario]:
        """The scenario these inputs describe, with the rows skipped while loading them (none
        for a workbook the planner wrote); a new cluster's sizing asked with no host has none.
        Raises ``InputError`` when a file cannot be used."""
        catalog = load_catalog(
            extra_gpus=self.own_gpus_csv, extra_gpus_name=f"{file_name} [my_gpus.csv]"
        )
        if self.holds_no_host and self.sizes_new_cluster:
            hosts = LoadedHosts(Inventory(hosts=()), catalog)
            mix = load_mix((f"{file_name} [workloads.csv]", self.workloads_csv), hosts)
            scenario = Scenario(
                catalog=catalog,
                inventory=hosts.inventory,
                workloads=mix.value.workloads,
                assumptions=self.assumptions,
                cpu_only=mix.value.cpu_only,
            )
            return Loaded(scenario, (*self.problems, *mix.problems))
        loaded = load_scenario(
            (f"{file_name} [inventory.csv]", self.inventory_csv),
            (f"{file_name} [workloads.csv]", self.workloads_csv),
            catalog,
            self.assumptions,
            cluster=self.given_cluster(file_name),
        )
        return Loaded(loaded.value, (*self.problems, *loaded.problems))


def read_plan_inputs(source: bytes | Path | str, *, file_name: str | None = None) -> PlanInputs:
    """The inputs a plan workbook (a path, or its bytes) was planned from.

    Raises ``InputError`` when it is not a workbook, has no ``Planner inputs`` sheet, or the
    sheet lacks the inventory or workload CSV or gives an assumption twice.
    """
    if isinstance(source, bytes):
        data, name = source, file_name or "plan.xlsx"
    else:
        name = file_name or Path(source).name
        try:
            data = Path(source).read_bytes()
        except OSError as error:
            raise InputError(
                [
                    InputProblem(
                        name,
                        None,
                        None,
                        f"cannot read the file ({error.strerror})",
                        "check the path",
                    )
                ]
            ) from None
    book = workbook_sheets(data, name, "give a plan workbook the planner wrote (.xlsx)")
    return plan_inputs_of(book, file_name=name)


def _inputs_rows(sheet: Any, tab: str) -> list[tuple[Any, ...]]:
    """The rows of a plan workbook's inputs sheet; ``InputError`` naming ``tab`` when it cannot
    be read to its end."""
    fix = "give the workbook as the planner wrote it"
    try:
        return list(sheet_rows(sheet))
    except RowPastLastRowError as error:
        raise InputError([InputProblem(tab, error.row, None, str(error), fix)]) from None
    except Exception:  # a damaged sheet raises zip or XML errors of many types
        raise InputError([InputProblem(tab, None, None, "the sheet cannot be read", fix)]) from None


def plan_inputs_of(book: Any, *, file_name: str) -> PlanInputs:
    """The inputs a plan workbook already opened (openpyxl, as ``detect_file`` opens it) was
    planned from; ``file_name`` names it in problems. Raises as ``read_plan_inputs``."""
    titles = {t.strip().lower(): t for t in book.sheetnames}
    if PLAN_INPUTS_SHEET.lower() not in titles:
        raise InputError(
            [
                InputProblem(
                    file_name,
                    None,
                    None,
                    f"no '{PLAN_INPUTS_SHEET}' sheet: not a plan workbook the planner wrote",
                    "give a workbook written by python -m planner plan --out, or the "
                    "dashboard's download",
                )
            ]
        )
    tab = f"{file_name} [{PLAN_INPUTS_SHEET}]"
    stored: dict[str, dict[str, list[tuple[int, str]]]] = {"file": {}, "check": {}, "sheet": {}}
    assumptions: list[tuple[int, str, str | UnreadableCell]] = []
    # The rows of the cluster, the sizing's question and the methods, by kind: (row, name, value).
    asked: dict[str, list[tuple[int, str, str]]] = {"cluster": [], "purchase": [], "methods": []}
    problems: list[InputProblem] = []
    rows = _inputs_rows(book[titles[PLAN_INPUTS_SHEET.lower()]], tab)
    for number, values in enumerate(rows, start=1):
        raw = (*values, None, None, None)[:3]
        # A formula without its value shows as an empty cell, which an assumption's problem
        # names as such (a file's or a name's refuses its row below).
        cells = [
            "" if v is None or (isinstance(v, UnreadableCell) and v.formula) else str(v)
            for v in raw
        ]
        kind, item, value = cells
        if number <= 2 or not (kind or item):
            continue
        broken = [
            (c, v) for c, v in zip(_COLUMNS, raw, strict=True) if isinstance(v, UnreadableCell)
        ]
        if broken and not (kind == "assumption" and [c for c, _ in broken] == ["value"]):
            # An assumption's value is read (and refused) as any other value; a cell that
            # names the row, or a file's text, is no value to read.
            column, cell = broken[0]
            if kind == "file":
                raise InputError(
                    [
                        *problems,
                        InputProblem(
                            tab,
                            number,
                            column,
                            f"the cell holds {cell.said}, not part of {item}'s text: the file "
                            "cannot be restored",
                            "give the workbook as the planner wrote it",
                        ),
                    ]
                )
            problems.append(
                InputProblem(
                    tab,
                    number,
                    column,
                    f"the cell holds {cell.said}: row ignored",
                    "give the workbook as the planner wrote it",
                )
            )
            continue
        if kind in stored:
            named = item.removeprefix(_CHECKED) if kind == "check" else item
            stored[kind].setdefault(named, []).append((number, value))
        elif kind == "assumption":
            # An error value is named as such; inf and NaN read as the text they are.
            saved = raw[2]
            error = isinstance(saved, UnreadableCell) and saved.error
            assumptions.append((number, item, saved if error else value))
        elif kind in asked:
            asked[kind].append((number, item, value))
        elif kind != "format":
            problems.append(
                InputProblem(
                    tab,
                    number,
                    "kind",
                    f"unknown row kind '{kind}': ignored",
                    "do not edit this sheet by hand",
                )
            )
    version = next((v for k, _, v in (r[:3] for r in rows[2:] if len(r) >= 3) if k == "format"), "")
    texts, file_notes = _stored_files(stored, str(version) != "1", tab, problems)
    repeated = _repeated_assumptions(assumptions, tab)
    if repeated:
        raise InputError([*problems, *repeated])
    restored, notes, assumption_problems = assumptions_from_rows(assumptions, tab)
    own = None if "my_gpus.csv" not in texts else texts["my_gpus.csv"].encode("utf-8")
    inventory_csv = texts["inventory.csv"].encode("utf-8")
    restored, price_problems = _priced_models(restored, assumptions, own, inventory_csv, tab)
    edited = _edited_sheets(book, stored["sheet"], file_name, tab)
    cluster, cluster_problems = _trace_cluster(asked["cluster"], inventory_csv, tab)
    purchase = _purchase(asked["purchase"], tab)
    methods, method_problems = _planned_methods(asked["methods"], tab)
    return PlanInputs(
        inventory_csv=inventory_csv,
        workloads_csv=texts["workloads.csv"].encode("utf-8"),
        own_gpus_csv=own,
        assumptions=restored,
        cluster=cluster,
        server_rows=purchase.server_rows,
        add_to_inventory=purchase.add_to_inventory,
        headroom=purchase.headroom,
        methods=methods,
        notes=(*file_notes, *notes),
        problems=(
            *problems,
            *cluster_problems,
            *purchase.problems,
            *method_problems,
            *assumption_problems,
            *price_problems,
            *edited,
        ),
    )


@dataclass(frozen=True)
class _Purchase:
    """A sizing's question as its ``purchase`` rows give it, and the rows that cannot be used."""

    server_rows: tuple[tuple[int, str], ...]
    add_to_inventory: bool
    headroom: int
    problems: tuple[InputProblem, ...]


def _purchase(rows: Sequence[tuple[int, str, str]], tab: str) -> _Purchase:
    """The sizing's question of the ``purchase`` rows (number, name, value): each ``server``
    row's text, ``add_to_inventory`` and ``headroom``; a problem for each row that cannot be
    used (its row ignored, the default kept): an empty server type, a value that cannot be
    read, a name given twice (the first kept) or a name this planner does not know."""
    servers: list[tuple[int, str]] = []
    values: dict[str, tuple[int, bool | int]] = {}
    problems: list[InputProblem] = []
    for number, name, value in rows:
        column, fix = "value", "do not edit this sheet by hand"
        if name == "server" and value.strip():
            servers.append((number, value.strip()))
            continue
        if name == "server":
            problem = "the server type is empty: row ignored"
        elif name not in ("add_to_inventory", "headroom"):
            column = "name"
            problem = f"unknown purchase row {quoted(name)} (from a newer planner?): ignored"
            fix = "plan with the planner version that wrote the workbook, or delete the row"
        elif name in values:
            problem = (
                f"{name} is given twice (rows {values[name][0]} and {number}): row {number} ignored"
            )
        else:
            try:
                values[name] = (
                    number,
                    parse_bool(value)
                    if name == "add_to_inventory"
                    else parse_int(value, unit="host failures", minimum=0, maximum=MAX_HEADROOM),
                )
                continue
            except CellError as error:
                default = "no" if name == "add_to_inventory" else "0"
                problem = f"{name}: {error.message}: row ignored, {default} is used"
                fix = f"{error.fix}, or give --{name.replace('_', '-')} when restoring"
        problems.append(InputProblem(tab, number, column, problem, fix))
    add = values.get("add_to_inventory", (0, False))[1]
    headroom = values.get("headroom", (0, 0))[1]
    return _Purchase(tuple(servers), bool(add), int(headroom), tuple(problems))


def _planned_methods(
    rows: Sequence[tuple[int, str, str]], tab: str
) -> tuple[tuple[Method, ...], list[InputProblem]]:
    """The sharing methods of the ``methods`` row (number, name, value), in order, each once;
    every method when there is none. A problem for each row that cannot be used (its row
    ignored): one of another name, one after the first, one naming no method; and for each word
    of its value that is no method (left out)."""
    methods: list[Method] = []
    kept: int | None = None
    problems: list[InputProblem] = []
    known = ", ".join(m.value for m in Method)
    fix = "do not edit this sheet by hand, or give the methods with --methods when restoring"
    for number, name, value in rows:
        if name != _PLANNED:
            problems.append(
                InputProblem(
                    tab,
                    number,
                    "name",
                    f"unknown methods row {quoted(name)} (from a newer planner?): ignored",
                    "plan with the planner version that wrote the workbook, or delete the row",
                )
            )
            continue
        if kept is not None:
            problems.append(
                InputProblem(
                    tab,
                    number,
                    "value",
                    f"the methods planned are given twice (rows {kept} and {number}): row "
                    f"{number} ignored",
                    fix,
                )
            )
            continue
        kept = number
        for word in value.replace(",", " ").split():
            if word in {m.value for m in Method}:
                methods.append(Method(word))
                continue
            problems.append(
                InputProblem(
                    tab,
                    number,
                    "value",
                    f"{quoted(word)} is no sharing method ({known}): left out, not planned",
                    fix,
                )
            )
        if not methods:
            problems.append(
                InputProblem(
                    tab,
                    number,
                    "value",
                    f"no sharing method is named ({_shown(value)}): row ignored, every method "
                    "is planned",
                    fix,
                )
            )
    return tuple(dict.fromkeys(methods)) or tuple(Method), problems


def _trace_cluster(
    rows: Sequence[tuple[int, str, str]], inventory_csv: bytes, tab: str
) -> tuple[str | None, list[InputProblem]]:
    """The cluster of the ``cluster`` rows (number, name, value) for the stored trace node list,
    and a problem for each row that cannot be used (its row ignored): one naming no node list,
    one with no cluster, one after the first, or any when the stored inventory is no node list
    (its rows name each host's cluster)."""
    cluster: tuple[int, str] | None = None
    problems: list[InputProblem] = []
    fix = "do not edit this sheet by hand"
    for number, name, value in rows:
        column = "value"
        if name != "inventory.csv":
            column = "name"
            problem = (
                f"a cluster row names {quoted(name)}, but only inventory.csv, a node list of "
                "Alibaba's GPU-sharing trace, is kept without a cluster: row ignored"
            )
        elif not alibaba_trace.is_node_list(inventory_csv):
            problem = (
                "a cluster row is kept only for a node list of Alibaba's GPU-sharing trace, and "
                "the inventory.csv stored names each host's cluster: row ignored"
            )
        elif not value.strip():
            problem = "the cluster is empty: row ignored, the node list's own cluster kept"
        elif cluster is not None:
            problem = (
                f"the cluster is given twice (rows {cluster[0]} and {number}): row {number} "
                f"ignored, cluster {quoted(cluster[1])} kept"
            )
        else:
            cluster = (number, value.strip())
            continue
        problems.append(InputProblem(tab, number, column, problem, fix))
    return (None if cluster is None else cluster[1]), problems


def _edited_sheets(
    book: Any, checks: Mapping[str, Sequence[tuple[int, str]]], file_name: str, tab: str
) -> list[InputProblem]:
    """A problem for each sheet showing the inputs that is not as its ``sheet`` row says the
    planner wrote it: the restore reads the stored files, so the edits there are not used. A
    sheet deleted, or a check that cannot be read, says nothing: no edit of it can be lost."""
    problems = []
    for title, ((row, value), *_) in checks.items():
        written = _SHEET_CHECK.fullmatch(value.strip())
        if written is None or title not in book.sheetnames:
            continue
        try:
            now = _sheet_check(sheet_rows(book[title]))
        except Exception:  # a damaged sheet raises zip or XML errors of many types
            now = ""
        if now == written[0]:
            continue
        problems.append(
            InputProblem(
                f"{file_name} [{title}]",
                None,
                None,
                f"the sheet is not as the planner wrote it ({now.split(',')[0] or 'unreadable'} "
                f"now, {written[1]} written): the restore reads the inputs stored in the "
                f"'{PLAN_INPUTS_SHEET}' sheet (its row {row} checks this one), so the edits "
                f"made in {title} are not used",
                f"to plan with them, open the {title} sheet and save it as CSV (File > Save As "
                f"> CSV), or make the same edits in the {title.lower()} file the plan was made "
                "from, and plan from that file (python -m planner plan --inventory or "
                "--workloads, or the dashboard's upload)",
                row_kept=True,
            )
        )
    return problems


def _priced_models(
    assumptions: Assumptions,
    rows: Sequence[tuple[int, str, str | UnreadableCell]],
    own_gpus_csv: bytes | None,
    inventory_csv: bytes,
    tab: str,
) -> tuple[Assumptions, list[InputProblem]]:
    """``assumptions`` with each ``gpu_price_usd`` key that names a model of the catalog (the
    shipped one and the user's own GPUs) only in another case renamed to it, and a problem for
    each such key, and for each key that names no model (kept, but no plan uses it). A trace
    node list adds its models when loaded, so its keys are not checked here."""
    if not assumptions.gpu_price_usd or alibaba_trace.is_node_list(inventory_csv):
        return assumptions, []
    try:
        models = list(load_catalog(extra_gpus=own_gpus_csv).gpus)
    except InputError:
        return assumptions, []  # the scenario's loading names what is wrong with the models
    by_folded = {model.casefold(): model for model in models}
    row_of = {name: number for number, name, _ in rows}
    prices: dict[str, float] = {}
    problems = []
    for model, price in assumptions.gpu_price_usd.items():
        key = f"gpu_price_usd[{model}]"
        match = by_folded.get(model.strip().casefold())
        if model in models:
            prices[model] = price
        elif match is not None and match not in assumptions.gpu_price_usd:
            prices[match] = price
            problems.append(
                InputProblem(
                    tab,
                    row_of.get(key),
                    "name",
                    f"{key}: no GPU model is named '{shown(model)}'; the price is taken as "
                    f"{match}'s, the model of that name in another case",
                    f"write gpu_price_usd[{match}] as its name",
                    row_kept=True,
                )
            )
        else:
            prices[model] = price
            problems.append(
                InputProblem(
                    tab,
                    row_of.get(key),
                    "name",
                    f"{key}: no GPU model is named '{shown(model)}', so no plan uses this "
                    f"price; the models are {', '.join(models)}",
                    "write the model's name as the catalog spells it between the brackets, or "
                    "delete the row",
                )
            )
    return dataclasses.replace(assumptions, gpu_price_usd=prices), problems


def _stored_files(
    stored: Mapping[str, Mapping[str, Sequence[tuple[int, str]]]],
    checked: bool,
    tab: str,
    problems: list[InputProblem],
) -> tuple[dict[str, str], list[ImportNote]]:
    """The text of each stored file from the ``file`` and ``check`` rows in ``stored`` (kind ->
    file -> (row, value)), with notes on files that could not be checked; ``checked``: the
    sheet's format writes checks; a part edited in place is added to ``problems``. Raises
    ``InputError`` (``problems`` first) when the inventory or workloads is missing, or a file
    cannot be restored whole (``_stored_file``)."""
    files = stored["file"]
    for needed in ("inventory.csv", "workloads.csv"):
        if needed not in files:
            raise InputError(
                [
                    *problems,
                    InputProblem(
                        tab,
                        None,
                        None,
                        f"the sheet holds no {needed}",
                        "give the workbook as the planner wrote it",
                    ),
                ]
            )
    restored = {
        name: _stored_file(name, parts, stored["check"].get(name, ()), checked, tab, problems)
        for name, parts in files.items()
    }
    broken = [problem for _, refused in restored.values() for problem in refused]
    if broken:
        raise InputError([*problems, *broken])
    notes = [_unchecked(tab, name) for name in files if name not in stored["check"]]
    return {name: text for name, (text, _) in restored.items()}, notes


def _unchecked(tab: str, name: str) -> ImportNote:
    """The note on a stored file of a workbook written before the checks."""
    return ImportNote(
        tab,
        None,
        "",
        "",
        name,
        "complete",
        "assumed",
        "the workbook was written before the planner checked each stored file, so whether a "
        "row of it was deleted or edited could not be checked",
    )


def _stored_file(
    name: str,
    parts: Sequence[tuple[int, str]],
    checks: Sequence[tuple[int, str]],
    checked: bool,
    tab: str,
    listed: list[InputProblem],
) -> tuple[str, list[InputProblem]]:
    """The text of stored file ``name`` from its (row, text) ``parts``, in the order its check
    row lists their digests, and the problems that keep it from being restored whole: its
    check missing (when the sheet's format writes one) or unreadable, a part missing, given
    twice, or not as the planner wrote it, each naming the rows; a part edited in place (as
    many parts edited as are missing) is used as edited, with a problem in ``listed``. A file
    without a check in a
    sheet written before the checks is read in sheet order."""
    fix = (
        f"give the workbook as the planner wrote it (export the plan again), or give {name} as "
        "a file of its own"
    )
    in_order = "".join(text for _, text in parts)
    if not checks:
        if not checked:
            return in_order, []
        return in_order, [
            InputProblem(
                tab,
                None,
                None,
                f"the sheet holds no check row of {name}: whether it is whole cannot be told, "
                "so it is not restored",
                fix,
            )
        ]
    problems = [
        InputProblem(
            tab,
            row,
            "kind",
            f"the check of {name} is given again (first on row {checks[0][0]}): the file is "
            "not restored",
            fix,
        )
        for row, _ in checks[1:]
    ]
    row, value = checks[0]
    match = _CHECK.fullmatch(value.strip())
    digests = [] if match is None else match[2].split()
    if match is None or int(match[1]) != len(digests):
        problems.append(
            InputProblem(
                tab,
                row,
                "value",
                f"the check of {name} reads {_shown(value)}, not as the planner writes it: "
                "whether the file is whole cannot be told, so it is not restored",
                fix,
            )
        )
        return in_order, problems
    found: dict[int, tuple[int, str]] = {}
    altered: list[tuple[int, str]] = []
    for row, text in parts:
        digest = _digest(text)
        places = [p for p, d in enumerate(digests, start=1) if d == digest]
        free = [p for p in places if p not in found]
        if free:
            found[free[0]] = (row, text)
            continue
        if places:
            message = (
                f"part {places[0]} of {name} is given again (first on row "
                f"{found[places[0]][0]}): the file is not restored"
            )
            problems.append(InputProblem(tab, row, "value", message, fix))
        else:
            altered.append((row, text))
    missing = [p for p in range(1, len(digests) + 1) if p not in found]
    held = ", ".join(f"row {row} part {part}" for part, (row, _) in sorted(found.items()))
    if len(missing) == len(altered):
        # Each edited cell stands in the place of a part it no longer matches: its text is
        # used as edited, and said.
        for part, (row, text) in zip(missing, altered, strict=True):
            found[part] = (row, text)
            listed.append(
                InputProblem(
                    tab,
                    row,
                    "value",
                    f"the text of {name} on this row (part {part} of {len(digests)}) is not as "
                    "the planner wrote it: the cell was edited or cut short; the edited text is "
                    "used, and rows cut from it are not named",
                    fix,
                    row_kept=True,
                )
            )
    else:
        problems.extend(
            InputProblem(
                tab,
                row,
                "value",
                f"the text of {name} on this row is not a part the planner wrote: the cell "
                "was edited or cut short, so the file is not restored",
                fix,
            )
            for row, _ in altered
        )
    if len(missing) > len(altered):
        # More parts are gone than rows edited: a row of the sheet was deleted.
        problems.extend(
            InputProblem(
                tab,
                None,
                None,
                f"part {part} of {len(digests)} of {name} is missing "
                f"({held or 'no row holds a part'}): a row of the sheet was deleted, so the "
                "file is not restored",
                fix,
            )
            for part in missing
        )
    return "".join(text for _, (_, text) in sorted(found.items())), problems


def _convert(kind: Any, text: str) -> Any:
    """``text`` as a value of type ``kind``, numbers and yes/no read as the planner reads a
    table's cells (``tabular.parse_float``: finite numbers only); ``ValueError`` when it is not
    one. Whether the value is within its assumption's range is checked apart (``_Reading``)."""
    origin = typing.get_origin(kind)
    if origin is typing.Literal:
        if text not in typing.get_args(kind):
            raise ValueError(text)
        return text
    if origin in (typing.Union, types.UnionType):
        options = [k for k in typing.get_args(kind) if k is not type(None)]
        if not text.strip() and len(options) < len(typing.get_args(kind)):
            return None
        for option in options:
            try:
                return _convert(option, text)
            except ValueError:
                continue
        raise ValueError(text)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(text.strip())
    if kind is bool:
        return parse_bool(text)
    if kind is int:
        return parse_int(text)
    if kind is float:
        return parse_float(text)
    if kind is str:
        return text
    raise ValueError(text)


def _allowed(kind: Any, about: Fact | None) -> str:
    """What a value of ``kind`` may be, with the range and unit of its ``Fact`` when it has one
    (``a finite number from 1 to 3 [-]``, ``one of 7, 8``, ``yes or no``)."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        options = [_allowed(k, about) for k in typing.get_args(kind) if k is not type(None)]
        empty = ["empty"] if type(None) in typing.get_args(kind) else []
        return " or ".join([*options, *empty])
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return f"one of {', '.join(str(choice.value) for choice in kind)}"
    if typing.get_origin(kind) is typing.Literal:
        return f"one of {', '.join(typing.get_args(kind))}"
    if kind is bool:
        return "yes or no"
    if kind not in (int, float):
        return "text"
    number = "a whole number" if kind is int or (about and about.whole) else "a finite number"
    if about is None:
        return number
    span = about.range_text
    span = f"from {span}" if " to " in span else f"of {span}" if span else ""
    unit = f" [{about.unit}]" if about.unit else ""
    return " ".join(filter(None, (number, span))) + unit


def _shown(text: str) -> str:
    """A value cell as a problem quotes it."""
    if text.strip():
        return f"'{shown(text)}'"
    return "an empty cell (its value deleted, or a formula whose value was not saved)"


_PERFORMANCE = "performance_constants"
"""The ``Assumptions`` field of the slowdown-model constants' overrides."""

_KEPT = object()
"""What ``_Reading.value`` returns when the default is kept."""


@dataclass
class _Reading:
    """Assumptions being read back from the sheet's (row, name, value) rows: each value is
    converted to its field's kind, then checked by the rules an ``Assumptions`` checks itself
    with when built (``Assumptions.with_facts``), one value at a time, so a bad value costs only
    itself. Collects the rows consumed, the notes on rows missing and the problems."""

    values: Mapping[str, tuple[int, str | UnreadableCell]]
    """Sheet name of each value (``pue``, ``network.latency_us``) -> (row, value as text, or
    the cell when it holds a spreadsheet error value)."""
    file: str
    """The sheet, as problems name it."""
    defaults: Assumptions
    about: Mapping[str, Fact]
    """Each assumption's ``Fact`` by sheet name (``planner.assumptions.facts``), and each
    slowdown-model constant's as ``performance_constants[name]``."""
    consumed: set[str] = dataclasses.field(default_factory=set)
    notes: list[ImportNote] = dataclasses.field(default_factory=list)
    problems: list[InputProblem] = dataclasses.field(default_factory=list)

    def value(self, name: str, kind: Any, default: Any) -> Any:
        """The value of row ``name`` as ``kind``, marked consumed; ``_KEPT`` with a note when
        the row is missing, or with a problem when its value cannot be read or is refused."""
        if name not in self.values:
            self.notes.append(_kept_default(self.file, name, default))
            return _KEPT
        number, text = self.values[name]
        self.consumed.add(name)
        return self._read(
            number,
            name,
            kind,
            text,
            lambda value: self.defaults.with_facts({name: value}),
            f"its default {_text(default)}",
        )

    def entries(self, name: str, value_kind: Any) -> dict[str, Any]:
        """The entries of mapping field ``name`` from its ``name[key]`` rows, each marked
        consumed; a value that cannot be read or is refused is a problem and left out."""
        entries = {}
        for key, (number, text) in self.values.items():
            if not (key.startswith(f"{name}[") and key.endswith("]")):
                continue
            if name == _PERFORMANCE and key not in self.about:
                continue  # no model has the constant: an unknown assumption, left unconsumed
            self.consumed.add(key)
            entry = key[len(name) + 1 : -1]
            value = self._read(
                number,
                key,
                value_kind,
                text,
                partial(_with_entry, self.defaults, name, entry),
                f"the default for {entry}",
            )
            if value is not _KEPT:
                entries[entry] = value
        return entries

    def _read(
        self,
        number: int,
        name: str,
        kind: Any,
        text: str | UnreadableCell,
        check: Callable[[Any], object],
        default: str,
    ) -> Any:
        """``text`` of row ``number`` (assumption ``name``) as ``kind``, then ``check``-ed
        (``ValueError`` naming the rule it breaks); ``_KEPT`` with a problem naming the row, the
        assumption, the value, what it may be and ``default``, used instead. A cell holding a
        spreadsheet error value (``#DIV/0!``) is named as one, with how to replace it."""
        allowed = _allowed(kind, self.about.get(name))
        if isinstance(text, UnreadableCell):
            self.problems.append(
                InputProblem(
                    self.file,
                    number,
                    "value",
                    f"{name}: the cell holds {text.said}; {default} is used",
                    f"type {allowed} in the cell in place of the error (or correct the formula "
                    f"that gives it), or set {name} again after restoring the plan",
                )
            )
            return _KEPT
        try:
            value = _convert(kind, text)
        except ValueError:
            reason = f"{_shown(text)} is not {allowed}"
        else:
            try:
                check(value)
            except (TypeError, ValueError) as error:
                reason = f"{_shown(text)} is refused: {error}"
            else:
                return value
        self.problems.append(
            InputProblem(
                self.file,
                number,
                "value",
                f"{name}: {reason}; {default} is used",
                f"write {allowed} as its value, or set {name} again after restoring the plan",
            )
        )
        return _KEPT


def _with_entry(assumptions: Assumptions, name: str, entry: str, value: Any) -> Assumptions:
    """``assumptions`` with entry ``entry`` of mapping field ``name`` set to ``value``, checked
    as ``Assumptions`` checks itself."""
    return assumptions.with_facts({name: {entry: value}})


def _kept_default(file: str, name: str, default: object) -> ImportNote:
    """The note for an assumption the workbook lacks."""
    return ImportNote(
        file,
        None,
        "",
        "",
        name,
        _text(default),
        "assumed",
        "not in the workbook (written by an older planner): the default is kept",
    )


def _repeated_assumptions(
    rows: Sequence[tuple[int, str, str | UnreadableCell]], file: str
) -> list[InputProblem]:
    """A problem for each (row, name, value) row whose name an earlier row gives: the planner
    writes each assumption once, and which of two values is meant is not known (as a key twice
    in kubectl's output, or a name twice in the planner's CSVs)."""
    first: dict[str, tuple[int, str | UnreadableCell]] = {}
    problems = []
    for number, name, value in rows:
        if name not in first:
            first[name] = (number, value)
            continue
        earlier, earlier_value = first[name]
        problems.append(
            InputProblem(
                file,
                number,
                "name",
                f"the assumption {shown(name)} is given twice, on row {earlier} "
                f"({_shown(str(earlier_value))}) and on this row ({_shown(str(value))}): which "
                "value is meant is not known",
                f"delete one of the two rows of {shown(name)}, keeping the value meant",
            )
        )
    return problems


def assumptions_from_rows(
    rows: Sequence[tuple[int, str, str | UnreadableCell]], file: str
) -> tuple[Assumptions, list[ImportNote], list[InputProblem]]:
    """``Assumptions`` from (row, name, value) rows as ``assumption_rows`` writes them; a
    value is the sheet's text, or the ``UnreadableCell`` of a cell holding an error value.

    A field the rows lack keeps its default, with a note; a name no field has is a problem; a
    value that cannot be read or that its assumption's rules refuse is a problem naming its row,
    and only that field keeps its default (a mapping's entry is left out). Raises
    ``InputError`` when a name is given twice, naming both rows.
    """
    repeated = _repeated_assumptions(rows, file)
    if repeated:
        raise InputError(repeated)
    defaults = Assumptions()
    about = {name: about for name, about, _ in facts(defaults)}
    # A slowdown-model constant's override is read as a number of its unit and range.
    about.update(
        (f"{_PERFORMANCE}[{name}]", constant)
        for name, constant in performance_constant_facts().items()
    )
    reading = _Reading(
        {name: (number, value) for number, name, value in rows}, file, defaults, about
    )

    def build(cls: type[Any], prefix: str) -> Any:
        hints = typing.get_type_hints(cls)
        own_defaults = cls()
        arguments: dict[str, Any] = {}
        for item in dataclasses.fields(cls):
            name = f"{prefix}{item.name}"
            kind = hints[item.name]
            if name in _CHOICES:
                kind = typing.Literal[_CHOICES[name]]
            if dataclasses.is_dataclass(kind) and isinstance(kind, type):
                arguments[item.name] = build(kind, f"{name}.")
                continue
            if name == METHOD_SETTINGS:
                settings = {
                    setting: reading.value(setting, type(default), default)
                    for setting, default in defaults.method_settings.items()
                }
                arguments[item.name] = {k: v for k, v in settings.items() if v is not _KEPT}
                continue
            if typing.get_origin(kind) in (Mapping, dict, typing.Mapping):
                _, value_kind = typing.get_args(kind)
                arguments[item.name] = reading.entries(name, value_kind)
                continue
            value = reading.value(name, kind, getattr(own_defaults, item.name))
            if value is not _KEPT:
                arguments[item.name] = value
        try:
            return cls(**arguments)
        except (TypeError, ValueError) as error:
            # Each value passed its own checks above: only a rule between values is left.
            reading.problems.append(
                InputProblem(
                    file,
                    None,
                    prefix.rstrip(".") or "assumptions",
                    f"{error}; the defaults are kept",
                    "do not edit this sheet by hand",
                )
            )
            return cls()

    assumptions = build(Assumptions, "")
    for name, (number, _) in reading.values.items():
        if name not in reading.consumed:
            reading.problems.append(
                InputProblem(
                    file,
                    number,
                    "name",
                    f"unknown assumption '{name}' (from a newer planner?): ignored",
                    "plan with the planner version that wrote the workbook, or set it again",
                )
            )
    return assumptions, reading.notes, reading.problems
