"""A scenario: the catalog, inventory, workload mix and assumptions one plan is made from."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog
from planner.inputs.inventory import Inventory
from planner.inputs.workloads import WorkloadClass

__all__ = ["Scenario"]


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
