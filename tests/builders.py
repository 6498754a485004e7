"""Builders of test and benchmark scenarios, the one place they are made: daily schedules, GPU
models, workload classes, hosts, scenarios, placement rows and hand-made plans.

Tests (``tests/``) and benchmarks (``bench/``, whose ``fleets`` generates large fleets from these)
import them from here, so a name such as ``NIGHT`` means one thing everywhere.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping, Sequence

from openpyxl import Workbook

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host, Inventory, ServerType
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.methods.registry import Method
from planner.plan import MethodPlan, NotPlaced, Placement, SolveStatus
from planner.scenario import Scenario

__all__ = [
    "ALWAYS",
    "NIGHT",
    "OFFICE",
    "VDI_CURVE",
    "gpu_model",
    "hand_plan",
    "host",
    "placement",
    "scenario_of",
    "workload",
]

ALWAYS = (1.0,) * 24
"""Active every hour of the day (inference services, long training)."""
OFFICE = tuple(1.0 if 9 <= h < 17 else 0.0 for h in range(24))
"""Active 09-17 (notebooks, VDI at their simplest)."""
NIGHT = tuple(1.0 if h < 6 or h >= 20 else 0.0 for h in range(24))
"""Active 20-06 (batch work harvesting idle GPUs)."""
NEVER = (0.0,) * 24
"""Active in no hour of the day."""
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
    days_per_week: int = 7,
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
        days_per_week=days_per_week,
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


def every_platform_hosts() -> tuple[Host, ...]:
    """Two-GPU hosts of every platform, A100 with MIG on and off and L40S, so that every method
    finds GPUs it can set up."""
    return tuple(
        host(f"{model}-{platform.value}-{'mig' if mig else 'plain'}", model, 2, platform=platform,
             mig_enabled=mig)
        for platform in Platform
        for model, mig in (("A100-80GB-PCIe", True), ("A100-80GB-PCIe", False), ("L40S", False))
    )  # fmt: skip


def server_type(model: str, gpus: int, name: str) -> ServerType:
    """A server type to size with: ``gpus`` GPUs of ``model``, 64 cores, 512 GiB RAM, no MIG."""
    return ServerType(
        gpu_model=model, gpus=gpus, cpu_cores=64.0, ram_gib=512.0, mig_enabled=False, name=name
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


def placement(
    instance: str,
    host_name: str,
    gpu_index: int,
    *,
    gpu_model: str,
    profile: str,
    memory_gib: float,
    compute_share: float,
    start_slice: int | None = None,
) -> Placement:
    """One placement row of a hand-made plan; the workload is the instance id before ``#n``."""
    return Placement(
        instance=instance,
        workload=instance.rsplit("#", 1)[0],
        host=host_name,
        gpu_index=gpu_index,
        gpu_model=gpu_model,
        profile=profile,
        memory_gib=memory_gib,
        compute_share=compute_share,
        start_slice=start_slice,
    )


def hand_plan(
    method: Method | None,
    rows: Sequence[Placement],
    *,
    not_placed: Sequence[NotPlaced] = (),
    lower_bound_gpus: int | None = None,
    config: str = "hand-made",
    roles: Mapping[tuple[str, int], Method] | None = None,
    hosts: Sequence[Host] = (),
    solve_seconds: float = 0.0,
) -> MethodPlan:
    """A plan made by hand: every GPU of ``rows`` set up as ``config``, heuristic status; the
    lower bound defaults to the GPUs the rows use."""
    gpus = dict.fromkeys((r.host, r.gpu_index) for r in rows)
    return MethodPlan(
        method=method,
        placements=tuple(rows),
        not_placed=tuple(not_placed),
        gpu_configs=dict.fromkeys(gpus, config),
        lower_bound_gpus=len(gpus) if lower_bound_gpus is None else lower_bound_gpus,
        status=SolveStatus.HEURISTIC,
        solve_seconds=solve_seconds,
        hosts=tuple(hosts),
        roles=dict(roles or {}),
    )


def xlsx(sheets: Mapping[str, Sequence[Sequence[object]]]) -> bytes:
    """A workbook of the given sheets (title -> rows), as a tool or a spreadsheet saves it."""
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(list(row))
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def with_row_moved(data: bytes, row: int, to: int) -> bytes:
    """Workbook ``data`` with every sheet's row ``row`` renumbered ``to``, as a hostile upload's
    sheet XML may number it (openpyxl writes no row past Excel's 1,048,576)."""
    moved = io.BytesIO()
    old = (f'r="{row}"'.encode(), f'{row}"'.encode())
    with zipfile.ZipFile(io.BytesIO(data)) as book, zipfile.ZipFile(moved, "w") as out:
        for item in book.infolist():
            content = book.read(item.filename)
            if item.filename.startswith("xl/worksheets/"):
                # The row's own number, then its cells' references (A3 -> A50000000).
                content = content.replace(old[0], f'r="{to}"'.encode())
                content = re.sub(
                    rb'r="([A-Z]+)' + old[1], rb'r="\g<1>' + f'{to}"'.encode(), content
                )
            out.writestr(item, content)
    return moved.getvalue()
