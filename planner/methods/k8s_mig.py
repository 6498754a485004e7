"""MIG on Kubernetes: NVIDIA's GPU Operator hands pods MIG devices, under one strategy per node.

Rules (NVIDIA k8s-device-plugin README, "Shared access to GPUs" and MIG support; NVIDIA GPU
Operator documentation, "GPU Operator with MIG"):

- The GPU Operator's MIG manager sets MIG mode and the layouts; the device plugin advertises the
  MIG devices, under ``mig.strategy`` (the setting ``STRATEGY``):
  - *mixed*: any valid layout per GPU, each profile its own resource (``nvidia.com/mig-1g.10gb``);
  - *single*: every GPU of a node is split into MIG devices of one profile, advertised as
    ``nvidia.com/gpu``: **one profile per node**, so a node serves pods of one profile size.
- A pod takes the profile :func:`planner.methods.mig.profile_choice` gives (the smallest whose
  memory and compute cover it; whole-GPU profiles, one per GPU on one node, for a pod of a GPU or
  more). MIG isolates memory, caches and faults in hardware, so pods needing isolation are
  eligible; there are no vSphere limits (no VM, no vGPU licence).
- Nodes need a MIG-capable GPU with MIG mode on.

Packing reuses the MIG layouts of :mod:`planner.methods.mig`: mixed packs all profiles together
into maximal layouts (:func:`planner.methods.mig.pack_profiles`); single packs each profile
apart, its GPUs in a host group of that profile so host assignment keeps profiles on separate
nodes, each GPU holding as many devices of the profile as one GPU takes.

Slowdown: a MIG device has dedicated compute slices, memory and L2, so co-resident pods do not
slow a pod; it runs slower only on less compute than it asked
(:func:`planner.methods.mig.mig_slowdown`). The GPU's work never exceeds one GPU: each pod's
compute is capped at its slices, and slices sum to at most the GPU's.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from enum import StrEnum

from planner.assumptions import Assumptions, setting
from planner.inputs.catalog import Catalog, GpuModel, MigProfile
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import GpuDemand, GpuView, PlanContext
from planner.methods.kubernetes import KubernetesMethod
from planner.methods.mig import (
    Choose,
    ProfileChoice,
    enumerate_layouts,
    layout_demand,
    mig_problems,
    mig_room_usable,
    mig_slowdown,
    pack_profiles,
    profile_choice,
)
from planner.plan import GpuPacking, NotPlaced, Placement, SolveStatus

__all__ = [
    "K8S_MIG",
    "STRATEGY",
    "KubernetesMig",
    "MigStrategy",
    "devices_per_gpu",
    "host_group",
    "pack_single",
]


class MigStrategy(StrEnum):
    """How NVIDIA's device plugin (under the GPU Operator) exposes MIG devices on Kubernetes
    nodes, its ``mig.strategy`` (NVIDIA k8s-device-plugin README, MIG support)."""

    SINGLE = "single"
    """Every GPU of a node is split into MIG devices of one profile, advertised as
    ``nvidia.com/gpu``: one profile per node."""
    MIXED = "mixed"
    """Any MIG layout per GPU, each profile its own resource (``nvidia.com/mig-1g.10gb``)."""

    @property
    def label(self) -> str:
        """The choice for people."""
        if self is MigStrategy.SINGLE:
            return "Single (one MIG profile per node)"
        return "Mixed (any MIG layout per GPU)"


STRATEGY = setting(
    "kubernetes_mig_strategy", MigStrategy.MIXED, "MIG strategy on Kubernetes", "choice",
    "the GPU Operator's mig.strategy: mixed (any layout per GPU) or single (one MIG profile "
    "per node)",
    flag="--mig-strategy",
)  # fmt: skip


def host_group(profile: str) -> str:
    """``HostRequest.host_group`` of GPUs split into ``profile`` devices (single strategy)."""
    return f"MIG {profile}"


def devices_per_gpu(profile: MigProfile, model: GpuModel) -> int:
    """MIG devices of ``profile`` one GPU of ``model`` holds when split into that profile only
    (``all-1g.10gb`` holds 7 on an A100 80GB) [devices/GPU]."""
    return _devices_per_gpu(profile, model)


@functools.lru_cache(maxsize=128)
def _devices_per_gpu(profile: MigProfile, model: GpuModel) -> int:
    return max((len(layout.placed) for layout in enumerate_layouts([profile], model)), default=0)


def _choose(model: GpuModel, catalog: Catalog) -> Choose:
    """The MIG profile choice of a pod on ``model``: no vSphere rule applies on Kubernetes."""
    return lambda workload: profile_choice(workload, model, catalog)


def _merged_status(packings: Sequence[GpuPacking]) -> SolveStatus:
    """OPTIMAL when every part is; else the first part's weaker status."""
    for packing in packings:
        if packing.status is not SolveStatus.OPTIMAL:
            return packing.status
    return SolveStatus.OPTIMAL


def pack_single(
    instances: Sequence[Instance],
    model: GpuModel,
    catalog: Catalog,
    *,
    exact: bool,
    time_limit_s: float,
) -> GpuPacking:
    """The single strategy: pods grouped by profile, each group packed on GPUs split into its
    profile only, its requests in that profile's host group (one profile per node).

    Per profile the fewest GPUs is ``ceil(pods / devices_per_gpu)``, which the layout packer
    finds; the parts' lower bounds add up.
    """
    choose = _choose(model, catalog)
    groups: dict[str, list[Instance]] = {}
    not_placed: list[NotPlaced] = []
    choices: dict[int, ProfileChoice | str] = {}
    for instance in instances:
        workload = instance.workload
        if id(workload) not in choices:
            choices[id(workload)] = choose(workload)
        choice = choices[id(workload)]
        if isinstance(choice, str):
            not_placed.append(NotPlaced(instance.id, workload.name, choice))
        else:
            groups.setdefault(choice.profile.name, []).append(instance)
    parts = [
        (name, pack_profiles(group, model, choose, exact=exact, time_limit_s=time_limit_s))
        for name, group in groups.items()
    ]
    requests = tuple(
        dataclasses.replace(request, host_group=host_group(name))
        for name, part in parts
        for request in part.requests
    )
    return GpuPacking(
        requests=requests,
        not_placed=tuple(not_placed),
        lower_bound_gpus=sum(part.lower_bound_gpus for _, part in parts),
        status=_merged_status([part for _, part in parts]),
        notes=("MIG single strategy: one profile per node, each GPU split into that profile only",),
    )


def single_demand(
    workloads: Sequence[WorkloadClass], model: GpuModel, catalog: Catalog
) -> GpuDemand:
    """The layout rows of the mixed strategy with each GPU split into one profile only: one
    pattern per profile (``devices_per_gpu`` of it), and the whole-GPU pattern; exact at the
    GPU level (one profile per node is left to host assignment)."""
    mixed = layout_demand(workloads, model, _choose(model, catalog))
    profiles = {p.name: p for p in catalog.mig_profiles.get(model.name, ())}
    partial = mixed.dimensions[:-1]
    patterns = [
        tuple(
            float(devices_per_gpu(profiles[name], model)) if i == k else 0.0
            for i in range(len(mixed.dimensions))
        )
        for k, name in enumerate(partial)
    ]
    patterns.append((*(0.0,) * len(partial), 1.0))
    return GpuDemand(mixed.dimensions, mixed.use, tuple(patterns), exact=True)


def _single_room_usable(gpu: GpuView, plan: PlanContext) -> bool:
    """Under the single strategy a GPU's free room is usable only by another device of its
    profile: when devices remain and some workload fits that profile."""
    names = {p.profile for p in gpu.placements}
    if len(names) != 1:
        return False
    (name,) = names
    profile = next(
        (p for p in plan.catalog.mig_profiles.get(gpu.model.name, ()) if p.name == name), None
    )
    if profile is None or len(gpu.placements) >= devices_per_gpu(profile, gpu.model):
        return False
    share = profile.compute_slices / gpu.model.mig_compute_slices
    return any(
        w.memory_gib / plan.spans[w.name] <= profile.memory_gib
        and min(w.gpus / plan.spans[w.name], 1.0) <= share
        for w in plan.scenario.workloads
    )


class KubernetesMig(KubernetesMethod):
    """MIG devices on Kubernetes nodes, set up by the GPU Operator under its MIG strategy."""

    label = "MIG (Kubernetes)"
    # Pattern MILPs whose size depends on layouts, not pod counts.
    exact_max_instances = 100_000
    own_settings = (*KubernetesMethod.own_settings, STRATEGY)
    slowdown_summary = "hardware-isolated MIG devices; slower only with less compute than asked"

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        if not model.mig_capable:
            return f"{model.name} does not support MIG"
        if not host.mig_enabled:
            return "MIG mode is not enabled on the node (the GPU Operator's MIG manager sets it)"
        return None

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot take a MIG device on ``model``: no MIG, or no profile fits;
        None when it can (MIG isolates, so pods needing isolation are eligible)."""
        choice = profile_choice(workload, model, catalog)
        return choice if isinstance(choice, str) else None

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        choice = profile_choice(workload, model, catalog)
        return 1 if isinstance(choice, str) else choice.gpus

    def _pack(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
        *,
        exact: bool,
    ) -> GpuPacking:
        limit = assumptions.time_limit_s
        if STRATEGY.of(assumptions) is MigStrategy.SINGLE:
            return pack_single(instances, model, catalog, exact=exact, time_limit_s=limit)
        choose = _choose(model, catalog)
        return pack_profiles(instances, model, choose, exact=exact, time_limit_s=limit)

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Greedy largest-first into MIG layouts (mixed), or per profile (single)."""
        return self._pack(instances, model, catalog, assumptions, exact=False)

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Fewest GPUs: the pattern MILP over maximal layouts (mixed), or per profile (single)."""
        return self._pack(instances, model, catalog, assumptions, exact=True)

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """MIG layout rows (mixed), or one-profile GPUs (single); exact at the GPU level."""
        if STRATEGY.of(assumptions) is MigStrategy.SINGLE:
            return single_demand(workloads, model, catalog)
        return layout_demand(workloads, model, _choose(model, catalog))

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """MIG's placement rules (``mig_problems``): memory slices, not the rounded gigabytes
        of the profiles' names."""
        return mig_problems(gpu, plan)

    def host_problems(self, host: Host, gpus: Sequence[GpuView], plan: PlanContext) -> list[str]:
        """Single strategy: every MIG device of the node has one profile."""
        if STRATEGY.of(plan.assumptions) is not MigStrategy.SINGLE:
            return []
        profiles = sorted({p.profile for gpu in gpus for p in gpu.placements})
        if len(profiles) <= 1:
            return []
        return [
            f"node {host.name} holds MIG devices {', '.join(profiles)}, but the single MIG "
            "strategy allows one profile per node"
        ]

    def free_memory_usable(self, gpu: GpuView, plan: PlanContext) -> bool | None:
        if STRATEGY.of(plan.assumptions) is MigStrategy.SINGLE:
            return _single_room_usable(gpu, plan)
        return mig_room_usable(gpu, plan)

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        asked = min(plan.workload(placement).gpus, 1.0)
        return mig_slowdown(asked, placement.compute_share)

    def slowdown_note(self, assumptions: Assumptions) -> str:
        return f"{self.slowdown_summary} ({STRATEGY.of(assumptions).value} strategy)"


K8S_MIG = KubernetesMig()
"""The MIG on Kubernetes method, as the registry holds it."""
