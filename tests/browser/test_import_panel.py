"""The import panel in headless Chromium: a kubectl file and an nvidia-smi file imported together,
applied, and planned; a file of no known kind refused with its whole fix shown at 1,280 px.

Screenshots go to ``out/import*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.inputs.importers import import_inventory
from tests.importer_samples import CATALOG, KUBECTL_NODES, NVIDIA_SMI_LIST, sample_path

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def _wait_idle(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def _metric(page: Any, label: str) -> Any:
    metric = page.locator("[data-testid='stMetric']").filter(
        has=page.get_by_text(label, exact=True)
    )
    return metric.locator("[data-testid='stMetricValue']").first


def test_kubectl_and_nvidia_smi_imported_together_are_planned(
    page: Any, dashboard_url: str, screenshot_dir: Path, open_page: Callable[..., None]
) -> None:
    """Both files dropped at once: the panel names the tool of each and the assumed values, the
    hosts of both are applied (the figures the importer computes), and the Compare page plans the
    sample mix on them."""
    from playwright.sync_api import expect

    nodes, smi = sample_path(KUBECTL_NODES), sample_path(NVIDIA_SMI_LIST)
    expected = import_inventory(
        [(nodes.name, nodes.read_bytes()), (smi.name, smi.read_bytes())], CATALOG
    ).inventory(CATALOG)
    page.set_viewport_size({"width": 1500, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Inventory")
    _wait_idle(page)

    page.locator(".st-key-inventory_upload").get_by_test_id(
        "stFileUploaderDropzoneInput"
    ).set_input_files([str(nodes), str(smi)])
    review = page.locator(".st-key-inventory_upload_review")
    expect(review.get_by_text("read as kubectl get nodes -o json")).to_be_visible()
    expect(review.get_by_text("read as nvidia-smi -L")).to_be_visible()
    expect(_metric(page, "Hosts kept")).to_have_text(str(len(expected.value.hosts)))
    _wait_idle(page)
    page.screenshot(path=str(screenshot_dir / "import-review.png"), full_page=True)

    page.locator(".st-key-inventory_upload_apply").get_by_role("button").click()
    expect(
        page.get_by_role("heading", name=re.compile(r"^In use: .*\.json \+ .*\.txt$"))
    ).to_be_visible()
    expect(_metric(page, "Hosts")).to_have_text(str(len(expected.value.hosts)))
    expect(_metric(page, "GPUs")).to_have_text(str(expected.value.gpu_count))
    expect(page.locator(".st-key-inventory_upload_undo").get_by_role("button")).to_contain_text(
        "Undo the import of"
    )

    open_page(page, "Compare methods", heading="Compare sharing methods")
    _wait_idle(page)
    expect(page.get_by_text(re.compile(r"instances on \d+ GPUs")).first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "import-planned.png"), full_page=True)


TEXT_LUMINANCE = 128
"""Pixels darker than this (0-255) are the grid's text, not its white cells or grey borders."""
EDGE_PX = 6
"""Height of the band above a cell's bottom border that stays blank when its text fits [px]."""


def test_the_fix_of_a_file_of_no_known_kind_is_shown_whole_at_1280_px(
    page: Any,
    dashboard_url: str,
    screenshot_dir: Path,
    open_page: Callable[..., None],
    tmp_path: Path,
) -> None:
    """A file no tool wrote is refused with a fix listing every format the page reads: its row
    grows until the fix fits, so no line of it runs into the cell's bottom edge (a cut fix did,
    its eighth line drawn half)."""
    from PIL import Image
    from playwright.sync_api import expect

    notes = tmp_path / "notes.txt"
    notes.write_text("hello there\nrandom words\n")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    page.goto(dashboard_url)
    open_page(page, "Inventory")
    _wait_idle(page)
    page.locator(".st-key-inventory_upload").get_by_test_id(
        "stFileUploaderDropzoneInput"
    ).set_input_files([str(notes)])
    expect(page.get_by_text("notes.txt cannot be used")).to_be_visible()
    _wait_idle(page)
    table = page.get_by_test_id("stDataFrame").filter(has_text="cannot tell which tool").first
    table.scroll_into_view_if_needed()
    shot = screenshot_dir / "import-unknown-kind.png"
    table.screenshot(path=str(shot))
    page.screenshot(path=str(screenshot_dir / "import-unknown-kind-page.png"), full_page=True)
    image = Image.open(shot).convert("L")
    width, height = image.size
    # The fix is the last column; its one row ends at the table's bottom border.
    band = image.crop((width - 150, height - 2 - EDGE_PX, width - 10, height - 2))
    darkest, _ = band.getextrema()
    assert darkest >= TEXT_LUMINANCE, f"the fix runs into its cell's bottom edge, see {shot}"
    ink, _ = image.crop((width - 150, 40, width - 10, height - 2 - EDGE_PX)).getextrema()
    assert ink < TEXT_LUMINANCE, f"no fix text drawn, see {shot}"
