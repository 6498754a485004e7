"""The inventory from the files admins already have: each read, then combined host by host.

Every file is detected (``detect_file``) and read by its importer into facts per host
(ResourceSlices of Kubernetes DRA, which detection refuses, by ``resource_slices``). Facts
about one host from several files are combined: hosts match by name ignoring case, with or
without a domain (``gpu-07`` is ``gpu-07.lab.example``; IP addresses match whole). For each
column the best-sourced fact wins (read, then derived, then assumed), the first file breaking a
tie; a GPU model, GPU count or MIG mode read or derived that loses to another value is a problem
(an assumed one loses quietly), and so is a model given that the host's MIG profiles rule out
(``OpenModel``). The GPUs typed per cluster (``gpus_by_cluster``) fill what no file gives and
replace what a file only assumes; a value a file reads or derives is kept against them, with a
problem. Columns no file gives take ``ImportDefaults``, each marked assumed. GPU models a file
adds (the trace's, which Alibaba's node YAML labels: ``kubectl_nodes.NodesRead.added_models``)
join the catalog the hosts are planned with (``ImportedInventory.planning_catalog``). The result
is an inventory frame with the CSV's columns, validated by ``inventory_from_frame`` like any
edited inventory, so every rule stays in one place.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from planner.inputs.catalog import Catalog, GpuModel, UnknownGpuModel
from planner.inputs.cell_units import CORES, GIB
from planner.inputs.importers import kubectl_nodes, mig, nvidia_smi, resource_slices, rvtools
from planner.inputs.importers.detect import Format, detect_file, give_as
from planner.inputs.importers.hosts import (
    HOST_FIELDS,
    Fact,
    HostFacts,
    HostsRead,
    MigGpu,
    fact,
)
from planner.inputs.importers.provenance import SOURCES, ImportNote, validated_import
from planner.inputs.importers.text import COUNT_SAID, host_from_file_name, whole_count
from planner.inputs.importers.workbook import plan_inputs_of
from planner.inputs.inventory import (
    INVENTORY_COLUMNS,
    Inventory,
    host_key,
    inventory_from_frame,
    load_inventory,
)
from planner.inputs.platform import DEFAULT_PLATFORM
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import quoted, shown, without_invisible, yes_no
from planner.words import counted

__all__ = [
    "FRAME_COLUMNS",
    "ImportDefaults",
    "ImportedInventory",
    "import_inventory",
    "parse_cluster_gpus",
    "read_hosts",
]

FRAME_COLUMNS = (*INVENTORY_COLUMNS, "mig_enabled", "platform", "notes")
"""Columns of the imported inventory frame: the CSV's, with ``notes`` naming the files used."""
_CHECKED = frozenset({"gpu_model", "gpus_per_host", "mig_enabled"})
"""Columns where two files disagreeing is a problem; elsewhere (cores, memory, cluster) sources
legitimately differ (allocatable against physical), so the loser is a note."""


@dataclass(frozen=True)
class ImportDefaults:
    """Values for inventory columns no file gives; each use is a note marked assumed."""

    cluster: str = "imported"
    cpu_cores: float = 64.0
    """[cores]"""
    ram_gib: float = 512.0
    """[GiB]"""
    network_gbps: float = 25.0
    """[Gbit/s]; no tool the planner reads reports it."""
    rdma: bool = False
    """Without RDMA the remote pool pays TCP's overhead: the cautious default."""


@dataclass(frozen=True)
class ImportedInventory:
    """The inventory imported from files: a frame to validate, and where every value came from."""

    frame: pd.DataFrame
    """``FRAME_COLUMNS``, one row per host with GPUs; ``inventory_from_frame`` validates it."""
    notes: tuple[ImportNote, ...]
    """Per host and column: read, derived or assumed, and from where; rows left out."""
    problems: tuple[InputProblem, ...]
    """What could not be used, with file, line or cell, and the fix."""
    mig_layouts: tuple[MigGpu, ...]
    """MIG instances in place, by the host names of ``frame``."""
    files: tuple[tuple[str, str], ...]
    """(file, the tool it was read as) for each file, in order."""
    plan_workbooks: tuple[str, ...] = ()
    """The files that are plan workbooks, which can restore the whole plan."""
    added_models: tuple[GpuModel, ...] = ()
    """GPU models the files name that the catalog lacked and the import added: those of
    Alibaba's GPU-sharing trace its node YAML labels (``kubectl_nodes.NodesRead.added_models``),
    each noted with its figures."""

    def planning_catalog(self, catalog: Catalog) -> Catalog:
        """``catalog`` with the models the import added (``added_models``), which its hosts are
        planned with."""
        return catalog.with_models(self.added_models)

    def inventory(
        self, catalog: Catalog, *, file_name: str = "imported inventory"
    ) -> Loaded[Inventory]:
        """The frame validated as an inventory on ``catalog`` with the models the import added
        (``planning_catalog``); its problems follow the import's own.

        Raises ``InputError`` (the import's problems first) when no row is usable.
        """
        planned_with = self.planning_catalog(catalog)
        return validated_import(
            lambda frame: inventory_from_frame(frame, planned_with, file_name=file_name),
            self.frame,
            self.notes,
            self.problems,
            validated_as=file_name,
            subject=("host", "host"),
            files=[file for file, _ in self.files],
        )


def parse_cluster_gpus(text: str, *, field: str = "GPUs per cluster") -> dict[str, tuple[str, int]]:
    """``CLUSTER=MODEL:GPUS`` entries separated by commas or new lines (``prod=L40S:4``), as
    ``import_inventory``'s ``gpus_by_cluster``. Raises ``InputError`` naming the bad entry."""
    found: dict[str, tuple[str, int]] = {}
    for entry in (e.strip() for e in text.replace("\n", ",").split(",")):
        if not entry:
            continue
        cluster, equals, rest = entry.partition("=")
        model, colon, count = rest.rpartition(":")
        if not (equals and colon and cluster.strip() and model.strip() and count.strip()):
            raise InputError(
                [
                    InputProblem(
                        field,
                        None,
                        None,
                        f"{quoted(entry)} is not CLUSTER=MODEL:GPUS",
                        "write for example prod=L40S:4 (a catalog model, whole GPUs per host)",
                    )
                ]
            )
        gpus = whole_count(count)
        if gpus is None:
            raise InputError(
                [
                    InputProblem(
                        field,
                        None,
                        None,
                        f"{quoted(entry)}: the GPUs, {quoted(count.strip())}, are not {COUNT_SAID}",
                        "write the whole GPUs per host, for example prod=L40S:4",
                    )
                ]
            )
        name = cluster.strip()
        earlier = next((c for c in found if _cluster_key(c) == _cluster_key(name)), None)
        if earlier is not None:
            raise InputError(
                [
                    InputProblem(
                        field,
                        None,
                        None,
                        f"cluster {quoted(name)} is given GPUs twice (also as {quoted(earlier)})",
                        "give each cluster's GPUs once",
                    )
                ]
            )
        found[name] = (model.strip(), gpus)
    return found


def _cluster_key(name: str) -> str:
    """What a cluster name is matched by: what it shows, case ignored."""
    return without_invisible(name).strip().lower()


_FILL_UNITS = {"cpu_cores": CORES, "ram_gib": GIB}
"""The unit of each host figure a file may hold in a cell that cannot be used."""


def _clusters_given(
    gpus_by_cluster: Mapping[str, tuple[str, int]], problems: list[InputProblem]
) -> dict[str, tuple[str, tuple[str, int]]]:
    """The GPUs typed per cluster by the cluster's key (what its name shows, case ignored, as
    files' names are matched) -> (the name as typed, the GPUs); a cluster typed twice is a
    problem and its first entry is used."""
    given: dict[str, tuple[str, tuple[str, int]]] = {}
    for written, gpus in gpus_by_cluster.items():
        key = _cluster_key(written)
        if key in given:
            problems.append(
                InputProblem(
                    "user",
                    None,
                    f"gpus_by_cluster[{shown(written)}]",
                    f"cluster {quoted(written)} is given GPUs twice (also as "
                    f"{quoted(given[key][0])}): the first is used",
                    "give each cluster's GPUs once",
                )
            )
            continue
        given[key] = (written, gpus)
    return given


def read_hosts(
    file: str,
    data: bytes,
    catalog: Catalog,
    *,
    host_name: str | None = None,
    cluster: str | None = None,
) -> HostsRead:
    """One file's hosts, by its detected format. Raises ``InputError`` for a file that cannot be
    read or that describes workloads rather than hosts."""
    _, read = _read_hosts(file, data, catalog, host_name=host_name, cluster=cluster)
    return read


def _read_hosts(
    file: str,
    data: bytes,
    catalog: Catalog,
    *,
    host_name: str | None,
    cluster: str | None,
) -> tuple[Format, HostsRead]:
    """``read_hosts``, with the format detected. A workbook is opened once: its reader takes
    the one its detection opened."""
    try:
        detected = detect_file(file, data, role="inventory")
    except InputError:
        # ResourceSlices (Kubernetes DRA) are read here only: as workloads they are refused.
        if resource_slices.is_resource_slices(data, file):
            return Format.KUBECTL_NODES, resource_slices.read_resource_slices(data, file, catalog)
        raise
    found = detected.format
    readers: Mapping[Format, Callable[[], HostsRead]] = {
        Format.KUBECTL_NODES: lambda: kubectl_nodes.read_kubectl_nodes(
            data, file, catalog, cluster=cluster
        ),
        Format.NVIDIA_SMI_QUERY: lambda: nvidia_smi.read_nvidia_smi_query(
            data, file, catalog, host_name=host_name
        ),
        Format.NVIDIA_SMI_LIST: lambda: nvidia_smi.read_nvidia_smi_list(
            data, file, catalog, host_name=host_name
        ),
        Format.NVIDIA_SMI_TABLE: lambda: nvidia_smi.read_nvidia_smi_table(
            data, file, catalog, host_name=host_name
        ),
        Format.NVIDIA_SMI_REPORT: lambda: nvidia_smi.read_nvidia_smi_report(
            data, file, catalog, host_name=host_name
        ),
        Format.MIG_INSTANCES: lambda: mig.read_mig_instances(
            data, file, catalog, host_name=host_name
        ),
        Format.MIG_PROFILES: lambda: mig.read_mig_profiles(
            data, file, catalog, host_name=host_name
        ),
        Format.RVTOOLS: lambda: rvtools.read_rvtools(data, file),
        Format.INVENTORY_CSV: lambda: _planner_csv(data, file, catalog),
        Format.PLAN_WORKBOOK: lambda: _planner_csv(
            plan_inputs_of(detected.workbook, file_name=file).inventory_csv, file, catalog
        ),
    }
    reader = readers.get(found)
    if reader is None:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"this is {found.label}, which describes workloads, not hosts",
                    give_as("workloads"),
                )
            ]
        )
    return found, reader()


def _planner_csv(data: bytes, file: str, catalog: Catalog) -> HostsRead:
    """The planner's own inventory CSV, validated by ``load_inventory``; every value read."""
    loaded = load_inventory(data, catalog, file_name=file)
    hosts = []
    for host in loaded.value.hosts:
        values: dict[str, str | int | float] = {
            "cluster": host.cluster,
            "gpu_model": host.gpu_model,
            "gpus_per_host": host.gpus,
            "cpu_cores": host.cpu_cores,
            "ram_gib": host.ram_gib,
            "network_gbps": host.network_gbps,
            "rdma": yes_no(host.rdma),
            "mig_enabled": yes_no(host.mig_enabled),
            "platform": host.platform.value,
        }
        facts = tuple(
            fact(
                name,
                value,
                file=file,
                line=None,
                locator=name,
                host=host.name,
                source="read",
                text="the planner's inventory CSV",
            )
            for name, value in values.items()
        )
        hosts.append(HostFacts(host.name, file, None, facts))
    return HostsRead(file, Format.INVENTORY_CSV.label, tuple(hosts), (), loaded.problems)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _short(name: str) -> str:
    """The host part of a name as matched (``host_key``): ``GPU-01.lab`` → ``gpu-01``."""
    key = host_key(name)
    return key if _is_ip(key) else key.split(".")[0]


def _has_domain(name: str) -> bool:
    return "." in name.strip() and not _is_ip(name.strip())


@dataclass
class _Host:
    """One host with the facts of every file that names it."""

    name: str
    parts: list[HostFacts] = field(default_factory=list)


@dataclass(frozen=True)
class _MatchedName:
    """A host name as hosts are matched by it (``_Hosts.find``)."""

    key: str
    """The name as matched (``host_key``: what it shows, case aside)."""
    short: str
    """Its host part (``_short``)."""
    has_domain: bool


def _matched_name(name: str) -> _MatchedName:
    key = host_key(name)
    return _MatchedName(key, _short(key), _has_domain(key))


class _Hosts:
    """The hosts named so far, in order of first mention, found by a name that matches theirs.

    A name matches a host's when both are one name as matched (``host_key``), or share their
    host part where at most one of them has a domain. Each host's name is indexed by its key and
    its host part as it is added, so finding a host takes a few lookups whatever the number of
    hosts, and gives the first host that matches, as comparing with each in turn would.
    """

    def __init__(self) -> None:
        self.hosts: list[_Host] = []
        # Each maps a key or host part to the position in ``hosts`` of the first host having it.
        self._by_key: dict[str, int] = {}
        self._by_short: dict[str, int] = {}
        # A name with a domain matches by host part only a host named without one.
        self._by_short_without_domain: dict[str, int] = {}

    def find(self, name: str) -> _Host | None:
        """The first host whose name matches ``name``, or None."""
        matched = _matched_name(name)
        found = [
            self._by_key.get(matched.key),
            self._by_short_without_domain.get(matched.short),
            None if matched.has_domain else self._by_short.get(matched.short),
        ]
        first = min((at for at in found if at is not None), default=None)
        return None if first is None else self.hosts[first]

    def add(self, name: str) -> _Host:
        """A new host named ``name``, after the others."""
        matched = _matched_name(name)
        at = len(self.hosts)
        self._by_key.setdefault(matched.key, at)
        self._by_short.setdefault(matched.short, at)
        if not matched.has_domain:
            self._by_short_without_domain.setdefault(matched.short, at)
        host = _Host(name)
        self.hosts.append(host)
        return host


_NAMED_OTHERWISE = (
    "the host named otherwise in another file (names match by what they show, case and a "
    "domain aside)"
)


def _named_after_file(part: HostFacts) -> bool:
    """Whether the part's host is only named after its file (nothing in the output names it)."""
    note = part.name_note
    return (
        note is not None
        and note.source == "assumed"
        and part.name == host_from_file_name(part.file)
    )


def _renamed(part: HostFacts, name: str, text: str) -> HostFacts:
    """``part`` as the host ``name``, every note about it naming it so; ``text`` says why."""
    facts = tuple(replace(f, note=replace(f.note, subject=name)) for f in part.facts)
    naming = ImportNote(part.file, part.line, "", name, "host", name, "assumed", text)
    layout = tuple(replace(m, host=name) for m in part.mig_layout)
    return replace(part, name=name, facts=facts, mig_layout=layout, name_note=naming)


def _told_apart(
    read: HostsRead,
    given: int,
    part: HostFacts,
    hosts: _Hosts,
    problems: list[InputProblem],
) -> HostFacts:
    """``part`` of the ``given``-th file of its name (1 for the first), when another file of that
    name with other content came before: a host of its own, numbered (``nvidia-smi-2``), with a
    problem, since two outputs that name no host and share a file name (``hostA/nvidia-smi.txt``,
    ``hostB/nvidia-smi.txt``) cannot be told apart and merging them would lose one host's GPUs."""
    number = given
    name = f"{part.name}-{number}"
    while hosts.find(name) is not None:
        number += 1
        name = f"{part.name}-{number}"
    problems.append(
        InputProblem(
            read.file,
            part.line,
            None,
            f"files named {quoted(read.file)} are given with different content and this "
            "output names no host: the files cannot be told apart, so each is read as a host "
            f"of its own, this one (number {given} of that name) as host {quoted(name)}, the "
            f"first as {quoted(part.name)}",
            "name each file after its host (gpu-07.txt, or the host's folder in the name) and "
            "give them again; if they are outputs of one host, give that host's name (--host-name)",
            row_kept=True,
        )
    )
    return _renamed(
        part, name, f"named after the file, numbered: file {given} named {quoted(read.file)}"
    )


@dataclass(frozen=True)
class _Node:
    """What tells a Kubernetes node from another cluster's node of the same name."""

    file: str
    """The ``kubectl get nodes`` file it is in."""
    copy: int
    """Which copy of the file: files of one name and one content are one file given twice (0);
    of one name and other contents (two folders' ``nodes.json``), each is its own (1, 2...)."""
    uid: str
    """Its ``metadata.uid``, unique to the node; empty when the file does not give it."""
    cluster: str
    """Its cluster as its labels give it (the cluster given for the nodes, when one is)."""


def _cluster_of(part: HostFacts) -> str:
    cluster = part.get("cluster")
    return "" if cluster is None else str(cluster.value)


def _node_told_apart(
    node: _Node,
    part: HostFacts,
    hosts: _Hosts,
    nodes: Mapping[int, _Node],
    unsure: dict[tuple[str, str], list[str]],
) -> HostFacts:
    """``part``, a node of ``kubectl get nodes``, as a host of its own when a node of another
    file already has its name but is another machine: their ``metadata.uid`` differ, or, where
    one has none, their clusters do. Generic node names (``worker-0``) recur from cluster to
    cluster, and merging two clusters' nodes would keep one's GPU model with the other's count.
    The node is named after its cluster (``dev/worker-0``), or its file where the clusters are
    one, with a note; the first keeps the plain name, which other tools' output of the host
    (nvidia-smi) matches. The same uid is the same node given twice: it merges. Nodes nothing
    tells apart merge, each pair of files listed in ``unsure``."""
    name = part.name
    number = 1
    while True:
        entry = hosts.find(name)
        others = [] if entry is None else [nodes[id(p)] for p in entry.parts if id(p) in nodes]
        others = [o for o in others if (o.file, o.copy) != (node.file, node.copy)]
        if not others or any(node.uid and o.uid == node.uid for o in others):
            break
        other = others[0]
        if not (node.uid and other.uid) and _cluster_key(node.cluster) == _cluster_key(
            other.cluster
        ):
            unsure.setdefault((other.file, node.file), []).append(part.name)
            break
        apart_by = (
            ("cluster", node.cluster)
            if _cluster_key(node.cluster) != _cluster_key(other.cluster)
            else ("file", host_from_file_name(node.file) or node.file)
        )
        number += 1
        name = f"{apart_by[1]}/{part.name}" + ("" if number == 2 else f"-{number - 1}")
        why = (
            "their metadata.uid differ"
            if node.uid and other.uid
            else f"their clusters differ: {shown(other.cluster)} and {shown(node.cluster)}"
        )
    if name == part.name:
        return part
    return _renamed(
        part,
        name,
        f"node {quoted(part.name)} of {quoted(node.file)} is another machine than node "
        f"{quoted(part.name)} of {quoted(other.file)} ({why}): named after its {apart_by[0]} "
        f"to keep the two apart; the node of {quoted(other.file)} keeps the name",
    )


def _unsure_nodes(unsure: Mapping[tuple[str, str], list[str]]) -> list[InputProblem]:
    """A problem per pair of ``kubectl get nodes`` files naming nodes alike that nothing tells
    apart (no ``metadata.uid``, one cluster): read as one node each, which loses one's GPUs if
    the files are two clusters'."""
    problems = []
    for (first, second), names in unsure.items():
        listed = ", ".join(quoted(n) for n in names[:5]) + (
            f" and {len(names) - 5} more" if len(names) > 5 else ""
        )
        problems.append(
            InputProblem(
                second,
                None,
                "metadata.uid",
                f"{counted(len(names), 'node')} ({listed}) {'is' if len(names) == 1 else 'are'} "
                f"also in {quoted(first)}, and the files do not both give the nodes' "
                "metadata.uid, nor another cluster label, to tell whether they are the same "
                "machines: each is read as one host, so if the files are two clusters', the GPUs "
                "of one are lost",
                "if the files are two clusters', give kubectl get nodes -o json unchanged (each "
                "node's metadata.uid tells them apart) or label each cluster's nodes with its "
                "name (cluster-name); if they are one cluster's, give one file",
                row_kept=True,
            )
        )
    return problems


def _full_names(reads: Sequence[HostsRead]) -> dict[str, list[str]]:
    """The names with a domain the reads give, by their host part (``_short``), each once as
    first written."""
    found: dict[str, dict[str, str]] = {}
    for read in reads:
        for part in read.hosts:
            if _has_domain(part.name):
                names = found.setdefault(_short(part.name), {})
                names.setdefault(host_key(part.name), part.name)
    return {short: list(names.values()) for short, names in found.items()}


def _ambiguous_short_name(part: HostFacts, fitting: Sequence[str]) -> InputProblem:
    """Why a part named without a domain is left out when two hosts of other domains share its
    host part (``esx01`` of ``esx01.site1.corp`` and ``esx01.site2.corp``): which one it
    describes is not known, and picking one would give its GPUs to a host at random."""
    listed = ", ".join(quoted(n) for n in fitting)
    gpus = part.get("gpus_per_host")
    what = "" if gpus is None else f" with its {counted(int(gpus.value), 'GPU')}"
    named = " (named after this file)" if _named_after_file(part) else ""
    return InputProblem(
        part.file,
        part.line,
        None,
        f"host {quoted(part.name)}{named} matches {counted(len(fitting), 'host')} named with a "
        f"domain ({listed}): which one it is cannot be told, so it is left out{what}",
        f"give the host's full name: name the file after it ({fitting[0]}.txt) when the host is "
        "named after the file, else write the full name in the file (or give the host name)",
    )


def _hosts_by_name(
    reads: Sequence[HostsRead],
    notes: list[ImportNote],
    problems: list[InputProblem],
    repeated: frozenset[str] = frozenset(),
) -> list[_Host]:
    """The hosts of all reads, parts of one host (``_Hosts.find``) grouped, in order of first
    mention; a part naming its host otherwise than the first (``GPU-01`` for ``gpu-01``) is a
    note, so no two names are merged in silence.

    A host named twice in one file is two hosts sharing a name, not two views of one: the
    second is left out with a problem, since merging them would silently drop a host. So are
    hosts named only after files of one name given with other content (``repeated``): each
    file after the first is a host of its own (``_told_apart``), and so are Kubernetes nodes of
    one name in two clusters' files (``_node_told_apart``).
    """
    hosts = _Hosts()
    given: dict[str, int] = {}
    full_names = _full_names(reads)
    nodes: dict[int, _Node] = {}
    unsure: dict[tuple[str, str], list[str]] = {}
    for read in reads:
        given[read.file] = given.get(read.file, 0) + 1
        first_here: dict[int, HostFacts] = {}
        for original in read.hosts:
            part = original
            if read.file in repeated and given[read.file] > 1 and _named_after_file(part):
                part = _told_apart(read, given[read.file], part, hosts, problems)
            if isinstance(read, kubectl_nodes.NodesRead):
                copy = given[read.file] if read.file in repeated else 0
                node = _Node(read.file, copy, read.uids.get(part.name, ""), _cluster_of(part))
                part = _node_told_apart(node, part, hosts, nodes, unsure)
                nodes[id(part)] = node
            fitting = [] if _has_domain(part.name) else full_names.get(_short(part.name), [])
            if len(fitting) > 1:
                problems.append(_ambiguous_short_name(part, fitting))
                continue
            entry = hosts.find(part.name)
            if entry is None:
                entry = hosts.add(part.name)
            earlier = first_here.get(id(entry))
            if earlier is not None:
                first = [] if earlier.name == part.name else [f"as {quoted(earlier.name)}"]
                first += [] if earlier.line is None else [f"on row {earlier.line}"]
                where = f" (first {' '.join(first)})" if first else ""
                problems.append(
                    InputProblem(
                        part.file,
                        part.line,
                        None,
                        f"host {quoted(part.name)} is named a second time in this file{where}: "
                        "left out",
                        "give every host a unique name, or remove the repeated one",
                    )
                )
                continue
            first_here[id(entry)] = part
            entry.parts.append(part)
            if part.name != entry.name:
                notes.append(
                    ImportNote(
                        part.file,
                        part.line,
                        "",
                        entry.name,
                        "host",
                        part.name,
                        "read",
                        _NAMED_OTHERWISE,
                    )
                )
    problems.extend(_unsure_nodes(unsure))
    return hosts.hosts


def _site_names(sites: set[rvtools.Site]) -> dict[rvtools.Site, str]:
    """What tells clusters of one name apart, by site: the vCenter where they differ, the
    datacenter where one vCenter holds them, both where neither alone does."""
    vcenters = {s.vcenter for s in sites}
    datacenters = {s.datacenter for s in sites}
    if len(vcenters) == len(sites) and all(vcenters):
        return {s: s.vcenter for s in sites}
    if len(datacenters) == len(sites) and all(datacenters):
        return {s: s.datacenter for s in sites}
    return {s: "/".join(p for p in (s.vcenter, s.datacenter) if p) for s in sites}


def _site_key(site: rvtools.Site) -> rvtools.Site:
    """``site`` with its vCenter's name as DNS compares it (case ignored)."""
    return rvtools.Site(site.vcenter.casefold(), site.datacenter)


def _clusters_apart(reads: list[HostsRead]) -> tuple[list[HostsRead], dict[str, str]]:
    """The reads with each RVTools cluster whose name recurs in another vCenter or datacenter
    named after its site (``vc-paris.corp/GPU-Cluster``), with a note; and each such name's key
    to the shared name's key, which GPUs typed per cluster also match. Default names
    (``Cluster``, ``GPU``) recur from vCenter to vCenter, and a cluster is one failover domain
    and one target of the GPUs typed per cluster: merged, two would be planned as one."""
    sites: dict[str, set[rvtools.Site]] = {}
    # A vCenter is named by its DNS name, which ignores case: the first spelling read names it.
    spelled: dict[rvtools.Site, rvtools.Site] = {}
    for read in reads:
        if not isinstance(read, rvtools.VHostsRead):
            continue
        for part in read.hosts:
            found, site = part.get("cluster"), read.sites.get(part.name)
            if found is not None and site is not None:
                site = spelled.setdefault(_site_key(site), site)
                sites.setdefault(_cluster_key(str(found.value)), set()).add(site)
    names = {key: _site_names(s) for key, s in sites.items() if len(s) > 1}
    if not names:
        return reads, {}
    apart: dict[str, str] = {}
    told: list[HostsRead] = []
    for read in reads:
        if not isinstance(read, rvtools.VHostsRead):
            told.append(read)
            continue
        hosts = []
        for part in read.hosts:
            found, site = part.get("cluster"), read.sites.get(part.name)
            site = None if site is None else spelled[_site_key(site)]
            key = "" if found is None else _cluster_key(str(found.value))
            if found is None or site is None or key not in names:
                hosts.append(part)
                continue
            name = f"{names[key][site]}/{found.value}"
            others = sorted(n for s, n in names[key].items() if s != site)
            text = (
                f"cluster {quoted(str(found.value))} of {names[key][site]}, named after it: a "
                f"cluster of that name is also in {', '.join(others)} (RVTools' VI SDK Server "
                "and Datacenter columns), and the two are kept apart, each its own failover "
                f"domain; GPUs given for {quoted(str(found.value))} go to both"
            )
            apart[_cluster_key(name)] = key
            cluster = replace(
                found, value=name, note=replace(found.note, value=name, source="derived", text=text)
            )
            facts = tuple(cluster if f is found else f for f in part.facts)
            hosts.append(replace(part, facts=facts))
        told.append(replace(read, hosts=tuple(hosts)))
    return told, apart


def _given_key(
    cluster_name: str, given: Mapping[str, tuple[str, tuple[str, int]]], apart: Mapping[str, str]
) -> str:
    """The key of the GPUs typed for a host's cluster: its own name's, else, for a cluster
    named after its site (``_clusters_apart``), the shared name's."""
    key = cluster_name.strip().lower()
    return key if key in given or key not in apart else apart[key]


def _uncounted_nodes(reads: Sequence[HostsRead]) -> dict[tuple[str, str], InputProblem]:
    """The problem of each Kubernetes node with an NVIDIA GPU but no GPU count, by file and
    node name (``kubectl_nodes.NodesRead.uncounted``)."""
    return {
        (r.file, name): problem
        for r in reads
        if isinstance(r, kubectl_nodes.NodesRead)
        for name, problem in r.uncounted.items()
    }


def _missing_gpu_problems(missing: Mapping[str, list[_Host]]) -> list[InputProblem]:
    """One problem per cluster whose hosts no file gives GPUs for."""
    problems = []
    for cluster_name, left in missing.items():
        names = [shown(h.name) for h in left]
        listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        first = left[0].parts[0]
        problems.append(
            InputProblem(
                first.file,
                first.line,
                "gpu_model",
                f"cluster {shown(cluster_name)}: no file gives the GPUs of "
                f"{counted(len(names), 'host')} ({listed}); left out",
                "add nvidia-smi or kubectl output of these hosts (named as here), or give the "
                f"cluster's GPUs (--cluster-gpus '{shown(cluster_name)}=MODEL:GPUS', or the import "
                "panel)",
            )
        )
    return problems


def _leave_out(
    entry: _Host,
    chosen: Mapping[str, Fact],
    narrowed: HostFacts | None,
    cluster_name: str,
    tools: Mapping[str, str],
    problems: list[InputProblem],
    missing: dict[str, list[_Host]],
    uncounted: Mapping[tuple[str, str], InputProblem],
) -> None:
    """A host its files give no GPU model or no GPU count for: its own problem when a model is
    open among several, only the model is missing, or it is a Kubernetes node with an NVIDIA
    GPU but no GPU count (``uncounted``, under DRA), else its cluster's (``missing``)."""
    said = [uncounted[(p.file, p.name)] for p in entry.parts if (p.file, p.name) in uncounted]
    if said and "gpus_per_host" not in chosen:
        problems.append(said[0])
    elif "gpu_model" not in chosen and narrowed is not None:
        problems.append(_open_model_problem(entry, narrowed, chosen, tools))
    elif "gpu_model" not in chosen and "gpus_per_host" in chosen:
        problems.append(_unknown_model_problem(entry, chosen, cluster_name))
    else:
        missing.setdefault(cluster_name, []).append(entry)


def _unknown_model_problem(
    entry: _Host, chosen: Mapping[str, Fact], cluster_name: str
) -> InputProblem:
    """Why a host whose files count its GPUs but name no model is left out: its own model is
    what is missing (a cluster-wide ``--cluster-gpus`` would give every host of the cluster
    one model, where node pools may differ)."""
    first = chosen["gpus_per_host"].note
    gpus = counted(int(chosen["gpus_per_host"].value), "GPU")
    return InputProblem(
        first.file,
        first.line,
        "gpu_model",
        f"host {shown(entry.name)}: its files give {gpus} but not their model; left out",
        "add nvidia-smi output of this host (named as here), or describe it in an inventory "
        f"CSV with its gpu_model; --cluster-gpus '{shown(cluster_name)}=MODEL:GPUS' gives "
        "every host of the cluster that model",
    )


_MODELS_LISTED = 8
"""Candidate GPU models a problem names before counting the rest."""


def _listed(models: Sequence[str]) -> str:
    """Candidate models as a problem lists them: the first few, then how many more."""
    return ", ".join(models[:_MODELS_LISTED]) + (
        f" and {len(models) - _MODELS_LISTED} more" if len(models) > _MODELS_LISTED else ""
    )


def _open_model_problem(
    entry: _Host, narrowed: HostFacts, chosen: Mapping[str, Fact], tools: Mapping[str, str]
) -> InputProblem:
    """Why a host is left out whose file narrows its GPU model to several catalog models and no
    other file names it: the models, and how to name one."""
    assert narrowed.open_model is not None
    models = narrowed.open_model.models
    listed = _listed(models)
    gpus = chosen["gpus_per_host"].value if "gpus_per_host" in chosen else "GPUS"
    cluster = shown(str(chosen["cluster"].value))
    return InputProblem(
        narrowed.file,
        narrowed.open_model.line,
        narrowed.open_model.locator,
        f"host {shown(entry.name)}: {tools.get(narrowed.file, narrowed.file)} does not name the "
        f"GPU model, and {narrowed.open_model.shows} are offered by {len(models)} catalog models "
        f"({listed}); none is guessed, so the host is left out",
        "give this host's nvidia-smi -L, plain nvidia-smi or nvidia-smi --query-gpu=name "
        "--format=csv output too (named as here), or type its model: --cluster-gpus "
        f"'{cluster}=MODEL:{gpus}' (or the import panel's GPUs per cluster), or the host's row in "
        f"an inventory CSV, MODEL being one of {listed}",
    )


def _repeated_names(files: Sequence[tuple[str, bytes]]) -> frozenset[str]:
    """File names given more than once with different content (the same name in two folders)."""
    contents: dict[str, set[bytes]] = {}
    for name, data in files:
        contents.setdefault(name, set()).add(data)
    return frozenset(name for name, given in contents.items() if len(given) > 1)


def _read_every_file(
    files: Sequence[tuple[str, bytes]],
    catalog: Catalog,
    *,
    host_name: str | None,
    cluster: str | None,
) -> list[tuple[Format, HostsRead]]:
    """Each file's format and hosts (``read_hosts``). Every file is read before refusing, so
    that one ``InputError`` names every file that cannot be read, each with its problems."""
    reads = []
    refused: list[InputProblem] = []
    for name, data in files:
        try:
            reads.append(_read_hosts(name, data, catalog, host_name=host_name, cluster=cluster))
        except InputError as error:
            refused.extend(error.problems)
    if refused:
        raise InputError(refused)
    return reads


def import_inventory(
    files: Sequence[tuple[str, bytes]],
    catalog: Catalog,
    *,
    host_name: str | None = None,
    cluster: str | None = None,
    gpus_by_cluster: Mapping[str, tuple[str, int]] | None = None,
    defaults: ImportDefaults | None = None,
) -> ImportedInventory:
    """The inventory described by several files of any supported format, combined by host.

    Parameters
    ----------
    files
        (file name, content) pairs; the name is only shown in notes and problems (and names the
        host of a single-host output when nothing else does).
    catalog
        GPU models to map names to (the user's own included).
    host_name
        Host of the single-host outputs (nvidia-smi, ``mig -lgi``/``-lgip``) that do not name
        their host; several such files of one host then combine.
    cluster
        Cluster of Kubernetes nodes (over their labels), and of hosts no file gives one.
    gpus_by_cluster
        GPUs of the hosts of a cluster no file gives GPUs for (RVTools has none): cluster name
        (case ignored) → (model, GPUs per host). They replace a model or count a file only
        assumes; one a file reads or derives is kept, a problem when it differs.
    defaults
        Values for columns no file gives (``ImportDefaults``), marked assumed.

    Raises ``InputError`` when a file cannot be read (naming every file that cannot), or when
    no host with GPUs results.
    """
    defaults = defaults or ImportDefaults()
    found = _read_every_file(files, catalog, host_name=host_name, cluster=cluster)
    reads, apart = _clusters_apart([read for _, read in found])
    added = _added_models(reads)
    catalog = catalog.with_models(added)
    notes: list[ImportNote] = [n for r in reads for n in r.notes]
    problems: list[InputProblem] = [p for r in reads for p in r.problems]
    hosts = _hosts_by_name(reads, notes, problems, _repeated_names(files))
    tools = {r.file: r.tool for r in reads}
    uncounted = _uncounted_nodes(reads)
    rows = []
    layouts: list[MigGpu] = []
    missing: dict[str, list[_Host]] = {}
    given = _clusters_given(gpus_by_cluster or {}, problems)
    typed_models = _typed_models(given, catalog, problems)
    used_clusters: set[str] = set()
    for entry in hosts:
        chosen = _combine(entry, notes, problems)
        _fill_cluster(entry, chosen, cluster, defaults)
        cluster_name = str(chosen["cluster"].value)
        key = _given_key(cluster_name, given, apart)
        wanted = given.get(key)
        if wanted is not None:
            used_clusters.add(key)
            if key in typed_models:
                _apply_cluster_gpus(
                    entry, chosen, wanted, typed_models[key], catalog, notes, problems
                )
        model_fact = chosen.get("gpu_model")
        narrowed = next((p for p in entry.parts if p.open_model is not None), None)
        if model_fact is None or "gpus_per_host" not in chosen:
            _leave_out(entry, chosen, narrowed, cluster_name, tools, problems, missing, uncounted)
            continue
        model = catalog.resolve(str(model_fact.value))
        if model is None:
            notes.append(
                ImportNote(
                    model_fact.note.file,
                    model_fact.note.line,
                    "",
                    entry.name,
                    "",
                    "left out",
                    "read",
                    "unknown GPU model: the host is left out",
                )
            )
            continue
        if narrowed is not None:
            problems.extend(_model_not_offered(entry, narrowed, model_fact, model, tools))
        _fill_defaults(entry, chosen, catalog, defaults, tools)
        for part in entry.parts:
            if part.name_note is not None:
                # A part naming the host otherwise notes the name it gave, of this host.
                notes.append(replace(part.name_note, subject=entry.name))
        notes.extend(chosen[name].note for name in HOST_FIELDS if name in chosen)
        layouts.extend(
            MigGpu(entry.name, m.gpu_index, m.instances, m.file)
            for part in entry.parts
            for m in part.mig_layout
        )
        used = ", ".join(dict.fromkeys(f"{p.file} ({tools.get(p.file, '')})" for p in entry.parts))
        rows.append(
            {
                "host": entry.name,
                **{name: chosen[name].value for name in HOST_FIELDS},
                "notes": f"from {used}",
            }
        )
    problems.extend(_missing_gpu_problems(missing))
    problems.extend(
        _clusters_not_found(given, used_clusters, {str(r["cluster"]) for r in rows} | set(missing))
    )
    if not rows:
        raise InputError(
            [
                *problems,
                InputProblem(
                    ", ".join(name for name, _ in files) or "inventory",
                    None,
                    None,
                    "no host with GPUs could be imported",
                    "add a file that gives the hosts' GPUs (nvidia-smi, kubectl get nodes), or "
                    "give the GPUs per cluster",
                ),
            ]
        )
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    return ImportedInventory(
        frame,
        tuple(notes),
        tuple(problems),
        tuple(layouts),
        tuple((r.file, r.tool) for r in reads),
        tuple(r.file for kind, r in found if kind is Format.PLAN_WORKBOOK),
        added,
    )


def _added_models(reads: Sequence[HostsRead]) -> tuple[GpuModel, ...]:
    """The GPU models the reads add to the catalog (the trace's, its node YAML labels), each
    once, by the first file naming it."""
    added: dict[str, GpuModel] = {}
    for read in reads:
        if isinstance(read, kubectl_nodes.NodesRead):
            for model in read.added_models:
                added.setdefault(model.name, model)
    return tuple(added.values())


def _combine(
    entry: _Host, notes: list[ImportNote], problems: list[InputProblem]
) -> dict[str, Fact]:
    """The winning fact per column: best source first, then file order; disagreements noted."""
    chosen: dict[str, Fact] = {}
    for name in HOST_FIELDS:
        candidates = [f for part in entry.parts for f in part.facts if f.field == name]
        if not candidates:
            continue
        best = min(candidates, key=lambda f: SOURCES.index(f.source))
        chosen[name] = best
        for other in candidates:
            if other is best or other.value == best.value:
                continue
            # A checked value read or derived from a file is evidence that loses only with a
            # problem; an assumed one, or an unchecked value of another source, loses quietly.
            if other.source != best.source and (name not in _CHECKED or other.source == "assumed"):
                continue
            message = (
                f"host {shown(entry.name)}: {name} is {shown(str(other.value))} here but "
                f"{shown(str(best.value))} in {shown(best.note.file)}; {shown(str(best.value))} "
                "is kept"
            )
            if name in _CHECKED:
                problems.append(
                    InputProblem(
                        other.note.file,
                        other.note.line,
                        other.note.locator or name,
                        message,
                        "correct the file that is wrong (or give this host's GPUs in one file)",
                        row_kept=True,
                    )
                )
            else:
                notes.append(
                    ImportNote(
                        other.note.file,
                        other.note.line,
                        other.note.locator,
                        entry.name,
                        name,
                        str(other.value),
                        other.source,
                        f"not used: {best.note.file} gives {best.value}",
                    )
                )
    return chosen


def _fill_cluster(
    entry: _Host, chosen: dict[str, Fact], cluster: str | None, defaults: ImportDefaults
) -> None:
    if "cluster" in chosen:
        return
    first = entry.parts[0]
    if cluster:
        chosen["cluster"] = fact(
            "cluster",
            cluster,
            file="user",
            line=None,
            locator="cluster",
            host=entry.name,
            source="read",
            text="the cluster name given",
        )
    else:
        chosen["cluster"] = fact(
            "cluster",
            defaults.cluster,
            file=first.file,
            line=first.line,
            locator="",
            host=entry.name,
            source="assumed",
            text=f"no file names the cluster: assumed '{defaults.cluster}' (give the cluster)",
        )


def _clusters_not_found(
    given: Mapping[str, tuple[str, tuple[str, int]]], used: set[str], clusters: set[str]
) -> list[InputProblem]:
    """A problem per cluster typed GPUs for that no imported host is in (``clusters`` are the
    imported hosts' clusters)."""
    listed = ", ".join(shown(c) for c in sorted(clusters)) or "none"
    keys = {c.strip().lower() for c in clusters}
    return [
        InputProblem(
            "user",
            None,
            f"gpus_by_cluster[{shown(written)}]",
            f"no imported host is in cluster {quoted(written)} (clusters: {listed})",
            "use a cluster name as the files give it",
        )
        for key, (written, _) in given.items()
        if key not in used and key not in keys
    ]


def _typed_models(
    given: Mapping[str, tuple[str, tuple[str, int]]], catalog: Catalog, problems: list[InputProblem]
) -> dict[str, str]:
    """The catalog model of the GPUs typed per cluster, by the cluster's key; a model the
    catalog lacks is a problem once, and its cluster's hosts take no GPUs from it."""
    models: dict[str, str] = {}
    for key, (written, (model_text, _)) in given.items():
        try:
            models[key] = catalog.gpu(model_text).name
        except UnknownGpuModel as error:
            problems.append(
                InputProblem(
                    "user", None, f"gpus_by_cluster[{shown(written)}]", error.message, error.fix
                )
            )
    return models


def _apply_cluster_gpus(
    entry: _Host,
    chosen: dict[str, Fact],
    wanted: tuple[str, tuple[str, int]],
    model: str,
    catalog: Catalog,
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> None:
    """The GPUs typed for the host's cluster (``model`` its catalog name), field by field: a
    field no file gives takes them, and so does one a file only assumes (the user's figure
    beats a guess, the old one noted as not used). A file that reads or derives another value
    keeps it, with a problem: the typed GPUs are for hosts no file gives GPUs for, and a figure
    read from the host is more specific than one typed for its whole cluster."""
    written, (_, gpus) = wanted
    locator = f"gpus_by_cluster[{shown(written)}]"
    text = f"the GPUs given for cluster {shown(written)}"
    typed_values: tuple[tuple[str, str | int], ...] = (
        ("gpu_model", model),
        ("gpus_per_host", gpus),
    )
    for name, value in typed_values:
        present = chosen.get(name)
        typed = fact(
            name,
            value,
            file="user",
            line=None,
            locator=locator,
            host=entry.name,
            source="read",
            text=text,
        )
        if present is None:
            chosen[name] = typed
            continue
        same = (
            catalog.resolve(str(present.value)) == value
            if name == "gpu_model"
            else present.value == value
        )
        if same:
            continue
        if present.source == "assumed":
            chosen[name] = typed
            notes.append(replace(present.note, text=f"not used: {text} give {value}"))
            continue
        kept = shown(str(present.value))
        problems.append(
            InputProblem(
                "user",
                None,
                locator,
                f"host {shown(entry.name)}: {name} is {value} as given for cluster "
                f"{quoted(written)} but {kept} in {shown(present.note.file)}; {kept} is kept",
                "the GPUs given per cluster fill the hosts no file gives GPUs for: correct "
                "them, or the file if it is wrong (or leave this cluster's GPUs to the files)",
            )
        )


def _model_not_offered(
    entry: _Host, narrowed: HostFacts, model_fact: Fact, model: str, tools: Mapping[str, str]
) -> list[InputProblem]:
    """A problem when the model the host is given (``model``, the catalog name of
    ``model_fact``) is not among the models its MIG output narrows it to: one of the two is
    wrong, or of another host. The model given is kept, as a value read beats one narrowed."""
    assert narrowed.open_model is not None
    candidates = narrowed.open_model.models
    if model in candidates:
        return []
    listed = _listed(candidates)
    tool = tools.get(narrowed.file, narrowed.file)
    note = model_fact.note
    given_by = (
        note.text
        if note.file == "user"
        else f"{shown(note.file)} ({tools.get(note.file, note.file)})"
    )
    return [
        InputProblem(
            narrowed.file,
            narrowed.open_model.line,
            narrowed.open_model.locator,
            f"host {shown(entry.name)}: {tool} shows {narrowed.open_model.shows}, which "
            f"{len(candidates)} catalog models offer ({listed}), not {model} from {given_by}; "
            f"{model} is kept",
            f"correct the model where it is given to one of {listed}, or, if this {tool} "
            "output is of another host, give this host's own (named as here)",
            row_kept=True,
        )
    ]


def _fill_defaults(
    entry: _Host,
    chosen: dict[str, Fact],
    catalog: Catalog,
    defaults: ImportDefaults,
    tools: Mapping[str, str],
) -> None:
    first = entry.parts[0]
    said = " or ".join(dict.fromkeys(tools.get(p.file, p.file) for p in entry.parts))
    model = catalog.gpu(str(chosen["gpu_model"].value))
    fills: dict[str, tuple[str | int | float, str]] = {
        "cpu_cores": (defaults.cpu_cores, "set it, or add RVTools or kubectl get nodes output"),
        "ram_gib": (defaults.ram_gib, "set it, or add RVTools or kubectl get nodes output"),
        "network_gbps": (defaults.network_gbps, "no tool read reports it: set it"),
        "rdma": (yes_no(defaults.rdma), "no tool read reports it: set it"),
        "mig_enabled": (
            yes_no(model.mig_capable),
            "the inventory's default (yes on MIG-capable models)",
        ),
        "platform": (DEFAULT_PLATFORM.value, "the inventory's default platform: set it"),
    }
    for name, (value, why) in fills.items():
        if name in chosen:
            continue
        figure = f"{value:g}" if isinstance(value, float) else str(value)
        unused = next((c for part in entry.parts for c in part.unused if c.field == name), None)
        if unused is not None:
            # A file has the value but it cannot be used: the note names that cell.
            unit = f" {_FILL_UNITS[name].name}" if name in _FILL_UNITS else ""
            chosen[name] = fact(
                name,
                value,
                file=unused.file,
                line=unused.line,
                locator=unused.locator,
                host=entry.name,
                source="assumed",
                text=f"{unused.said}; assumed {figure}{unit}: correct the cell, or set "
                f"{name} for this host",
            )
            continue
        chosen[name] = fact(
            name,
            value,
            file=first.file,
            line=first.line,
            locator="",
            host=entry.name,
            source="assumed",
            text=f"not in {said}; assumed {figure}: {why}",
        )
