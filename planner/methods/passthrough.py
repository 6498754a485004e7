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
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import GpuDemand, GpuView, PlanContext, SharingMethod
from planner.plan import GpuLoad, GpuPacking, HostRequest, NotPlaced, Placement, Slot, SolveStatus

__all__ = [
    "CONFIG",
    "PASSTHROUGH",
    "PROFILE",
    "Passthrough",
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


LIVE_MIGRATION_REASON = "passthrough VMs cannot be vMotioned, and the workload needs live migration"


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


class Passthrough(SharingMethod):
    """Whole GPUs per instance, never shared (DirectPath I/O; a whole GPU per pod elsewhere)."""

    label = "Passthrough"
    platforms = frozenset(Platform)
    exclusive = True
    slowdown_summary = "whole GPUs, bare-metal speed"

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot use passthrough GPUs of ``model``; None when it can."""
        if workload.needs_live_migration:
            return LIVE_MIGRATION_REASON
        return None

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        return whole_gpus(workload, model)

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """One request of whole GPUs per eligible instance; ineligible ones become ``NotPlaced``;
        already optimal, so it is the exact packer too."""
        requests: list[HostRequest] = []
        not_placed: list[NotPlaced] = []
        for instance in instances:
            reason = self.ineligible_reason(instance.workload, model, catalog, assumptions)
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

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """Each instance uses its whole GPUs; a GPU offers one (exact)."""
        return GpuDemand(
            dimensions=("whole GPU",),
            use={
                w.name: (float(whole_gpus(w, model)),)
                for w in workloads
                if self.ineligible_reason(w, model, catalog, assumptions) is None
            },
            patterns=((1.0,),),
            exact=True,
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """The memory rule, and a passthrough GPU is never shared."""
        problems = super().gpu_problems(gpu, plan)
        instances = {p.instance for p in gpu.placements}
        if len(instances) > 1:
            problems.append(f"{gpu.name} is shared by {len(instances)} passthrough instances")
        return problems

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        """Bare metal: VMware reports passthrough matching bare metal for HPC/ML."""
        return 1.0


PASSTHROUGH = Passthrough()
"""The passthrough method, as the registry holds it."""
