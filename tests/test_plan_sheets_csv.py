"""Tests that the plan workbook's Inventory and Workloads sheets, saved as CSV the way Excel and
LibreOffice save one sheet, load back as the inventory and workloads the plan was made from."""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path

import pytest
from openpyxl import load_workbook

from planner.cli import build_parser, scenario_from_args
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers.detect import Format, detect_format
from planner.inputs.importers.workbook import read_plan_inputs
from planner.inputs.inventory import (
    INVENTORY_COLUMNS,
    INVENTORY_SHEET_HEADERS,
    Inventory,
    load_inventory,
)
from planner.inputs.problems import InputError
from planner.inputs.tabular import normalise_column
from planner.inputs.workloads import (
    WORKLOAD_COLUMNS,
    WORKLOAD_SHEET_HEADERS,
    WorkloadClass,
    load_workloads,
)
from planner.methods.registry import Method
from planner.output.export import workbook_bytes
from planner.output.report import assemble
from planner.scenario import Scenario
from tests.builders import hand_plan

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"

OVERRIDES = b"""name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,\
vcpus,ram_gib,live_migration,isolation,latency_tolerant,priority,gpu_models,max_slowdown,\
memory_share
chat-api,inference,12,0.25,20,35%,24x7,7,4,32,no,no,no,1,H100-80GB-SXM|A100-80GB-PCIe,1.25,
batch-etl,batch,3,1,40,0.8,22-6,5,16,128,no,yes,yes,4,L40S,2.5,
shards,inference,8,0.5,12,0.125,0.5 0.5 0.25 0 0 0 0 0 0 1 1 1 1 1 1 1 1 1 0.75 0.5 0.5 0.5 0.5 \
0.5,6,2,16,yes,no,no,2,,,0.3
"""
"""A workload file with every per-class override: priority, allowed models, a slowdown limit,
a memory share, hour ranges past midnight and 24 hourly shares."""


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _shown(value: object, number_format: str, *, decimal_comma: bool) -> str:
    """A cell as Excel and LibreOffice write it to CSV: as the sheet shows it, by its number
    format (``0.0%`` as ``35.0%``, ``#,##0.0##`` as ``1,024.0``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    number = float(value)  # type: ignore[arg-type]
    if number_format == "General":
        text = str(value) if isinstance(value, int) else f"{number:.10g}"
    elif number_format == "0.0%":
        text = f"{number * 100:.1f}%"
    elif number_format in ("0.0", "0.00"):
        text = f"{number:.{len(number_format) - 2}f}"
    elif number_format == "#,##0":
        text = f"{number:,.0f}"
    elif number_format == "#,##0.0##":
        text = f"{number:,.3f}".rstrip("0")
        text += "0" if text.endswith(".") else ""
    elif number_format.startswith('"$"'):
        text = f"${number:,.{2 if number_format.endswith('.00') else 0}f}"
    elif number_format == "0.00E+00":
        text = f"{number:.2E}"
    elif number_format.startswith("0.0") and "#" in number_format:
        percent = number_format.endswith("%")
        least = number_format.count("0") - 1
        # Excel holds 15 significant digits and shows each, down to the format's least decimals.
        held = float(f"{number * (100 if percent else 1):.15g}")
        whole, decimals = f"{held:.15f}".split(".")
        decimals = decimals.rstrip("0").ljust(least, "0")
        text = f"{whole}.{decimals}" + ("%" if percent else "")
    else:
        raise AssertionError(f"no CSV text for the format {number_format}")
    if decimal_comma:
        text = text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    return text


def _saved_as_csv(
    book: bytes,
    sheet: str,
    *,
    european: bool = False,
    titles: tuple[str, ...] = (),
) -> bytes:
    """One sheet of ``book`` as File > Save As > CSV writes it: cells as shown, a row per sheet
    row padded to the sheet's width; ``european``: as in a locale whose decimal mark is a comma
    (semicolons between cells, a UTF-8 byte-order mark as Excel's "CSV UTF-8" writes);
    ``titles``: rows the user typed above the table."""
    rows = load_workbook(io.BytesIO(book))[sheet]
    text = io.StringIO()
    writer = csv.writer(text, delimiter=";" if european else ",", lineterminator="\r\n")
    for title in titles:
        writer.writerow([title] + [""] * (rows.max_column - 1))
    for row in rows.iter_rows():
        writer.writerow([_shown(c.value, c.number_format, decimal_comma=european) for c in row])
    data = text.getvalue().encode()
    return b"\xef\xbb\xbf" + data if european else data


def _book(catalog: Catalog, workloads: tuple[WorkloadClass, ...]) -> tuple[bytes, Inventory]:
    inventory = load_inventory(SAMPLE / "inventory.csv", catalog).value
    scenario = Scenario(catalog=catalog, inventory=inventory, workloads=workloads)
    plan = assemble(scenario, [hand_plan(Method.PASSTHROUGH, [], lower_bound_gpus=0)])
    return workbook_bytes(plan), inventory


@pytest.mark.parametrize("european", [False, True], ids=["comma", "semicolon-bom"])
def test_the_inventory_sheet_saved_as_csv_loads_back_as_the_inventory(
    catalog: Catalog, european: bool
) -> None:
    """The Inventory sheet saved as CSV (its headers in words, 112.0 cores, 2048,0 GiB with
    semicolons) is told as the planner's inventory and loads to the very hosts planned, with
    no problem."""
    book, inventory = _book(catalog, load_workloads(SAMPLE / "workloads.csv", catalog).value)
    data = _saved_as_csv(book, "Inventory", european=european)
    assert detect_format("Inventory.csv", data, role="inventory") is Format.INVENTORY_CSV
    loaded = load_inventory(data, catalog, file_name="Inventory.csv")
    assert loaded.problems == ()
    assert loaded.value == inventory


@pytest.mark.parametrize("european", [False, True], ids=["comma", "semicolon-bom"])
@pytest.mark.parametrize("source", ["sample", "overrides"])
def test_the_workloads_sheet_saved_as_csv_loads_back_as_the_workloads(
    catalog: Catalog, european: bool, source: str
) -> None:
    """The Workloads sheet saved as CSV (headers in words, busy and memory shares as 35.0 %,
    hours as 24 shares separated by commas, allowed models separated by commas) is told as the
    planner's workload CSV and loads to the very classes planned, overrides included."""
    data = (SAMPLE / "workloads.csv").read_bytes() if source == "sample" else OVERRIDES
    workloads = load_workloads(data, catalog).value
    book, _ = _book(catalog, workloads)
    saved = _saved_as_csv(book, "Workloads", european=european)
    assert detect_format("Workloads.csv", saved, role="workloads") is Format.WORKLOADS_CSV
    loaded = load_workloads(saved, catalog, file_name="Workloads.csv")
    assert loaded.problems == ()
    assert loaded.value == workloads


def test_every_header_of_the_input_sheets_names_a_column_the_loader_reads(
    catalog: Catalog,
) -> None:
    """Each header the Inventory and Workloads sheets write is a loader's column or one of its
    sheet headers, so a column added to a sheet cannot be left unread without this failing."""
    book, _ = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    sheets = load_workbook(io.BytesIO(book))
    for sheet, columns, aliases in (
        ("Inventory", (*INVENTORY_COLUMNS, "mig_enabled", "platform"), INVENTORY_SHEET_HEADERS),
        ("Workloads", (*WORKLOAD_COLUMNS, "notes"), WORKLOAD_SHEET_HEADERS),
    ):
        read = {normalise_column(w): c for w, c in aliases.items()}
        for cell in next(sheets[sheet].iter_rows(max_row=1)):
            name = normalise_column(str(cell.value))
            assert read.get(name, name) in columns, (sheet, cell.value)


def test_a_header_below_title_rows_is_found_and_the_rows_above_it_listed(
    catalog: Catalog,
) -> None:
    """A sheet saved with a title and a blank row above its table (semicolons, a decimal
    comma) is told as an inventory and loads to the hosts planned; the rows above the header
    are one problem naming them, not dropped without a word."""
    book, inventory = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    titles = ("Hosts of site A, as planned", "")
    data = _saved_as_csv(book, "Inventory", european=True, titles=titles)
    assert detect_format("Inventory.csv", data, role="inventory") is Format.INVENTORY_CSV
    loaded = load_inventory(data, catalog, file_name="Inventory.csv")
    assert loaded.value == inventory
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("Inventory.csv", 1, None)
    assert problem.message == (
        "rows 1-2 stand above the table's header (row 3) and are not read: a title or notes"
    )


def test_a_workload_sheet_below_a_title_loads_its_classes(catalog: Catalog) -> None:
    """A Workloads sheet saved with one title row is told as a workload file and loads every
    class, the title listed on row 1."""
    workloads = load_workloads(OVERRIDES, catalog).value
    book, _ = _book(catalog, workloads)
    data = _saved_as_csv(book, "Workloads", titles=("Workload mix",))
    assert detect_format("Workloads.csv", data, role="workloads") is Format.WORKLOADS_CSV
    loaded = load_workloads(data, catalog, file_name="Workloads.csv")
    assert loaded.value == workloads
    assert [(p.row, p.message) for p in loaded.problems] == [
        (1, "row 1 stands above the table's header (row 2) and is not read: a title or notes")
    ]


RECOMMENDED_PLAN = b"""\
"Serves all 308 instances on 100 GPUs in 15 hosts, 132 fewer GPUs than today (Passthrough).",,
,,
Figure,Value,Unit
Found as,a mix of sharing methods,
Annual cost,"$1,055,046",USD/year
"""
"""The top of the Recommended plan sheet as LibreOffice saves it to CSV: its answer in words
above a table of figures."""


def test_every_other_sheet_saved_as_csv_is_refused_naming_the_sheet_to_save(
    catalog: Catalog,
) -> None:
    """Every other sheet of the plan workbook (Recommended plan, Summary, a Placement sheet,
    Costs ...) saved as CSV and given as inventory or workloads is refused first as no such
    table, its fix naming the sheet to save instead; never a traceback."""
    book, _ = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    names = load_workbook(io.BytesIO(book)).sheetnames
    files = {
        "Recommended plan.csv": RECOMMENDED_PLAN,
        **{
            f"{sheet}.csv": _saved_as_csv(book, sheet)
            for sheet in names
            if sheet not in ("Inventory", "Workloads")
        },
    }
    assert {"Summary.csv", "Placement Passthrough.csv", "Costs.csv"} <= set(files)
    for loader, table, wanted in (
        (load_inventory, "inventory", "Inventory"),
        (load_workloads, "workload", "Workloads"),
    ):
        for name, data in files.items():
            with pytest.raises(InputError) as refused:
                loader(data, catalog, file_name=name)
            first = refused.value.problems[0]
            assert (first.file, first.row, first.column) == (name, None, None)
            assert first.message.startswith(f"this is no {table} table: its header has "), name
            assert f"open its {wanted} sheet and save that sheet as CSV" in first.fix


def test_the_inventory_sheet_given_as_workloads_says_to_save_the_workloads_sheet(
    catalog: Catalog,
) -> None:
    """The Inventory sheet given as the workload file is no workload table: the fix says to
    save the Workloads sheet."""
    book, _ = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    with pytest.raises(InputError) as refused:
        load_workloads(_saved_as_csv(book, "Inventory"), catalog, file_name="Inventory.csv")
    first = refused.value.problems[0]
    assert first.message == (
        "this is no workload table: its header has 0 of the 13 required workload columns"
    )
    assert "open its Workloads sheet and save that sheet as CSV" in first.fix


@pytest.mark.parametrize("role", ["inventory", "workloads"])
def test_a_placement_sheet_saved_as_csv_is_told_as_a_plan_s_results(
    catalog: Catalog, role: str
) -> None:
    """A Placement sheet saved as CSV has Host and GPU model columns, but it is no inventory:
    detection refuses it as a plan's results, the fix naming the sheet to save for the role
    it was given as."""
    book, _ = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    data = _saved_as_csv(book, "Placement Passthrough")
    with pytest.raises(InputError) as refused:
        detect_format("placements.csv", data, role=role)  # type: ignore[arg-type]
    (problem,) = refused.value.problems
    assert (problem.file, problem.row) == ("placements.csv", 1)
    assert problem.message.startswith("a plan's results saved as CSV")
    assert problem.message.endswith(f"not {role}")
    sheet = role.capitalize()
    assert problem.fix.startswith(f"open the plan workbook's {sheet} sheet and save that sheet")


def test_a_file_no_format_matches_says_which_sheets_of_a_plan_workbook_are_read() -> None:
    """A file of no known format (the Summary sheet saved as CSV) is refused naming what of a
    plan workbook is read: the whole .xlsx, and its Inventory or Workloads sheet as CSV."""
    data = b'Recommended plan,,\n,,\nPlan,GPUs used,Annual cost\nPassthrough,232,"$1,585,314"\n'
    with pytest.raises(InputError) as refused:
        detect_format("Summary.csv", data, role="workloads")
    (problem,) = refused.value.problems
    assert problem.message == "cannot tell which tool wrote this file"
    assert problem.fix.endswith(
        "; a plan workbook written by the planner (.xlsx); or, from a plan workbook, its "
        "Inventory or Workloads sheet saved as CSV (open that sheet, then File > Save As > CSV)"
    )


def test_a_column_given_both_by_name_and_as_the_sheet_writes_it_is_refused(
    catalog: Catalog,
) -> None:
    """A file with both ram_gib and the Inventory sheet's 'RAM [GiB]' would have two values for
    one column: it is refused naming both header cells."""
    data = (
        b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,RAM [GiB]\n"
        b"gpu-01,prod,L40S,4,64,768,100,yes,512\n"
    )
    with pytest.raises(InputError) as refused:
        load_inventory(data, catalog, file_name="both.csv")
    (problem,) = refused.value.problems
    assert (problem.file, problem.row, problem.column) == ("both.csv", 1, "RAM [GiB]")
    assert problem.message == "columns 'ram_gib' and 'RAM [GiB]' are both read as 'ram_gib'"


def test_a_class_without_gpu_on_the_workloads_sheet_is_listed_with_why(catalog: Catalog) -> None:
    """A trace's pods without GPU, which the Workloads sheet lists with 0 GPUs, are no class a
    workload file plans: their row is listed, saying so and where they are planned from; the
    classes with a GPU load as planned."""
    workloads = load_workloads(OVERRIDES, catalog).value
    inventory = load_inventory(SAMPLE / "inventory.csv", catalog).value
    cpu_only = dataclasses.replace(workloads[0], name="web-frontend", gpus=0.0, memory_gib=0.0)
    scenario = Scenario(
        catalog=catalog, inventory=inventory, workloads=workloads, cpu_only=(cpu_only,)
    )
    plan = assemble(scenario, [hand_plan(Method.PASSTHROUGH, [], lower_bound_gpus=0)])
    data = _saved_as_csv(workbook_bytes(plan), "Workloads")
    loaded = load_workloads(data, catalog, file_name="Workloads.csv")
    assert loaded.value == workloads
    gpus = next(p for p in loaded.problems if p.column == "GPUs per instance")
    assert (gpus.file, gpus.row) == ("Workloads.csv", 5)
    assert gpus.message == "0.0 GPUs: a class without GPU is not planned from a workload file"
    assert "planned only from the trace's pod list itself" in gpus.fix
    assert {p.row for p in loaded.problems} == {5}


def test_an_edited_inventory_sheet_says_to_save_it_as_csv_and_that_csv_plans_the_edit(
    catalog: Catalog,
) -> None:
    """A restore of a workbook whose Inventory sheet was edited says to save that sheet as CSV
    to plan with the edit, and the sheet so saved loads with the edit in it."""
    book, inventory = _book(catalog, load_workloads(OVERRIDES, catalog).value)
    sheets = load_workbook(io.BytesIO(book))
    sheets["Inventory"]["F2"].value = 1024  # RAM of the first host [GiB]
    edited = io.BytesIO()
    sheets.save(edited)
    (problem,) = read_plan_inputs(edited.getvalue(), file_name="plan.xlsx").problems
    assert problem.file == "plan.xlsx [Inventory]"
    assert problem.fix.startswith(
        "to plan with them, open the Inventory sheet and save it as CSV (File > Save As > CSV)"
    )
    loaded = load_inventory(_saved_as_csv(edited.getvalue(), "Inventory"), catalog)
    first, *others = loaded.value.hosts
    assert first == dataclasses.replace(inventory.hosts[0], ram_gib=1024)
    assert tuple(others) == inventory.hosts[1:]


def test_the_command_line_plans_from_the_two_sheets_saved_as_csv(
    catalog: Catalog, tmp_path: Path
) -> None:
    """python -m planner plan --inventory Inventory.csv --workloads Workloads.csv, the two
    sheets saved with semicolons and a BOM, reads the hosts and classes the plan was made
    from, with no problem."""
    workloads = load_workloads(OVERRIDES, catalog).value
    book, inventory = _book(catalog, workloads)
    hosts, classes = tmp_path / "Inventory.csv", tmp_path / "Workloads.csv"
    hosts.write_bytes(_saved_as_csv(book, "Inventory", european=True))
    classes.write_bytes(_saved_as_csv(book, "Workloads", european=True))
    args = build_parser().parse_args(
        ["plan", "--inventory", str(hosts), "--workloads", str(classes)]
    )
    scenario, problems = scenario_from_args(args, report=io.StringIO())
    assert problems == ()
    assert scenario.inventory == inventory
    assert scenario.workloads == workloads


INVENTORY_DIGITS = b"""host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma
big-1,ml,L40S,4,1024,10.25,12.5,no
small-1,ml,L40S,4,64.5,1536.75,25,no
"""
"""Inventory numbers the sheet's display formats rounded or grouped (1,024.0; 10.2)."""
WORKLOAD_DIGITS = b"""name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,\
vcpus,ram_gib,live_migration,isolation,latency_tolerant,priority,gpu_models,max_slowdown,\
memory_share
thirds,inference,3,0.3333333,10.25,0.1234,24x7,7,2.5,10.125,no,no,no,2,,1.125,0.0625
whole,training,2,1,40,1,9-17,5,1024,2048,no,no,yes,2,,,
"""
"""Workload numbers the sheet's display formats rounded (0.333, 10.2, 12.3 %, 1.12, 1,024)."""


@pytest.mark.parametrize("european", [False, True], ids=["comma", "semicolon-bom"])
def test_the_input_sheets_show_every_digit_so_their_csv_gives_the_same_numbers(
    catalog: Catalog, european: bool
) -> None:
    """Memory 10.25 GiB, 0.3333333 GPUs, a slowdown limit of 1.125, 12.34 % busy, 1024 cores:
    the Inventory and Workloads sheets show every digit and no thousands separator, so each
    saved as CSV loads to the very numbers given, with no problem (they read 10.2, 0.333,
    1.12, 12.3 % and a refused '1,024.0')."""
    inventory = load_inventory(INVENTORY_DIGITS, catalog).value
    workloads = load_workloads(WORKLOAD_DIGITS, catalog).value
    scenario = Scenario(catalog=catalog, inventory=inventory, workloads=workloads)
    book = workbook_bytes(
        assemble(scenario, [hand_plan(Method.PASSTHROUGH, [], lower_bound_gpus=0)])
    )
    hosts = load_inventory(_saved_as_csv(book, "Inventory", european=european), catalog)
    classes = load_workloads(_saved_as_csv(book, "Workloads", european=european), catalog)
    assert (hosts.problems, classes.problems) == ((), ())
    assert hosts.value == inventory
    assert classes.value == workloads
