"""Tests of comparing two scenarios' plans: figures per plan, changes, plans only one side has."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import load_workloads
from planner.methods.registry import Method
from planner.output.comparison import COMPARISON_COLUMNS, KEY_FIGURES, compare_plans
from planner.output.report import ScenarioPlan, plan_scenario
from planner.scenario import Scenario

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


@pytest.fixture(scope="module")
def sample() -> Scenario:
    catalog = load_catalog()
    return Scenario(
        catalog=catalog,
        inventory=load_inventory(SAMPLE / "inventory.csv", catalog).value,
        workloads=tuple(load_workloads(SAMPLE / "workloads.csv", catalog).value),
    )


def _plan(scenario: Scenario, *methods: str) -> ScenarioPlan:
    return plan_scenario(scenario, methods=tuple(Method(m) for m in methods))


def test_figures_and_changes_match_each_plan(sample: Scenario) -> None:
    """Each row holds both plans' figure and second minus first; half the mix needs fewer GPUs."""
    half = dataclasses.replace(sample, workloads=sample.workloads[: len(sample.workloads) // 2])
    first, second = _plan(sample, "vgpu"), _plan(half, "vgpu")
    frame = compare_plans(first, second)
    assert list(frame.columns) == list(COMPARISON_COLUMNS)
    assert len(frame) == len(first.results) * len(KEY_FIGURES)
    assert list(dict.fromkeys(frame["plan"])) == [r.label for r in first.results]
    vgpu = first.result(Method("vgpu")), second.result(Method("vgpu"))
    row = frame[(frame["plan"] == vgpu[0].label) & (frame["figure"] == "GPUs used")].iloc[0]
    assert (row["first"], row["second"]) == (vgpu[0].metrics.gpus_used, vgpu[1].metrics.gpus_used)
    assert row["change"] == row["second"] - row["first"] < 0
    assert row["change_pct"] == pytest.approx(row["change"] / row["first"])
    cost = frame[frame["figure"] == "Annual cost [USD/year]"].iloc[0]
    assert cost["first"] == first.results[0].cost.total_usd_per_year


def test_a_plan_only_one_scenario_has_is_missing_on_the_other(sample: Scenario) -> None:
    """A method planned only for the second scenario has no first value and no change."""
    frame = compare_plans(_plan(sample, "vgpu"), _plan(sample, "vgpu", "passthrough"))
    label = Method("passthrough").label
    rows = frame[frame["plan"] == label]
    assert len(rows) == len(KEY_FIGURES)
    assert rows["first"].map(math.isnan).all()
    assert rows["change"].map(math.isnan).all()
    assert not rows["second"].map(math.isnan).all()
