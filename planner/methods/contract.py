"""The contract every sharing method implements: its rules, its packing, its accounting.

A sharing method is one way to hand GPUs to workloads (passthrough, vGPU, MIG, a remote pool, the
Kubernetes device plugin's sharing modes). Everything the planner knows about a method lives in
its module, in a subclass of ``SharingMethod``; the registry (``planner.methods.registry``) holds
one instance per method, and packing, feasibility, metrics, costs, performance and the report
loop over it instead of branching on the method.

A plan gives every GPU in use one *role*, the method that sets it up. A method whose ``scope`` is
``RoleScope.HOST`` sets up a whole host (a remote-pool GPU server, a Kubernetes node's sharing
configuration): every GPU in use on such a host has that role and no other role shares the host.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from planner.assumptions import Assumptions, Setting
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.slowdown_model import ModelConstant
from planner.plan import GpuPacking, NotPlaced, Placement
from planner.scenario import Scenario

__all__ = [
    "MEMORY_TOLERANCE_GIB",
    "GpuDemand",
    "GpuKey",
    "GpuMemory",
    "GpuView",
    "HostFit",
    "PlanContext",
    "RoleScope",
    "SharingMethod",
    "gpu_name",
]

GpuKey = tuple[str, int]
"""(host name, 0-based GPU index in the host): one physical GPU."""

MEMORY_TOLERANCE_GIB = 1e-6
"""Float slack on memory sums [GiB]."""


def gpu_name(key: GpuKey) -> str:
    """``GPU 3 of host h1``, as rules name a GPU."""
    return f"GPU {key[1]} of host {key[0]}"


class RoleScope(StrEnum):
    """What one choice of method sets up."""

    GPU = "gpu"
    """Each GPU of a host may have its own role (vSphere sets passthrough, vGPU, MIG per GPU)."""
    HOST = "host"
    """The method sets up the whole host; no other role may share it."""


@dataclass(frozen=True)
class GpuMemory:
    """Memory of one GPU in use: what it has, what is reserved on it, what instances ask."""

    capacity_gib: float
    """``max(frame buffer, reserved_gib)`` [GiB] where a method's maxima oversubscribe the frame
    buffer on paper (NVIDIA's vGPU tables); else the frame buffer."""
    reserved_gib: float
    """Frame buffer reserved for the instances on this GPU [GiB]; for methods that hold memory
    only while an instance runs, in the GPU's busiest hour."""
    used_gib: float
    """The instances' own memory on this GPU, each instance's ``memory_gib`` split evenly over
    the GPUs it holds [GiB]; for methods that hold memory only while an instance runs, in the
    GPU's busiest hour."""

    @property
    def utilisation(self) -> float:
        """``used_gib / capacity_gib`` [0-1]; 0 for a GPU without memory."""
        return self.used_gib / self.capacity_gib if self.capacity_gib > 0 else 0.0


@dataclass(frozen=True)
class GpuDemand:
    """The GPUs of one model a method needs for instances of some classes, as linear rows.

    Each instance of class ``c`` uses ``use[c][d]`` of every dimension ``d`` (a profile's slots,
    whole GPUs, a share of memory in one hour, ...); each GPU is set up by one of ``patterns``
    and offers ``pattern[d]`` of each dimension. Any packing of ``x[c]`` instances per class
    needs at least ``Σ_p y[p]`` GPUs for integers ``y`` with ``Σ_c x[c] use[c] ≤ Σ_p y[p]
    pattern[p]`` in every dimension: the recommended plan's MILP (``planner.solve.counts``) is
    built from these rows. ``exact`` says the rows describe the GPU-level rules completely (every
    valid set-up of one GPU is within a pattern), so that bound is met by some packing; else
    they are a relaxation and the method's packer may need more GPUs. Rules across GPUs (a
    multi-GPU instance on one host, one profile size per host) are left to packing and checking.
    """

    dimensions: tuple[str, ...]
    use: Mapping[str, tuple[float, ...]]
    """Class name -> what one instance uses of each dimension; classes not eligible are absent."""
    patterns: tuple[tuple[float, ...], ...]
    """What one GPU offers of each dimension, per way of setting it up."""
    exact: bool
    packed: Mapping[str, tuple[float, ...]] | None = None
    """For a relaxation: what one instance takes as the method's packer places it (whole
    instances per GPU), rows a plan can be built on; ``None``: the same as ``use``."""
    resting: Mapping[str, tuple[int, ...]] | None = None
    """For rows that follow the clock (a dimension per hour): class name -> how many of its
    instances use nothing of each dimension (are idle in that hour). ``use`` spreads a class's
    activity evenly over its instances, but a plan may hand the method a class's least active
    instances: ``x`` of them then use at least ``while_active[d] × max(0, x − resting[d])``,
    which a lower bound must allow. ``None``: every instance uses ``use`` alike."""
    while_active: Mapping[str, tuple[float, ...]] | None = None
    """With ``resting``: what one instance uses of each dimension while it is active."""

    def planning_use(self, workload: str) -> tuple[float, ...]:
        """The rows a plan is built on for one instance of ``workload``."""
        return (self.packed or self.use)[workload]


@dataclass(frozen=True)
class HostFit:
    """A method's placement of instances straight onto hosts, without stages A and B."""

    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    gpu_configs: Mapping[GpuKey, str]
    """How each GPU in use is set up."""
    lower_bound_gpus: int
    """No packing of the placed instances uses fewer GPUs."""
    hosts: tuple[Host, ...]
    """The hosts as the plan leaves them for its instances (net of what else the method put on
    them, such as pods without a GPU)."""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GpuView:
    """One physical GPU in use in a plan, as a method's rules see it."""

    key: GpuKey
    host: Host
    model: GpuModel
    config: str
    """How the GPU is set up (``vGPU 16C x5``, ``MIG 3g.40gb@0 + ...``, ``pool``)."""
    placements: tuple[Placement, ...]
    """Every instance slot on the GPU, in plan order."""

    @property
    def name(self) -> str:
        return gpu_name(self.key)


@dataclass(frozen=True)
class PlanContext:
    """What a method's rules may look up about the plan and scenario they judge."""

    scenario: Scenario
    workloads: Mapping[str, WorkloadClass]
    """Workload classes by name."""
    gpus_held: Mapping[str, int]
    """Physical GPUs each placed instance holds [GPUs]."""
    hosts: Mapping[str, Host]
    """The hosts the plan could use, by name."""
    spans: Mapping[str, int]
    """GPUs one instance of each workload class holds: the most any placed instance holds, else
    ``max(1, ceil(gpus))`` [GPUs]."""

    @classmethod
    def of(
        cls,
        scenario: Scenario,
        placements: Sequence[Placement],
        hosts: Sequence[Host],
        *,
        workloads: Sequence[WorkloadClass] | None = None,
    ) -> PlanContext:
        """The context of a plan with ``placements`` on ``hosts`` for ``scenario``; ``workloads``
        narrows the classes looked up to those of the placements (default: all)."""
        classes = scenario.workloads if workloads is None else workloads
        held: dict[str, set[GpuKey]] = {}
        workload_of: dict[str, str] = {}
        for p in placements:
            held.setdefault(p.instance, set()).add((p.host, p.gpu_index))
            workload_of[p.instance] = p.workload
        gpus_held = {instance: len(keys) for instance, keys in held.items()}
        spans = {w.name: 0 for w in classes}
        for instance, gpus in gpus_held.items():
            name = workload_of[instance]
            spans[name] = max(spans.get(name, 0), gpus)
        for w in classes:
            if spans[w.name] == 0:
                spans[w.name] = max(1, math.ceil(w.gpus))
        return cls(
            scenario=scenario,
            workloads={w.name: w for w in classes},
            gpus_held=gpus_held,
            hosts={h.name: h for h in hosts},
            spans=spans,
        )

    @property
    def assumptions(self) -> Assumptions:
        return self.scenario.assumptions

    @property
    def catalog(self) -> Catalog:
        return self.scenario.catalog

    def workload(self, placement: Placement) -> WorkloadClass:
        """The workload class of a placement."""
        return self.workloads[placement.workload]

    def memory_per_gpu_gib(self, placement: Placement) -> float:
        """The instance's own memory on each GPU it holds [GiB]."""
        return self.workload(placement).memory_gib / max(
            self.gpus_held.get(placement.instance, 1), 1
        )


class SharingMethod(ABC):
    """One sharing method's rules, packing, memory accounting, slowdown and costs.

    Subclasses set the class attributes and implement the abstract methods; the defaults suit a
    method whose instances reserve memory on the GPUs they sit on and pay no licence.
    """

    label: ClassVar[str]
    """Name for people (``vGPU (time-sliced)``)."""
    scope: ClassVar[RoleScope] = RoleScope.GPU
    platforms: ClassVar[frozenset[Platform]]
    """Platforms whose hosts the method can set up."""
    exact_max_instances: ClassVar[int] = 0
    """With ``exact=None`` the exact packer runs on at most this many instances of one model."""
    serves_idlest_first: ClassVar[bool] = False
    """When a class is split between methods, this one takes its least active instances (its
    GPUs are held only while an instance runs, so idle instances cost it least)."""
    instances_on_gpu_host: ClassVar[bool] = True
    """Instances take cores and RAM on the host of their GPUs (remote-pool clients run anywhere)."""
    exclusive: ClassVar[bool] = False
    """A GPU serves one instance: free memory on it is stranded."""
    work_floor: ClassVar[bool] = False
    """An instance holding one GPU runs at least as many times slower as the busy demand on it
    adds up to: its own ``busy_demand`` plus each co-tenant's ``co_busy_demand`` [GPUs]
    (``gpu_work_floor``). Bounds rely on it to count the GPUs busy work needs."""
    own_settings: ClassVar[tuple[Setting[Any], ...]] = ()
    """The settings the method declares in its module (replicas per GPU, a strategy), held in
    ``Assumptions.method_settings``; a setting shared by several methods is one ``Setting``
    object they all list."""
    settings: ClassVar[tuple[str, ...]] = ()
    """The ``Assumptions`` fields the method reads, beyond its own settings."""
    constants: ClassVar[tuple[ModelConstant, ...]] = ()
    """The constants of the method's slowdown model."""
    slowdown_summary: ClassVar[str] = ""
    """What drives the slowdown, in plain words."""
    map_note: ClassVar[str] = ""
    """What a reader of the method's placement map must know, in plain words; empty if nothing."""

    # -- eligibility -------------------------------------------------------------------------

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        """Why the method cannot set up ``host`` (beyond its platform); None when it can."""
        return None

    @abstractmethod
    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot use the method on GPUs of ``model``; None when it can."""

    @abstractmethod
    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        """Physical GPUs one eligible instance of ``workload`` must hold on ``model`` [GPUs]."""

    def memory_needed_gib(self, workload: WorkloadClass, model: GpuModel) -> float:
        """GPU memory one instance of ``workload`` must be given on GPUs of ``model``, over all
        its GPUs [GiB]: its ``memory_gib``, unless the method gives shares of memory."""
        return workload.memory_gib

    # -- packing -----------------------------------------------------------------------------

    @abstractmethod
    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """A fast packing of ``instances`` onto GPUs of ``model``."""

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """The fewest GPUs, proven within the solver's work limit (else the best found)."""
        return self.pack_heuristic(instances, model, catalog, assumptions)

    def pack_within_limits(
        self,
        instances: Sequence[Instance],
        host: Host,
        model: GpuModel,
        assumptions: Assumptions,
        limit: Callable[[WorkloadClass], float],
    ) -> GpuPacking | None:
        """A packing of ``instances`` onto GPUs of ``model`` on hosts of ``host``'s shape that
        keeps each class's mean slowdown within ``limit`` of the class with tenants of several
        classes on a GPU; None (the default) when the method has
        none: its packers place by size alone, and the recommended plan holds its classes to
        their limits by the options it gives them."""
        return None

    @abstractmethod
    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """The linear model of the GPUs of ``model`` that instances of ``workloads`` need; see
        ``GpuDemand``. Classes the method cannot serve on ``model`` are left out of ``use``."""

    def fit_hosts(
        self,
        instances: Sequence[Instance],
        hosts: Sequence[Host],
        allowed_models: Mapping[str, tuple[str, ...]],
        scenario: Scenario,
    ) -> HostFit | None:
        """Place eligible ``instances`` straight onto ``hosts`` (those the method can set up),
        each class on the models ``allowed_models`` names for it; None (the default) leaves
        placing to the packing engine's stages A and B."""
        return None

    # -- feasibility -------------------------------------------------------------------------

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """Every way ``gpu`` breaks the method's rules; by default, reserved memory must fit."""
        reserved = sum(p.memory_gib for p in gpu.placements)
        if reserved > gpu.model.memory_gib + MEMORY_TOLERANCE_GIB:
            return [
                f"{gpu.name} holds {reserved:g} GiB but a {gpu.model.name} has "
                f"{gpu.model.memory_gib:g} GiB"
            ]
        return []

    def host_problems(self, host: Host, gpus: Sequence[GpuView], plan: PlanContext) -> list[str]:
        """Rules over the method's GPUs on one host (one profile size per host, ...)."""
        return []

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """Rules over one instance's slots (vGPUs per VM, ...)."""
        return []

    # -- measuring ---------------------------------------------------------------------------

    def gpu_memory(self, gpu: GpuView, plan: PlanContext) -> GpuMemory:
        """Memory capacity, reservations and use of one GPU; see ``GpuMemory``."""
        reserved = sum(p.memory_gib for p in gpu.placements)
        used = sum(plan.memory_per_gpu_gib(p) for p in gpu.placements)
        return GpuMemory(
            capacity_gib=max(gpu.model.memory_gib, reserved), reserved_gib=reserved, used_gib=used
        )

    def free_memory_usable(self, gpu: GpuView, plan: PlanContext) -> bool | None:
        """Whether some workload could use the GPU's free memory under this method; None when
        the generic rule decides (free memory below every workload's request is stranded)."""
        return False if self.exclusive else None

    @abstractmethod
    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        """Runtime over bare metal of the instance of ``placement`` on ``gpu`` [-]."""

    def slowdown_note(self, assumptions: Assumptions) -> str:
        """What drives the method's slowdown under ``assumptions``, in plain words."""
        return self.slowdown_summary

    # -- costs -------------------------------------------------------------------------------

    def licence_usd_per_gpu_year(self, host: Host, assumptions: Assumptions) -> float:
        """Software licence per GPU in use on ``host`` [USD/year]."""
        return 0.0

    def network_usd_per_host_year(self, assumptions: Assumptions) -> float:
        """Network per host the method sets up [USD/year]."""
        return 0.0

    def cost_notes(self, assumptions: Assumptions) -> tuple[str, ...]:
        """What the method's costs leave out or assume, in plain words."""
        return ()
