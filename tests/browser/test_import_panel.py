"""The import panel in headless Chromium: a kubectl file and an nvidia-smi file imported together,
applied, and planned.

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
