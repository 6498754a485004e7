"""One validation per fact: the separator named, non-finite numbers refused in every numeric
column and option, a server type held to the inventory's row rules."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from planner.cli import UsageError, main, parse_server
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import load_inventory, server_type
from planner.inputs.problems import InputError
from planner.inputs.workloads import load_workloads
from ui import session

ROOT = Path(__file__).resolve().parent.parent
INVENTORY_ROW = {
    "host": "h1",
    "cluster": "c",
    "gpu_model": "L40S",
    "gpus_per_host": "4",
    "cpu_cores": "64",
    "ram_gib": "512",
    "network_gbps": "100",
    "rdma": "yes",
    "count": "2",
}
WORKLOAD_ROW = {
    "name": "nb",
    "kind": "notebook",
    "instances": "4",
    "gpus": "0.25",
    "memory_gib": "10",
    "busy_fraction": "0.1",
    "active_hours": "8",
    "days_per_week": "5",
    "vcpus": "4",
    "ram_gib": "32",
    "live_migration": "no",
    "isolation": "no",
    "latency_tolerant": "yes",
    "priority": "2",
    "max_slowdown": "1.5",
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _csv(cells: dict[str, str], *, separator: str = ",") -> bytes:
    """A header and two rows: the first as given, the second the valid row of the same file
    with another name."""
    base = INVENTORY_ROW if "host" in cells else WORKLOAD_ROW
    good = {**dict.fromkeys(cells, ""), **base, "host": "h2", "name": "nb2"}
    good = {c: good[c] for c in cells}
    return "\n".join(
        separator.join(row) for row in (cells.keys(), cells.values(), good.values())
    ).encode()


def test_a_file_with_another_separator_gets_one_message_naming_it(catalog: Catalog) -> None:
    """A '|'-separated inventory is one problem naming the separator, not eight missing
    columns."""
    with pytest.raises(InputError) as error:
        load_inventory(_csv(INVENTORY_ROW, separator="|"), catalog)
    (problem,) = error.value.problems
    assert "separated by vertical bars (|), not commas" in problem.message
    assert problem.row == 1
    assert "CSV UTF-8" in problem.fix


@pytest.mark.parametrize("separator", [";", "\t"])
def test_an_inventory_saved_with_semicolons_or_tabs_and_decimal_commas_is_read(
    catalog: Catalog, separator: str
) -> None:
    """A European spreadsheet's inventory (semicolons or tabs between columns, a comma as the
    decimal mark) is read, each decimal comma as a decimal: 25,5 Gbit/s is 25.5."""
    cells = {**INVENTORY_ROW, "network_gbps": "25,5", "ram_gib": "1.048.576", "count": "1"}
    loaded = load_inventory(_csv(cells, separator=separator), catalog)
    assert loaded.problems == ()
    first = loaded.value.hosts[0]
    assert (first.network_gbps, first.ram_gib) == (25.5, 1_048_576.0)


def test_a_number_read_with_a_decimal_comma_is_named_as_written_when_refused(
    catalog: Catalog,
) -> None:
    """A value out of range is reported with the text the user wrote, not only as read."""
    cells = {**INVENTORY_ROW, "cpu_cores": "5000,5"}
    (problem,) = load_inventory(_csv(cells, separator=";"), catalog).problems
    assert problem.message == "5000.5 is out of range (written '5000,5')"


@pytest.mark.parametrize(
    ("written", "meant"), [("0,25", 0.25), ("0.25", 0.25), ("25%", 0.25), ("12,5%", 0.125)]
)
def test_a_semicolon_workload_file_reads_decimal_commas_and_points(
    catalog: Catalog, written: str, meant: float
) -> None:
    """In a ';'-separated workload file a decimal comma and a point that cannot be a thousands
    separator both read as decimals, also before a % and in active_hours (2,5 hours)."""
    cells = {**WORKLOAD_ROW, "busy_fraction": written, "active_hours": "2,5"}
    loaded = load_workloads(_csv(cells, separator=";"), catalog)
    assert loaded.problems == ()
    first = loaded.value[0]
    assert first.busy_fraction == pytest.approx(meant)
    assert sum(first.daily_schedule) == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("written", "readings"),
    [("1,024", "1.024 or 1024"), ("1.024", "1.024 or 1024"), ("-2,048", "-2.048 or -2048")],
)
def test_a_number_that_reads_two_ways_in_a_semicolon_file_is_a_problem(
    catalog: Catalog, written: str, readings: str
) -> None:
    """In a ';'-separated file, one comma or point before three digits may mark decimals or
    thousands: the row is left out with a problem naming the cell and both readings, never
    read as one of them in silence."""
    cells = {**INVENTORY_ROW, "ram_gib": written}
    loaded = load_inventory(_csv(cells, separator=";"), catalog)
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (2, "ram_gib")
    assert f"'{written}' could be {readings}:" in problem.message
    assert "semicolons" in problem.message
    assert [h.name for h in loaded.value.hosts] == ["h2-01", "h2-02"]


def test_the_columns_found_are_listed_once_however_many_are_missing(catalog: Catalog) -> None:
    """An inventory missing three required columns gives one problem per column, and the
    columns found are listed once (they were repeated in each problem)."""
    data = b"host,cluster,gpu_model,gpus_per_host,cpu_cores\nh1,c,L40S,4,64\n"
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    messages = [p.message for p in error.value.problems]
    assert messages == [
        "required column 'ram_gib' is missing (found: host, cluster, gpu_model, "
        "gpus_per_host, cpu_cores)",
        "required column 'network_gbps' is missing",
        "required column 'rdma' is missing",
    ]


_INVENTORY_HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma"
_INVENTORY_LINE = "h1,c,L40S,4,64,512,100,yes"


@pytest.mark.parametrize(
    ("header", "shown", "column"),
    [
        ("\ufeff" + _INVENTORY_HEADER, "\\ufeffhost", "host"),
        (
            _INVENTORY_HEADER.replace("gpu_model", "gpu\u200b_model"),
            "gpu\\u200b_model",
            "gpu_model",
        ),
    ],
    ids=["second-byte-order-mark", "zero-width-space"],
)
def test_a_header_cell_holding_a_zero_width_character_is_read_as_it_shows(
    catalog: Catalog, header: str, shown: str, column: str
) -> None:
    """A header cell holding a byte-order mark (a second one, from files joined or an editor)
    or a zero-width space (pasted from a web page) is the column it shows: the file is read,
    and a problem for the whole file names the cell escaped and the column it is read as. The
    column was said to be missing while the columns found listed it, the character unseen."""
    data = codecs.BOM_UTF8 + f"{header}\n{_INVENTORY_LINE}\n".encode()
    loaded = load_inventory(data, catalog)
    assert [h.name for h in loaded.value.hosts] == ["h1"]
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (None, shown)
    assert problem.message.startswith(f"the column name '{shown}' (it holds an invisible")
    assert problem.message.endswith(f"is read as '{column}': its invisible characters are removed")
    assert problem.fix == "delete the invisible characters from the header cell"


def test_a_required_column_missing_for_a_control_character_is_named_escaped(
    catalog: Catalog,
) -> None:
    """A header cell holding a control character (DEL, which no reading removes) leaves its
    column missing: the columns found show it escaped, and the fix names that header cell, so
    the message no longer lists the very column it says is missing."""
    header = _INVENTORY_HEADER.replace("host,", "host\x7f,", 1)
    data = f"{header}\n{_INVENTORY_LINE}\n".encode()
    with pytest.raises(InputError) as error:
        load_inventory(data, catalog)
    (problem,) = error.value.problems
    assert problem.message == (
        "required column 'host' is missing (found: host\\u007f, cluster, gpu_model, "
        "gpus_per_host, cpu_cores, ram_gib, network_gbps, rdma)"
    )
    assert problem.fix == (
        "delete the invisible characters from the header cell 'host\\u007f' (it holds an "
        "invisible character: \\u007f, U+007F)"
    )


def test_an_unknown_column_holding_an_invisible_character_is_named_escaped(
    catalog: Catalog,
) -> None:
    """An unknown column whose name holds a control character is named escaped, in the
    problem's column and its message, with the character named."""
    data = f"{_INVENTORY_HEADER},rack\x7f\n{_INVENTORY_LINE},12\n".encode()
    (problem,) = load_inventory(data, catalog).problems
    assert (problem.row, problem.column) == (None, "rack\\u007f")
    assert problem.message.startswith(
        "unknown column 'rack\\u007f' (it holds an invisible character: \\u007f, U+007F) is "
        "ignored (known: "
    )


def test_a_comma_separated_file_keeps_its_points_as_decimals(catalog: Catalog) -> None:
    """In a comma-separated file a point is the decimal mark: 1.024 stays 1.024."""
    loaded = load_inventory(_csv({**INVENTORY_ROW, "network_gbps": "1.024"}), catalog)
    assert loaded.value.hosts[0].network_gbps == 1.024


def test_a_semicolon_inside_one_header_cell_is_not_taken_for_a_separator(
    catalog: Catalog,
) -> None:
    """Only a header that splits into more columns on ';' than on ',' is refused."""
    cells = {**INVENTORY_ROW, "notes; more": "x"}
    loaded = load_inventory(_csv(cells), catalog)
    assert len(loaded.value.hosts) == 4


NUMERIC_INVENTORY = ["gpus_per_host", "cpu_cores", "ram_gib", "network_gbps", "count"]
NUMERIC_WORKLOADS = [
    "instances",
    "gpus",
    "memory_gib",
    "busy_fraction",
    "active_hours",
    "days_per_week",
    "vcpus",
    "ram_gib",
    "priority",
    "max_slowdown",
]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
@pytest.mark.parametrize("column", NUMERIC_INVENTORY)
def test_a_non_finite_inventory_number_skips_its_row_with_the_column(
    catalog: Catalog, column: str, value: str
) -> None:
    """nan or inf in any numeric inventory column is one problem naming row and column."""
    loaded = load_inventory(_csv({**INVENTORY_ROW, column: value}), catalog)
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("inventory.csv", 2, column)
    assert problem.fix
    assert {h.name for h in loaded.value.hosts} == {"h2-01", "h2-02"}


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("column", NUMERIC_WORKLOADS)
def test_a_non_finite_workload_number_skips_its_row_with_the_column(
    catalog: Catalog, column: str, value: str
) -> None:
    """nan or inf in any numeric workload column is one problem naming row and column."""
    loaded = load_workloads(_csv({**WORKLOAD_ROW, column: value}), catalog)
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("workloads.csv", 2, column)
    assert problem.fix
    assert [w.name for w in loaded.value] == ["nb2"]


@pytest.mark.parametrize(
    "option",
    ["--pue", "--power-usd-per-kwh", "--licence-usd", "--host-usd", "--years", "--time-limit"],
)
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_non_finite_price_or_pue_is_refused_by_the_command_line(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --pue nan` exits 2 naming the value instead of printing $nan/year."""
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", option, value, "--methods", "passthrough"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert option in err
    assert "finite" in err


@pytest.mark.parametrize("option", ["--backlog", "--submit-hour", "--job-gpu-hours"])
def test_a_non_finite_harvest_setting_is_refused(
    option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The harvest options refuse nan too, naming the setting."""
    assert main(["harvest", option, "nan"]) == 2
    assert "nan" in capsys.readouterr().err


def test_six_a16_gpus_on_the_command_line_are_refused_like_an_inventory_row(
    catalog: Catalog,
) -> None:
    """`--size A16:6:...` gets the inventory's message: A16 boards carry 4 GPUs."""
    with pytest.raises(UsageError, match="A16 boards carry 4 GPUs each, so a host cannot have 6"):
        parse_server("A16:6:64:512", catalog)
    assert parse_server("A16:8:64:512", catalog).gpus == 8


@pytest.mark.parametrize(
    ("size", "part"),
    [("L40S:4:nan:512", "CORES"), ("L40S:4:64:inf", "RAM_GIB"), ("L40S:4:5000:512", "CORES")],
)
def test_a_command_line_server_obeys_the_inventory_ranges(
    catalog: Catalog, size: str, part: str
) -> None:
    """Non-finite and out-of-range parts are refused with the part named, as in the inventory."""
    with pytest.raises(UsageError, match=f"{part}: "):
        parse_server(size, catalog)


def test_plan_size_with_six_a16_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """The command itself refuses the server before planning."""
    assert main(["plan", "--size", "A16:6:64:512"]) == 2
    assert "multiple of 4" in capsys.readouterr().err


def test_server_type_names_the_fields_as_the_caller_does(catalog: Catalog) -> None:
    """The dashboard gets its own field names in the problems, and no row number."""
    with pytest.raises(InputError) as error:
        server_type(
            "A16",
            "6",
            "64",
            "512",
            catalog,
            source="Server type",
            columns={"gpus_per_host": "GPUs per server"},
        )
    (problem,) = error.value.problems
    assert (problem.file, problem.row, problem.column) == ("Server type", None, "GPUs per server")


def test_the_dashboard_refuses_six_a16_gpus_per_server() -> None:
    """On the Compare page, sizing with 6 A16 GPUs per server is refused with the inventory's
    rule and the question stays unchanged."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.radio(key="compare_question").set_value(session.QuestionKind.SIZE)
    at.selectbox(key="compare_server_model").set_value("A16")
    at.number_input(key="compare_server_gpus").set_value(6)
    at.button(key="compare_plan").click().run()
    assert not at.exception
    assert any("server type cannot be used" in e.value for e in at.error)
    problems = at.dataframe[0].value
    assert list(problems["column"]) == ["GPUs per server"]
    assert "A16 boards carry 4 GPUs each" in problems["problem"][0]
    assert session._QUESTION_KEY not in at.session_state  # the question was never committed


def test_an_own_gpu_model_named_with_a_bar_is_refused() -> None:
    """A model name with | could never be named in a workload's gpu_models (| separates models
    there), so the own-GPU file refuses it naming row and column."""
    extra = b"name,memory_gib,tdp_w,fp16_tflops,price_usd\nLab|GPU,48,300,180,9000\n"
    with pytest.raises(InputError) as caught:
        load_catalog(extra_gpus=extra, extra_gpus_name="my_gpus.csv")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == ("my_gpus.csv", 2, "name")
    assert problem.message == "'Lab|GPU' contains |"
