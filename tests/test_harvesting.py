"""Cycle harvesting: ML work on idle VDI GPUs, desktops first."""

from __future__ import annotations

import argparse
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from planner.assumptions import Assumptions
from planner.cli import add_harvest_command
from planner.inputs.catalog import Catalog, GpuModel, VgpuProfile
from planner.inputs.inventory import Host, Inventory
from planner.inputs.platform import Platform
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.costs import amortised_usd_per_year, gpu_power_w, power_usd_per_year
from planner.output.export import sheets_bytes
from planner.scenario import Scenario
from planner.time.demand import HOURS_PER_WEEK, curve_preset
from planner.time.harvesting import (
    HarvestSettings,
    NoDesktopPoolError,
    dedicated_usd_per_gpu_year,
    harvest_scenario,
    harvest_summary,
    harvest_tables,
    plan_harvest_tables,
    simulate_harvest,
    utilisation_by_hour,
    vdi_pool,
)

OFFICE_DAY = tuple(1.0 if 8 <= h < 18 else 0.0 for h in range(24))


def office_demand(pool: int, steps_per_hour: int = 1) -> np.ndarray:
    """Every GPU busy 08:00-18:00 every day, none at night."""
    hourly = np.tile(np.asarray(OFFICE_DAY) * pool, 7)
    return np.repeat(hourly, steps_per_hour)


def random_demand(seed: int, pool: int) -> np.ndarray:
    """Hourly desktop demand that wanders between 0 and the pool, sometimes above it."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0, pool * 1.1, HOURS_PER_WEEK)


MIXED_SETTINGS = [
    HarvestSettings(backlog_gpu_hours_per_day=60, gpus_per_job=1, gpu_hours_per_job=5),
    HarvestSettings(
        backlog_gpu_hours_per_day=90, gpus_per_job=2, gpu_hours_per_job=7, checkpointing=False
    ),
    HarvestSettings(
        backlog_gpu_hours_per_day=33, gpus_per_job=4, gpu_hours_per_job=12, submit_hour=9
    ),
    HarvestSettings(backlog_gpu_hours_per_day=500, gpu_hours_per_job=3, submit_days=(0, 6)),
]


@pytest.mark.parametrize("settings", MIXED_SETTINGS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_capacity_is_never_exceeded(settings: HarvestSettings, seed: int) -> None:
    """In every step, GPUs serving desktops plus GPUs held by ML are at most the pool."""
    result = simulate_harvest(12, random_demand(seed, 12), settings)
    assert (result.vdi_gpus + result.ml_gpus <= result.pool_gpus).all()
    assert (result.idle_gpus >= 0).all()


@pytest.mark.parametrize("settings", MIXED_SETTINGS)
@pytest.mark.parametrize("seed", [4, 5])
def test_desktops_are_served_first(settings: HarvestSettings, seed: int) -> None:
    """Desktops get every GPU they ask for (up to the pool); ML only takes what is left."""
    demand = random_demand(seed, 12)
    result = simulate_harvest(12, demand, settings)
    np.testing.assert_array_equal(result.vdi_gpus, np.minimum(np.ceil(demand), 12))
    assert (result.ml_gpus <= 12 - np.minimum(np.ceil(demand), 12)).all()
    # ML holds whole jobs' worth of GPUs.
    assert (result.ml_gpus % settings.gpus_per_job == 0).all()


@pytest.mark.parametrize("settings", MIXED_SETTINGS)
def test_harvested_work_never_exceeds_the_backlog(settings: HarvestSettings) -> None:
    """Over one simulated week from an empty queue, useful work is at most what was submitted,
    and what was submitted is either done or still in the backlog."""
    one_week = HarvestSettings(**{**settings.__dict__, "weeks": 1})
    result = simulate_harvest(12, random_demand(7, 12), one_week)
    submitted = one_week.submitted_gpu_hours_per_week
    assert result.useful_gpu_hours_per_week <= submitted + 1e-9
    # Work is conserved: submitted = useful + still queued at the end of the week.
    assert result.useful_gpu_hours_per_week + result.backlog_gpu_hours[-1] == pytest.approx(
        submitted
    )


def interrupt_demand() -> np.ndarray:
    """One GPU; desktops take it on Monday 19:00-20:00 only."""
    demand = np.zeros(HOURS_PER_WEEK)
    demand[19] = 1.0
    return demand


ONE_JOB = HarvestSettings(
    backlog_gpu_hours_per_day=4, gpu_hours_per_job=4, submit_hour=17, submit_days=(0,), weeks=1
)


def test_checkpointed_work_loses_nothing() -> None:
    """A 4-hour job stopped at 19:00 by a desktop resumes at 20:00 and ends at 22:00."""
    result = simulate_harvest(1, interrupt_demand(), ONE_JOB)
    assert result.interruptions_per_week == 1
    assert result.jobs_interrupted_per_week == 1
    assert result.lost_gpu_hours_per_week == 0.0
    assert result.harvested_gpu_hours_per_week == pytest.approx(4.0)
    assert result.turnaround_hours == pytest.approx(5.0)


def test_restarted_work_loses_the_work_since_its_start() -> None:
    """Without checkpoints the job loses its 2 hours done since 17:00 and ends at midnight."""
    restart = HarvestSettings(**{**ONE_JOB.__dict__, "checkpointing": False})
    result = simulate_harvest(1, interrupt_demand(), restart)
    assert result.interruptions_per_week == 1
    assert result.lost_gpu_hours_per_week == pytest.approx(2.0)
    assert result.lost_gpu_hours[19] == pytest.approx(2.0)
    assert result.harvested_gpu_hours_per_week == pytest.approx(6.0)
    assert result.useful_gpu_hours_per_week == pytest.approx(4.0)
    assert result.turnaround_hours == pytest.approx(7.0)


def test_restart_loses_only_since_the_latest_start() -> None:
    """A job stopped twice loses, the second time, only the work since it restarted."""
    demand = np.zeros(HOURS_PER_WEEK)
    demand[[19, 22]] = 1.0  # stops at 19:00 (2 h done) and at 22:00 (1 h done since 21:00)
    restart = HarvestSettings(**{**ONE_JOB.__dict__, "checkpointing": False})
    result = simulate_harvest(1, demand, restart)
    assert result.lost_gpu_hours[19] == pytest.approx(2.0)
    assert result.lost_gpu_hours[22] == pytest.approx(2.0)  # ran 20:00 and 21:00
    assert result.interruptions_per_week == 2
    assert result.jobs_interrupted_per_week == 1
    # Restarts at 23:00, runs 4 h: done at 03:00 Tuesday, 10 h after submission.
    assert result.turnaround_hours == pytest.approx(10.0)


def test_a_flat_all_day_vdi_load_harvests_nothing() -> None:
    """When desktops hold every GPU all week, no ML work runs and no batch finishes."""
    result = simulate_harvest(8, np.full(HOURS_PER_WEEK, 8.0), HarvestSettings())
    assert result.harvested_gpu_hours_per_week == 0.0
    assert result.ml_gpus.sum() == 0.0
    assert result.utilisation_after == pytest.approx(result.utilisation_before)
    assert result.turnaround_hours is None
    assert result.dedicated_gpus == 0
    assert not result.keeps_up


def test_an_empty_night_harvests_everything_that_fits() -> None:
    """Desktops hold all 10 GPUs 08-18 h; 120 GPU-hours submitted at 18:00 fit in the night."""
    settings = HarvestSettings(
        backlog_gpu_hours_per_day=120, gpu_hours_per_job=6, submit_hour=18, weeks=1
    )
    result = simulate_harvest(10, office_demand(10), settings)
    assert result.harvested_gpu_hours_per_week == pytest.approx(5 * 120)
    assert result.backlog_gpu_hours[-1] == 0.0
    assert result.interruptions_per_week == 0
    # 20 jobs of 6 h on 10 GPUs: two rounds, done at 06:00.
    assert result.turnaround_hours == pytest.approx(12.0)
    assert result.keeps_up


def test_fifteen_minutes_agree_with_hourly_on_hour_aligned_inputs() -> None:
    """Hour-aligned demand and whole-hour jobs give the same figures at 15 and 60 minutes."""
    pool = 40
    hourly_demand = curve_preset("vdi-office").as_array() * pool
    for checkpointing in (True, False):
        hourly = HarvestSettings(
            backlog_gpu_hours_per_day=300,
            gpus_per_job=2,
            gpu_hours_per_job=10,
            checkpointing=checkpointing,
        )
        fine = HarvestSettings(**{**hourly.__dict__, "resolution_minutes": 15})
        coarse_result = simulate_harvest(pool, hourly_demand, hourly)
        fine_result = simulate_harvest(pool, np.repeat(hourly_demand, 4), fine)
        np.testing.assert_allclose(
            fine_result.harvested_gpu_hours.reshape(-1, 4).sum(axis=1),
            coarse_result.harvested_gpu_hours,
        )
        np.testing.assert_allclose(
            fine_result.ml_gpus.reshape(-1, 4).mean(axis=1), coarse_result.ml_gpus
        )
        assert fine_result.lost_gpu_hours_per_week == pytest.approx(
            coarse_result.lost_gpu_hours_per_week
        )
        assert fine_result.interruptions_per_week == coarse_result.interruptions_per_week
        assert fine_result.turnaround_hours == pytest.approx(coarse_result.turnaround_hours)
        assert fine_result.dedicated_gpus == coarse_result.dedicated_gpus
        assert fine_result.utilisation_after == pytest.approx(coarse_result.utilisation_after)


def test_submit_today_results_tomorrow_morning() -> None:
    """100 office desktop GPUs harvest 1,000 GPU-hours submitted at 17:00 by 09:00 next day.

    By hand: 70 jobs start at 17:00, 10 at 18:00, 10 at 19:00, 5 at 21:00; the first 70 end at
    01:00 and the last 30 start then, ending at 09:00 without being stopped by the 08:00 arrivals
    (65 % of desktops leave 35 GPUs, 30 jobs hold them).
    """
    demand = curve_preset("vdi-office").as_array() * 100
    result = simulate_harvest(100, demand, HarvestSettings(backlog_gpu_hours_per_day=1000))
    assert result.turnaround_hours == pytest.approx(16.0)
    assert result.turnarounds[0].day == "Mon"
    assert result.turnarounds[0].finished_hour == pytest.approx(24 + 9)
    assert result.harvested_gpu_hours_per_week == pytest.approx(5000)
    assert result.interruptions_per_week == 0
    # The same batches queue for days on the dedicated GPUs that would replace harvesting.
    assert result.dedicated_turnaround_hours is not None
    assert result.dedicated_turnaround_hours > 24


def test_dedicated_gpus_are_the_fewest_that_keep_up() -> None:
    """The replaced dedicated GPUs keep up with the same submissions; one fewer does not."""
    demand = curve_preset("vdi-office").as_array() * 60
    settings = HarvestSettings(backlog_gpu_hours_per_day=400, gpu_hours_per_job=8)
    result = simulate_harvest(60, demand, settings)
    assert result.keeps_up
    idle = np.zeros(HOURS_PER_WEEK)
    on_dedicated = simulate_harvest(result.dedicated_gpus, idle, settings)
    one_fewer = simulate_harvest(result.dedicated_gpus - 1, idle, settings)
    assert on_dedicated.keeps_up
    assert not one_fewer.keeps_up
    # Never fewer than the bound no packing can beat: the work over 168 GPU-hours per GPU.
    assert result.dedicated_gpus >= result.useful_gpu_hours_per_week / HOURS_PER_WEEK


def test_a_backlog_too_large_for_the_nights_grows() -> None:
    """More work than the idle GPUs can do leaves a growing backlog and unfinished batches."""
    settings = HarvestSettings(backlog_gpu_hours_per_day=2000, weeks=2)
    result = simulate_harvest(10, office_demand(10), settings)
    assert not result.keeps_up
    assert result.backlog_growth_gpu_hours_per_week > 0
    # 10 GPUs × 14 idle hours × 7 days is all the pool can give.
    assert result.harvested_gpu_hours_per_week == pytest.approx(10 * 14 * 7)


def test_utilisation_rises_by_the_harvested_share() -> None:
    """Utilisation after minus before is the ML GPU-hours over the pool's GPU-hours."""
    demand = curve_preset("vdi-office").as_array() * 20
    result = simulate_harvest(20, demand, HarvestSettings(backlog_gpu_hours_per_day=150))
    gain = result.ml_gpus.sum() / (20 * HOURS_PER_WEEK)
    assert result.utilisation_after - result.utilisation_before == pytest.approx(gain)
    by_hour = utilisation_by_hour(result)
    assert list(by_hour["hour"]) == list(range(24))
    assert (by_hour["after"] >= by_hour["before"]).all()
    assert by_hour["before"].mean() == pytest.approx(result.utilisation_before)


def test_harvest_by_day_sums_to_the_week() -> None:
    """Harvested GPU-hours per day add up to the week's."""
    demand = curve_preset("vdi-office").as_array() * 20
    result = simulate_harvest(20, demand, HarvestSettings(backlog_gpu_hours_per_day=150))
    by_day = result.harvested_gpu_hours_by_day
    assert by_day.shape == (7,)
    assert by_day.sum() == pytest.approx(result.harvested_gpu_hours_per_week)


def test_a_pool_smaller_than_the_peak_is_reported() -> None:
    """Desktop demand above the pool is counted and named in a note."""
    demand = np.full(HOURS_PER_WEEK, 5.0)
    result = simulate_harvest(4, demand, HarvestSettings())
    assert result.vdi_shortfall_gpu_hours_per_week == pytest.approx(HOURS_PER_WEEK)
    assert any("too small" in note for note in result.notes)


def test_no_backlog_means_no_batches() -> None:
    """With nothing submitted, nothing is harvested, no batch waits and no GPU is replaced."""
    demand = curve_preset("vdi-office").as_array() * 10
    result = simulate_harvest(10, demand, HarvestSettings(backlog_gpu_hours_per_day=0))
    assert result.harvested_gpu_hours_per_week == 0.0
    assert result.turnarounds == ()
    assert result.dedicated_gpus == 0
    assert result.keeps_up


def test_bad_inputs_name_the_argument() -> None:
    """A wrong demand length or an off-step submission hour is refused with its name."""
    with pytest.raises(ValueError, match="vdi_demand_gpus needs 168"):
        simulate_harvest(4, np.zeros(24), HarvestSettings())
    with pytest.raises(ValueError, match=r"submit_hour 17\.5"):
        simulate_harvest(4, np.zeros(HOURS_PER_WEEK), HarvestSettings(submit_hour=17.5))
    with pytest.raises(ValueError, match="resolution_minutes"):
        simulate_harvest(4, np.zeros(HOURS_PER_WEEK), HarvestSettings(resolution_minutes=20))
    with pytest.raises(ValueError, match="gpus_per_job"):
        simulate_harvest(4, np.zeros(HOURS_PER_WEEK), HarvestSettings(gpus_per_job=0))


def test_half_hour_submission_works_at_15_minutes() -> None:
    """At 15-minute steps work can be submitted at 17:30 and a batch ends on the quarter."""
    settings = HarvestSettings(
        backlog_gpu_hours_per_day=2.5,
        gpu_hours_per_job=2.5,
        submit_hour=17.5,
        submit_days=(0,),
        resolution_minutes=15,
        weeks=1,
    )
    result = simulate_harvest(1, np.zeros(4 * HOURS_PER_WEEK), settings)
    assert result.turnaround_hours == pytest.approx(2.5)
    assert result.turnarounds[0].finished_hour == pytest.approx(20.0)


# --- From a scenario -------------------------------------------------------------------------

H100 = GpuModel(
    name="H100-80GB-PCIe",
    memory_gib=80.0,
    tdp_w=350.0,
    fp16_tflops=756.0,
    price_usd=30000.0,
    price_is_default=True,
    mig_capable=True,
    vgpu_capable=True,
    gpus_per_board=1,
    mig_memory_slices=8,
    mig_compute_slices=7,
    source="test",
)
# NVIDIA's vGPU table for H100 80GB: 16C allows 6 per GPU, not 80/16 = 5.
PROFILES = tuple(
    VgpuProfile(H100.name, f"{size}C", float(size), equal, mixed, False, "test")
    for size, equal, mixed in [(4, 20, 16), (8, 10, 8), (16, 6, 4), (40, 2, 2), (80, 1, 1)]
)


def scenario(*workloads: WorkloadClass, cores: float = 256.0) -> Scenario:
    hosts = tuple(
        Host(f"h{i}", "vdi", H100.name, 4, cores, 2048.0, 100.0, True, False) for i in range(3)
    )
    return Scenario(
        catalog=Catalog(
            gpus={H100.name: H100}, vgpu_profiles={H100.name: PROFILES}, mig_profiles={}
        ),
        inventory=Inventory(hosts=hosts),
        workloads=workloads,
        assumptions=Assumptions(),
    )


def desktops(instances: int, memory_gib: float, name: str = "desktops") -> WorkloadClass:
    return WorkloadClass(
        name=name,
        kind=WorkloadKind.VDI,
        instances=instances,
        gpus=0.1,
        memory_gib=memory_gib,
        busy_fraction=0.3,
        daily_schedule=OFFICE_DAY,
        days_per_week=5,
        vcpus=4.0,
        ram_gib=16.0,
        needs_live_migration=True,
        needs_isolation=False,
        latency_tolerant=False,
    )


def test_vdi_pool_uses_nvidias_maxima() -> None:
    """36 desktops of 13 GiB take the 16C profile, 6 per GPU: 6 GPUs, not ceil(36/5) = 8."""
    pool = vdi_pool(scenario(desktops(36, 13.0)))
    (group,) = pool.groups
    assert (group.gpu_model, group.profile, group.vgpus_per_gpu) == (H100.name, "16C", 6)
    assert group.desktops == {"desktops": 36}
    assert pool.pool_gpus == 6
    assert pool.desktops_not_placed == 0
    monday = pool.demand_gpus[:24]
    assert monday[10] == 6.0
    assert monday[3] == 0.0
    # Weekend: the class works 5 days.
    assert pool.demand_gpus[5 * 24 :].sum() == 0.0


def test_a_curve_replaces_the_desktops_schedule() -> None:
    """With the VDI office curve, 08:00 asks for 65 % of 36 desktops: ceil(23.4 / 6) = 4 GPUs."""
    pool = vdi_pool(scenario(desktops(36, 13.0)), curve=curve_preset("vdi-office"))
    assert pool.demand_gpus[8] == 4.0
    assert pool.demand_gpus[9] == 6.0


def test_a_scenario_without_desktops_says_what_to_add() -> None:
    """No VDI class: harvesting has nothing to harvest and the message names the fix."""
    notebook = WorkloadClass(
        **{**desktops(4, 8.0).__dict__, "kind": WorkloadKind.NOTEBOOK, "name": "nb"}
    )
    with pytest.raises(ValueError, match="kind 'vdi'"):
        harvest_scenario(scenario(notebook), HarvestSettings())


def test_plan_workbook_sheets_say_why_when_nothing_can_be_harvested() -> None:
    """The plan's harvest sheets: both tables with desktops; one row saying why without."""
    sheets = plan_harvest_tables(scenario(desktops(36, 13.0)))
    assert set(sheets) == {"Harvest summary", "Harvest by step"}
    assert len(sheets["Harvest by step"]) == HOURS_PER_WEEK
    notebook = WorkloadClass(
        **{**desktops(4, 8.0).__dict__, "kind": WorkloadKind.NOTEBOOK, "name": "nb"}
    )
    (summary,) = plan_harvest_tables(scenario(notebook)).values()
    assert summary["figure"].tolist() == ["No harvest"]
    assert "kind 'vdi'" in summary["value"].iloc[0]


def test_harvest_scenario_prices_the_replaced_gpus() -> None:
    """The replaced dedicated GPUs cost their count × one GPU's amortised price, host share and
    power at full use."""
    sc = scenario(desktops(120, 7.0))
    result = harvest_scenario(sc, HarvestSettings(backlog_gpu_hours_per_day=100))
    a = sc.assumptions
    per_gpu = amortised_usd_per_year(30000.0 + a.host_usd / 4, a.amortisation_years)
    per_gpu += power_usd_per_year(gpu_power_w(350.0, 1.0, a.idle_power_share), a.pue, 0.15)
    assert dedicated_usd_per_gpu_year(sc, H100.name) == pytest.approx(per_gpu)
    assert result.pool_gpus == 12  # 8C: 10 desktops per GPU
    assert result.dedicated_gpus > 0
    assert result.dedicated_usd_per_year == pytest.approx(result.dedicated_gpus * per_gpu)
    assert "12 × H100-80GB-PCIe 8C (10 per GPU)" in result.notes[0]


def test_desktops_the_vgpu_plan_cannot_place_are_named() -> None:
    """Hosts with too few cores for 120 desktops: the pool is what the plan placed, and a note
    says how many desktops were left out."""
    sc = scenario(desktops(120, 7.0), cores=64.0)  # 3 × 64 cores hold at most 48 desktops
    pool = vdi_pool(sc)
    placed = sum(sum(group.desktops.values()) for group in pool.groups)
    assert placed <= 48
    assert pool.desktops_not_placed == 120 - placed
    assert pool.pool_gpus == sum(group.gpus for group in pool.groups)
    # Only placed desktops ask for GPUs. At 10:00 all are active, and they consolidate no
    # denser than the hosts' cores let the plan place them (16 to a 64-core host, so not 10 to
    # every GPU): every GPU of the pool is in use.
    assert pool.demand_gpus[10] == pool.pool_gpus > np.ceil(placed / 10)
    result = harvest_scenario(sc, HarvestSettings())
    expected = f"{120 - placed} desktops could not be placed"
    assert any(expected in note for note in result.notes)


def test_harvest_tables_are_workbook_sheets() -> None:
    """The tables hold one row per step and a summary whose figures match the result."""
    demand = curve_preset("vdi-office").as_array() * 20
    result = simulate_harvest(20, demand, HarvestSettings(backlog_gpu_hours_per_day=150))
    tables = harvest_tables(result)
    assert set(tables) == {"Harvest summary", "Harvest by step"}
    assert all(len(name) <= 31 for name in tables)  # Excel's sheet-name limit
    by_step = tables["Harvest by step"]
    assert len(by_step) == HOURS_PER_WEEK
    assert by_step["step"].iloc[17] == "Mon 17:00"
    assert by_step["harvested_gpu_hours"].sum() == pytest.approx(
        result.harvested_gpu_hours_per_week
    )
    summary = harvest_summary(result).set_index("figure")
    assert summary.loc["Harvested", "value"] == pytest.approx(result.harvested_gpu_hours_per_week)
    assert summary.loc["Dedicated GPUs replaced", "value"] == result.dedicated_gpus


def test_the_workbook_holds_the_tables() -> None:
    """The harvest workbook has both sheets, with the summary figures and one row per step."""
    demand = curve_preset("vdi-office").as_array() * 20
    result = simulate_harvest(20, demand, HarvestSettings(backlog_gpu_hours_per_day=150))
    book = openpyxl.load_workbook(io.BytesIO(sheets_bytes(harvest_tables(result))))
    assert book.sheetnames == ["Harvest summary", "Harvest by step"]
    summary = {row[0]: row[1] for row in book["Harvest summary"].iter_rows(values_only=True)}
    assert summary["Harvested"] == pytest.approx(result.harvested_gpu_hours_per_week)
    assert summary["Dedicated GPUs replaced"] == result.dedicated_gpus
    assert book["Harvest by step"].max_row == 1 + HOURS_PER_WEEK
    assert book["Harvest by step"]["A19"].value == "Mon 17:00"  # row 1 is the header


def test_the_cli_registers_harvest() -> None:
    """``add_harvest_command`` adds a ``harvest`` command whose options reach the settings."""
    parser = argparse.ArgumentParser(prog="planner")
    add_harvest_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["harvest", "--backlog", "50", "--restart", "--resolution", "15"])
    assert args.command == "harvest"
    assert args.backlog == 50.0
    assert args.restart is True
    assert args.resolution == 15
    assert callable(args.func)


def test_the_harvest_command_prints_and_writes_the_sheets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m planner harvest`` on the sample prints the summary and writes both sheets,
    with the figures harvest_scenario gives for the same scenario."""
    from planner.cli import build_parser, main, scenario_from_args

    target = tmp_path / "harvest.xlsx"
    assert main(["harvest", "--backlog", "80", "--workbook", str(target)]) == 0
    printed = capsys.readouterr().out
    scenario, _ = scenario_from_args(build_parser().parse_args(["harvest"]))
    expected = harvest_scenario(scenario, HarvestSettings(backlog_gpu_hours_per_day=80))
    assert f"Harvested {expected.harvested_gpu_hours_per_week:,.2f}" in " ".join(printed.split())
    assert f"Dedicated GPUs replaced {expected.dedicated_gpus} GPUs" in " ".join(printed.split())
    sheets = pd.read_excel(target, sheet_name=None)
    assert set(sheets) == {"Harvest summary", "Harvest by step"}
    assert len(sheets["Harvest by step"]) == HOURS_PER_WEEK


def test_the_harvest_command_explains_a_bad_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A curve file with a bad value exits 2 and names the file, line and value."""
    from planner.cli import main

    curve = tmp_path / "curve.txt"
    curve.write_text("0.5 " * 23 + "x")
    assert main(["harvest", "--curve", str(curve)]) == 2
    err = capsys.readouterr().err
    assert "curve.txt, row 1, column 'value 24'" in err


def test_the_harvest_command_reads_a_utf16_curve_and_explains_another_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A curve saved as UTF-16 (Excel's Unicode Text) is read as its text; one in Windows-1252
    exits 2 naming the file and saying how to save it, as every planner file does."""
    from planner.cli import main

    curve = tmp_path / "curve.txt"
    curve.write_bytes(("0.5 " * 24).encode("utf-16"))
    assert main(["harvest", "--curve", str(curve)]) == 0
    assert "Harvested" in " ".join(capsys.readouterr().out.split())
    # A no-break space after the last value: one byte (0xA0) in Windows-1252.
    curve.write_bytes(("0.5 " * 24 + "\u00a0").encode("cp1252"))
    assert main(["harvest", "--curve", str(curve)]) == 2
    err = capsys.readouterr().err
    assert "curve.txt" in err
    assert "UTF-8" in err
    assert "codec" not in err


def test_desktops_on_kubernetes_only_hosts_say_vgpu_needs_vsphere() -> None:
    """With every host a Kubernetes node, no desktop fits under vGPU: the refusal is a
    NoDesktopPoolError naming vGPU's platform and the hosts' own; the workbook's sheet says it."""
    on_kubernetes = scenario(desktops(36, 13.0))
    on_kubernetes = replace(
        on_kubernetes,
        inventory=Inventory(
            hosts=tuple(
                replace(h, platform=Platform.KUBERNETES) for h in on_kubernetes.inventory.hosts
            )
        ),
    )
    with pytest.raises(NoDesktopPoolError) as refusal:
        harvest_scenario(on_kubernetes, HarvestSettings())
    said = str(refusal.value)
    assert "vSphere" in said
    assert "3 hosts run Kubernetes" in said
    (summary,) = plan_harvest_tables(on_kubernetes).values()
    assert summary["figure"].tolist() == ["No harvest"]
    assert summary["value"].iloc[0] == said


def test_a_job_stopped_in_the_week_and_again_after_it_counts_as_interrupted() -> None:
    """A 200-hour job stopped on Monday 19:00 is still running when the week after (simulated so
    batches can finish) stops it again: the week reports 1 job interrupted beside its 1 stop."""
    long_job = replace(ONE_JOB, backlog_gpu_hours_per_day=200, gpu_hours_per_job=200)
    result = simulate_harvest(1, interrupt_demand(), long_job)
    assert result.interruptions_per_week == 1
    assert result.jobs_interrupted_per_week == 1
    # 200 h of work and the two Monday hours desktops took it back: done on the second Wednesday.
    assert result.turnaround_hours == pytest.approx(202.0)


def test_a_job_stopped_only_after_the_week_is_not_counted_in_it() -> None:
    """A job submitted on Sunday 17:00 first meets desktops on the next Monday, after the
    reported week: that week has no stop and no job interrupted."""
    sunday_job = replace(
        ONE_JOB, backlog_gpu_hours_per_day=200, gpu_hours_per_job=200, submit_days=(6,)
    )
    result = simulate_harvest(1, interrupt_demand(), sunday_job)
    assert result.interruptions_per_week == 0
    assert result.jobs_interrupted_per_week == 0


def test_restarting_jobs_that_never_finish_are_counted_as_interrupted() -> None:
    """Four office desktop GPUs, 100-hour jobs that restart and never get 100 hours in a row:
    the 15 stops of the week fall on 3 distinct jobs (replaying the queue up to the week's end
    gives the same 3); a job counts in the week it was stopped, whatever happens to it after."""
    restart = HarvestSettings(
        backlog_gpu_hours_per_day=100, gpu_hours_per_job=100, checkpointing=False
    )
    result = simulate_harvest(4, curve_preset("vdi-office").as_array() * 4, restart)
    assert result.interruptions_per_week == 15
    assert result.jobs_interrupted_per_week == 3
    summary = harvest_summary(result).set_index("figure")["value"]
    assert summary["Jobs interrupted"] == 3
    assert summary["Interruptions"] == 15


@pytest.mark.parametrize("checkpointing", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_jobs_interrupted_agree_with_the_stops(checkpointing: bool, seed: int) -> None:
    """Some job is interrupted in a week exactly when the week has a stop, and never more jobs
    than stops; long jobs still running after the week included."""
    settings = HarvestSettings(
        backlog_gpu_hours_per_day=60, gpu_hours_per_job=30, checkpointing=checkpointing
    )
    result = simulate_harvest(6, random_demand(seed, 6), settings)
    stops = result.interruptions_per_week
    assert (result.jobs_interrupted_per_week > 0) == (stops > 0)
    assert result.jobs_interrupted_per_week <= stops


def test_the_by_step_stops_are_headed_as_the_weekly_interruptions_not_as_jobs() -> None:
    """The by-step column counts stops, which add up to the week's "Interruptions"; the
    week's "Jobs interrupted" counts distinct jobs (15 stops of 3 jobs here), so the column is
    not headed with its words."""
    from planner.output.headers import HEADERS

    restart = HarvestSettings(
        backlog_gpu_hours_per_day=100, gpu_hours_per_job=100, checkpointing=False
    )
    result = simulate_harvest(4, curve_preset("vdi-office").as_array() * 4, restart)
    by_step = harvest_tables(result)["Harvest by step"]
    summary = harvest_summary(result).set_index("figure")["value"]
    header = HEADERS["interruptions"]
    assert by_step["interruptions"].sum() == summary["Interruptions"] == 15
    assert header.startswith("Interruptions [")
    assert "Jobs interrupted" not in header
