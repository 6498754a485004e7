"""Benchmark: the scenario store's save, open and list times, and writers at once.

A scenario is the sample's files and an edited set of assumptions (about 4 KB). Printed: the
median of 50 saves, opens and lists of 100 saved scenarios [ms], and the time for 8 threads each
saving 25 scenarios into one file at once, with the count kept (it must be 200).

Run from the repository root: ``.venv/bin/python bench/store.py``.
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.assumptions import Assumptions
from planner.store import SavedFile, SavedScenario, ScenarioStore

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
RUNS = 50
WRITERS = 8
SAVES_PER_WRITER = 25


def _scenario() -> SavedScenario:
    return SavedScenario(
        inventory=SavedFile("inventory.csv", (SAMPLE / "inventory.csv").read_bytes()),
        workloads=SavedFile("workloads.csv", (SAMPLE / "workloads.csv").read_bytes()),
        assumptions=dataclasses.replace(Assumptions(), pue=1.3, gpu_price_usd={"L40S": 8000.0}),
    )


def _median_ms(call: Callable[[int], object]) -> float:
    times = []
    for i in range(RUNS):
        start = time.perf_counter()
        call(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    scenario = _scenario()
    with tempfile.TemporaryDirectory() as folder:
        store = ScenarioStore(Path(folder) / "bench.sqlite")
        for i in range(100):
            store.save(f"filler {i}", scenario)
        save = _median_ms(lambda i: store.save(f"bench {i}", scenario))
        opened = _median_ms(lambda i: store.open(f"bench {i}"))
        listed = _median_ms(lambda _: store.summaries())
        print(f"save {save:.2f} ms, open {opened:.2f} ms, list of 150 {listed:.2f} ms (medians)")

        def write(worker: int) -> None:
            mine = ScenarioStore(store.path)
            for i in range(SAVES_PER_WRITER):
                mine.save(f"writer {worker} #{i}", scenario)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        kept = sum(name.startswith("writer ") for name in store.names())
        print(
            f"{WRITERS} writers x {SAVES_PER_WRITER} saves at once: {elapsed:.2f} s, "
            f"{kept} of {WRITERS * SAVES_PER_WRITER} kept"
        )


if __name__ == "__main__":
    main()
