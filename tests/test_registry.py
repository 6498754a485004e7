"""The method registry: one contract per method, platforms, and the one eligibility rule."""

from __future__ import annotations

import inspect

import pytest

from bench.fleets import host, scenario_of, workload
from planner.assumptions import Assumptions
from planner.inputs.catalog import load_catalog
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadKind
from planner.methods.contract import SharingMethod
from planner.methods.registry import METHODS, Method, host_reason, methods_for, workload_reason
from planner.solve.packing import plan_method

CATALOG = load_catalog()
H100 = CATALOG.gpus["H100-80GB-PCIe"]


def test_every_method_implements_the_whole_contract() -> None:
    """No registered method leaves an abstract method of the contract unimplemented."""
    for method, rules in METHODS.items():
        assert isinstance(rules, SharingMethod)
        assert not inspect.isabstract(type(rules)), method
        assert rules.label == method.label
        assert rules.platforms


def test_each_platform_gets_the_methods_that_can_set_it_up() -> None:
    """vSphere takes every vSphere method; Kubernetes at least whole GPUs; vGPU only vSphere."""
    assert Method.VGPU in methods_for(Platform.VSPHERE)
    assert Method.PASSTHROUGH in methods_for(Platform.KUBERNETES)
    assert Method.VGPU not in methods_for(Platform.KUBERNETES)
    assert Method.VGPU not in methods_for(Platform.BARE_METAL)


def test_host_reason_names_the_platform_a_method_needs() -> None:
    """A vGPU role on a Kubernetes node is refused, naming both platforms."""
    node = host("k1", H100.name, 4, platform=Platform.KUBERNETES)
    reason = host_reason(Method.VGPU, node, CATALOG)
    assert reason is not None
    assert "vSphere" in reason
    assert "Kubernetes" in reason
    assert host_reason(Method.PASSTHROUGH, node, CATALOG) is None


@pytest.mark.parametrize("platform", [Platform.KUBERNETES, Platform.BARE_METAL])
def test_desktops_and_live_migration_need_a_hypervisor(platform: Platform) -> None:
    """Off vSphere no method serves a virtual desktop or a workload that must live-migrate."""
    desktop = workload("d", kind=WorkloadKind.VDI)
    mobile = workload("m", needs_live_migration=True)
    for method in methods_for(platform):
        for needy in (desktop, mobile):
            args = (method, needy, H100, platform, CATALOG, Assumptions())
            assert workload_reason(*args) is not None


def test_a_model_list_is_part_of_the_one_rule() -> None:
    """A class restricted to other models is refused on this one, with the models named."""
    pinned = workload("p", gpu_models=["L40S"])
    reason = workload_reason(
        Method.PASSTHROUGH, pinned, H100, Platform.VSPHERE, CATALOG, Assumptions()
    )
    assert reason == "restricted to L40S, not H100-80GB-PCIe"


def test_packing_uses_only_hosts_whose_platform_the_method_serves() -> None:
    """vGPU packs on the vSphere host only; the Kubernetes node of the same model stays empty."""
    hosts = [
        host("vs", H100.name, 2),
        host("k8s", H100.name, 2, platform=Platform.KUBERNETES),
    ]
    scenario = scenario_of(
        [], hosts, [workload("nb", instances=8, gpus=0.25, memory_gib=10)], catalog=CATALOG
    )
    plan = plan_method(Method.VGPU, scenario)
    assert {p.host for p in plan.placements} == {"vs"}
    assert not plan.not_placed
