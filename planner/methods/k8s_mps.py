"""MPS on Kubernetes: NVIDIA's device plugin splits each GPU into equal Multi-Process Service
replicas, one per pod.

Rules (NVIDIA k8s-device-plugin README, "With CUDA MPS", and its v0.15.0 release notes):

- The plugin advertises ``replicas`` references to every GPU of a node
  (``sharing.mps.resources[].replicas``, here the setting ``REPLICAS``); each "would have
  access to the same fraction (1/replicas) of the total memory and compute resources of the
  GPU": the MPS control daemon pins each client's device memory to ``memory / replicas`` and
  its active threads to ``100 / replicas`` % (``CUDA_MPS_ACTIVE_THREAD_PERCENTAGE``).
- A pod asks one replica: requests for more than one are refused
  (``failRequestsGreaterThanOne``), so a pod that needs more than one GPU, or more memory than
  ``memory / replicas``, is not eligible.
- MPS keeps clients in separate address spaces but not separate fault domains (a fatal error in
  one client reaches the others on the GPU): a workload that needs isolation is not eligible.
- "Sharing with MPS is currently not supported on devices with MIG enabled": a node whose
  MIG-capable GPUs have MIG mode on is not usable.

Packing is one dimension: ``ceil(pods / replicas)`` GPUs, met by filling GPUs in order, so the
packer is optimal and exact at once.

Slowdown: a pod computes on its ``1 / replicas`` of the GPU's threads whatever the others do, so
its GPU work stretches by ``max(1, g × replicas)``; co-resident clients that are busy share the
memory bandwidth and caches; a pod asking more than its replica is never faster than the GPU's
busy demand allows. See :func:`mps_slowdown`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from planner.assumptions import Assumptions, setting
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import (
    MEMORY_TOLERANCE_GIB,
    GpuDemand,
    GpuView,
    PlanContext,
)
from planner.methods.grouping import request_for
from planner.methods.kubernetes import KubernetesMethod, mig_mode_reason
from planner.methods.slowdown_model import ModelConstant, any_busy, co_busy_share
from planner.plan import GpuLoad, GpuPacking, NotPlaced, Placement, Slot, SolveStatus

__all__ = [
    "K8S_MPS",
    "MAX_MPS_CLIENTS",
    "MPS_INTERFERENCE",
    "PROFILE",
    "REPLICAS",
    "Mps",
    "config",
    "mps_slowdown",
    "replica_memory_gib",
]

MAX_MPS_CLIENTS = 48
"""Client CUDA contexts one GPU serves under Volta MPS and later [clients/GPU] (NVIDIA's MPS
documentation, limitations)."""

REPLICAS = setting(
    "mps_replicas", 4, "MPS replicas", "pods/GPU",
    "pods one GPU serves under Kubernetes MPS (the device plugin's sharing.mps replicas), "
    "each limited to 1/replicas of the GPU's memory and compute",
    minimum=1, maximum=MAX_MPS_CLIENTS, guess=True, flag="--mps-replicas",
)  # fmt: skip

PROFILE = "MPS replica"
"""``Slot.profile`` of a pod holding one MPS replica."""

_TOLERANCE = 1e-9
"""Float noise allowed when comparing GPU shares [GPUs]."""


def config(replicas: int) -> str:
    """``GpuLoad.config`` of an MPS GPU, ``MPS x4``."""
    return f"MPS x{replicas}"


def replica_memory_gib(model: GpuModel, replicas: int) -> float:
    """Device memory the MPS daemon allows one replica: ``memory / replicas`` [GiB]."""
    return model.memory_gib / replicas


def _ineligible_reason(
    workload: WorkloadClass, model: GpuModel, assumptions: Assumptions
) -> str | None:
    """Why ``workload`` cannot be an MPS pod on ``model``; None when it can."""
    replicas = REPLICAS.of(assumptions)
    if workload.gpus > 1 + _TOLERANCE:
        return (
            f"an MPS pod gets one replica of one GPU, and the workload needs "
            f"{workload.gpus:g} GPUs (the device plugin refuses requests for more than one)"
        )
    limit = replica_memory_gib(model, replicas)
    if workload.memory_gib > limit + MEMORY_TOLERANCE_GIB:
        return (
            f"needs {workload.memory_gib:g} GiB but an MPS replica of a {model.name} with "
            f"{replicas} replicas per GPU is limited to {limit:g} GiB"
        )
    if workload.needs_isolation:
        return (
            "MPS clients share the GPU's fault domain, and the workload needs isolation "
            "(use MIG or a whole GPU)"
        )
    return None


def _pack(instances: Sequence[Instance], model: GpuModel, assumptions: Assumptions) -> GpuPacking:
    """Eligible pods in priority order, ``replicas`` per GPU: ``ceil(pods / replicas)`` GPUs."""
    replicas = REPLICAS.of(assumptions)
    memory = replica_memory_gib(model, replicas)
    share = 1.0 / replicas
    pods: list[Instance] = []
    not_placed: list[NotPlaced] = []
    reasons: dict[int, str | None] = {}
    for instance in sorted(instances, key=lambda i: i.workload.priority):
        workload = instance.workload
        if id(workload) not in reasons:
            reasons[id(workload)] = _ineligible_reason(workload, model, assumptions)
        reason = reasons[id(workload)]
        if reason is None:
            pods.append(instance)
        else:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
    requests = []
    for start in range(0, len(pods), replicas):
        chunk = pods[start : start + replicas]
        slots = tuple(Slot(p.id, p.workload.name, PROFILE, memory, share) for p in chunk)
        load = GpuLoad(gpu_model=model.name, config=config(replicas), slots=slots)
        requests.append(request_for(model.name, (load,), chunk))
    return GpuPacking(
        requests=tuple(requests),
        not_placed=tuple(not_placed),
        lower_bound_gpus=math.ceil(len(pods) / replicas),
        status=SolveStatus.OPTIMAL,
    )


MPS_INTERFERENCE = 0.05
"""Extra runtime of an MPS pod's GPU work while another client on its GPU is busy: concurrent
kernels share memory bandwidth and caches [-] (a guess)."""

_INTERFERENCE = ModelConstant(
    "mps_interference",
    MPS_INTERFERENCE,
    "fraction of busy runtime",
    "planner guess (no public figure; edit to match your measurements): MPS runs clients' "
    "kernels at once, so they contend for memory bandwidth and L2 cache",
    "extra runtime of an MPS pod's GPU work while another client on its GPU is busy",
    is_guess=True,
    maximum=1.0,
)
_NO_OVERRIDES: Mapping[str, float] = MappingProxyType({})


def mps_slowdown(
    busy_fraction: float,
    asked_compute_share: float,
    replica_compute_share: float,
    co_busy: Sequence[float],
    co_demand: Sequence[float],
    *,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal of a pod on an MPS replica [-].

    ``s = (1 − b) + b × f`` with ``f = max(1, g / r) × (1 + ι p)``: the pod's GPU work runs on its
    replica's share ``r`` of the threads (more than asked is no speed-up), and while some
    co-resident is busy (``p = 1 − Π_j (1 − d_j)``) it pays the interference ``ι``; its idle
    share ``1 − b`` is not slowed. A pod within its replica (``g ≤ r``) has its own threads, so
    co-residents only interfere. A pod asking more than its replica competes for the GPU: a GPU
    does at most one GPU of work, so when the busy demand ``b g + Σ_j g_j d_j`` passes 1 it runs
    at least that much slower (conservative: MPS caps each client's threads, but memory
    bandwidth and L2 cache stay shared).

    Parameters: ``busy_fraction`` b [0-1]; ``asked_compute_share`` g, share of a GPU the pod
    asked for [0-1]; ``replica_compute_share`` r, its replica's share of the GPU's threads
    [0-1]; ``co_busy`` each co-resident's busy share while this pod runs [0-1]; ``co_demand``
    GPUs each co-resident asks while this pod runs, ``min(g_j, 1) d_j`` [GPUs];
    ``performance_constants`` overrides by name (``ValueError`` if one is out of range).
    """
    interference = _INTERFERENCE.in_use(performance_constants)
    partition = 1.0
    if replica_compute_share > 0:
        partition = max(1.0, asked_compute_share / replica_compute_share)
    stretch = partition * (1.0 + interference * any_busy(co_busy))
    contended = (1.0 - busy_fraction) + busy_fraction * stretch
    if asked_compute_share <= replica_compute_share + _TOLERANCE:
        return contended
    return max(contended, busy_fraction * asked_compute_share + sum(co_demand))


class Mps(KubernetesMethod):
    """MPS replicas of whole GPUs, one per pod: equal memory and compute limits per replica."""

    label = "MPS (Kubernetes)"
    # One-dimensional packing, optimal by construction.
    exact_max_instances = 100_000
    own_settings = (*KubernetesMethod.own_settings, REPLICAS)
    constants = (_INTERFERENCE,)
    slowdown_summary = "1/replicas of the GPU's threads per pod, clients run at once"

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        return mig_mode_reason(host, model, "MPS")

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot be an MPS pod on ``model``: more than one GPU, more memory than
        one replica's ``memory / replicas``, or a need for isolation; None when it can."""
        return _ineligible_reason(workload, model, assumptions)

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        return 1

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """``replicas`` pods per GPU in priority order: optimal, so also the exact packer."""
        return _pack(instances, model, assumptions)

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """One dimension, replicas: a pod uses one, a GPU offers ``replicas`` (exact)."""
        return GpuDemand(
            ("MPS replicas",),
            {
                w.name: (1.0,)
                for w in workloads
                if _ineligible_reason(w, model, assumptions) is None
            },
            ((float(REPLICAS.of(assumptions)),),),
            exact=True,
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """At most ``replicas`` pods per GPU, each within its replica's ``memory / replicas``."""
        problems = super().gpu_problems(gpu, plan)
        replicas = REPLICAS.of(plan.assumptions)
        pods = len({p.instance for p in gpu.placements})
        if pods > replicas:
            problems.append(
                f"{gpu.name} serves {pods} MPS pods but the device plugin gives it "
                f"{replicas} replicas"
            )
        limit = replica_memory_gib(gpu.model, replicas)
        for p in gpu.placements:
            if p.memory_gib > limit + MEMORY_TOLERANCE_GIB:
                problems.append(
                    f"{p.instance} holds {p.memory_gib:g} GiB on {gpu.name}, but an MPS "
                    f"replica there is limited to {limit:g} GiB"
                )
        return problems

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """An MPS pod holds one replica: one GPU."""
        gpus = {(p.host, p.gpu_index) for p in placements}
        if len(gpus) > 1:
            return [f"{instance} holds {len(gpus)} GPUs but an MPS pod holds one replica"]
        return []

    def free_memory_usable(self, gpu: GpuView, plan: PlanContext) -> bool | None:
        """Free memory is a whole free replica or nothing: usable while replicas remain."""
        pods = len({p.instance for p in gpu.placements})
        return None if pods < REPLICAS.of(plan.assumptions) else False

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        workload = plan.workload(placement)
        others = [r for r in gpu.placements if r.instance != placement.instance]
        co_busy = [co_busy_share(workload, plan.workload(r)) for r in others]
        co_demand = [
            min(plan.workload(r).gpus, 1.0) * busy for r, busy in zip(others, co_busy, strict=True)
        ]
        return mps_slowdown(
            workload.busy_fraction,
            min(workload.gpus, 1.0),
            placement.compute_share,
            co_busy,
            co_demand,
            performance_constants=plan.assumptions.performance_constants,
        )

    def slowdown_note(self, assumptions: Assumptions) -> str:
        return f"{self.slowdown_summary} ({REPLICAS.of(assumptions)} replicas per GPU)"


K8S_MPS = Mps()
"""The Kubernetes MPS method, as the registry holds it."""
