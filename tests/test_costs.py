"""Tests of planner.measure.costs: golden values with a tolerance, licences per method, notes."""

from __future__ import annotations

import dataclasses

import pytest

from planner.assumptions import Assumptions
from planner.inputs.platform import Platform
from planner.measure.costs import (
    amortised_usd_per_year,
    gpu_power_w,
    gpu_usd_per_year,
    plan_cost,
    power_usd_per_year,
    workload_usd_per_instance_year,
)
from planner.methods.registry import Method
from planner.plan import MethodPlan
from planner.scenario import Scenario
from tests.report_fixtures import host, place, plan, scenario, workload


def test_power_golden_value() -> None:
    """350 W at 50 % busy, 30 % idle share, PUE 1.5, $0.15/kWh costs $448.40 a year."""
    watts = gpu_power_w(350.0, 0.5, 0.3)
    assert watts == pytest.approx(227.5)
    assert power_usd_per_year(watts, 1.5, 0.15) == pytest.approx(448.4, abs=0.1)


def test_idle_gpu_draws_idle_share_of_tdp() -> None:
    """An idle GPU draws idle share × TDP; a fully busy one draws its TDP."""
    assert gpu_power_w(700.0, 0.0, 0.3) == pytest.approx(210.0)
    assert gpu_power_w(700.0, 1.0, 0.3) == pytest.approx(700.0)


def test_amortisation_rejects_non_positive_years() -> None:
    """Amortising over zero years is refused with the argument named."""
    assert amortised_usd_per_year(40000.0, 4.0) == pytest.approx(10000.0)
    with pytest.raises(ValueError, match="amortisation_years"):
        amortised_usd_per_year(40000.0, 0.0)


def test_licence_rules_per_method() -> None:
    """vGPU always needs a licence; MIG only as MIG-backed vGPU on vSphere; passthrough and the
    pool never."""
    backed, plain = Assumptions(licence_usd_per_gpu_year=4500.0), Assumptions(mig_backed_vgpu=False)
    vsphere = host("h1")
    metal = dataclasses.replace(vsphere, platform=Platform.BARE_METAL)
    vgpu_licence = Method.VGPU.rules.licence_usd_per_gpu_year(vsphere, plain)
    assert vgpu_licence == plain.licence_usd_per_gpu_year
    assert Method.MIG.rules.licence_usd_per_gpu_year(vsphere, backed) == 4500.0
    assert Method.MIG.rules.licence_usd_per_gpu_year(metal, backed) == 0.0
    assert Method.MIG.rules.licence_usd_per_gpu_year(vsphere, plain) == 0.0
    assert Method.PASSTHROUGH.rules.licence_usd_per_gpu_year(vsphere, backed) == 0.0
    assert Method.REMOTE_POOL.rules.licence_usd_per_gpu_year(vsphere, backed) == 0.0


def _two_gpu_plan(method: Method) -> tuple[MethodPlan, Scenario]:
    job = workload("job", instances=2, gpus=1.0, busy_fraction=0.5, memory_gib=80.0)
    p = plan(
        method,
        [
            place("job#1", "h1", 0, profile="whole GPU", memory_gib=80.0),
            place("job#2", "h1", 1, profile="whole GPU", memory_gib=80.0),
        ],
    )
    return p, scenario([job])


def test_vgpu_plan_cost_golden() -> None:
    """Two H100s ($30k each) on one $30k host over 4 years, 2 licences, 50 % busy: golden sums."""
    p, s = _two_gpu_plan(Method.VGPU)
    cost = plan_cost(p, s)
    assert cost.hardware_usd_per_year == pytest.approx((2 * 30000 + 30000) / 4)
    assert cost.licences_usd_per_year == pytest.approx(2 * 4500)
    assert cost.power_usd_per_year == pytest.approx(2 * 448.4, abs=0.2)
    assert cost.network_usd_per_year == 0.0
    assert cost.total_usd_per_year == pytest.approx(22500 + 9000 + 896.8, abs=0.5)
    assert cost.usd_per_instance_year == pytest.approx(cost.total_usd_per_year / 2)


def test_remote_pool_pays_network_and_notes_its_licence() -> None:
    """The remote pool pays network per GPU server, no vGPU licence, and says its own licence."""
    p, s = _two_gpu_plan(Method.REMOTE_POOL)
    cost = plan_cost(p, s)
    assert cost.licences_usd_per_year == 0.0
    assert cost.network_usd_per_year == pytest.approx(3000.0)
    assert any("own licence" in n for n in cost.notes)


def test_price_override_replaces_catalog_price() -> None:
    """A user's GPU price override is used instead of the catalog's, and the default note goes."""
    p, s = _two_gpu_plan(Method.PASSTHROUGH)
    cheap = dataclasses.replace(
        s,
        assumptions=Assumptions(gpu_price_usd={"H100-80GB-PCIe": 10000.0}),
    )
    cost = plan_cost(p, cheap)
    assert cost.hardware_usd_per_year == pytest.approx((2 * 10000 + 30000) / 4)
    assert not any("street-price" in n for n in cost.notes)
    assert any("street-price" in n for n in plan_cost(p, s).notes)


def test_per_gpu_costs_sum_to_total() -> None:
    """Splitting the cost over GPUs loses nothing: the per-GPU figures sum to the plan total."""
    for method in Method:
        p, s = _two_gpu_plan(method)
        per_gpu = gpu_usd_per_year(p, s)
        total = plan_cost(p, s).total_usd_per_year
        assert sum(per_gpu.values()) == pytest.approx(total)


def test_empty_plan_costs_nothing_and_has_no_per_instance_cost() -> None:
    """A plan using no GPU costs nothing, and cost per instance is undefined (None)."""
    cost = plan_cost(plan(Method.VGPU, []), scenario([workload("a")]))
    assert cost.total_usd_per_year == 0.0
    assert cost.usd_per_instance_year is None


def test_workload_shares_split_gpu_cost_by_reserved_memory() -> None:
    """Classes sharing a GPU split its cost by reserved memory; the shares sum to the total."""
    small = workload("small", instances=2, gpus=0.25, memory_gib=20.0)
    big = workload("big", gpus=0.5, memory_gib=40.0)
    p = plan(
        Method.VGPU,
        [
            place("small#1", "h1", 0, memory_gib=20.0),
            place("small#2", "h1", 0, memory_gib=20.0),
            place("big#1", "h1", 0, memory_gib=40.0),
        ],
    )
    s = scenario([small, big])
    shares = workload_usd_per_instance_year(p, s)
    total = plan_cost(p, s).total_usd_per_year
    assert shares["big"] == pytest.approx(total / 2)
    assert shares["small"] == pytest.approx(total / 4)
    assert 2 * shares["small"] + shares["big"] == pytest.approx(total)
