"""The cluster inventory: GPU hosts, grouped into clusters, as the user owns them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Host", "Inventory", "ServerType"]


@dataclass(frozen=True)
class Host:
    """One physical GPU server."""

    name: str
    cluster: str
    gpu_model: str
    """Catalog name of the GPU model; all GPUs of a host are of one model."""
    gpus: int
    """GPUs in the host."""
    cpu_cores: float
    """Cores available to workloads [cores]."""
    ram_gib: float
    """Memory available to workloads [GiB]."""
    network_gbps: float
    """Network bandwidth per host [Gbit/s]."""
    rdma: bool
    """The host has an RDMA-capable NIC (needed for a low-latency remote pool)."""
    mig_enabled: bool
    """MIG mode is on for the host's GPUs (only meaningful on MIG-capable models)."""


@dataclass(frozen=True)
class ServerType:
    """A server to buy when sizing a cluster: one host's shape, without a name."""

    gpu_model: str
    gpus: int
    cpu_cores: float
    ram_gib: float
    network_gbps: float = 100.0
    rdma: bool = True
    mig_enabled: bool = True

    def host(self, index: int, cluster: str = "sized") -> Host:
        """The ``index``-th host of this type (0-based), named ``sized-001`` and so on."""
        return Host(
            name=f"{cluster}-{index + 1:03d}",
            cluster=cluster,
            gpu_model=self.gpu_model,
            gpus=self.gpus,
            cpu_cores=self.cpu_cores,
            ram_gib=self.ram_gib,
            network_gbps=self.network_gbps,
            rdma=self.rdma,
            mig_enabled=self.mig_enabled,
        )


@dataclass(frozen=True)
class Inventory:
    """Every host the user owns, one entry per physical host (groups are expanded)."""

    hosts: tuple[Host, ...]

    @property
    def gpu_count(self) -> int:
        """GPUs in all hosts."""
        return sum(h.gpus for h in self.hosts)

    def gpus_by_model(self) -> dict[str, int]:
        """GPU count per catalog model, in first-seen order."""
        counts: dict[str, int] = {}
        for host in self.hosts:
            counts[host.gpu_model] = counts.get(host.gpu_model, 0) + host.gpus
        return counts
