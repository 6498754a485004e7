"""What a user waits for in a real browser: cold start, first figures, and Apply to a new figure.

Each run starts a fresh ``streamlit run app.py`` server on a free local port (so nothing is cached
in the server), opens it in a new context of Debian's headless Chromium (``/usr/bin/chromium``,
Playwright) and measures, from the moment the browser is sent to the URL:

- **first visible**: the first app element on screen (the page title or the sidebar navigation);
- **first figure**: the first key figure (an ``st.metric`` value) on the Compare page;
- **recommended figure**: the recommended plan's first figure on its card (drafted or final);
- **Apply to figure**: on the Assumptions page, from pressing "Apply assumptions" after changing
  the electricity price to the passthrough plan's annual cost showing the new value.

Prints each run and the medians (wall time in the browser, and the server's CPU time during the
cold start, read from ``/proc``). ``--floor`` first times a bare Streamlit page (a title and one
figure, nothing imported) served and opened the same way: what Streamlit and the browser take
before any app code matters.

    .venv/bin/python bench/coldstart.py [--runs 3] [--floor]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.dashboard_server import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_FLAGS,
    dashboard_command,
    free_port,
    wait_healthy,
)

TIMEOUT_MS = 120_000
CARD_METRICS = "[class*='headline_passthrough'] [data-testid='stMetric']"
"""The passthrough card's figures: shown first among the single methods (class
``st-key-early_headline_passthrough``), then again once the recommended mix is solved."""
BARE_PAGE = """import streamlit as st

st.title("Bare page")
st.metric("A figure", 1)
"""
"""The floor: a Streamlit page with nothing to import or compute."""
RECOMMENDED_METRICS = "[class*='headline_recommended'] [data-testid='stMetricValue']"
"""The recommended plan's card figures: drafted before its bounds are proven, then final (the
card that says the mix is being solved has none)."""
POWER_USD_PER_KWH = 0.137
"""The electricity price applied in the Apply step [USD/kWh]; the sample's default differs."""


@dataclass(frozen=True)
class Run:
    """One cold start, timed in seconds from the browser's navigation."""

    first_visible_s: float
    first_figure_s: float
    recommended_figure_s: float
    apply_to_figure_s: float
    server_cpu_s: float
    """CPU time the server process spent from its start until the first figure showed [s]."""


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far [s] (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _server(script: Path | None = None) -> Iterator[tuple[str, int]]:
    """A fresh dashboard server (or one serving ``script`` instead of ``app.py``): its URL and
    process id, stopped when the block ends."""
    port = free_port()
    command = dashboard_command(port)
    if script is not None:
        command[command.index("app.py")] = str(script)
    server = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_healthy(port, server, 60, "no log (output discarded)")
        yield f"http://127.0.0.1:{port}", server.pid
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def _wait_idle(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def _one_run(browser: Any) -> Run:

    with _server() as (url, pid):
        cpu_start = _cpu_seconds(pid)
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.locator("h1, [data-testid='stSidebarNav']").first.wait_for(
            state="visible", timeout=TIMEOUT_MS
        )
        first_visible = time.perf_counter() - start
        page.locator("[data-testid='stMetricValue']").first.wait_for(
            state="visible", timeout=TIMEOUT_MS
        )
        first_figure = time.perf_counter() - start
        server_cpu = _cpu_seconds(pid) - cpu_start
        page.locator(RECOMMENDED_METRICS).first.wait_for(state="visible", timeout=TIMEOUT_MS)
        recommended_figure = time.perf_counter() - start
        _wait_idle(page)

        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Assumptions").click()
        value = (
            page.locator(CARD_METRICS)
            .filter(has_text="Annual cost")
            .locator("[data-testid='stMetricValue']")
            .first
        )
        value.wait_for(state="visible", timeout=TIMEOUT_MS)
        _wait_idle(page)
        before = str(value.inner_text())
        box = page.locator(".st-key-assumptions_power_usd_per_kwh input")
        box.fill(f"{POWER_USD_PER_KWH:.3f}")
        box.press("Tab")
        start = time.perf_counter()
        page.locator(".st-key-assumptions_apply button").click()
        # A new figure, not the old card's disappearance while the page reruns.
        page.wait_for_function(
            """([selector, before]) => [...document.querySelectorAll(selector)].some(
                (metric) => metric.innerText.includes("Annual cost")
                    && metric.querySelector("[data-testid='stMetricValue']")
                    && metric.querySelector("[data-testid='stMetricValue']").innerText.trim()
                        !== before)""",
            arg=[CARD_METRICS, before],
            timeout=TIMEOUT_MS,
        )
        apply_to_figure = time.perf_counter() - start
        context.close()
    return Run(first_visible, first_figure, recommended_figure, apply_to_figure, server_cpu)


def _floor_run(browser: Any, script: Path) -> tuple[float, float]:
    """First visible element and first figure of the bare page [s], timed like the dashboard's."""
    with _server(script) as (url, _):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.locator("h1").first.wait_for(state="visible", timeout=TIMEOUT_MS)
        visible = time.perf_counter() - start
        page.locator("[data-testid='stMetricValue']").first.wait_for(
            state="visible", timeout=TIMEOUT_MS
        )
        figure = time.perf_counter() - start
        context.close()
    return visible, figure


def _print_floor(browser: Any, runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "bare_page.py"
        script.write_text(BARE_PAGE)
        times = [_floor_run(browser, script) for _ in range(runs)]
    print(
        f"bare Streamlit page, median of {runs}: first visible "
        f"{statistics.median(t[0] for t in times):.2f} s, first figure "
        f"{statistics.median(t[1] for t in times):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold starts (medians reported)")
    parser.add_argument(
        "--floor", action="store_true", help="first time a bare Streamlit page, as the floor"
    )
    args = parser.parse_args()
    runs = args.runs
    from playwright.sync_api import sync_playwright

    results: list[Run] = []
    print(f"load average before: {_load()}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        if args.floor:
            _print_floor(browser, runs)
        for index in range(runs):
            run = _one_run(browser)
            results.append(run)
            print(
                f"run {index + 1}: first visible {run.first_visible_s:.2f} s, first figure "
                f"{run.first_figure_s:.2f} s (server CPU {run.server_cpu_s:.2f} s), recommended "
                f"figure {run.recommended_figure_s:.2f} s, Apply to figure "
                f"{run.apply_to_figure_s:.2f} s"
            )
        browser.close()
    print(f"median of {runs} cold starts (sample scenario, Compare page, 1440 px wide):")
    figures = {
        "first visible app element": [r.first_visible_s for r in results],
        "first key figure": [r.first_figure_s for r in results],
        "server CPU until then": [r.server_cpu_s for r in results],
        "recommended plan's figure": [r.recommended_figure_s for r in results],
        "Apply to updated figure": [r.apply_to_figure_s for r in results],
    }
    for label, times in figures.items():
        print(f"  {label:<27}{statistics.median(times):6.2f} s")
    print(f"load average after: {_load()} (on {os.cpu_count()} cores)")


def _load() -> str:
    """The 1, 5 and 15 minute load averages: other work on the machine slows every figure."""
    return ", ".join(f"{load:.1f}" for load in os.getloadavg())


if __name__ == "__main__":
    main()
