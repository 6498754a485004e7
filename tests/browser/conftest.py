"""Fixtures for driving the dashboard in a real headless Chromium (Debian's, never a download).

For other browser test modules (the harvesting page's included):

- ``dashboard_url``: session fixture; a ``streamlit run app.py`` server on a free local port,
  healthy before the first test, stopped after the last. Open pages with ``page.goto(url)``.
- ``page``: pytest-playwright's page, launched on ``/usr/bin/chromium`` with quiet flags.
- ``screenshot_dir``: ``out/`` at the repository root (git-ignored), created on demand.
- ``open_page``: a function ``open_page(page, title, heading=None)`` that clicks a page in the
  sidebar navigation and waits for its heading (the title unless ``heading`` is given).
- ``repo_root``: the repository root (to read the sample files).
- ``start_dashboard``: ``with start_dashboard(env) as url:`` a server of the test's own, with extra
  environment variables (a scenario database), stopped when the block ends.

Every test here is marked ``browser``. Without Chromium (or Playwright) the tests are skipped with
a message saying so, unless ``REQUIRE_BROWSER=1`` (CI), where a missing browser fails the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.dashboard_server import CHROMIUM_FLAGS, dashboard_command, free_port, wait_healthy

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
STARTUP_TIMEOUT_S = 30.0


def _chromium() -> str | None:
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


def _missing_browser_reason() -> str | None:
    """Why browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -r requirements-dev.txt)"
    if _chromium() is None:
        return "Chromium is not installed (apt-get install chromium); browser tests need it"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under tests/browser as ``browser``; skip or fail them without Chromium."""
    reason = _missing_browser_reason()
    here = Path(__file__).parent
    for item in items:
        if here not in Path(str(item.fspath)).parents:
            continue
        item.add_marker(pytest.mark.browser)
        # With REQUIRE_BROWSER=1 the tests run and ``_browser_required`` fails them instead.
        if reason is not None and os.environ.get("REQUIRE_BROWSER") != "1":
            item.add_marker(pytest.mark.skip(reason=f"browser test skipped: {reason}"))


@pytest.fixture(scope="session", autouse=True)
def _browser_required() -> None:
    """With REQUIRE_BROWSER=1 a missing browser is a failure, never a silent skip."""
    reason = _missing_browser_reason()
    if reason is not None and os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch Debian's Chromium (pytest-playwright's own download is never used here)."""
    return {**browser_type_launch_args, "executable_path": _chromium(), "args": CHROMIUM_FLAGS}


@contextmanager
def _dashboard_server(env: Mapping[str, str] | None = None) -> Iterator[str]:
    """A ``streamlit run app.py`` server on a free local port (with ``env`` added to its
    environment), healthy before it is yielded as its URL, stopped afterwards."""
    port = free_port()
    log = (REPO / "out").joinpath(f"dashboard-server-{port}.log" if env else "dashboard-server.log")
    log.parent.mkdir(exist_ok=True)
    with log.open("wb") as sink:
        server = subprocess.Popen(
            dashboard_command(port),
            cwd=REPO,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        try:
            _wait_healthy(port, server)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)


@pytest.fixture(scope="session")
def dashboard_url() -> Iterator[str]:
    """The URL of a dashboard server started for this test session."""
    with _dashboard_server() as url:
        yield url


@pytest.fixture(scope="session")
def start_dashboard() -> Callable[..., AbstractContextManager[str]]:
    """``with start_dashboard({"GPU_PLANNER_DB": path}) as url:`` runs a server of its own, with
    extra environment variables, for tests that restart it or need their own settings."""
    return _dashboard_server


def _wait_healthy(port: int, server: subprocess.Popen[bytes]) -> None:
    try:
        wait_healthy(port, server, STARTUP_TIMEOUT_S, "out/")
    except RuntimeError as failure:
        pytest.fail(str(failure))


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """Where screenshots go: ``out/`` at the repository root (git-ignored)."""
    target = REPO / "out"
    target.mkdir(exist_ok=True)
    return target


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def open_page() -> Callable[..., None]:
    """``open_page(page, title)``: open a dashboard page from the sidebar and wait for it."""
    return _open_page


def _open_page(
    page: Any, title: str, *, heading: str | None = None, timeout_ms: float = 60_000
) -> None:
    """Click ``title`` in the sidebar navigation and wait for the page's ``heading`` (its title
    unless given)."""
    from playwright.sync_api import expect

    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=heading or title, exact=True).first).to_be_visible(
        timeout=timeout_ms
    )
