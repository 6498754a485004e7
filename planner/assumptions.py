"""Every assumption a plan rests on, each with a default the user can change."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["Assumptions", "Network", "Shortfall", "VgpuMode", "VgpuScheduler", "VsphereVersion"]


class VgpuMode(StrEnum):
    """How vGPU profiles may be mixed."""

    EQUAL_SIZE = "equal-size"
    """All vGPUs on one physical GPU have one profile (NVIDIA's default)."""
    MIXED_SIZE = "mixed-size"
    """Different sizes on one GPU (vGPU 17+, vSphere 8.0 U3+), with lower maxima."""
    HOST_EQUAL = "host-equal"
    """VMware's 2020 guidance: partial profiles of one size on any one host (conservative)."""


class VgpuScheduler(StrEnum):
    """NVIDIA vGPU time-slice scheduler."""

    BEST_EFFORT = "best-effort"
    EQUAL_SHARE = "equal-share"
    FIXED_SHARE = "fixed-share"


class VsphereVersion(StrEnum):
    """vSphere release; sets how many vGPUs one VM may hold and which may be combined."""

    V7 = "7"
    """Up to 4 vGPUs per VM, full-frame-buffer profiles only."""
    V8 = "8"
    """Up to 8 vGPUs per VM, any C-series profile."""

    @property
    def max_vgpus_per_vm(self) -> int:
        return 4 if self is VsphereVersion.V7 else 8


class Shortfall(StrEnum):
    """What a plan keeps when the inventory cannot hold every instance (after priority)."""

    INSTANCES = "instances"
    """Serve the most instances: small requests before large ones."""
    GPU_CAPACITY = "gpu-capacity"
    """Allocate the most GPU capacity (whole GPUs and shares of GPUs): large requests first."""


@dataclass(frozen=True)
class Network:
    """The network between remote-pool clients and GPU servers."""

    latency_us: float = 20.0
    """Round-trip latency client to GPU server [µs]; VMware recommends at most 50."""
    bandwidth_gbps: float = 100.0
    """Bandwidth per GPU server [Gbit/s]."""
    rdma: bool = True
    """RDMA/PVRDMA between clients and servers."""
    usd_per_server_year: float = 3000.0
    """NIC, switch port and optics per GPU server, amortised [USD/year] (a default, edit it)."""


@dataclass(frozen=True)
class Assumptions:
    """Inputs of a plan that are not in the inventory or workload files."""

    vgpu_mode: VgpuMode = VgpuMode.EQUAL_SIZE
    vgpu_scheduler: VgpuScheduler = VgpuScheduler.BEST_EFFORT
    vsphere_version: VsphereVersion = VsphereVersion.V8
    mig_backed_vgpu: bool = True
    """MIG under vSphere is MIG-backed vGPU and needs an AI Enterprise licence per GPU."""
    licence_usd_per_gpu_year: float = 4500.0
    """NVIDIA AI Enterprise list price per GPU per year [USD] (public list price; edit it)."""
    power_usd_per_kwh: float = 0.15
    """Electricity price [USD/kWh] (a default)."""
    pue: float = 1.5
    """Data-centre power usage effectiveness [-] (a default)."""
    amortisation_years: float = 4.0
    """Years over which hardware is written off [years]."""
    host_usd: float = 30000.0
    """Server without GPUs: chassis, CPUs, RAM, NICs [USD] (a default)."""
    idle_power_share: float = 0.3
    """Share of TDP a GPU draws when idle [0-1] (a default)."""
    gpu_price_usd: Mapping[str, float] = field(default_factory=dict)
    """Per-model price overrides [USD per GPU]; missing models use the catalog price."""
    network: Network = field(default_factory=Network)
    today_method: str = "passthrough"
    """How the estate shares its GPUs today (a method's id: ``passthrough``, ``vgpu``, ...); the
    recommended plan is compared with that single-method plan."""
    max_slowdown: float = 1.5
    """Longest runtime over bare metal a workload class accepts unless its row sets its own [-]
    (1.5 = up to 50 % slower; a default, edit it)."""
    ai_enterprise_usd_per_gpu_year: float = 0.0
    """NVIDIA AI Enterprise per GPU per year for Kubernetes sharing methods [USD]; 0 when the
    cluster runs the open-source device plugin or HAMi without it (set it if you license NVAIE)."""
    shortfall: Shortfall = Shortfall.INSTANCES
    """When the inventory cannot hold everything: priority 1 first, then, within the last
    priority that fits only in part, the most instances served (default) or the most GPU
    capacity allocated."""
    time_limit_s: float = 5.0
    """Wall-time limit for exact (MILP) solves per method [s]."""
    performance_constants: Mapping[str, float] = field(default_factory=dict)
    """Overrides of the slowdown model's constants by name (``CONSTANTS`` of
    ``planner.measure.performance``, each in that constant's unit); missing names use the
    model's default."""
