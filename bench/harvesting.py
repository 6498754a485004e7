"""Time the harvesting simulation on a 10,000-GPU VDI fleet, hourly and at 15 minutes.

Run: ``.venv/bin/python bench/harvesting.py [--runs N]``. Prints the median wall time of N runs
(target: under 2 s for a week at hourly resolution) and the figures each run produced, so the
timing is of a simulation that did real work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner.time.demand import curve_preset
from planner.time.harvesting import HarvestSettings, simulate_harvest

FLEET_GPUS = 10_000
CASES = [
    (
        "hourly, 1-GPU 8 h jobs, checkpointed",
        HarvestSettings(backlog_gpu_hours_per_day=60_000, gpu_hours_per_job=8),
    ),
    (
        "hourly, 1-GPU 4 h jobs, restart",
        HarvestSettings(backlog_gpu_hours_per_day=60_000, gpu_hours_per_job=4, checkpointing=False),
    ),
    (
        "hourly, heavy: 1-GPU 12 h jobs, restart",
        HarvestSettings(
            backlog_gpu_hours_per_day=150_000, gpu_hours_per_job=12, checkpointing=False
        ),
    ),
    (
        "15 min, 1-GPU 8 h jobs, checkpointed",
        HarvestSettings(backlog_gpu_hours_per_day=60_000, resolution_minutes=15),
    ),
    (
        "15 min, heavy: 1-GPU 12 h jobs, restart",
        HarvestSettings(
            backlog_gpu_hours_per_day=150_000,
            gpu_hours_per_job=12,
            checkpointing=False,
            resolution_minutes=15,
        ),
    ),
    (
        "15 min, 4-GPU 16 GPU-h jobs, restart",
        HarvestSettings(
            backlog_gpu_hours_per_day=60_000,
            gpus_per_job=4,
            gpu_hours_per_job=16,
            checkpointing=False,
            resolution_minutes=15,
        ),
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per case")
    runs = parser.parse_args().runs
    curve = curve_preset("vdi-office")
    print(f"Harvesting simulation, {FLEET_GPUS:,} VDI GPUs, vdi-office curve, median of {runs}")
    for label, settings in CASES:
        demand = curve.at_resolution(settings.steps_per_hour).as_array() * FLEET_GPUS
        jobs = settings.backlog_gpu_hours_per_day / settings.gpu_hours_per_job
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            result = simulate_harvest(FLEET_GPUS, demand, settings)
            times.append(time.perf_counter() - start)
        steps = len(demand) * (settings.weeks + 1)
        turnaround = result.turnaround_hours
        print(
            f"  {label:<40} median {statistics.median(times):6.3f} s "
            f"(min {min(times):.3f}) | {steps} steps, {jobs * 5 * settings.weeks:,.0f} jobs | "
            f"harvested {result.harvested_gpu_hours_per_week:,.0f} GPU-h/week, "
            f"lost {result.lost_gpu_hours_per_week:,.0f}, "
            f"utilisation {result.utilisation_before:.0%} -> {result.utilisation_after:.0%}, "
            f"turnaround {'-' if turnaround is None else f'{turnaround:.1f} h'}, "
            f"dedicated GPUs replaced {result.dedicated_gpus:,}"
        )
        assert np.all(result.vdi_gpus + result.ml_gpus <= FLEET_GPUS)


if __name__ == "__main__":
    main()
