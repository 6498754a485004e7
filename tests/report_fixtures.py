"""Hand-made scenarios and plans for the metrics, costs, performance, report and export tests:
``tests.builders`` with this suite's defaults (one H100 with MIG on, training at full busy)."""

from __future__ import annotations

from collections.abc import Sequence

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel, load_catalog
from planner.inputs.inventory import Host
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.methods.registry import Method
from planner.plan import MethodPlan, NotPlaced, Placement
from planner.scenario import Scenario
from tests import builders
from tests.builders import ALWAYS, NIGHT, OFFICE

__all__ = [
    "ALWAYS",
    "CATALOG",
    "H100",
    "NIGHT",
    "OFFICE",
    "host",
    "notebook_plans",
    "notebooks",
    "place",
    "plan",
    "scenario",
    "workload",
]

H100 = GpuModel(
    name="H100-80GB-PCIe",
    memory_gib=80.0,
    tdp_w=350.0,
    fp16_tflops=756.0,
    price_usd=30000.0,
    price_is_default=True,
    mig_capable=True,
    vgpu_capable=True,
    gpus_per_board=1,
    mig_memory_slices=8,
    mig_compute_slices=7,
    source="test",
)

_SHIPPED = load_catalog()
CATALOG = Catalog(
    gpus={H100.name: H100},
    vgpu_profiles={H100.name: _SHIPPED.vgpu_profiles[H100.name]},
    mig_profiles={H100.name: _SHIPPED.mig_profiles[H100.name]},
)
"""One H100 with NVIDIA's vGPU and MIG profiles for it, and round figures for its costs."""


def workload(
    name: str,
    *,
    kind: WorkloadKind = WorkloadKind.TRAINING,
    instances: int = 1,
    gpus: float = 1.0,
    memory_gib: float = 40.0,
    busy_fraction: float = 1.0,
    schedule: tuple[float, ...] = ALWAYS,
    days_per_week: int = 7,
    vcpus: float = 8.0,
    ram_gib: float = 64.0,
    needs_live_migration: bool = False,
    needs_isolation: bool = False,
    latency_tolerant: bool = True,
) -> WorkloadClass:
    return builders.workload(
        name,
        kind=kind,
        instances=instances,
        gpus=gpus,
        memory_gib=memory_gib,
        busy_fraction=busy_fraction,
        schedule=schedule,
        days_per_week=days_per_week,
        vcpus=vcpus,
        ram_gib=ram_gib,
        needs_live_migration=needs_live_migration,
        needs_isolation=needs_isolation,
        latency_tolerant=latency_tolerant,
    )


def host(name: str, *, gpus: int = 4, cpu_cores: float = 64.0, ram_gib: float = 512.0) -> Host:
    return builders.host(
        name, H100.name, gpus, cpu_cores=cpu_cores, ram_gib=ram_gib, mig_enabled=True
    )


def scenario(
    workloads: Sequence[WorkloadClass],
    hosts: Sequence[Host] = (),
    assumptions: Assumptions | None = None,
) -> Scenario:
    return builders.scenario_of(
        (), tuple(hosts) or (host("h1"), host("h2")), workloads, assumptions, catalog=CATALOG
    )


def place(
    instance: str,
    host_name: str,
    gpu_index: int,
    *,
    profile: str = "share",
    memory_gib: float = 40.0,
    compute_share: float = 0.0,
    start_slice: int | None = None,
) -> Placement:
    return builders.placement(
        instance,
        host_name,
        gpu_index,
        gpu_model=H100.name,
        profile=profile,
        memory_gib=memory_gib,
        compute_share=compute_share,
        start_slice=start_slice,
    )


def plan(
    method: Method,
    placements: Sequence[Placement],
    *,
    not_placed: Sequence[NotPlaced] = (),
    lower_bound_gpus: int = 1,
    hosts: Sequence[Host] = (),
    config: str = "test",
) -> MethodPlan:
    return builders.hand_plan(
        method,
        placements,
        not_placed=not_placed,
        lower_bound_gpus=lower_bound_gpus,
        config=config,
        hosts=hosts,
        solve_seconds=0.01,
    )


def notebooks(kind: WorkloadKind = WorkloadKind.INFERENCE, busy: float = 0.1) -> Scenario:
    """Four quarter-GPU instances of class ``nb`` (the name the plans below place)."""
    return scenario(
        [
            workload(
                "nb",
                kind=kind,
                instances=4,
                gpus=0.25,
                memory_gib=20.0,
                busy_fraction=busy,
            )
        ]
    )


def notebook_plans() -> list[MethodPlan]:
    """Four notebooks: passthrough takes 4 GPUs, vGPU packs 4 on one GPU, MIG 3 of 4 placed."""
    whole = [
        place(f"nb#{i}", "h1", i - 1, profile="whole GPU", memory_gib=80.0) for i in range(1, 5)
    ]
    shared = [place(f"nb#{i}", "h1", 0, profile="20C", memory_gib=20.0) for i in range(1, 5)]
    mig = [
        place(f"nb#{i}", "h1", 0, profile="2g.20gb", memory_gib=20.0, compute_share=2 / 7)
        for i in range(1, 4)
    ]
    return [
        plan(Method.PASSTHROUGH, whole, lower_bound_gpus=4),
        plan(Method.VGPU, shared, lower_bound_gpus=1),
        plan(
            Method.MIG,
            mig,
            not_placed=[NotPlaced("nb#4", "nb", "a GPU holds at most three 2g.20gb")],
            lower_bound_gpus=1,
        ),
    ]
