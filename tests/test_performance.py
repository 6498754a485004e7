"""Tests of planner.measure.performance: the seed shape, each method's rule, the constants table."""

from __future__ import annotations

import dataclasses
import math

import pytest

from planner.assumptions import Assumptions, Network, VgpuScheduler
from planner.inputs.workloads import WorkloadKind
from planner.measure.performance import (
    CONSTANTS,
    check_performance_constants,
    co_busy_share,
    constant,
    constants_frame,
    slowdowns,
)
from planner.methods.mig import mig_slowdown
from planner.methods.registry import Method
from planner.methods.remote_pool import remote_pool_slowdown
from planner.methods.vgpu import vgpu_slowdown
from tests.report_fixtures import NIGHT, OFFICE, host, place, plan, scenario, workload


def test_remote_pool_reproduces_seed_slide() -> None:
    """Three training jobs, each ~30 % busy, on one pooled GPU: each ~17 % slower, and the GPU
    does ~2.5× the work of one such job per GPU (VMware's seed slide, read right)."""
    job = workload("job", instances=3, gpus=1.0, memory_gib=20.0, busy_fraction=0.3)
    s = scenario([job])
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    (result,) = slowdowns(p, s)
    assert result.slowdown == pytest.approx(1.17, abs=0.005)
    work_of_one_job_per_gpu = 3 / result.slowdown
    assert 2.5 <= work_of_one_job_per_gpu <= 3.0


def test_three_always_busy_jobs_on_one_pooled_gpu_each_run_three_times_slower() -> None:
    """A GPU never does more than one GPU of work: three always-busy whole-GPU jobs on one
    pooled GPU each take at least 3× as long, not the seed slide's 1.17×."""
    job = workload("job", instances=3, gpus=1.0, memory_gib=20.0, busy_fraction=1.0)
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    (result,) = slowdowns(p, scenario([job]))
    assert result.slowdown == pytest.approx(3.0)
    assert 3 / result.slowdown <= 1.0


def test_a_pooled_gpu_delivers_at_most_one_gpu_of_work() -> None:
    """Sixteen always-busy jobs on one pooled GPU share one GPU of work: each 16× slower."""
    job = workload("job", instances=16, gpus=1.0, memory_gib=4.0, busy_fraction=1.0)
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=4.0) for i in range(1, 17)])
    (result,) = slowdowns(p, scenario([job]))
    assert result.slowdown == pytest.approx(16.0)
    assert 16 / result.slowdown == pytest.approx(1.0)


def test_half_gpu_tenants_count_half_a_gpu_of_demand() -> None:
    """Eight always-busy half-GPU tenants ask 4 GPUs of work of one pooled GPU: each 4× slower."""
    half = workload("half", instances=8, gpus=0.5, memory_gib=4.0, busy_fraction=1.0)
    p = plan(Method.REMOTE_POOL, [place(f"half#{i}", "h1", 0, memory_gib=4.0) for i in range(1, 9)])
    (result,) = slowdowns(p, scenario([half]))
    assert result.slowdown == pytest.approx(4.0, rel=1e-6)


def test_a_gpu_server_without_rdma_pays_the_tcp_overhead() -> None:
    """RDMA end to end needs it on the GPU server too: a host without it costs the TCP factor."""
    job = workload("job", gpus=1.0, memory_gib=20.0)
    tcp_host = dataclasses.replace(host("h1"), rdma=False)
    p = plan(Method.REMOTE_POOL, [place("job#1", "h1", 0, memory_gib=20.0)])
    (over_tcp,) = slowdowns(p, scenario([job], hosts=[tcp_host]))
    (over_rdma,) = slowdowns(p, scenario([job]))
    assert over_rdma.slowdown == pytest.approx(1.05)
    assert over_tcp.slowdown == pytest.approx(
        remote_pool_slowdown(WorkloadKind.TRAINING, [], Network(rdma=False))
    )
    assert over_tcp.slowdown > over_rdma.slowdown


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
    """Every model constant shown to users has a unit, a source and a default in its own range."""
    assert "remote_interference" in CONSTANTS
    for known in CONSTANTS.values():
        assert known.source
        assert known.unit
        assert 0 <= known.minimum <= known.value <= known.maximum
        if known.is_guess:
            assert "guess" in known.source


def test_fractional_request_is_measured_against_its_share() -> None:
    """A quarter-GPU vGPU sharing with three always-busy quarter-GPU vGPUs gets its quarter: no
    contention slowdown beyond the time-slicing overheads; a whole-GPU request is slowed
    fourfold."""
    busy = [1.0, 1.0, 1.0]
    quarters = [0.25, 0.25, 0.25]
    quarter = vgpu_slowdown(
        WorkloadKind.TRAINING, busy, asked_compute_share=0.25, co_demand=quarters
    )
    whole = vgpu_slowdown(WorkloadKind.TRAINING, busy, asked_compute_share=1.0)
    assert quarter == pytest.approx(1.05 / 0.972)
    assert whole == pytest.approx(4 * 1.05 / 0.972)


def test_a_quarter_vgpu_beside_busy_whole_gpu_work_waits_for_the_gpu() -> None:
    """Three always-busy whole-GPU co-residents and a busy quarter-GPU vGPU ask 3.25 GPUs of one
    GPU: the quarter runs at least 3.25× slower, whatever its time-slice share says."""
    slowdown = vgpu_slowdown(WorkloadKind.TRAINING, [1.0, 1.0, 1.0], asked_compute_share=0.25)
    assert slowdown == pytest.approx(3.25)


def test_fractional_pool_tenants_below_saturation_pay_only_network() -> None:
    """Quarter-GPU pool tenants whose demand stays under one GPU pay only the network overhead."""
    slowdown = remote_pool_slowdown(
        WorkloadKind.TRAINING,
        [1.0, 1.0],
        Network(),
        asked_compute_share=0.25,
        co_demand=[0.25, 0.25],
    )
    assert slowdown == pytest.approx(1.05)


def test_constants_frame_lists_every_constant() -> None:
    """The constants table the UI shows has one row per model constant, value included."""
    frame = constants_frame()
    assert list(frame["constant"]) == list(CONSTANTS)
    row = frame.set_index("constant").loc["remote_interference"]
    assert row["value"] == pytest.approx(CONSTANTS["remote_interference"].value)
    assert not frame["is_overridden"].any()
    assert (frame["value"] == frame["default"]).all()


def test_constants_frame_shows_values_in_use_and_marks_overrides() -> None:
    """With an override, the table shows it as the value in use beside the default, marked."""
    frame = constants_frame(Assumptions(performance_constants={"no_rdma_factor": 3.0}))
    row = frame.set_index("constant").loc["no_rdma_factor"]
    assert (row["value"], row["default"]) == (3.0, 2.0)
    assert bool(row["is_overridden"])
    assert frame["is_overridden"].sum() == 1


def test_guessed_constants_are_marked_as_guesses() -> None:
    """The network overheads, the no-RDMA factor and notebooks under vGPU load are guesses;
    the MLPerf vGPU overhead and Colfax's large-matrix penalty are measured figures."""
    guess = constants_frame().set_index("constant")["is_guess"]
    assert guess["network_overhead_training"]
    assert guess["network_overhead_vdi"]
    assert guess["no_rdma_factor"]
    assert guess["vgpu_load_penalty_notebook"]
    assert not guess["vgpu_overhead"]
    assert not guess["vgpu_load_penalty_training"]


def test_constant_reads_the_override_else_the_default() -> None:
    """`constant` returns the user's value when set and the model's default otherwise."""
    given = Assumptions(performance_constants={"vgpu_load_penalty_notebook": 1.0})
    assert constant("vgpu_load_penalty_notebook", given) == 1.0
    assert constant("vgpu_load_penalty_notebook") == 2.0
    assert constant("no_rdma_factor", given) == 2.0


def test_lighter_notebook_penalty_lowers_vgpu_slowdown() -> None:
    """A notebook vGPU half the time beside a busy co-resident: 1.5 × 2 / 0.972 = 3.086 with the
    default 3× penalty, 1.5 × 1.5 / 0.972 = 2.315 when the user sets the penalty to 1.0."""
    default = vgpu_slowdown(WorkloadKind.NOTEBOOK, [0.5])
    lighter = vgpu_slowdown(
        WorkloadKind.NOTEBOOK, [0.5], performance_constants={"vgpu_load_penalty_notebook": 1.0}
    )
    assert default == pytest.approx(3.0 / 0.972)
    assert lighter == pytest.approx(2.25 / 0.972)


def test_no_rdma_factor_override_reaches_the_pool_slowdown() -> None:
    """Over TCP a lone training job pays 1 + 0.05 × factor: 1.10 by default, 1.15 at factor 3."""
    tcp = Network(rdma=False)
    assert remote_pool_slowdown(WorkloadKind.TRAINING, [], tcp) == pytest.approx(1.10)
    slower = remote_pool_slowdown(
        WorkloadKind.TRAINING, [], tcp, performance_constants={"no_rdma_factor": 3.0}
    )
    assert slower == pytest.approx(1.15)


def test_scenario_overrides_reach_the_plan_slowdowns() -> None:
    """Overrides in the scenario's assumptions drive `slowdowns`: κ = 0.3 makes three pooled
    training jobs, each 30 % busy, run 1.05 × (1 + 0.3 × 0.6) = 1.239 slower instead of the
    seed's 1.17."""
    job = workload("job", instances=3, gpus=1.0, memory_gib=20.0, busy_fraction=0.3)
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    given = scenario(
        [job], assumptions=Assumptions(performance_constants={"remote_interference": 0.3})
    )
    (result,) = slowdowns(p, given)
    assert result.slowdown == pytest.approx(1.239)


def test_seed_shape_holds_when_the_training_network_guess_changes() -> None:
    """κ left at its default follows the training network overhead: at 10 % a lone pooled job
    runs 1.10 slower and three 30 %-busy jobs still run the seed slide's 1.17."""
    given = Assumptions(performance_constants={"network_overhead_training": 0.10})
    job = workload("job", instances=3, gpus=1.0, memory_gib=20.0, busy_fraction=0.3)
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    (result,) = slowdowns(p, scenario([job], assumptions=given))
    assert result.slowdown == pytest.approx(1.17)
    lone = plan(Method.REMOTE_POOL, [place("job#1", "h1", 0, memory_gib=20.0)])
    assert slowdowns(lone, scenario([job], assumptions=given))[0].slowdown == pytest.approx(1.10)
    assert constant("remote_interference", given) < constant("remote_interference")
    shown = constants_frame(given).set_index("constant").loc["remote_interference"]
    assert shown["value"] == shown["default"] == constant("remote_interference", given)
    assert not shown["is_overridden"]


def test_unknown_constant_name_fails_with_the_known_names() -> None:
    """An override naming no constant is refused, naming it and listing the known constants."""
    with pytest.raises(ValueError, match=r"'network_overhead_train'.*network_overhead_training"):
        check_performance_constants({"network_overhead_train": 0.1})
    with pytest.raises(ValueError, match="unknown performance constant 'nope'"):
        constant("nope")
    job = workload("job")
    p = plan(Method.VGPU, [place("job#1", "h1", 0, memory_gib=40.0)])
    bad = scenario([job], assumptions=Assumptions(performance_constants={"typo": 1.0}))
    with pytest.raises(ValueError, match="unknown performance constant 'typo'"):
        slowdowns(p, bad)


@pytest.mark.parametrize(
    ("name", "value", "rule"),
    [
        ("network_overhead_vdi", -0.1, "at least 0"),
        ("vgpu_overhead", 0.9, "at least 1"),
        ("no_rdma_factor", 0.5, "at least 1"),
        ("remote_interference", 1.5, "at most 1"),
        ("reference_latency", 0.0, "at least 1"),
        ("vgpu_load_penalty_training", math.nan, "at least 0"),
        ("vgpu_load_penalty_training", math.inf, "at least 0"),
    ],
)
def test_out_of_range_override_fails_with_the_rule(name: str, value: float, rule: str) -> None:
    """An override outside its constant's range (or not finite) is refused with name and rule."""
    with pytest.raises(ValueError, match=rf"{name}.*{rule}"):
        check_performance_constants({name: value})


def test_fixed_share_uses_nvidias_maximum_per_profile() -> None:
    """Fixed share gives a vGPU 1 / (max vGPUs of its profile): H100 16C allows 6, not 80/16 = 5."""
    from planner.inputs.catalog import load_catalog

    job = workload("job", gpus=1.0, memory_gib=16.0)
    s = dataclasses.replace(
        scenario([job]),
        catalog=load_catalog(),
        assumptions=Assumptions(vgpu_scheduler=VgpuScheduler.FIXED_SHARE),
    )
    p = plan(Method.VGPU, [place("job#1", "h1", 0, profile="16C", memory_gib=16.0)])
    (result,) = slowdowns(p, s)
    assert result.slowdown == pytest.approx(6 / 0.972)


@pytest.mark.parametrize("value", [True, "2", "0.1"])
def test_an_override_that_is_not_a_number_is_refused_by_the_constant_and_the_run(
    value: object,
) -> None:
    """A constant's own check (the one every reader uses) refuses a boolean or a text, which
    ``float`` would read as 1 or 2; so does a run given it."""
    constant = next(iter(CONSTANTS.values()))
    with pytest.raises(ValueError, match="must be a number"):
        constant.checked(value)
    with pytest.raises(ValueError, match="must be a number"):
        check_performance_constants({constant.name: value})
