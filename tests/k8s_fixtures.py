"""Kubernetes nodes, pods and hand-made plans for the tests of the Kubernetes sharing methods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from planner.assumptions import Assumptions
from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass
from planner.methods.contract import GpuDemand
from planner.plan import Placement
from planner.scenario import Scenario
from tests.builders import hand_plan, host, placement, scenario_of, workload

CATALOG = load_catalog()
A100 = "A100-80GB-SXM"
"""The sample's Kubernetes GPU: 80 GiB, MIG-capable."""
L40S = "L40S"
"""48 GiB, no MIG."""

__all__ = [
    "A100",
    "CATALOG",
    "L40S",
    "fewest_gpus",
    "hand_plan",
    "node",
    "pod",
    "row",
    "scenario",
]


def node(
    name: str,
    model: str = A100,
    gpus: int = 8,
    *,
    mig: bool = False,
    cpu_cores: float = 256.0,
    ram_gib: float = 2048.0,
) -> Host:
    """A Kubernetes node; MIG mode as given (off by default)."""
    return host(
        name,
        model,
        gpus,
        cpu_cores=cpu_cores,
        ram_gib=ram_gib,
        mig_enabled=mig,
        platform=Platform.KUBERNETES,
        cluster="k8s",
    )


def pod(name: str, **fields: object) -> WorkloadClass:
    """A workload class of pods (``bench.fleets.workload``, any field overridden)."""
    return workload(name, **fields)  # type: ignore[arg-type]


def scenario(
    workloads: Sequence[WorkloadClass],
    hosts: Sequence[Host] = (),
    assumptions: Assumptions | None = None,
) -> Scenario:
    """The shipped catalog, the given nodes (two 8-GPU A100 nodes with MIG off by default)."""
    return scenario_of(
        [],
        list(hosts) or [node("k1"), node("k2")],
        list(workloads),
        assumptions,
        catalog=CATALOG,
    )


def row(
    instance: str,
    host_name: str = "k1",
    gpu: int = 0,
    *,
    model: str = A100,
    profile: str = "replica",
    memory_gib: float = 10.0,
    compute: float = 0.0,
    start: int | None = None,
) -> Placement:
    """One placement row of a hand-made plan."""
    return placement(
        instance,
        host_name,
        gpu,
        gpu_model=model,
        profile=profile,
        memory_gib=memory_gib,
        compute_share=compute,
        start_slice=start,
    )


def fewest_gpus(demand: GpuDemand, counts: Mapping[str, int]) -> int:
    """The fewest GPUs the demand rows allow for ``counts`` instances per class (by MILP)."""
    needed = [
        sum(counts[c] * demand.use[c][d] for c in counts) for d in range(len(demand.dimensions))
    ]
    if not any(needed):
        return 0
    result = milp(
        c=np.ones(len(demand.patterns)),
        constraints=[LinearConstraint(np.array(demand.patterns).T, lb=needed, ub=np.inf)],
        integrality=np.ones(len(demand.patterns), dtype=np.int_),
        bounds=Bounds(0, np.inf),
    )
    assert result.status == 0
    return round(result.fun)
