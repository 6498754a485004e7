"""The platform a host runs: a hypervisor (vSphere), Kubernetes nodes, or a bare-metal OS.

The platform decides which sharing methods apply to a host (each method lists its platforms) and
what can run there at all: virtual desktops are VMs and need a hypervisor, and only a hypervisor
moves a running workload to another host (vMotion). Kubernetes reschedules a pod by restarting it,
and a bare-metal process cannot move.
"""

from __future__ import annotations

from enum import StrEnum

from planner.inputs.tabular import CellError
from planner.inputs.workloads import WorkloadClass, WorkloadKind

__all__ = ["DEFAULT_PLATFORM", "Platform", "parse_platform"]


class Platform(StrEnum):
    """What runs on a GPU host."""

    VSPHERE = "vsphere"
    """VMware ESXi: VMs with passthrough, vGPU or MIG-backed vGPU; remote-pool GPU servers."""
    KUBERNETES = "kubernetes"
    """Kubernetes nodes with NVIDIA's device plugin or GPU Operator: pods, not VMs."""
    BARE_METAL = "bare-metal"
    """A plain operating system running processes or containers without an orchestrator."""

    @property
    def label(self) -> str:
        return {
            Platform.VSPHERE: "vSphere",
            Platform.KUBERNETES: "Kubernetes",
            Platform.BARE_METAL: "bare metal",
        }[self]

    def workload_reason(self, workload: WorkloadClass) -> str | None:
        """Why an instance of ``workload`` cannot run on a host of this platform; None if it can."""
        if self is Platform.VSPHERE:
            return None
        if workload.kind is WorkloadKind.VDI:
            return f"a virtual desktop is a VM, and {self.label} hosts run no VMs"
        if workload.needs_live_migration:
            # Kubernetes reschedules a pod by restarting it; a bare-metal process just stops.
            moved = (
                "Kubernetes restarts a pod elsewhere"
                if self is Platform.KUBERNETES
                else "a process is stopped and started again on another host"
            )
            return (
                f"the workload needs live migration, and on {self.label} a running workload "
                f"cannot move to another host ({moved})"
            )
        return None


DEFAULT_PLATFORM = Platform.VSPHERE
"""The platform of a host whose inventory row names none."""

_ALIASES = {
    "vsphere": Platform.VSPHERE,
    "vmware": Platform.VSPHERE,
    "esxi": Platform.VSPHERE,
    "kubernetes": Platform.KUBERNETES,
    "k8s": Platform.KUBERNETES,
    "openshift": Platform.KUBERNETES,
    "rke2": Platform.KUBERNETES,
    "bare_metal": Platform.BARE_METAL,
    "baremetal": Platform.BARE_METAL,
    "metal": Platform.BARE_METAL,
    "linux": Platform.BARE_METAL,
}


def parse_platform(text: str) -> Platform:
    """A platform from an inventory cell: ``vsphere``, ``kubernetes`` or ``bare-metal`` (case,
    spaces and dashes ignored; ``k8s``, ``esxi``, ``openshift`` and ``linux`` also work); an
    empty cell is ``DEFAULT_PLATFORM``. Raises ``CellError`` naming the accepted values."""
    cleaned = text.strip().lower().replace("-", "_").replace(" ", "_")
    if not cleaned:
        return DEFAULT_PLATFORM
    platform = _ALIASES.get(cleaned)
    if platform is None:
        allowed = ", ".join(p.value for p in Platform)
        raise CellError(f"'{text}' is not a platform", f"write one of {allowed}")
    return platform
