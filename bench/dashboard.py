"""How long the dashboard waits for the planner on the sample scenario (medians, printed).

What a user feels after changing one assumption is: read the files (cached, so only on upload),
plan every method, and unpickle the cached plan on later reruns. This script times those calls
directly, outside Streamlit, on the bundled sample scenario:

    .venv/bin/python bench/dashboard.py [--runs 5]

The browser test (tests/browser/test_dashboard.py) prints the end-to-end figure: from pressing
"Apply assumptions" to the updated number on screen.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from planner.assumptions import Assumptions, VgpuMode  # noqa: E402
from planner.inputs.catalog import load_catalog  # noqa: E402
from planner.inputs.inventory import load_inventory  # noqa: E402
from planner.inputs.workloads import load_workloads  # noqa: E402
from planner.output.export import workbook_bytes  # noqa: E402
from planner.output.report import plan_scenario  # noqa: E402
from planner.scenario import Scenario  # noqa: E402

SAMPLE = REPO / "data" / "sample"


def _median_s(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    runs = parser.parse_args().runs

    catalog = load_catalog()
    inventory = load_inventory(SAMPLE / "inventory.csv", catalog).value
    workloads = load_workloads(SAMPLE / "workloads.csv", catalog).value
    scenario = Scenario(catalog=catalog, inventory=inventory, workloads=workloads)
    changed = dataclasses.replace(scenario, assumptions=Assumptions(vgpu_mode=VgpuMode.MIXED_SIZE))
    plan = plan_scenario(scenario)
    pickled = pickle.dumps(plan, protocol=pickle.HIGHEST_PROTOCOL)

    instances = sum(w.instances for w in workloads)
    print(
        f"sample scenario: {len(inventory.hosts)} hosts, {inventory.gpu_count} GPUs, "
        f"{len(workloads)} workload classes, {instances} instances; median of {runs} runs"
    )
    figures = {
        "load catalog + both sample files": lambda: (
            load_inventory(SAMPLE / "inventory.csv", load_catalog()),
            load_workloads(SAMPLE / "workloads.csv", load_catalog()),
        ),
        "plan all four methods (defaults)": lambda: plan_scenario(scenario),
        "plan all four methods (one assumption changed)": lambda: plan_scenario(changed),
        "cache hit: unpickle the cached plan": lambda: pickle.loads(pickled),
        "plan workbook (.xlsx bytes)": lambda: workbook_bytes(plan),
    }
    for label, call in figures.items():
        print(f"  {label:<48} {_median_s(call, runs) * 1000:8.1f} ms")
    print(f"  cached plan size: {len(pickled) / 1024:,.0f} KiB")
    for result in plan.results:
        print(
            f"  {result.plan.method.label:<20} {result.plan.solve_seconds * 1000:8.1f} ms packing, "
            f"status {result.plan.status}"
        )


if __name__ == "__main__":
    main()
