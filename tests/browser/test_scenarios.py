"""Saved scenarios in a real headless Chromium: save, reload, restart the server, open a link."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from planner.inputs.presets import PRESETS

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
NAME = "Q3 budget & more"
PRESET = next(iter(PRESETS.values()))


def _wait_idle(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def _expect_preset_in_use(page: Any, open_page: Callable[..., None]) -> None:
    from playwright.sync_api import expect

    open_page(page, "Workloads")
    expect(page.get_by_role("heading", name=f"In use: preset {PRESET.title}")).to_be_visible()


def test_a_saved_scenario_survives_reload_and_restart(
    page: Any,
    start_dashboard: Callable[..., Any],
    tmp_path: Path,
    open_page: Callable[..., None],
    screenshot_dir: Path,
) -> None:
    """Save a changed mix as a scenario; reloading the page and restarting the server both come
    back to it through ?scenario=NAME, while a plain address opens the sample."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    env = {"GPU_PLANNER_DB": str(tmp_path / "scenarios.sqlite")}
    with start_dashboard(env) as url:
        page.goto(url)
        open_page(page, "Workloads")
        _wait_idle(page)
        # The first preset is the one the selector shows.
        page.locator(".st-key-workloads_load_preset button").click()
        expect(page.get_by_role("heading", name=f"In use: preset {PRESET.title}")).to_be_visible()
        open_page(page, "Scenarios")
        _wait_idle(page)
        page.get_by_label("Save as a new scenario named").fill(NAME)
        page.locator(".st-key-scenarios_save_as button").click()
        expect(page.get_by_test_id("stSidebar")).to_contain_text(f"Scenario {NAME}")
        expect(page).to_have_url(re.compile(r"scenario=Q3(\+|%20)budget(\+|%20)%26(\+|%20)more"))
        _wait_idle(page)
        page.screenshot(path=str(screenshot_dir / "scenarios.png"), full_page=True)

        page.reload()
        expect(page.get_by_test_id("stSidebar")).to_contain_text(f"Scenario {NAME}")
        _expect_preset_in_use(page, open_page)

    with start_dashboard(env) as url:
        page.goto(f"{url}/?scenario={quote(NAME)}")
        expect(page.get_by_test_id("stSidebar")).to_contain_text(f"Scenario {NAME}")
        _expect_preset_in_use(page, open_page)
        page.goto(url)
        open_page(page, "Workloads")
        expect(page.get_by_role("heading", name="In use: sample workloads.csv")).to_be_visible()
