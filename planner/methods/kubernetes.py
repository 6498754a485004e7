"""What the Kubernetes sharing methods share: whole nodes set up by NVIDIA's device plugin.

NVIDIA's device plugin (deployed alone or by the GPU Operator) applies one sharing configuration
to every GPU of a node: time-slicing or MPS replicas (``sharing.timeSlicing`` and ``sharing.mps``
of its config file), or MIG devices under one ``mig.strategy`` (NVIDIA k8s-device-plugin README:
"the same sharing method is applied to all GPUs on a node"). So each Kubernetes method sets up
whole nodes (``RoleScope.HOST``), runs on Kubernetes nodes only, and a pod's CPU and memory
requests count on its node. The plugin and the GPU Operator are open source: no licence is
charged unless the user says the nodes carry NVIDIA AI Enterprise (``AI_ENTERPRISE``, a
setting every Kubernetes method of the device plugin lists).
"""

from __future__ import annotations

from typing import Any, ClassVar

from planner.assumptions import Assumptions, Setting, setting
from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.platform import Platform
from planner.methods.contract import RoleScope, SharingMethod

__all__ = ["AI_ENTERPRISE", "KubernetesMethod", "mig_mode_reason"]

AI_ENTERPRISE = setting(
    "kubernetes_ai_enterprise", False, "AI Enterprise licence on Kubernetes", "yes/no",
    "charge the NVIDIA AI Enterprise licence per GPU in use on Kubernetes nodes; off by "
    "default, as NVIDIA's device plugin and GPU Operator are open source (Apache 2.0)",
    flag="--k8s-ai-enterprise",
)  # fmt: skip


def mig_mode_reason(host: Host, model: GpuModel, method: str) -> str | None:
    """Why ``method`` (shared whole GPUs) cannot run on ``host``: MIG mode is on, so the
    device plugin advertises MIG devices, not whole GPUs; None when MIG is off or absent."""
    if model.mig_capable and host.mig_enabled:
        return (
            f"MIG mode is on, so the device plugin hands out MIG devices, and {method} shares "
            "whole GPUs (switch MIG off on the node, or use MIG on Kubernetes)"
        )
    return None


class KubernetesMethod(SharingMethod):
    """A sharing method of NVIDIA's device plugin: whole Kubernetes nodes, pods' requests on
    their node, the NVIDIA AI Enterprise licence only when the user says so."""

    scope = RoleScope.HOST
    platforms = frozenset({Platform.KUBERNETES})
    instances_on_gpu_host = True
    own_settings: ClassVar[tuple[Setting[Any], ...]] = (AI_ENTERPRISE,)
    settings: ClassVar[tuple[str, ...]] = ("licence_usd_per_gpu_year",)

    def licence_usd_per_gpu_year(self, host: Host, assumptions: Assumptions) -> float:
        """NVIDIA AI Enterprise per GPU in use when ``kubernetes_ai_enterprise`` is on, else 0:
        the device plugin and GPU Operator are open source."""
        if AI_ENTERPRISE.of(assumptions):
            return assumptions.licence_usd_per_gpu_year
        return 0.0

    def cost_notes(self, assumptions: Assumptions) -> tuple[str, ...]:
        if AI_ENTERPRISE.of(assumptions):
            return ()
        return (
            "Kubernetes: no licence charged (NVIDIA's device plugin and GPU Operator are open "
            "source); switch on kubernetes_ai_enterprise to charge NVIDIA AI Enterprise per GPU.",
        )
