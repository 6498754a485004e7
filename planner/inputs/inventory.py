"""The cluster inventory: GPU hosts, grouped into clusters, as the user owns them."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from planner.inputs.catalog import Catalog, GpuModel, UnknownGpuModel
from planner.inputs.cell_units import CORES, GBIT_PER_S, GIB, GPUS
from planner.inputs.limits import (
    MAX_CORES,
    MAX_GPUS,
    MAX_GPUS_PER_HOST,
    MAX_HOSTS,
    MAX_RAM_GIB,
    limit_text,
)
from planner.inputs.platform import DEFAULT_PLATFORM, Platform, parse_platform
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import (
    SPREADSHEET_SEPARATORS,
    CellError,
    Row,
    Table,
    TableColumns,
    parse_bool,
    parse_cells,
    parse_float,
    parse_int,
    parse_text,
    quoted,
    read_csv_table,
    read_rows,
    refuse_repeated_names,
    source_name,
    table_from_frame,
    usable_name,
    without_invisible,
    yes_no,
)

__all__ = [
    "INVENTORY_COLUMNS",
    "INVENTORY_SHEET_HEADERS",
    "INVENTORY_TABLE",
    "Host",
    "Inventory",
    "ServerType",
    "host_key",
    "inventory_frame",
    "inventory_from_frame",
    "load_inventory",
    "server_type",
    "with_mig_clusters",
]


@dataclass(frozen=True)
class Host:
    """One physical GPU server."""

    name: str
    cluster: str
    gpu_model: str
    """Catalog name of the GPU model; all GPUs of a host are of one model."""
    gpus: int
    """GPUs in the host."""
    cpu_cores: float
    """Cores available to workloads [cores]."""
    ram_gib: float
    """Memory available to workloads [GiB]."""
    network_gbps: float
    """Network bandwidth per host [Gbit/s]."""
    rdma: bool
    """The host has an RDMA-capable NIC (needed for a low-latency remote pool)."""
    mig_enabled: bool
    """MIG mode is on for the host's GPUs (only meaningful on MIG-capable models)."""
    platform: Platform = DEFAULT_PLATFORM
    """What runs on the host: vSphere, Kubernetes or bare metal; decides the methods it serves."""


@dataclass(frozen=True)
class ServerType:
    """A server to buy when sizing a cluster: one host's shape, without a name."""

    gpu_model: str
    gpus: int
    cpu_cores: float
    ram_gib: float
    network_gbps: float = 100.0
    rdma: bool = True
    mig_enabled: bool = True
    platform: Platform = DEFAULT_PLATFORM
    name: str = ""
    """What the catalog or the user calls the type (``hgx-h100-8``); empty when unnamed."""

    @classmethod
    def of(cls, host: Host, name: str = "") -> ServerType:
        """The type of server ``host`` is."""
        return cls(
            gpu_model=host.gpu_model,
            gpus=host.gpus,
            cpu_cores=host.cpu_cores,
            ram_gib=host.ram_gib,
            network_gbps=host.network_gbps,
            rdma=host.rdma,
            mig_enabled=host.mig_enabled,
            platform=host.platform,
            name=name,
        )

    @property
    def shape(self) -> ServerType:
        """The type without its name, as ``of`` gives a host's: what tells types apart."""
        return dataclasses.replace(self, name="")

    @property
    def label(self) -> str:
        """``hgx-h100-8 (8× H100-80GB-SXM)``, or the shape alone when unnamed; the platform
        follows the shape when it is not the default (``4× L40S, Kubernetes``)."""
        shape = f"{self.gpus}× {self.gpu_model}"
        if self.platform is not DEFAULT_PLATFORM:
            shape += f", {self.platform.label}"
        return f"{self.name} ({shape})" if self.name else shape

    def host(self, index: int, cluster: str = "sized") -> Host:
        """The ``index``-th host of this type (0-based), named ``sized-001`` and so on."""
        return Host(
            name=f"{cluster}-{index + 1:03d}",
            cluster=cluster,
            gpu_model=self.gpu_model,
            gpus=self.gpus,
            cpu_cores=self.cpu_cores,
            ram_gib=self.ram_gib,
            network_gbps=self.network_gbps,
            rdma=self.rdma,
            mig_enabled=self.mig_enabled,
            platform=self.platform,
        )


@dataclass(frozen=True)
class Inventory:
    """Every host the user owns, one entry per physical host (groups are expanded)."""

    hosts: tuple[Host, ...]

    @property
    def gpu_count(self) -> int:
        """GPUs in all hosts."""
        return sum(h.gpus for h in self.hosts)

    def gpus_by_model(self) -> dict[str, int]:
        """GPU count per catalog model, in first-seen order."""
        counts: dict[str, int] = {}
        for host in self.hosts:
            counts[host.gpu_model] = counts.get(host.gpu_model, 0) + host.gpus
        return counts


def with_mig_clusters(
    inventory: Inventory, clusters: Sequence[str] | None, catalog: Catalog
) -> Inventory:
    """The inventory with MIG enabled on exactly the MIG-capable hosts of ``clusters``.

    ``None`` leaves every host as its file says. Hosts whose model cannot do MIG stay disabled.
    """
    if clusters is None:
        return inventory
    chosen = set(clusters)
    hosts = tuple(
        dataclasses.replace(
            host,
            mig_enabled=host.cluster in chosen and catalog.gpus[host.gpu_model].mig_capable,
        )
        for host in inventory.hosts
    )
    return Inventory(hosts=hosts)


INVENTORY_COLUMNS = (
    "host",
    "cluster",
    "gpu_model",
    "gpus_per_host",
    "cpu_cores",
    "ram_gib",
    "network_gbps",
    "rdma",
)
"""Required columns of the inventory CSV, in the template's order."""
_OPTIONAL = ("count", "mig_enabled", "platform", "notes")
INVENTORY_SHEET_HEADERS = {
    "Host": "host",
    "GPUs per host": "gpus_per_host",
    "CPU cores per host": "cpu_cores",
    "RAM [GiB]": "ram_gib",
    "Network [Gbit/s]": "network_gbps",
    "MIG enabled": "mig_enabled",
}
"""Headers of the plan workbook's Inventory sheet (one row per host, as planned) that name an
inventory column in words, by the column each is read as: that sheet saved as CSV loads back
as the inventory it shows. Its other headers (``Cluster``, ``GPU model``) are the columns'
names already."""
INVENTORY_TABLE = TableColumns(
    required=INVENTORY_COLUMNS,
    aliases=INVENTORY_SHEET_HEADERS,
    table="inventory",
    sheet="Inventory",
    template="data/templates/inventory_template.csv",
)
"""The inventory's columns as the CSV reader and format detection look for them."""
_NUMBERS = ("gpus_per_host", "cpu_cores", "ram_gib", "network_gbps", "count")
"""Columns holding numbers (a decimal comma is read in a semicolon-separated file)."""
_UNITS = {
    "gpus_per_host": GPUS.number_text,
    "cpu_cores": CORES.number_text,
    "ram_gib": GIB.number_text,
    "network_gbps": GBIT_PER_S.number_text,
}
"""Number columns whose cells may carry the column's unit (``512 GiB``)."""
_MAX_COUNT = 1000
"""More identical hosts than this in one row is almost surely a typo."""


def host_key(name: str) -> str:
    """What a host name is matched by, in a file and across files: what it shows (invisible
    characters and the spaces around it aside), case ignored, as DNS and Kubernetes names are:
    ``GPU-01`` and ``gpu-01`` are one host."""
    return without_invisible(name).strip().lower()


def load_inventory(
    source: Path | str | bytes, catalog: Catalog, *, file_name: str | None = None
) -> Loaded[Inventory]:
    """Read an inventory CSV (a path, or an upload's bytes): one row per host or group of hosts.

    Columns (matched ignoring case and spaces): ``host``, ``cluster``, ``gpu_model``,
    ``gpus_per_host``, ``cpu_cores``, ``ram_gib`` [GiB], ``network_gbps`` [Gbit/s], ``rdma``
    (yes/no), and optionally ``count`` (identical hosts, named ``host-01`` .. ``host-NN``;
    default 1), ``mig_enabled`` (default yes on MIG-capable models), ``platform`` (``vsphere``,
    ``kubernetes`` or ``bare-metal``; default vsphere) and ``notes`` (ignored). The plan
    workbook's Inventory sheet saved as CSV is read too: its headers in words
    (``INVENTORY_SHEET_HEADERS``), a title above the header passed over and listed.

    Each bad cell is one problem in ``Loaded.problems`` and its row is skipped; good rows load.
    Raises ``InputError`` when the file cannot be used at all: not CSV, empty, a required column
    missing, no usable row, or two hosts with one name. A ``str`` is a path.
    """
    name = source_name(source, file_name, "inventory.csv")
    table = read_csv_table(source, name, separators=SPREADSHEET_SEPARATORS, columns=INVENTORY_TABLE)
    return _inventory(table, catalog)


def inventory_from_frame(
    frame: pd.DataFrame, catalog: Catalog, *, file_name: str
) -> Loaded[Inventory]:
    """Validate a table (such as the dashboard's edited one) exactly as ``load_inventory`` does."""
    return _inventory(table_from_frame(frame, file_name, INVENTORY_TABLE), catalog)


_SERVER_PARTS = {
    "gpu_model": "MODEL",
    "gpus_per_host": "GPUS",
    "cpu_cores": "CORES",
    "ram_gib": "RAM_GIB",
}
"""Inventory columns a server type sets, with the names ``--size MODEL:GPUS:CORES:RAM_GIB``
gives them."""


def server_type(
    gpu_model: str,
    gpus: str,
    cpu_cores: str,
    ram_gib: str,
    catalog: Catalog,
    *,
    source: str = "--size",
    columns: dict[str, str] | None = None,
) -> ServerType:
    """A server type to size with, checked by the same rules as an inventory row.

    The cells are text as a user typed them. ``columns`` names each in problems (default the
    ``--size`` parts: MODEL, GPUS, CORES, RAM_GIB). Raises ``InputError`` listing every problem
    (an unknown model, 6 A16 GPUs, a non-finite number ...), each naming ``source``.
    """
    defaults = ServerType(gpu_model="", gpus=1, cpu_cores=1, ram_gib=1)
    cells = {
        "host": "server",
        "cluster": "sized",
        "gpu_model": gpu_model.strip(),
        "gpus_per_host": gpus.strip(),
        "cpu_cores": cpu_cores.strip(),
        "ram_gib": ram_gib.strip(),
        "network_gbps": f"{defaults.network_gbps:g}",
        "rdma": yes_no(defaults.rdma),
    }
    shown = {**{c: c for c in cells}, **(_SERVER_PARTS if columns is None else columns)}
    table = Table(source, shown, (Row(0, cells),))
    problems: list[InputProblem] = []
    hosts = _row_hosts(table, table.rows[0], catalog, problems)
    if hosts is None:
        # One server type is not a file row: drop the row number from each problem.
        raise InputError([dataclasses.replace(p, row=None) for p in problems])
    (host,) = hosts
    return ServerType.of(host)


def inventory_frame(inventory: Inventory) -> pd.DataFrame:
    """One row per host with the CSV's columns (``mig_enabled`` and ``platform`` included, no
    ``count``).

    Booleans are ``yes``/``no`` text as in the CSV, so the frame loads back through
    ``inventory_from_frame`` to an equal inventory.
    """
    columns = [*INVENTORY_COLUMNS, "mig_enabled", "platform"]
    rows = [
        [
            h.name,
            h.cluster,
            h.gpu_model,
            h.gpus,
            h.cpu_cores,
            h.ram_gib,
            h.network_gbps,
            yes_no(h.rdma),
            yes_no(h.mig_enabled),
            h.platform.value,
        ]
        for h in inventory.hosts
    ]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.astype(
        {
            "gpus_per_host": "int64",
            "cpu_cores": "float64",
            "ram_gib": "float64",
            "network_gbps": "float64",
        }
    )


def _inventory(table: Table, catalog: Catalog) -> Loaded[Inventory]:
    problems = table.require_columns(INVENTORY_COLUMNS, _OPTIONAL, sheet=INVENTORY_TABLE)
    _refuse_large_inventory(table)
    groups = read_rows(
        table,
        lambda row: _row_hosts(table, row, catalog, problems),
        problems,
        no_rows="no usable host row",
        fix="add at least one valid host row (see data/templates/inventory_template.csv)",
    )
    # Two hosts with one name (as matched: host_key) make placements ambiguous: the file is
    # refused.
    written = {
        (row.number, host_key(host.name)): host.name for row, group in groups for host in group
    }

    def repeated(key: str, earlier: Row, row: Row) -> str:
        name, first = written[(row.number, key)], written[(earlier.number, key)]
        case = (
            ""
            if name == first
            else f" as {quoted(first)} (names differing only in case are one host)"
        )
        return (
            f"host {quoted(name)} is already defined on row {earlier.number}{case}"
            + _group_hint(row)
        )

    refuse_repeated_names(
        table,
        ((row, [host_key(host.name) for host in group]) for row, group in groups),
        "host",
        repeated,
        "give every host a unique name",
    )
    hosts = tuple(host for _, group in groups for host in group)
    return Loaded(Inventory(hosts), tuple(problems))


def _number(text: str, default: float) -> float:
    """A cell's value for a size estimate only; a bad cell counts as ``default`` (it is reported
    when the row is read)."""
    try:
        value = float(text)
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


def _refuse_large_inventory(table: Table) -> None:
    """Refuse an inventory over ``MAX_HOSTS`` or ``MAX_GPUS`` before any host is made."""
    hosts = 0.0
    gpus = 0.0
    for row in table.rows:
        count = min(_number(row.get("count"), 1), _MAX_COUNT)
        hosts += count
        gpus += count * min(_number(row.get("gpus_per_host"), 1), MAX_GPUS_PER_HOST)
    fix = "plan one cluster or site at a time (one inventory file each)"
    if hosts > MAX_HOSTS:
        message = f"the inventory has {limit_text(int(hosts), MAX_HOSTS, 'hosts')}"
        raise InputError([table.problem(None, None, message, fix)])
    if gpus > MAX_GPUS:
        message = f"the inventory has {limit_text(int(gpus), MAX_GPUS, 'GPUs')}"
        raise InputError([table.problem(None, None, message, fix)])


def _row_hosts(
    table: Table, row: Row, catalog: Catalog, problems: list[InputProblem]
) -> list[Host] | None:
    """The hosts one row describes (several when ``count`` > 1), or None if a cell is bad."""
    values = parse_cells(
        table,
        row,
        {
            "host": lambda t: parse_text(t, what="a host name"),
            "cluster": lambda t: parse_text(t, what="a cluster name"),
            "gpu_model": lambda t: _model(t, catalog),
            "gpus_per_host": lambda t: parse_int(
                t, unit="GPUs", minimum=1, maximum=MAX_GPUS_PER_HOST
            ),
            "cpu_cores": lambda t: parse_float(
                t, unit="cores", minimum=0, minimum_inclusive=False, maximum=MAX_CORES
            ),
            "ram_gib": lambda t: parse_float(
                t, unit="GiB", minimum=0, minimum_inclusive=False, maximum=MAX_RAM_GIB
            ),
            "network_gbps": lambda t: parse_float(
                t, unit="Gbit/s", minimum=0, minimum_inclusive=False, maximum=10_000
            ),
            "rdma": parse_bool,
            "count": lambda t: parse_int(t, unit="hosts", minimum=1, maximum=_MAX_COUNT, default=1),
            "mig_enabled": lambda t: t,
            "platform": parse_platform,
        },
        problems,
        numbers=_NUMBERS,
        units=_UNITS,
    )
    if values is None:
        return None
    for column, what in (("host", "host name"), ("cluster", "cluster name")):
        empty = (f"the {what} holds only invisible characters", f"enter {what}")
        where = partial(table.problem, row, column)
        name = usable_name(values[column], what, where, problems, empty=empty)
        if name is None:
            return None
        values[column] = name
    model: GpuModel = values["gpu_model"]
    checks = _model_checks(table, row, model, values, catalog, problems)
    if checks is None:
        return None
    mig_enabled = checks
    count: int = values["count"]
    names = (
        [values["host"]]
        if count == 1
        else [f"{values['host']}-{i:0{max(2, len(str(count)))}d}" for i in range(1, count + 1)]
    )
    return [
        Host(
            name=name,
            cluster=values["cluster"],
            gpu_model=model.name,
            gpus=values["gpus_per_host"],
            cpu_cores=values["cpu_cores"],
            ram_gib=values["ram_gib"],
            network_gbps=values["network_gbps"],
            rdma=values["rdma"],
            mig_enabled=mig_enabled,
            platform=values["platform"],
        )
        for name in names
    ]


def _model_checks(
    table: Table,
    row: Row,
    model: GpuModel,
    values: dict[str, Any],
    catalog: Catalog,
    problems: list[InputProblem],
) -> bool | None:
    """Rules that tie a row to its GPU model; returns ``mig_enabled``, or None on a problem."""
    ok = True
    mig_text: str = values["mig_enabled"]
    mig_enabled = model.mig_capable
    try:
        mig_enabled = parse_bool(mig_text, default=model.mig_capable)
    except CellError as error:
        problems.append(table.problem(row, "mig_enabled", error.message, error.fix))
        ok = False
    if ok and mig_enabled and not model.mig_capable:
        problems.append(
            table.problem(
                row,
                "mig_enabled",
                f"{model.name} has no MIG, so MIG cannot be enabled",
                f"write no (or leave it empty); {_mig_models(catalog)}",
            )
        )
        ok = False
    gpus: int = values["gpus_per_host"]
    if gpus % model.gpus_per_board:
        problems.append(
            table.problem(
                row,
                "gpus_per_host",
                f"{model.name} boards carry {model.gpus_per_board} GPUs each, "
                f"so a host cannot have {gpus}",
                f"enter a multiple of {model.gpus_per_board} (GPUs, not boards)",
            )
        )
        ok = False
    return mig_enabled if ok else None


def _mig_models(catalog: Catalog) -> str:
    """Which GPUs run MIG, as the catalog's MIG-capable models say (``MIG needs a GPU of the
    A100, ... or H20 family``), so the list grows with the catalog."""
    families = catalog.mig_families()
    if not families:
        return "no model of the catalog runs MIG"
    listed = families[0] if len(families) == 1 else f"{', '.join(families[:-1])} or {families[-1]}"
    return f"MIG needs a GPU of the {listed} family"


def _model(text: str, catalog: Catalog) -> GpuModel:
    if not text:
        raise CellError("the GPU model is empty", "enter a model name from the catalog")
    try:
        return catalog.gpu(text)
    except UnknownGpuModel as error:
        raise CellError(error.message, error.fix) from None


def _group_hint(row: Row) -> str:
    """Explain generated names when the clash comes from a group row."""
    if row.get("count") in ("", "1"):
        return ""
    base = row.get("host")
    return f" (a row with count {row.get('count')} names its hosts {base}-01, {base}-02 ...)"
