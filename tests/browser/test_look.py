"""What a user sees in Chromium: complete legends, the browser's theme, figures before the mix.

Screenshots of the Compare, Inside-a-plan and Harvesting pages at 1,280 and 1,440 px, light and
dark, go to ``out/look-<page>-<scheme>-<width>.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ui.charts import METHOD_ORDER
from ui.tables import COST_COMPONENTS

pytestmark = pytest.mark.browser

TIMEOUT_MS = 120_000
CHART = "[data-testid='stVegaLiteChart']"
SAMPLE_CLASSES = 15
"""Workload classes in the sample scenario."""

# Every text of every chart on the page, with whether it lies inside its chart's frame: a
# legend wider than its column is cut at the column's edge ("netwo" for "network").
_CHART_TEXTS = """(selector) => [...document.querySelectorAll(selector)].flatMap((chart) => {
    const frame = chart.getBoundingClientRect();
    return [...chart.querySelectorAll("svg text")].map((text) => {
        const box = text.getBoundingClientRect();
        return {
            text: text.textContent,
            inside: box.width === 0 || (box.left >= frame.left - 1 && box.right <= frame.right + 1),
        };
    });
})"""


def _wait_idle(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=TIMEOUT_MS)


def _screenshot(page: Any, path: Path) -> None:
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    size = page.viewport_size
    height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(height))})
    page.wait_for_timeout(500)  # Vega re-lays the charts out at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def _chart_texts(page: Any) -> list[dict[str, Any]]:
    texts: list[dict[str, Any]] = page.evaluate(_CHART_TEXTS, CHART)
    return texts


def _chart_texts_naming(page: Any, names: set[str]) -> list[dict[str, Any]]:
    """The charts' texts once every one of ``names`` is drawn, or as they are at the timeout:
    charts further down the page are drawn after the status widget goes idle."""
    deadline = TIMEOUT_MS // 500
    texts = _chart_texts(page)
    while deadline and not names <= {t["text"] for t in texts}:
        page.wait_for_timeout(500)
        texts = _chart_texts(page)
        deadline -= 1
    return texts


def _assert_named_in_full(texts: list[dict[str, Any]], names: set[str], where: str) -> None:
    shown = {t["text"] for t in texts}
    missing = names - shown
    assert not missing, f"{where}: not drawn in full: {sorted(missing)}"
    cut = [t["text"] for t in texts if t["text"] in names and not t["inside"]]
    assert not cut, f"{where}: drawn past the chart's edge: {cut}"
    shortened = [t["text"] for t in texts if t["text"].endswith("…")]
    assert not shortened, f"{where}: labels shortened: {shortened}"


@pytest.fixture
def open_at(browser: Any, dashboard_url: str) -> Iterator[Callable[..., Any]]:
    """``open_at(width, scheme)``: a new page of that width and colour scheme on the dashboard."""
    contexts: list[Any] = []

    def _open(width: int, scheme: str = "light") -> Any:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        contexts.append(context)
        page = context.new_page()
        page.goto(dashboard_url)
        page.locator(CHART).first.wait_for(timeout=TIMEOUT_MS)
        _wait_idle(page)
        return page

    yield _open
    for context in contexts:
        context.close()


@pytest.mark.parametrize("width", [1280, 1440])
def test_legends_and_plan_names_are_complete(
    open_at: Callable[..., Any],
    open_page: Callable[..., None],
    screenshot_dir: Path,
    width: int,
) -> None:
    """At 1,280 px and up every legend names every colour in full inside its chart, and the
    comparison charts name every plan."""
    page = open_at(width)
    legends = set(COST_COMPONENTS) | {"memory", "compute"}
    texts = _chart_texts_naming(page, legends | set(METHOD_ORDER))
    _assert_named_in_full(texts, legends, "Compare")
    _assert_named_in_full(texts, set(METHOD_ORDER), "Compare")
    _screenshot(page, screenshot_dir / f"look-compare-light-{width}.png")

    open_page(page, "Harvesting")
    page.locator(CHART).nth(3).wait_for(timeout=TIMEOUT_MS)
    _wait_idle(page)
    texts = _chart_texts(page)
    classes = {
        t["text"] for t in texts if re.fullmatch(r"[a-z][a-z-]+", t["text"]) and "-" in t["text"]
    }
    assert len(classes) >= SAMPLE_CLASSES - 3  # names with a hyphen; "embeddings" has none
    _assert_named_in_full(texts, classes | {"VDI desktops", "Harvested ML", "Idle"}, "Harvesting")
    _screenshot(page, screenshot_dir / f"look-harvesting-light-{width}.png")


def test_the_server_type_form_shows_the_model_in_full(open_at: Callable[..., Any]) -> None:
    """At 1,280 px the server type to size with shows its GPU model's whole name (it read
    "H100-80Gi" when the model shared a row of four fields)."""
    from playwright.sync_api import expect

    page = open_at(1280)
    page.get_by_text("Server type to size with").first.click()
    model = page.locator(".st-key-compare_server_model input")
    expect(model).to_have_value("H100-80GB-SXM", timeout=TIMEOUT_MS)
    width = model.evaluate("(box) => ({text: box.scrollWidth, shown: box.clientWidth})")
    assert width["text"] <= width["shown"], width


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_theme_follows_the_browser(
    open_at: Callable[..., Any],
    open_page: Callable[..., None],
    screenshot_dir: Path,
    scheme: str,
) -> None:
    """A browser that prefers dark gets the dark theme, one that prefers light the light one."""
    page = open_at(1440, scheme)
    background = page.evaluate(
        "getComputedStyle(document.querySelector('[data-testid=\"stApp\"]')).backgroundColor"
    )
    red, green, blue = (int(v) for v in re.findall(r"\d+", background)[:3])
    luminance = (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255
    assert (luminance < 0.3) if scheme == "dark" else (luminance > 0.9), background
    _screenshot(page, screenshot_dir / f"look-compare-{scheme}-1440.png")
    for title, name in (("Inside a plan", "inside"), ("Harvesting", "harvesting")):
        open_page(page, title)
        page.locator(CHART).first.wait_for(timeout=TIMEOUT_MS)
        _wait_idle(page)
        _screenshot(page, screenshot_dir / f"look-{name}-{scheme}-1440.png")


def test_single_methods_show_before_the_recommended_mix(
    open_at: Callable[..., Any], open_page: Callable[..., None]
) -> None:
    """After Apply, the single methods' cards show while the recommended mix is still being
    solved; then the recommended plan's figures while its bounds are proven; then every card,
    the recommended plan first, replaces them."""
    from playwright.sync_api import expect

    page = open_at(1440)
    open_page(page, "Assumptions")
    _wait_idle(page)
    box = page.locator(".st-key-assumptions_power_usd_per_kwh input")
    # A price no other test applies, so the plan is not in the server's cache.
    box.fill("0.173")
    box.press("Tab")
    page.locator(".st-key-assumptions_apply button").click()
    early = page.locator(".st-key-early_headline_passthrough")
    expect(early).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator(".st-key-early_headline_recommended")).to_contain_text("Mixing")
    drafted = page.locator(".st-key-drafted_headline_recommended")
    expect(drafted.get_by_test_id("stMetricValue").first).to_be_visible(timeout=TIMEOUT_MS)
    expect(drafted).to_contain_text("Proving")
    expect(page.locator(".st-key-headline_recommended")).to_be_visible(timeout=TIMEOUT_MS)
    expect(early).to_have_count(0)
    expect(page.locator(".st-key-headline_passthrough")).to_be_visible()
