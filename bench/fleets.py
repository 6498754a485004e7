"""Deterministic synthetic fleets for benchmarks and tests (built with ``tests.builders``).

``fleet(target_gpus)`` builds a scenario of about ``target_gpus`` GPUs on mixed, realistic hosts
(A100-80GB and H100 servers with MIG on, L40S and L4 servers) and 2-3 workload instances per GPU
of realistic kinds: notebooks, inference services, fine-tuning and training jobs, batch work and
VDI desktops. The same arguments always give the same scenario (a seeded ``random.Random``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import Host, Inventory
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.scenario import Scenario
from tests.builders import ALWAYS, NIGHT, OFFICE, VDI_CURVE, host, workload

__all__ = ["fleet", "fleet_catalog"]


def fleet_catalog() -> Catalog:
    """The shipped catalog (``data/catalog``), with NVIDIA's vGPU and MIG tables."""
    return load_catalog()


@dataclass(frozen=True)
class _HostType:
    model: str
    gpus: int
    cpu_cores: float
    ram_gib: float
    mig_enabled: bool
    weight: float
    """Share of the fleet's GPUs on hosts of this type."""


_HOST_TYPES = (
    _HostType("A100-80GB-PCIe", 4, 64.0, 1024.0, True, 0.30),
    _HostType("H100-80GB-SXM", 8, 112.0, 2048.0, True, 0.30),
    _HostType("L40S", 4, 64.0, 768.0, False, 0.25),
    _HostType("L4", 8, 64.0, 512.0, False, 0.15),
)


@dataclass(frozen=True)
class _Kind:
    name: str
    kind: WorkloadKind
    gpus: float
    memory_gib: float
    schedule: tuple[float, ...]
    vcpus: float
    ram_gib: float
    live: bool
    isolation: bool
    tolerant: bool
    priority: int
    weight: float
    """Share of the fleet's instances of this kind."""


_KINDS = (
    _Kind("notebook-small", WorkloadKind.NOTEBOOK, 0.125, 10.0, OFFICE, 4, 16, True, False,
          True, 3, 0.22),
    _Kind("notebook-large", WorkloadKind.NOTEBOOK, 0.25, 20.0, OFFICE, 8, 32, True, False,
          True, 3, 0.10),
    _Kind("inference-small", WorkloadKind.INFERENCE, 0.25, 12.0, ALWAYS, 4, 16, True, False,
          False, 1, 0.20),
    _Kind("inference-llm", WorkloadKind.INFERENCE, 0.5, 40.0, ALWAYS, 8, 64, False, True,
          False, 1, 0.10),
    _Kind("finetune", WorkloadKind.TRAINING, 1.0, 70.0, ALWAYS, 16, 128, False, False,
          True, 2, 0.06),
    _Kind("training-2gpu", WorkloadKind.TRAINING, 2.0, 140.0, ALWAYS, 24, 256, False, False,
          True, 2, 0.02),
    _Kind("batch-night", WorkloadKind.BATCH, 0.5, 24.0, NIGHT, 8, 32, False, False,
          True, 3, 0.12),
    _Kind("vdi-4c", WorkloadKind.VDI, 0.1, 4.0, VDI_CURVE, 4, 16, True, False,
          False, 2, 0.18),
)  # fmt: skip


def fleet(target_gpus: int, *, seed: int = 0, instances_per_gpu: float = 2.5) -> Scenario:
    """A synthetic fleet of about ``target_gpus`` GPUs with ``instances_per_gpu`` instances each.

    Hosts are split by type in the ``_HOST_TYPES`` shares; workload classes come in batches of
    4-40 instances of one kind, drawn with ``random.Random(seed)`` in the ``_KINDS`` shares, so
    the same arguments give the same scenario.
    """
    rng = random.Random(seed)
    hosts: list[Host] = []
    for type_index, kind in enumerate(_HOST_TYPES):
        count = max(1, round(target_gpus * kind.weight / kind.gpus))
        hosts.extend(
            host(
                f"{kind.model.lower()}-{i + 1:04d}",
                kind.model,
                kind.gpus,
                cpu_cores=kind.cpu_cores,
                ram_gib=kind.ram_gib,
                mig_enabled=kind.mig_enabled,
                cluster=f"cluster-{type_index + 1}",
            )
            for i in range(count)
        )
    total_gpus = sum(h.gpus for h in hosts)
    wanted = round(total_gpus * instances_per_gpu)
    workloads: list[WorkloadClass] = []
    made = 0
    weights = [k.weight for k in _KINDS]
    while made < wanted:
        kind = rng.choices(_KINDS, weights)[0]
        size = min(wanted - made, rng.randint(4, 40))
        workloads.append(
            workload(
                f"{kind.name}-{len(workloads) + 1:04d}",
                kind=kind.kind,
                instances=size,
                gpus=kind.gpus,
                memory_gib=kind.memory_gib,
                schedule=kind.schedule,
                vcpus=kind.vcpus,
                ram_gib=kind.ram_gib,
                busy_fraction=round(rng.uniform(0.1, 0.7), 2),
                needs_live_migration=kind.live,
                needs_isolation=kind.isolation,
                latency_tolerant=kind.tolerant,
                priority=kind.priority,
            )
        )
        made += size
    return Scenario(
        catalog=fleet_catalog(),
        inventory=Inventory(tuple(hosts)),
        workloads=tuple(workloads),
    )
