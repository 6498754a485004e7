"""Tests of planner.output.export: sheets, frozen panes, numeric cells and formula injection."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from openpyxl import load_workbook

from planner.assumptions import Assumptions
from planner.methods.registry import Method
from planner.output.export import (
    FORMULA_PREFIXES,
    sheet_name,
    workbook_bytes,
    write_sheets,
    write_workbook,
)
from planner.output.report import ScenarioPlan, assemble
from planner.output.xlsx import EXACT, EXACT_PERCENT
from planner.plan import NotPlaced
from tests.report_fixtures import place, plan, scenario, workload

HOSTILE_NAMES = ('=HYPERLINK("http://x","y")', "+1+1", "-2", "@SUM(A1)", "\tcmd", "\rcmd")


def _plan(names: tuple[str, ...] = ("train",)) -> ScenarioPlan:
    classes = [workload(name, memory_gib=40.0) for name in names]
    s = scenario(classes, assumptions=Assumptions(pue=1.3))
    whole = [
        place(f"{name}#1", "h1", i, profile="whole GPU", memory_gib=80.0)
        for i, name in enumerate(names)
    ]
    shared = [place(f"{name}#1", "h1", 0, profile="40C", memory_gib=40.0) for name in names[:2]]
    missing = [NotPlaced(f"{name}#1", name, "no room") for name in names[2:]]
    return assemble(
        s,
        [
            plan(Method.PASSTHROUGH, whole, lower_bound_gpus=len(names)),
            plan(Method.VGPU, shared, not_placed=missing, lower_bound_gpus=1),
        ],
    )


def _book(sp: ScenarioPlan, **kwargs: dict[str, pd.DataFrame]) -> object:
    return load_workbook(io.BytesIO(workbook_bytes(sp, **kwargs)))


def test_workbook_has_every_sheet_in_order() -> None:
    """The workbook holds the summary, one placement sheet per method, inputs and assumptions,
    and last the machine-readable inputs the planner reads back."""
    book = _book(_plan())
    assert book.sheetnames == [  # type: ignore[attr-defined]
        "Overview",
        "Summary",
        "Input problems",
        "Placement Passthrough",
        "Placement vGPU (time-sliced)",
        "Not placed",
        "Costs",
        "Utilisation",
        "Slowdown",
        "Inventory",
        "Workloads",
        "Assumptions",
        "Performance model",
        "Planner inputs",
    ]


def test_header_rows_are_frozen() -> None:
    """Every sheet keeps its header row in view when scrolled."""
    book = _book(_plan())
    for sheet in book.worksheets:  # type: ignore[attr-defined]
        assert sheet.freeze_panes is not None, sheet.title
        assert sheet.freeze_panes.endswith("2"), sheet.title


def test_numbers_are_numbers_with_formats() -> None:
    """Counts are integers, costs are USD-formatted numbers, utilisation is a percentage."""
    sheet = _book(_plan())["Summary"]  # type: ignore[index]
    names = [c.value for c in sheet[1]]
    row = dict(zip(names, sheet[2], strict=False))
    assert row["GPUs used [GPUs]"].value == 1
    assert isinstance(row["GPUs used [GPUs]"].value, int)
    assert isinstance(row["Annual cost [$/year]"].value, float)
    assert "$" in row["Annual cost [$/year]"].number_format
    assert row["Memory utilisation [%]"].number_format == "0.0%"
    assert 0.0 < row["Memory utilisation [%]"].value <= 1.0


def test_assumptions_sheet_marks_defaults_and_changes() -> None:
    """The assumptions sheet gives each value with its unit and says which the user changed."""
    sheet = _book(_plan())["Assumptions"]  # type: ignore[index]
    rows = {r[0]: r for r in sheet.iter_rows(min_row=2, values_only=True)}
    assert rows["pue"][1:4] == (1.3, "-", "no")
    assert rows["power_usd_per_kwh"][1:4] == (0.15, "USD/kWh", "yes")
    assert rows["network.latency_us"][2] == "µs"
    assert rows["gpu_price_usd[H100-80GB-PCIe]"][1] == 30000


def _plan_with_constants(overrides: dict[str, float]) -> ScenarioPlan:
    s = scenario([workload("train")], assumptions=Assumptions(performance_constants=overrides))
    shared = [place("train#1", "h1", 0, profile="40C", memory_gib=40.0)]
    return assemble(s, [plan(Method.VGPU, shared, lower_bound_gpus=1)])


def test_performance_sheet_shows_values_in_use_and_marks_overrides() -> None:
    """The Performance model sheet gives each constant's value in use beside its default and says
    which the user overrode and which are guesses."""
    sheet = _book(_plan_with_constants({"no_rdma_factor": 3.0}))["Performance model"]  # type: ignore[index]
    names = [c.value for c in sheet[1]]
    rows = {
        r[0]: dict(zip(names, r, strict=True)) for r in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert rows["no_rdma_factor"]["Value"] == 3.0
    assert rows["no_rdma_factor"]["Default value"] == 2.0
    assert rows["no_rdma_factor"]["Changed by you?"] == "yes"
    assert rows["no_rdma_factor"]["A guess?"] == "yes"
    assert rows["vgpu_overhead"]["Changed by you?"] == "no"
    assert rows["vgpu_overhead"]["A guess?"] == "no"


def test_assumptions_sheet_lists_overridden_constants_only() -> None:
    """An overridden performance constant is an assumption row, marked not default, with the
    model's default in its meaning; constants left alone are not repeated there."""
    sheet = _book(_plan_with_constants({"vgpu_load_penalty_notebook": 1.0}))["Assumptions"]  # type: ignore[index]
    rows = {r[0]: r for r in sheet.iter_rows(min_row=2, values_only=True)}
    row = rows["performance_constants[vgpu_load_penalty_notebook]"]
    assert row[1:4] == (1.0, "fraction of runtime", "no")
    assert "model default 2" in row[4]
    assert not any(str(name).startswith("performance_constants[no_rdma") for name in rows)


def test_user_text_never_becomes_a_formula() -> None:
    """Workload names that look like formulas are read back as the same plain strings."""
    sp = _plan(HOSTILE_NAMES)
    data = workbook_bytes(sp)
    book = load_workbook(io.BytesIO(data))
    found = set()
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith((*FORMULA_PREFIXES, "\n")):
                    assert cell.data_type == "s", (sheet.title, cell.coordinate)
                    found.add(cell.value)
    # XML parsing turns a carriage return into a line feed; the text stays text.
    assert {name.replace("\r", "\n") for name in HOSTILE_NAMES} <= found
    # No cell anywhere is stored as a formula.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/"):
                assert b"<f>" not in archive.read(name), name


def test_extra_sheets_are_appended() -> None:
    """Extra frames (the harvest results) become extra sheets with their data."""
    extra = {"Harvest summary": pd.DataFrame({"figure": ["GPU-hours"], "value": [42.5]})}
    book = _book(_plan(), extra_sheets=extra)
    sheet = book["Harvest summary"]  # type: ignore[index]
    assert [c.value for c in sheet[2]] == ["GPU-hours", 42.5]


def test_writes_to_a_path(tmp_path: Path) -> None:
    """Writing to a path gives a file openpyxl can read, with the not-placed reasons."""
    target = tmp_path / "plan.xlsx"
    write_workbook(_plan(("a", "b", "c")), target)
    sheet = load_workbook(target)["Not placed"]
    assert [c.value for c in sheet[2]][2:] == ["c#1", "c", "no room"]


@pytest.mark.parametrize(
    ("title", "expected"),
    [("Placement vGPU (time-sliced)", "Placement vGPU (time-sliced)"), ("a/b:c", "a b c")],
)
def test_sheet_names_are_valid(title: str, expected: str) -> None:
    """Sheet names lose the characters Excel forbids and stay within 31 characters."""
    assert sheet_name(title) == expected
    assert len(sheet_name("x" * 40)) == 31


def test_write_sheets_alone_keeps_text_safe(tmp_path: Path) -> None:
    """Frames written alone get one sheet each, frozen headers, and formula-like text as text."""
    target = tmp_path / "harvest.xlsx"
    frame = pd.DataFrame({"workload": ["=cmd|' /C calc'!A0"], "gpu_hours": [12.5]})
    write_sheets({"Harvest by step": frame}, target)
    book = load_workbook(target)
    assert book.sheetnames == ["Harvest by step"]
    sheet = book["Harvest by step"]
    assert sheet.freeze_panes == "A2"
    assert sheet["A2"].value == "=cmd|' /C calc'!A0"
    assert sheet["A2"].data_type == "s"
    assert sheet["B2"].value == 12.5


def test_workload_inputs_keep_their_units() -> None:
    """The workloads sheet shows busy fractions as percentages and memory as GiB numbers,
    each with every digit (an input sheet saved as CSV gives the numbers back)."""
    sheet = _book(_plan())["Workloads"]  # type: ignore[index]
    names = [c.value for c in sheet[1]]
    row = dict(zip(names, sheet[2], strict=False))
    assert row["Busy [%]"].value == 1.0
    assert row["Busy [%]"].number_format == EXACT_PERCENT
    assert row["GPU memory per instance [GiB]"].value == 40.0
    assert row["GPU memory per instance [GiB]"].number_format == EXACT


def test_the_workloads_sheet_lists_a_pod_lists_pods_without_gpu_marked_as_such() -> None:
    """A pod list's class of pods without GPU is on the Workloads sheet after the GPU classes,
    with 0 GPUs per instance and a note saying it takes node cores and RAM only and is not in
    the GPU figures; the GPU classes carry no note, and the restored inputs keep the pod."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.importers import read_plan_inputs
    from planner.output.export import WITHOUT_GPU_NOTE
    from planner.output.report import plan_scenario
    from planner.scenario import load_scenario

    nodes = b"sn,cpu_milli,memory_mib,gpu,model\nnode-0,32000,131072,2,T4\n"
    pods = (
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        b"gpu-0,4000,8192,1,1000\n"
        b"cpu-0,2000,4096,0,0\n"
        b"cpu-1,2000,4096,0,0\n"
    )
    given = {"inventory.csv": nodes, "workloads.csv": pods}
    read = load_scenario(("nodes.csv", nodes), ("pods.csv", pods), load_catalog()).value
    data = workbook_bytes(plan_scenario(read, methods=(Method.FRACTIONAL,)), given=given)
    rows = list(load_workbook(io.BytesIO(data))["Workloads"].iter_rows(values_only=True))
    header = rows[0]
    cells = [dict(zip(header, row, strict=True)) for row in rows[1:]]
    assert header[-1] == "Note"
    assert [(c["Workload"], c["Instances"], c["GPUs per instance"], c["Note"]) for c in cells] == [
        ("gpu1x1000-cpu4000-mem8192", 1, 1, None),
        ("cpu2000-mem4096", 2, 0, WITHOUT_GPU_NOTE),
    ]
    assert cells[1]["vCPUs per instance"] == 2
    assert "without GPU" in WITHOUT_GPU_NOTE
    assert "cpu-1,2000,4096,0,0" in read_plan_inputs(data).workloads_csv.decode()


def test_the_recommended_plan_without_a_proven_cost_bound_says_so() -> None:
    """The Recommended plan sheet gives the cost bound and the ratio; where no bound above $0
    was proven it says so in words, never a bound of 0."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.workloads import WorkloadKind
    from planner.output.export import _recommended_facts
    from planner.output.report import plan_scenario
    from tests import builders

    plans = plan_scenario(
        builders.scenario_of(
            [],
            [builders.host("h1", "L40S", 2)],
            [builders.workload("desk", kind=WorkloadKind.VDI, instances=4, memory_gib=4)],
            catalog=load_catalog(),
        )
    )
    assert plans.recommended is not None
    bounded = _recommended_facts(plans.recommended).set_index("figure")["value"]
    assert bounded["Lower bound on that cost"] == plans.recommended.cost_lower_bound_usd > 0
    unproven = dataclasses.replace(plans.recommended, cost_lower_bound_usd=0.0)
    figures = _recommended_facts(unproven).set_index("figure")["value"]
    assert figures["Lower bound on that cost"] == "none above $0 could be proven"
    assert figures["Cost over its bound"] == "—"


def test_the_recommended_plan_s_references_count_one_gpu_in_the_singular() -> None:
    """One job on one L40S: the row against today reads '1 served on 1 GPU for', not '1 GPUs'."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.workloads import WorkloadKind
    from planner.output.export import _recommended_facts
    from planner.output.report import plan_scenario
    from tests import builders

    plans = plan_scenario(
        builders.scenario_of(
            [],
            [builders.host("l40s", "L40S", 1)],
            [builders.workload("job", kind=WorkloadKind.TRAINING, memory_gib=40, vcpus=8)],
            catalog=load_catalog(),
        )
    )
    assert plans.recommended is not None
    facts = _recommended_facts(plans.recommended)
    # Today's sharing and the best single method: passthrough both, each row saying which it is.
    figures = list(facts["figure"])
    assert "Against today's sharing (Passthrough)" in figures
    assert "Against the best single method (Passthrough)" in figures
    against = list(facts.loc[facts["figure"].str.startswith("Against "), "value"])
    assert len(against) == 2
    assert all(text.startswith("1 served on 1 GPU for $") for text in against)


def test_the_input_sheets_group_no_thousands_and_the_results_keep_their_formats() -> None:
    """On the Inventory and Workloads sheets a whole number is in General (1024, never
    '1,024', which a comma CSV cannot hold) and a fraction shows every digit; the result
    sheets keep their display formats (dollars, percentages)."""
    book = _book(_plan())
    for title in ("Inventory", "Workloads"):
        for row in book[title].iter_rows(min_row=2):  # type: ignore[index]
            for cell in row:
                if isinstance(cell.value, (int, float)) and not isinstance(cell.value, bool):
                    assert cell.number_format in ("General", EXACT, EXACT_PERCENT), cell.coordinate
    costs = book["Costs"]  # type: ignore[index]
    assert any("$" in c.number_format for row in costs.iter_rows(min_row=2) for c in row)
