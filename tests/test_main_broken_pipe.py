"""``python -m planner`` whose stdout reader has gone (``plan ... | head -1``): no traceback,
the workbook asked for is still written, and the exit status says the pipe was closed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from importer_samples import REPO

SAMPLE = REPO / "data" / "sample"


def test_plan_into_a_closed_pipe_writes_its_workbook_and_exits_quietly(tmp_path: Path) -> None:
    """A plan whose stdout is a pipe nobody reads any more prints no traceback, still writes
    its --out workbook, and exits 141 (128 + SIGPIPE, as a shell reports it)."""
    out = tmp_path / "plan.xlsx"
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before the first line is printed
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "planner",
                "plan",
                "--inventory",
                str(SAMPLE / "inventory.csv"),
                "--workloads",
                str(SAMPLE / "workloads.csv"),
                "--methods",
                "passthrough",
                "--out",
                str(out),
            ],
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=REPO,
            check=False,
            text=True,
        )
    finally:
        os.close(writer)
    assert "Traceback" not in done.stderr
    assert "BrokenPipeError" not in done.stderr
    assert done.returncode == 141
    assert out.stat().st_size > 0
