"""AppTest of the Workloads page: sample mix, presets, upload, the in-place editor, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from planner.inputs.presets import PRESETS, preset_frame

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")
HEADER = (
    "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,ram_gib,"
    "live_migration,isolation,latency_tolerant\n"
)


def _workloads_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page("ui/pages/workloads.py").run()


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_shows_the_sample_mix_in_an_editor() -> None:
    """Without changes the page shows the sample mix and its totals."""
    at = _workloads_page()
    assert not at.exception
    assert at.title[0].value == "Workloads"
    assert at.subheader[0].value == "In use: sample workloads.csv"
    assert int(_metric(at, "Workload classes")) > 0
    assert at.button(key="workloads_apply") is not None
    # Nothing edited yet, so no unsaved-changes notice.
    assert not any("changes the plan does not use yet" in i.value for i in at.info)


@pytest.mark.parametrize("key", list(PRESETS))
def test_loading_a_preset_plans_with_it(key: str) -> None:
    """Loading a preset makes its classes the mix in use, with their instance total."""
    at = _workloads_page()
    at.selectbox(key="workloads_preset").set_value(key)
    at.button(key="workloads_load_preset").click().run()
    assert not at.exception
    assert at.subheader[0].value == f"In use: preset {PRESETS[key].title}"
    frame = preset_frame(key)
    assert _metric(at, "Workload classes") == str(len(frame))
    assert _metric(at, "Instances") == f"{frame['instances'].astype(int).sum():,}"
    assert not at.warning  # presets are valid input: nothing skipped


def test_an_uploaded_mix_with_a_bad_row_loads_the_good_rows() -> None:
    """A bad cell would skip its row: the upload waits for Apply, then the good rows are the
    mix in use and the skipped row is listed with row, column and fix."""
    at = _workloads_page()
    text = (
        HEADER
        + "nb,notebook,10,0.25,8,0.1,9-17,5,4,16,yes,no,yes\n"
        + "oops,notebook,10,0.25,8,1.7,9-17,5,4,16,yes,no,yes\n"
    )
    at.file_uploader(key="workloads_upload").set_value(("mix.csv", text.encode(), "text/csv"))
    at.run()
    assert not at.exception
    assert at.subheader[0].value == "In use: sample workloads.csv"
    assert _metric(at, "Rows skipped") == "1"
    at.button(key="workloads_upload_apply").click().run()
    assert at.subheader[0].value == "In use: mix.csv"
    assert _metric(at, "Workload classes") == "1"
    assert any("1 row was skipped" in w.value for w in at.warning)
    problems = next(df.value for df in at.dataframe if "fix" in df.value.columns)
    assert problems.loc[0, "row"] == 3
    assert problems.loc[0, "column"] == "busy_fraction"


def test_an_unusable_upload_keeps_the_previous_mix() -> None:
    """A file that is not a workload CSV is refused with the reason; the sample stays in use."""
    at = _workloads_page()
    at.file_uploader(key="workloads_upload").set_value(("x.csv", b"a,b\n1,2\n", "text/csv"))
    at.run()
    assert not at.exception
    assert any("x.csv cannot be used" in e.value for e in at.error)
    assert at.subheader[0].value == "In use: sample workloads.csv"


def test_using_the_edited_table_goes_through_validation() -> None:
    """'Use this mix' validates the table like a file and plans with it under its own name."""
    at = _workloads_page()
    classes = _metric(at, "Workload classes")
    at.button(key="workloads_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: edited workload table"
    assert _metric(at, "Workload classes") == classes


def _edit(at: AppTest, row: int, column: str, value: object) -> AppTest:
    """Type ``value`` into one cell of the editor (0-based row) and press Use this mix."""
    at.session_state["workloads_editor"] = {
        "edited_rows": {row: {column: value}},
        "added_rows": [],
        "deleted_rows": [],
    }
    return at.button(key="workloads_apply").click().run()


def _first_class() -> str:
    sample = Path(__file__).resolve().parent.parent / "data" / "sample" / "workloads.csv"
    return sample.read_text().splitlines()[1].split(",")[0]


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("gpus", 1.5, "1.5 GPUs is more than one GPU but not a whole number"),
        ("instances", 1.5, "1.5 is not a whole number"),
    ],
)
def test_a_bad_cell_keeps_its_row_and_is_named_in_the_editors_words(
    column: str, value: float, said: str
) -> None:
    """A bad cell applies nothing: the mix in use keeps every class, the error names the row,
    the class and the column as the editor shows them, and the bad cell is marked."""
    at = _workloads_page()
    classes = _metric(at, "Workload classes")
    _edit(at, 0, column, value)
    assert not at.exception
    assert at.subheader[0].value == "In use: sample workloads.csv"
    assert _metric(at, "Workload classes") == classes
    error = next(e.value for e in at.error if "1 cell needs a change" in e.value)
    assert "nothing was dropped" in error
    assert f"Row 1 ({_first_class()}), column “{column}”" in error.replace("\\", "")
    assert said in error.replace("\\", "")
    assert "file" not in error
    marked = next(df for df in at.dataframe if df.value.index.tolist() == ["row 1"])
    assert marked.value.loc["row 1", column] == value  # kept as typed, never 15
    # Exactly that cell is marked (pandas Styler CSS names cells rowN_colM).
    styles = str(marked.proto.arrow_data.styler.styles)
    marked_cells = re.findall(r"row\d+_col\d+(?=[^{]*\{[^}]*background-color)", styles)
    assert set(marked_cells) == {f"row0_col{list(marked.value.columns).index(column)}"}
    # The edit stays in the editor, so the user corrects it there.
    assert at.session_state["workloads_editor"]["edited_rows"] == {0: {column: value}}


def test_a_corrected_cell_applies_the_whole_mix() -> None:
    """A valid edit of a whole-number column is applied, written as a whole number."""
    at = _workloads_page()
    _edit(at, 0, "instances", 3.0)
    assert not at.error
    assert at.subheader[0].value == "In use: edited workload table"
    editor = at.data_editor(key="workloads_editor").value
    assert editor.loc[0, "instances"] == 3


def test_a_duplicate_name_names_the_first_use_by_the_editors_row() -> None:
    """A name typed twice is refused with both rows numbered as the editor shows them: the
    second class takes the first class's name, so row 2 repeats row 1 (not the CSV's row 2)."""
    at = _workloads_page()
    _edit(at, 1, "name", _first_class())
    assert not at.exception
    error = next(e.value for e in at.error if "1 cell needs a change" in e.value).replace("\\", "")
    assert f"Row 2 ({_first_class()}), column “name”" in error
    assert "already used on row 1" in error


def test_an_unapplied_edit_stays_in_the_table_after_leaving_the_page() -> None:
    """A cell typed and not applied is in the table again on coming back to the page, still
    waiting for Use this mix: the mix in use is unchanged until then, and the edit is used
    when applied."""
    at = _workloads_page()
    at.session_state["workloads_editor"] = {
        "edited_rows": {0: {"instances": 3}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.switch_page("ui/pages/inventory.py").run()
    at.switch_page("ui/pages/workloads.py").run()
    assert not at.exception
    assert at.subheader[0].value == "In use: sample workloads.csv"
    assert at.data_editor(key="workloads_editor").value.loc[0, "instances"] == 3
    assert any("changes the plan does not use yet" in i.value for i in at.info)
    at.button(key="workloads_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: edited workload table"
    assert at.data_editor(key="workloads_editor").value.loc[0, "instances"] == 3
    assert not any("changes the plan does not use yet" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("# old notebooks", "the row starts with # and is read as a comment: it is not planned"),
        ("Total", "'Total' and empty cells: a spreadsheet's total row, not a row of the workload"),
    ],
)
def test_a_comment_or_total_row_typed_in_the_editor_is_no_class(name: str, said: str) -> None:
    """A row whose name starts with # (a comment) or reads Total over an empty cell is no
    workload class, as in a workload CSV: it is named with the CSV loader's words and fix, and
    the mix in use keeps its classes (it was planned as a class named '# old notebooks')."""
    at = _workloads_page()
    classes = _metric(at, "Workload classes")
    at.session_state["workloads_editor"] = {
        "edited_rows": {0: {"name": name, "vcpus": None if name == "Total" else 4}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.button(key="workloads_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: sample workloads.csv"
    assert _metric(at, "Workload classes") == classes
    error = next(e.value for e in at.error if "needs a change" in e.value).replace("\\", "")
    assert f"Row 1 ({name}): {said}" in error


def test_hours_that_are_also_an_excel_time_apply_with_a_note() -> None:
    """0.375 typed as a class's active hours is read as 0.375 hours a day and applied: the
    note that it is also Excel's 09:00 is listed under the mix in use, and the notice says no
    row was skipped (it said '1 row was skipped', and the editor refused the table)."""
    at = _workloads_page()
    classes = _metric(at, "Workload classes")
    _edit(at, 0, "active_hours", "0.375")
    assert not at.exception
    assert not at.error
    assert at.subheader[0].value == "In use: edited workload table"
    assert _metric(at, "Workload classes") == classes
    notice = next(w.value for w in at.warning if "1 problem in" in w.value)
    assert "no row was skipped" in notice
    problems = next(df.value for df in at.dataframe if "fix" in df.value.columns)
    assert list(problems["column"]) == ["active_hours"]
    assert "Excel's number for the time 09:00" in problems.loc[0, "problem"]
