"""The dashboard restores a new cluster's sizing whose plan workbook keeps no host, as
``plan --from-workbook`` does: the sizing question with its server types, the workbook's
workloads and assumptions, the inventory in use kept (a new cluster's sizing plans on none)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from openpyxl import load_workbook
from streamlit.testing.v1 import AppTest

from planner.cli import main
from planner.inputs.importers.workbook import PLAN_INPUTS_SHEET
from ui import session

REPO = Path(__file__).resolve().parent.parent
APP = str(REPO / "app.py")
# The Compare page solves the recommended mix of the sample's sizing: seconds, on a busy machine
# many more.
APP_TIMEOUT_S = 300
SAMPLE = REPO / "data" / "sample"


def _no_host_sizing(tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[bytes, str]:
    """A new cluster's sizing of the sample's workloads on l40s-4 asked with no host, as the
    command line writes it (an older planner's workbook of no host, restored with --size), and
    the answer plan --from-workbook prints for it."""
    first = tmp / "first.xlsx"
    given = ["--workloads", str(SAMPLE / "workloads.csv"), "--no-harvest", "--pue", "1.3"]
    assert main(["plan", *given, "--size", "l40s-4", "--out", str(first)]) == 0
    opened = load_workbook(first)
    sheet = opened[PLAN_INPUTS_SHEET]
    header = (SAMPLE / "inventory.csv").read_text().splitlines()[0] + "\n"
    for number in reversed(range(1, sheet.max_row + 1)):
        kind, name = sheet.cell(number, 1).value, sheet.cell(number, 2).value
        if kind == "purchase":
            sheet.delete_rows(number)
        elif (kind, name) == ("file", "inventory.csv"):
            sheet.cell(number, 3).value = header
        elif (kind, name) == ("check", "parts of inventory.csv"):
            digest = hashlib.sha256(header.encode()).hexdigest()[:16]
            sheet.cell(number, 3).value = f"1 part, sha256: {digest}"
    opened.save(first)
    sized = tmp / "sized.xlsx"
    options = ["--no-harvest", "--size", "l40s-4", "--out", str(sized)]
    assert main(["plan", "--from-workbook", str(first), *options]) == 0
    capsys.readouterr()
    assert main(["plan", "--from-workbook", str(sized), "--no-harvest"]) == 0
    printed = capsys.readouterr().out.splitlines()
    return sized.read_bytes(), printed[0].removeprefix("Recommended plan: ")


@pytest.mark.parametrize("page", ["inventory", "workloads"])
def test_a_new_clusters_sizing_of_no_host_is_restored_as_the_command_line_plans_it(
    page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sizing workbook of l40s-4 keeping no host, uploaded on the Inventory (its hosts cannot
    be read) or the Workloads page, offers its restore, saying the inventory in use stays; once
    restored the question is 'Size a new cluster' of l40s-4 with the workbook's assumptions,
    and the Compare page's recommended plan buys what plan --from-workbook buys."""
    data, answer = _no_host_sizing(tmp_path, capsys)
    assert answer.startswith("Buy ")
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S).run()
    at.switch_page(f"ui/pages/{page}.py").run()
    at.file_uploader(key=f"{page}_upload").set_value(
        ("sized.xlsx", data, "application/octet-stream")
    ).run()
    assert not at.exception
    restore = at.button(key=f"{page}_upload_restore")
    assert "the inventory in use stays" in (restore.help or "")
    if page == "inventory":
        assert not at.error
        assert any("keeps no host" in i.value for i in at.info)
    restore.click().run()
    assert not at.exception
    asked = at.session_state[session._QUESTION_KEY]
    assert asked.kind is session.QuestionKind.SIZE
    assert [s.name for s in asked.servers] == ["l40s-4"]
    inputs = at.session_state[session._INPUTS_KEY]
    assert inputs.assumptions.pue == 1.3
    assert inputs.inventory == session.sample_inputs().inventory
    at.switch_page("ui/pages/compare.py").run()
    assert not at.exception
    assert [s.value for s in at.success if s.value.startswith("Buy ")] == [answer]


def test_a_workbook_planned_with_some_methods_says_the_dashboard_plans_every_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan workbook made with --methods passthrough offers its restore with a listed value
    it would not use: the dashboard has no choice of methods and plans every one, and the fix
    names the command line that plans the workbook's methods alone."""
    out = tmp_path / "plan.xlsx"
    assert main(["plan", "--methods", "passthrough", "--no-harvest", "--out", str(out)]) == 0
    capsys.readouterr()
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S).run()
    at.switch_page("ui/pages/inventory.py").run()
    at.file_uploader(key="inventory_upload").set_value(
        ("plan.xlsx", out.read_bytes(), "application/octet-stream")
    ).run()
    assert not at.exception
    assert at.button(key="inventory_upload_restore")
    listed = [df.value for df in at.dataframe if "fix" in df.value.columns]
    rows = [
        (str(r["problem"]), str(r["fix"]))
        for frame in listed
        for _, r in frame.iterrows()
        if "Passthrough only" in str(r["problem"])
    ]
    assert rows == [
        (
            "the plan was made with Passthrough only; the dashboard plans every sharing method, "
            "so it shows them all",
            "to plan those alone: python -m planner plan --from-workbook plan.xlsx",
        )
    ]
    # The warning above the list speaks of every kind of value left unused, not of assumptions.
    warned = [w.value for w in at.warning if "would not use" in w.value]
    assert warned
    assert all("what is used instead" in w and "assumption" not in w for w in warned)
