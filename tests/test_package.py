"""Tests of the package as a whole: the public API and the core's independence from the UI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import planner

REPO = Path(__file__).resolve().parent.parent


def test_every_public_name_resolves() -> None:
    """Every name in ``planner.__all__`` is importable from the package."""
    missing = [name for name in planner.__all__ if not hasattr(planner, name)]
    assert missing == []


def test_core_never_imports_streamlit() -> None:
    """Importing the planner and planning the sample loads no Streamlit module."""
    code = (
        "import sys, planner\n"
        "c = planner.load_catalog()\n"
        "i = planner.load_inventory('data/sample/inventory.csv', c).value\n"
        "w = planner.load_workloads('data/sample/workloads.csv', c).value\n"
        "planner.plan_scenario(planner.Scenario(c, i, w))\n"
        "print(any(m == 'streamlit' or m.startswith('streamlit.') for m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
