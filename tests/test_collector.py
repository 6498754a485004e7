"""Tests of planner.solve.collector: the cycle collector paused while plans are worked out."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from planner.inputs.catalog import load_catalog
from planner.measure.result import measure_plan
from planner.methods.registry import Method
from planner.solve import packing
from planner.solve.collector import collector_paused
from planner.solve.packing import plan_method
from tests.builders import host, scenario_of, workload


@pytest.fixture
def collecting() -> Iterator[None]:
    """The collector running, as in a fresh interpreter, and left so."""
    running = gc.isenabled()
    gc.enable()
    yield
    if not running:
        gc.disable()


def test_a_plan_is_packed_and_measured_with_the_collector_paused(
    collecting: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packing a method's plan and measuring it run with the cycle collector paused, and it
    runs again once each is done."""
    scenario = scenario_of(
        [],
        [host("h1", "L40S", 2)],
        [workload("nb", instances=3, gpus=0.25, memory_gib=8)],
        catalog=load_catalog(),
    )
    seen: list[bool] = []
    pack = packing.pack

    def watched_pack(*arguments: object, **keywords: object) -> object:
        seen.append(gc.isenabled())
        return pack(*arguments, **keywords)  # type: ignore[arg-type]

    monkeypatch.setattr(packing, "pack", watched_pack)
    plan = plan_method(Method.VGPU, scenario)

    assert seen
    assert not any(seen)
    assert gc.isenabled()
    assert measure_plan(plan, scenario).feasibility_violations == ()
    assert gc.isenabled()


def test_a_block_inside_another_leaves_the_collector_paused(collecting: None) -> None:
    """The inner block of two does not restart the collector the outer one paused, and an
    error inside a block still restarts it."""
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError, match="bad"), collector_paused():
        raise ValueError("bad")
    assert gc.isenabled()
