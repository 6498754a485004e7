"""Fractional GPUs with memory isolation on Kubernetes: any share of a GPU's compute and memory.

HAMi (``nvidia.com/gpumem``, ``gpumem-percentage``, ``gpucores``), KAI Scheduler / Run:ai GPU
fractions and the GPU share of Alibaba's cluster (``gpu_milli``) give a pod any share of one GPU:
its memory is capped (an allocation beyond it fails inside the pod) and its compute limited to
its share. A pod asking for more than one GPU takes whole GPUs, all on one node; a pod may be
restricted to GPU models (``gpu_models``, the trace's ``gpu_spec``).

An instance with ``gpus`` below 1 is a share: compute share ``gpus``, memory
``memory_on(GPU memory)`` (``memory_share`` of the GPU when set, else ``memory_gib``). Shares on
one GPU sum to at most one GPU of compute and of memory. Pods take their CPU and memory on the
node of their GPU. Pods are placed straight onto nodes (``planner.solve.shares``), with the
plan's ``Assumptions.shortfall`` choice when the nodes cannot hold them all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from planner.assumptions import Assumptions, setting
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import (
    MEMORY_TOLERANCE_GIB,
    GpuDemand,
    GpuView,
    HostFit,
    PlanContext,
    RoleScope,
    SharingMethod,
)
from planner.methods.slowdown_model import ModelConstant, any_busy, co_busy_share
from planner.plan import (
    GpuLoad,
    GpuPacking,
    HostRequest,
    NotPlaced,
    Placement,
    Slot,
    SolveStatus,
)
from planner.scenario import Scenario
from planner.solve.bounds import DFF_MAX_K, dual_feasible, items_per_bin
from planner.solve.shares import FULL_MILLI, ShareRequest, bundle_shares, fit_shares

__all__ = [
    "AI_ENTERPRISE_USD",
    "CONFIG",
    "FRACTIONAL",
    "ISOLATION_OVERHEAD",
    "SHARE",
    "WHOLE",
    "Fractional",
    "fractional_slowdown",
]

AI_ENTERPRISE_USD = setting(
    "ai_enterprise_usd_per_gpu_year", 0.0, "AI Enterprise on fractional GPUs", "USD/GPU/year",
    "NVIDIA AI Enterprise per GPU in use per year on Kubernetes nodes sharing fractional GPUs; "
    "0 when the cluster runs HAMi or KAI without it",
    minimum=0.0, maximum=100_000.0, flag="--ai-enterprise-usd",
)  # fmt: skip

CONFIG = "fractional"
"""``GpuLoad.config`` of a GPU handed out in fractions."""
SHARE = "share"
"""``Slot.profile`` of a pod holding a share of the GPU."""
WHOLE = "whole GPU"
"""``Slot.profile`` of a pod holding whole GPUs."""

_SHARE_TOLERANCE = 1e-6
"""Float slack on compute-share sums [-]."""

ISOLATION_OVERHEAD = ModelConstant(
    name="fractional_isolation_overhead",
    value=0.05,
    unit="share of runtime",
    source=(
        "HAMi-core limits memory and compute by intercepting CUDA driver calls in the pod "
        "(HAMi project documentation); no public measurement of the cost: a guess"
    ),
    meaning=(
        "Extra runtime of a share while another pod on its GPU is busy: context switches "
        "between pods and the interception's rate limiting"
    ),
    is_guess=True,
    maximum=1.0,
)


def fractional_slowdown(
    co_busy: Sequence[float],
    co_demand: float,
    asked_compute_share: float,
    overhead: float,
) -> float:
    """Runtime over bare metal of a share whose co-tenants are busy ``co_busy`` of its time.

    Parameters
    ----------
    co_busy : share of the pod's active time each co-tenant is busy [0-1].
    co_demand : the co-tenants' summed busy compute demand, ``Σ busy_j × share_j`` [GPUs].
    asked_compute_share : the pod's own compute share [GPUs].
    overhead : ``fractional_isolation_overhead`` [-].

    Returns ``1 + overhead × P(any co-tenant busy)``, and never less than the GPU's summed busy
    demand ``asked + co_demand`` once it passes one GPU: a GPU never delivers more than one GPU
    of work, so work asked beyond it waits.
    """
    slowdown = 1.0 + overhead * any_busy(co_busy)
    demand = asked_compute_share + co_demand
    return max(slowdown, demand) if demand > 1.0 else slowdown


def _is_share(workload: WorkloadClass) -> bool:
    return workload.gpus < 1.0


def _share_memory(workload: WorkloadClass, model: GpuModel) -> float:
    """GPU memory a share takes on one GPU of ``model`` [GiB]."""
    return workload.memory_on(model.memory_gib)


def _whole_gpus(workload: WorkloadClass, model: GpuModel) -> int:
    """Whole GPUs a pod of more than one GPU takes: its GPUs, or more to hold its memory."""
    for_memory = math.ceil((workload.memory_gib - MEMORY_TOLERANCE_GIB) / model.memory_gib)
    return max(1, math.ceil(workload.gpus - _SHARE_TOLERANCE), for_memory)


def _milli(share: float) -> int:
    """A share of a GPU in whole thousandths, rounded up so the share always fits its slot."""
    return min(FULL_MILLI, max(1, math.ceil(share * FULL_MILLI - 1e-6)))


def share_request(
    instance: Instance, models: Sequence[GpuModel], priority: int | None = None
) -> ShareRequest:
    """The packing request of one eligible instance that may use GPUs of ``models``: a share's
    memory counted on the smallest of them, so it fits wherever it lands."""
    w = instance.workload
    names = tuple(m.name for m in models)
    if not _is_share(w):
        # On the models where it needs the fewest whole GPUs (a smaller GPU may need more).
        gpus = min(_whole_gpus(w, m) for m in models)
        fewest = tuple(m.name for m in models if _whole_gpus(w, m) == gpus)
        return ShareRequest(instance.id, gpus, 0, 0, w.vcpus, w.ram_gib, fewest, w.priority)
    smallest = min(models, key=lambda m: m.memory_gib)
    memory = _milli(_share_memory(w, smallest) / smallest.memory_gib)
    return ShareRequest(
        instance.id, 0, _milli(w.gpus), memory, w.vcpus, w.ram_gib, names, w.priority
    )


def _slot(instance: Instance, model: GpuModel, gpus: int) -> Slot:
    w = instance.workload
    if _is_share(w):
        return Slot(instance.id, w.name, SHARE, _share_memory(w, model), w.gpus)
    return Slot(instance.id, w.name, WHOLE, min(model.memory_gib, w.memory_gib / gpus), 1.0)


class Fractional(SharingMethod):
    """Any share of a GPU's compute and memory per pod, isolated in software (HAMi, KAI)."""

    label = "Fractional GPU"
    work_floor = True
    scope = RoleScope.HOST
    platforms = frozenset({Platform.KUBERNETES})
    own_settings = (AI_ENTERPRISE_USD,)
    settings = ("shortfall",)
    constants = (ISOLATION_OVERHEAD,)
    slowdown_summary = (
        "capped shares of compute and memory; a little slower while co-tenants are busy"
    )
    map_note = "Each pod holds its share of a GPU's compute and memory; whole-GPU pods own theirs."

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot take fractional GPUs of ``model``; None when it can. A share
        isolated in software is no hardware isolation, and a share's memory must fit one GPU."""
        if not _is_share(workload):
            return None
        if workload.needs_isolation:
            return (
                "the workload needs hardware isolation, and fractional GPUs isolate pods in "
                "software only"
            )
        memory = _share_memory(workload, model)
        if memory > model.memory_gib + MEMORY_TOLERANCE_GIB:
            return (
                f"a share of one GPU needs {memory:g} GiB, more than a {model.name} has "
                f"({model.memory_gib:g} GiB)"
            )
        return None

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        return 1 if _is_share(workload) else _whole_gpus(workload, model)

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Shares bundled onto GPUs by best fit decreasing (``bundle_shares``), one request per
        GPU; one request of whole GPUs per larger pod."""
        eligible: list[Instance] = []
        not_placed: list[NotPlaced] = []
        for instance in instances:
            reason = self.ineligible_reason(instance.workload, model, catalog, assumptions)
            if reason is None:
                eligible.append(instance)
            else:
                not_placed.append(NotPlaced(instance.id, instance.workload.name, reason))
        requests = [share_request(i, (model,)) for i in eligible]
        host_requests: list[HostRequest] = []
        shares = [n for n, r in enumerate(requests) if r.gpus == 0]
        for n, r in enumerate(requests):
            if r.gpus:
                slot = _slot(eligible[n], model, r.gpus)
                load = GpuLoad(model.name, CONFIG, (slot,))
                host_requests.append(
                    HostRequest(model.name, (load,) * r.gpus, r.cpu_cores, r.ram_gib, r.priority)
                )
        for members in bundle_shares(requests, shares):
            slots = tuple(_slot(eligible[n], model, 1) for n in members)
            host_requests.append(
                HostRequest(
                    model.name,
                    (GpuLoad(model.name, CONFIG, slots),),
                    sum(requests[n].cpu_cores for n in members),
                    sum(requests[n].ram_gib for n in members),
                    min(requests[n].priority for n in members),
                )
            )
        bound = _gpu_bound(requests)
        used = sum(len(r.loads) for r in host_requests)
        return GpuPacking(
            requests=tuple(host_requests),
            not_placed=tuple(not_placed),
            lower_bound_gpus=bound,
            status=SolveStatus.OPTIMAL if used == bound else SolveStatus.HEURISTIC,
        )

    def fit_hosts(
        self,
        instances: Sequence[Instance],
        hosts: Sequence[Host],
        allowed_models: Mapping[str, tuple[str, ...]],
        scenario: Scenario,
    ) -> HostFit:
        """Pods straight onto nodes with ``planner.solve.shares.fit_shares``, with the plan's
        shortfall choice; pods without a GPU (``Scenario.cpu_only``) take node cores and RAM."""
        catalog = scenario.catalog
        by_id = {i.id: i for i in instances}
        requests = [
            share_request(i, [catalog.gpus[m] for m in allowed_models[i.workload.name]])
            for i in instances
        ]
        cpu_only_class = {i: w for w in scenario.cpu_only for i in w.instance_ids()}
        cpu_only = [
            ShareRequest(i, 0, 0, 0, w.vcpus, w.ram_gib, (), w.priority)
            for i, w in cpu_only_class.items()
        ]
        fit = fit_shares([*requests, *cpu_only], hosts, scenario.assumptions.shortfall)
        host_by_name = {h.name: h for h in hosts}
        placements: list[Placement] = []
        configs: dict[tuple[str, int], str] = {}
        taken: dict[str, tuple[float, float]] = {}
        placed: list[ShareRequest] = []
        request_of = {r.name: r for r in requests}
        for p in fit.placements:
            host = host_by_name[p.host]
            instance = by_id.get(p.request)
            if instance is None:  # a pod without a GPU: its cores and RAM leave the node
                w = cpu_only_class[p.request]
                cores, ram = taken.get(host.name, (0.0, 0.0))
                taken[host.name] = (cores + w.vcpus, ram + w.ram_gib)
                continue
            placed.append(request_of[p.request])
            model = catalog.gpus[host.gpu_model]
            slot = _slot(instance, model, len(p.gpu_indices))
            for gpu in p.gpu_indices:
                configs[(host.name, gpu)] = CONFIG
                placements.append(
                    Placement(
                        slot.instance,
                        slot.workload,
                        host.name,
                        gpu,
                        model.name,
                        slot.profile,
                        slot.memory_gib,
                        slot.compute_share,
                    )
                )
        return HostFit(
            placements=tuple(placements),
            not_placed=tuple(
                NotPlaced(name, by_id[name].workload.name, reason)
                for name, reason in fit.not_placed
                if name in by_id
            ),
            gpu_configs=configs,
            lower_bound_gpus=_gpu_bound(placed),
            hosts=_net_hosts(hosts, taken),
            notes=_cpu_only_notes(len(cpu_only), fit.not_placed, by_id),
        )

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """A share uses its compute and memory shares, a larger pod its whole GPUs; a GPU offers
        one whole GPU or one GPU of shares. A relaxation: shares are packed by volume. The same
        shares again rounded by a dual feasible function, once per ``k`` shares of one size that
        fit on a GPU (``bounds.DFF_MAX_K``), tighten it where shares cannot be cut: three pods of
        0.6 GPU need three GPUs, not two. A plan is built on the unrounded rows."""
        shares: dict[str, tuple[float, float]] = {}  # compute, memory [share of one GPU]
        whole: dict[str, float] = {}
        for w in workloads:
            if self.ineligible_reason(w, model, catalog, assumptions) is not None:
                continue
            if _is_share(w):
                shares[w.name] = (w.gpus, _share_memory(w, model) / model.memory_gib)
            else:
                whole[w.name] = float(_whole_gpus(w, model))
        fits = (items_per_bin(x) for pair in shares.values() for x in pair)
        rounded = sorted({min(k, DFF_MAX_K) for k in fits if k})
        unrounded = (0.0,) * (2 * len(rounded))  # a plan's rows: no rounded share
        use: dict[str, tuple[float, ...]] = {}
        packed: dict[str, tuple[float, ...]] = {}
        for name, (compute, memory) in shares.items():
            use[name] = (
                0.0,
                compute,
                memory,
                *(dual_feasible(compute, k) for k in rounded),
                *(dual_feasible(memory, k) for k in rounded),
            )
            packed[name] = (0.0, compute, memory, *unrounded)
        for name, gpus in whole.items():
            use[name] = packed[name] = (gpus, 0.0, 0.0, *unrounded)
        dimensions = (
            "whole GPU",
            "compute share",
            "memory share",
            *(f"compute share (rounded, k={k})" for k in rounded),
            *(f"memory share (rounded, k={k})" for k in rounded),
        )
        # A GPU of shares offers one of every rounded share too; a whole GPU none.
        return GpuDemand(
            dimensions=dimensions,
            use=use,
            patterns=((1.0, 0.0, 0.0, *unrounded), (0.0, 1.0, 1.0, *(1.0 for _ in unrounded))),
            exact=False,
            packed=packed,
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """Memory fits; compute shares sum to at most one GPU; a whole-GPU pod is alone."""
        problems = super().gpu_problems(gpu, plan)
        compute = sum(p.compute_share for p in gpu.placements)
        if compute > 1.0 + _SHARE_TOLERANCE:
            problems.append(f"{gpu.name} hands out {compute:g} GPUs of compute shares")
        instances = {p.instance for p in gpu.placements}
        if len(instances) > 1 and any(p.profile == WHOLE for p in gpu.placements):
            problems.append(f"{gpu.name} is a whole GPU of one pod but holds {len(instances)}")
        return problems

    def memory_needed_gib(self, workload: WorkloadClass, model: GpuModel) -> float:
        """A share takes its share of the GPU's memory (``memory_share``, HAMi's
        ``gpumem-percentage``) where one is given; a pod of whole GPUs its ``memory_gib``."""
        return _share_memory(workload, model) if _is_share(workload) else workload.memory_gib

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """A pod of more than one GPU holds whole GPUs; a share holds one GPU."""
        workload = plan.workload(placements[0])
        if _is_share(workload):
            if len(placements) > 1:
                return [f"{instance} is a share of one GPU but holds {len(placements)} GPUs"]
            return []
        if any(p.profile != WHOLE for p in placements):
            return [f"{instance} needs whole GPUs but holds shares"]
        return []

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        """``fractional_slowdown`` over the co-tenants of the GPU; a whole GPU runs at bare
        metal."""
        workload = plan.workload(placement)
        others = [p for p in gpu.placements if p.instance != placement.instance]
        if placement.profile == WHOLE or not others:
            return 1.0
        co_busy = [co_busy_share(workload, plan.workload(p)) for p in others]
        co_demand = sum(b * p.compute_share for b, p in zip(co_busy, others, strict=True))
        overhead = ISOLATION_OVERHEAD.in_use(plan.assumptions.performance_constants)
        return fractional_slowdown(co_busy, co_demand, placement.compute_share, overhead)

    def licence_usd_per_gpu_year(self, host: Host, assumptions: Assumptions) -> float:
        """No vGPU licence; NVIDIA AI Enterprise only when the user sets its price."""
        return AI_ENTERPRISE_USD.of(assumptions)

    def cost_notes(self, assumptions: Assumptions) -> tuple[str, ...]:
        if AI_ENTERPRISE_USD.of(assumptions) > 0:
            return ("Fractional GPUs carry the NVIDIA AI Enterprise price per GPU you set.",)
        return ("Fractional GPUs need no vGPU licence (HAMi and KAI are open source).",)


def _gpu_bound(requests: Sequence[ShareRequest]) -> int:
    """No packing uses fewer GPUs: whole GPUs, plus the shares' compute or memory, rounded up."""
    whole = sum(r.gpus for r in requests)
    compute = sum(r.compute_milli for r in requests if not r.gpus)
    memory = sum(r.memory_milli for r in requests if not r.gpus)
    return whole + math.ceil(max(compute, memory) / FULL_MILLI)


def _net_hosts(hosts: Sequence[Host], taken: Mapping[str, tuple[float, float]]) -> tuple[Host, ...]:
    """The hosts with the cores and RAM of the pods without a GPU taken out."""
    return tuple(
        replace(h, cpu_cores=h.cpu_cores - taken[h.name][0], ram_gib=h.ram_gib - taken[h.name][1])
        if h.name in taken
        else h
        for h in hosts
    )


def _cpu_only_notes(
    count: int, missed: Sequence[tuple[str, str]], gpu_pods: Mapping[str, Instance]
) -> tuple[str, ...]:
    if not count:
        return ()
    left = sum(1 for name, _ in missed if name not in gpu_pods)
    return (
        f"Pods without a GPU: {count - left} of {count} placed on the nodes' cores and RAM "
        "(the hosts' cores and RAM shown are net of them)"
        + (f"; {left} did not fit." if left else "."),
    )


FRACTIONAL = Fractional()
"""The fractional-GPU method, as the registry holds it."""
