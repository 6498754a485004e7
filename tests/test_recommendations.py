"""Tests of recommendations: the cheapest single method per class, within its rules and limits."""

from __future__ import annotations

import dataclasses

import pytest

from planner.assumptions import Assumptions
from planner.inputs.workloads import WorkloadKind
from planner.methods.registry import Method
from planner.output.recommendations import (
    recommendations,
    recommendations_frame,
    ruled_out_reason,
)
from planner.output.report import ScenarioPlan, assemble
from tests.report_fixtures import notebook_plans, notebooks, place, plan, scenario, workload


@pytest.fixture(scope="module")
def notebook_plan() -> ScenarioPlan:
    return assemble(notebooks(), notebook_plans())


def test_recommends_cheapest_method_placing_everything(notebook_plan: ScenarioPlan) -> None:
    """Among methods placing the whole class, the lowest cost per unit of work is recommended."""
    (rec,) = recommendations(notebook_plan)
    # MIG leaves one notebook out; vGPU places all four on one GPU, far cheaper than passthrough.
    assert rec.method is Method.VGPU
    assert "all 4 placed" in rec.reason
    assert "Passthrough" in rec.reason
    assert "Places fewer: MIG 3 of 4" in rec.reason


def test_too_slow_sharing_is_not_recommended() -> None:
    """Busy notebooks time-sliced four ways run beyond 1.5× bare metal; passthrough is chosen."""
    sp = assemble(notebooks(WorkloadKind.NOTEBOOK, busy=0.3), notebook_plans())
    (rec,) = recommendations(sp)
    assert rec.method is Method.PASSTHROUGH
    assert "Too slow: vGPU" in rec.reason
    # Accepting any slowdown brings back the cheaper vGPU.
    lenient_scenario = dataclasses.replace(sp.scenario, assumptions=Assumptions(max_slowdown=10.0))
    (lenient,) = recommendations(dataclasses.replace(sp, scenario=lenient_scenario))
    assert lenient.method is Method.VGPU


def test_a_class_limit_overrides_the_default_slowdown_limit() -> None:
    """A class whose own max_slowdown accepts the time-sliced figure gets the cheaper vGPU."""
    busy = notebooks(WorkloadKind.NOTEBOOK, busy=0.3)
    relaxed = dataclasses.replace(busy.workloads[0], max_slowdown=10.0)
    sp = assemble(dataclasses.replace(busy, workloads=(relaxed,)), notebook_plans())
    (rec,) = recommendations(sp)
    assert rec.method is Method.VGPU


def test_rules_rule_methods_out(notebook_plan: ScenarioPlan) -> None:
    """A class is ruled out of a method by the one eligibility rule: live migration bars
    passthrough, isolation bars vGPU, not tolerating the network bars the pool."""
    sp = dataclasses.replace(
        notebook_plan,
        results=(
            *notebook_plan.results,
            *assemble(notebooks(), [plan(Method.REMOTE_POOL, [])]).results,
        ),
    )
    results = {r.plan.method: r for r in sp.results}
    mobile = workload("m", needs_live_migration=True)
    isolated = workload("i", needs_isolation=True)
    local = workload("l", latency_tolerant=False)
    assert ruled_out_reason(mobile, results[Method.PASSTHROUGH], sp) is not None
    assert ruled_out_reason(mobile, results[Method.VGPU], sp) is None
    assert ruled_out_reason(isolated, results[Method.VGPU], sp) is not None
    assert ruled_out_reason(isolated, results[Method.REMOTE_POOL], sp) is not None
    assert ruled_out_reason(isolated, results[Method.MIG], sp) is None
    assert ruled_out_reason(local, results[Method.REMOTE_POOL], sp) is not None
    assert ruled_out_reason(local, results[Method.PASSTHROUGH], sp) is None


def test_isolated_class_is_not_sent_to_cheaper_vgpu() -> None:
    """A class needing isolation gets MIG or passthrough even when vGPU would be cheaper."""
    s = scenario([workload("nb", instances=4, gpus=0.25, memory_gib=20.0, needs_isolation=True)])
    sp = assemble(s, notebook_plans())
    (rec,) = recommendations(sp)
    assert rec.method in (Method.MIG, Method.PASSTHROUGH)
    assert any("vGPU" in r and "isolation" in r for r in rec.ruled_out)


def test_no_method_possible_says_why() -> None:
    """When every planned method is ruled out, no method is recommended and the rules are given."""
    s = scenario([workload("x", needs_isolation=True, latency_tolerant=False)])
    sp = assemble(s, [plan(Method.VGPU, [], lower_bound_gpus=0)])
    frame = recommendations_frame(sp)
    assert frame.loc[0, "method"] == ""
    assert "isolation" in frame.loc[0, "reason"]


def test_rule_breaking_placement_is_flagged() -> None:
    """If a plan places a class its rules bar (a looser packer rule), the recommendation says so."""
    local = workload("nb", instances=4, gpus=0.25, memory_gib=20.0, latency_tolerant=False)
    pooled = plan(Method.REMOTE_POOL, [place(f"nb#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2)])
    (rec,) = recommendations(assemble(scenario([local]), [*notebook_plans(), pooled]))
    assert rec.method is not Method.REMOTE_POOL
    assert any("placed 2 anyway" in r for r in rec.ruled_out)
