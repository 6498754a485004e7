"""Tests for planner.inputs.workloads: the workload CSV, schedules and instance expansion."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import load_inventory
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError
from planner.inputs.tabular import CellError
from planner.inputs.workloads import (
    HOURS_PER_DAY,
    REQUIRED_WORKLOAD_COLUMNS,
    WORKLOAD_COLUMNS,
    WorkloadKind,
    expand_instances,
    load_workloads,
    parse_active_hours,
    schedule_text,
    workloads_frame,
    workloads_from_frame,
)
from planner.methods.registry import Method
from planner.output.report import plan_scenario
from planner.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
HEADER = ",".join(REQUIRED_WORKLOAD_COLUMNS)
# A valid row for HEADER; tests change one cell at a time.
GOOD = "nb,notebook,4,0.25,10,0.1,8,5,4,32,no,no,yes"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def _row(**cells: str) -> str:
    values = dict(zip(REQUIRED_WORKLOAD_COLUMNS, GOOD.split(","), strict=True))
    values.update(cells)
    return ",".join(values.values())


def _problem_columns(data: bytes, catalog: Catalog) -> list[str | None]:
    return [p.column for p in load_workloads(data, catalog).problems]


def test_sample_workloads_load_without_problems(catalog: Catalog) -> None:
    """The shipped sample has no bad cell: 15 classes, 308 instances, every kind."""
    loaded = load_workloads(ROOT / "data" / "sample" / "workloads.csv", catalog)
    assert loaded.problems == ()
    assert len(loaded.value) == 15
    assert sum(w.instances for w in loaded.value) == 308
    assert {w.kind for w in loaded.value} == set(WorkloadKind)


def test_template_loads_without_problems(catalog: Catalog) -> None:
    """The template's example rows are valid, so a user can start from them."""
    loaded = load_workloads(ROOT / "data" / "templates" / "workloads_template.csv", catalog)
    assert loaded.problems == ()
    assert len(loaded.value) == 3


def test_a_good_row_gives_every_field(catalog: Catalog) -> None:
    """A row maps to a WorkloadClass: units, yes/no flags and default priority 2."""
    (workload,) = load_workloads(_csv(GOOD), catalog).value
    assert workload.name == "nb"
    assert workload.kind is WorkloadKind.NOTEBOOK
    assert (workload.instances, workload.gpus, workload.memory_gib) == (4, 0.25, 10)
    assert (workload.busy_fraction, workload.days_per_week) == (0.1, 5)
    assert (workload.vcpus, workload.ram_gib) == (4, 32)
    assert (workload.needs_live_migration, workload.needs_isolation) == (False, False)
    assert workload.latency_tolerant is True
    assert workload.priority == 2
    assert workload.gpu_models == ()


def test_notebook_hours_start_at_nine(catalog: Catalog) -> None:
    """'8' hours for a notebook means 9:00-17:00: hours 9..16 active, others idle."""
    (workload,) = load_workloads(_csv(GOOD), catalog).value
    assert [h for h, share in enumerate(workload.daily_schedule) if share] == list(range(9, 17))
    assert workload.active_hours_per_day == 8


def test_fractional_hours_give_a_partial_last_hour() -> None:
    """2.5 notebook hours are 9-10 and 10-11 in full and half of 11-12."""
    schedule = parse_active_hours("2.5", WorkloadKind.NOTEBOOK)
    assert schedule[9:12] == (1.0, 1.0, 0.5)
    assert sum(schedule) == 2.5
    assert len(schedule) == HOURS_PER_DAY


def test_default_start_hours_per_kind() -> None:
    """A number of hours starts at 8:00 for VDI and 20:00 for batch (wrapping past midnight)."""
    vdi = parse_active_hours("9", WorkloadKind.VDI)
    assert [h for h, s in enumerate(vdi) if s] == list(range(8, 17))
    batch = parse_active_hours("6", WorkloadKind.BATCH)
    assert [h for h, s in enumerate(batch) if s] == [0, 1, 20, 21, 22, 23]


def test_training_and_inference_hours_are_spread_over_the_day() -> None:
    """12 hours of inference is half the instances active in every hour, not 12 busy hours."""
    assert parse_active_hours("12", WorkloadKind.INFERENCE) == (0.5,) * HOURS_PER_DAY


def test_overnight_range_wraps_midnight() -> None:
    """22-6 is active 22:00-24:00 and 0:00-6:00, eight hours in all."""
    schedule = parse_active_hours("22-6", WorkloadKind.BATCH)
    assert [h for h, s in enumerate(schedule) if s] == [0, 1, 2, 3, 4, 5, 22, 23]
    assert sum(schedule) == 8


def test_several_ranges_and_half_hours() -> None:
    """9-12,13-18 leaves lunch idle; 9:30-11 is half of hour 9 and all of hour 10."""
    lunch = parse_active_hours("9-12,13-18", WorkloadKind.VDI)
    assert lunch[12] == 0
    assert sum(lunch) == 8
    assert parse_active_hours("9:30-11", WorkloadKind.VDI)[9:11] == (0.5, 1.0)


def test_always_on() -> None:
    """24x7 is every hour at full share."""
    assert parse_active_hours("24x7", WorkloadKind.NOTEBOOK) == (1.0,) * HOURS_PER_DAY


@pytest.mark.parametrize(
    "text", ["", "all day", "25", "0", "9-9", "9-12,11-13", "8-25", "0 1 2", "9:75-10"]
)
def test_bad_schedules_say_which_forms_are_accepted(text: str) -> None:
    """Unreadable, empty, overlapping or out-of-range schedules raise with a fix."""
    with pytest.raises(CellError) as raised:
        parse_active_hours(text, WorkloadKind.BATCH)
    assert raised.value.fix


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("24x7", WorkloadKind.TRAINING),
        ("22-6", WorkloadKind.BATCH),
        ("9-12,13-18", WorkloadKind.VDI),
        ("2.5", WorkloadKind.NOTEBOOK),
        ("12", WorkloadKind.INFERENCE),
        ("9:30-17", WorkloadKind.VDI),
    ],
)
def test_schedule_text_reads_back_to_the_same_schedule(text: str, kind: WorkloadKind) -> None:
    """Whatever form a schedule was written in, schedule_text gives text that parses back equal."""
    schedule = parse_active_hours(text, kind)
    assert parse_active_hours(schedule_text(schedule, kind), kind) == schedule


def test_schedule_text_prefers_the_short_forms() -> None:
    """Whole-hour schedules are written as ranges, default-start ones as a number of hours."""
    assert schedule_text(parse_active_hours("22-6", WorkloadKind.BATCH), WorkloadKind.BATCH) == (
        "22-6"
    )
    half = parse_active_hours("2.5", WorkloadKind.NOTEBOOK)
    assert schedule_text(half, WorkloadKind.NOTEBOOK) == "2.5"


def test_busy_fraction_accepts_a_percentage(catalog: Catalog) -> None:
    """'35%' and 0.35 mean the same busy share."""
    (workload,) = load_workloads(_csv(_row(busy_fraction="35%")), catalog).value
    assert workload.busy_fraction == pytest.approx(0.35)


def test_busy_fraction_above_one_says_the_range(catalog: Catalog) -> None:
    """35 (without %) is out of range; the fix offers 0-1 or a percentage."""
    loaded = load_workloads(_csv(_row(busy_fraction="35"), GOOD.replace("nb", "ok")), catalog)
    (problem,) = loaded.problems
    assert problem.column == "busy_fraction"
    assert "0 to 1" in problem.fix
    assert "35%" in problem.fix


@pytest.mark.parametrize("gpus", ["1.5", "0", "-1", "two"])
def test_gpus_must_be_a_fraction_or_whole(catalog: Catalog, gpus: str) -> None:
    """GPUs per instance is a fraction up to 1 or a whole number; 1.5 is neither."""
    loaded = load_workloads(_csv(_row(gpus=gpus), GOOD.replace("nb", "ok")), catalog)
    (problem,) = loaded.problems
    assert problem.column == "gpus"
    assert "whole GPUs" in problem.fix


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [
        ("kind", "gaming", "training, inference, notebook, batch, vdi"),
        ("days_per_week", "8", "from 1 to 7"),
        ("instances", "0", "whole number from 1 to 100000"),
        ("live_migration", "sometimes", "yes or no"),
        ("memory_gib", "", "above 0"),
        ("active_hours", "lunchtime", "24x7"),
        ("name", "a#b", "remove the #"),
    ],
)
def test_bad_cells_name_row_column_and_fix(
    catalog: Catalog, column: str, value: str, words: str
) -> None:
    """Each bad cell is a problem at its spreadsheet row and column, with the allowed values."""
    data = _csv(GOOD.replace("nb", "first"), _row(**{column: value}))
    loaded = load_workloads(data, catalog, file_name="mix.csv")
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("mix.csv", 3, column)
    assert words in problem.fix
    assert [w.name for w in loaded.value] == ["first"]


def test_bad_schedule_is_reported_with_another_bad_cell(catalog: Catalog) -> None:
    """A row with a bad kind and a bad schedule lists both problems, not only the first."""
    data = _csv(GOOD.replace("nb", "ok"), _row(kind="x", active_hours="never"))
    assert sorted(map(str, _problem_columns(data, catalog))) == ["active_hours", "kind"]


def test_gpu_models_resolve_and_unknown_ones_get_suggestions(catalog: Catalog) -> None:
    """'h100 80gb sxm|L40S' resolves to catalog names; 'L40X' suggests L40S and L40."""
    header = HEADER + ",priority,gpu_models"
    data = _csv(
        GOOD + ",1,h100 80gb sxm|L40S",
        GOOD.replace("nb", "nb2") + ",,L40X",
        header=header,
    )
    loaded = load_workloads(data, catalog)
    (workload,) = loaded.value
    assert workload.gpu_models == ("H100-80GB-SXM", "L40S")
    assert workload.priority == 1
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (3, "gpu_models")
    assert "'L40S'" in problem.fix


def test_duplicate_names_make_the_file_unusable(catalog: Catalog) -> None:
    """Two classes named alike would share instance ids: the file is refused, naming both rows."""
    with pytest.raises(InputError) as raised:
        load_workloads(_csv(GOOD, GOOD), catalog)
    (problem,) = raised.value.problems
    assert (problem.row, problem.column) == (3, "name")
    assert "row 2" in problem.message


def test_missing_columns_are_fatal(catalog: Catalog) -> None:
    """A file without active_hours and vcpus raises one problem per missing column."""
    header = ",".join(c for c in REQUIRED_WORKLOAD_COLUMNS if c not in {"active_hours", "vcpus"})
    with pytest.raises(InputError) as raised:
        load_workloads(_csv(header=header), catalog)
    missing = [p.message for p in raised.value.problems]
    assert len(missing) == 2
    assert any("'active_hours'" in m for m in missing)


def test_expand_instances_orders_by_priority_then_file_order(catalog: Catalog) -> None:
    """Priority 1 classes come first; equal priorities keep file order; ids are name#n."""
    header = HEADER + ",priority"
    data = _csv(
        _row(name="late", instances="1") + ",3",
        _row(name="b", instances="2") + ",2",
        _row(name="first", instances="1") + ",1",
        _row(name="c", instances="1") + ",2",
    )
    data = data.replace(HEADER.encode(), header.encode(), 1)
    ids = [i.id for i in expand_instances(load_workloads(data, catalog).value)]
    assert ids == ["first#1", "b#1", "b#2", "c#1", "late#1"]


def test_frame_round_trip_is_stable(catalog: Catalog) -> None:
    """workloads -> frame -> workloads is equal, and the frame written again is identical."""
    workloads = load_workloads(ROOT / "data" / "sample" / "workloads.csv", catalog).value
    frame = workloads_frame(workloads)
    assert list(frame.columns) == list(WORKLOAD_COLUMNS)
    again = workloads_from_frame(frame, catalog, file_name="edited")
    assert again.problems == ()
    assert again.value == workloads
    pd.testing.assert_frame_equal(workloads_frame(again.value), frame)


def test_frame_round_trip_keeps_odd_schedules(catalog: Catalog) -> None:
    """A schedule no short form expresses (9:30-17) survives frame -> workloads -> frame."""
    (workload,) = load_workloads(_csv(_row(active_hours="9:30-17")), catalog).value
    frame = workloads_frame([workload])
    (again,) = workloads_from_frame(frame, catalog, file_name="edited").value
    assert again.daily_schedule == workload.daily_schedule


def test_edited_frame_problems_use_csv_row_numbers(catalog: Catalog) -> None:
    """A bad cell typed in the dashboard's table is reported at the row a CSV would show."""
    frame = workloads_frame(load_workloads(_csv(GOOD), catalog).value)
    bad = frame.assign(name="other", days_per_week=9)
    loaded = workloads_from_frame(pd.concat([frame, bad]), catalog, file_name="edited table")
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("edited table", 3, "days_per_week")


def test_unquoted_comma_in_a_schedule_skips_the_row_with_the_quoting_fix(
    catalog: Catalog,
) -> None:
    """9-12,13-18 without quotes splits into two cells: that row is skipped, quoting is the fix."""
    unquoted = _row(name="split", active_hours="9-12,13-18")
    quoted = _row(name="quoted", active_hours='"9-12,13-18"')
    loaded = load_workloads(_csv(unquoted, quoted), catalog)
    assert [w.name for w in loaded.value] == ["quoted"]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (2, None)
    assert "double quotes" in problem.fix


def test_unquoted_schedule_is_caught_even_when_the_last_cell_is_empty(catalog: Catalog) -> None:
    """With an empty last cell the split still leaves one cell too many: the row is skipped."""
    header = HEADER + ",priority,gpu_models"
    row = _row(name="split", active_hours="9-12,13-18") + ",2,"
    loaded = load_workloads(_csv(row, GOOD + ",2,", header=header), catalog)
    assert [w.name for w in loaded.value] == ["nb"]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (2, None)
    assert "16 cells but the header has 15 columns" in problem.message


def test_trailing_blank_columns_are_accepted(catalog: Catalog) -> None:
    """A file saved with a trailing comma on every line (blank last column) loads cleanly."""
    data = (HEADER + ",\n" + GOOD + ",\n").encode()
    loaded = load_workloads(data, catalog)
    assert loaded.problems == ()
    assert [w.name for w in loaded.value] == ["nb"]


def test_error_messages_quoted_in_the_docs_are_the_real_ones(catalog: Catalog) -> None:
    """docs/input-formats.md quotes each common error exactly as the loaders word it."""
    docs = (ROOT / "docs" / "input-formats.md").read_text().replace("\\|", "|")
    mix = _csv(
        _row(name="a", kind="gaming"),
        _row(name="b", gpus="1.5"),
        _row(name="c", busy_fraction="35"),
        _row(name="d", days_per_week="8"),
        _row(name="e", active_hours="lunch"),
        GOOD,
    ).decode()
    mix_full = (
        HEADER + ",priority,gpu_models\n" + GOOD + ",2,L40X\n" + GOOD.replace("nb", "ok") + ",2,\n"
    )
    inventory = (
        "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,mig_enabled\n"
        "a,x,A100 80GB,4,64,512,100,yes,\nb,x,L4,two,32,256,25,maybe,\n"
        "c,x,L40S,4,64,512,100,yes,yes\nd,x,A16,6,64,512,25,no,\ne,x,L4,2,32,256,25,no,\n"
    )
    problems = [
        *load_workloads(mix.encode(), catalog).problems,
        *load_workloads(mix_full.encode(), catalog).problems,
        *load_inventory(inventory.encode(), catalog).problems,
    ]
    assert len(problems) == 11
    for problem in problems:
        assert f"{problem.message}. Fix: {problem.fix}" in docs, str(problem)


def test_sample_scenario_makes_an_interesting_comparison(catalog: Catalog) -> None:
    """Every single method places some but not all sample instances, each plan feasible; the
    methods that serve the vSphere clusters (most of the sample) place most (over half); the
    recommended mix places them all."""
    inventory = load_inventory(ROOT / "data" / "sample" / "inventory.csv", catalog).value
    workloads = load_workloads(ROOT / "data" / "sample" / "workloads.csv", catalog).value
    total = sum(w.instances for w in workloads)
    plan = plan_scenario(Scenario(catalog, inventory, workloads))
    assert [r.method for r in plan.singles] == list(Method)
    for result in plan.singles:
        method = result.method
        assert method is not None
        not_placed = len(result.plan.not_placed)
        assert 0 < not_placed < total, method
        if Platform.VSPHERE in method.rules.platforms:
            assert not_placed < total / 2, method
        assert result.feasibility_violations == (), method
    assert plan.recommended is not None
    assert plan.recommended.result.plan.not_placed == ()
    assert plan.recommended.result.feasibility_violations == ()


def test_max_slowdown_is_optional_and_at_least_one(catalog: Catalog) -> None:
    """An empty max_slowdown leaves the plan's default (None); below 1 is a cell problem."""
    header = HEADER + ",max_slowdown"
    data = _csv(_row(name="a") + ",", _row(name="b") + ",2", _row(name="c") + ",0.9", header=header)
    loaded = load_workloads(data, catalog)
    assert [w.max_slowdown for w in loaded.value] == [None, 2.0]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (4, "max_slowdown")
    assert "at least 1" in problem.fix


def test_cells_in_the_columns_units_are_read(catalog: Catalog) -> None:
    """``0.25 GPU``, ``10 GiB``, ``4 vCPUs`` and ``32Gi`` read as the bare numbers."""
    row = _row(gpus="0.25 GPU", memory_gib="10 GiB", vcpus="4 vCPUs", ram_gib="32Gi")
    loaded = load_workloads(_csv(row), catalog)
    (workload,) = loaded.value
    assert (workload.gpus, workload.memory_gib, workload.vcpus, workload.ram_gib) == (
        0.25,
        10,
        4,
        32,
    )
    assert loaded.problems == ()


def test_memory_in_gb_is_refused_with_both_readings(catalog: Catalog) -> None:
    """``80GB`` of GPU memory reads two ways (80 GiB as GPUs are sold, or 74.5 GiB): the row is
    skipped with a problem on memory_gib giving both numbers to write."""
    data = _csv(_row(), _row(name="big", memory_gib="80GB"))
    loaded = load_workloads(data, catalog, file_name="mix.csv")
    assert [w.name for w in loaded.value] == ["nb"]
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("mix.csv", 3, "memory_gib")
    assert "reads two ways" in problem.message
    assert "or 74.5 if it is gigabytes" in problem.fix


def test_hourly_shares_with_decimal_commas_in_a_semicolon_file_are_read(
    catalog: Catalog,
) -> None:
    """A spreadsheet in a decimal-comma locale writes 24 hourly shares as ``0,5 0,25 …`` in a
    semicolon-separated file, as it writes every other number there: read as 0.5, 0.25, …"""
    shares = [0.0] * 8 + [0.5, 1.0, 1.0, 0.25] + [0.0] * 12
    written = " ".join(f"{s:g}".replace(".", ",") for s in shares)
    row = GOOD.replace(",", ";").split(";")
    row[6] = written
    row[5] = "0,1"
    data = (HEADER.replace(",", ";") + "\n" + ";".join(row) + "\n").encode()

    loaded = load_workloads(data, catalog)

    assert loaded.problems == ()
    assert loaded.value[0].daily_schedule == tuple(shares)


def test_a_class_commented_out_with_a_hash_is_listed_not_planned(catalog: Catalog) -> None:
    """A workload row whose first cell starts with # is a comment: no class is read from it,
    and it is listed by row as left out."""
    loaded = load_workloads(_csv(GOOD, "#" + GOOD), catalog)
    assert [w.name for w in loaded.value] == ["nb"]
    ((row, message),) = [(p.row, p.message) for p in loaded.problems]
    assert row == 3
    assert "starts with #" in message


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        ("17-Sep", "9-17 or 17-9"),
        ("Sep-17", "9-17 or 17-9"),
        ("22-Jun", "6-22 or 22-6"),
        ("9/17/2026", "9-17 or 17-9"),
        ("17.09.2026", "9-17 or 17-9"),
        ("2026-09-17", "9-17 or 17-9"),
        ("17-Sep-26", "9-17 or 17-9"),
        ("46282", "9-17 or 17-9"),
    ],
)
def test_an_hour_range_excel_turned_into_a_date_is_named_as_such(text: str, ranges: str) -> None:
    """Excel saves the range 9-17 as 17-Sep (or Sep-17, 9/17/2026, a date serial), and 22-6 as
    22-Jun. Whether 17-Sep was 9-17 (a day) or 17-9 (overnight) depends on the locale that
    saved it, so it is not read back: the problem names the date, both ranges it may have
    been, and how to keep Excel from changing it."""
    with pytest.raises(CellError) as raised:
        parse_active_hours(text, WorkloadKind.NOTEBOOK)
    assert "Excel" in raised.value.message
    assert ranges in raised.value.message
    day = ranges.split(" or ")[0]
    assert "Text" in raised.value.fix
    assert f"{day.replace('-', ':00-')}:00" in raised.value.fix


def test_an_excel_date_in_a_workloads_file_is_one_problem_on_its_cell(catalog: Catalog) -> None:
    """A row whose active_hours Excel made a date is listed once, on that column."""
    loaded = load_workloads(_csv(GOOD, _row(name="nb2", active_hours="22-Jun")), catalog)
    ((problem,),) = [loaded.problems]
    assert (problem.row, problem.column) == (3, "active_hours")
    assert "a date" in problem.message


def test_the_docs_quote_the_excel_date_and_comment_row_messages(catalog: Catalog) -> None:
    """docs/input-formats.md quotes the problems of a range Excel made a date and of a row
    commented out with # as the loader words them."""
    docs = (ROOT / "docs" / "input-formats.md").read_text()
    loaded = load_workloads(_csv(GOOD, _row(name="d", active_hours="17-Sep"), "#gpu-old"), catalog)
    assert len(loaded.problems) == 2
    for problem in loaded.problems:
        assert f"`{problem.message}. Fix: {problem.fix}`" in docs
