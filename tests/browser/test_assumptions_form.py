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
    page.locator(".st-key-assumptions_restore").get_by_role("button").click()
    expect(reset).to_be_disabled()
    expect(pue).to_have_value("1.50")
