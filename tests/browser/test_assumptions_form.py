"""The Assumptions form in a real headless Chromium: what it shows is what the plan uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def test_restore_defaults_shows_the_defaults_in_the_form(
    page: Any, dashboard_url: str, open_page: Callable[..., None]
) -> None:
    """After Apply then Restore defaults the browser's form shows the default PUE again, not the
    value restored away (the browser keeps a widget's value unless the server sets it)."""
    from playwright.sync_api import expect

    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Assumptions")
    pue = page.locator(".st-key-assumptions_pue input")
    expect(pue).to_have_value("1.50")
    pue.fill("3")
    # The sidebar's reset is offered once the scenario differs from the sample: the Apply took.
    reset = page.locator(".st-key-sidebar_reset").get_by_role("button")
    page.locator(".st-key-assumptions_apply").get_by_role("button").click()
    expect(reset).to_be_enabled()
    expect(pue).to_have_value("3.00")
    restore = page.locator(".st-key-assumptions_restore").get_by_role("button")
    _click_until(page, restore, expect(reset).to_be_disabled)
    expect(pue).to_have_value("1.50")


_TRIES = 6
_STEP_MS = 5_000
"""How long one try of a grid edit may take before it is started again [ms]."""
_RUN_MS = 20_000
"""How long a button's run may take before the button is clicked again [ms]."""


def _click_until(page: Any, button: Any, done: Any) -> None:
    """Click ``button`` once the app is idle until ``done`` (an expectation) holds: a click
    sent while a run is ending can be lost, and the buttons clicked here do the same again."""
    from playwright.sync_api import expect

    for _ in range(_TRIES):
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
        button.click()
        try:
            done(timeout=_RUN_MS)
            return
        except AssertionError:
            continue
    done()


def _grid(page: Any, name: str) -> Any:
    """The table editor ``name`` of the form (its key ends with the form's generation)."""
    return page.locator(
        f"[class*='st-key-assumptions_{name}_'] [data-testid='stDataFrameResizable']"
    )


def _cell(page: Any, name: str, column: int, row: int) -> Any:
    """A cell of a table editor as the grid's accessible table gives it (0-based)."""
    return page.locator(f"[class*='st-key-assumptions_{name}_'] #glide-cell-{column}-{row}")


def _type_into_first_row(page: Any, name: str, column: int, text: str) -> None:
    """Type ``text`` into the first row's cell ``column`` of the table editor ``name``, as a
    user does: select the first cell, move right, open the cell's editor, type, Enter. The grid
    draws on a canvas and a click landing while it re-renders is lost, so each try is checked."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    grid = _grid(page, name)
    editor = page.locator("#portal input, #portal textarea").first
    for _ in range(_TRIES):
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
        expect(grid).to_have_count(1)
        # Centred: the app's header covers the top of the window and takes clicks there.
        grid.evaluate("grid => grid.scrollIntoView({block: 'center'})")
        try:
            grid.click(position={"x": 30, "y": 52})  # first data row, first column
            for _ in range(column):
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            expect(editor).to_be_visible(timeout=_STEP_MS)
            # A lost arrow key opens a read-only cell, whose editor is disabled.
            expect(editor).to_be_editable(timeout=_STEP_MS)
            editor.fill(text, timeout=_STEP_MS)
            expect(editor).to_have_value(text, timeout=_STEP_MS)
            editor.press("Enter")
            expect(_cell(page, name, column, 0)).to_have_text(text, timeout=_STEP_MS)
            return
        except (AssertionError, PlaywrightError):
            # Besides timeouts: after an Apply the form's new table stands beside the old one
            # until the run ends, and a click then matches both.
            page.keyboard.press("Escape")
    expect(_cell(page, name, column, 0)).to_have_text(text)


def _show_performance_model(page: Any) -> None:
    """Open the Performance model expander unless its table is in view."""
    from playwright.sync_api import expect

    # The table of the form made before stays on the page until the run ends.
    expect(_grid(page, "performance_constants")).to_have_count(1)
    if not _grid(page, "performance_constants").is_visible():
        page.get_by_text("Performance model", exact=True).click()


def test_restore_defaults_drops_the_table_edits_not_applied(
    page: Any, dashboard_url: str, open_page: Callable[..., None]
) -> None:
    """A price and a performance constant typed but not applied are gone after Restore
    defaults: both tables show the defaults again, and the next Apply does not bring the typed
    values back (the browser keeps a table editor's edits unless its key changes)."""
    from playwright.sync_api import expect

    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Assumptions")
    pue = page.locator(".st-key-assumptions_pue input")
    reset = page.locator(".st-key-sidebar_reset").get_by_role("button")
    apply = page.locator(".st-key-assumptions_apply").get_by_role("button")
    pue.fill("3")
    apply.click()
    expect(reset).to_be_enabled()
    # Column 3 is "your price [USD]" and "your value"; column 2 the catalog price and default.
    _type_into_first_row(page, "prices", 3, "123")
    _show_performance_model(page)
    _type_into_first_row(page, "performance_constants", 3, "1.5")
    restore = page.locator(".st-key-assumptions_restore").get_by_role("button")
    _click_until(page, restore, expect(reset).to_be_disabled)
    expect(pue).to_have_value("1.50")
    expect(_grid(page, "prices")).to_have_count(1)
    catalog_price = _cell(page, "prices", 2, 0).text_content()
    expect(_cell(page, "prices", 3, 0)).to_have_text(catalog_price)
    _show_performance_model(page)
    default = _cell(page, "performance_constants", 2, 0).text_content()
    expect(_cell(page, "performance_constants", 3, 0)).to_have_text(default)
    # An Apply of another change uses the tables as shown, not the edits restored away.
    pue.fill("2")
    apply.click()
    expect(reset).to_be_enabled()
    expect(_grid(page, "prices")).to_have_count(1)
    expect(_cell(page, "prices", 3, 0)).to_have_text(catalog_price)
    _show_performance_model(page)
    expect(_cell(page, "performance_constants", 3, 0)).to_have_text(default)
