"""Weekly demand curves, their parser, and the pool-versus-static comparison."""

from __future__ import annotations

import numpy as np
import pytest

from planner.inputs.problems import InputError
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.scenario import Scenario
from planner.time.demand import (
    CURVE_PRESETS,
    HOURS_PER_WEEK,
    WeeklyCurve,
    curve_preset,
    parse_curve,
    pool_vs_static,
    schedule_curve,
    step_labels,
    weekly_demand,
)
from tests import builders
from tests.builders import NIGHT, OFFICE

L40S = builders.gpu_model("L40S", 48.0, price_usd=9000.0)


def workload(
    name: str,
    *,
    instances: int = 10,
    gpus: float = 0.25,
    memory_gib: float = 12.0,
    schedule: tuple[float, ...] = OFFICE,
    days_per_week: int = 7,
    kind: WorkloadKind = WorkloadKind.NOTEBOOK,
) -> WorkloadClass:
    return builders.workload(
        name,
        kind=kind,
        instances=instances,
        gpus=gpus,
        memory_gib=memory_gib,
        schedule=schedule,
        days_per_week=days_per_week,
    )


def scenario(*workloads: WorkloadClass) -> Scenario:
    hosts = [builders.host("h1", "L40S", 8, ram_gib=512.0)]
    return builders.scenario_of([L40S], hosts, workloads)


def test_every_preset_is_a_week_of_shares() -> None:
    """Every preset has 168 hourly values, each a share of instances between 0 and 1."""
    for name, curve in CURVE_PRESETS.items():
        values = curve.as_array()
        assert values.shape == (HOURS_PER_WEEK,), name
        assert values.min() >= 0.0, name
        assert values.max() <= 1.0, name
        assert values.max() > 0.0, name


def test_vdi_office_curve_follows_the_domain_ranges() -> None:
    """The VDI office preset sits inside the typical VDI curve's ranges (8-9 h
    60-70 %, 9-11 h 100 %, ...) on weekdays and is low at weekends."""
    monday = curve_preset("vdi-office").as_array()[:24]
    ranges = {
        (6, 8): (0.05, 0.10),
        (8, 9): (0.60, 0.70),
        (9, 11): (1.0, 1.0),
        (11, 13): (0.80, 0.90),
        (13, 15): (0.95, 1.0),
        (15, 17): (0.50, 0.70),
        (17, 20): (0.10, 0.30),
        (20, 24): (0.05, 0.10),
        (0, 6): (0.05, 0.10),
    }
    for (start, end), (low, high) in ranges.items():
        hours = monday[start:end]
        assert hours.min() >= low - 1e-12, (start, end)
        assert hours.max() <= high + 1e-12, (start, end)
    # 15-17 h falls from 70 % towards 50 %, 17-20 h from 30 % towards 10 %.
    assert monday[15] > monday[16]
    assert monday[17] > monday[18] > monday[19]
    weekend = curve_preset("vdi-office").as_array()[5 * 24 :]
    assert weekend.max() <= 0.10


def test_unknown_preset_names_the_choices() -> None:
    """Asking for a preset that does not exist lists the ones that do."""
    with pytest.raises(ValueError, match="vdi-office"):
        curve_preset("vdi")


def test_a_daily_curve_repeats_every_day() -> None:
    """24 pasted values make a week in which every day is that day."""
    values = [h / 23 for h in range(24)]
    curve = parse_curve(", ".join(str(v) for v in values), source="paste")
    week = curve.as_array().reshape(7, 24)
    assert curve.steps_per_hour == 1
    for day in week:
        np.testing.assert_allclose(day, values)


def test_a_weekly_curve_is_read_in_order() -> None:
    """168 values, one per line, are Monday 00:00 to Sunday 23:00 in order."""
    values = [(i % 11) / 10 for i in range(168)]
    curve = parse_curve("\n".join(str(v) for v in values), source="week.csv")
    np.testing.assert_allclose(curve.as_array(), values)
    assert curve.name == "week.csv"


def test_percentages_are_read_as_percent() -> None:
    """A value above 1 (or a % sign) makes every value a percentage of peak."""
    text = " ".join(["50"] * 12 + ["100"] * 12)
    curve = parse_curve(text, source="paste")
    assert curve.values[0] == pytest.approx(0.5)
    assert curve.values[12] == pytest.approx(1.0)
    with_sign = parse_curve(";".join(["1%"] * 24), source="paste")
    assert with_sign.values[0] == pytest.approx(0.01)


@pytest.mark.parametrize(
    "text",
    [";".join(["0,5"] * 24), "\n".join(["0,5"] * 24), " ".join(["0,5"] * 24), "50%;" * 23 + "50%"],
)
def test_decimal_commas_are_read_as_decimal_marks(text: str) -> None:
    """24 values written 0,5 (a European spreadsheet's export), separated by semicolons, new
    lines or spaces, are a day at one half, not 48 values 0 and 5 % at 30-minute steps."""
    curve = parse_curve(text, source="paste")
    assert curve.steps_per_hour == 1
    assert curve.values[:24] == pytest.approx([0.5] * 24)
    assert len(curve.values) == 7 * 24


def test_commas_between_values_stay_separators() -> None:
    """Without semicolons, values written with points or as whole numbers keep commas as
    separators: 0.5,0.25 is two values, 50,50 too."""
    points = parse_curve(",".join(["0.5", "0.25"] * 12), source="paste")
    assert points.values[:2] == pytest.approx([0.5, 0.25])
    whole = parse_curve(",".join(["50"] * 24), source="paste")
    assert whole.values[0] == pytest.approx(0.5)


def test_96_values_are_a_day_at_15_minutes() -> None:
    """96 values are one day in 15-minute steps, repeated all week."""
    curve = parse_curve(" ".join(["0.25"] * 96), source="paste")
    assert curve.steps_per_hour == 4
    assert len(curve.values) == 4 * HOURS_PER_WEEK


def test_bad_values_are_named_by_line_and_position() -> None:
    """A value that is not a number, or out of range, is reported with its line and position."""
    text = "0.1 0.2\n0.3 lots\n" + " ".join(["0.5"] * 19) + " 1.5"
    with pytest.raises(InputError) as caught:
        parse_curve(text, source="curve.txt")
    problems = caught.value.problems
    assert problems[0].file == "curve.txt"
    assert problems[0].row == 2
    assert problems[0].column == "value 4"
    assert "'lots' is not a number" in problems[0].message
    assert problems[0].fix


def test_negative_values_are_refused() -> None:
    """A negative share is out of range, and the problem says so."""
    with pytest.raises(InputError, match="outside shares 0-1"):
        parse_curve(" ".join(["-0.1"] + ["0.5"] * 23), source="paste")


def test_wrong_count_says_which_counts_work() -> None:
    """A curve of 25 values is refused with the accepted counts in the fix."""
    with pytest.raises(InputError) as caught:
        parse_curve(" ".join(["0.5"] * 25), source="paste")
    (problem,) = caught.value.problems
    assert "found 25 values" in problem.message
    assert "24" in problem.fix
    assert "168" in problem.fix


def test_empty_text_is_refused() -> None:
    """Pasting nothing gives a problem, not an empty curve."""
    with pytest.raises(InputError, match="no values found"):
        parse_curve("  \n ", source="paste")


def test_resolution_round_trip_keeps_the_curve() -> None:
    """Refining to 15 minutes repeats each hour; coarsening back gives the hourly curve."""
    hourly = curve_preset("vdi-office")
    fine = hourly.at_resolution(4)
    assert fine.steps_per_hour == 4
    np.testing.assert_allclose(fine.as_array()[:4], hourly.values[0])
    np.testing.assert_allclose(fine.at_resolution(1).as_array(), hourly.as_array())


def test_coarsening_keeps_the_mean() -> None:
    """Going from 15-minute to hourly steps keeps active instance-hours."""
    values = tuple((i % 4) / 4 for i in range(4 * HOURS_PER_WEEK))
    fine = WeeklyCurve(values=values, steps_per_hour=4)
    hourly = fine.at_resolution(1)
    assert hourly.as_array().sum() == pytest.approx(fine.as_array().sum() / 4)


def test_curve_rejects_a_wrong_length() -> None:
    """A weekly curve must have 168 values per step per hour."""
    with pytest.raises(ValueError, match="needs 168 values"):
        WeeklyCurve(values=(0.5,) * 24)


def test_default_demand_uses_schedule_and_days() -> None:
    """Without a curve, a 5-day class follows its schedule Monday to Friday and is idle after."""
    office = workload("office", instances=10, days_per_week=5)
    active = weekly_demand(office).reshape(7, 24)
    np.testing.assert_allclose(active[0], np.asarray(OFFICE) * 10)
    np.testing.assert_allclose(active[4], np.asarray(OFFICE) * 10)
    assert active[5:].sum() == 0.0
    assert schedule_curve(office).as_array().sum() == pytest.approx(5 * 8)


def test_a_curve_replaces_the_schedule() -> None:
    """With a curve, active instances are instances × the curve's share."""
    office = workload("office", instances=20, days_per_week=5)
    curve = curve_preset("flat-24x7")
    np.testing.assert_allclose(weekly_demand(office, curve=curve), 20.0)


def test_finer_steps_keep_instance_hours() -> None:
    """At 15-minute steps a class's active instance-hours are the same as hourly."""
    office = workload("office", instances=7)
    hourly = weekly_demand(office, steps_per_hour=1).sum()
    fine = weekly_demand(office, steps_per_hour=4).sum() / 4
    assert fine == pytest.approx(hourly)


def test_step_labels_name_each_step() -> None:
    """Labels run from Monday 00:00 to Sunday 23:45 at 15-minute steps."""
    labels = step_labels(4)
    assert labels[0] == "Mon 00:00"
    assert labels[1] == "Mon 00:15"
    assert labels[-1] == "Sun 23:45"
    assert len(labels) == 4 * HOURS_PER_WEEK


def test_pool_follows_the_combined_peak() -> None:
    """Office and night classes never overlap: a pool needs the larger peak, not the sum."""
    office = workload("office", instances=8, gpus=0.25, memory_gib=12.0, schedule=OFFICE)
    night = workload("night", instances=4, gpus=1.0, memory_gib=48.0, schedule=NIGHT)
    result = pool_vs_static(scenario(office, night))
    # office: 8 × max(0.25, 12/48) = 2 GPUs by day; night: 4 × 1 GPU by night.
    assert result.sum_of_peaks_gpus == pytest.approx(6.0)
    assert result.combined_peak_gpus == pytest.approx(4.0)
    assert result.pool_saving_gpus == pytest.approx(2.0)
    assert result.static_gpus == pytest.approx(6.0)
    assert result.demand_gpus.loc["Mon 10:00", "office"] == pytest.approx(2.0)
    assert result.demand_gpus.loc["Mon 10:00", "combined"] == pytest.approx(2.0)
    assert result.peak_step == "Mon 00:00"


def test_memory_share_sets_the_gpus_an_instance_holds() -> None:
    """An instance asking 0.1 GPU but 24 of 48 GiB holds half a GPU."""
    heavy = workload("heavy", instances=2, gpus=0.1, memory_gib=24.0, schedule=(1.0,) * 24)
    result = pool_vs_static(scenario(heavy))
    assert result.combined_peak_gpus == pytest.approx(1.0)


def test_static_reserves_instances_that_never_run_together() -> None:
    """Static methods hold every instance all week, even when at most half run at once."""
    half = workload("half", instances=10, gpus=1.0, memory_gib=10.0, schedule=(0.5,) * 24)
    result = pool_vs_static(scenario(half), steps_per_hour=4)
    assert result.static_gpus == pytest.approx(10.0)
    assert result.combined_peak_gpus == pytest.approx(5.0)
    assert len(result.demand_gpus) == 4 * HOURS_PER_WEEK


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("hour,share\n" + "\n".join(f"{h},{h / 100:.2f}" for h in range(24)), 0.0),
        ("hour;share\n" + "\n".join(f"{h};0,{h + 10}" for h in range(24)), 0.10),
        ("Hour\tActive %\n" + "\n".join(f"{h}:00\t{40 + h}%" for h in range(24)), 0.40),
        ("share\n" + "\n".join("0.5" for _ in range(24)), 0.5),
        ("hour share\n" + "\n".join(f"{h} {0.1 + h / 100:.2f}" for h in range(24)), 0.1),
        ("Active share\n" + "\n".join("0.5" for _ in range(24)), 0.5),
    ],
)
def test_a_curve_saved_as_a_table_with_a_header_reads_its_value_column(
    text: str, first: float
) -> None:
    """A spreadsheet saves a curve as a table with a header (``hour,share``): the values are
    its one column, or of two the second (the first names the step, not a value)."""
    curve = parse_curve(text, source="curve.csv")
    assert len(curve.values) == 168
    assert curve.values[0] == pytest.approx(first)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a,b,c\n1,2,3", "row 1: a table of 3 columns (a, b, c)"),
        ("hour,share\n0,0.5,9\n", "row 2: 3 cells where the table (hour, share) has 2"),
        ("hour share\n0 0.5\n1 0.5 7\n", "row 3: 3 cells where the table (hour share) has 2"),
        ("0.5,\n" * 700_000, "over the limit of 1 MB"),
        ("nan," + ",".join(["0.5"] * 23), "row 1, column 'value 1': 'nan' is not a number"),
    ],
)
def test_a_curve_table_the_reader_cannot_use_is_refused_naming_its_row(
    text: str, said: str
) -> None:
    """A table of more columns, a row wider than the others, and a first line of values (``nan``
    is one, not a header) are refused naming the row; text over the curve file's 1 MB limit is
    refused by size, pasted or not."""
    with pytest.raises(InputError) as refused:
        parse_curve(text, source="curve.csv")
    assert any(said in str(p) for p in refused.value.problems)


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("sep=;\nhour;share\n" + "\n".join(f"{h};0,{h + 10}" for h in range(24)), 0.10),
        ('"hour","share"\n' + "\n".join(f'"{h}","0.5"' for h in range(24)), 0.5),
        ('"hour, local",share\n' + "\n".join(f"{h},0.{h + 10}" for h in range(24)), 0.10),
        ("hour,share\n" + "\n".join(f'{h},"0,5"' for h in range(24)), 0.5),
        ("sep=;\n" + ";".join(["0,25"] * 24), 0.25),
        ("hour;share\n" + "\n".join(f"{h};0,5" for h in range(24)) + "\n;;\n;\n", 0.5),
    ],
    ids=[
        "sep line",
        "quoted header and cells",
        "separator inside a quoted name",
        "quoted decimal comma",
        "sep line above values",
        "blank spreadsheet rows",
    ],
)
def test_a_curve_table_is_read_as_every_csv_reader_reads_a_table(text: str, first: float) -> None:
    """A curve table's header is found as every CSV reader finds one: Excel's ``sep=;`` line
    above it names the separator and is no value, cells may be quoted (a separator or a decimal
    comma inside a quoted cell is no column), and rows of separators alone are blank."""
    curve = parse_curve(text, source="curve.csv")
    assert len(curve.values) == 168
    assert curve.values[0] == pytest.approx(first)


def test_a_curve_table_s_rows_count_the_sep_line_above_its_header() -> None:
    """A row wider than the header is named by its line in the file, the ``sep=`` line and
    blank lines above the header counted, as a spreadsheet shows it."""
    with pytest.raises(InputError) as refused:
        parse_curve("\nsep=,\nhour,share\n0,0.5\n1,0.5,9\n", source="curve.csv")
    (problem,) = refused.value.problems
    assert (problem.row, problem.message) == (5, "3 cells where the table (hour, share) has 2")
