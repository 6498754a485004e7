"""Benchmark: fit synthetic fleets of ~100, 2,000 and 10,000 GPUs under all four methods.

Prints, per fleet and method: GPUs used, the lower bound, their ratio, instances placed and not
placed, the solve status, whether the plan passes the feasibility checker, and the median wall
and CPU time of ``plan_method`` over several runs (fewer runs for the large fleets; CPU time is
shown because wall time on a shared machine includes waiting for other processes). Targets: ratio
<= 1.05 on the 2,000 and 10,000 fleets, the 10,000 fleet under 10 s for all four methods on a
2-core machine, the ~100 fleet proven optimal.

Run from the repository root: ``.venv/bin/python bench/packing.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fleets import fleet
from planner.methods.registry import Method
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method

RUNS = {100: 5, 2000: 3, 10000: 1}
"""Timed runs per fleet size; the median is printed."""


def main() -> None:
    header = (
        f"{'fleet':>6} {'method':<12} {'GPUs':>6} {'bound':>6} {'ratio':>6} "
        f"{'placed':>7} {'not':>6} {'status':<19} {'feasible':<8} {'wall s':>7} {'cpu s':>6}"
    )
    print(header)
    print("-" * len(header))
    for size, runs in RUNS.items():
        scenario = fleet(size)
        instances = sum(w.instances for w in scenario.workloads)
        total = total_cpu = 0.0
        for method in Method:
            times, cpu_times = [], []
            plan = None
            for _ in range(runs):
                started, cpu_started = time.perf_counter(), time.process_time()
                plan = plan_method(method, scenario)
                times.append(time.perf_counter() - started)
                cpu_times.append(time.process_time() - cpu_started)
            assert plan is not None
            used = len(plan.gpu_configs)
            ratio = used / plan.lower_bound_gpus if plan.lower_bound_gpus else 1.0
            feasible = "yes" if not check_plan(plan, scenario) else "NO"
            placed = instances - len(plan.not_placed)
            median = statistics.median(times)
            cpu_median = statistics.median(cpu_times)
            total += median
            total_cpu += cpu_median
            print(
                f"{scenario.inventory.gpu_count:>6} {method.value:<12} {used:>6} "
                f"{plan.lower_bound_gpus:>6} {ratio:>6.3f} {placed:>7} {len(plan.not_placed):>6} "
                f"{plan.status.value:<19} {feasible:<8} {median:>7.3f} {cpu_median:>6.3f}"
            )
        print(
            f"{scenario.inventory.gpu_count:>6} {'all four':<12} {instances:>6} instances, "
            f"total median {total:.2f} s wall, {total_cpu:.2f} s CPU"
        )


if __name__ == "__main__":
    main()
