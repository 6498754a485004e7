"""The dashboard restores a sizing's plan workbook with its question: the Compare page sizes
the same servers as ``plan --from-workbook`` does; a workbook keeping no host says why it is
not restored and what to do."""

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
UPLOAD = "inventory_upload"


def _sized(out: Path, capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    """``plan --size ... --out out`` of the sample, in-process as the command line runs it; the
    lines it printed."""
    given = ["--inventory", str(SAMPLE / "inventory.csv"), "--workloads"]
    given.append(str(SAMPLE / "workloads.csv"))
    assert main(["plan", *given, *options, "--out", str(out)]) == 0
    return capsys.readouterr().out.splitlines()


def _uploaded(workbook: bytes, page: str = "inventory") -> AppTest:
    """The dashboard's Inventory (or Workloads) page with ``workbook`` uploaded."""
    at = AppTest.from_file(APP, default_timeout=APP_TIMEOUT_S).run()
    at.switch_page(f"ui/pages/{page}.py").run()
    at.file_uploader(key=f"{page}_upload").set_value(
        ("plan.xlsx", workbook, "application/octet-stream")
    ).run()
    assert not at.exception
    return at


def _asked(at: AppTest) -> session.Question:
    """The question the dashboard answers (the fit until one is committed)."""
    key = session._QUESTION_KEY
    return at.session_state[key] if key in at.session_state else session.Question()


def _no_host_problem(at: AppTest) -> tuple[str, str]:
    """The (problem, fix) of the page's problem saying the workbook keeps no host."""
    for frame in (df.value for df in at.dataframe if "fix" in df.value.columns):
        found = frame[frame["problem"].str.contains("keeps no host")]
        if len(found):
            return str(found["problem"].iloc[0]), str(found["fix"].iloc[0])
    raise AssertionError("no problem says the workbook keeps no host")


def test_a_restored_sizing_plans_on_the_compare_page_as_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sizing of the sample with l40s-4 servers, restored on the dashboard, is asked again:
    the Compare page's question is 'Size a new cluster' with l40s-4 chosen, and its recommended
    plan buys what the command line bought, in the same words."""
    out = tmp_path / "plan.xlsx"
    printed = _sized(out, capsys, "--size", "l40s-4")
    answer = printed[0].removeprefix("Recommended plan: ")
    assert answer.startswith("Buy ")
    at = _uploaded(out.read_bytes())
    at.button(key=f"{UPLOAD}_restore").click().run()
    assert not at.exception
    asked = _asked(at)
    assert asked.kind is session.QuestionKind.SIZE
    assert [s.name for s in asked.servers] == ["l40s-4"]
    at.switch_page("ui/pages/compare.py").run()
    assert not at.exception
    assert at.radio(key="compare_question").value == session.QuestionKind.SIZE
    assert [
        label.split(" ")[0] for label in at.multiselect(key="compare_catalog_servers").value
    ] == ["l40s-4"]
    assert [s.value for s in at.success if s.value.startswith("Buy ")] == [answer]


def test_undo_of_a_restored_sizing_brings_the_question_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Undoing the restore of a sizing plans what was planned before it: the sample, fitted."""
    out = tmp_path / "plan.xlsx"
    _sized(out, capsys, "--size", "l40s-4", "--methods", "passthrough")
    at = _uploaded(out.read_bytes())
    at.button(key=f"{UPLOAD}_restore").click().run()
    assert _asked(at).kind is session.QuestionKind.SIZE
    at.button(key=f"{UPLOAD}_undo").click().run()
    assert not at.exception
    assert _asked(at) == session.Question()
    assert at.session_state[session._INPUTS_KEY] == session.sample_inputs()


def _of_no_host(book: Path) -> bytes:
    """``book`` as an older planner wrote a new cluster's sizing: no purchase row, and an
    inventory of no host (its header alone, with its check)."""
    opened = load_workbook(book)
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
    opened.save(book)
    return book.read_bytes()


def test_an_old_sizing_workbook_of_no_host_says_why_it_is_not_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sizing workbook keeping neither a host nor its server types is not restored: the
    problem says it keeps no host, that an older planner saved it, and how to plan it (the
    command line with --size TYPE, or its workloads and the Compare page's sizing)."""
    out = tmp_path / "plan.xlsx"
    _sized(out, capsys, "--size", "l40s-4", "--methods", "passthrough")
    book = _of_no_host(out)
    at = _uploaded(book, "workloads")
    assert not [b for b in at.button if b.key == "workloads_upload_restore"]
    assert any("cannot be restored" in w.value for w in at.warning)
    problem, fix = _no_host_problem(at)
    assert "older planner" in problem
    assert "--from-workbook plan.xlsx --size TYPE" in fix
    assert "size a new cluster" in fix
    at = _uploaded(book, "inventory")
    assert any("cannot be used" in e.value for e in at.error)
    assert "older planner" in _no_host_problem(at)[0]
