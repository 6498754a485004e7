"""AppTest: the plan workbook the Compare page offers holds the figures the screen shows, harvest
settings and assumptions included."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from openpyxl import load_workbook
from streamlit.elements.widgets import button
from streamlit.testing.v1 import AppTest

from planner.output.figures import KEY_FIGURES
from ui import format as fmt

TIMEOUT_S = 180
APP = str(Path(__file__).resolve().parent.parent / "app.py")
WORKBOOK_FILE = "gpu-share-plan.xlsx"
BACKLOG = 150.0
"""GPU-hours per day: not the page's default of 100."""
POWER = 0.3
"""USD/kWh: not the default of 0.15."""


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    st.cache_data.clear()
    yield
    st.cache_data.clear()


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, Callable[[], Any]]:
    """What each download button built on click would send, by file name.

    AppTest runs without a server, so a button whose data is built on click keeps no file; this
    records the function the button would call, to call it as a click would.
    """
    kept: dict[str, Callable[[], Any]] = {}
    marshall = button.marshall_file

    def recording(*args: Any, **kwargs: Any) -> None:
        # marshall_file(coordinates, data, proto, mimetype, file_name, ...)
        data, file_name = args[1], args[4] if len(args) > 4 else kwargs.get("file_name")
        if callable(data):
            kept[str(file_name)] = data
        marshall(*args, **kwargs)

    monkeypatch.setattr(button, "marshall_file", recording)
    return kept


def _metric(at: AppTest, label: str) -> str:
    return next(str(m.value) for m in at.metric if m.label == label)


def _figures(sheet: Any) -> dict[str, Any]:
    """A two-column table's values by the text in its first column."""
    return {row[0]: row[1] for row in sheet.iter_rows(values_only=True) if row[0] is not None}


def test_the_workbook_shows_what_the_screen_shows(
    downloads: dict[str, Callable[[], Any]],
) -> None:
    """After a harvest setting and an assumption are changed on their pages, the downloaded
    workbook's harvest summary and Overview give the figures the Harvesting and Compare pages
    show, not the defaults."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page("ui/pages/assumptions.py").run()
    at.number_input(key="assumptions_power_usd_per_kwh").set_value(POWER)
    at.button(key="assumptions_apply").click().run()
    assert not at.exception

    at.switch_page("ui/pages/harvesting.py").run()
    default_harvest = _metric(at, "Harvested [GPU-h/week]")
    at.number_input(key="harvest_backlog").set_value(BACKLOG)
    at.button(key="harvest_simulate").click().run()
    assert not at.exception
    harvested = _metric(at, "Harvested [GPU-h/week]")
    replaced = _metric(at, "Dedicated GPUs replaced")
    assert harvested != default_harvest, "the setting must change the figure for the test to bite"

    at.switch_page("ui/pages/compare.py").run()
    assert not at.exception
    figures = at.get_by_key("compare_key_figures").dataframe[0].value.set_index("figure")
    shown_cost = str(figures.loc["Annual cost", "Recommended plan"])
    shown_gpus = str(figures.loc["GPUs used", "Recommended plan"])

    book = load_workbook(io.BytesIO(downloads[WORKBOOK_FILE]()))
    harvest = _figures(book["Harvest summary"])
    assert harvest["ML backlog submitted"] == BACKLOG * 5  # five submit days
    assert fmt.count(harvest["Useful harvested work"]) == harvested
    assert fmt.count(harvest["Dedicated GPUs replaced"]) == replaced

    assert book.sheetnames[0] == "Overview"
    overview = _figures(book["Overview"])
    assert fmt.usd(overview[KEY_FIGURES["usd_per_year"].label]) + " /yr" == shown_cost
    assert shown_gpus.startswith(f"{fmt.count(overview[KEY_FIGURES['gpus_used'].label])} of ")
    assumptions = _figures(book["Assumptions"])
    assert assumptions["power_usd_per_kwh"] == POWER

    # Back on the Harvesting page, the form shows the harvest the workbook holds.
    at.switch_page("ui/pages/harvesting.py").run()
    assert at.number_input(key="harvest_backlog").value == BACKLOG
    assert _metric(at, "Harvested [GPU-h/week]") == harvested
