"""Alibaba's GPU-sharing cluster trace (openb, USENIX ATC 2023) as an inventory and workload mix.

The trace (alibaba/clusterdata ``cluster-trace-gpu-v2023``) has two kinds of CSV, recognised by
their header; a list re-saved by a spreadsheet (semicolons, tabs, UTF-16, Excel's ``sep=;``
line, blank lines above the header) reads as the comma-separated original:

- a node list (``openb_node_list_gpu_node.csv``): ``sn`` (node name), ``cpu_milli``
  (milli-cores), ``memory_mib``, ``gpu`` (GPUs on the node), ``model`` (GPU model; empty or
  ``nan`` on a CPU-only node). Each node is a Kubernetes host with ``cpu_milli``/1000 cores and
  ``memory_mib``/1024 GiB RAM, both at least 1 (a node below, ``64`` for 64 cores, is a list
  written in cores or GiB: a problem, the node left out); the list holds at most ``MAX_HOSTS``
  nodes and ``MAX_GPUS`` GPUs, as an inventory does.
- a pod list (``openb_pod_list_*.csv``, at most ``MAX_TRACE_PODS`` pods): ``name``,
  ``cpu_milli``, ``memory_mib``, ``num_gpu``, ``gpu_milli`` (share of one GPU in thousandths,
  below 1000 only when ``num_gpu`` is 1; a share written as a fraction, ``0.46`` or ``1.0``
  for a whole GPU, is a problem naming the thousandths; a pod with a GPU asking for under one
  core and one GiB is read as written with a problem naming the units), and optionally
  ``gpu_spec`` (allowed GPU models separated by ``|``, or ``,`` or ``;``; empty or ``nan`` for
  any model; a saved Python list, ``['V100M16', 'V100M32']``, and models separated by ``/`` or
  spaces are read so, said in a note; ``V100``, the family of the trace's V100M16 and V100M32,
  allows both, as the trace's README reads ``V100M16|V100M32``). Other columns (``qos``,
  ``pod_phase``, times) are not used.

A model is the catalog's model it names (case, spaces and dashes aside), else the trace's model
it names so (its spelling kept), else the catalog model its vendor's name is
(``NVIDIA A100-SXM4-80GB``, read by ``gpu_names.match_gpu_name`` and said in a note).

Pods of one shape (GPUs, share, cores, memory, allowed models) form one workload class. A pod
with a share takes that share of one GPU's compute and memory alike (``memory_share``), since
the trace gives no GPU memory sizes for its internal models. Pods with ``num_gpu`` 0 use no GPU
but take node cores and memory: they become ``cpu_only`` classes. The trace gives no busy time,
kind or priority: pods are planned as training work busy all day, priority 2.

GPU models the catalog lacks get a catalog entry (``trace_gpu_model``): memory from the public
datasheet where the trace names a public model, else a guess (the trace's ``G2`` and ``G3`` are
undisclosed); a share is a share of the GPU whatever its memory. A model that is neither the
catalog's nor the trace's is a problem (its nodes kept, its memory the one its name states,
``A800-SXM4-80GB``, else a guess); a model cell that is no model name (``16384``) leaves its
node out.

Numbers are read as the planner's CSVs read them: a cell may carry its column's unit
(``262144 MiB``, ``64000m``, ``2 GPUs``), and the limits of the inventory and the workload CSV
hold (4,096 cores, whole boards of a multi-GPU board such as the A16).

A list as read carries its import notes (``TraceCluster.notes``, ``TracePods.notes``): what was
read, each model the catalog lacked and what it was taken as, and each host or class field the
trace has no column for with the value assumed; the dashboard and the command line show these
notes as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from planner.inputs.catalog import Catalog, GpuModel, normalise_model_name
from planner.inputs.cell_units import GPUS, CellUnit, Conversion
from planner.inputs.inventory import Host, Inventory, host_key
from planner.inputs.limits import (
    MAX_CORES,
    MAX_GPUS,
    MAX_GPUS_PER_HOST,
    MAX_HOSTS,
    MAX_RAM_GIB,
    MAX_TRACE_PODS,
    limit_text,
)
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import (
    CSV_TEXT,
    SPREADSHEET_SEPARATORS,
    CellError,
    Row,
    Table,
    csv_header,
    decode_file,
    normalise_column,
    parse_cells,
    parse_int,
    quoted,
    read_csv_table,
    shown,
    source_name,
    usable_name,
    yes_no,
)
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadClass, WorkloadKind
from planner.words import counted

if TYPE_CHECKING:
    from planner.inputs.importers.gpu_names import GpuName
    from planner.inputs.importers.provenance import ImportNote, NoteSource

__all__ = [
    "NODE_COLUMNS",
    "OWN_GPUS_OPTION",
    "POD_COLUMNS",
    "TRACE_MODEL_NAMES",
    "TraceCluster",
    "TracePods",
    "class_name",
    "cpu_only_class",
    "is_node_list",
    "is_pod_list",
    "load_node_list",
    "load_pod_list",
    "trace_family",
    "trace_gpu_model",
    "trace_model",
]

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
"""Columns of a trace node list."""
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
"""Columns every trace pod list has; ``gpu_spec`` is optional."""
_POD_OPTIONAL = ("gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time")
MIB_PER_GIB = 1024
MILLI = 1000
CLUSTER = "openb"
"""``Host.cluster`` of the trace's nodes."""
OWN_GPUS_OPTION = "--catalog-extra"
"""Where a user of the command line gives their own GPU models: how a node list's notes name
it unless told otherwise."""

_TRACE_MODELS: dict[str, tuple[float, float, float, str]] = {
    "P100": (16.0, 250.0, 18.7, "NVIDIA Tesla P100 PCIe 16 GB datasheet"),
    "V100M16": (16.0, 250.0, 112.0, "NVIDIA V100 PCIe 16 GB datasheet (tensor FP16)"),
    "V100M32": (32.0, 250.0, 112.0, "NVIDIA V100 PCIe 32 GB datasheet (tensor FP16)"),
}
"""Trace model -> (memory [GiB], TDP [W], FP16 [TFLOPS], source) for public models the catalog
may lack."""
TRACE_MODEL_NAMES = (*_TRACE_MODELS, "G1", "G2", "G3")
"""The trace's model names (G1-G3 undisclosed), in its spelling: a list writing one in another
case is read as this one."""
_TRACE_MEMORY = re.compile(r"M\d+$")
"""The memory a trace model's name ends with (``V100M16``: a V100 of 16 GB); the name without
it is the model's family (``V100``)."""
_UNKNOWN_MODEL = (32.0, 300.0, 100.0)
"""Memory [GiB], TDP [W], FP16 [TFLOPS] of an undisclosed trace model (G2, G3): a guess."""


_STATED_MEMORY = re.compile(r"(?<![\d.])(\d{1,3})\s*G(?:i?B)?(?![A-Za-z\d])", re.IGNORECASE)
"""GPU memory a model's name states, as vendors write it (``A800-SXM4-80GB``, ``A100-80G``)
[GB, read as GiB as GPU memory is sold]."""


def trace_model(written: str) -> str | None:
    """The trace's model ``written`` names, case, spaces and dashes aside (``p100``: P100), in
    the trace's spelling; None for none."""
    wanted = normalise_model_name(written)
    return next((m for m in TRACE_MODEL_NAMES if normalise_model_name(m) == wanted), None)


def trace_family(written: str) -> tuple[str, ...]:
    """The trace's models of the family ``written`` names (``V100``: V100M16 and V100M32), as
    the trace's README reads such a ``gpu_spec``; empty for no family."""
    wanted = normalise_model_name(written)
    return tuple(
        m
        for m in TRACE_MODEL_NAMES
        if _TRACE_MEMORY.search(m) and normalise_model_name(_TRACE_MEMORY.sub("", m)) == wanted
    )


def stated_memory_gib(name: str) -> float | None:
    """The GPU memory ``name`` states (``A800-SXM4-80GB``: 80) [GiB], or None."""
    found = _STATED_MEMORY.search(name)
    return float(found.group(1)) if found and int(found.group(1)) > 0 else None


def trace_gpu_model(name: str) -> GpuModel:
    """A catalog entry for a trace GPU model the catalog lacks; prices are left at 0 (unknown).
    A model that is not one of the trace's public ones takes its memory from its name when the
    name states it (``stated_memory_gib``), else a guess."""
    known = _TRACE_MODELS.get(name)
    memory, tdp, fp16 = known[:3] if known else _UNKNOWN_MODEL
    stated = None if known else stated_memory_gib(name)
    if known:
        source = f"Alibaba openb trace; {known[3]}"
    elif stated is not None:
        memory = stated
        source = "a trace node list; memory as its name states, power and speed are guesses"
    else:
        source = "Alibaba openb trace; an undisclosed model: memory, power and speed are guesses"
    return GpuModel(
        name=name,
        memory_gib=memory,
        tdp_w=tdp,
        fp16_tflops=fp16,
        price_usd=0.0,
        price_is_default=True,
        mig_capable=False,
        vgpu_capable=False,
        gpus_per_board=1,
        mig_memory_slices=0,
        mig_compute_slices=0,
        source=source,
        notes="A share of this GPU in the trace is a share of memory and compute alike.",
    )


def _header(source: Path | str | bytes) -> set[str]:
    """The normalised column names of a list's header, found as its loader finds it
    (``tabular.read_csv_table``): decoded by ``tabular.decode_file`` (a UTF-16 list too), the
    header and its separator found by ``tabular.csv_header`` (below blank lines and Excel's
    ``sep=;`` line). Empty when the file cannot be read, decoded or split."""
    try:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
        # Bytes that do not decode, or a header that does not split, are no trace list here:
        # the loader the file goes to reads it the same way and says why.
        found = csv_header(decode_file(data, "", CSV_TEXT), "", SPREADSHEET_SEPARATORS)
    except (OSError, InputError):
        return set()
    return set() if found is None else {normalise_column(c) for c in found.cells}


_TRACE_MATCH = 3
"""Columns a header shares with a trace list to be read as one: a list with a column missing is
still the trace's, and its loader names the column."""


def is_node_list(source: Path | str | bytes) -> bool:
    """Whether ``source`` is a trace node list: its header has at least ``_TRACE_MATCH`` of
    ``NODE_COLUMNS`` and, unless one is ``sn``, none of a pod list's GPU columns (a node list
    without its node names is still the trace's, and its loader names ``sn``)."""
    header = _header(source)
    pod_columns = {"num_gpu", "gpu_milli"} & header
    return len(header & set(NODE_COLUMNS)) >= _TRACE_MATCH and ("sn" in header or not pod_columns)


def is_pod_list(source: Path | str | bytes) -> bool:
    """Whether ``source`` is a trace pod list: its header has ``num_gpu`` or ``gpu_milli`` and at
    least ``_TRACE_MATCH`` of ``POD_COLUMNS``."""
    header = _header(source)
    has_gpu_column = bool({"num_gpu", "gpu_milli"} & header)
    return has_gpu_column and len(header & set(POD_COLUMNS)) >= _TRACE_MATCH


@dataclass(frozen=True)
class TraceCluster:
    """A node list as the planner sees it."""

    inventory: Inventory
    """One Kubernetes host per node."""
    catalog: Catalog
    """The catalog given, plus an entry for each trace model it lacked."""
    notes: tuple[ImportNote, ...] = ()
    """What reading the node list gave and assumed, in this order: the hosts and GPUs read; one
    note per trace model the catalog lacked (its nodes, what it was taken as, where to give its
    own figures); one per host field the trace has no column for (cluster, platform,
    network_gbps, rdma, mig_enabled), with the value every node was given."""


@dataclass(frozen=True)
class TracePods:
    """A pod list as the planner sees it: classes of identical pods."""

    workloads: tuple[WorkloadClass, ...]
    """Classes of pods that use a GPU (whole GPUs or a share of one)."""
    cpu_only: tuple[WorkloadClass, ...]
    """Classes of pods that use no GPU (``gpus`` 0): node cores and memory only."""
    notes: tuple[ImportNote, ...] = ()
    """What reading the pod list gave and assumed, in this order: the pods read and grouped;
    one per class field the trace has no column for (kind, busy_fraction, active_hours,
    priority, live_migration / isolation / remote OK), with the value every class was given;
    GPU memory of a share, when a pod has one; the pods without GPU, when there are any."""


_NODE_RANGES = {
    "cpu_milli": (1, MAX_CORES * MILLI, "milli-cores"),
    "memory_mib": (1, MAX_RAM_GIB * MIB_PER_GIB, "MiB"),
    "gpu": (0, MAX_GPUS_PER_HOST, "GPUs"),
}
"""Node list column -> (lowest, highest, unit) of its whole numbers. A node has cores and RAM:
the planner's hosts have both above 0, so 0 is a problem, not a host that holds nothing."""
_POD_RANGES = {
    "cpu_milli": (0, MAX_CORES * MILLI, "milli-cores"),
    "memory_mib": (0, MAX_RAM_GIB * MIB_PER_GIB, "MiB"),
    "num_gpu": (0, MAX_GPUS_PER_HOST, "GPUs"),
    "gpu_milli": (0, MILLI, "thousandths of a GPU"),
}
"""Pod list column -> (lowest, highest, unit) of its whole numbers; a pod may request no cores
or memory (Kubernetes then reserves none for it)."""


_MIB_BYTES = 2**20
_MILLI_CORES = CellUnit(
    "milli-cores",
    frozenset({"m", "millicore", "millicores", "mcpu"}),
    {
        spelling: Conversion(MILLI, "cores (1000 milli-cores each)")
        for spelling in ("core", "cores", "cpu", "cpus", "vcpu", "vcpus")
    },
)
"""CPU in milli-cores, as Kubernetes writes a CPU quantity (``64000m``)."""
_MEBIBYTES = CellUnit(
    "MiB",
    frozenset({"mib", "mi", "mebibytes"}),
    {
        "KiB": Conversion(1 / 1024, "kibibytes (2^10 bytes)"),
        "Ki": Conversion(1 / 1024, "kibibytes (2^10 bytes)"),
        "GiB": Conversion(1024, "gibibytes (2^30 bytes)"),
        "Gi": Conversion(1024, "gibibytes (2^30 bytes)"),
        "TiB": Conversion(1024**2, "tebibytes (2^40 bytes)"),
        "Ti": Conversion(1024**2, "tebibytes (2^40 bytes)"),
        "MB": Conversion(10**6 / _MIB_BYTES, "megabytes (10^6 bytes)", 1),
        "M": Conversion(10**6 / _MIB_BYTES, "megabytes (10^6 bytes)", 1),
        "GB": Conversion(10**9 / _MIB_BYTES, "gigabytes (10^9 bytes)", 1024),
        "G": Conversion(10**9 / _MIB_BYTES, "gigabytes (10^9 bytes)", 1024),
        "TB": Conversion(10**12 / _MIB_BYTES, "terabytes (10^12 bytes)", 1024**2),
        "T": Conversion(10**12 / _MIB_BYTES, "terabytes (10^12 bytes)", 1024**2),
    },
)
"""Memory in MiB (2^20 bytes); Kubernetes quantities (``256Gi``) are other units of it."""
_UNITS = {
    "cpu_milli": _MILLI_CORES.number_text,
    "memory_mib": _MEBIBYTES.number_text,
    "gpu": GPUS.number_text,
    "num_gpu": GPUS.number_text,
}
"""Column -> its unit, which a cell may carry (``262144 MiB``, ``64000m``, ``2 GPUs``); a cell in
another unit is refused with the number to write (``256Gi``: 262144), as in the planner's CSVs."""


def _parse_row(
    table: Table,
    row: Row,
    ranges: Mapping[str, tuple[int, int, str]],
    problems: list[InputProblem],
) -> dict[str, int] | None:
    """The row's whole-number cells, each within its (lowest, highest, unit) range, or None with
    one problem per bad cell. Numbers are read as the planner's CSVs read them
    (``tabular.parse_cells``): the column's own unit after the number (``_UNITS``), a thousands
    point or decimal comma in a list separated by semicolons or tabs, a comma in a
    comma-separated list refused saying what it may be."""
    parsers = {
        column: partial(
            _thousandths if column == "gpu_milli" else parse_int,
            unit=unit,
            minimum=low,
            maximum=high,
        )
        for column, (low, high, unit) in ranges.items()
    }
    units = {column: _UNITS[column] for column in ranges if column in _UNITS}
    return parse_cells(table, row, parsers, problems, numbers=ranges, units=units)


_WHOLE_UNITS = {
    "cpu_milli": (MILLI, "milli-cores", "cores"),
    "memory_mib": (MIB_PER_GIB, "MiB", "GiB"),
}
"""Column -> (its cells per whole unit, its unit, the whole unit): a node list filled from an
inventory sheet writes cores and GiB where the trace writes milli-cores and MiB."""


def _whole_units_written(
    table: Table, row: Row, values: Mapping[str, int], *, gpu_pod: bool
) -> list[InputProblem]:
    """One problem per cell of ``_WHOLE_UNITS`` that reads as cores or GiB written where
    milli-cores or MiB go. A node below one core or one GiB is no host, so its row is left
    out. A pod may ask for less (Kubernetes allows ``100m``), so only a ``gpu_pod`` below one
    core and one GiB alike is named, and kept as written."""
    below = {
        column: values[column]
        for column, (per_unit, _, _) in _WHOLE_UNITS.items()
        if 0 < values[column] < per_unit
    }
    if gpu_pod and len(below) < len(_WHOLE_UNITS):
        return []
    problems = []
    for column, value in below.items():
        per_unit, unit, whole = _WHOLE_UNITS[column]
        what = (
            "in a pod with a GPU that asks for under one core and one GiB: read as written"
            if gpu_pod
            else "less than one: node left out"
        )
        problems.append(
            replace(
                table.problem(
                    row,
                    column,
                    f"{value} {unit} is {value / per_unit:.3g} {whole}, {what}; the column is "
                    f"in {unit}, not {whole}",
                    f"write {value * per_unit} for {value} {whole} ({whole} × {per_unit})",
                ),
                row_kept=gpu_pod,
            )
        )
    return problems


def _thousandths(text: str, *, unit: str, minimum: int, maximum: int) -> int:
    """A ``gpu_milli`` cell as ``parse_int`` reads it; a number between 0 and 1 (``0.46``) is a
    share of a GPU written where thousandths go, refused naming the number to write."""
    try:
        return parse_int(text, unit=unit, minimum=minimum, maximum=maximum)
    except CellError:
        share = float(text) if _SHARE.fullmatch(text.strip()) else None
        if share is None or not 0 < share < 1:
            raise
        raise CellError(
            f"{text.strip()} is a share of a GPU, written where thousandths of a GPU go",
            f"write {round(share * MILLI)} for {text.strip()} of a GPU: gpu_milli is the share "
            f"× {MILLI}, and {MILLI} for a whole GPU",
        ) from None


_SHARE = re.compile(r"0?\.\d+")
"""A share of a GPU as a fraction (``0.46``, ``.5``)."""


def load_node_list(
    source: Path | str | bytes,
    catalog: Catalog,
    *,
    file_name: str | None = None,
    own_gpus_at: str = OWN_GPUS_OPTION,
) -> Loaded[TraceCluster]:
    """Read a trace node list into Kubernetes hosts and the catalog extended with its models.

    ``own_gpus_at``: where the user gives their own GPU models, as the note on each model the
    catalog lacked names it (the command line's option unless told otherwise). Bad rows are
    listed in ``Loaded.problems`` (file, row, column, fix) and skipped; raises ``InputError``
    when a column is missing or no row is usable.
    """
    name = source_name(source, file_name, "openb_node_list_gpu_node.csv")
    table = read_csv_table(
        source,
        name,
        separators=SPREADSHEET_SEPARATORS,
        max_rows=MAX_HOSTS,
        many_rows_fix=_ONE_ESTATE_FIX,
    )
    try:
        problems = table.require_columns(NODE_COLUMNS, ())
    except InputError as missing:
        raise InputError([_node_names_missing(p) for p in missing.problems]) from None
    gpus = dict(catalog.gpus)
    hosts: list[Host] = []
    seen: dict[str, tuple[Row, str]] = {}  # host_key -> the first node's row and name
    added: dict[str, list[Row]] = {}  # a trace model the catalog lacked -> its nodes' rows
    spellings: dict[str, dict[str, int]] = {}  # such a model -> its other spellings' first rows
    names = _ModelNames(catalog)
    for row in _rows_by_header(table, (*NODE_COLUMNS,), problems):
        node = _node_name(table, row, seen, problems)
        if node is None:
            continue
        values = _parse_row(table, row, _NODE_RANGES, problems)
        if values is not None:
            slips = _whole_units_written(table, row, values, gpu_pod=False)
            problems.extend(slips)
            values = None if slips else values
        model_text = _written_model(table, row, values, problems)
        if model_text is None or values is None:
            continue
        model = names.model(model_text, row, added)
        if model and model not in gpus and not _is_model_name(model):
            problems.append(_no_model_name(table, row, model))
            continue
        per_board = gpus[model].gpus_per_board if model in gpus else 1
        if values["gpu"] % per_board:
            # As the inventory refuses it: a host holds whole boards.
            problems.append(
                table.problem(
                    row,
                    "gpu",
                    f"{model} boards carry {per_board} GPUs each, so a host cannot have "
                    f"{values['gpu']}",
                    f"enter a multiple of {per_board} (GPUs, not boards)",
                )
            )
            continue
        seen[host_key(node)] = (row, node)
        if model and model not in gpus:
            gpus[model] = trace_gpu_model(model)
        if model and model not in catalog.gpus:
            added.setdefault(model, []).append(row)
            if model_text != model:
                spellings.setdefault(model, {}).setdefault(model_text, row.number)
        hosts.append(
            Host(
                name=node,
                cluster=CLUSTER,
                gpu_model=model,
                gpus=values["gpu"],
                cpu_cores=values["cpu_milli"] / MILLI,
                ram_gib=values["memory_mib"] / MIB_PER_GIB,
                network_gbps=0.0,
                rdma=False,
                mig_enabled=False,
                platform=Platform.KUBERNETES,
            )
        )
    if not hosts:
        raise InputError([*problems, table.problem(None, None, "no usable node row", "add nodes")])
    _refuse_large_estate(table, hosts)
    problems.extend(
        _unknown_model(table, gpus[model], rows, catalog, own_gpus_at)
        for model, rows in added.items()
        if model not in TRACE_MODEL_NAMES
    )
    inventory = Inventory(tuple(hosts))
    models = tuple(
        _added_model_note(gpus[model], rows, spellings.get(model, {}), own_gpus_at)
        for model, rows in added.items()
    )
    notes = _node_list_notes(name, inventory, models, names.notes(name, "node"))
    return Loaded(TraceCluster(inventory, replace(catalog, gpus=gpus), notes), tuple(problems))


_ADD_SN = "add a column named 'sn' to the header row"
"""How ``tabular.Table.require_columns`` says to add the node name column."""


def _node_names_missing(problem: InputProblem) -> InputProblem:
    """``problem`` of a node list missing a column; when the column is ``sn`` (a list whose
    node names were dropped), the fix says what it holds."""
    if problem.fix != _ADD_SN:
        return problem
    return replace(
        problem,
        fix=f"{_ADD_SN}, holding a unique name for each node (the trace's are "
        "openb-node-0000, openb-node-0001, ...)",
    )


def _rows_by_header(
    table: Table, columns: Sequence[str], problems: list[InputProblem]
) -> list[Row]:
    """The data rows of ``table``, each read by the header above it: a row whose cells are
    ``columns`` of the list (at least ``_TRACE_MATCH`` of them, nothing else) is the header of
    another list joined below (``cat`` of two openb lists, whose columns differ), a problem and
    no data row, and the rows below it are read by its columns. (A header repeated as it is
    never reaches here: ``tabular.read_csv_table`` lists it.)"""
    known = set(columns)
    layout: list[str] | None = None
    rows: list[Row] = []
    for row in table.rows:
        cells = list(row.cells.values())
        named = [normalise_column(c) for c in cells if c]
        if len(set(named) & known) >= _TRACE_MATCH and known.issuperset(named):
            layout = [normalise_column(c) for c in cells]
            problems.append(
                table.problem(
                    row,
                    None,
                    "the header row is repeated here, with other columns "
                    f"({', '.join(c for c in cells if c)}): lists joined one after the other; "
                    "the rows below it are read by its columns",
                    "delete this row, and give each list as a file of its own when their "
                    "columns differ",
                )
            )
            continue
        if layout is not None:
            row = Row(
                row.number,
                {c: (cells[i] if i < len(cells) else "") for i, c in enumerate(layout) if c},
            )
        rows.append(row)
    return rows


_NO_VALUE = frozenset({"nan", "none", "null", "n/a", "na"})
"""Cell texts (case aside) that stand for an empty cell: how pandas and Python write a missing
value in a list they save. The published README shows a CPU-only node's model and an
unconstrained pod's ``gpu_spec`` as ``nan``."""


def _is_empty(text: str) -> bool:
    """Whether a cell is empty or holds a spelling of an empty cell (``_NO_VALUE``)."""
    return not text.strip() or text.strip().casefold() in _NO_VALUE


def _written_model(
    table: Table, row: Row, values: Mapping[str, int] | None, problems: list[InputProblem]
) -> str | None:
    """The node's GPU model as written (invisible characters removed and said), empty for a
    node without GPUs whose model is empty or ``nan``; None with a problem for a node with
    GPUs that names no model (the row is left out)."""
    written = row.get("model")
    if _is_empty(written):
        if values is not None and values["gpu"] > 0:
            empty = f" ({quoted(written)} stands for an empty cell)" if written else ""
            problems.append(
                table.problem(
                    row,
                    "model",
                    f"a node with GPUs names no GPU model{empty}: node left out",
                    "fill in model: the GPU model of the node's GPUs",
                )
            )
            return None
        return ""
    where = partial(table.problem, row, "model")
    empty_name = ("the GPU model holds only invisible characters", "fill in model")
    return usable_name(written, "GPU model", where, problems, empty=empty_name)


_MODEL_NAME = re.compile(r"[A-Za-z\d][\w .+()/-]*", re.ASCII)
"""How a GPU model name is written: letters, digits, spaces and ``. + ( ) / - _``, starting
with a letter or digit."""


def _is_model_name(text: str) -> bool:
    """Whether ``text`` reads as a GPU model name (``_MODEL_NAME``) with a letter in it: a bare
    number (``16384``) or markup (``<img ...>``, ``[link](url)``) is none."""
    return bool(_MODEL_NAME.fullmatch(text)) and any(c.isalpha() for c in text)


def _no_model_name(table: Table, row: Row, text: str) -> InputProblem:
    """The problem of a node whose ``model`` cell is no GPU model name: the node is left out."""
    number = " (a number: a memory size or count in the model column?)" if text.isdigit() else ""
    return table.problem(
        row,
        "model",
        f"{shown(text)} is no GPU model name{number}: node left out",
        "write the GPU model of the node's GPUs in model (the trace's "
        f"{', '.join(TRACE_MODEL_NAMES)}, or a catalog model such as T4 or A100-80GB-SXM)",
    )


_TYPO_LIKENESS = 0.8
"""Least likeness (``difflib`` ratio of normalised names) of a catalog model offered for an
unknown one: ``T4x`` is ``T4`` mistyped, while ``A800`` is no ``A10`` but another GPU."""


def _unknown_model(
    table: Table,
    model: GpuModel,
    rows: Sequence[Row],
    catalog: Catalog,
    own_gpus_at: str,
) -> InputProblem:
    """The problem of a model neither the catalog nor the trace has (a typo, or a GPU the
    catalog lacks): its nodes are kept, planned with the figures ``trace_gpu_model`` gave it,
    which the message says; the fix names the closest catalog models and where to give its
    own figures (``own_gpus_at``)."""
    stated = stated_memory_gib(model.name) is not None
    figures = (
        f"{model.memory_gib:g} GiB (as its name states), {model.tdp_w:g} W and "
        f"{model.fp16_tflops:g} TFLOPS FP16 (guesses)"
        if stated
        else f"{model.memory_gib:g} GiB, {model.tdp_w:g} W and {model.fp16_tflops:g} TFLOPS "
        "FP16 (guesses)"
    )
    wanted = normalise_model_name(model.name)
    close = [
        c
        for c in catalog.closest_names(model.name)
        if SequenceMatcher(None, wanted, normalise_model_name(c)).ratio() >= _TYPO_LIKENESS
    ]
    named = " or ".join(quoted(c) for c in close)
    return replace(
        table.problem(
            rows[0],
            "model",
            f"GPU model {quoted(model.name)} ({counted(len(rows), 'node')}, first on row "
            f"{rows[0].number}) is neither in the catalog nor one of the trace's models: "
            f"planned as a GPU of {figures}",
            (f"if it is {named}, write that name; otherwise g" if close else "g")
            + f"ive the model's figures as your own GPU model ({own_gpus_at})",
        ),
        row_kept=True,
    )


_ONE_ESTATE_FIX = "plan one cluster or site at a time (one node list each)"
"""How to bring a node list within the inventory's limits (``MAX_HOSTS``, ``MAX_GPUS``)."""


def _refuse_large_estate(table: Table, hosts: Sequence[Host]) -> None:
    """Refuse a node list of more than ``MAX_GPUS`` GPUs, as an inventory CSV is refused."""
    gpus = sum(h.gpus for h in hosts)
    if gpus > MAX_GPUS:
        message = f"the node list has {limit_text(gpus, MAX_GPUS, 'GPUs')}"
        raise InputError([table.problem(None, None, message, _ONE_ESTATE_FIX)])


def _node_name(
    table: Table, row: Row, seen: Mapping[str, tuple[Row, str]], problems: list[InputProblem]
) -> str | None:
    """The row's node name as the planner's inventory reads a host name (``usable_name``:
    invisible characters removed and said), or None with a problem: empty, too long, or the
    name of a node already read (``seen``: by ``host_key``, to its row and name), which is
    left out."""
    written = row.get("sn")
    where = partial(table.problem, row, "sn")
    fix = "give every node a unique name"
    if not written:
        problems.append(where("the node name is empty", fix))
        return None
    empty = ("the node name holds only invisible characters", fix)
    name = usable_name(written, "node name", where, problems, empty=empty)
    if name is None:
        return None
    if host_key(name) not in seen:
        return name
    problems.append(
        where(
            _listed_twice("node", written, name, seen[host_key(name)]) + ": left out",
            f"{fix} (a node list joined with another repeats its nodes)",
        )
    )
    return None


class _ModelNames:
    """GPU models as a list writes them, read as the models they are, with the rows of each
    name read as a catalog model by its vendor's name (``gpu_names.match_gpu_name``), and of
    each ``gpu_spec`` written otherwise than the trace writes it.

    ``held``: the GPU models of the inventory a pod list is planned on (empty when unknown)."""

    def __init__(self, catalog: Catalog, held: frozenset[str] = frozenset()) -> None:
        self._catalog = catalog
        self._held = held
        self._vendor: dict[str, tuple[GpuName, list[Row]]] = {}
        self._families: dict[str, tuple[tuple[str, ...], list[Row]]] = {}
        self.separated: list[Row] = []
        """Rows whose models are separated by ``,`` or ``;``, not the trace's ``|``."""
        self.split: list[Row] = []
        """Rows whose models are separated by ``/`` or spaces, each part a model."""
        self.listed: list[Row] = []
        """Rows whose ``gpu_spec`` is a Python list (``['V100M16', 'V100M32']``)."""

    def _own(self, written: str, added: Iterable[str] = ()) -> str | None:
        """The catalog's model ``written`` names (case, spaces and dashes aside), else the
        trace's model or one already ``added`` it names so, else None."""
        wanted = normalise_model_name(written)
        return (
            self._catalog.resolve(written)
            or trace_model(written)
            or next((m for m in added if normalise_model_name(m) == wanted), None)
        )

    def _family(self, written: str) -> tuple[str, ...] | None:
        """The trace's models of the family ``written`` names (``V100``: V100M16 and
        V100M32), or None: no family, or the inventory in use holds none of them (a catalog
        V100 of one's own is then read by its vendor's name)."""
        members = trace_family(written)
        if not members or (self._held and self._held.isdisjoint(members)):
            return None
        return members

    def allowed(self, written: str, row: Row) -> tuple[str, ...]:
        """The models a ``gpu_spec`` entry ``written`` (on ``row``) allows: the model it names
        (``model``), else the trace's models of the family it names (``V100``), else the models
        it separates by ``/`` or spaces when each part is one, else ``model``."""
        if self._own(written):
            return (self.model(written, row),)
        family = self._family(written)
        if family:
            self._families.setdefault(written, (family, []))[1].append(row)
            return family
        parts = _PART_SEPARATORS.split(written.strip())
        if len(parts) > 1 and all(self._own(p) or self._family(p) for p in parts):
            self.split.append(row)
            models = (m for p in parts for m in (self._family(p) or (self.model(p, row),)))
            return tuple(dict.fromkeys(models))
        return (self.model(written, row),)

    def model(self, written: str, row: Row, added: Iterable[str] = ()) -> str:
        """The model ``written`` (on ``row``) is: the catalog's model it names (case, spaces and
        dashes aside), else the trace's model or one already ``added`` it names so, else the
        catalog model its vendor's name is (``NVIDIA A100-SXM4-80GB``), else ``written``."""
        if not written:
            return ""
        known = self._own(written, added)
        if known:
            return known
        if written not in self._vendor:
            # Imported here: the importers package imports this module.
            from planner.inputs.importers.gpu_names import match_gpu_name

            self._vendor[written] = (match_gpu_name(written, self._catalog), [])
        match, rows = self._vendor[written]
        if match.model is None:
            return written
        rows.append(row)
        return match.model

    def notes(self, file: str, noun: str) -> list[ImportNote]:
        """One note per name of ``file`` read as a catalog model by its vendor's name: how, on
        which rows (of a ``noun`` each); and one on the rows separating models by ``,`` or
        ``;``."""
        from planner.inputs.importers.provenance import ImportNote

        locator = "model" if noun == "node" else "gpu_spec"

        def note(source: NoteSource, text: str) -> ImportNote:
            return ImportNote(file, None, locator, "", "", "", source, text)

        notes = [
            note(
                "assumed" if match.source == "assumed" else "derived",
                f"GPU model {quoted(written)} ({counted(len(rows), noun)}, first on row "
                f"{rows[0].number}) is read as the catalog model {match.model}: {match.reason}"
                + (
                    "; if it is another, write that model's catalog name"
                    if match.source == "assumed"
                    else ""
                ),
            )
            for written, (match, rows) in self._vendor.items()
            if rows
        ]
        notes.extend(
            note(
                "derived",
                f"GPU model {quoted(written)} ({counted(len(rows), noun)}, first on row "
                f"{rows[0].number}) is read as {'|'.join(family)}: the trace's models of that "
                "family, any of them, as the trace's README reads such a gpu_spec; to allow one "
                "only, write its name",
            )
            for written, (family, rows) in self._families.items()
        )
        written_so = (
            (self.separated, "separate", "models by ',' or ';'"),
            (self.split, "separate", "models by '/' or spaces"),
            (self.listed, "write", "gpu_spec as a Python list (['V100M16', 'V100M32'])"),
        )
        notes.extend(
            note(
                "derived",
                f"{counted(len(rows), noun)}, first on row {rows[0].number}, "
                f"{verb + 's' if len(rows) == 1 else verb} {what}: read as separated by '|', "
                "as the trace writes them",
            )
            for rows, verb, what in written_so
            if rows
        )
        return notes


_NO_COLUMN = "the trace has no column for it"


def _node_list_notes(
    file: str,
    inventory: Inventory,
    added_models: Sequence[str],
    read_as: Sequence[ImportNote] = (),
) -> tuple[ImportNote, ...]:
    """The notes of the node list ``file`` read as ``inventory``: the hosts read, one per line
    of ``added_models`` (the models the catalog lacked), the models ``read_as`` catalog models
    by their vendor's names, the nodes without GPU, and each host field the trace has no
    column for with its value taken from the hosts built, so a note cannot disagree with the
    plan."""
    # Imported in the functions that build notes: the importers package imports this module.
    from planner.inputs.importers.provenance import ImportNote

    hosts = inventory.hosts
    read = ImportNote(
        file,
        None,
        ", ".join(NODE_COLUMNS),
        "",
        "hosts",
        f"{len(hosts):,} ({inventory.gpu_count:,} GPUs)",
        "read",
        f"one host per node: cores = cpu_milli / {MILLI}, RAM = memory_mib / {MIB_PER_GIB}",
    )
    models = [ImportNote(file, None, "model", "", "", "", "assumed", m) for m in added_models]
    # The host fields a node list has no column for: every node is given the same value.
    assumed = {
        "cluster": _one([h.cluster for h in hosts]),
        "platform": _one([h.platform.value for h in hosts]),
        "network_gbps": _one([h.network_gbps for h in hosts]),
        "rdma": _one([yes_no(h.rdma) for h in hosts]),
        "mig_enabled": _one([yes_no(h.mig_enabled) for h in hosts]),
    }
    fields = [_no_column(file, field, value) for field, value in assumed.items()]
    cpu_only = sum(1 for h in hosts if not h.gpus)
    without_gpu = (
        [
            ImportNote(
                file,
                None,
                "gpu",
                "",
                "",
                "",
                "derived",
                f"{cpu_only:,} {'node has' if cpu_only == 1 else 'nodes have'} no GPU (gpu 0): "
                "CPU-only hosts, for pods without GPU",
            )
        ]
        if cpu_only
        else []
    )
    return (read, *models, *read_as, *without_gpu, *fields)


def _no_column(file: str, field: str, value: str) -> ImportNote:
    """The note on ``field`` of ``file``, which the trace has no column for: ``value`` assumed."""
    from planner.inputs.importers.provenance import ImportNote

    return ImportNote(file, None, "", "", field, value, "assumed", _NO_COLUMN)


def _one(values: Sequence[object]) -> str:
    """The value every host or class shares, or the values joined by `` | ``."""
    return " | ".join(str(v) for v in dict.fromkeys(values))


def _added_model_note(
    model: GpuModel, rows: Sequence[Row], spellings: Mapping[str, int], own_gpus_at: str
) -> str:
    """What a trace model the catalog lacked was taken as, on which nodes, and where the user
    gives its figures (``own_gpus_at``); ``spellings``: the other ways its nodes write it
    (case, spaces and dashes aside), each with its first row."""
    guessed = (
        "from its datasheet"
        if model.name in _TRACE_MODELS
        else "memory from its name, the rest guesses"
        if stated_memory_gib(model.name) is not None
        else "guesses"
    )
    also = ", ".join(f"{quoted(s)} (row {number})" for s, number in spellings.items())
    return (
        f"GPU model {quoted(model.name)} ({counted(len(rows), 'node')}, first on row "
        f"{rows[0].number}) is "
        f"not in the catalog: taken as a GPU of {model.memory_gib:g} GiB, {model.tdp_w:g} W and "
        f"{model.fp16_tflops:g} TFLOPS FP16 ({guessed}), price unknown; give it as your own "
        f"GPU model ({own_gpus_at}) to set its figures"
        + (f"; also written {also}: one model, case, spaces and dashes aside" if also else "")
    )


_Shape = tuple[int, int, int, int, tuple[str, ...]]
"""(num_gpu, gpu_milli, cpu_milli, memory_mib, allowed models) of one pod."""


def _pod_shape(
    table: Table, row: Row, names: _ModelNames, problems: list[InputProblem]
) -> _Shape | None:
    """(num_gpu, gpu_milli, cpu_milli, memory_mib, allowed models) of one pod, or None; the
    allowed models are read by ``_allowed_models``."""
    values = _parse_row(table, row, _POD_RANGES, problems)
    if values is None:
        return None
    gpus, milli = values["num_gpu"], values["gpu_milli"]
    if gpus:
        problems.extend(_whole_units_written(table, row, values, gpu_pod=True))
    if gpus == 0 and milli:
        problems.append(
            table.problem(
                row,
                "gpu_milli",
                f"a pod with num_gpu 0 asks for {milli} thousandths of a GPU",
                "set gpu_milli to 0, or num_gpu to 1",
            )
        )
        return None
    if gpus and milli == 0:
        problems.append(
            table.problem(
                row,
                "gpu_milli",
                f"a pod with {gpus} GPUs asks for 0 thousandths of them",
                "set gpu_milli (1-1000), or num_gpu to 0",
            )
        )
        return None
    if gpus and milli == 1:
        # One thousandth of a GPU is no request: a whole GPU written as a share (1 or 1.0).
        problems.append(
            table.problem(
                row,
                "gpu_milli",
                f"{row.get('gpu_milli').strip()} is one thousandth of a GPU: gpu_milli is in "
                f"thousandths, a whole GPU is {MILLI}",
                f"write {MILLI} if whole GPUs are meant (a share of 0.46 GPU is 460)",
            )
        )
        return None
    if gpus > 1 and milli != MILLI:
        problems.append(
            table.problem(
                row,
                "gpu_milli",
                f"a pod with {gpus} GPUs asks for {milli} thousandths of each",
                "set gpu_milli to 1000 (a share is of one GPU only), or num_gpu to 1",
            )
        )
        return None
    allowed = _allowed_models(table, row, names, problems)
    if allowed is None:
        return None
    return gpus, milli, values["cpu_milli"], values["memory_mib"], allowed


_SPEC_SEPARATORS = re.compile(r"[|,;]")
"""What separates the models of a ``gpu_spec``: the trace's ``|``, and ``,`` or ``;`` as a list
written by hand separates them."""
_PART_SEPARATORS = re.compile(r"\s*/\s*|\s+")
"""What else separates models written by hand (``V100M16/V100M32``, ``V100M16 V100M32``): read
so only when each part is a model, as model names hold spaces and ``/`` too."""
_PYTHON_LIST = re.compile(r"\[(.*)\]", re.DOTALL)
"""A ``gpu_spec`` saved from a Python list (``['V100M16', 'V100M32']``): its models, quoted."""


def _allowed_models(
    table: Table, row: Row, names: _ModelNames, problems: list[InputProblem]
) -> tuple[str, ...] | None:
    """The models a pod's ``gpu_spec`` allows, each as ``names`` reads it; empty for any model
    (an empty cell, or ``nan`` as the trace's README writes no constraint); None with a problem
    when a model holds only invisible characters."""
    spec = row.get("gpu_spec")
    listed = _PYTHON_LIST.fullmatch(spec.strip())
    named: set[str] = set()
    where = partial(table.problem, row, "gpu_spec")
    empty = ("a model in gpu_spec holds only invisible characters", "delete it, or write the model")
    for written in _SPEC_SEPARATORS.split(listed.group(1) if listed else spec):
        if listed:
            written = written.strip().strip("'\"")
        if _is_empty(written):
            continue
        model = usable_name(written, "GPU model", where, problems, empty=empty)
        if model is None:
            return None
        named.update(names.allowed(model, row))
    if named and listed:
        names.listed.append(row)
    elif named and {",", ";"} & set(spec):
        names.separated.append(row)
    return tuple(sorted(named))


def _pod_name(table: Table, row: Row, problems: list[InputProblem]) -> str | None:
    """The row's pod name as the planner reads a class name (``usable_name``: invisible
    characters removed and said), empty when the row has none; None with a problem when it is
    too long or holds only invisible characters."""
    written = row.get("name")
    if not written:
        return ""
    where = partial(table.problem, row, "name")
    empty = ("the pod name holds only invisible characters", "write the pod's name")
    return usable_name(written, "pod name", where, problems, empty=empty)


_SHAPE_COLUMNS = ("num_gpu", "gpu_milli", "cpu_milli", "memory_mib", "gpu_spec")
"""The columns of a pod's shape, in ``_Shape`` order."""
_POD_RECORD = ("qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time")
"""Columns that tell a pod apart from another of its shape; a repeat of a pod has them alike."""


@dataclass(frozen=True)
class _FirstPod:
    """The first row counted under a pod name (by ``host_key``, as Kubernetes matches names)."""

    row: Row
    name: str
    shape: _Shape


def _repeated_pod(
    table: Table, row: Row, name: str, shape: _Shape, first: _FirstPod
) -> InputProblem:
    """The problem of a row naming the pod ``first`` counted: the same pod listed twice (every
    shape and record cell alike, as two lists joined repeat theirs), left out so its demand is
    counted once; or another pod given the same name (each openb list numbers its pods from
    ``openb-pod-0000``), kept and counted as its own pod, the cells that differ named."""
    said = _listed_twice("pod", row.get("name"), name, (first.row, first.name))
    differs = [
        f"{column} {here or '(empty)'} here, {there or '(empty)'} there"
        for column, here, there in (
            *(
                (c, _shape_cell(shape, i), _shape_cell(first.shape, i))
                for i, c in enumerate(_SHAPE_COLUMNS)
            ),
            *((c, row.get(c), first.row.get(c)) for c in _POD_RECORD),
        )
        if here != there
    ]
    if not differs:
        return table.problem(
            row,
            "name",
            f"{said}: left out, its demand counted once",
            "give each pod once (a pod list joined with another repeats its pods)",
        )
    return replace(
        table.problem(
            row,
            "name",
            f"{said.replace('is listed twice', 'is named twice')}, but this is another pod "
            f"({'; '.join(differs)}): counted as a pod of its own",
            "give the two pods different names (lists joined number their pods alike); if "
            "they are one pod, delete the row that is wrong",
        ),
        row_kept=True,
    )


def _shape_cell(shape: _Shape, index: int) -> str:
    """One field of ``shape`` as a message writes it (allowed models joined by ``|``)."""
    value = shape[index]
    return "|".join(value) if isinstance(value, tuple) else str(value)


def _listed_twice(noun: str, written: str, name: str, first: tuple[Row, str]) -> str:
    """``node x is listed twice (first on row 3 as 'X'; names differing only in case are one
    node)``: ``name`` (as ``written``) repeats the ``first`` one's (its row and name)."""
    row, first_name = first
    case = (
        ""
        if first_name == name
        else f" as {quoted(first_name)}; names differing only in case are one {noun}"
    )
    return f"{noun} {shown(written.strip())} is listed twice (first on row {row.number}{case})"


def class_name(
    gpus: int, milli: int, cpu_milli: int, memory_mib: int, models: Sequence[str] = ()
) -> str:
    """The name of the class of the trace's pods of one shape: ``gpu<GPUs>x<thousandths of
    each>-cpu<milli-cores>-mem<MiB>``, ``-<models joined by +>`` after it for pods restricted to
    some models; ``cpu<milli-cores>-mem<MiB>`` for pods without GPU."""
    if not gpus:
        return f"cpu{cpu_milli}-mem{memory_mib}"
    restricted = f"-{'+'.join(models)}" if models else ""
    return f"gpu{gpus}x{milli}-cpu{cpu_milli}-mem{memory_mib}{restricted}"


def _pod_class(shape: _Shape, count: int, memory_gib: float) -> WorkloadClass:
    """The class of ``count`` pods of one shape; ``memory_gib`` is GPU memory per GPU."""
    gpus, milli, cpu_milli, memory_mib, spec = shape
    share = gpus == 1 and milli < MILLI
    return WorkloadClass(
        name=class_name(gpus, milli, cpu_milli, memory_mib, spec),
        kind=WorkloadKind.TRAINING,
        instances=count,
        gpus=milli / MILLI if share else float(gpus),
        memory_gib=(milli / MILLI if share else gpus) * memory_gib,
        busy_fraction=1.0,
        daily_schedule=(1.0,) * HOURS_PER_DAY,
        days_per_week=7,
        vcpus=cpu_milli / MILLI,
        ram_gib=memory_mib / MIB_PER_GIB,
        needs_live_migration=False,
        needs_isolation=False,
        latency_tolerant=False,
        gpu_models=spec,
        memory_share=milli / MILLI if share else None,
    )


def cpu_only_class(cpu_milli: int, memory_mib: int, count: int) -> WorkloadClass:
    """The class of ``count`` pods of the trace that use no GPU, of ``cpu_milli`` milli-cores
    and ``memory_mib`` MiB each, as a pod list's ``cpu_only`` classes are made."""
    return _pod_class((0, 0, cpu_milli, memory_mib, ()), count, 0.0)


def load_pod_list(
    source: Path | str | bytes,
    catalog: Catalog,
    *,
    file_name: str | None = None,
    gpu_models: Iterable[str] = (),
) -> Loaded[TracePods]:
    """Read a trace pod list into classes of identical pods (first-seen order).

    ``gpu_models``: the models of the inventory the pods will be planned on; a share's
    ``memory_gib`` is its share of the smallest of them a pod may use (else of the smallest
    catalog model), so every GPU it may land on holds it. A GPU pod whose ``gpu_spec`` names
    none of them is left out, as it could never be placed. Bad rows are listed in
    ``Loaded.problems`` and skipped; raises ``InputError`` when a column is missing or no row is
    usable.
    """
    name = source_name(source, file_name, "openb_pod_list.csv")
    fix = (
        f"split the pod list into lists of at most {MAX_TRACE_PODS:,} pods and plan each on "
        "the node list"
    )
    table = read_csv_table(
        source, name, separators=SPREADSHEET_SEPARATORS, max_rows=MAX_TRACE_PODS, many_rows_fix=fix
    )
    problems = table.require_columns(POD_COLUMNS, _POD_OPTIONAL)
    inventory_models = list(dict.fromkeys(gpu_models))
    held = frozenset(inventory_models)
    counts: dict[_Shape, int] = {}
    seen: dict[str, _FirstPod] = {}  # host_key -> the first pod counted of that name
    names = _ModelNames(catalog, held)
    elsewhere = 0  # pods left out as they may only use models the inventory lacks
    for row in _rows_by_header(table, (*POD_COLUMNS, *_POD_OPTIONAL), problems):
        pod = _pod_name(table, row, problems)
        if pod is None:
            continue
        shape = _pod_shape(table, row, names, problems)
        if shape is None:
            continue
        first = seen.get(host_key(pod)) if pod else None
        if first is not None:
            repeat = _repeated_pod(table, row, pod, shape, first)
            problems.append(repeat)
            if not repeat.row_kept:
                continue
        spec = shape[4]
        if shape[0] and spec and inventory_models and held.isdisjoint(spec):
            # The pod may only run on models no node has: it could never be placed.
            problems.append(
                table.problem(
                    row,
                    "gpu_spec",
                    f"pod {shown(pod) or '(unnamed)'} may only use "
                    f"{' or '.join(shown(m) for m in spec)}, which no node has (the nodes have "
                    f"{', '.join(inventory_models)}): pod left out",
                    "give the node list that holds these models, or name one of the nodes' "
                    "models in gpu_spec",
                )
            )
            elsewhere += 1
            continue
        counts[shape] = counts.get(shape, 0) + 1
        if pod and first is None:
            seen[host_key(pod)] = _FirstPod(row, pod, shape)
    if not counts:
        raise InputError([*problems, _no_pod_planned(table, elsewhere, inventory_models)])
    planned = inventory_models or list(catalog.gpus)
    gpu: list[WorkloadClass] = []
    cpu_only: list[WorkloadClass] = []
    for shape, count in counts.items():
        allowed = [m for m in planned if not shape[4] or m in shape[4]] or planned
        smallest = min(
            (catalog.gpus[m].memory_gib for m in allowed if m in catalog.gpus), default=16.0
        )
        (gpu if shape[0] else cpu_only).append(_pod_class(shape, count, smallest))
    pods = TracePods(tuple(gpu), tuple(cpu_only))
    notes = _pod_list_notes(name, pods, inventory_models, names.notes(name, "pod"))
    return Loaded(replace(pods, notes=notes), tuple(problems))


def _no_pod_planned(table: Table, elsewhere: int, inventory_models: Sequence[str]) -> InputProblem:
    """Why a pod list gives no pod: its rows are bad, or (``elsewhere`` of them) its pods may
    only use GPU models the inventory they are planned on lacks (``inventory_models``), as a
    pod list read before its own node list is."""
    if not elsewhere:
        return table.problem(None, None, "no usable pod row", "add pods")
    return table.problem(
        None,
        None,
        f"no pod can be planned on the inventory in use: {counted(elsewhere, 'GPU pod')} may "
        f"only use GPU models its nodes lack (they have {', '.join(inventory_models)})",
        "give the trace's node list with the pod list (--inventory NODE_LIST); on the "
        "dashboard, upload the node list on the Inventory page and apply it first, then the pod "
        "list",
    )


def _pod_list_notes(
    file: str,
    pods: TracePods,
    inventory_models: Sequence[str],
    read_as: Sequence[ImportNote] = (),
) -> tuple[ImportNote, ...]:
    """The notes of the pod list ``file`` read as ``pods``, planned on ``inventory_models``:
    the pods read and grouped, each class field the trace has no column for with its value
    taken from the classes built, GPU memory of a share, the pods without GPU, and how
    ``gpu_spec`` was ``read_as`` the models named."""
    from planner.inputs.importers.provenance import ImportNote

    classes = (*pods.workloads, *pods.cpu_only)
    read = ImportNote(
        file,
        None,
        "num_gpu, gpu_milli, cpu_milli, memory_mib, gpu_spec",
        "",
        "classes",
        plan_inputs_note(pods),
        "read",
        "pods of one shape (GPUs, share, cores, memory, allowed models) form one class",
    )
    all_day = all(min(w.daily_schedule) == 1 for w in classes)
    # The class fields a pod list has no column for: every class is given the same value.
    assumed = {
        "kind": _one([w.kind.value for w in classes]),
        "busy_fraction": _one([w.busy_fraction for w in classes]),
        "active_hours": "24 h, 7 days" if all_day else "mixed",
        "priority": _one([w.priority for w in classes]),
        "live_migration, isolation, remote OK": _one(
            [
                yes_no(w.needs_live_migration or w.needs_isolation or w.latency_tolerant)
                for w in classes
            ]
        ),
    }
    notes = [read, *(_no_column(file, field, value) for field, value in assumed.items())]
    if any(w.memory_share is not None for w in pods.workloads):
        notes.append(
            ImportNote(
                file,
                None,
                "",
                "",
                "memory_gib",
                "share × GPU memory",
                "assumed",
                "a share of a GPU (gpu_milli) is that share of its memory too, of the smallest "
                "model the pod may use among the inventory's "
                f"({', '.join(inventory_models) or 'none: the catalog'})",
            )
        )
    if pods.cpu_only:
        notes.append(
            ImportNote(
                file,
                None,
                "num_gpu",
                "",
                "",
                "",
                "derived",
                f"{sum(w.instances for w in pods.cpu_only):,} pods use no GPU: they take node "
                "cores and RAM, planned only by methods that place pods on Kubernetes nodes",
            )
        )
    return (*notes, *read_as)


def plan_inputs_note(pods: TracePods) -> str:
    """One line on what the pod list holds, for a summary."""
    gpu_pods = sum(w.instances for w in pods.workloads)
    cpu_pods = sum(w.instances for w in pods.cpu_only)
    classes = len(pods.workloads)
    return (
        f"{gpu_pods} GPU {'pod' if gpu_pods == 1 else 'pods'} in {classes} "
        f"{'class' if classes == 1 else 'classes'}; {cpu_pods} "
        f"{'pod' if cpu_pods == 1 else 'pods'} without GPU"
    )


def model_names(hosts: Sequence[Host]) -> tuple[str, ...]:
    """The GPU models of ``hosts``, first seen first."""
    return tuple(dict.fromkeys(h.gpu_model for h in hosts if h.gpus))
