"""The workbook round trip: a plan workbook read back restores its scenario, so the same plan
comes out again, on the bundled sample and on generated scenarios."""

from __future__ import annotations

import dataclasses
import io
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from importer_samples import CATALOG, REPO, count_workbook_opens
from openpyxl import Workbook, load_workbook

from planner.assumptions import Assumptions
from planner.cli import main
from planner.inputs.catalog import load_catalog
from planner.inputs.importers import (
    PLAN_INPUTS_SHEET,
    import_inventory,
    import_workloads,
    read_plan_inputs,
    write_inputs_sheet,
)
from planner.inputs.inventory import load_inventory
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError
from planner.inputs.workloads import WorkloadKind, load_workloads
from planner.methods.registry import Method
from planner.output.export import workbook_bytes
from planner.output.report import ScenarioPlan, plan_scenario
from planner.plan import MethodPlan
from planner.scenario import Scenario, load_scenario
from planner.solve.feasibility import check_plan
from tests.builders import NIGHT, OFFICE, host, scenario_of, with_row_moved, workload


def _sample_scenario() -> Scenario:
    sample = REPO / "data" / "sample"
    return Scenario(
        CATALOG,
        load_inventory((sample / "inventory.csv").read_bytes(), CATALOG).value,
        load_workloads((sample / "workloads.csv").read_bytes(), CATALOG).value,
        Assumptions(licence_usd_per_gpu_year=1234.5, amortisation_years=3.0),
    )


def _timeless(plan: MethodPlan) -> MethodPlan:
    """The plan without its solve time, the one field that differs between equal solves."""
    return dataclasses.replace(plan, solve_seconds=0.0)


def _plans(result: ScenarioPlan) -> list[MethodPlan]:
    return [_timeless(r.plan) for r in result.results]


def _restored(plan: ScenarioPlan) -> Scenario:
    inputs = read_plan_inputs(workbook_bytes(plan), file_name="plan.xlsx")
    assert inputs.problems == ()
    loaded = inputs.scenario()
    assert loaded.problems == ()
    return loaded.value


def test_sample_plan_comes_out_again_from_its_workbook() -> None:
    """The sample scenario with changed assumptions, planned, written and read back: the same
    scenario (inventory, workloads, assumptions) and the same plans, the recommended one too."""
    first = plan_scenario(_sample_scenario())
    restored = _restored(first)
    assert restored == first.scenario
    again = plan_scenario(restored)
    assert _plans(again) == _plans(first)
    assert first.recommended is not None
    assert again.recommended is not None
    assert all(check_plan(r.plan, restored) == [] for r in again.results)


def _inputs_sheet_only(scenario: Scenario) -> bytes:
    book = Workbook()
    write_inputs_sheet(book, scenario)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


_MODELS = ["L40S", "L4", "A100-80GB-SXM", "H100-80GB-SXM", "A16"]
_KINDS = list(WorkloadKind)
_NAMES = st.text(st.sampled_from("abcdefghij-_ 0123456789é"), min_size=1, max_size=12)


@st.composite
def _scenarios(draw: st.DrawFn) -> Scenario:
    """Small scenarios over the shipped catalog: hosts of catalog models, workload classes with
    fractional GPUs, schedules and odd names, and assumptions off their defaults."""
    models = draw(st.lists(st.sampled_from(_MODELS), min_size=1, max_size=3))
    hosts = [
        host(
            f"host-{i}",
            model,
            CATALOG.gpus[model].gpus_per_board * draw(st.integers(1, 4)),
            cpu_cores=draw(st.sampled_from([16.0, 64.0, 96.5])),
            ram_gib=draw(st.floats(64, 2048).map(lambda x: round(x, 3))),
            mig_enabled=CATALOG.gpus[model].mig_capable and draw(st.booleans()),
            rdma=draw(st.booleans()),
            cluster=draw(st.sampled_from(["c1", "gpu east", "c,3"])),
            platform=draw(st.sampled_from(list(Platform))),
        )
        for i, model in enumerate(models)
    ]
    names = draw(st.lists(_NAMES, min_size=1, max_size=4, unique_by=lambda n: n.strip().lower()))
    workloads = [
        workload(
            name.strip() or f"w{i}",
            kind=draw(st.sampled_from(_KINDS)),
            instances=draw(st.integers(1, 6)),
            gpus=draw(st.sampled_from([0.1, 0.25, 1 / 3, 0.5, 1.0, 2.0])),
            memory_gib=draw(st.floats(0.5, 40).map(lambda x: round(x, 4))),
            busy_fraction=draw(st.floats(0.01, 1.0)),
            schedule=draw(st.sampled_from([OFFICE, NIGHT, (1.0,) * 24])),
        )
        for i, name in enumerate(names)
    ]
    assumptions = Assumptions(
        amortisation_years=draw(st.floats(1, 7)),
        power_usd_per_kwh=draw(st.floats(0.01, 1.0)),
        licence_usd_per_gpu_year=draw(st.floats(0, 5000)),
        gpu_price_usd=draw(st.dictionaries(st.sampled_from(_MODELS), st.floats(100, 1e5))),
        max_slowdown=draw(st.floats(1.0, 3.0)),
    )
    return scenario_of([], hosts, workloads, assumptions, catalog=CATALOG)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=_scenarios())
def test_generated_scenarios_survive_the_round_trip(scenario: Scenario) -> None:
    """Any scenario the planner can hold is restored equal from its Planner inputs sheet, and
    (equal scenarios giving equal plans) the heuristic plans of two methods come out equal."""
    loaded = read_plan_inputs(_inputs_sheet_only(scenario)).scenario()
    assert loaded.problems == ()
    restored = loaded.value
    assert restored.inventory == scenario.inventory
    assert restored.workloads == scenario.workloads
    assert restored.assumptions == scenario.assumptions
    methods = (Method.PASSTHROUGH, Method.VGPU)
    before = plan_scenario(scenario, methods=methods, exact=False, recommended=False)
    after = plan_scenario(restored, methods=methods, exact=False, recommended=False)
    assert _plans(after) == _plans(before)


TRACE_NODES = b"""sn,cpu_milli,memory_mib,gpu,model
node-0,32000,131072,2,T4
node-1,96000,393216,8,G2
"""
TRACE_PODS = b"""name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,\
deletion_time,scheduled_time
pod-0,4000,8192,1,500,,LS,Running,0,10,0
pod-1,8000,16384,1,1000,T4,BE,Running,0,10,0
pod-2,16000,32768,4,1000,,LS,Running,0,10,0
pod-3,2000,4096,0,0,,BE,Running,0,10,0
"""


def test_a_trace_plan_comes_out_again_from_its_workbook() -> None:
    """A plan of Alibaba's trace lists keeps them in its workbook as given: read back, the same
    scenario (hosts without a network figure, the models the node list added, the pods without
    GPU) and the same plans, where the planner's CSV of its hosts could not be read back."""
    given = {"inventory.csv": TRACE_NODES, "workloads.csv": TRACE_PODS}
    scenario = load_scenario(("nodes.csv", TRACE_NODES), ("pods.csv", TRACE_PODS), CATALOG).value
    assert scenario.cpu_only
    methods = (Method.PASSTHROUGH, Method.FRACTIONAL)
    first = plan_scenario(scenario, methods=methods)
    inputs = read_plan_inputs(workbook_bytes(first, given=given), file_name="plan.xlsx")
    assert (inputs.inventory_csv, inputs.workloads_csv) == (TRACE_NODES, TRACE_PODS)
    assert inputs.own_gpus_csv is None
    restored = inputs.scenario()
    assert restored.problems == ()
    assert restored.value == scenario
    assert _plans(plan_scenario(restored.value, methods=methods)) == _plans(first)


def test_a_trace_list_saved_as_utf16_is_kept_in_the_workbook_as_its_text() -> None:
    """Trace lists saved as UTF-16 with a byte-order mark (Windows PowerShell's >) load as the
    trace's lists, and their plan keeps them in its workbook as their text: read back as UTF-8,
    the same scenario."""
    nodes, pods = TRACE_NODES.decode().encode("utf-16"), TRACE_PODS.decode().encode("utf-16")
    scenario = load_scenario(("nodes.csv", nodes), ("pods.csv", pods), CATALOG).value
    as_utf8 = load_scenario(("nodes.csv", TRACE_NODES), ("pods.csv", TRACE_PODS), CATALOG)
    assert scenario == as_utf8.value
    given = {"inventory.csv": nodes, "workloads.csv": pods}
    first = plan_scenario(scenario, methods=(Method.FRACTIONAL,))
    inputs = read_plan_inputs(workbook_bytes(first, given=given), file_name="plan.xlsx")
    assert (inputs.inventory_csv, inputs.workloads_csv) == (TRACE_NODES, TRACE_PODS)
    assert inputs.scenario().value == scenario


def test_a_trace_model_given_the_user_s_own_figures_keeps_them_in_the_workbook() -> None:
    """The trace loader asks for a model it lacks to be given as the user's own GPU: a plan of
    the trace with their figures for G2 (48 GiB, $12,000) writes them to the workbook, and
    read back G2 has them, not the loader's guess (32 GiB, price unknown)."""
    own = load_catalog(
        extra_gpus=b"name,memory_gib,tdp_w,fp16_tflops,price_usd\nG2,48,300,120,12000\n"
    )
    given = {"inventory.csv": TRACE_NODES, "workloads.csv": TRACE_PODS}
    scenario = load_scenario(("nodes.csv", TRACE_NODES), ("pods.csv", TRACE_PODS), own).value
    assert scenario.catalog.gpus["G2"].memory_gib == 48
    first = plan_scenario(scenario, methods=(Method.FRACTIONAL,))
    inputs = read_plan_inputs(workbook_bytes(first, given=given), file_name="plan.xlsx")
    assert inputs.own_gpus_csv is not None
    restored = inputs.scenario().value
    assert (restored.catalog.gpus["G2"].memory_gib, restored.catalog.gpus["G2"].price_usd) == (
        48,
        12000,
    )
    assert restored == scenario


def test_a_planner_csv_given_is_written_from_the_scenario() -> None:
    """Only a trace list is kept as given: a planner CSV is written as the scenario holds it."""
    scenario = _sample_scenario()
    sample = REPO / "data" / "sample"
    given = {"inventory.csv": (sample / "inventory.csv").read_bytes()}
    book = Workbook()
    write_inputs_sheet(book, scenario, given)
    out = io.BytesIO()
    book.save(out)
    inputs = read_plan_inputs(out.getvalue())
    assert inputs.inventory_csv != given["inventory.csv"]
    assert inputs.scenario().value == scenario


def test_the_importers_open_a_plan_workbook_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing a plan workbook as the inventory or as the workloads opens it once: its reader
    takes the workbook its detection opened. Each import names it as a plan workbook."""
    scenario = _sample_scenario()
    data = _inputs_sheet_only(scenario)
    opened = count_workbook_opens(monkeypatch)
    hosts = import_inventory([("plan.xlsx", data)], CATALOG)
    assert opened[0] == 1
    assert hosts.inventory(CATALOG).value == scenario.inventory
    assert hosts.plan_workbooks == ("plan.xlsx",)
    mix = import_workloads([("plan.xlsx", data)], CATALOG)
    assert opened[0] == 2
    assert mix.workloads(CATALOG).value == scenario.workloads
    assert mix.plan_workbooks == ("plan.xlsx",)


def test_the_command_line_opens_a_plan_workbook_given_as_inventory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --inventory plan.xlsx` opens the workbook once, where the importer detects and reads
    it: telling a lone file from the planner's CSV does not open a workbook."""
    path = tmp_path / "plan.xlsx"
    path.write_bytes(_inputs_sheet_only(_sample_scenario()))
    opened = count_workbook_opens(monkeypatch)
    assert main(["plan", "--inventory", str(path), "--methods", "passthrough"]) == 0
    assert "Recommended plan" in capsys.readouterr().out
    assert opened[0] == 1


def _edited_sheet(scenario: Scenario, values: dict[str, object]) -> tuple[bytes, dict[str, int]]:
    """A workbook of ``scenario``'s inputs sheet with the value cells of the assumptions named in
    ``values`` replaced (a text starting with ``=`` is a formula, saved without its value, as
    openpyxl saves one), and each assumption's row."""
    book = Workbook()
    write_inputs_sheet(book, scenario)
    rows: dict[str, int] = {}
    for kind, name, value in book[PLAN_INPUTS_SHEET].iter_rows(min_row=3):
        if kind.value == "assumption":
            rows[str(name.value)] = name.row
            if name.value in values:
                value.value = values[str(name.value)]
    out = io.BytesIO()
    book.save(out)
    return out.getvalue(), rows


_PYTHON_TEXT = ("could not convert", "invalid literal", "''", "ValueError", "is not a valid")
"""Python's own words, which a problem for people never shows."""

BAD_ASSUMPTIONS = [
    ("pue", "5", "'5' is refused", "PUE) must be a finite number from 1 to 3 [-], got 5.0"),
    ("pue", 5, "'5' is refused", "from 1 to 3 [-]"),
    ("pue", "nan", "'nan' is not a finite number from 1 to 3 [-]", "default 1.5 is used"),
    ("pue", "abc", "'abc' is not a finite number from 1 to 3 [-]", "default 1.5 is used"),
    ("pue", math.inf, "an empty cell", "not a finite number from 1 to 3 [-]"),
    ("pue", "=1.2+0.1", "a formula whose value was not saved", "from 1 to 3 [-]"),
    ("mps_replicas", "0", "'0' is refused", "a whole number from 1 to 48 [pods/GPU], got 0"),
    ("mps_replicas", "two", "'two' is not a whole number from 1 to 48", "default 4 is used"),
    ("network.latency_us", "-1", "'-1' is refused", "from 0 to 100000 [µs]"),
    ("network.rdma", "maybe", "'maybe' is not yes or no", "default yes is used"),
    ("vgpu_mode", "any", "'any' is not one of equal-size, mixed-size, host-equal", "default"),
    ("gpu_price_usd[L4]", "-3", "'-3' is refused", "at least 0 [USD/GPU], got -3.0"),
]


@pytest.mark.parametrize(
    ("name", "written", "said", "rule"),
    BAD_ASSUMPTIONS,
    ids=[f"{name}={written!r}" for name, written, *_ in BAD_ASSUMPTIONS],
)
def test_a_bad_assumption_keeps_its_own_default_and_every_other_assumption(
    name: str, written: object, said: str, rule: str
) -> None:
    """An assumption of the Planner inputs sheet out of its range, not a number, not one of its
    choices, an empty cell (an infinity or a formula openpyxl saved without its value) is one
    problem naming the sheet, its row, the assumption, the value given, what it may be and that
    its default is used; that assumption alone takes its default (a price override is left
    out), every other keeps the sheet's value, and no Python text shows."""
    written_assumptions = Assumptions(
        licence_usd_per_gpu_year=1234.0,
        amortisation_years=3.0,
        gpu_price_usd={"L4": 2000.0, "L40S": 9000.0},
    )
    scenario = dataclasses.replace(_sample_scenario(), assumptions=written_assumptions)
    data, rows = _edited_sheet(scenario, {name: written})
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        rows[name],
        "value",
    )
    assert problem.message.startswith(f"{name}: ")
    assert said in problem.message
    assert rule in problem.message
    assert problem.message.endswith(" is used")
    assert "write " in problem.fix
    assert not any(text in f"{problem.message} {problem.fix}" for text in _PYTHON_TEXT)
    if name == "gpu_price_usd[L4]":
        expected = dataclasses.replace(written_assumptions, gpu_price_usd={"L40S": 9000.0})
    else:
        expected = written_assumptions.with_facts({name: Assumptions().by_name()[name]})
    assert inputs.assumptions == expected
    assert inputs.assumptions.licence_usd_per_gpu_year == 1234.0


def test_each_bad_assumption_is_its_own_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two bad assumptions are two problems, one per row in sheet order, each keeping only its
    own default; the command line restores the plan from the workbook with the others as
    written and prints both problems."""
    data, rows = _edited_sheet(_sample_scenario(), {"pue": "5", "amortisation_years": "x"})
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    assert [(p.row, p.message.split(":")[0]) for p in inputs.problems] == [
        (rows["pue"], "pue"),
        (rows["amortisation_years"], "amortisation_years"),
    ]
    defaults = Assumptions()
    assert (inputs.assumptions.pue, inputs.assumptions.amortisation_years) == (
        defaults.pue,
        defaults.amortisation_years,
    )
    assert inputs.assumptions.licence_usd_per_gpu_year == 1234.5
    path = tmp_path / "plan.xlsx"
    path.write_bytes(data)
    assert main(["plan", "--from-workbook", str(path), "--methods", "passthrough"]) == 0
    err = capsys.readouterr().err
    assert f"row {rows['pue']}" in err
    assert "amortisation_years: 'x' is not a finite number from 1 to 15 [years]" in err


BAD_CONSTANTS = [
    ("vgpu_overhead", "-1", "'-1' is refused", "must be at least 1 [runtime ratio], got -1.0"),
    ("vgpu_overhead", "0.5", "'0.5' is refused", "must be at least 1 [runtime ratio]"),
    ("no_rdma_factor", "abc", "'abc' is not a finite number of at least 1 [multiplier]", ""),
    ("no_rdma_factor", "nan", "'nan' is not a finite number of at least 1 [multiplier]", ""),
    ("no_rdma_factor", "yes", "'yes' is not a finite number of at least 1 [multiplier]", ""),
    ("no_rdma_factor", True, "'True' is not a finite number", ""),
    ("mps_interference", "2", "'2' is refused", "at most 1 [fraction of busy runtime]"),
    ("mps_interference", "=0.1*2", "a formula whose value was not saved", "from 0 to 1"),
]


@pytest.mark.parametrize(
    ("constant", "written", "said", "rule"),
    BAD_CONSTANTS,
    ids=[f"{name}={written!r}" for name, written, *_ in BAD_CONSTANTS],
)
def test_a_bad_performance_constant_is_a_problem_on_its_row_and_the_rest_is_kept(
    constant: str,
    written: object,
    said: str,
    rule: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An override of a slowdown-model constant on the Planner inputs sheet that is negative,
    out of its range, not a number, NaN or of another type is one problem naming the sheet, its
    row, the constant, the value, what it takes and that the model's default is used; the
    other overrides and assumptions keep the sheet's values, and the command line plans from
    the workbook, printing the row. It refused the whole workbook naming no row."""
    overrides = {"vgpu_overhead": 1.1, "no_rdma_factor": 3.0, "mps_interference": 0.1}
    written_assumptions = Assumptions(
        licence_usd_per_gpu_year=1234.0, performance_constants=overrides
    )
    scenario = dataclasses.replace(_sample_scenario(), assumptions=written_assumptions)
    name = f"performance_constants[{constant}]"
    data, rows = _edited_sheet(scenario, {name: written})
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        rows[name],
        "value",
    )
    assert problem.message.startswith(f"{name}: ")
    assert said in problem.message
    assert rule in problem.message
    assert problem.message.endswith(f"the default for {constant} is used")
    assert not any(text in f"{problem.message} {problem.fix}" for text in _PYTHON_TEXT)
    kept = {k: v for k, v in overrides.items() if k != constant}
    assert inputs.assumptions == written_assumptions.with_facts({"performance_constants": kept})
    path = tmp_path / "plan.xlsx"
    path.write_bytes(data)
    assert main(["plan", "--from-workbook", str(path), "--methods", "passthrough"]) == 0
    err = capsys.readouterr().err
    assert f"row {rows[name]}" in err
    assert name in err


def test_an_unknown_performance_constant_is_an_unknown_assumption_on_its_row() -> None:
    """A performance_constants[...] row naming no model's constant is an unknown assumption on
    its row, ignored; the known overrides are kept."""
    written_assumptions = Assumptions(performance_constants={"no_rdma_factor": 3.0})
    scenario = dataclasses.replace(_sample_scenario(), assumptions=written_assumptions)
    book = Workbook()
    write_inputs_sheet(book, scenario)
    sheet = book[PLAN_INPUTS_SHEET]
    sheet.append(["assumption", "performance_constants[typo]", "1.0"])
    out = io.BytesIO()
    book.save(out)
    inputs = read_plan_inputs(out.getvalue(), file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.row, problem.column) == (sheet.max_row, "name")
    assert "unknown assumption 'performance_constants[typo]'" in problem.message
    assert inputs.assumptions == written_assumptions


def _saved_as(scenario: Scenario, cells: dict[tuple[str, str], tuple[str, str]]) -> bytes:
    """A workbook of ``scenario``'s inputs sheet with cells saved as another writer saves
    them: ``(row name, column letter) -> (type, value)``, ``("n", "inf")`` a number cell
    holding inf, ``("e", "#DIV/0!")`` an error value (openpyxl saves a float inf as empty)."""
    book = Workbook()
    write_inputs_sheet(book, scenario)
    sheet = book[PLAN_INPUTS_SHEET]
    for (name, letter), (kind, value) in cells.items():
        row = next(r for r in range(3, sheet.max_row + 1) if sheet[f"B{r}"].value == name)
        sheet[f"{letter}{row}"].value = value
        sheet[f"{letter}{row}"].data_type = kind
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _row_named(data: bytes, name: str) -> int:
    """The row of the Planner inputs sheet of workbook ``data`` whose name cell is ``name``."""
    sheet = load_workbook(io.BytesIO(data))[PLAN_INPUTS_SHEET]
    return next(r for r in range(3, sheet.max_row + 1) if sheet[f"B{r}"].value == name)


def test_an_infinite_or_error_cell_is_a_problem_on_its_row_and_the_rest_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A number cell holding inf or NaN, or an error value (#DIV/0!, #REF!), in the Planner
    inputs sheet is a problem naming the sheet, its row and column; that assumption keeps its
    default and every other is read, and the command line plans from the workbook."""
    scenario = _sample_scenario()
    data = _saved_as(
        scenario,
        {
            ("pue", "C"): ("n", "inf"),
            ("power_usd_per_kwh", "C"): ("n", "NaN"),
            ("network.latency_us", "C"): ("e", "#DIV/0!"),
            ("host_usd", "A"): ("e", "#REF!"),
        },
    )
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    tab = f"plan.xlsx [{PLAN_INPUTS_SHEET}]"
    found = {(p.file, p.column, p.message.split(":")[0]) for p in inputs.problems}
    assert found == {
        (tab, "value", "pue"),
        (tab, "value", "power_usd_per_kwh"),
        (tab, "value", "network.latency_us"),
        (tab, "kind", "the cell holds the error value #REF! (a formula that failed)"),
    }
    assert all(p.row is not None for p in inputs.problems)
    assert "'inf' is not a finite number from 1 to 3" in " ".join(
        p.message for p in inputs.problems
    )
    defaults = Assumptions()
    assert inputs.assumptions.pue == defaults.pue
    assert inputs.assumptions.network.latency_us == defaults.network.latency_us
    assert inputs.assumptions.licence_usd_per_gpu_year == 1234.5
    assert inputs.scenario().value.inventory == scenario.inventory
    path = tmp_path / "plan.xlsx"
    path.write_bytes(data)
    assert main(["plan", "--from-workbook", str(path), "--methods", "passthrough"]) == 0
    assert "#REF!" in capsys.readouterr().err


def test_an_error_cell_in_a_file_s_text_refuses_the_workbook_naming_its_row() -> None:
    """A file's text cell holding an error value cannot be restored: the workbook is refused
    naming the sheet, the row and the column."""
    data = _saved_as(_sample_scenario(), {("workloads.csv", "C"): ("e", "#REF!")})
    with pytest.raises(InputError) as caught:
        read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = caught.value.problems
    assert (problem.row, problem.column) == (_row_named(data, "workloads.csv"), "value")
    assert "#REF!" in problem.message
    assert "workloads.csv" in problem.message


def test_an_assumption_holding_a_spreadsheet_error_is_named_as_one_with_its_fix() -> None:
    """An assumption cell holding a spreadsheet error value (#DIV/0!) is named as the error a
    formula left, on its row, with its default used and the fix saying what to type in its
    place, not as a mistyped number ("'#DIV/0!' is not a finite number")."""
    data = _saved_as(_sample_scenario(), {("pue", "C"): ("e", "#DIV/0!")})
    inputs = read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = inputs.problems
    assert (problem.file, problem.row, problem.column) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        _row_named(data, "pue"),
        "value",
    )
    assert problem.message == (
        "pue: the cell holds the error value #DIV/0! (a formula that failed); its default "
        "1.5 is used"
    )
    assert problem.fix.startswith(
        "type a finite number from 1 to 3 [-] in the cell in place of the error (or correct "
        "the formula that gives it)"
    )
    assert inputs.assumptions.pue == Assumptions().pue


def test_an_inputs_sheet_with_a_row_past_excel_s_last_is_refused_naming_it() -> None:
    """A plan workbook whose inputs sheet holds a row numbered past Excel's last is refused
    naming that row; every row up to it was read into memory first (50 million)."""
    data = _inputs_sheet_only(_sample_scenario())
    last = load_workbook(io.BytesIO(data))[PLAN_INPUTS_SHEET].max_row
    with pytest.raises(InputError) as caught:
        read_plan_inputs(with_row_moved(data, last, 50_000_000), file_name="plan.xlsx")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row) == (f"plan.xlsx [{PLAN_INPUTS_SHEET}]", 50_000_000)
    assert "past Excel's last row (1,048,576)" in problem.message


def _with_rows_added(scenario: Scenario, rows: list[tuple[str, str, str]]) -> bytes:
    """A workbook of ``scenario``'s inputs sheet with ``rows`` (kind, name, value) added below
    its last, as a hand edit adds them."""
    book = Workbook()
    write_inputs_sheet(book, scenario)
    for row in rows:
        book[PLAN_INPUTS_SHEET].append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "first", "again"),
    [("pue", "1.5", "3.0"), ("gpu_price_usd[L4]", "2000.0", "2500"), ("mps_replicas", "4", "8")],
)
def test_an_assumption_given_twice_is_refused_naming_both_rows(
    name: str, first: str, again: str
) -> None:
    """An assumption (a field, a price entry, a method's setting) written twice in the Planner
    inputs sheet is refused, as kubectl's key twice and a CSV's name twice are, naming the sheet,
    the later row, its name column, the first row and both values: which one is meant is not
    known (the last was used without a word)."""
    scenario = dataclasses.replace(
        _sample_scenario(),
        assumptions=Assumptions(gpu_price_usd={"L4": 2000.0}, method_settings={"mps_replicas": 4}),
    )
    data = _with_rows_added(scenario, [("assumption", name, again)])
    first_row = _row_named(data, name)
    last_row = load_workbook(io.BytesIO(data))[PLAN_INPUTS_SHEET].max_row
    with pytest.raises(InputError) as caught:
        read_plan_inputs(data, file_name="plan.xlsx")
    (problem,) = caught.value.problems
    assert (problem.file, problem.row, problem.column) == (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}]",
        last_row,
        "name",
    )
    assert problem.message == (
        f"the assumption {name} is given twice, on row {first_row} ('{first}') and on this row "
        f"('{again}'): which value is meant is not known"
    )
    assert problem.fix == f"delete one of the two rows of {name}, keeping the value meant"


def test_each_repeat_of_an_assumption_is_its_own_problem() -> None:
    """An assumption written three times is two problems, each naming the first row; another
    written twice is a third; every row of the sheet is read before the refusal, so all are
    named at once."""
    data = _with_rows_added(
        _sample_scenario(),
        [
            ("assumption", "pue", "2"),
            ("assumption", "max_slowdown", "1.1"),
            ("assumption", "pue", "3"),
        ],
    )
    with pytest.raises(InputError) as caught:
        read_plan_inputs(data, file_name="plan.xlsx")
    first, slowdown = _row_named(data, "pue"), _row_named(data, "max_slowdown")
    said = [(p.row, p.message.split(":")[0]) for p in caught.value.problems]
    last = load_workbook(io.BytesIO(data))[PLAN_INPUTS_SHEET].max_row
    assert said == [
        (
            last - 2,
            f"the assumption pue is given twice, on row {first} ('1.5') and on this row ('2')",
        ),
        (
            last - 1,
            f"the assumption max_slowdown is given twice, on row {slowdown} ('1.5') and on this "
            "row ('1.1')",
        ),
        (last, f"the assumption pue is given twice, on row {first} ('1.5') and on this row ('3')"),
    ]
