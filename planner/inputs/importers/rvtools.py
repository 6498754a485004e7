"""vSphere hosts from an RVTools export (``.xlsx``, or its ``vHost`` tab exported as CSV, as
``RVTools -c ExportAll2csv`` writes it): cluster, CPU cores and memory per host.

The ``vHost`` tab has one row per ESXi host. Column names drift between RVTools versions, so each
is matched ignoring case, spaces and punctuation, against aliases: host (``Host``), cluster
(``Cluster``), cores (``# Cores``, ``Num Cores``, ``Cores``; else ``# CPU`` × ``Cores per
CPU``), memory (``# Memory``, ``Memory``, ``Memory MB``, ``Memory MiB``). RVTools' memory
figures are MiB whatever the label says (RVTools 4 relabelled its ``MB`` columns ``MiB``); one
under 1 GiB is no host's (``261.797``: a point between thousands) and is a problem, not a figure.
When ``vHost`` has no cluster column, the ``vInfo`` tab (one row per VM, with its ``Host`` and
``Cluster``) gives each host's cluster. A column read that appears twice is refused, as in the
planner's own CSVs; blank rows are passed over, however many. RVTools has no GPU columns: GPUs
come from another file (matched by host name) or are given per cluster. Each host's vCenter
(``VI SDK Server``) and datacenter (``Datacenter``) are kept (``VHostsRead.sites``): a cluster
name is unique only within one datacenter of one vCenter, so clusters of one name from two are
told apart where hosts are combined.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from openpyxl.utils import get_column_letter

from planner.inputs.importers.hosts import Fact, HostFacts, HostsRead, UnusedCell, fact
from planner.inputs.importers.provenance import ImportNote
from planner.inputs.importers.sheets import (
    RowPastLastRowError,
    UnreadableCell,
    sheet_rows,
    workbook_sheets,
)
from planner.inputs.importers.text import decode_text
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import (
    SPREADSHEET_SEPARATORS,
    CellError,
    csv_header,
    csv_records,
    is_workbook,
    number_text,
    quoted,
    shown,
    visible_name,
    without_invisible,
)

__all__ = [
    "ALIASES",
    "TOOL",
    "Site",
    "VHostsRead",
    "is_vhost_csv",
    "read_rvtools",
]

TOOL = "RVTools export"
ALIASES: Mapping[str, tuple[str, ...]] = {
    "host": ("host", "hostname", "esxihost", "name"),
    "cluster": ("cluster", "clustername"),
    "cores": ("#cores", "numcores", "cores", "numcpucores", "cpucores", "totalcores"),
    "sockets": ("#cpu", "numcpu", "cpu", "cpus", "sockets", "#sockets"),
    "cores_per_cpu": ("corespercpu", "corespersocket", "corespers"),
    "memory": ("#memory", "memory", "memorymb", "memorymib", "memorysize", "totalmemory"),
}
"""Accepted spellings of each column, normalised (lower case, only letters, digits and ``#``)."""
_SITE_ALIASES: Mapping[str, tuple[str, ...]] = {
    "vcenter": ("visdkserver", "vcenter", "vcenterserver"),
    "datacenter": ("datacenter", "datacentername"),
}
"""Columns naming where a host is managed: its vCenter (RVTools' ``VI SDK Server``) and
datacenter. A cluster's name is unique only within one datacenter of one vCenter."""
_VINFO_ALIASES: Mapping[str, tuple[str, ...]] = {
    "host": ("host", "esxihost"),
    "cluster": ("cluster", "clustername"),
}


def _normalised(name: object) -> str:
    return re.sub(r"[^a-z0-9#]", "", str(name).lower()) if name is not None else ""


_VHOST_ONLY = frozenset(
    {"#cpu", "#cores", "#memory", "corespercpu", "configstatus", "cpumodel", "htavailable"}
)
"""Columns of RVTools' vHost tab no other CSV the planner reads has (normalised)."""
_VHOST_MATCH = 3
"""Of them, how many a CSV header with a Host column needs to be a vHost tab."""


@dataclass(frozen=True)
class Site:
    """Where a host is managed, as its vHost row gives it (empty when not given)."""

    vcenter: str
    """The vCenter RVTools read it from (``VI SDK Server``)."""
    datacenter: str


@dataclass(frozen=True)
class VHostsRead(HostsRead):
    """The hosts of an RVTools export, with the vCenter and datacenter of each."""

    sites: Mapping[str, Site] = field(default_factory=dict)
    """Each host's site by its name; a host whose row names neither is absent."""


def is_vhost_csv(header: Sequence[str]) -> bool:
    """Whether a CSV header (its cells) is RVTools' vHost tab exported as CSV."""
    names = {_normalised(h) for h in header}
    return "host" in names and len(names & _VHOST_ONLY) >= _VHOST_MATCH


@dataclass(frozen=True)
class _CsvTab:
    """A tab exported as CSV, read like a workbook's sheet (``iter_rows``, ``title``)."""

    title: str
    rows: tuple[tuple[str | None, ...], ...]
    """Each row's cells, None where empty (as a workbook gives them)."""
    separator: str
    """The column separator the file was written with; when it is not a comma, numbers are
    written as that locale writes them (``number_text``)."""

    def iter_rows(self, *, values_only: bool) -> Iterator[tuple[str | None, ...]]:
        return iter(self.rows)


@dataclass(frozen=True)
class _CsvBook:
    """An RVTools CSV export as a workbook of its one tab."""

    tab: _CsvTab

    @property
    def sheetnames(self) -> list[str]:
        return [self.tab.title]

    def __getitem__(self, title: str) -> _CsvTab:
        return self.tab


def _csv_book(data: bytes, file: str) -> _CsvBook:
    """The vHost tab exported as CSV (comma-, semicolon- or tab-separated, as the locale
    writes it), its header and separator found as every CSV reader finds them
    (``tabular.csv_header``: below blank lines and Excel's ``sep=;`` line, on the separator
    that line names)."""
    text = decode_text(data, file)
    tab, fix = f"{file} [vHost]", "give the vHost tab as RVTools exports it"
    found = csv_header(text, tab, SPREADSHEET_SEPARATORS, fix=fix)
    if found is None:
        return _CsvBook(_CsvTab("vHost", (), ","))
    reader = csv.reader(io.StringIO(text[found.start :]), delimiter=found.separator)
    # Rows keep their place, as a spreadsheet numbers them: the lines above the header (blank
    # lines, Excel's sep= line) are empty rows.
    rows: list[tuple[str | None, ...]] = [()] * (found.row - 1)
    rows.extend(
        tuple(cell if cell.strip() else None for cell in record)
        for _, record in csv_records(reader, tab, found.row, fix)
    )
    return _CsvBook(_CsvTab("vHost", tuple(rows), found.separator))


def _sheet(book: Any, name: str) -> Any | None:
    for title in book.sheetnames:
        if title.strip().lower() == name.lower():
            return book[title]
    return None


def _rows(sheet: Any, file: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(spreadsheet row, values) of each filled row to the sheet's end, the first being the
    header. Blank rows are passed over however many, so no row below them is lost: rows the
    file leaves out cost next to nothing (a host on Excel's last row is found in under a
    second), and rows written blank cost what any row of the file does."""
    try:
        for number, values in enumerate(sheet_rows(sheet), start=1):
            if any(v is not None and str(v).strip() for v in values):
                yield number, tuple(values)
    except RowPastLastRowError as error:
        problem = InputProblem(
            file, error.row, None, str(error), "give the RVTools export as saved"
        )
        raise InputError([problem]) from None
    # A damaged sheet raises XML or zip errors part way through.
    except Exception:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "the sheet cannot be read to its end",
                    "give the RVTools export as saved",
                )
            ]
        ) from None


def _columns(
    header: Sequence[Any], aliases: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[int, str]]:
    """Position and written name of each known column; the first alias present wins."""
    written = [(_normalised(h), "" if h is None else str(h).strip()) for h in header]
    found: dict[str, tuple[int, str]] = {}
    for key, names in aliases.items():
        for alias in names:
            position = next((i for i, (n, _) in enumerate(written) if n == alias), None)
            if position is not None:
                found[key] = (position, written[position][1])
                break
    return found


def _refuse_repeated(
    header: Sequence[Any], columns: Mapping[str, tuple[int, str]], tab: str, row: int
) -> None:
    """Raise ``InputError`` when a column read appears twice in the header on ``row``, as the
    planner's CSVs refuse a repeated column: which one holds the values meant is not known. A
    column not read may repeat (a custom attribute named as another): nothing of it is used."""
    names = [_normalised(h) for h in header]
    problems = []
    for position, written in sorted(columns.values()):
        repeats = [i for i, name in enumerate(names) if name == names[position]]
        if len(repeats) > 1:
            letters = [get_column_letter(i + 1) for i in repeats]
            listed = f"{', '.join(letters[:-1])} and {letters[-1]}"
            problems.append(
                InputProblem(
                    tab,
                    row,
                    shown(written),
                    f"column {quoted(written)} appears twice (columns {listed})",
                    "keep one column of that name",
                )
            )
    if problems:
        raise InputError(problems)


_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
"""A number with commas between groups of thousands (``261,797``); any other comma, as in a
decimal comma (``1,5``), makes a cell no number rather than a wrong one. The rule of a workbook
and a comma-separated CSV."""


def _number(value: Any, separator: str) -> float | None:
    """A cell's number; None when it is none. In a CSV separated by other than commas the text
    is read by ``number_text`` (decimal commas, thousands points), which raises ``CellError``
    for a number that reads two ways (``524.288``)."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    if separator != ",":
        text = number_text(text, separator)
    elif _GROUPED.match(text):
        text = text.replace(",", "")
    try:
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def read_rvtools(data: bytes, file: str) -> VHostsRead:
    """Hosts from an RVTools export's ``vHost`` tab (see the module docstring for the columns).

    Each bad cell is a problem naming the tab, row and column; its host keeps its other values.
    Raises ``InputError`` when the file is not a workbook, has no ``vHost`` tab, lacks the host
    column, or repeats a column it reads (in vHost, or in vInfo when that gives the clusters).
    """
    book = (
        workbook_sheets(data, file, "give the RVTools export as saved (File > Export all to Excel)")
        if is_workbook(data)
        else _csv_book(data, file)
    )
    sheet = _sheet(book, "vHost")
    if sheet is None:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"no vHost tab (tabs: {', '.join(book.sheetnames)[:200]})",
                    "export all tabs from RVTools (File > Export all to Excel)",
                )
            ]
        )
    tab = f"{file} [{sheet.title}]"
    separator = sheet.separator if isinstance(sheet, _CsvTab) else ","
    rows = _rows(sheet, tab)
    header_row = next(rows, None)
    if header_row is None:
        raise InputError(
            [
                InputProblem(
                    tab, None, None, "the vHost tab is empty", "export the hosts with RVTools"
                )
            ]
        )
    columns = _columns(header_row[1], ALIASES)
    _refuse_repeated(header_row[1], columns, tab, header_row[0])
    if "host" not in columns:
        raise InputError(
            [
                InputProblem(
                    tab,
                    header_row[0],
                    None,
                    "no Host column in the header",
                    "give the vHost tab as RVTools exports it (its first column is Host)",
                )
            ]
        )
    clusters_from_vinfo = {} if "cluster" in columns else _vinfo_clusters(book, file)
    site_columns = _columns(header_row[1], _SITE_ALIASES)
    sites: dict[str, Site] = {}
    hosts: list[HostFacts] = []
    problems: list[InputProblem] = []
    notes = [
        ImportNote(
            tab,
            None,
            "",
            "",
            "",
            "",
            "read",
            "RVTools has no GPU columns: each host's GPUs come from another file (nvidia-smi or "
            "kubectl output, matched by host name) or are given per cluster (--cluster-gpus "
            "CLUSTER=MODEL:GPUS, or the import panel)",
        )
    ]
    problems.extend(_missing_columns(columns, tab, header_row[0]))
    header = _header_names(header_row[1])
    for number, values in rows:
        again = _columns(values, ALIASES)
        if _header_names(values) == header or ("host" in again and len(again) > 1):
            # Exports of several vCenters joined one after the other repeat the header: no host
            # (read as one, it would be host 'Host' with assumed cores and memory). An export
            # whose columns lie elsewhere is read by its own header from here on.
            if _header_names(values) == header:
                problems.append(
                    InputProblem(
                        tab,
                        number,
                        None,
                        f"the header row is repeated here (row {header_row[0]} is the header): "
                        "exports joined one after the other; row left out",
                        "delete this row",
                    )
                )
            else:
                _refuse_repeated(values, again, tab, number)
                columns, header = again, _header_names(values)
                site_columns = _columns(values, _SITE_ALIASES)
                problems.append(
                    InputProblem(
                        tab,
                        number,
                        None,
                        f"another header row here, its columns not those of row "
                        f"{header_row[0]}: exports joined one after the other; the rows below "
                        "are read by this header",
                        "give each vCenter's export as a file of its own",
                        row_kept=True,
                    )
                )
                problems.extend(_missing_columns(columns, tab, number))
            continue
        host = _host_name(values, columns["host"], tab, number, problems)
        if host is None:
            continue
        facts = [
            fact(
                "platform",
                Platform.VSPHERE.value,
                file=tab,
                line=number,
                locator="",
                host=host,
                source="read",
                text="an ESXi host in RVTools",
            )
        ]
        _cluster(values, columns, clusters_from_vinfo, (host, tab, number, file), facts, problems)
        unused: list[UnusedCell] = []
        _cores(values, columns, separator, host, (tab, number), facts, problems, unused)
        _memory(values, columns, separator, host, (tab, number), facts, problems, unused)
        hosts.append(HostFacts(host, tab, number, tuple(facts), unused=tuple(unused)))
        site = Site(*(_text(values, site_columns.get(k)).strip() for k in _SITE_ALIASES))
        if site.vcenter or site.datacenter:
            sites.setdefault(host, site)
    if not hosts and not problems:
        raise InputError(
            [
                InputProblem(
                    tab, None, None, "no host row in the vHost tab", "export the hosts with RVTools"
                )
            ]
        )
    return VHostsRead(tab, TOOL, tuple(hosts), tuple(notes), tuple(problems), sites=sites)


def _host_name(
    values: Sequence[Any],
    column: tuple[int, str],
    tab: str,
    number: int,
    problems: list[InputProblem],
) -> str | None:
    """The host name of a vHost row, its invisible characters removed (with a problem); None,
    with a problem, when the row has none to read (empty, an error value)."""
    where = partial(InputProblem, tab, number, column[1])
    broken = _unreadable(values, column)
    if broken is not None:
        problems.append(
            where(
                f"the host name cell holds {broken.said}: row left out",
                "write the host's name in the cell (its value, not a formula)",
            )
        )
        return None
    host = _text(values, column)
    if not host:
        problems.append(
            where("the host name is empty: row left out", "give every host row its name")
        )
        return None
    host = visible_name(host, "host name", partial(where, row_kept=True), problems)
    if not host:
        problems.append(
            where(
                "the host name holds only invisible characters: row left out",
                "give every host row its name",
            )
        )
        return None
    return host


def _missing_columns(
    columns: Mapping[str, tuple[int, str]], tab: str, header_row: int
) -> list[InputProblem]:
    """A problem for each of cores and memory the header gives no column for: no host of the
    tab has it, where it would be left out unsaid."""
    missing = []
    if "cores" not in columns and not ("sockets" in columns and "cores_per_cpu" in columns):
        missing.append(("cores", "# Cores (or # CPU and Cores per CPU)", "cpu_cores"))
    if "memory" not in columns:
        missing.append(("memory", "# Memory (MiB)", "ram_gib"))
    return [
        InputProblem(
            tab,
            header_row,
            None,
            f"no {what} column in the header ({written}): no host's {what} is read",
            f"give the vHost tab as RVTools exports it, or set {field} per host",
            row_kept=True,
        )
        for what, written, field in missing
    ]


def _header_names(values: Sequence[Any]) -> tuple[str, ...]:
    """A row's cells as column names are matched, trailing empty cells left out: a repeated
    header row gives the header's names."""
    names = [_normalised(v) for v in values]
    while names and not names[-1]:
        names.pop()
    return tuple(names)


def _unreadable(values: Sequence[Any], column: tuple[int, str] | None) -> UnreadableCell | None:
    """The row's cell in ``column`` when it holds an error value or a number that is none."""
    if column is None or column[0] >= len(values):
        return None
    cell = values[column[0]]
    return cell if isinstance(cell, UnreadableCell) else None


def _text(values: Sequence[Any], column: tuple[int, str] | None) -> str:
    """The row's text in ``column``; empty when there is none (an ``UnreadableCell`` too)."""
    if column is None or column[0] >= len(values):
        return ""
    cell = values[column[0]]
    return "" if cell is None or isinstance(cell, UnreadableCell) else str(cell).strip()


def _cluster(
    values: Sequence[Any],
    columns: Mapping[str, tuple[int, str]],
    clusters_from_vinfo: Mapping[str, tuple[str, int]],
    row: tuple[str, str, int, str],
    facts: list[Fact],
    problems: list[InputProblem],
) -> None:
    """The host's cluster from vHost (invisible characters removed, with a problem, as from
    host names) or else from its VMs' rows in vInfo; none, with a problem, when vHost's cell
    holds an error value. ``row`` is (host, tab, row, file)."""
    host, tab, number, file = row
    broken = _unreadable(values, columns.get("cluster"))
    if broken is not None:
        problems.append(
            InputProblem(
                tab,
                number,
                columns["cluster"][1],
                f"the cluster cell holds {broken.said}: host {quoted(host)} is read without a "
                "cluster",
                "write the host's cluster in the cell (its value, not a formula)",
                row_kept=True,
            )
        )
        return
    cluster = _text(values, columns.get("cluster"))
    if cluster:
        where = partial(InputProblem, tab, number, columns["cluster"][1], row_kept=True)
        cluster = visible_name(cluster, "cluster name", where, problems)
    if cluster:
        facts.append(
            fact(
                "cluster",
                cluster,
                file=tab,
                line=number,
                locator=columns["cluster"][1],
                host=host,
                source="read",
                text="the host's vSphere cluster",
            )
        )
    elif host.lower() in clusters_from_vinfo:
        name, vm_row = clusters_from_vinfo[host.lower()]
        facts.append(
            fact(
                "cluster",
                name,
                file=f"{file} [vInfo]",
                line=vm_row,
                locator="Cluster",
                host=host,
                source="derived",
                text="vHost has no cluster: the cluster of the host's VMs in vInfo",
            )
        )


def _positive(
    values: Sequence[Any],
    column: tuple[int, str],
    separator: str,
    what: tuple[str, str, str, str],
    where: tuple[str, int],
    problems: list[InputProblem],
    unused: list[UnusedCell],
) -> float | None:
    """The number above 0 in a host row's cell; else None, with a problem naming the cell and what
    it holds and saying the host is still planned, with the figure the import assumes, and the
    cell added to ``unused`` for that figure's note (``_not_used``).

    ``what`` is (the figure as a message names it, its unit as written after it, the inventory
    column, the figure assumed in its place); ``where`` the tab and row.
    """
    said, unit, field, _ = what
    raw = values[column[0]] if column[0] < len(values) else None
    written = "" if raw is None else str(raw).strip()
    try:
        found = _number(raw, separator)
    except CellError as error:
        _not_used(error.message, error.fix, column[1], what, where, problems, unused)
        return None
    if found is not None and found > 0:
        return found
    if isinstance(raw, UnreadableCell):
        wrong = f"the {said} cell holds {raw.said}"
    elif written:
        wrong = f"{quoted(written)} is not a {said} above 0{unit}"
    else:
        wrong = f"the {said} cell is empty"
    fix = f"give the vHost tab as RVTools exports it, or set {field} for this host"
    _not_used(wrong, fix, column[1], what, where, problems, unused)
    return None


def _not_used(
    wrong: str,
    fix: str,
    column: str,
    what: tuple[str, str, str, str],
    where: tuple[str, int],
    problems: list[InputProblem],
    unused: list[UnusedCell],
) -> None:
    """A host's figure in ``column`` that cannot be used (``wrong`` says why): a problem saying
    the host is still planned, with the figure the import assumes (the host's GPUs are real, as
    a node's whose capacity kubectl gives unreadably), and the cell, so that the assumed
    figure's note names it rather than saying RVTools lacks the figure."""
    _, _, field, assumed = what
    kept = f"the host is kept, planned with the {assumed} the import assumes instead"
    problems.append(InputProblem(*where, column, f"{wrong}: {kept}", fix, row_kept=True))
    unused.append(UnusedCell(field, *where, column, f"row {where[1]}, {column}: {wrong}"))


_HOST_MEMORY_MINIMUM_MIB = 1024.0
"""Least memory a host has [MiB]: a smaller figure is a misread, most often of a number written
with a point between thousands (``261.797`` for 261,797 MiB) read as a decimal point."""
_THOUSANDS_POINTS = re.compile(r"^\d{1,3}(\.\d{3})+$")
"""A number with points between groups of thousands and no decimals: ``261.797``."""


def _too_little_memory(written: str, mib: float) -> tuple[str, str]:
    """(what is wrong, the fix) of a host memory cell reading as less than
    ``_HOST_MEMORY_MINIMUM_MIB``: what it was read as, what it most likely means, and how to
    export it plainly."""
    read_as = (
        f"{quoted(written)} is {mib:g} MiB ({mib / 1024:.2g} GiB), too little for a host "
        f"(under {_HOST_MEMORY_MINIMUM_MIB / 1024:g} GiB)"
    )
    if _THOUSANDS_POINTS.match(written):
        whole = int(written.replace(".", ""))
        return (
            f"{read_as}: most likely {whole:,} MiB, written with a point between thousands",
            f"export from RVTools with plain numbers, without thousands separators ({whole}), "
            "or set ram_gib for this host",
        )
    return (
        f"{read_as}; RVTools gives memory in MiB",
        "give the host's memory in MiB as RVTools exports it, or set ram_gib for this host",
    )


_CORES = ("core count", "", "cpu_cores", "core count")
_SOCKETS = ("socket count", "", "cpu_cores", "core count")
_CORES_PER_SOCKET = ("core count per socket", "", "cpu_cores", "core count")
_MEMORY = ("memory", " [MiB]", "ram_gib", "memory")


def _cores(
    values: Sequence[Any],
    columns: Mapping[str, tuple[int, str]],
    separator: str,
    host: str,
    where: tuple[str, int],
    facts: list[Fact],
    problems: list[InputProblem],
    unused: list[UnusedCell],
) -> None:
    tab, number = where
    if "cores" in columns:
        cores = _positive(values, columns["cores"], separator, _CORES, where, problems, unused)
        if cores is not None:
            facts.append(
                fact(
                    "cpu_cores",
                    cores,
                    file=tab,
                    line=number,
                    locator=columns["cores"][1],
                    host=host,
                    source="read",
                    text="physical cores of the host",
                )
            )
        return
    if "sockets" in columns and "cores_per_cpu" in columns:
        sockets = _positive(
            values, columns["sockets"], separator, _SOCKETS, where, problems, unused
        )
        per = _positive(
            values, columns["cores_per_cpu"], separator, _CORES_PER_SOCKET, where, problems, unused
        )
        if sockets is not None and per is not None:
            facts.append(
                fact(
                    "cpu_cores",
                    sockets * per,
                    file=tab,
                    line=number,
                    locator=f"{columns['sockets'][1]} × {columns['cores_per_cpu'][1]}",
                    host=host,
                    source="derived",
                    text="CPUs × cores per CPU (no core-count column)",
                )
            )


def _memory(
    values: Sequence[Any],
    columns: Mapping[str, tuple[int, str]],
    separator: str,
    host: str,
    where: tuple[str, int],
    facts: list[Fact],
    problems: list[InputProblem],
    unused: list[UnusedCell],
) -> None:
    if "memory" not in columns:
        return
    tab, number = where
    column = columns["memory"]
    mib = _positive(values, column, separator, _MEMORY, where, problems, unused)
    if mib is None:
        return
    if mib < _HOST_MEMORY_MINIMUM_MIB:
        wrong, fix = _too_little_memory(str(values[column[0]]).strip(), mib)
        _not_used(wrong, fix, column[1], _MEMORY, where, problems, unused)
        return
    facts.append(
        fact(
            "ram_gib",
            round(mib / 1024, 3),
            file=tab,
            line=number,
            locator=columns["memory"][1],
            host=host,
            source="derived",
            text="the host's memory in GiB (RVTools gives MiB)",
        )
    )


def _vinfo_clusters(book: Any, file: str) -> dict[str, tuple[str, int]]:
    """Cluster of each host (lower-case name) as the vInfo tab's VM rows give it."""
    sheet = _sheet(book, "vInfo")
    if sheet is None:
        return {}
    tab = f"{file} [{sheet.title}]"
    rows = _rows(sheet, tab)
    header = next(rows, None)
    if header is None:
        return {}
    columns = _columns(header[1], _VINFO_ALIASES)
    if "host" not in columns or "cluster" not in columns:
        return {}
    _refuse_repeated(header[1], columns, tab, header[0])
    found: dict[str, tuple[str, int]] = {}
    for number, values in rows:
        # Matched to vHost's names as those are read: without invisible characters.
        host = without_invisible(_text(values, columns["host"])).strip()
        cluster = without_invisible(_text(values, columns["cluster"])).strip()
        if host and cluster:
            found.setdefault(host.lower(), (cluster, number))
    return found
