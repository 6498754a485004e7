"""Benchmark: measuring plans, the report frames and the workbook on synthetic fleets.

Prints, per fleet size, the median wall time [s] over ``REPEATS`` runs of each step that follows
packing: ``assemble`` (metrics, costs, slowdowns, feasibility check of all four plans), the
comparison and recommendations, and ``workbook_bytes``. Packing itself is timed by the engine's
benchmark. Run: ``.venv/bin/python bench/report.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fleets import fleet

from planner.methods.registry import Method
from planner.output.export import workbook_bytes
from planner.output.report import assemble, comparison_frame, recommendations
from planner.solve.packing import plan_method

REPEATS = 3
FLEET_GPUS = (100, 1000)


def _median_seconds(step: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'GPUs':>6} {'instances':>9} {'assemble s':>11} {'frames s':>9} {'workbook s':>11}")
    for gpus in FLEET_GPUS:
        scenario = fleet(gpus)
        plans = [plan_method(method, scenario, exact=False) for method in Method]
        instances = sum(w.instances for w in scenario.workloads)
        measured = assemble(scenario, plans)
        t_assemble = _median_seconds(lambda s=scenario, p=plans: assemble(s, p))
        t_frames = _median_seconds(lambda m=measured: (comparison_frame(m), recommendations(m)))
        t_workbook = _median_seconds(lambda m=measured: workbook_bytes(m))
        total = scenario.inventory.gpu_count
        print(f"{total:>6} {instances:>9} {t_assemble:>11.3f} {t_frames:>9.3f} {t_workbook:>11.3f}")


if __name__ == "__main__":
    main()
