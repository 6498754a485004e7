"""The dashboard in a real headless Chromium: upload, edit, switch an option, download.

One journey through the pages an admin would take, with screenshots in ``out/``. The time from
pressing "Apply assumptions" to the updated number on screen is printed (run with ``-s`` to see
it); it is a measurement, not an assertion.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from tests.browser.workload_grid import edit_first_instances

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000


def _metric_in(page: Any, container_key: str, label: str) -> str:
    """The value of metric ``label`` inside the container with ``key=container_key``."""
    metric = page.locator(f".st-key-{container_key} [data-testid='stMetric']").filter(
        has_text=label
    )
    return str(metric.locator("[data-testid='stMetricValue']").first.inner_text()).strip()


def _page_metric(page: Any, label: str) -> str:
    metric = page.locator("[data-testid='stMetric']").filter(
        has=page.get_by_text(label, exact=True)
    )
    return str(metric.locator("[data-testid='stMetricValue']").first.inner_text()).strip()


def _screenshot(page: Any, path: Path) -> None:
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    size = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(height))})
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def _wait_idle(page: Any) -> None:
    """Wait until Streamlit has finished the current run (no 'Running...' status widget)."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def test_admin_journey(
    page: Any,
    dashboard_url: str,
    screenshot_dir: Path,
    tmp_path: Path,
    repo_root: Path,
    open_page: Callable[..., None],
) -> None:
    """Open on the sample, upload an inventory, edit a workload, switch the vSphere version, see
    the vGPU figures change, download the workbook and find its sheets."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1500, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)

    # 1. The sample comparison is there on arrival: the recommended plan first, with its answer
    #    against today and each class's decision, then every method, and four charts.
    page.goto(dashboard_url)
    expect(page.get_by_role("heading", name="Compare sharing methods")).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Serves all \d+ instances on \d+ GPUs"))).to_be_visible()
    expect(page.get_by_text(re.compile("fewer GPUs than today"))).to_be_visible()
    expect(page.locator(".st-key-compare_decisions [data-testid='stDataFrame']")).to_be_visible()
    expect(
        page.locator(".st-key-headline_recommended [data-testid='stMetricValue']").first
    ).to_be_visible()
    expect(
        page.locator(".st-key-headline_vgpu [data-testid='stMetricValue']").first
    ).to_be_visible()
    expect(page.get_by_test_id("stVegaLiteChart")).to_have_count(4)
    _wait_idle(page)
    # The server type's fields, drawn after the first plans, are in the question form.
    page.get_by_text("Server type to size with").click()
    expect(page.locator(".st-key-compare_server_model").get_by_role("combobox")).to_be_visible()
    expect(page.locator(".st-key-compare_headroom input")).to_have_value("0")
    _screenshot(page, screenshot_dir / "compare.png")

    # 2. Upload an inventory: the sample minus its last row plus one bad row.
    open_page(page, "Inventory")
    sample = (repo_root / "data" / "sample" / "inventory.csv").read_text().strip().splitlines()
    header, rows = sample[0], sample[1:]
    columns = header.split(",")
    bad = dict(zip(columns, rows[0].split(","), strict=True))
    bad[columns[0]] = "bad-host"
    bad["gpu_model"] = "H100-90GB"
    upload = tmp_path / "my-inventory.csv"
    upload.write_text("\n".join([header, *rows[:-1], ",".join(bad[c] for c in columns)]) + "\n")
    # The page has a second uploader (own GPU models): pick the inventory's by its widget key.
    page.locator(".st-key-inventory_upload").get_by_test_id(
        "stFileUploaderDropzoneInput"
    ).set_input_files(str(upload))
    # A row would be skipped, so the upload waits for Apply.
    expect(page.get_by_text("Rows skipped")).to_be_visible()
    page.locator(".st-key-inventory_upload_apply").get_by_role("button").click()
    expect(page.get_by_role("heading", name="In use: my-inventory.csv")).to_be_visible()
    expect(page.get_by_text("1 row was skipped")).to_be_visible()
    _wait_idle(page)
    _screenshot(page, screenshot_dir / "inventory.png")

    # 3. Edit a workload in place: the first class's instance count becomes 3.
    open_page(page, "Workloads")
    _wait_idle(page)  # an edit made while the page is still running would be re-rendered away
    first = (repo_root / "data" / "sample" / "workloads.csv").read_text().splitlines()[1]
    total_before = int(_page_metric(page, "Instances").replace(",", ""))
    expected = total_before - int(first.split(",")[2]) + 3
    # The grid sends edits after a short debounce; the helper waits until the page has it.
    edit_first_instances(page, first.split(",")[2], "3")
    # The grid's accessible cells show the new value once the edit has reached the editor.
    cells = page.locator(".st-key-workloads_editor [role=gridcell]")
    expect(cells.nth(2)).to_have_text("3")
    page.locator(".st-key-workloads_apply button").click()
    expect(page.get_by_role("heading", name="In use: edited workload table")).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_contain_text(f"{expected:,} instances")
    _wait_idle(page)
    _screenshot(page, screenshot_dir / "workloads.png")

    # 4. Switch a method option (vSphere 7: at most 4 vGPUs per VM) and time the change from
    #    Apply to the updated vGPU figures; the sample's 8-GPU training VMs no longer fit.
    open_page(page, "Assumptions")
    _wait_idle(page)
    card = page.locator(".st-key-headline_vgpu")
    placed_before = str(card.get_by_text(re.compile(r"placed")).first.inner_text())
    gpus_before = _metric_in(page, "headline_vgpu", "GPUs used")
    page.locator(".st-key-assumptions_vsphere").click()
    page.get_by_role("option", name=re.compile("vSphere 7")).click()
    start = time.perf_counter()
    page.locator(".st-key-assumptions_apply button").click()
    expect(card.get_by_text(placed_before, exact=True)).to_have_count(0)
    elapsed = time.perf_counter() - start
    _wait_idle(page)
    placed_after = str(card.get_by_text(re.compile(r"placed")).first.inner_text())
    assert "not placed" in placed_after
    print(
        f"\nassumption change to updated figure: {elapsed:.2f} s (vGPU: {gpus_before} GPUs, "
        f"{placed_before} -> {_metric_in(page, 'headline_vgpu', 'GPUs used')} GPUs, "
        f"{placed_after})"
    )
    _screenshot(page, screenshot_dir / "assumptions.png")

    # 5. Inside a plan: the placement map renders.
    open_page(page, "Inside a plan")
    expect(page.get_by_test_id("stVegaLiteChart").first).to_be_visible()
    _wait_idle(page)
    _screenshot(page, screenshot_dir / "inside.png")

    # 6. Download the workbook from the Compare page and read it back.
    open_page(page, "Compare methods", heading="Compare sharing methods")
    _wait_idle(page)
    with page.expect_download() as download:
        page.locator(".st-key-compare_download_workbook button").click()
    target = tmp_path / "plan.xlsx"
    download.value.save_as(str(target))
    workbook = openpyxl.load_workbook(io.BytesIO(target.read_bytes()))
    names = workbook.sheetnames
    assert "Summary" in names
    assert names[:3] == ["Overview", "Summary", "Recommended plan"]
    recommended = [
        str(cell.value) for row in workbook["Recommended plan"].iter_rows() for cell in row
    ]
    assert recommended[0].startswith("Serves all ")
    assert "fewer GPUs than today" in recommended[0]
    assert any(name.startswith("Placement") for name in names)
    assert "Assumptions" in names
    assert "Harvest summary" in names
    summary = "\n".join(
        str(cell.value) for row in workbook["Summary"].iter_rows() for cell in row if cell.value
    )
    assert "vGPU" in summary
