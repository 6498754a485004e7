"""Deterministic synthetic fleets for benchmarks and tests, plus small builders for hand-made cases.

``fleet(target_gpus)`` builds a scenario of about ``target_gpus`` GPUs on mixed, realistic hosts
(A100-80GB and H100 servers with MIG on, L40S and L4 servers) and 2-3 workload instances per GPU
of realistic kinds: notebooks, inference services, fine-tuning and training jobs, batch work and
VDI desktops. The same arguments always give the same scenario (a seeded ``random.Random``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel, load_catalog
from planner.inputs.inventory import Host, Inventory
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.scenario import Scenario

__all__ = [
    "ALWAYS",
    "NIGHT",
    "OFFICE",
    "fleet",
    "fleet_catalog",
    "gpu_model",
    "host",
    "scenario_of",
    "workload",
]

ALWAYS = (1.0,) * 24
"""Active every hour of the day (inference services, long training)."""
OFFICE = tuple(1.0 if 9 <= h < 17 else 0.0 for h in range(24))
"""Active 09-17 (notebooks, VDI at their simplest)."""
NIGHT = tuple(1.0 if h < 6 or h >= 20 else 0.0 for h in range(24))
"""Active 20-06 (batch work harvesting idle GPUs)."""
VDI_CURVE = (
    0.08, 0.05, 0.05, 0.05, 0.05, 0.05, 0.08, 0.1, 0.65, 1.0, 1.0, 0.85,
    0.85, 0.97, 0.97, 0.7, 0.5, 0.3, 0.2, 0.1, 0.08, 0.08, 0.08, 0.08,
)  # fmt: skip
"""Typical VDI concurrency, share of peak by hour: 6-8 h 5-10 %, 8-9 h 60-70 %, 9-11 h 100 %,
11-13 h 80-90 %, 13-15 h 95-100 %, 15-17 h 70->50 %, 17-20 h 30->10 %, 20-6 h 5-10 % (the
project's domain notes on time and demand; one point taken in each range)."""


def gpu_model(
    name: str = "L40S",
    memory_gib: float = 48.0,
    *,
    mig: bool = False,
    vgpu: bool = True,
    tdp_w: float = 350.0,
    price_usd: float = 8000.0,
) -> GpuModel:
    """A GPU model built by hand; MIG models get A100/H100 slice counts (8 memory, 7 compute)."""
    return GpuModel(
        name=name,
        memory_gib=memory_gib,
        tdp_w=tdp_w,
        fp16_tflops=300.0,
        price_usd=price_usd,
        price_is_default=True,
        mig_capable=mig,
        vgpu_capable=vgpu,
        gpus_per_board=1,
        mig_memory_slices=8 if mig else 0,
        mig_compute_slices=7 if mig else 0,
        source="hand-made for tests and benchmarks",
    )


def workload(
    name: str,
    *,
    kind: WorkloadKind = WorkloadKind.INFERENCE,
    instances: int = 1,
    gpus: float = 1.0,
    memory_gib: float = 16.0,
    schedule: Sequence[float] = ALWAYS,
    vcpus: float = 4.0,
    ram_gib: float = 16.0,
    busy_fraction: float = 0.5,
    needs_live_migration: bool = False,
    needs_isolation: bool = False,
    latency_tolerant: bool = True,
    priority: int = 2,
    gpu_models: Sequence[str] = (),
) -> WorkloadClass:
    """A workload class with test-friendly defaults (every field can be overridden)."""
    return WorkloadClass(
        name=name,
        kind=kind,
        instances=instances,
        gpus=gpus,
        memory_gib=memory_gib,
        busy_fraction=busy_fraction,
        daily_schedule=tuple(schedule),
        days_per_week=7,
        vcpus=vcpus,
        ram_gib=ram_gib,
        needs_live_migration=needs_live_migration,
        needs_isolation=needs_isolation,
        latency_tolerant=latency_tolerant,
        priority=priority,
        gpu_models=tuple(gpu_models),
    )


def host(
    name: str,
    model: str = "L40S",
    gpus: int = 4,
    *,
    cpu_cores: float = 64.0,
    ram_gib: float = 512.0,
    mig_enabled: bool = False,
    rdma: bool = True,
    cluster: str = "c1",
    platform: Platform = Platform.VSPHERE,
) -> Host:
    """A GPU host built by hand."""
    return Host(
        name=name,
        cluster=cluster,
        gpu_model=model,
        gpus=gpus,
        cpu_cores=cpu_cores,
        ram_gib=ram_gib,
        network_gbps=100.0,
        rdma=rdma,
        mig_enabled=mig_enabled,
        platform=platform,
    )


def scenario_of(
    models: Sequence[GpuModel],
    hosts: Sequence[Host],
    workloads: Sequence[WorkloadClass],
    assumptions: Assumptions | None = None,
    catalog: Catalog | None = None,
) -> Scenario:
    """A scenario over a catalog of ``models`` (no vGPU/MIG profiles unless ``catalog`` given)."""
    if catalog is None:
        catalog = Catalog(gpus={m.name: m for m in models}, vgpu_profiles={}, mig_profiles={})
    return Scenario(
        catalog=catalog,
        inventory=Inventory(tuple(hosts)),
        workloads=tuple(workloads),
        assumptions=assumptions or Assumptions(),
    )


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
