"""The Workloads editor in a real headless Chromium: a decimal typed into a whole-number column."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.workload_grid import edit_first_instances

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def test_a_decimal_typed_into_instances_is_kept_and_refused(
    page: Any, dashboard_url: str, open_page: Callable[..., None], screenshot_dir: Path
) -> None:
    """Typing 1.5 into the instances column keeps 1.5 (never 15); Use this mix refuses it in the
    editor's words, keeps the row and the mix in use."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1500, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Workloads")
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    cells = page.locator(".st-key-workloads_editor [role=gridcell]")
    # Whole numbers read as such although the column takes decimals.
    expect(cells.nth(2)).to_have_text(re.compile(r"^\d+$"))
    # The accessible cells can lag the canvas: what proves the edit is the unsaved-changes
    # notice (the helper waits for it), and what proves 1.5 was kept (never 15) is the refusal.
    edit_first_instances(page, cells.nth(2).inner_text(), "1.5")
    page.locator(".st-key-workloads_apply button").click()
    problems = page.locator(".st-key-workloads_editor_problems")
    expect(problems).to_contain_text("1.5 is not a whole number")
    expect(page.get_by_role("heading", name="In use: sample workloads.csv")).to_be_visible()
    # The row stays as typed, listed with its bad cell to correct. (The grid's accessible cells
    # lag the canvas after the rerun, so the list is what is read here; the screenshot shows
    # the cell.)
    expect(problems).to_contain_text("ds-notebooks")
    expect(problems).to_contain_text("1.5")
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "workloads-bad-cell.png"), full_page=True)
