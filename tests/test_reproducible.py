"""Same inputs, same answer: the sample planned in two fresh processes gives the same workbook.

Each run is a new interpreter with its own string-hash seed, and the second runs beside CPU hogs
that take every core, so any dependence on set or dict order of strings, on the wall clock or on
the machine's speed shows up as a difference (labels such as "optimal" or "solver limit reached"
included). The only cells allowed to differ are the measured wall times (``solve_seconds``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import openpyxl

REPO = Path(__file__).resolve().parent.parent
TIMINGS = "Solve time [s]"
"""Header of the only column that records how long a run took, not what it decided."""


def _plan_in_fresh_process(out: Path, hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--out", str(out)],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        timeout=600,
    )


@contextmanager
def _cpu_hogs() -> Iterator[None]:
    """Busy loops on every core while the block runs: a machine under load, or a slower one."""
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def _cells(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every sheet's rows, with the wall-time column blanked."""
    book = openpyxl.load_workbook(path)
    sheets = {}
    for sheet in book.worksheets:
        rows = [tuple(cell.value for cell in row) for row in sheet.iter_rows()]
        timed = {j for row in rows for j, value in enumerate(row) if value == TIMINGS}
        sheets[sheet.title] = [
            tuple(None if j in timed else v for j, v in enumerate(row)) for row in rows
        ]
    return sheets


def test_the_sample_plans_the_same_in_two_fresh_processes_one_under_load(tmp_path: Path) -> None:
    first, second = tmp_path / "first.xlsx", tmp_path / "second.xlsx"
    _plan_in_fresh_process(first, "1")
    with _cpu_hogs():
        _plan_in_fresh_process(second, "2")
    one, two = _cells(first), _cells(second)
    assert list(one) == list(two)
    for title in one:
        assert one[title] == two[title], f"sheet {title!r} differs between runs"
    assert any("solver" in str(v) or "optimal" in str(v) for r in one["Summary"] for v in r)
