"""A scenario: the catalog, inventory, workload mix and assumptions one plan is made from."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.assumptions import Assumptions
from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog
from planner.inputs.inventory import Inventory, load_inventory
from planner.inputs.problems import Loaded
from planner.inputs.workloads import WorkloadClass, load_workloads

__all__ = ["Scenario", "load_scenario"]


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


def load_scenario(
    inventory: tuple[str, bytes],
    workloads: tuple[str, bytes],
    catalog: Catalog,
    assumptions: Assumptions | None = None,
) -> Loaded[Scenario]:
    """The scenario of an inventory file and a workload file, each ``(name, bytes)``, with the
    rows skipped while reading them.

    Each file is a planner CSV or a list of Alibaba's GPU-sharing trace (a node list as the
    inventory, a pod list as the mix), read by the trace's own loader as the command line and the
    dashboard read it: its models the catalog lacks are added, and its pods without GPU are the
    scenario's ``cpu_only``. Raises ``InputError`` when a file cannot be used.
    """
    inventory_name, inventory_data = inventory
    workloads_name, workloads_data = workloads
    if alibaba_trace.is_node_list(inventory_data):
        cluster = alibaba_trace.load_node_list(inventory_data, catalog, file_name=inventory_name)
        catalog, hosts = cluster.value.catalog, Loaded(cluster.value.inventory, cluster.problems)
    else:
        hosts = load_inventory(inventory_data, catalog, file_name=inventory_name)
    cpu_only: tuple[WorkloadClass, ...] = ()
    if alibaba_trace.is_pod_list(workloads_data):
        pods = alibaba_trace.load_pod_list(
            workloads_data,
            catalog,
            file_name=workloads_name,
            gpu_models=alibaba_trace.model_names(hosts.value.hosts),
        )
        mix = Loaded(pods.value.workloads, pods.problems)
        cpu_only = pods.value.cpu_only
    else:
        loaded = load_workloads(workloads_data, catalog, file_name=workloads_name)
        mix = Loaded(tuple(loaded.value), loaded.problems)
    scenario = Scenario(
        catalog=catalog,
        inventory=hosts.value,
        workloads=mix.value,
        assumptions=assumptions or Assumptions(),
        cpu_only=cpu_only,
    )
    return Loaded(scenario, (*hosts.problems, *mix.problems))
