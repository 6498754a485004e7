"""GPU hosts from ``nvidia-smi``: the ``--query-gpu`` CSV, the ``-L`` list and the plain table.

Each output is read by its header and labels, never by character positions: the query CSV by
its column names (any set and order, with or without ``nounits``), ``-L`` by its ``GPU n:`` and
``MIG <profile> Device n:`` lines, the table by the labels in its header cells (``Name``,
``Memory-Usage``, ``MIG M.``; old 79-column and new layouts alike) and its ``MIG devices``
sub-table. A host is one output unless a ``hostname`` column names several, or the file is a
run over several hosts (pdsh, clush, Ansible: ``text.host_outputs``), read host by host. What
nvidia-smi cannot know (cluster, CPU cores, memory, network) is left to other files or assumed
later.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

from planner.inputs.catalog import Catalog, MigProfile
from planner.inputs.importers.gpu_names import GpuName, gpu_family, match_gpu_name
from planner.inputs.importers.hosts import Fact, HostFacts, HostsRead, MigGpu, MigInstance, fact
from planner.inputs.importers.provenance import ImportNote, NoteSource
from planner.inputs.importers.text import (
    COUNT,
    COUNT_SAID,
    ToolText,
    host_outputs,
    name_host,
    tool_text,
    whole_count,
)
from planner.inputs.problems import InputError, InputProblem, first_problems
from planner.inputs.tabular import (
    SPREADSHEET_SEPARATORS,
    CellError,
    csv_header,
    csv_records,
    number_text,
    quoted,
    visible_name,
)
from planner.words import counted

__all__ = [
    "GPU_LINE",
    "LIST_TOOL",
    "QUERY_TOOL",
    "REPORT_TOOL",
    "SMS_PER_COMPUTE_SLICE",
    "TABLE_TOOL",
    "gpu_instance_profile",
    "is_headerless_query",
    "is_not_available",
    "read_nvidia_smi_list",
    "read_nvidia_smi_query",
    "read_nvidia_smi_report",
    "read_nvidia_smi_table",
]

QUERY_TOOL = "nvidia-smi --query-gpu --format=csv"
LIST_TOOL = "nvidia-smi -L"
REPORT_TOOL = "nvidia-smi -q"
TABLE_TOOL = "nvidia-smi"

SMS_PER_COMPUTE_SLICE = {"a100": 14, "a30": 14, "h100": 16, "h200": 16, "gh200": 16, "b200": 18}
"""Streaming multiprocessors in one MIG compute slice by GPU family (NVIDIA MIG user guide,
profile tables: a 1g instance has 14 SMs on A100 and A30, 16 on H100, H200 and GH200; B200: 18,
as ``nvidia-smi mig -lgip`` on a B200 lists its 1g.23gb, and 36 for its 2g.45gb, in NVIDIA's
mig-parted pull request 166); tells a ``1g.35gb`` from a ``2g.35gb`` instance of the same
memory. The H800 is not listed: no source found gives its slice's SMs for each form (an H800
1g.10gb is reported with 14, as a 114-SM PCIe card would have, where the SXM's 132 SMs would
give 16), so its instances of equal memory are told apart as assumed."""

_QUERY_ALIASES = {
    "name": "name",
    "gpu_name": "name",
    "memory.total": "memory.total",
    "mig.mode.current": "mig.mode.current",
    "index": "index",
    "uuid": "uuid",
    "gpu_uuid": "uuid",
    "pci.bus_id": "pci.bus_id",
    "gpu_bus_id": "pci.bus_id",
    "timestamp": "timestamp",
    "hostname": "hostname",
    "host": "hostname",
    "count": "count",
}
"""Query fields the importer uses (nvidia-smi accepts ``gpu_name`` for ``name``; ``count``, the
host's GPUs, checks the rows); others are ignored."""
_GPU_IDS = ("uuid", "pci.bus_id", "index")
"""Query fields that tell one GPU of a host from another, most telling first."""
_UNIT = re.compile(r"^(?P<field>[^\[]+?)\s*(?:\[(?P<unit>[^\]]*)\])?$")
_MEMORY = re.compile(r"^(?P<number>\d[\d.,]*)\s*(?P<unit>KiB|MiB|GiB)?$", re.IGNORECASE)
_TO_MIB = {"kib": 1 / 1024, "mib": 1.0, "gib": 1024.0}
GPU_LINE = re.compile(
    rf"^GPU\s+(?P<index>{COUNT}):\s*(?P<name>.*?)\s*(?:\(UUID:\s*(?P<uuid>[^)]*?)\s*\))?\s*$"
)
"""A GPU's line of ``nvidia-smi -L``: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)``."""
_MIG_LINE = re.compile(
    r"^\s+MIG\s+(?P<profile>\S+)\s+Device\s+(?P<device>\d+):\s*(?:\(UUID:\s*[^)]*\))?\s*$"
)
_BORDER = re.compile(r"^[|+][-=+| ]*$")
_USAGE = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_LOST_GPU = re.compile(
    r"^\s*Unable to determine the device handle for GPU\s*"
    r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*:\s*(?P<error>.*?)\s*$",
    re.IGNORECASE,
)
"""The line nvidia-smi prints, in place of a GPU's row, for a GPU it cannot reach (fallen off
the bus, Xid 79, or lost): ``Unable to determine the device handle for GPU 0000:0B:00.0: Unknown
Error``."""
_LOST_GPU_FIX = (
    "check that GPU (one fallen off the bus needs reseating, a driver reload or a reboot; "
    "nvidia-smi -q shows its state), then run nvidia-smi again; to count it meanwhile, give the "
    "host's GPUs in an inventory CSV or per cluster (--cluster-gpus)"
)


def _lost_gpu(file: str, number: int, line: str) -> InputProblem | None:
    """The problem of a line saying nvidia-smi could not reach a GPU; None for another line."""
    match = _LOST_GPU.match(line)
    if match is None:
        return None
    return InputProblem(
        file,
        number,
        None,
        f"nvidia-smi could not reach the GPU at bus {match.group('bus')} "
        f"({match.group('error').rstrip('.') or 'no reason given'}): it is not described, so "
        "its host is counted without it",
        _LOST_GPU_FIX,
    )


def is_not_available(value: str) -> bool:
    """nvidia-smi's ways of saying a value is missing: ``[N/A]``, ``N/A``, ``[Not Supported]``,
    ``[Requested functionality has been deprecated]``, an empty cell."""
    cleaned = value.strip()
    return (
        not cleaned
        or cleaned.upper() == "N/A"
        or (cleaned.startswith("[") and cleaned.endswith("]"))
    )


@dataclass(frozen=True)
class _Gpu:
    """One GPU as an output shows it."""

    index: int | None
    name: str
    memory_mib: float | None
    mig: bool | None
    """MIG mode on; None when the output does not say."""
    line: int
    host: str | None = None
    """The host a ``hostname`` column names; None for a single-host output."""
    instances: tuple[MigInstance, ...] = ()
    identity: str | None = None
    """The GPU's UUID (or PCI bus id), which no other GPU has; None when the output omits it."""
    mig_unknown: str | None = None
    """What the output wrote for MIG mode when it is no mode (``[N/A]``); None otherwise."""
    sampled: str | None = None
    """The row's ``timestamp`` (``nvidia-smi -l`` writes one sample after another)."""
    mig_pending: bool | None = None
    """The MIG mode the report says applies at the next GPU reset (``MIG Mode > Pending``);
    None when it does not say."""
    virtualization: str | None = None
    """The report's ``Virtualization Mode`` (``None``, ``Pass-Through``, ``VGPU``, ``Host
    VGPU``); None when the output does not say."""


_MigDevice = tuple[int, int, int, float, int | None]
"""(GPU index, GPU instance id, compute instance id, GPU instance memory [MiB], SMs) of one MIG
device; ``None`` SMs when the output does not say."""


def _no_gpus(file: str, tool: str, fix: str) -> InputError:
    return InputError([InputProblem(file, None, None, f"no GPU in this {tool} output", fix)])


def _query_columns(header: list[str]) -> dict[str, tuple[int, str]]:
    """Known query fields → (position, header as written); the first of a repeated field wins."""
    columns: dict[str, tuple[int, str]] = {}
    for position, written in enumerate(header):
        match = _UNIT.match(written.strip())
        key = _QUERY_ALIASES.get((match.group("field") if match else written).strip().lower())
        if key is not None and key not in columns:
            columns[key] = (position, written.strip())
    return columns


def _memory_mib(
    memory_text: str | None,
    columns: dict[str, tuple[int, str]],
    separator: str,
    file: str,
    number: int,
    problems: list[InputProblem],
) -> float | None:
    """A GPU's ``memory.total`` cell in MiB (unit from the cell or the header; a decimal comma
    read as the file's ``separator`` says, ``tabular.number_text``); None when absent, or when
    unreadable (then a problem is added)."""
    if memory_text is None:
        return None
    column = columns["memory.total"][1]
    try:
        mib = _mib(memory_text, _header_unit(columns, "memory.total"), separator)
    except CellError as error:
        problems.append(InputProblem(file, number, column, error.message, error.fix, row_kept=True))
        return None
    if mib is None:
        problems.append(
            InputProblem(
                file,
                number,
                column,
                f"{quoted(memory_text)} is not a memory size in MiB",
                "give nvidia-smi's output unchanged",
                row_kept=True,
            )
        )
    return mib


def _mib(written: str, unit: str = "MiB", separator: str = ",") -> float | None:
    """A memory size as nvidia-smi writes it (``81920 MiB``; ``unit`` when the text has none) in
    MiB; None when it is no size. Raises ``CellError`` for a number that reads two ways in a file
    separated by ``separator`` (``81.920``)."""
    match = _MEMORY.match(written.strip())
    unit = ((match.group("unit") if match else None) or unit).lower()
    if match is None or unit not in _TO_MIB:
        return None
    number = number_text(match.group("number"), separator)
    try:
        return float(number) * _TO_MIB[unit]
    except ValueError:
        return None


def read_nvidia_smi_query(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """GPU hosts from ``nvidia-smi --query-gpu=<fields> --format=csv[,nounits]``.

    Uses ``name`` (required), ``memory.total`` [MiB] (tells 40 GB from 80 GB parts),
    ``mig.mode.current``, ``index`` and ``hostname`` (when it names hosts, rows are grouped by
    it); every other column is ignored. One row is one GPU. A query CSV a spreadsheet saved
    again with semicolons or tabs is read by that separator (a decimal comma read as a point). A
    run over several hosts (pdsh's or clush's ``host: <line>``, clush's blocks, Ansible's
    results) is read host by host, each host's GPUs given to the host the run names.
    """
    text = tool_text(data, file)
    return _per_host(
        text, QUERY_TOOL, host_name, lambda part, host: _read_query(part, file, catalog, host)
    )


def _per_host(
    text: ToolText,
    tool: str,
    host_name: str | None,
    read: Callable[[ToolText, str | None], HostsRead],
) -> HostsRead:
    """``read`` of the whole output, or of each host's output when it is a run over several
    hosts (``text.host_outputs``: pdsh's and clush's host prefix, clush's blocks, Ansible's
    results); then each host is named as the run names it, a host whose output cannot be read
    is a problem while the other hosts are read, and the hosts the run reports failed or
    unreachable are problems naming them."""
    run = host_outputs(text)
    if run is None:
        return read(text, host_name)
    hosts: list[HostFacts] = []
    notes: list[ImportNote] = []
    problems: list[InputProblem] = list(run.problems)
    for host, part in run.outputs.items():
        if not part.lines:
            problems.append(
                InputProblem(
                    text.file,
                    None,
                    None,
                    f"host {host}: its output in this {run.tool} run is empty; the host is "
                    "left out",
                    "run the command on that host again and give what it prints",
                )
            )
            continue
        try:
            one = read(part, host)
        except InputError as error:
            problems.extend(
                replace(p, message=f"host {host} is left out: {p.message}") for p in error.problems
            )
            continue
        for facts in one.hosts:
            naming = ImportNote(
                text.file, facts.line, "", facts.name, "host", facts.name, "read", run.named_by
            )
            hosts.append(replace(facts, name_note=naming))
        notes.extend(one.notes)
        problems.extend(one.problems)
    if not hosts:
        raise InputError(problems)
    return HostsRead(text.file, tool, tuple(hosts), tuple(notes), tuple(problems))


_AS_PRINTED = "give nvidia-smi's output unchanged, as it printed it"
"""The fix for a query CSV that Python's CSV reader cannot split, for a cause of no fix of its
own (``tabular.csv_records``)."""


def _query_records(text: ToolText, file: str) -> tuple[list[list[str]], list[int], str]:
    """The records of a query CSV from its header, the file line each starts on (a quoted cell
    may hold a newline, so a record may span lines) and the separator they are split on (a
    spreadsheet saving with semicolons writes numbers with a decimal comma).

    The header and its separator are found as every CSV reader finds them
    (``tabular.csv_header``: below blank lines and Excel's ``sep=;`` line, on the separator
    that line names, else the one that splits the header into the most cells). Raises
    ``InputError`` when there is no header: no GPU in the output.
    """
    # ``ToolText.text`` keeps each line on its line number, so the header's row is its line.
    found = csv_header(text.text, file, SPREADSHEET_SEPARATORS, fix=_AS_PRINTED)
    if found is None:
        raise _no_gpus(
            file, QUERY_TOOL, "give the output of nvidia-smi --query-gpu=... --format=csv"
        )
    reader = csv.reader(
        io.StringIO(text.text[found.start :]),
        delimiter=found.separator,
        skipinitialspace=True,
    )
    records: list[list[str]] = []
    starts: list[int] = []
    for start, record in csv_records(reader, file, found.row, _AS_PRINTED, numbered_by="line"):
        records.append(record)
        starts.append(start)
    return records, starts, found.separator


def _read_query(text: ToolText, file: str, catalog: Catalog, host_name: str | None) -> HostsRead:
    """The query CSV ``text`` of one output (see ``read_nvidia_smi_query``)."""
    records, starts, separator = _query_records(text, file)
    header_line = starts[0]
    columns = _query_columns(records[0])
    # The header and the lines below it: what stands above it (Excel's sep= line) is no row.
    lines = [t for n, t in text.lines if n >= header_line]
    if "name" not in columns and is_headerless_query(lines):
        return _read_headerless(text, records, starts, file, catalog, host_name)
    if "name" not in columns:
        raise InputError(
            [
                InputProblem(
                    file,
                    header_line,
                    None,
                    f"no 'name' column (found: {lines[0][:120]})",
                    "run nvidia-smi --query-gpu=name,memory.total,mig.mode.current --format=csv "
                    "(with the header: no 'noheader')",
                )
            ]
        )
    problems: list[InputProblem] = []
    given = len(starts)
    starts, records = _without_lost(starts, records, separator, file, problems)
    lost = given - len(starts)
    output_host = name_host(text, host_name)[0]
    gpus = _query_gpus(starts, records, columns, separator, file, output_host, problems)
    _blank_hosts(
        gpus, dict(zip(starts, records, strict=True)), columns, file, output_host, problems
    )
    if not gpus:
        if problems:
            raise InputError(problems)
        raise _no_gpus(file, QUERY_TOOL, "give nvidia-smi's output with at least one GPU row")
    field = next((key for key in _GPU_IDS if key in columns), None)
    samples = ""
    if field is None and "timestamp" in columns:
        gpus, samples = _first_sample(gpus, columns["timestamp"][1], file, problems)
    gpus, repeats = _distinct_gpus(
        gpus,
        None if field is None else columns[field][1],
        _samples_told_apart(columns),
        file,
        problems,
    )
    if "count" in columns:
        rows = dict(zip(starts, records, strict=True))
        problems += _miscounted(gpus, rows, columns["count"], lost, file)
    locators = _Locators(
        columns["name"][1],
        columns.get("memory.total", (0, "memory.total"))[1],
        columns.get("mig.mode.current", (0, "mig.mode.current"))[1],
        f"one row per GPU{repeats}{samples}",
    )
    return _hosts_read(file, QUERY_TOOL, text, gpus, catalog, host_name, locators, problems)


def _miscounted(
    gpus: Sequence[_Gpu],
    rows: dict[int, list[str]],
    count_column: tuple[int, str],
    lost: int,
    file: str,
) -> list[InputProblem]:
    """A problem per host whose ``count`` cells (the GPUs nvidia-smi found on it) disagree with
    its GPU rows (plus ``lost``, the rows saying a GPU could not be reached, each a problem of
    its own): fewer rows are an output cut off, more are outputs of several hosts joined. The
    host is counted with its rows either way."""
    position, column = count_column
    by_host: dict[str | None, list[_Gpu]] = {}
    for gpu in gpus:
        by_host.setdefault(gpu.host, []).append(gpu)
    problems = []
    for host, own in by_host.items():
        said: dict[int, int] = {}  # count -> first row saying it
        for gpu in own:
            cells = rows.get(gpu.line, [])
            count = whole_count(cells[position]) if position < len(cells) else None
            if count is not None:
                said.setdefault(count, gpu.line)
        accounted = len(own) + (lost if len(by_host) == 1 else 0)
        if not said or set(said) == {accounted}:
            continue
        counts = " and ".join(str(c) for c in sorted(said))
        where = "" if host is None else f" of host {quoted(host)}"
        more = accounted > max(said)
        problems.append(
            InputProblem(
                file,
                min(said.values()),
                column,
                f"count says {counts} GPUs but {counted(accounted, 'row')}{where} "
                f"{'is' if accounted == 1 else 'are'} given: the host is counted with the "
                f"{counted(len(own), 'GPU')} its rows give",
                (
                    "give each host's output as a file of its own named after the host "
                    "(outputs of several hosts or runs were joined)"
                    if more
                    else "give the whole nvidia-smi output (a cut paste drops rows); if the host "
                    "lacks a GPU, check it (nvidia-smi -q shows its state), or give the host's "
                    "GPUs in an inventory CSV or per cluster (--cluster-gpus)"
                ),
                row_kept=True,
            )
        )
    return problems


def _without_lost(
    starts: list[int],
    records: list[list[str]],
    separator: str,
    file: str,
    problems: list[InputProblem],
) -> tuple[list[int], list[list[str]]]:
    """The query CSV's records (and their lines) but the lines saying nvidia-smi could not
    reach a GPU, each of which is a problem (``_lost_gpu``)."""
    kept_starts, kept = [], []
    for number, record in zip(starts, records, strict=True):
        lost = _lost_gpu(file, number, separator.join(record))
        if lost is not None:
            problems.append(lost)
            continue
        kept_starts.append(number)
        kept.append(record)
    return kept_starts, kept


def _query_index(
    written: str | None, problem: Callable[[str, str], InputProblem], problems: list[InputProblem]
) -> int | None:
    """A query row's GPU index, None when it has none; one that cannot be read is a problem
    (``problem(message, fix)``) and None: the GPU is counted all the same."""
    index = whole_count(written)
    if written and index is None:
        problems.append(
            problem(
                f"the index {quoted(written)} is not {COUNT_SAID}: the GPU is counted without it",
                "give nvidia-smi's output unchanged",
            )
        )
    return index


def _query_gpus(
    starts: list[int],
    records: list[list[str]],
    columns: dict[str, tuple[int, str]],
    separator: str,
    file: str,
    output_host: str,
    problems: list[InputProblem],
) -> list[_Gpu]:
    """The GPUs of a query CSV's data rows (``starts``: each record's first line); a row that
    cannot be read adds a problem. ``output_host`` is the host the output is named after, which
    a GPU with no host name belongs to; a hostname cell of invisible characters only adds a
    problem naming it."""
    gpus: list[_Gpu] = []
    header = [cell.strip() for cell in records[0]]
    for number, record in zip(starts[1:], records[1:], strict=True):
        if not any(cell.strip() for cell in record):
            continue
        if [cell.strip() for cell in record] == header:
            if not _samples_told_apart(columns):
                raise InputError(
                    [
                        InputProblem(
                            file,
                            number,
                            None,
                            "the header line is repeated: the file joins several runs of "
                            "nvidia-smi (of several hosts, or of one host again), and without "
                            "uuid, pci.bus_id, or index with timestamp, the GPUs of one run cannot "
                            "be told from another's",
                            "give each host's output as a file of its own named after the host, "
                            "or add uuid to the fields (--query-gpu=uuid,name,memory.total,"
                            "mig.mode.current --format=csv)",
                        )
                    ]
                )
            continue
        if len(record) != len(records[0]):
            problems.append(
                InputProblem(
                    file,
                    number,
                    None,
                    f"the row has {len(record)} values but the header has {len(records[0])}",
                    "give nvidia-smi's output unchanged (one header line, one row per GPU)",
                )
            )
            continue

        def cell(key: str, record: list[str] = record) -> str | None:
            if key not in columns:
                return None
            value = record[columns[key][0]].strip()
            return None if is_not_available(value) else value

        name = _query_name(record[columns["name"][0]])
        if name is None:
            problems.append(
                InputProblem(
                    file,
                    number,
                    columns["name"][1],
                    "the GPU has no name",
                    "give nvidia-smi's output unchanged",
                )
            )
            continue
        memory = _memory_mib(cell("memory.total"), columns, separator, file, number, problems)
        mig_text = cell("mig.mode.current")
        mig = None if mig_text is None else mig_text.strip().lower() == "enabled"
        written = None
        if "mig.mode.current" in columns and mig_text is None:
            written = record[columns["mig.mode.current"][0]].strip() or "an empty cell"
        index_text = cell("index")
        index = _query_index(
            index_text,
            partial(
                InputProblem, file, number, columns.get("index", (0, "index"))[1], row_kept=True
            ),
            problems,
        )
        identity = cell("uuid") or cell("pci.bus_id")
        host = cell("hostname")
        if host is not None:
            # Matched to other files' hosts by what the name shows, as RVTools' names are.
            where = partial(InputProblem, file, number, columns["hostname"][1], row_kept=True)
            typed, host = host, visible_name(host, "host name", where, problems) or None
            if host is None:
                # Kept rather than refused: the GPU still counts, on the host a blank cell
                # gives, and the problem says so.
                problems.append(
                    where(
                        f"the host name {quoted(typed)} holds only invisible characters: "
                        f"the GPU is given to host {quoted(output_host)}, the output's host",
                        "write the GPU's host name in the hostname cell",
                    )
                )
        gpus.append(
            _Gpu(
                index,
                name,
                memory,
                mig,
                number,
                host,
                identity=identity,
                mig_unknown=written,
                sampled=cell("timestamp"),
            )
        )
    return gpus


def _blank_hosts(
    gpus: list[_Gpu],
    records: dict[int, list[str]],
    columns: dict[str, tuple[int, str]],
    file: str,
    output_host: str,
    problems: list[InputProblem],
) -> None:
    """A problem on each GPU whose hostname cell is empty (or ``[N/A]``) when other rows name
    their hosts: the GPU is given to ``output_host``, the host the output is named after, which
    the user did not write. When no row names a host, the output is one host, named so."""
    if "hostname" not in columns or all(g.host is None for g in gpus):
        return
    position, column = columns["hostname"]
    for gpu in gpus:
        written = records[gpu.line][position].strip()
        if gpu.host is None and is_not_available(written):
            said = "empty" if not written else f"{quoted(written)}, no host name"
            problems.append(
                InputProblem(
                    file,
                    gpu.line,
                    column,
                    f"the hostname cell is {said}, while other rows name their hosts: the GPU "
                    f"is given to host {quoted(output_host)}, the output's host",
                    "write the GPU's host name in the hostname cell",
                    row_kept=True,
                )
            )


def _query_name(written: str) -> str | None:
    """A query row's GPU name; an error written for it is kept, for the GPU to be left out
    naming it (``_failed``); None when nvidia-smi says the name is missing."""
    cleaned = written.strip()
    return None if is_not_available(cleaned) and not _gpu_error(cleaned) else cleaned


def _first_sample(
    gpus: list[_Gpu], written: str, file: str, problems: list[InputProblem]
) -> tuple[list[_Gpu], str]:
    """The GPUs of the first sample of a log with a timestamp and no GPU id, and the words the
    GPU count's note adds. Rows of one timestamp are one sample (``nvidia-smi -l`` writes them
    one after another); when each host's samples list the same GPUs, two or more each, only
    the first is kept. Otherwise, with several timestamps, each row stays a GPU and a problem
    says how to tell samples from GPUs."""
    by_host: dict[str | None, list[list[_Gpu]]] = {}
    for gpu in gpus:
        runs = by_host.setdefault(gpu.host, [])
        if not runs or runs[-1][0].sampled != gpu.sampled:
            runs.append([])
        runs[-1].append(gpu)
    if all(len(runs) == 1 for runs in by_host.values()):
        return gpus, ""

    def listed(run: list[_Gpu]) -> list[tuple[str, float | None, bool | None]]:
        return [(g.name, g.memory_mib, g.mig) for g in run]

    alike = all(
        len(runs[0]) >= 2 and all(listed(run) == listed(runs[0]) for run in runs)
        for runs in by_host.values()
    )
    samples = max(len(runs) for runs in by_host.values())
    if alike:
        kept = {id(g) for runs in by_host.values() for g in runs[0]}
        return [g for g in gpus if id(g) in kept], (
            f"; {samples} samples of the same GPUs ({written}), the first one counted"
        )
    first = gpus[0]
    problems.append(
        InputProblem(
            file,
            first.line,
            written,
            f"the rows carry {samples} different timestamps but no index, uuid or pci.bus_id: "
            "if they are samples of nvidia-smi -l, each GPU is counted once per sample",
            "add index or uuid to the fields (--query-gpu=index,uuid,name,memory.total,"
            "mig.mode.current --format=csv), or give one sample",
            row_kept=True,
        )
    )
    return gpus, ""


def _samples_told_apart(columns: dict[str, tuple[int, str]]) -> bool:
    """Whether a GPU seen again is known to be the same GPU sampled again: a UUID or PCI bus id
    names one GPU; an index does only beside a timestamp (``nvidia-smi -l``'s samples), as two
    hosts number their GPUs alike."""
    return "uuid" in columns or "pci.bus_id" in columns or {"index", "timestamp"} <= columns.keys()


def _distinct_gpus(
    gpus: list[_Gpu], written: str | None, told_apart: bool, file: str, problems: list[InputProblem]
) -> tuple[list[_Gpu], str]:
    """Each GPU of each host once, and the words the GPU count's note adds about rows left out.

    A GPU a line above already gave on the same host (same UUID or bus id, else same index) is
    the same GPU again: later samples of ``nvidia-smi -l`` repeat every GPU, and so does a run
    pasted twice. ``told_apart`` says the repeats are known to be samples (a UUID, a bus id, or
    an index beside a timestamp); else an index given again is also a problem, as another
    host's GPUs share its indexes. An index given again with another UUID is another host's GPU
    for sure, and the output is refused: its GPUs cannot be given to their hosts.
    """
    first: dict[tuple[str | None, str], int] = {}
    by_index: dict[tuple[str | None, int], _Gpu] = {}
    distinct: list[_Gpu] = []
    repeated: list[tuple[_Gpu, int]] = []  # each GPU given again, and the row that first gave it
    for gpu in gpus:
        earlier = None if gpu.index is None else by_index.setdefault((gpu.host, gpu.index), gpu)
        if (
            earlier is not None
            and None not in (earlier.identity, gpu.identity)
            and earlier.identity != gpu.identity
        ):
            raise InputError([_two_hosts(file, earlier, gpu, written)])
        key = gpu.identity or (None if gpu.index is None else f"GPU {gpu.index}")
        if key is None:
            distinct.append(gpu)
            continue
        seen = first.setdefault((gpu.host, key), gpu.line)
        if seen == gpu.line:
            distinct.append(gpu)
        else:
            repeated.append((gpu, seen))
    if not repeated:
        return gpus, ""
    rows = f"row {repeated[0][0].line}" + (
        f" and {len(repeated) - 1} more" if len(repeated) > 1 else ""
    )
    if not told_apart:
        again, seen = repeated[0]
        problems.append(
            InputProblem(
                file,
                again.line,
                written,
                f"GPU {again.index} is listed again (first on row {seen}); {rows} repeat a "
                "GPU of a row above: a second run on the same host, or another host's GPUs; "
                "each GPU is counted once",
                "give each host's output as a file of its own named after the host, or add uuid "
                "to the fields (--query-gpu=uuid,name,memory.total,mig.mode.current "
                "--format=csv), which tells a GPU sampled again from another GPU",
            )
        )
    return distinct, (
        f"; {rows} repeat a GPU of a row above (same {written}): later samples or the same "
        "run again, each GPU counted once"
    )


def _two_hosts(file: str, earlier: _Gpu, gpu: _Gpu, written: str | None) -> InputProblem:
    return InputProblem(
        file,
        gpu.line,
        written,
        f"GPU {gpu.index} is listed again with another UUID ({gpu.identity}; row {earlier.line} "
        f"gave {earlier.identity}): the outputs of two hosts are joined in one file",
        "give each host's output as a file of its own named after the host",
    )


_NAME_SHAPE = re.compile(
    r"^(?:(?:NVIDIA|Tesla|Quadro|GRID|GeForce|RTX)\b|[A-Z]{1,2}\d{1,4}[A-Za-z]*(?:[-\s]|$))"
)
"""A GPU name as nvidia-smi prints it: a brand word (``NVIDIA L40S``, ``Tesla T4``) or, from
older drivers, the bare model (``A100-SXM4-40GB``)."""
_PERF_STATE = re.compile(r"^P\d{1,2}$")
"""A performance state (``P0``), the one other value of a query that has a GPU name's shape."""
_NAME_WORDS = 6
"""Most words in a GPU name (``NVIDIA GeForce RTX 4090 Laptop GPU``)."""
_HEADERLESS_LINES = 50
"""Lines looked at to tell a query CSV without its header."""
_QUERY_VALUE = re.compile(
    r"^(\d+(\.\d+)? (MiB|%|W|MHz)|\[N/A\]|\[Not Supported\]|GPU-[0-9a-fA-F-]{8,}|"
    r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])$"
)
"""A value of a query CSV that no other tool or spreadsheet writes so."""
_HEADER_FIX = (
    "run nvidia-smi --query-gpu=name,memory.total,mig.mode.current --format=csv (without "
    "noheader, so that the header names each column) and give what it prints"
)
"""How to get a query CSV whose columns can be read."""


def _name_columns(records: Sequence[Sequence[str]]) -> list[int]:
    """Positions at which every record holds a GPU name's shape."""
    width = len(records[0])
    return [
        position
        for position in range(width)
        if all(_is_gpu_name(r[position].strip()) for r in records)
    ]


def _is_gpu_name(value: str) -> bool:
    """Whether a value has a GPU name's shape: a few words (a message of nvidia-smi's, such as
    ``NVIDIA-SMI has failed because ...``, is not one)."""
    return (
        bool(_NAME_SHAPE.match(value))
        and not _PERF_STATE.match(value)
        and len(value.split()) <= _NAME_WORDS
    )


def is_headerless_query(lines: Sequence[str]) -> bool:
    """Whether ``lines`` are the output of ``nvidia-smi --query-gpu=... --format=csv,noheader``.

    Blank lines are skipped: pdsh, a paste or a trailing newline leave them between rows. Each
    of the first 50 other lines splits on nvidia-smi's ``", "`` into as many cells, with no bare
    comma (a spreadsheet's CSV is not taken for it), and either one position holds a GPU name on
    every line, by which the rows are read, or every line holds a value only nvidia-smi writes
    (``81920 MiB``, ``[N/A]``, a ``GPU-`` UUID, a PCI bus id), which tells the output whose
    fields, without a name, cannot be read.
    """
    filled = [line for line in lines if line.strip()][:_HEADERLESS_LINES]
    if not filled:
        return False
    records = [[cell.strip() for cell in line.split(", ")] for line in filled]
    if any(
        len(r) != len(records[0]) or len(line.split(",")) != len(r)
        for r, line in zip(records, filled, strict=True)
    ):
        return False
    return bool(_name_columns(records)) or all(
        any(_QUERY_VALUE.match(cell) for cell in r) for r in records
    )


def _read_headerless(
    text: ToolText,
    records: list[list[str]],
    starts: list[int],
    file: str,
    catalog: Catalog,
    host_name: str | None,
) -> HostsRead:
    """GPU hosts from a query CSV without its header: only the GPU name is read (one row per
    GPU), found as the one column whose every value is a GPU name; the other columns' fields
    are unknown, so they are not read. Refused when no column or two columns could be the
    name."""
    rows = [
        (number, [cell.strip() for cell in record])
        for number, record in zip(starts, records, strict=True)
        if any(cell.strip() for cell in record)
    ]
    positions = _name_columns([cells for _, cells in rows])
    if not positions:
        raise InputError(
            [
                InputProblem(
                    file,
                    rows[0][0],
                    None,
                    "nvidia-smi query output without its header row (--format=csv,noheader) "
                    "and without a GPU name: the field of each column cannot be told",
                    _HEADER_FIX,
                )
            ]
        )
    if len(positions) > 1:
        known = [
            p
            for p in positions
            if all(match_gpu_name(cells[p], catalog).model is not None for _, cells in rows)
        ]
        positions = known if len(known) == 1 else positions
    if len(positions) != 1:
        columns = ", ".join(f"column {p + 1} ({quoted(rows[0][1][p])})" for p in positions)
        raise InputError(
            [
                InputProblem(
                    file,
                    rows[0][0],
                    None,
                    "nvidia-smi query output without its header row (--format=csv,noheader): "
                    f"{columns} could each be the GPU name, and without the header the fields "
                    "cannot be told apart",
                    _HEADER_FIX,
                )
            ]
        )
    position = positions[0]
    gpus = [_Gpu(None, cells[position], None, None, number) for number, cells in rows]
    locator = f"column {position + 1} (no header)"
    read = _hosts_read(
        file,
        QUERY_TOOL,
        text,
        gpus,
        catalog,
        host_name,
        _Locators(locator, "", _NO_HEADER, "one row per GPU"),
        [],
    )
    width = len(rows[0][1])
    held = (
        f"column {position + 1} holds the GPU names; its other {width - 1} columns are not "
        "read, as without the header their fields are unknown"
        if width > 1
        else "its one column holds the GPU names"
    )
    note = ImportNote(
        file,
        rows[0][0],
        locator,
        "",
        "",
        "",
        "derived",
        f"a query CSV without its header row: {held} (memory and MIG mode need the header: "
        "nvidia-smi --query-gpu=name,memory.total,mig.mode.current --format=csv)",
    )
    return HostsRead(read.file, read.tool, read.hosts, (note, *read.notes), read.problems)


def _header_unit(columns: dict[str, tuple[int, str]], key: str) -> str:
    match = _UNIT.match(columns[key][1])
    return (match.group("unit") if match else None) or "MiB"


def read_nvidia_smi_list(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """GPU hosts from ``nvidia-smi -L``: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)`` lines and the
    indented ``MIG 1g.10gb Device 0: (UUID: ...)`` lines of each GPU's MIG devices (the old
    format without the ``NVIDIA`` prefix too). Memory is not listed: the name alone picks the
    model. MIG device lines mean MIG mode is on; their placements are not listed. A run over
    several hosts (pdsh, clush, Ansible) is read host by host. The vGPU report of
    ``nvidia-smi vgpu -q``, whose ``GPU 00000000:3B:00.0`` lines look like GPU lines, is
    refused saying what it is."""
    text = tool_text(data, file)
    _refuse_vgpu_report(text)
    return _per_host(
        text,
        LIST_TOOL,
        host_name,
        lambda part, host: _read_list(part, file, catalog, host),
    )


_VGPU_REPORT_LABELS = re.compile(r"^\s*(Active vGPUs|vGPU ID)\s*:")
"""Labels only ``nvidia-smi vgpu -q`` prints: the vGPUs running on each physical GPU."""


def _refuse_vgpu_report(text: ToolText) -> None:
    """Raise ``InputError`` when ``text`` is ``nvidia-smi vgpu -q``: GPU sections by bus id
    (``GPU 00000000:3B:00.0``) listing the vGPUs of VMs, with no GPU model."""
    sections = [n for n, line in text.lines if _REPORT_GPU.match(line)]
    if not sections or not any(_VGPU_REPORT_LABELS.match(line) for _, line in text.lines):
        return
    raise InputError(
        [
            InputProblem(
                text.file,
                sections[0],
                None,
                f"this is nvidia-smi vgpu -q: it lists the vGPUs the VMs run on "
                f"{counted(len(sections), 'GPU')} of the host, not the GPUs' models",
                "run nvidia-smi -q, nvidia-smi -L or plain nvidia-smi vgpu on the host for its "
                "GPUs",
            )
        ]
    )


def _read_list(text: ToolText, file: str, catalog: Catalog, host_name: str | None) -> HostsRead:
    """The ``nvidia-smi -L`` lines ``text`` of one output (see ``read_nvidia_smi_list``)."""
    problems: list[InputProblem] = []
    gpus: list[_Gpu] = []
    for number, line in text.lines:
        if not line.strip():
            continue
        gpu = GPU_LINE.match(line)
        mig = _MIG_LINE.match(line)
        lost = _lost_gpu(file, number, line)
        if lost is not None:
            problems.append(lost)
        elif gpu:
            uuid = gpu.group("uuid") or None
            gpus.append(
                _Gpu(int(gpu.group("index")), gpu.group("name"), None, None, number, identity=uuid)
            )
        elif mig and gpus:
            last = gpus[-1]
            gpus[-1] = _Gpu(
                last.index,
                last.name,
                None,
                True,
                last.line,
                None,
                (*last.instances, MigInstance(_profile(mig.group("profile")), None)),
                last.identity,
            )
        else:
            problems.append(
                InputProblem(
                    file,
                    number,
                    None,
                    f"{quoted(line.strip())} is not a GPU or MIG device line of nvidia-smi -L: "
                    "ignored",
                    "give the output of nvidia-smi -L unchanged",
                )
            )
    if not gpus:
        raise InputError(
            [
                *first_problems(problems, 5),
                InputProblem(
                    file, None, None, "no 'GPU n: <name>' line", "give the output of nvidia-smi -L"
                ),
            ]
        )
    gpus, repeats = _distinct_gpus(gpus, "GPU line", all(g.identity for g in gpus), file, problems)
    locators = _Locators("GPU line", "", _MIG_LINES, f"one GPU line per GPU{repeats}")
    return _hosts_read(file, LIST_TOOL, text, gpus, catalog, host_name, locators, problems)


_REPORT_GPU = re.compile(
    r"^GPU\s+(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$"
)
"""The line opening one GPU's section of ``nvidia-smi -q``: ``GPU 00000000:18:00.0``."""
_REPORT_FIX = (
    "run nvidia-smi -q without -d (its Product Name, FB Memory Usage and MIG Mode sections are "
    "read), nvidia-smi -q -x, or nvidia-smi --query-gpu=name,memory.total,mig.mode.current "
    "--format=csv"
)


def read_nvidia_smi_report(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """GPU hosts from ``nvidia-smi -q`` (the text report) or ``nvidia-smi -q -x`` (its XML).

    Per GPU section (``GPU 00000000:18:00.0``, or ``<gpu id=...>``): the name from ``Product
    Name``, the total memory [MiB] from ``FB Memory Usage`` > ``Total`` and MIG mode from ``MIG
    Mode`` > ``Current``; GPUs are numbered in the report's order. Each ``MIG Devices`` > ``MIG
    Device`` (``<mig_devices><mig_device>``) gives its GPU instance id, compute instance id, SMs
    (``Device Attributes`` > ``Shared`` > ``Multiprocessor count``) and memory (``FB Memory
    Usage`` > ``Total``) [MiB]; each GPU instance's profile is found as the plain table's are
    (``gpu_instance_profile``). A report filtered with ``-d`` (no Product Name) is refused. A
    run over several hosts (pdsh, clush, Ansible) is read host by host.
    """
    text = tool_text(data, file)
    return _per_host(
        text, REPORT_TOOL, host_name, lambda part, host: _read_report(part, file, catalog, host)
    )


def _read_report(text: ToolText, file: str, catalog: Catalog, host_name: str | None) -> HostsRead:
    """The report ``text`` of one output (see ``read_nvidia_smi_report``)."""
    first = next((line for _, line in text.lines if line.strip()), "")
    devices: list[_MigDevice] = []
    lost = _lost_gpus(text)
    problems = list(lost)
    is_xml = first.lstrip().startswith("<")
    gpus = (
        _xml_report_gpus(text, file, devices, problems)
        if is_xml
        else _text_report_gpus(text, devices, problems)
    )
    if not gpus:
        raise _no_gpus(file, REPORT_TOOL, _REPORT_FIX)
    problems.extend(_unattached(text, is_xml, len(gpus) + len(lost)))
    problems.extend(_passed_through(gpus, file))
    problems.extend(_mig_pending(gpus, file))
    unnamed = [g for g in gpus if not g.name]
    if unnamed:
        raise InputError(
            [
                InputProblem(
                    file,
                    unnamed[0].line,
                    "Product Name",
                    f"{len(unnamed)} of the {len(gpus)} GPUs have no Product Name (a report "
                    "filtered with -d shows only the sections asked for)",
                    _REPORT_FIX,
                )
            ]
        )
    notes: list[ImportNote] = []
    if devices:
        gpus = _with_instances(gpus, devices, catalog, file, notes)
    locators = _Locators(
        "Product Name", "FB Memory Usage > Total", "MIG Mode > Current", "one GPU section per GPU"
    )
    read = _hosts_read(file, REPORT_TOOL, text, gpus, catalog, host_name, locators, problems)
    return HostsRead(read.file, read.tool, read.hosts, (*read.notes, *notes), read.problems)


_ATTACHED = re.compile(r"^Attached GPUs\s*:\s*(?P<count>\S+)\s*$")
_ATTACHED_XML = re.compile(r"<attached_gpus>\s*(?P<count>[^<]*?)\s*</attached_gpus>")


def _unattached(text: ToolText, is_xml: bool, accounted: int) -> list[InputProblem]:
    """A problem when the report's ``Attached GPUs`` (``<attached_gpus>``) counts more GPUs than
    it describes or says were lost (``accounted``): a GPU section cut off or never printed is a
    GPU the host is counted without."""
    pattern = _ATTACHED_XML if is_xml else _ATTACHED
    said = [
        (number, whole_count(m.group("count")))
        for number, line in text.lines
        if (m := pattern.search(line) if is_xml else pattern.match(line.strip()))
    ]
    attached = sum(count or 0 for _, count in said)
    if not said or attached <= accounted:
        return []
    label = "<attached_gpus>" if is_xml else "Attached GPUs"
    return [
        InputProblem(
            text.file,
            said[0][0],
            label,
            f"the report says {counted(attached, 'GPU')} {'is' if attached == 1 else 'are'} "
            f"attached but describes {accounted}: the host is counted with the "
            f"{counted(accounted, 'GPU')} described",
            "give the whole nvidia-smi -q output (a cut paste drops GPU sections); if the host "
            "lacks a GPU, check it (nvidia-smi -q shows its state), or give the host's GPUs in "
            "an inventory CSV or per cluster (--cluster-gpus)",
            row_kept=True,
        )
    ]


_VIRTUALIZATION = "GPU Virtualization Mode > Virtualization Mode"


def _passed_through(gpus: Sequence[_Gpu], file: str) -> list[InputProblem]:
    """A problem when the report's GPUs are passed through to the VM it ran in (``Virtualization
    Mode : Pass-Through``): the GPUs are whole and counted, but the host read is that VM, not
    the ESXi or KVM host with all its GPUs, cores and memory."""
    passed = [g for g in gpus if (g.virtualization or "").strip().lower() == "pass-through"]
    if not passed:
        return []
    return [
        InputProblem(
            file,
            passed[0].line,
            _VIRTUALIZATION,
            f"this nvidia-smi ran in a VM with {counted(len(passed), 'GPU')} passed through to "
            "it (Virtualization Mode: Pass-Through): the host read here is that VM, with the "
            "GPUs given to it, not the ESXi or KVM host that holds them and may hold more; read "
            "as a host with these GPUs",
            "run nvidia-smi on the physical host, or give the hosts as an RVTools export with "
            "their GPUs per cluster (--cluster-gpus); to plan this VM as a host, give its own "
            "cores and memory in an inventory CSV",
            row_kept=True,
        )
    ]


def _mig_pending(gpus: Sequence[_Gpu], file: str) -> list[InputProblem]:
    """A problem per change of MIG mode the report says is pending (``MIG Mode > Pending``
    differs from ``Current``), naming its GPUs: they are planned as they are now, which their
    next reset or the host's reboot undoes."""
    words = {True: "Enabled", False: "Disabled"}
    changes: dict[tuple[bool, bool], list[_Gpu]] = {}
    for gpu in gpus:
        if gpu.mig is not None and gpu.mig_pending is not None and gpu.mig != gpu.mig_pending:
            changes.setdefault((gpu.mig, gpu.mig_pending), []).append(gpu)
    problems = []
    for (now, pending), members in changes.items():
        indices = ", ".join(str(g.index) for g in members)
        which = f"GPU {indices}" if len(members) == 1 else f"GPUs {indices}"
        problems.append(
            InputProblem(
                file,
                members[0].line,
                "MIG Mode > Pending",
                f"{which}: MIG mode is {words[now]} now and {words[pending]} after the next "
                "GPU reset or reboot (Pending); planned as it is now",
                "reset the GPU (nvidia-smi -r) or reboot to apply the pending mode and run "
                "nvidia-smi -q again, or set mig_enabled for this host in an inventory CSV",
                row_kept=True,
            )
        )
    return problems


def _report_memory(value: str | None) -> float | None:
    return None if value is None else _mib(value)


def _report_mig(value: str | None) -> bool | None:
    return {"enabled": True, "disabled": False}.get((value or "").strip().lower())


_MIG_DEVICE = "MIG Device"
"""The label opening one MIG device of ``nvidia-smi -q``: under ``MIG Devices`` (older
drivers), or straight under the GPU's section (newer ones, 590 among them, drop that level)."""
_MIG_DEVICE_PARENTS: tuple[list[str], ...] = (["MIG Devices"], [])
"""The labels a ``MIG Device`` block sits under, by driver (see ``_MIG_DEVICE``)."""
_MIG_DEVICE_SMS = "Device Attributes > Shared > Multiprocessor count"
_MIG_DEVICE_MEMORY = ("FB Memory Usage > Total", "Shared FB Memory Usage > Total")
"""A MIG device's memory [MiB]: newer drivers label it ``Shared FB Memory Usage``, as the
compute instances of one GPU instance share it (NVIDIA's nvidia-smi release notes)."""


def _text_report_gpus(
    text: ToolText, devices: list[_MigDevice], problems: list[InputProblem]
) -> list[_Gpu]:
    """The GPUs of the text report: each section's labels by their indented path; each ``MIG
    Device`` block's labels by their path inside it (with the block's line), added to
    ``devices``, or a problem when it cannot be read (``_mig_device``)."""
    sections: list[tuple[int, dict[str, str], list[tuple[int, dict[str, str]]]]] = []
    path: list[tuple[int, str]] = []
    for number, line in text.lines:
        if _REPORT_GPU.match(line):
            sections.append((number, {}, []))
            path = []
            continue
        if not sections or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while path and path[-1][0] >= indent:
            path.pop()
        label, colon, value = line.strip().partition(" : ")
        if not colon and line.rstrip().endswith(":"):
            label, colon, value = line.strip()[:-1], ":", ""
        labels = [p for _, p in path]
        if colon:
            if _MIG_DEVICE in labels and sections[-1][2]:
                inner = labels[labels.index(_MIG_DEVICE) + 1 :]
                key = " > ".join([*inner, label.strip()])
                sections[-1][2][-1][1].setdefault(key, value.strip())
            else:
                sections[-1][1].setdefault(" > ".join([*labels, label.strip()]), value.strip())
            continue
        if label.strip() == _MIG_DEVICE and labels in _MIG_DEVICE_PARENTS:
            sections[-1][2].append((number, {}))
        path.append((indent, label.strip()))
    for index, (_, _, mig_devices) in enumerate(sections):
        for order, (opened, device) in enumerate(mig_devices, start=1):
            found = _mig_device(
                (index, order, text.file, opened),
                device.get("GPU Instance ID"),
                device.get("Compute Instance ID"),
                next((device[k] for k in _MIG_DEVICE_MEMORY if k in device), None),
                device.get(_MIG_DEVICE_SMS),
                problems,
            )
            if found is not None:
                devices.append(found)
    return [
        _Gpu(
            index,
            values.get("Product Name", ""),
            _report_memory(values.get("FB Memory Usage > Total")),
            _report_mig(values.get("MIG Mode > Current")),
            number,
            mig_pending=_report_mig(values.get("MIG Mode > Pending")),
            virtualization=values.get(_VIRTUALIZATION),
        )
        for index, (number, values, _) in enumerate(sections)
    ]


_NO_MIG_ATTRIBUTES_FIX = (
    "give nvidia-smi -L from the same host or container (it names each MIG device's profile: "
    "MIG 3g.40gb Device 0), or run nvidia-smi -q -x on the host itself, outside the container"
)
"""How to get MIG devices' profiles when the report shows their ids only."""


def _mig_device(
    where: tuple[int, int, str, int | None],
    gi: str | None,
    ci: str | None,
    memory: str | None,
    sms: str | None,
    problems: list[InputProblem],
) -> _MigDevice | None:
    """One MIG device of the report from its values as written (``_report_device``); None,
    with a problem, when it cannot be read. ``where``: the GPU's index, the device's order on
    it, the file and the device's line (None when the report does not tell)."""
    index, order, file, line = where
    if memory is None and sms is None:
        problems.append(
            InputProblem(
                file,
                line,
                None,
                f"GPU {index}, MIG device {order} (GPU instance {(gi or '?').strip()}) has no "
                "memory or multiprocessor count, only its ids (as nvidia-smi run inside a "
                "container may report it), so its profile is unknown: the device is left out",
                _NO_MIG_ATTRIBUTES_FIX,
            )
        )
        return None
    device = _report_device(index, gi, ci, memory, sms)
    if isinstance(device, str):
        problems.append(
            InputProblem(
                file,
                line,
                None,
                f"GPU {index}, MIG device {order}: {device}: the device is left out",
                _REPORT_FIX,
            )
        )
        return None
    return device


def _report_device(
    index: int, gi: str | None, ci: str | None, memory: str | None, sms: str | None
) -> _MigDevice | str:
    """A MIG device of GPU ``index`` from the report's values, or what cannot be read in it.
    SMs not given are None: the profile is then told by memory alone."""
    gi_id, ci_id, mib = whole_count(gi), whole_count(ci), _report_memory(memory)
    if gi_id is None:
        return f"the GPU instance id {quoted((gi or '').strip())} is not {COUNT_SAID}"
    if ci_id is None:
        return f"the compute instance id {quoted((ci or '').strip())} is not {COUNT_SAID}"
    if mib is None:
        return f"the memory {quoted((memory or '').strip())} is not a size in MiB"
    if sms is None or is_not_available(sms.strip()):
        return index, gi_id, ci_id, mib, None
    sm_count = whole_count(sms)
    if sm_count is None:
        return f"the multiprocessor count {quoted(sms.strip())} is not {COUNT_SAID}"
    return index, gi_id, ci_id, mib, sm_count


def _xml_report_gpus(
    text: ToolText, file: str, devices: list[_MigDevice], problems: list[InputProblem]
) -> list[_Gpu]:
    """The GPUs of the XML report, their ``<mig_device>`` elements added to ``devices`` (or a
    problem when one cannot be read, ``_mig_device``); entity declarations (which nvidia-smi
    never writes) are refused rather than expanded."""
    body = "\n".join(line for _, line in text.lines)
    if "<!ENTITY" in body:
        raise InputError(
            [InputProblem(file, None, None, "XML with entity declarations", _REPORT_FIX)]
        )
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        raise InputError(
            [InputProblem(file, None, None, f"not well-formed XML ({error})", _REPORT_FIX)]
        ) from None
    if root.tag != "nvidia_smi_log":
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"XML whose root is <{root.tag}>, not nvidia-smi -q -x's <nvidia_smi_log>",
                    _REPORT_FIX,
                )
            ]
        )
    lines = [number for number, line in text.lines if "<gpu " in line or "<gpu>" in line]
    gpus = []
    for index, element in enumerate(root.findall("gpu")):
        for order, device in enumerate(element.findall("mig_devices/mig_device"), start=1):
            found = _mig_device(
                (index, order, file, None),
                device.findtext("gpu_instance_id"),
                device.findtext("compute_instance_id"),
                device.findtext("fb_memory_usage/total"),
                device.findtext("device_attributes/shared/multiprocessor_count"),
                problems,
            )
            if found is not None:
                devices.append(found)
        gpus.append(
            _Gpu(
                index,
                (element.findtext("product_name") or "").strip(),
                _report_memory(element.findtext("fb_memory_usage/total")),
                _report_mig(element.findtext("mig_mode/current_mig")),
                lines[index] if index < len(lines) else text.lines[0][0],
                mig_pending=_report_mig(element.findtext("mig_mode/pending_mig")),
                virtualization=element.findtext("gpu_virtualization_mode/virtualization_mode"),
            )
        )
    return gpus


def _profile(written: str) -> str:
    """A MIG profile name as the catalog writes it: ``MIG 1g.10gb`` → ``1g.10gb``."""
    return written.strip().removeprefix("MIG").strip()


def _cells(line: str) -> list[str]:
    """The cells of a table line between its ``|`` borders."""
    parts = line.split("|")
    return [p.strip() for p in parts[1:-1]] if len(parts) > 2 else []


@dataclass(frozen=True)
class _Block:
    """One record of a box-drawn table: its lines' cells, with the first line's number."""

    line: int
    rows: tuple[tuple[str, ...], ...]


def _table(
    lines: Sequence[tuple[int, str]], start: int
) -> tuple[list[list[str]], list[_Block], int]:
    """The header rows (cells) and data blocks of the box-drawn table whose header starts at
    ``lines[start]``; returns the index after the table."""
    header: list[list[str]] = []
    position = start
    while position < len(lines):
        text = lines[position][1]
        position += 1
        if "===" in text:
            break
        if text.startswith("|") and not _BORDER.match(text):
            header.append(_cells(text))
    blocks: list[_Block] = []
    current: list[tuple[int, list[str]]] = []
    while position < len(lines):
        number, text = lines[position]
        if not text.startswith(("|", "+")):
            break
        position += 1
        if _BORDER.match(text):
            if current:
                blocks.append(_Block(current[0][0], tuple(tuple(c) for _, c in current)))
                current = []
            continue
        current.append((number, _cells(text)))
    if current:
        blocks.append(_Block(current[0][0], tuple(tuple(c) for _, c in current)))
    return header, blocks, position


def _find(header: list[list[str]], label: str) -> tuple[int, int] | None:
    """(header line, cell) whose text holds ``label`` as whole words."""
    pattern = re.compile(rf"(^|\s){re.escape(label)}($|\s)")
    for row, cells in enumerate(header):
        for column, text in enumerate(cells):
            if pattern.search(text):
                return row, column
    return None


def _value(block: _Block, at: tuple[int, int] | None, line: int | None = None) -> str:
    if at is None:
        return ""
    row = at[0] if line is None else line
    if row >= len(block.rows) or at[1] >= len(block.rows[row]):
        return ""
    return block.rows[row][at[1]]


def _lost_gpus(text: ToolText) -> list[InputProblem]:
    """A problem per line of ``text`` saying nvidia-smi could not reach a GPU (``_LOST_GPU``)."""
    found = (_lost_gpu(text.file, number, line) for number, line in text.lines)
    return [problem for problem in found if problem is not None]


def read_nvidia_smi_table(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """GPU hosts from the plain ``nvidia-smi`` table (driver 4xx 79-column or newer layouts).

    Per GPU: index and name from the ``GPU Name`` cell (without the Persistence-M value, or
    the Driver-Model value Windows prints there), total memory from ``Memory-Usage``
    [MiB], MIG mode from ``MIG M.``. The ``MIG devices`` sub-table gives each GPU instance's
    memory and SMs; its profile is the catalog profile of that memory, SMs telling profiles of
    equal memory apart (``SMS_PER_COMPUTE_SLICE``). A truncated name (``Tesla V100-SXM2...``)
    is matched on the words it keeps and the memory. A run over several hosts (pdsh, clush,
    Ansible) is read host by host.
    """
    text = tool_text(data, file)
    return _per_host(
        text, TABLE_TOOL, host_name, lambda part, host: _read_table(part, file, catalog, host)
    )


def _read_table(text: ToolText, file: str, catalog: Catalog, host_name: str | None) -> HostsRead:
    """The plain table ``text`` of one output (see ``read_nvidia_smi_table``)."""
    lines = text.lines
    problems = _lost_gpus(text)
    gpus: list[_Gpu] = []
    devices: list[_MigDevice] = []
    position = 0
    seen_gpu_table = False
    while position < len(lines):
        _, line = lines[position]
        cells = _cells(line)
        if cells and _find([cells], "Name") and _find([cells], "GPU") and not seen_gpu_table:
            header, blocks, position = _table(lines, position)
            seen_gpu_table = True
            gpus.extend(_table_gpus(header, blocks, file, problems))
            continue
        if cells and cells[0].startswith("MIG devices"):
            header, blocks, position = _table(lines, position + 1)
            devices.extend(_mig_devices(header, blocks, file, problems))
            continue
        position += 1
    if not gpus:
        raise InputError(
            [
                *first_problems(problems, 5),
                InputProblem(
                    file,
                    None,
                    None,
                    "no GPU table (a header with GPU and Name)",
                    "give the output of nvidia-smi unchanged",
                ),
            ]
        )
    notes: list[ImportNote] = []
    if devices:
        gpus = _with_instances(gpus, devices, catalog, file, notes)
    read = _hosts_read(
        file,
        TABLE_TOOL,
        text,
        gpus,
        catalog,
        host_name,
        _Locators("Name", "Memory-Usage", "MIG M.", "one GPU row per GPU"),
        problems,
    )
    return HostsRead(read.file, read.tool, read.hosts, (*read.notes, *notes), read.problems)


_NAME_CELL_TAILS = {
    "Persistence-M": frozenset({"On", "Off", "N/A"}),
    "Driver-Model": frozenset({"WDDM", "TCC", "MCDM"}),
}
"""Labels the table's GPU-name header cell may end with, and the values they put after the
name: Linux drivers print persistence mode there (``N/A`` on Jetson modules), Windows drivers
the driver model."""


def _table_gpus(
    header: list[list[str]], blocks: list[_Block], file: str, problems: list[InputProblem]
) -> list[_Gpu]:
    name_at = _find(header, "Name")
    memory_at = _find(header, "Memory-Usage")
    mig_at = _find(header, "MIG M.")
    tail_values = {
        value
        for label, values in _NAME_CELL_TAILS.items()
        if _find(header, label) == name_at
        for value in values
    } or _NAME_CELL_TAILS["Persistence-M"]
    gpus = []
    for block in blocks:
        words = _value(block, name_at).split()
        index = whole_count(words[0]) if words else None
        if index is None:
            problems.append(
                InputProblem(
                    file,
                    block.line,
                    "GPU Name",
                    f"the GPU index {quoted(words[0])} is not {COUNT_SAID}: the row is ignored"
                    if words
                    else "not a GPU row of the table: ignored",
                    "give the output of nvidia-smi unchanged",
                )
            )
            continue
        if words[-1] in tail_values and len(words) > 2:
            words = words[:-1]  # the Persistence-M or Driver-Model value shares the cell
        usage = _USAGE.search(_value(block, memory_at))
        mig_text = _value(block, mig_at).lower()
        gpus.append(
            _Gpu(
                index,
                " ".join(words[1:]),
                float(usage.group(2)) if usage else None,
                {"enabled": True, "disabled": False}.get(mig_text),
                block.line,
            )
        )
    return gpus


def _mig_devices(
    header: list[list[str]], blocks: list[_Block], file: str, problems: list[InputProblem]
) -> list[_MigDevice]:
    """(GPU, GI, CI, GI memory [MiB], SMs) per MIG device row; a row whose ids, memory or SMs
    cannot be read is a problem (``_table_device``)."""
    ids_at = _find(header, "GI")
    memory_at = _find(header, "Memory-Usage")
    sm_at = _find(header, "SM")
    found = []
    for block in blocks:
        written = _value(block, ids_at, 0).split()
        if not written or written[0] == "No":
            continue  # "No MIG devices found"
        device = _table_device(
            written, _value(block, memory_at, 0), _value(block, sm_at, 0).split()
        )
        if isinstance(device, str):
            problems.append(
                InputProblem(
                    file,
                    block.line,
                    "GPU GI CI",
                    f"{device}: the MIG device is left out",
                    "give the output of nvidia-smi unchanged",
                )
            )
        else:
            found.append(device)
    return found


def _table_device(ids: list[str], memory: str, sms: list[str]) -> _MigDevice | str:
    """A MIG device row of the table from its ``GPU GI CI`` words, its memory usage cell and
    its SM cell's words, or what cannot be read in it. SMs ``N/A`` are None: the profile is
    then told by memory alone."""
    gpu, gi, ci = (whole_count(i) for i in [*ids, "", "", ""][:3])
    if len(ids) < 3 or gpu is None or gi is None or ci is None:
        return f"the ids {quoted(' '.join(ids))} are not 3 ids, each {COUNT_SAID}"
    usage = _USAGE.search(memory)
    if usage is None:
        return f"the memory usage {quoted(memory.strip())} is not used MiB / total MiB"
    first = sms[0] if sms else ""
    sm_count = whole_count(first)
    if sm_count is None and not is_not_available(first):
        return f"the SMs {quoted(first)} are not {COUNT_SAID}"
    return gpu, gi, ci, float(usage.group(2)), sm_count


def gpu_instance_profile(
    model: str, memory_mib: float, sms: int | None, catalog: Catalog
) -> tuple[MigProfile | None, NoteSource]:
    """The catalog MIG profile of a GPU instance of ``model`` with ``memory_mib`` [MiB] and
    ``sms`` streaming multiprocessors (summed over its compute instances).

    The profile of nearest memory; among profiles of that memory, the one whose compute slices
    are ``sms`` over ``SMS_PER_COMPUTE_SLICE`` rounded down (a 3g instance of an H100 has 60 SMs
    for 3 slices); ``assumed`` when the SMs cannot tell.
    """
    profiles = catalog.mig(model)
    if not profiles:
        return None, "assumed"
    gib = memory_mib / 1024
    nearest = min(abs(p.memory_gib - gib) for p in profiles)
    candidates = [p for p in profiles if abs(p.memory_gib - gib) == nearest]
    if len(candidates) == 1:
        return candidates[0], "derived"
    per_slice = SMS_PER_COMPUTE_SLICE.get(gpu_family(model))
    if per_slice is None or sms is None:
        return candidates[0], "assumed"
    slices = sms // per_slice
    return min(candidates, key=lambda p: (abs(p.compute_slices - slices), p.compute_slices)), (
        "derived"
    )


def _with_instances(
    gpus: list[_Gpu],
    devices: list[_MigDevice],
    catalog: Catalog,
    file: str,
    notes: list[ImportNote],
) -> list[_Gpu]:
    """Each GPU with the GPU instances of the MIG devices sub-table, ordered by GI id."""
    instances: dict[int, dict[int, tuple[float, int | None, set[int]]]] = {}
    for index, gi, ci, memory, sms in devices:
        per_gi = instances.setdefault(index, {})
        total, sm_sum, cis = per_gi.get(gi, (memory, 0, set()))
        if ci not in cis:
            cis.add(ci)
            sm_sum = None if sms is None or sm_sum is None else sm_sum + sms
        per_gi[gi] = (total, sm_sum, cis)
    updated = []
    for gpu in gpus:
        model = match_gpu_name(gpu.name, catalog, memory_mib=gpu.memory_mib).model
        found = []
        for gi, (memory, sms, _) in sorted(instances.get(gpu.index or 0, {}).items()):
            profile, source = (
                (None, "assumed")
                if model is None
                else gpu_instance_profile(model, memory, sms, catalog)
            )
            if profile is None:
                continue
            found.append(MigInstance(profile.name, None))
            notes.append(
                ImportNote(
                    file,
                    gpu.line,
                    "MIG devices",
                    "",
                    "",
                    profile.name,
                    source,
                    f"GPU {gpu.index} GPU instance {gi}: {memory:g} MiB and {sms} SMs is a "
                    f"{profile.name} of the {model} (placement not shown; nvidia-smi mig -lgi "
                    "lists it)",
                )
            )
        updated.append(
            _Gpu(gpu.index, gpu.name, gpu.memory_mib, gpu.mig, gpu.line, gpu.host, tuple(found))
        )
    return updated


@dataclass(frozen=True)
class _Locators:
    """Where each GPU value sits in the output, as notes name it."""

    name: str
    memory: str
    mig: str
    per_gpu: str
    """How the GPU count is read (``one row per GPU``)."""


_MIG_LINES = "MIG device lines"
_NO_HEADER = "no mig.mode.current column"


def _hosts_read(
    file: str,
    tool: str,
    text: ToolText,
    gpus: list[_Gpu],
    catalog: Catalog,
    host_name: str | None,
    locators: _Locators,
    problems: list[InputProblem],
) -> HostsRead:
    """One host per ``hostname`` value (or the one host of the output) from its GPUs.

    GPUs named as a vGPU profile are left out, each with a problem (``_vgpu_guest``); when no
    other GPU is left the output is refused.
    """
    problems.extend(_index_gaps(gpus, text, locators))
    # Each distinct name and memory is matched once: the match is the costly step and a large
    # fleet repeats a handful of models.
    gpus = [
        g
        for g in gpus
        if not _failed(g, file, locators, problems) and not _integrated(g, file, locators, problems)
    ]
    if not gpus:
        raise InputError(problems)
    matches: dict[tuple[str, float | None], GpuName] = {}
    for gpu in gpus:
        key = (gpu.name, gpu.memory_mib)
        if key not in matches:
            matches[key] = match_gpu_name(gpu.name, catalog, memory_mib=gpu.memory_mib)
    physical = [g for g in gpus if not _vgpu_guest(g, matches, file, locators, problems)]
    if not physical:
        raise InputError(problems)
    gpus = physical
    default_host, host_source, host_text = name_host(text, host_name)
    by_host: dict[str, list[_Gpu]] = {}
    for gpu in gpus:
        by_host.setdefault(gpu.host or default_host, []).append(gpu)
    hosts = []
    for host, members in by_host.items():
        from_column = members[0].host is not None
        hosts.append(
            _host(
                host,
                members,
                matches,
                file,
                catalog,
                locators,
                problems,
                ("read", "the hostname column") if from_column else (host_source, host_text),
            )
        )
    return HostsRead(file, tool, tuple(hosts), (), tuple(problems))


def _index_gaps(gpus: Sequence[_Gpu], text: ToolText, locators: _Locators) -> list[InputProblem]:
    """A problem per host whose GPU indices skip numbers that no line saying nvidia-smi could not
    reach a GPU accounts for (nvidia-smi numbers a host's GPUs from 0 without gaps): a GPU left
    out of a cut paste, or one nvidia-smi did not print, is a GPU the host is counted without."""
    lost = sum(1 for _, line in text.lines if _LOST_GPU.match(line))
    by_host: dict[str | None, list[_Gpu]] = {}
    for gpu in gpus:
        by_host.setdefault(gpu.host, []).append(gpu)
    problems = []
    for host, members in by_host.items():
        indices = {g.index for g in members if g.index is not None}
        if not indices or (host is None and lost):
            continue
        missing = sorted(set(range(max(indices) + 1)) - indices)
        if not missing:
            continue
        which = ", ".join(str(i) for i in missing)
        named = "" if host is None else f"host {quoted(host)}: "
        problems.append(
            InputProblem(
                text.file,
                members[0].line,
                locators.name,
                f"{named}the GPUs are numbered {', '.join(str(i) for i in sorted(indices))}: "
                f"GPU {which} {'is' if len(missing) == 1 else 'are'} not in the output, so the "
                "host is counted without "
                f"{'it' if len(missing) == 1 else 'them'}",
                "give the whole nvidia-smi output (a cut paste drops GPUs); if nvidia-smi does "
                "not show a GPU, check it (reseat it, reload the driver or reboot), or give the "
                "host's GPUs in an inventory CSV or per cluster (--cluster-gpus)",
                row_kept=True,
            )
        )
    return problems


_MISSING = frozenset({"N/A", "NOT SUPPORTED", "REQUESTED FUNCTIONALITY HAS BEEN DEPRECATED"})
"""nvidia-smi's bracketed values that say a value is missing, not that the GPU failed."""


def _gpu_error(written: str) -> bool:
    """Whether nvidia-smi wrote an error where a GPU's name belongs: ``ERR!`` (the table) or a
    bracketed error (``[Unknown Error]``, ``[GPU is lost]``, ``[GPU requires reset]``), not
    ``[N/A]`` or ``[Not Supported]``."""
    cleaned = written.strip()
    if cleaned == "ERR!":
        return True
    inner = cleaned[1:-1].strip().upper()
    return cleaned.startswith("[") and cleaned.endswith("]") and inner not in _MISSING


def _failed(gpu: _Gpu, file: str, locators: _Locators, problems: list[InputProblem]) -> bool:
    """Whether ``gpu`` reports an error for its name: nvidia-smi could not read it, so its
    model is unknown and it is left out, with a problem naming the error."""
    if not _gpu_error(gpu.name):
        return False
    which = "a GPU" if gpu.index is None else f"GPU {gpu.index}"
    check = "nvidia-smi -q" if gpu.index is None else f"nvidia-smi -q -i {gpu.index}"
    problems.append(
        InputProblem(
            file,
            gpu.line,
            locators.name,
            f"{which} reports an error: nvidia-smi printed {quoted(gpu.name)} for its name, so "
            "its model is unknown; left out",
            f"check the GPU ({check} shows its state; a GPU lost or needing a reset comes "
            "back after nvidia-smi -r or a reboot), then run nvidia-smi again",
        )
    )
    return True


_INTEGRATED = re.compile(r"\(nvgpu\)", re.IGNORECASE)
"""How nvidia-smi names the integrated GPU of a Jetson (Tegra) module: ``Orin (nvgpu)``."""


def _integrated(gpu: _Gpu, file: str, locators: _Locators, problems: list[InputProblem]) -> bool:
    """Whether ``gpu`` is a Jetson module's integrated GPU (``Orin (nvgpu)``), which shares the
    module's memory and is no GPU of a server the planner shares: left out, with a problem."""
    if not _INTEGRATED.search(gpu.name):
        return False
    problems.append(
        InputProblem(
            file,
            gpu.line,
            locators.name,
            f"{quoted(gpu.name)} is the integrated GPU of an NVIDIA Jetson module (the nvgpu "
            "driver), which shares the module's memory and is not a server GPU the planner "
            "shares; left out",
            "give nvidia-smi output of the GPU servers to plan; to plan this module anyway, add "
            "its GPU as your own model (--catalog-extra) and give it in an inventory CSV",
        )
    )
    return True


def _vgpu_guest(
    gpu: _Gpu,
    matches: dict[tuple[str, float | None], GpuName],
    file: str,
    locators: _Locators,
    problems: list[InputProblem],
) -> bool:
    """Whether ``gpu`` is a vGPU profile (``GRID A100D-4C``): nvidia-smi ran inside a VM, which
    sees its slice of a GPU and not the host's GPUs, so a problem naming the row is added.

    Read as its physical board it would count the slice as a whole GPU (an A100 with MIG on for
    a 4 GiB ``-4C`` profile).
    """
    name = matches[gpu.name, gpu.memory_mib]
    if name.vgpu_profile is None:
        return False
    memory = "" if gpu.memory_mib is None else f" ({gpu.memory_mib:g} MiB)"
    problems.append(
        InputProblem(
            file,
            gpu.line,
            locators.name,
            f"{quoted(gpu.name)}{memory} is the vGPU profile {name.vgpu_profile}: this "
            "nvidia-smi ran inside a VM (a vGPU guest), which sees its slice and not the host's "
            "GPUs; left out",
            "run nvidia-smi on the host that holds the physical GPUs, or give the hosts as "
            "an RVTools export or an inventory CSV",
        )
    )
    return True


def _host(
    host: str,
    gpus: list[_Gpu],
    matches: dict[tuple[str, float | None], GpuName],
    file: str,
    catalog: Catalog,
    locators: _Locators,
    problems: list[InputProblem],
    naming: tuple[NoteSource, str],
) -> HostFacts:
    first = gpus[0].line
    facts: list[Fact] = []

    def add(
        field: str, value: str | int | float, line: int, locator: str, source: NoteSource, text: str
    ) -> None:
        facts.append(
            fact(
                field,
                value,
                file=file,
                line=line,
                locator=locator,
                host=host,
                source=source,
                text=text,
            )
        )

    def name(gpu: _Gpu) -> GpuName:
        return matches[gpu.name, gpu.memory_mib]

    # The GPUs counted are those of the first catalog model (else of the first name): a model
    # the catalog lacks is no reason to leave out the host's known GPUs.
    counted = next((g for g in gpus if name(g).model is not None), gpus[0])
    first_name = name(counted)
    same = [g for g in gpus if _model_key(name(g)) == _model_key(first_name)]
    first = counted.line
    if first_name.model is None:
        problems.append(InputProblem(file, first, locators.name, first_name.reason, first_name.fix))
        add("gpu_model", first_name.written, first, locators.name, "read", first_name.reason)
    else:
        add(
            "gpu_model",
            first_name.model,
            first,
            locators.name,
            first_name.source,
            first_name.reason,
        )
    problems.extend(_other_models(host, gpus, same, name, file, locators.name))
    add("gpus_per_host", len(same), first, locators.name, "read", locators.per_gpu)
    states = [g.mig for g in same if g.mig is not None]
    model = first_name.model
    capable = model is not None and catalog.gpus[model].mig_capable
    if states:
        on = sum(states)
        text = (
            "MIG mode is on"
            if on == len(states)
            else ("MIG mode is off" if not on else f"MIG mode is on for {on} of {len(states)} GPUs")
        )
        listed = locators.mig == _MIG_LINES
        source: NoteSource = "read" if on in (0, len(states)) and not listed else "derived"
        add(
            "mig_enabled",
            "yes" if on else "no",
            first,
            locators.mig,
            source,
            "MIG devices are listed" if listed else text,
        )
    elif capable and locators.mig in (_MIG_LINES, _NO_HEADER):
        add(
            "mig_enabled",
            "no",
            first,
            locators.mig,
            "assumed",
            (
                "no MIG device listed (MIG mode may be on without instances: "
                "nvidia-smi --query-gpu=mig.mode.current tells)"
                if locators.mig == _MIG_LINES
                else "MIG mode is not known without the header "
                "(nvidia-smi --query-gpu=name,mig.mode.current --format=csv tells)"
            ),
        )
    elif capable and any(g.mig_unknown for g in same):
        unknown = next(g for g in same if g.mig_unknown)
        add(
            "mig_enabled",
            "yes",
            unknown.line,
            locators.mig,
            "assumed",
            f"{locators.mig} read {unknown.mig_unknown}: nvidia-smi could not tell the MIG mode "
            "(a GPU passed through to a VM, or a driver without MIG); assumed yes, the default "
            "on MIG-capable models: run nvidia-smi --query-gpu=mig.mode.current --format=csv "
            "on the host itself to know",
        )
    elif model is not None and not capable:
        add("mig_enabled", "no", first, locators.mig, "derived", f"{model} has no MIG")
    problems.extend(_mixed_mig(host, same, file, locators))
    layout = tuple(MigGpu(host, g.index, g.instances, file) for g in same if g.instances)
    start = gpus[0].line
    naming_note = ImportNote(file, start, "", host, "host", host, naming[0], naming[1])
    return HostFacts(host, file, start, tuple(facts), layout, naming_note)


def _mixed_mig(
    host: str, gpus: Sequence[_Gpu], file: str, locators: _Locators
) -> list[InputProblem]:
    """A problem when some of the host's ``gpus`` have MIG mode on and others off (in ``-L``,
    some list MIG devices and others none): the inventory holds one MIG mode per host, and the
    host is kept whole, as MIG-enabled, rather than split into rows that would each count as a
    host of their own (its cores, memory and failures counted twice)."""
    listed = locators.mig == _MIG_LINES
    on = [g for g in gpus if (g.instances if listed else g.mig)]
    off = [g for g in gpus if (not g.instances if listed else g.mig is False)]
    if not on or not off:
        return []

    def which(members: list[_Gpu], one: str, several: str) -> str:
        listed_ids = ", ".join("?" if g.index is None else str(g.index) for g in members)
        return f"GPU {listed_ids} {one}" if len(members) == 1 else f"GPUs {listed_ids} {several}"

    if listed:
        off_said = which(off, "lists no MIG device", "list no MIG device")
        on_said = which(on, "lists MIG devices", "list MIG devices")
    else:
        off_said = which(off, "has MIG mode off", "have MIG mode off")
        on_said = which(on, "has it on", "have it on")
    verb = "lists" if listed else "has"
    return [
        InputProblem(
            file,
            off[0].line,
            locators.mig,
            f"host {quoted(host)}: {off_said} while {on_said}; the inventory holds one MIG mode "
            f"per host, so all {counted(len(gpus), 'GPU')} are planned as MIG-enabled",
            "set the same MIG mode on every GPU of the host (nvidia-smi -i INDEX -mig 1), or "
            "give the host in an inventory CSV as two rows, one per MIG mode, each with its "
            f"GPUs (this output {verb} {len(on)} with MIG and {len(off)} without)",
            row_kept=True,
        )
    ]


def _model_key(name: GpuName) -> str:
    """What tells one GPU model of a host from another: the catalog model, else the name."""
    return name.model if name.model is not None else f"unknown {name.written}"


def _gpu_count(count: int) -> str:
    return counted(count, "GPU")


def _other_models(
    host: str,
    gpus: list[_Gpu],
    counted: list[_Gpu],
    name: Callable[[_Gpu], GpuName],
    file: str,
    locator: str,
) -> list[InputProblem]:
    """A problem on each GPU of ``host`` that is not of the model ``counted`` (the inventory
    holds one model per host), naming every model the host has and what is counted."""
    groups: dict[str, list[_Gpu]] = {}
    for gpu in gpus:
        groups.setdefault(_model_key(name(gpu)), []).append(gpu)
    if len(groups) < 2:
        return []
    written = [members[0].name for members in groups.values()]

    def label(members: list[_Gpu]) -> str:
        # A cut-off name ('Tesla V100-SXM2...') may be two models, told apart by memory.
        gpu = members[0]
        memory = gpu.memory_mib
        alike = written.count(gpu.name) > 1 and memory is not None
        return quoted(gpu.name) + (f" of {memory:g} MiB" if alike else "")

    labels = ", ".join(label(members) for members in groups.values())
    count = "two" if len(groups) == 2 else str(len(groups))
    kept = name(counted[0])
    verb = "is" if len(counted) == 1 else "are"
    kept_said = (
        f"the {_gpu_count(len(counted))} of {kept.model} {verb} counted"
        if kept.model is not None
        else f"the host is read as its {_gpu_count(len(counted))} of {label(counted)}, which "
        f"the catalog has no model for (row {counted[0].line})"
    )
    problems = []
    for members in groups.values():
        if members is groups[_model_key(kept)]:
            continue
        other = name(members[0])
        unknown = "" if other.model is not None else f"; {other.reason}"
        fix = "give each model's GPUs as a host of their own (a CSV row per model)"
        for gpu in members:
            problems.append(
                InputProblem(
                    file,
                    gpu.line,
                    locator,
                    f"host {quoted(host)} has GPUs of {count} models ({labels}); the inventory "
                    f"holds one model per host, so this {label(members)} GPU is left out and "
                    f"{kept_said}{unknown}",
                    fix if other.model is not None else f"{fix}; {other.fix}",
                )
            )
    return problems
