"""What a packer returns: GPU loads, host requests and the placed plan of one sharing method."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from planner.inputs.inventory import Host

if TYPE_CHECKING:
    from planner.methods.registry import Method

__all__ = [
    "RECOMMENDED",
    "GpuLoad",
    "GpuPacking",
    "HostRequest",
    "MethodPlan",
    "NotPlaced",
    "Placement",
    "Slot",
    "SolveStatus",
]


class SolveStatus(StrEnum):
    """How good a packing is known to be (scipy.optimize.milp's vocabulary, plus heuristic)."""

    OPTIMAL = "optimal"
    """Proven: no packing uses fewer GPUs (solver optimal, or equal to the lower bound)."""
    LIMIT_REACHED = "solver limit reached"
    """The exact solver stopped at its work limit (or wall-clock backstop); the best packing
    found is returned."""
    HEURISTIC = "heuristic"
    """A heuristic packing; its gap to the lower bound is reported."""


@dataclass(frozen=True)
class Slot:
    """The piece of one GPU that one instance holds."""

    instance: str
    """Instance id, ``workload#n``."""
    workload: str
    profile: str
    """``whole GPU``, a vGPU profile (``16C``), a MIG profile (``3g.40gb``) or ``share``."""
    memory_gib: float
    """Frame buffer reserved for the instance on this GPU [GiB]."""
    compute_share: float
    """Share of the GPU's compute reserved for the instance [0-1]; on a remote pool, whose compute
    is contended, the share it gets when every tenant active in the same hour is busy; 0 when
    compute is time-sliced by a scheduler."""
    start_slice: int | None = None
    """MIG only: first memory slice of the GPU instance."""


@dataclass(frozen=True)
class GpuLoad:
    """The contents of one physical GPU, before it is given a host."""

    gpu_model: str
    config: str
    """How the GPU is set up: ``passthrough``, ``vGPU 16C x5``, ``MIG 3g.40gb@0+...``, ``pool``."""
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class HostRequest:
    """GPU loads that must land on one host together, with the host CPU and RAM they take."""

    gpu_model: str
    loads: tuple[GpuLoad, ...]
    """One load per GPU the request takes on the host."""
    cpu_cores: float
    """Host cores the request's instances need [cores]."""
    ram_gib: float
    """Host RAM the request's instances need [GiB]."""
    priority: int
    """Smallest (most urgent) priority among its instances."""
    host_group: str = ""
    """Requests with different non-empty groups never share a host (vGPU host-equal mode)."""


@dataclass(frozen=True)
class NotPlaced:
    """An instance the plan could not place, and why."""

    instance: str
    workload: str
    reason: str


@dataclass(frozen=True)
class GpuPacking:
    """A method's packing of instances onto GPUs of one model, before host assignment."""

    requests: tuple[HostRequest, ...]
    not_placed: tuple[NotPlaced, ...]
    """Instances the method cannot serve on this model (not eligible, too large)."""
    lower_bound_gpus: int
    """No packing of the placed instances on this model uses fewer GPUs."""
    status: SolveStatus
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Placement:
    """One instance on one GPU of one host (a multi-GPU instance has one row per GPU)."""

    instance: str
    workload: str
    host: str
    gpu_index: int
    """0-based index of the GPU in its host."""
    gpu_model: str
    profile: str
    memory_gib: float
    compute_share: float
    start_slice: int | None = None


RECOMMENDED = "recommended"
"""``MethodPlan.name`` of the recommended plan, which mixes methods."""


@dataclass(frozen=True)
class MethodPlan:
    """Every instance of a scenario placed (or not): under one sharing method, or a mix of them.

    Every GPU in use has a *role*, the method that sets it up (``roles``); a single-method plan
    gives every GPU its ``method``.
    """

    method: Method | None
    """The sharing method of every GPU; None for the recommended plan, which mixes methods."""
    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    gpu_configs: Mapping[tuple[str, int], str]
    """(host, GPU index) -> how that GPU is set up, for every GPU in use."""
    lower_bound_gpus: int
    """No packing of the placed instances uses fewer GPUs."""
    status: SolveStatus
    solve_seconds: float
    """Wall time of the packing [s]."""
    notes: tuple[str, ...] = field(default=())
    hosts: tuple[Host, ...] = field(default=())
    """The hosts the plan could use: the inventory's, or those opened when sizing a cluster."""
    roles: Mapping[tuple[str, int], Method] = field(default_factory=dict)
    """(host, GPU index) -> the method that sets the GPU up, for every GPU in use."""

    @property
    def name(self) -> str:
        """Id of the plan: the method's (``vgpu``), or ``recommended`` for the mixed plan."""
        return RECOMMENDED if self.method is None else self.method.value

    @property
    def label(self) -> str:
        """Name of the plan for people."""
        return "Recommended plan" if self.method is None else self.method.label

    def role(self, key: tuple[str, int]) -> Method:
        """The method that sets up GPU ``key`` (one in use)."""
        role = self.roles.get(key, self.method)
        if role is None:
            raise KeyError(f"GPU {key[1]} of host {key[0]} has no role in the plan")
        return role
