"""A scenario: the catalog, inventory, workload mix and assumptions one plan is made from."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from planner.assumptions import Assumptions
from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog
from planner.inputs.inventory import Inventory, load_inventory
from planner.inputs.problems import Loaded
from planner.inputs.workloads import WorkloadClass, load_workloads

if TYPE_CHECKING:
    from planner.inputs.importers.provenance import ImportNote

__all__ = [
    "GivenCluster",
    "LoadedHosts",
    "LoadedMix",
    "Scenario",
    "in_cluster",
    "load_hosts",
    "load_mix",
    "load_scenario",
]


@dataclass(frozen=True)
class Scenario:
    """Everything a plan is computed from; equal scenarios give equal plans."""

    catalog: Catalog
    inventory: Inventory
    workloads: tuple[WorkloadClass, ...]
    assumptions: Assumptions = field(default_factory=Assumptions)
    cpu_only: tuple[WorkloadClass, ...] = ()
    """Classes of pods that use no GPU (``gpus`` 0): they take cores and RAM on Kubernetes
    nodes, planned by methods that place pods on nodes and reported apart."""


@dataclass(frozen=True)
class LoadedHosts:
    """An inventory file as read: its hosts and the catalog they are planned with."""

    inventory: Inventory
    catalog: Catalog
    """The catalog given, plus the models a trace node list named that it lacked."""
    cluster: alibaba_trace.TraceCluster | None = None
    """The node list as read, when the file is one (its notes say what was added)."""

    @property
    def notes(self) -> tuple[ImportNote, ...]:
        """What reading a trace node list gave and assumed; none for another file."""
        return () if self.cluster is None else self.cluster.notes


@dataclass(frozen=True)
class GivenCluster:
    """The cluster a trace node list's nodes are planned in, given by the user or kept by a plan
    workbook (the list has no column for one)."""

    name: str
    given_by: str
    """Where it was given, as its import note names a source: ``user`` (``--cluster``), or the
    plan workbook's inputs sheet (``plan.xlsx [Planner inputs]``)."""
    why: str
    """What the import note says the cluster is."""

    @classmethod
    def by_user(cls, name: str) -> GivenCluster:
        """The cluster ``name`` the user gave (``--cluster``)."""
        return cls(name, "user", "the cluster name given")


def in_cluster(hosts: LoadedHosts, cluster: GivenCluster | None) -> LoadedHosts:
    """A trace node list's hosts in the ``cluster`` given. The trace has no column for a
    cluster, so its nodes were put in an assumed one: the note saying so is replaced by one
    naming where the cluster was given. Another inventory file (its rows name each host's
    cluster), or no cluster given, leaves ``hosts`` as they are."""
    from planner.inputs.importers.provenance import ImportNote

    trace = hosts.cluster
    if trace is None or cluster is None:
        return hosts
    placed = tuple(replace(h, cluster=cluster.name) for h in trace.inventory.hosts)
    inventory = replace(trace.inventory, hosts=placed)
    given = ImportNote(
        cluster.given_by, None, "cluster", "", "cluster", cluster.name, "read", cluster.why
    )
    notes = tuple(
        given if note.field == "cluster" and note.source == "assumed" else note
        for note in trace.notes
    )
    return replace(
        hosts, inventory=inventory, cluster=replace(trace, inventory=inventory, notes=notes)
    )


@dataclass(frozen=True)
class LoadedMix:
    """A workload file as read, on the hosts it is planned on."""

    workloads: tuple[WorkloadClass, ...]
    cpu_only: tuple[WorkloadClass, ...] = ()
    """Classes of a trace pod list's pods that use no GPU."""
    pods: alibaba_trace.TracePods | None = None
    """The pod list as read, when the file is one."""

    @property
    def notes(self) -> tuple[ImportNote, ...]:
        """What reading a trace pod list gave and assumed; none for another file."""
        return () if self.pods is None else self.pods.notes


def load_hosts(
    file: tuple[str, bytes],
    catalog: Catalog,
    *,
    own_gpus_at: str = alibaba_trace.OWN_GPUS_OPTION,
    cluster: GivenCluster | None = None,
) -> Loaded[LoadedHosts]:
    """The inventory file ``(name, bytes)``: a list of Alibaba's GPU-sharing trace (its nodes in
    the ``cluster`` given, else the trace's own; the models the catalog lacks added, each noted
    with where the user gives their own GPU models: ``own_gpus_at``), else a planner CSV.
    Raises ``InputError`` when the file cannot be used."""
    name, data = file
    if alibaba_trace.is_node_list(data):
        loaded = alibaba_trace.load_node_list(
            data, catalog, file_name=name, own_gpus_at=own_gpus_at
        )
        trace = loaded.value
        nodes = LoadedHosts(trace.inventory, trace.catalog, trace)
        return Loaded(in_cluster(nodes, cluster), loaded.problems)
    hosts = load_inventory(data, catalog, file_name=name)
    return Loaded(LoadedHosts(hosts.value, catalog), hosts.problems)


def load_mix(file: tuple[str, bytes], hosts: LoadedHosts) -> Loaded[LoadedMix]:
    """The workload file ``(name, bytes)`` planned on ``hosts``: a trace pod list (its shares
    and allowed models depend on the hosts' GPU models; its pods without GPU the ``cpu_only``),
    else a planner CSV. Raises ``InputError`` when the file cannot be used."""
    name, data = file
    if alibaba_trace.is_pod_list(data):
        loaded = alibaba_trace.load_pod_list(
            data,
            hosts.catalog,
            file_name=name,
            gpu_models=alibaba_trace.model_names(hosts.inventory.hosts),
        )
        pods = loaded.value
        return Loaded(LoadedMix(pods.workloads, pods.cpu_only, pods), loaded.problems)
    mix = load_workloads(data, hosts.catalog, file_name=name)
    return Loaded(LoadedMix(tuple(mix.value)), mix.problems)


def load_scenario(
    inventory: tuple[str, bytes],
    workloads: tuple[str, bytes],
    catalog: Catalog,
    assumptions: Assumptions | None = None,
    *,
    cluster: GivenCluster | None = None,
) -> Loaded[Scenario]:
    """The scenario of an inventory file and a workload file, each ``(name, bytes)``, with the
    rows skipped while reading them (``load_hosts``, ``load_mix``: a planner CSV or a list of
    Alibaba's GPU-sharing trace, its nodes in the ``cluster`` given, as the command line and
    the dashboard read them). Raises ``InputError`` when a file cannot be used.
    """
    hosts = load_hosts(inventory, catalog, cluster=cluster)
    mix = load_mix(workloads, hosts.value)
    scenario = Scenario(
        catalog=hosts.value.catalog,
        inventory=hosts.value.inventory,
        workloads=mix.value.workloads,
        assumptions=assumptions or Assumptions(),
        cpu_only=mix.value.cpu_only,
    )
    return Loaded(scenario, (*hosts.problems, *mix.problems))
