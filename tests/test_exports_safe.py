"""Exports cannot attack: every download the dashboard and the CLI offer, with hostile names.

Every workload of the sample is renamed ``=HYPERLINK("http://x","<name>")``; every CSV the
dashboard offers must then hold no cell a spreadsheet would run (OWASP CSV injection), with each
hostile name shown neutralised (a leading quote), and every workbook must store it as text.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import openpyxl
import pandas as pd
import pytest
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from planner.output.cells import FORMULA_PREFIXES, csv_bytes, neutralised
from ui import session

TIMEOUT_S = 90
REPO = Path(__file__).resolve().parent.parent
APP = str(REPO / "app.py")
PAGES = sorted((REPO / "ui" / "pages").glob("*.py"))
HOSTILE = '=HYPERLINK("http://x","{}")'


def _hostile_workloads() -> bytes:
    frame = pd.read_csv(session.SAMPLE_DIR / "workloads.csv", dtype=str, keep_default_na=False)
    frame["name"] = [HOSTILE.format(name) for name in frame["name"]]
    return frame.to_csv(index=False).encode()


class _KeptMedia(MemoryMediaFileStorage):
    """The AppTest media store, kept after the run so downloads can be opened."""

    stores: ClassVar[list[MemoryMediaFileStorage]] = []

    def __init__(self, endpoint: str) -> None:
        super().__init__(endpoint)
        _KeptMedia.stores.append(self)


@pytest.fixture
def media(monkeypatch: pytest.MonkeyPatch) -> list[MemoryMediaFileStorage]:
    _KeptMedia.stores = []
    monkeypatch.setattr("streamlit.testing.v1.app_test.MemoryMediaFileStorage", _KeptMedia)
    return _KeptMedia.stores


def _download(stores: list[MemoryMediaFileStorage], url: str) -> bytes:
    name = url.rsplit("/", 1)[-1]
    for store in reversed(stores):
        try:
            return bytes(store.get_file(name).content)
        except MediaFileStorageError:
            continue  # the file lives in the store of the run that made it
    raise AssertionError(f"download {url} not found in any run's media store")


def _assert_safe_csv(data: bytes, where: str) -> int:
    """No cell starts a formula; return how many cells hold a neutralised hostile name."""
    rows = list(csv.reader(io.StringIO(data.decode())))
    cells = [cell for row in rows for cell in row]
    bad = [cell for cell in cells if cell.startswith(FORMULA_PREFIXES)]
    assert bad == [], f"{where}: cells a spreadsheet would run: {bad[:3]}"
    return sum(cell.startswith("'=HYPERLINK(") for cell in cells)


def _assert_text_cells(data: bytes, where: str) -> int:
    """No workbook cell is a formula; return how many cells hold a hostile name as text."""
    book = openpyxl.load_workbook(io.BytesIO(data))
    found = 0
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"{where}: formula in {sheet.title}!{cell.coordinate}"
                found += isinstance(cell.value, str) and cell.value.startswith("=HYPERLINK(")
    return found


def test_csv_bytes_neutralises_text_that_starts_a_formula() -> None:
    """OWASP's list: = + - @ tab and carriage return get a leading quote; numbers do not."""
    frame = pd.DataFrame(
        {
            "name": ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "plain", "a=b"],
            "value": [-1.5, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    rows = list(csv.reader(io.StringIO(csv_bytes(frame).decode(), newline="")))
    assert [r[0] for r in rows[1:]] == ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx",
                                        "plain", "a=b"]  # fmt: skip
    assert rows[1][1] == "-1.5"
    assert neutralised(3) == 3


def test_every_dashboard_download_neutralises_a_hostile_workload_name(
    media: list[MemoryMediaFileStorage],
) -> None:
    inputs = session.ScenarioInputs(
        inventory=session.sample_inputs().inventory,
        workloads=session.InputFile("hostile.csv", _hostile_workloads()),
    )
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state["_session_scenario_inputs"] = inputs
    at.run()
    opened: dict[str, int] = {}
    for page in PAGES:
        at.switch_page(str(page.relative_to(REPO))).run()
        assert not at.exception, f"{page.name}: {at.exception}"
        for button in at.get("download_button"):
            url: Any = button.proto.url
            if not url:
                continue  # built on click (the workbook): checked through workbook_bytes below
            data = _download(media, url)
            where = f"{page.name}:{button.key}"
            if data[:2] == b"PK":
                opened[where] = _assert_text_cells(data, where)
            else:
                opened[where] = _assert_safe_csv(data, where)
    assert {"inside.py:inside_download_placements", "inside.py:inside_download_not_placed",
            "compare.py:compare_download_csv"} <= set(opened)  # fmt: skip
    assert opened["inside.py:inside_download_placements"] > 0


def test_the_dashboard_workbook_keeps_hostile_names_as_text() -> None:
    from ui import planning

    inputs = session.ScenarioInputs(
        inventory=session.sample_inputs().inventory,
        workloads=session.InputFile("hostile.csv", _hostile_workloads()),
    )
    assert _assert_text_cells(planning.workbook(inputs, session.Question()), "dashboard") > 0


def test_the_cli_workbook_keeps_hostile_names_as_text(tmp_path: Path) -> None:
    """The CLI writes one file, the workbook: hostile names stay text, never formulas."""
    workloads = tmp_path / "hostile.csv"
    workloads.write_bytes(_hostile_workloads())
    out = tmp_path / "plan.xlsx"
    subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--workloads", str(workloads), "--out", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert _assert_text_cells(out.read_bytes(), "cli") > 0
