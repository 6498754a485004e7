"""The Harvesting page in headless Chromium: the sample's figures, a new backlog, a bad curve.

Screenshots go to ``out/harvesting*.png``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from planner.cli import build_parser, scenario_from_args
from planner.time.harvesting import HarvestSettings, harvest_scenario
from ui import format as fmt

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def _metric(page: Any, label: str) -> Any:
    """The value element of the metric whose label starts with ``label``."""
    metric = page.locator("[data-testid='stMetric']").filter(has_text=label)
    return metric.locator("[data-testid='stMetricValue']").first


def _wait_idle(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def test_harvesting_page(
    page: Any,
    dashboard_url: str,
    screenshot_dir: Path,
    tmp_path: Path,
    open_page: Callable[..., None],
) -> None:
    """On the sample the page shows the planner's harvest figures and four charts; a new backlog
    changes them and the downloaded workbook; a bad pasted curve shows its problem, never a
    traceback."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1500, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    # The first run on a cold server imports the planner and plans; give assertions time.
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Harvesting")
    _wait_idle(page)

    scenario, _ = scenario_from_args(build_parser().parse_args(["harvest"]))
    expected = harvest_scenario(scenario, HarvestSettings())
    expect(_metric(page, "Harvested [GPU-h/week]")).to_have_text(
        fmt.count(expected.useful_gpu_hours_per_week)
    )
    expect(_metric(page, "Dedicated GPUs replaced")).to_have_text(
        fmt.count(expected.dedicated_gpus)
    )
    expect(page.get_by_test_id("stVegaLiteChart")).to_have_count(4)
    page.screenshot(path=str(screenshot_dir / "harvesting.png"), full_page=True)

    # A larger backlog: more work harvested, as the planner says for the same inputs.
    page.get_by_label("ML backlog [GPU-hours per day]").fill("150")
    page.get_by_role("button", name="Simulate").click()
    bigger = harvest_scenario(scenario, HarvestSettings(backlog_gpu_hours_per_day=150))
    expect(_metric(page, "Harvested [GPU-h/week]")).to_have_text(
        fmt.count(bigger.useful_gpu_hours_per_week)
    )
    _wait_idle(page)

    # The download holds the same figures. On a loaded machine the status widget can show idle
    # before the rerun has replaced the button, whose data is then the previous run's: the
    # download is taken again, a few times, until it is the new one.
    for attempt in range(5):
        with page.expect_download() as download:
            page.get_by_role("button", name="Download the harvest sheets").click()
        saved = tmp_path / f"harvest-{attempt}.xlsx"
        download.value.save_as(saved)
        book = openpyxl.load_workbook(saved)
        assert book.sheetnames == ["Harvest summary", "Harvest by step"]
        summary = {row[0]: row[1] for row in book["Harvest summary"].iter_rows(values_only=True)}
        if summary["Harvested"] == pytest.approx(bigger.harvested_gpu_hours_per_week):
            break
        page.wait_for_timeout(1_000)
        _wait_idle(page)
    assert summary["Harvested"] == pytest.approx(bigger.harvested_gpu_hours_per_week)

    # A pasted curve with a word in it: the problem is listed, the page stays usable.
    _wait_idle(page)
    # Type to filter the select box's options, then take the one left.
    page.get_by_role("combobox", name="Desktop demand over the week").click()
    page.keyboard.type("Paste 24")
    page.keyboard.press("Enter")
    page.get_by_label("Values (share 0-1 or percent), Monday 00:00 first").fill("0.5 lots")
    page.get_by_role("button", name="Simulate").click()
    expect(page.get_by_text("The demand curve could not be read")).to_be_visible()
    expect(page.get_by_text("Traceback")).to_have_count(0)
    _wait_idle(page)
    page.screenshot(path=str(screenshot_dir / "harvesting-bad-curve.png"), full_page=True)
