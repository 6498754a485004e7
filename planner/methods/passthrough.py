"""Passthrough (VMware DirectPath I/O): each instance owns whole GPUs, all on one host.

An instance takes ``max(ceil(gpus), GPUs needed to hold its memory)`` whole GPUs and shares none
of them, so its idle time and unused memory are stranded. Passthrough VMs cannot be moved with
vMotion, snapshotted or suspended, so a workload that needs live migration is not eligible.

Each instance is its own host request, so the packing is trivially optimal: the GPUs used equal
the sum of the GPUs per instance, which is also the lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from planner.assumptions import Assumptions
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.workloads import Instance, WorkloadClass
from planner.plan import GpuLoad, GpuPacking, HostRequest, NotPlaced, Slot, SolveStatus

__all__ = [
    "CONFIG",
    "PROFILE",
    "ineligible_reason",
    "pack_exact",
    "pack_heuristic",
    "whole_gpus",
]

CONFIG = "passthrough"
"""``GpuLoad.config`` of a passthrough GPU."""
PROFILE = "whole GPU"
"""``Slot.profile`` of an instance that owns the GPU."""

_MEMORY_TOLERANCE_GIB = 1e-9
"""80 GiB on an 80 GiB GPU needs one GPU, not two, despite float noise [GiB]."""


def whole_gpus(workload: WorkloadClass, model: GpuModel) -> int:
    """Whole GPUs of ``model`` one instance needs: ``max(ceil(gpus), ceil(memory / GPU memory))``.

    At least one: a fraction of a GPU still takes a whole GPU when GPUs are not shared.
    """
    for_compute = math.ceil(workload.gpus - _MEMORY_TOLERANCE_GIB)
    for_memory = math.ceil((workload.memory_gib - _MEMORY_TOLERANCE_GIB) / model.memory_gib)
    return max(1, for_compute, for_memory)


def ineligible_reason(
    workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> str | None:
    """Why ``workload`` cannot use passthrough GPUs of ``model``; None when it can."""
    if workload.needs_live_migration:
        return "passthrough VMs cannot be vMotioned, and the workload needs live migration"
    return None


def _request(instance: Instance, model: GpuModel) -> HostRequest:
    workload = instance.workload
    count = whole_gpus(workload, model)
    # What the instance uses of each GPU; the rest of the GPU is stranded.
    memory_per_gpu = min(model.memory_gib, workload.memory_gib / count)
    compute_per_gpu = min(1.0, workload.gpus / count)
    slot = Slot(
        instance=instance.id,
        workload=workload.name,
        profile=PROFILE,
        memory_gib=memory_per_gpu,
        compute_share=compute_per_gpu,
    )
    load = GpuLoad(gpu_model=model.name, config=CONFIG, slots=(slot,))
    return HostRequest(
        gpu_model=model.name,
        loads=(load,) * count,
        cpu_cores=workload.vcpus,
        ram_gib=workload.ram_gib,
        priority=workload.priority,
    )


def pack_heuristic(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """One request of whole GPUs per eligible instance; ineligible ones become ``NotPlaced``."""
    requests: list[HostRequest] = []
    not_placed: list[NotPlaced] = []
    for instance in instances:
        reason = ineligible_reason(instance.workload, model, catalog, assumptions)
        if reason is None:
            requests.append(_request(instance, model))
        else:
            not_placed.append(NotPlaced(instance.id, instance.workload.name, reason))
    return GpuPacking(
        requests=tuple(requests),
        not_placed=tuple(not_placed),
        lower_bound_gpus=sum(len(r.loads) for r in requests),
        status=SolveStatus.OPTIMAL,
    )


def pack_exact(
    instances: Sequence[Instance], model: GpuModel, catalog: Catalog, assumptions: Assumptions
) -> GpuPacking:
    """Same as the heuristic: without sharing, whole GPUs per instance is already optimal."""
    return pack_heuristic(instances, model, catalog, assumptions)
