"""Tests of planner.performance: the seed shape, each method's rule, the constants table."""

from __future__ import annotations

import dataclasses

import pytest

from planner.assumptions import Assumptions, Network, VgpuScheduler
from planner.performance import (
    CONSTANTS,
    co_busy_share,
    constants_frame,
    mig_slowdown,
    remote_pool_slowdown,
    slowdowns,
    vgpu_slowdown,
)
from planner.plan import Method
from planner.workloads import WorkloadKind
from tests.report_fixtures import NIGHT, OFFICE, place, plan, scenario, workload


def test_remote_pool_reproduces_seed_slide() -> None:
    """Three always-busy training jobs on one pooled GPU: each ~17 % slower, 2.5–3× throughput."""
    job = workload("job", instances=3, gpus=1.0, memory_gib=20.0, busy_fraction=1.0)
    s = scenario([job])
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    (result,) = slowdowns(p, s)
    assert result.slowdown == pytest.approx(1.17, abs=0.005)
    aggregate_throughput = 3 / result.slowdown
    assert 2.5 <= aggregate_throughput <= 3.0


def test_remote_pool_alone_pays_only_the_network() -> None:
    """A lone job in the pool is slowed by the network only, more over TCP and higher latency."""
    rdma = remote_pool_slowdown(WorkloadKind.TRAINING, [], Network())
    assert rdma == pytest.approx(1.05)
    tcp = remote_pool_slowdown(WorkloadKind.TRAINING, [], Network(rdma=False))
    far = remote_pool_slowdown(WorkloadKind.TRAINING, [], Network(latency_us=50.0))
    assert tcp > rdma
    assert far > rdma
    chatty = remote_pool_slowdown(WorkloadKind.INFERENCE, [], Network())
    assert chatty > rdma


def test_passthrough_is_bare_metal() -> None:
    """Passthrough runs at bare-metal speed: slowdown exactly 1."""
    job = workload("job")
    p = plan(Method.PASSTHROUGH, [place("job#1", "h1", 0, profile="whole GPU", memory_gib=80.0)])
    (result,) = slowdowns(p, scenario([job]))
    assert result.slowdown == 1.0


def test_mig_speed_follows_compute_slices() -> None:
    """MIG: a quarter-GPU job on a 1g slice (1/7) runs 1.75× slower; on 2g (2/7) at full speed."""
    assert mig_slowdown(0.25, 1 / 7) == pytest.approx(1.75)
    assert mig_slowdown(0.25, 2 / 7) == 1.0


def test_mig_ignores_busy_neighbours() -> None:
    """MIG is hardware isolated: a busy neighbour on the same GPU does not change the slowdown."""
    a = workload("a", gpus=0.25, memory_gib=10.0)
    b = workload("b", gpus=1.0, memory_gib=40.0, busy_fraction=1.0)
    alone = plan(Method.MIG, [place("a#1", "h1", 0, memory_gib=10.0, compute_share=1 / 7)])
    shared = plan(
        Method.MIG,
        [
            place("a#1", "h1", 0, memory_gib=10.0, compute_share=1 / 7),
            place("b#1", "h1", 0, memory_gib=40.0, compute_share=3 / 7),
        ],
    )
    s = scenario([a, b])
    assert slowdowns(alone, s)[0].slowdown == pytest.approx(slowdowns(shared, s)[0].slowdown)


def test_vgpu_alone_within_mlperf_range() -> None:
    """A lone vGPU runs at 94.4–100 % of bare metal (VMware MLPerf v1.1)."""
    speed = 1.0 / vgpu_slowdown(WorkloadKind.INFERENCE, [])
    assert 0.944 <= speed <= 1.0


def test_vgpu_best_effort_slows_with_busy_coresidents() -> None:
    """Best effort: busier co-residents slow a vGPU more; idle ones cost little."""
    idle = vgpu_slowdown(WorkloadKind.TRAINING, [0.01, 0.01, 0.01])
    busy = vgpu_slowdown(WorkloadKind.TRAINING, [0.9, 0.9, 0.9])
    assert idle < 1.1
    assert busy > 3.5


def test_vgpu_equal_share_gives_each_its_slice() -> None:
    """Equal share: four resident vGPUs each get a quarter of the time, even if others idle."""
    assert vgpu_slowdown(
        WorkloadKind.TRAINING, [0.0, 0.0, 0.0], scheduler=VgpuScheduler.EQUAL_SHARE
    ) == pytest.approx(4.0 / 0.972)
    fixed = vgpu_slowdown(
        WorkloadKind.TRAINING, [], scheduler=VgpuScheduler.FIXED_SHARE, fixed_slots=5
    )
    assert fixed == pytest.approx(5.0 / 0.972)


def test_small_kernels_suffer_most_under_vgpu_load() -> None:
    """Under load, notebooks' small kernels slow far more than large matrix training (Colfax)."""
    training = vgpu_slowdown(WorkloadKind.TRAINING, [0.5])
    notebook = vgpu_slowdown(WorkloadKind.NOTEBOOK, [0.5])
    assert notebook > 1.5 * training


def test_schedules_that_never_meet_do_not_contend() -> None:
    """A night batch job never busy while an office-hours notebook runs adds no contention."""
    notebook = workload("nb", kind=WorkloadKind.NOTEBOOK, schedule=OFFICE)
    night = workload("batch", kind=WorkloadKind.BATCH, schedule=NIGHT, busy_fraction=1.0)
    assert co_busy_share(notebook, night) == 0.0
    same = workload("nb2", kind=WorkloadKind.NOTEBOOK, schedule=OFFICE, busy_fraction=0.4)
    assert co_busy_share(notebook, same) == pytest.approx(0.4)


def test_scheduler_assumption_reaches_the_plan_slowdowns() -> None:
    """The scenario's vGPU scheduler is the one the plan's slowdowns use."""
    nb = workload("nb", kind=WorkloadKind.NOTEBOOK, instances=2, gpus=1.0, busy_fraction=0.1)
    p = plan(Method.VGPU, [place(f"nb#{i}", "h1", 0, memory_gib=40.0) for i in (1, 2)])
    best = scenario([nb])
    equal = dataclasses.replace(
        best, assumptions=Assumptions(vgpu_scheduler=VgpuScheduler.EQUAL_SHARE)
    )
    assert slowdowns(p, equal)[0].slowdown > slowdowns(p, best)[0].slowdown
    assert "equal-share" in slowdowns(p, equal)[0].note


def test_constants_table_names_every_source() -> None:
    """Every model constant shown to users has a value, a unit and a source."""
    assert "remote_interference" in CONSTANTS
    for constant in CONSTANTS.values():
        assert constant.source
        assert constant.unit
        assert constant.value >= 0


def test_fractional_request_is_measured_against_its_share() -> None:
    """A quarter-GPU vGPU sharing with three always-busy vGPUs gets its quarter: no contention
    slowdown beyond the time-slicing overheads; a whole-GPU request is slowed fourfold."""
    busy = [1.0, 1.0, 1.0]
    quarter = vgpu_slowdown(WorkloadKind.TRAINING, busy, asked_compute_share=0.25)
    whole = vgpu_slowdown(WorkloadKind.TRAINING, busy, asked_compute_share=1.0)
    assert quarter == pytest.approx(1.05 / 0.972)
    assert whole == pytest.approx(4 * 1.05 / 0.972)


def test_fractional_pool_tenants_below_saturation_pay_only_network() -> None:
    """Quarter-GPU pool tenants whose demand stays under one GPU pay only the network overhead."""
    slowdown = remote_pool_slowdown(
        WorkloadKind.TRAINING, [1.0, 1.0], Network(), asked_compute_share=0.25
    )
    assert slowdown == pytest.approx(1.05)


def test_constants_frame_lists_every_constant() -> None:
    """The constants table the UI shows has one row per model constant, value included."""
    frame = constants_frame()
    assert list(frame["constant"]) == list(CONSTANTS)
    row = frame.set_index("constant").loc["remote_interference"]
    assert row["value"] == pytest.approx(CONSTANTS["remote_interference"].value)


def test_fixed_share_uses_nvidias_maximum_per_profile() -> None:
    """Fixed share gives a vGPU 1 / (max vGPUs of its profile): H100 16C allows 6, not 80/16 = 5."""
    from planner.catalog import load_catalog

    job = workload("job", gpus=1.0, memory_gib=16.0)
    s = dataclasses.replace(
        scenario([job]),
        catalog=load_catalog(),
        assumptions=Assumptions(vgpu_scheduler=VgpuScheduler.FIXED_SHARE),
    )
    p = plan(Method.VGPU, [place("job#1", "h1", 0, profile="16C", memory_gib=16.0)])
    (result,) = slowdowns(p, s)
    assert result.slowdown == pytest.approx(6 / 0.972)
