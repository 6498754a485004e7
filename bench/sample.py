"""Benchmark: the bundled sample planned (fit to its inventory) and sized (every catalog server
type), as the CLI's ``plan`` and ``plan --size catalog`` do without the workbook.

Prints, per question, the median wall and CPU time (``time.process_time``) over ``RUNS`` runs,
and each plan's status label with its annual cost, which must be the same in every run (the
solver stops on work limits, not the clock). On a loaded machine quote CPU time beside wall time.

Run from the repository root: ``.venv/bin/python bench/sample.py [runs]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import load_inventory
from planner.inputs.servers import load_server_types
from planner.inputs.workloads import load_workloads
from planner.output.report import ScenarioPlan, plan_scenario, size_cluster
from planner.scenario import Scenario

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
RUNS = 3
"""Timed runs per question; the median is printed."""


def _sample() -> Scenario:
    catalog = load_catalog()
    return Scenario(
        catalog=catalog,
        inventory=load_inventory(SAMPLE / "inventory.csv", catalog).value,
        workloads=tuple(load_workloads(SAMPLE / "workloads.csv", catalog).value),
    )


def _labels(plan: ScenarioPlan) -> tuple[str, ...]:
    return tuple(
        f"{r.plan.label}: {r.plan.status.value}, ${r.cost.total_usd_per_year:,.0f}/year"
        for r in plan.results
    )


def _time(question: str, run: Callable[[], ScenarioPlan], runs: int) -> None:
    walls, cpus, seen = [], [], set()
    for _ in range(runs):
        started, cpu_started = time.perf_counter(), time.process_time()
        plan = run()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu_started)
        seen.add(_labels(plan))
    print(
        f"{question}: median wall {statistics.median(walls):.1f} s, "
        f"CPU {statistics.median(cpus):.1f} s over {runs} runs; "
        f"labels and costs {'the same in every run' if len(seen) == 1 else 'DIFFER'}"
    )
    for labels in sorted(seen):
        for line in labels:
            print(f"  {line}")


def main(runs: int) -> None:
    scenario = _sample()
    servers = load_server_types(scenario.catalog).value
    _time("plan the sample", lambda: plan_scenario(scenario), runs)
    _time("size the sample (catalog servers)", lambda: size_cluster(scenario, servers), runs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)
