"""Typing into the Workloads page's table (a canvas grid) as a user would, verified step by step.

The grid draws on a canvas: a click, a key or a commit that lands while the page is re-rendering
the grid is lost without an error. Each step is therefore checked (the right cell selected, its
editor open, the typed text held, the page told of the change) and the whole edit tried again
from a fresh click when one of them did not take.
"""

from __future__ import annotations

from typing import Any

CHANGED = "The table has changes the plan does not use yet"
"""What the Workloads page says once the grid has handed it an edit."""

_TRIES = 6
_STEP_MS = 10_000
"""How long one step of a try may take before the edit is started again [ms]."""

_SETTLE_MS = 500
"""Pause between the editor showing the typed text and Enter: the grid's number editor hands
its value on after the input shows it, and Enter pressed at once could commit the cell
unchanged [ms]."""


def edit_first_instances(page: Any, before: str, text: str) -> None:
    """Replace the first class's instance count (``before``, as the grid shows it) with
    ``text``, typed key by key into the cell's editor, and wait until the page has the edit."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    grid = page.locator(".st-key-workloads_editor [data-testid='stDataFrameResizable']")
    editor = page.locator("#portal input, #portal textarea").first
    notice = page.get_by_text(CHANGED)
    for _ in range(_TRIES):
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
        if notice.is_visible():
            return  # a commit that took longer than a step did arrive
        try:
            grid.click(position={"x": 80, "y": 52})  # first data row, the name column
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")  # the instances column
            page.keyboard.press("Enter")  # opens the grid's cell editor on the selected cell
            expect(editor).to_have_value(before, timeout=_STEP_MS)
            editor.fill("")
            editor.press_sequentially(text)
            expect(editor).to_have_value(text, timeout=_STEP_MS)
            page.wait_for_timeout(_SETTLE_MS)
            editor.press("Enter")
            expect(notice).to_be_visible(timeout=_STEP_MS)
            return
        except (AssertionError, PlaywrightError):  # a check failed, or a click or fill timed out
            page.keyboard.press("Escape")  # closes an editor left open, else does nothing
    expect(notice).to_be_visible()
