"""The method registry: one contract per method, platforms, and the one eligibility rule."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from planner.assumptions import Assumptions, VgpuMode
from planner.inputs.catalog import load_catalog
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadKind
from planner.methods.contract import GpuDemand, SharingMethod
from planner.methods.registry import METHODS, Method, host_reason, methods_for, workload_reason
from planner.solve.packing import instances_of, packing_gpus, plan_method
from tests.builders import NIGHT, OFFICE, host, scenario_of, workload

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


@pytest.mark.parametrize(
    ("platform", "said"),
    [
        (Platform.KUBERNETES, "(Kubernetes restarts a pod elsewhere)"),
        (Platform.BARE_METAL, "(a process is stopped and started again on another host)"),
    ],
)
def test_the_live_migration_refusal_says_what_the_platform_does_instead(
    platform: Platform, said: str
) -> None:
    """Only Kubernetes restarts pods; bare metal has no orchestrator to name."""
    mobile = workload("m", needs_live_migration=True)
    reason = platform.workload_reason(mobile)
    assert reason is not None
    assert reason.endswith(said)


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


def _fewest_gpus(demand: GpuDemand, counts: dict[str, int]) -> int:
    """The fewest GPUs the demand rows allow for ``counts`` instances per class (by MILP)."""
    needed = [
        sum(counts[c] * demand.use[c][d] for c in counts) for d in range(len(demand.dimensions))
    ]
    result = milp(
        c=np.ones(len(demand.patterns)),
        constraints=[LinearConstraint(np.array(demand.patterns).T, lb=needed, ub=np.inf)],
        integrality=np.ones(len(demand.patterns)),
        bounds=Bounds(0, np.inf),
    )
    assert result.status == 0
    return round(result.fun)


@pytest.mark.parametrize("method", list(Method))
@pytest.mark.parametrize("mode", list(VgpuMode))
def test_gpu_demand_bounds_the_packers_and_exact_rows_are_met(
    method: Method, mode: VgpuMode
) -> None:
    """The GPUs the demand rows allow never exceed what the exact packer uses; rows marked
    exact are met by it, so the recommended plan's MILP neither over- nor under-counts."""
    model = CATALOG.gpus["A100-80GB-PCIe"]
    assumptions = Assumptions(vgpu_mode=mode)
    classes = [
        workload("small", instances=9, gpus=0.1, memory_gib=9, schedule=OFFICE),
        workload("mid", instances=5, gpus=0.3, memory_gib=19, schedule=NIGHT),
        workload("big", instances=3, gpus=0.5, memory_gib=38),
        workload("pair", instances=2, gpus=2, memory_gib=100),
    ]
    rules = METHODS[method]
    demand = rules.gpu_demand(classes, model, CATALOG, assumptions)
    eligible = [w for w in classes if w.name in demand.use]
    assert eligible
    instances = instances_of(eligible)
    packing = rules.pack_exact(instances, model, CATALOG, assumptions)
    fewest = _fewest_gpus(demand, {w.name: w.instances for w in eligible})
    assert fewest <= packing_gpus(packing)
    if demand.exact:
        assert fewest == packing_gpus(packing)
