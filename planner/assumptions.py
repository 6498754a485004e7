"""Every assumption a plan rests on, each with a default the user can change."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "MAX_MPS_CLIENTS",
    "Assumptions",
    "MigStrategy",
    "Network",
    "VgpuMode",
    "VgpuScheduler",
    "VsphereVersion",
]


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


class MigStrategy(StrEnum):
    """How NVIDIA's device plugin (under the GPU Operator) exposes MIG devices on Kubernetes
    nodes, its ``mig.strategy`` (NVIDIA k8s-device-plugin README, MIG support)."""

    SINGLE = "single"
    """Every GPU of a node is split into MIG devices of one profile, advertised as
    ``nvidia.com/gpu``: one profile per node."""
    MIXED = "mixed"
    """Any MIG layout per GPU, each profile its own resource (``nvidia.com/mig-1g.10gb``)."""


MAX_MPS_CLIENTS = 48
"""Client CUDA contexts one GPU serves under Volta MPS and later [clients/GPU] (NVIDIA's MPS
documentation, limitations)."""


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
    time_limit_s: float = 5.0
    """Wall-time limit for exact (MILP) solves per method [s]."""
    performance_constants: Mapping[str, float] = field(default_factory=dict)
    """Overrides of the slowdown model's constants by name (``CONSTANTS`` of
    ``planner.measure.performance``, each in that constant's unit); missing names use the
    model's default."""

    # Kubernetes sharing methods: NVIDIA's device plugin and GPU Operator set up whole nodes.
    kubernetes_ai_enterprise: bool = False
    """Charge the NVIDIA AI Enterprise licence (``licence_usd_per_gpu_year``) per GPU in use on
    Kubernetes nodes; off by default, as the device plugin and GPU Operator are open source."""
    time_slicing_replicas: int = 4
    """Pods one GPU serves under time-slicing, ``sharing.timeSlicing.resources[].replicas`` of
    NVIDIA's device plugin [pods/GPU] (NVIDIA's examples use 4 to 10; a default, edit it)."""
    mps_replicas: int = 4
    """Pods one GPU serves under MPS, ``sharing.mps.resources[].replicas`` of NVIDIA's device
    plugin; each gets 1/replicas of the GPU's memory and compute [pods/GPU] (a default)."""

    kubernetes_mig_strategy: MigStrategy = MigStrategy.MIXED
    """The GPU Operator's ``mig.strategy`` on Kubernetes nodes with MIG on (a default)."""

    def __post_init__(self) -> None:
        for name in ("time_slicing_replicas", "mps_replicas"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(
                    f"{name} must be a whole number of pods per GPU, at least 1, got {value!r}"
                )
        if self.mps_replicas > MAX_MPS_CLIENTS:
            raise ValueError(
                f"mps_replicas must be at most {MAX_MPS_CLIENTS} (Volta MPS clients per GPU), "
                f"got {self.mps_replicas}"
            )
