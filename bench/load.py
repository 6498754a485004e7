"""The dashboard under load: 20 concurrent browser sessions, each doing something else.

Starts ``streamlit run app.py`` on a free local port, then drives SESSIONS sessions at once in
one headless Chromium (Debian's ``/usr/bin/chromium``; one browser context per session, so each
has its own cookies and Streamlit session) with Playwright's async API:

- ``upload``: uploads its own inventory (the sample less some rows, named ``load-sN.csv``);
- ``edit``: edits the first workload class's instance count in the table and applies it;
- ``size``: asks to size a new cluster of servers with its own GPU count;
- ``download``: downloads the plan workbook and reads it back.

Then every session applies its own electricity price on the Assumptions page (a re-plan no other
session shares) and times Apply to the new annual cost on screen. Last, each session checks that
its sidebar names only its own inputs. Printed: errors (a step that failed or an exception shown
on a page; must be 0), state seen from another session (must be none), the median and p95 time
from Apply to the new figures, and the server's memory per session (its resident memory at the
peak over the idle server, divided by the sessions).

    .venv/bin/python bench/load.py [--sessions 20]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.assumptions import Assumptions
from planner.inputs.catalog import load_catalog
from planner.inputs.inventory import load_inventory
from tests.dashboard_server import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    dashboard_command,
    free_port,
    wait_healthy,
)

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample"
TIMEOUT_MS = 300_000
KINDS = ("upload", "edit", "size", "download")
POWER_STEP_USD_PER_KWH = 0.05
"""Each session applies the default electricity price plus this times (its index + 1)
[USD/kWh]. The Annual cost card shows three digits ($1.11M, a $10k step on the sample's
passthrough plan); +0.05 moves that plan by ~$24k, so the figure always changes, where +0.01
(~$5k) could leave it as it was and the session waited for a change that never came."""
SAMPLE_HOSTS = len(load_inventory(SAMPLE / "inventory.csv", load_catalog()).value.hosts)
"""Hosts in the sample inventory, once its groups are expanded (read, so it never goes stale)."""


@dataclass
class SessionReport:
    """What one session did and saw."""

    index: int
    kind: str
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    apply_to_figures_s: float | None = None


def _rss_mib(pid: int) -> float:
    """Resident memory of a process [MiB] from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _start_server(port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        server = subprocess.Popen(
            dashboard_command(port), cwd=REPO, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        wait_healthy(port, server, 60, str(log))
    except RuntimeError:
        server.kill()
        raise
    return server


def _sample_rows(name: str) -> tuple[str, list[str]]:
    lines = (SAMPLE / name).read_text().strip().splitlines()
    return lines[0], lines[1:]


async def _wait_idle(page: Any) -> None:
    from playwright.async_api import expect

    await expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


async def _open(page: Any, title: str, heading: str | None = None) -> None:
    from playwright.async_api import expect

    await page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    await expect(
        page.get_by_role("heading", name=heading or title, exact=True).first
    ).to_be_visible()
    await _wait_idle(page)


async def _sidebar(page: Any) -> str:
    return str(await page.get_by_test_id("stSidebar").inner_text())


async def _upload(page: Any, report: SessionReport, tmp: Path) -> str:
    """Upload the sample inventory less ``1 + index % 5`` rows as ``load-sN.csv``."""
    from playwright.async_api import expect

    header, rows = _sample_rows("inventory.csv")
    name = f"load-s{report.index}.csv"
    path = tmp / name
    path.write_text("\n".join([header, *rows[: -(1 + report.index % 5)]]) + "\n")
    await _open(page, "Inventory")
    await (
        page.locator(".st-key-inventory_upload")
        .get_by_test_id("stFileUploaderDropzoneInput")
        .set_input_files(str(path))
    )
    await expect(page.get_by_role("heading", name=f"In use: {name}")).to_be_visible()
    await _wait_idle(page)
    return name


async def _edit(page: Any, report: SessionReport) -> str:
    """Set the first workload class's instances to ``index + 2`` and apply the table."""
    from playwright.async_api import expect

    _, rows = _sample_rows("workloads.csv")
    instances = [int(r.split(",")[2]) for r in rows]
    wanted = report.index + 2
    expected = sum(instances) - instances[0] + wanted
    await _open(page, "Workloads")
    grid = page.locator(".st-key-workloads_editor [data-testid='stDataFrameResizable']")
    await grid.click(position={"x": 80, "y": 52})
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Enter")
    editor = page.locator("#portal input, #portal textarea").first
    await expect(editor).to_have_value(str(instances[0]))
    await editor.fill(str(wanted))
    await page.keyboard.press("Enter")
    await expect(
        page.get_by_text("The table has changes the plan does not use yet")
    ).to_be_visible()
    await page.locator(".st-key-workloads_apply button").click()
    await expect(page.get_by_test_id("stSidebar")).to_contain_text(f"{expected:,} instances")
    await _wait_idle(page)
    return f"{expected:,} instances"


async def _size(page: Any, report: SessionReport) -> str:
    """Ask to size a cluster of H100 servers with ``1 + index % 8`` GPUs each."""
    from playwright.async_api import expect

    gpus = 1 + report.index % 8
    await _open(page, "Compare methods", heading="Compare sharing methods")
    await page.get_by_text("Size a new cluster").click()
    field_input = page.locator(".st-key-compare_server_gpus input")
    if not await field_input.is_visible():
        await page.get_by_text("Server type to size with").click()
    await field_input.fill(str(gpus))
    await field_input.press("Tab")
    await page.locator(".st-key-compare_plan button").click()
    marker = f"Sizing a cluster of {gpus}× H100-80GB-SXM servers"
    await expect(page.get_by_test_id("stSidebar")).to_contain_text(marker)
    await _wait_idle(page)
    return marker


async def _download(page: Any, report: SessionReport, tmp: Path) -> str:
    """Download the workbook; its inventory must be the sample's (no other session's upload)."""
    await _open(page, "Compare methods", heading="Compare sharing methods")
    async with page.expect_download(timeout=TIMEOUT_MS) as info:
        await page.locator(".st-key-compare_download_workbook button").click()
    download = await info.value
    target = tmp / f"plan-s{report.index}.xlsx"
    await download.save_as(str(target))
    book = openpyxl.load_workbook(io.BytesIO(target.read_bytes()), read_only=True)
    hosts = [row[0] for row in book["Inventory"].iter_rows(min_row=2, values_only=True)]
    if len(hosts) != SAMPLE_HOSTS:
        report.leaks.append(f"workbook inventory has {len(hosts)} hosts, the sample {SAMPLE_HOSTS}")
    if "Input problems" not in book.sheetnames:
        report.errors.append("the workbook has no Input problems sheet")
    return "inventory.csv"


async def _apply_power(page: Any, report: SessionReport) -> None:
    """Apply this session's own electricity price; time Apply to the new annual cost."""
    from playwright.async_api import expect

    price = Assumptions().power_usd_per_kwh + POWER_STEP_USD_PER_KWH * (report.index + 1)
    await _open(page, "Assumptions")
    cost = page.locator(".st-key-headline_passthrough [data-testid='stMetric']").filter(
        has_text="Annual cost"
    )
    value = cost.locator("[data-testid='stMetricValue']").first
    before = str(await value.inner_text())
    box = page.locator(".st-key-assumptions_power_usd_per_kwh input")
    await box.fill(f"{price:.3f}")
    await box.press("Tab")
    start = time.perf_counter()
    await page.locator(".st-key-assumptions_apply button").click()
    await expect(value).not_to_have_text(before)
    report.apply_to_figures_s = time.perf_counter() - start
    await _wait_idle(page)
    shown = await box.input_value()
    if abs(float(shown) - price) > 1e-9:
        report.leaks.append(f"power price shows {shown}, this session applied {price:.3f}")


async def _check_sidebar(page: Any, report: SessionReport, own: str, sessions: int) -> None:
    """The sidebar names this session's inputs and no other session's upload."""
    text = await _sidebar(page)
    if own not in text:
        report.leaks.append(f"sidebar lacks this session's {own!r}: {text!r}")
    others = set(re.findall(r"load-s\d+\.csv", text)) - {f"load-s{report.index}.csv"}
    if others:
        report.leaks.append(f"sidebar shows another session's upload: {sorted(others)}")


async def _session(browser: Any, url: str, index: int, sessions: int, tmp: Path) -> SessionReport:
    from playwright.async_api import expect

    report = SessionReport(index, KINDS[index % len(KINDS)])
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    try:
        await page.goto(url)
        await expect(page.get_by_role("heading", name="Compare sharing methods")).to_be_visible()
        await _wait_idle(page)
        if report.kind == "upload":
            own = await _upload(page, report, tmp)
        elif report.kind == "edit":
            own = await _edit(page, report)
        elif report.kind == "size":
            own = await _size(page, report)
        else:
            own = await _download(page, report, tmp)
        await _apply_power(page, report)
        await _check_sidebar(page, report, own, sessions)
        shown = await page.get_by_test_id("stException").count()
        if shown:
            report.errors.append(f"{shown} exception(s) shown on the page")
    except Exception as error:  # a failed step is counted and reported, not raised
        report.errors.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
        await page.screenshot(path=str(tmp / f"load-s{index}-failed.png"))
    finally:
        await context.close()
    return report


async def _sample_memory(pid: int, peak: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], _rss_mib(pid))
        await asyncio.sleep(0.5)


async def _run(url: str, server_pid: int, sessions: int, tmp: Path) -> list[SessionReport]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        # One warm-up visit: the server's first run imports the planner; not a session's cost.
        warm = await browser.new_page()
        await warm.goto(url)
        await warm.get_by_role("heading", name="Compare sharing methods").wait_for()
        await warm.close()
        idle = _rss_mib(server_pid)
        peak = [idle]
        stop = asyncio.Event()
        sampler = asyncio.create_task(_sample_memory(server_pid, peak, stop))
        reports = await asyncio.gather(
            *(_session(browser, url, i, sessions, tmp) for i in range(sessions))
        )
        stop.set()
        await sampler
        await browser.close()
    print(f"server memory: {idle:,.0f} MiB idle, {peak[0]:,.0f} MiB at the peak")
    print(f"memory per session: {(peak[0] - idle) / sessions:,.1f} MiB")
    return list(reports)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, help="concurrent sessions")
    sessions = parser.parse_args().sessions
    out = REPO / "out"
    out.mkdir(exist_ok=True)
    port = free_port()
    server = _start_server(port, out / "load-server.log")
    started = time.perf_counter()
    try:
        reports = asyncio.run(_run(f"http://127.0.0.1:{port}", server.pid, sessions, out))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    wall = time.perf_counter() - started
    errors = [f"session {r.index} ({r.kind}): {e}" for r in reports for e in r.errors]
    leaks = [f"session {r.index} ({r.kind}): {e}" for r in reports for e in r.leaks]
    times = [r.apply_to_figures_s for r in reports if r.apply_to_figures_s is not None]
    kinds = ", ".join(f"{sum(r.kind == k for r in reports)} {k}" for k in KINDS)
    print(f"{sessions} concurrent sessions ({kinds}) in one Chromium, {wall:.0f} s in all")
    print(f"errors: {len(errors)}")
    for line in errors:
        print(f"  {line}")
    print(f"state seen from another session: {len(leaks)}")
    for line in leaks:
        print(f"  {line}")
    if times:
        print(
            f"Apply to new figures: median {statistics.median(times):.1f} s, "
            f"p95 {_p95(times):.1f} s, max {max(times):.1f} s ({len(times)} sessions)"
        )


if __name__ == "__main__":
    main()
