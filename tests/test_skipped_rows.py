"""Nothing lost: every skipped input row reaches the workbook's Input problems sheet, a summary
line on the command line and the Compare page; --strict fails on any."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from openpyxl import load_workbook
from streamlit.testing.v1 import AppTest

from planner.cli import EXIT_POLICY, build_parser, main
from planner.inputs.problems import InputProblem, skipped_summary
from ui import planning, session

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
BAD_ROWS = [
    "bad-1,c,NoSuchGPU,4,64,512,100,yes",
    "bad-2,c,L40S,4,64,512,100,maybe",
]


def _inventory_with_bad_rows(tmp_path: Path) -> Path:
    """The sample inventory with two bad rows after its good ones (rows N+1 and N+2)."""
    text = (SAMPLE / "inventory.csv").read_text().rstrip("\n")
    columns = text.splitlines()[0].count(",") + 1
    padding = "," * (columns - 8)
    path = tmp_path / "hosts.csv"
    path.write_text(text + "\n" + "\n".join(row + padding for row in BAD_ROWS) + "\n")
    return path


def _bad_row_numbers(path: Path) -> list[int]:
    lines = path.read_text().splitlines()
    return [len(lines) - 1, len(lines)]


def test_the_summary_counts_rows_and_other_problems() -> None:
    """Two problems on one row are one skipped row; a problem without a row is counted apart."""
    problems = [
        InputProblem("a.csv", 3, "x", "bad", "fix"),
        InputProblem("a.csv", 3, "y", "bad", "fix"),
        InputProblem("b.csv", 7, "x", "bad", "fix"),
        InputProblem("b.csv", None, "mig_enable", "unknown column", "rename"),
    ]
    assert skipped_summary(problems) == "2 rows skipped in a.csv, b.csv, 1 other problem"
    assert skipped_summary(problems[:1]) == "1 row skipped in a.csv"
    assert skipped_summary([]) is None


def test_the_workbook_lists_every_skipped_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad row next to good ones is planned around, and the workbook's Input problems sheet
    names its file, row, column, reason and fix."""
    inventory = _inventory_with_bad_rows(tmp_path)
    out = tmp_path / "plan.xlsx"
    code = main(
        [
            "plan",
            "--inventory",
            str(inventory),
            "--methods",
            "passthrough",
            "--no-harvest",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    sheet = load_workbook(out)["Input problems"]
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0] == ("File", "Row", "Column", "Problem", "How to fix it")
    listed = {(r[0], r[1], r[2]) for r in rows[1:]}
    first, second = _bad_row_numbers(inventory)
    assert listed == {("hosts.csv", first, "gpu_model"), ("hosts.csv", second, "rdma")}
    assert all(r[3] and r[4] for r in rows[1:])


def test_the_command_line_ends_the_list_with_a_summary_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """stderr lists each skipped row, then one line counting them and saying where they are."""
    inventory = _inventory_with_bad_rows(tmp_path)
    out = tmp_path / "plan.xlsx"
    code = main(
        [
            "plan",
            "--inventory",
            str(inventory),
            "--methods",
            "passthrough",
            "--no-harvest",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    err = capsys.readouterr().err.splitlines()
    assert sum(line.startswith("input: hosts.csv, row") for line in err) == 2
    assert err[-1] == (
        "plan: 2 rows skipped in hosts.csv: see the list above and in the workbook's "
        "Input problems sheet."
    )


def test_strict_fails_on_any_skipped_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --strict a skipped row exits 2 and nothing is planned or written."""
    inventory = _inventory_with_bad_rows(tmp_path)
    out = tmp_path / "plan.xlsx"
    code = main(["plan", "--strict", "--inventory", str(inventory), "--out", str(out)])
    assert code == 2
    captured = capsys.readouterr()
    assert "--strict" in captured.err
    assert captured.out == ""
    assert not out.exists()


def test_strict_passes_clean_input(tmp_path: Path) -> None:
    """--strict changes nothing when every row is usable."""
    out = tmp_path / "plan.xlsx"
    assert (
        main(["plan", "--strict", "--methods", "passthrough", "--no-harvest", "--out", str(out)])
        == 0
    )
    sheet = load_workbook(out)["Input problems"]
    assert list(sheet.iter_rows(values_only=True)) == [
        ("File", "Row", "Column", "Problem", "How to fix it")
    ]


def test_harvest_strict_fails_on_a_skipped_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The harvest command obeys --strict too."""
    inventory = _inventory_with_bad_rows(tmp_path)
    assert main(["harvest", "--strict", "--inventory", str(inventory)]) == 2
    assert "2 rows skipped in hosts.csv" in capsys.readouterr().err


def test_the_exit_status_policy_is_in_the_help() -> None:
    """`plan --help` states the exit statuses and --strict."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    plan_help = subparsers.choices["plan"].format_help()  # type: ignore[attr-defined]
    assert "--strict" in plan_help
    assert " ".join(EXIT_POLICY.split()) in " ".join(plan_help.split())


def test_the_compare_page_says_how_many_rows_the_plan_leaves_out() -> None:
    """The Compare page warns with the count of skipped rows, and the dashboard's workbook
    lists them on its Input problems sheet."""
    # Rows with fewer cells than the header leave the missing optional cells empty.
    bad = "\n".join(BAD_ROWS)
    data = (SAMPLE / "inventory.csv").read_bytes().rstrip(b"\n") + b"\n" + bad.encode() + b"\n"
    inputs = session.ScenarioInputs(
        inventory=session.InputFile("hosts.csv", data),
        workloads=session.sample_inputs().workloads,
    )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state[session._INPUTS_KEY] = inputs
    at.run()
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any(
        w.startswith("2 rows skipped in hosts.csv: the plan leaves them out") for w in warnings
    )
    book = load_workbook(io.BytesIO(planning.workbook(inputs, session.Question())))
    listed = [r[:3] for r in book["Input problems"].iter_rows(min_row=2, values_only=True)]
    assert [column for *_, column in listed] == ["gpu_model", "rdma"]


def test_a_problem_on_a_row_kept_is_not_a_skipped_row() -> None:
    """A problem whose row is still used (a value corrected or assumed) counts as another
    problem, not a row skipped; a row both kept by one problem and left out by another is one
    row skipped."""
    problems = [
        InputProblem("a.csv", 3, "index", "bad index: kept", "fix", row_kept=True),
        InputProblem("a.csv", 4, "name", "invisible characters removed", "fix", row_kept=True),
        InputProblem("a.csv", 4, "gpus", "not a count: row left out", "fix"),
        InputProblem("b.csv", None, None, "unknown column", "fix"),
    ]
    assert skipped_summary(problems) == "1 row skipped in a.csv, 2 other problems"
    assert skipped_summary(problems[:1]) == "1 other problem"
