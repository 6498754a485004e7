"""Benchmark: the whole comparison (every single-method plan plus the recommended mix) on
synthetic fleets of ~100, 2,000 and 10,000 GPUs.

Prints, per fleet: instances served of all, GPUs used and the GPU lower bound, the annual cost
(without busy power) and its proven lower bound, their ratio, the status, whether the plan passes
the feasibility checker, and the median wall and CPU time of ``plan_scenario`` (the comparison a
user waits for), with the recommended plan's own share of it. Targets (2-core machine): ~100 GPUs
proven optimal (ratio 1.000), ratio <= 1.02 elsewhere, the 10,000-GPU comparison under 2 s wall.

Run from the repository root: ``.venv/bin/python bench/recommended.py [sizes...] [--seeds N...]``
(``--seeds``: other generated fleets than each size's default seeds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fleets import fleet
from planner.cli import native_prints_hidden
from planner.output.report import plan_scenario

RUNS = {100: 3, 2000: 1, 10000: 1}
"""Timed runs per fleet size; the median is printed."""
SEEDS = {100: (0, 1, 2, 3, 4, 5), 2000: (0, 1, 2, 3, 4), 10000: (0, 1)}
"""Generated fleets per size (``bench.fleets.fleet``'s seed): other mixes, not only one."""


def main(sizes: list[int], seeds: tuple[int, ...] = ()) -> None:
    header = (
        f"{'fleet':>6} {'seed':>4} {'served':>13} {'GPUs':>6} {'bound':>6} {'$/year':>11} "
        f"{'$ bound':>11} {'ratio':>6} {'status':<19} {'feasible':<8} "
        f"{'wall s':>7} {'cpu s':>6} {'mix s':>6}"
    )
    print(header)
    print("-" * len(header))
    for size, seed in ((n, s) for n in sizes for s in seeds or SEEDS.get(n, (0,))):
        scenario = fleet(size, seed=seed)
        walls, cpus, mixes = [], [], []
        recommended = None
        for _ in range(RUNS.get(size, 1)):
            started, cpu_started = time.perf_counter(), time.process_time()
            comparison = plan_scenario(scenario)
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu_started)
            recommended = comparison.recommended
            assert recommended is not None
            mixes.append(recommended.result.plan.solve_seconds)
        assert recommended is not None
        result = recommended.result
        m = result.metrics
        ratio = recommended.ratio_to_bound
        feasible = "yes" if not result.feasibility_violations else "NO"
        print(
            f"{scenario.inventory.gpu_count:>6} {seed:>4} "
            f"{f'{m.instances_placed}/{m.instances_placed + m.instances_not_placed}':>13} "
            f"{m.gpus_used:>6} {m.lower_bound_gpus:>6} "
            f"{recommended.bounded_usd_per_year:>11,.0f} "
            f"{recommended.cost_lower_bound_usd:>11,.0f} "
            f"{(ratio or float('nan')):>6.3f} {result.plan.status.value:<19} {feasible:<8} "
            f"{statistics.median(walls):>7.2f} {statistics.median(cpus):>6.2f} "
            f"{statistics.median(mixes):>6.2f}"
        )


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/recommended.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "sizes",
        nargs="*",
        type=int,
        help=f"fleet sizes [GPUs] (default: {' '.join(map(str, RUNS))})",
    )
    parser.add_argument(
        "--seeds", nargs="+", type=int, default=[], help="generated fleets other than the defaults"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    given = _arguments(sys.argv[1:])
    with native_prints_hidden():
        main(given.sizes or list(RUNS), tuple(given.seeds))
