"""The dashboard started as users start it (``streamlit run app.py``) on a free local port, for
the browser tests and the benches that drive it in Chromium."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which Playwright drives here (its own browser download is never used)."""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless, sandbox-free (root in a container), and nothing that reaches the network."""


def free_port() -> int:
    """A local TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def dashboard_command(port: int) -> list[str]:
    """``streamlit run app.py`` headless on ``port`` of 127.0.0.1, no telemetry, no file watcher."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless=true",
        f"--server.port={port}",
        "--server.address=127.0.0.1",
        "--browser.gatherUsageStats=false",
        "--server.fileWatcherType=none",
    ]


def wait_healthy(port: int, server: subprocess.Popen[bytes], timeout_s: float, log: str) -> None:
    """Return once the server on ``port`` answers its health check; RuntimeError naming ``log``
    (where its output went) when it exits first or does not answer within ``timeout_s`` [s]."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the dashboard server exited with {server.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the dashboard did not answer on port {port} within {timeout_s:.0f} s")
