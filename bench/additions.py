"""Benchmark: "add to my inventory" with N+k headroom on the sample and on a half inventory.

For the bundled sample (40 hosts, 308 instances) and the same workloads on every other host of
it (so that servers must be bought), sizes what to buy among the catalog's server types with
``add_to_inventory`` at headroom 0, 1 and 2, and prints one line per case:

    <case> k=<k>: buy <servers>, <placed>/<instances> served, headroom holds in <n>/<clusters>
    clusters, <violations> rule(s) broken; median <wall> s wall, <cpu> s CPU over <runs> runs

Wall and CPU time (``time.process_time``) are medians; on a shared machine the CPU time is the
steadier figure. Run from the repository root: ``.venv/bin/python bench/additions.py [runs]``.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.cli import build_parser, scenario_from_args, server_types  # noqa: E402
from planner.inputs.inventory import Inventory  # noqa: E402
from planner.output.report import ScenarioPlan, add_to_inventory  # noqa: E402
from planner.scenario import Scenario  # noqa: E402


def _line(name: str, k: int, plan: ScenarioPlan, wall: list[float], cpu: list[float]) -> str:
    best = plan.recommended
    assert best is not None
    m = best.result.metrics
    bought = " + ".join(f"{p.count} × {p.server.name}" for p in best.purchase) or "nothing"
    held = sum(1 for c in best.headroom if c.holds)
    return (
        f"{name} k={k}: buy {bought}, {m.instances_placed}/"
        f"{m.instances_placed + m.instances_not_placed} served, headroom holds in "
        f"{held}/{len(best.headroom)} clusters, {len(best.result.feasibility_violations)} "
        f"rule(s) broken; median {statistics.median(wall):.1f} s wall, "
        f"{statistics.median(cpu):.1f} s CPU over {len(wall)} runs"
    )


def main(runs: int = 3) -> None:
    sample, _ = scenario_from_args(build_parser().parse_args(["plan"]))
    half = dataclasses.replace(sample, inventory=Inventory(sample.inventory.hosts[::2]))
    servers = server_types(["catalog"], sample.catalog)
    cases: list[tuple[str, Scenario]] = [("sample", sample), ("half inventory", half)]
    for name, scenario in cases:
        for k in (0, 1, 2):
            wall: list[float] = []
            cpu: list[float] = []
            for _ in range(runs):
                started, started_cpu = time.perf_counter(), time.process_time()
                plan = add_to_inventory(scenario, servers, headroom=k)
                wall.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
            print(_line(name, k, plan, wall, cpu), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
