"""The registry of sharing methods: every method the planner knows, and the rules they share.

Adding a method is its module, one ``Method`` member and one ``METHODS`` entry here, its
catalog data and its tests; everything else loops over ``METHODS``. A method's own settings
(``SharingMethod.own_settings``) reach ``Assumptions``, the CLI, the workbook, saved scenarios
and the dashboard through ``declared_settings``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from planner.assumptions import Assumptions, Setting
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host, ServerType
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass
from planner.methods.contract import SharingMethod
from planner.methods.fractional import FRACTIONAL
from planner.methods.k8s_mig import K8S_MIG
from planner.methods.k8s_mps import K8S_MPS
from planner.methods.k8s_time_slicing import K8S_TIME_SLICING
from planner.methods.mig import MIG
from planner.methods.passthrough import PASSTHROUGH
from planner.methods.remote_pool import REMOTE_POOL
from planner.methods.vgpu import VGPU

__all__ = [
    "METHODS",
    "Method",
    "declared_settings",
    "host_reason",
    "methods_for",
    "server_for",
    "servers_for",
    "workload_reason",
]


class Method(StrEnum):
    """The ways to hand GPUs to workloads; ``METHODS`` holds each one's rules."""

    PASSTHROUGH = "passthrough"
    VGPU = "vgpu"
    MIG = "mig"
    REMOTE_POOL = "remote-pool"
    K8S_TIME_SLICING = "k8s-time-slicing"
    K8S_MPS = "k8s-mps"
    K8S_MIG = "k8s-mig"
    FRACTIONAL = "fractional"

    @property
    def rules(self) -> SharingMethod:
        """Everything the planner knows about the method (``planner.methods.contract``)."""
        return METHODS[self]

    @property
    def label(self) -> str:
        """Name of the method for people."""
        return METHODS[self].label


METHODS: Mapping[Method, SharingMethod] = MappingProxyType(
    {
        Method.PASSTHROUGH: PASSTHROUGH,
        Method.VGPU: VGPU,
        Method.MIG: MIG,
        Method.REMOTE_POOL: REMOTE_POOL,
        Method.K8S_TIME_SLICING: K8S_TIME_SLICING,
        Method.K8S_MPS: K8S_MPS,
        Method.K8S_MIG: K8S_MIG,
        Method.FRACTIONAL: FRACTIONAL,
    }
)
"""Every sharing method, in the order plans and charts list them."""


def host_reason(method: Method, host: Host, catalog: Catalog) -> str | None:
    """Why ``method`` cannot set up ``host`` at all; None when it can.

    The host's GPU model must be in the catalog and the host must have GPUs; the method must
    serve the host's platform; then the method's own rule (MIG mode on, vGPU profiles exist).
    """
    model = catalog.gpus.get(host.gpu_model)
    if model is None:
        return f"GPU model {host.gpu_model} is not in the catalog"
    if host.gpus <= 0:
        return "the host has no GPUs"
    rules = METHODS[method]
    if host.platform not in rules.platforms:
        served = ", ".join(sorted(p.label for p in rules.platforms))
        return f"{rules.label} runs on {served} hosts, and the host runs {host.platform.label}"
    return rules.unusable_host_reason(host, model)


def workload_reason(
    method: Method,
    workload: WorkloadClass,
    model: GpuModel,
    platform: Platform,
    catalog: Catalog,
    assumptions: Assumptions,
) -> str | None:
    """Why an instance of ``workload`` cannot use ``method`` on a ``platform`` host with ``model``
    GPUs; None when it can. The one eligibility rule packing, feasibility and recommendations use:
    the class's GPU-model list, the platform's rule (desktops and live migration need vSphere),
    then the method's own rule."""
    if workload.gpu_models and model.name not in workload.gpu_models:
        return f"restricted to {', '.join(workload.gpu_models)}, not {model.name}"
    return platform.workload_reason(workload) or METHODS[method].ineligible_reason(
        workload, model, catalog, assumptions
    )


def methods_for(platform: Platform) -> tuple[Method, ...]:
    """The methods that can set up a host of ``platform``, in registry order."""
    return tuple(m for m, rules in METHODS.items() if platform in rules.platforms)


def server_for(method: Method, server: ServerType) -> ServerType:
    """``server`` as bought for ``method``: on the type's own platform when the method serves it,
    else on the first platform the method serves. A server type is hardware and its platform a
    choice, so a cluster sized for a Kubernetes method runs Kubernetes."""
    served = METHODS[method].platforms
    if server.platform in served:
        return server
    return dataclasses.replace(server, platform=next(p for p in Platform if p in served))


def servers_for(methods: Iterable[Method], servers: Iterable[ServerType]) -> tuple[ServerType, ...]:
    """Each of ``servers`` as bought for each of ``methods`` (``server_for``), once each, by
    server then method: the types a sizing that mixes methods may buy."""
    chosen = tuple(methods)
    return tuple(dict.fromkeys(server_for(m, s) for s in servers for m in chosen))


def declared_settings() -> Mapping[str, Setting[Any]]:
    """Every setting the registered methods declare (``SharingMethod.own_settings``), by name,
    in registry order. ``ValueError`` when two different settings share a name, or a setting
    takes the name of a field of ``Assumptions``: either would make the name ambiguous."""
    fields = {f.name for f in dataclasses.fields(Assumptions)}
    found: dict[str, Setting[Any]] = {}
    for rules in METHODS.values():
        for setting in rules.own_settings:
            if setting.name in fields or found.setdefault(setting.name, setting) != setting:
                raise ValueError(
                    f"{rules.label} declares a setting named {setting.name}, a name another "
                    "setting or a field of Assumptions already has: give it another name"
                )
    return found
