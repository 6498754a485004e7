"""Tests of the command line: the sample plan, bad input exits 2 with the message, options."""

from __future__ import annotations

import dataclasses
import enum
import subprocess
import sys
from pathlib import Path

import pytest
from importer_samples import container, kube_list, node, pod
from openpyxl import Workbook, load_workbook

from planner.assumptions import Assumptions, Fact, VgpuScheduler, VsphereVersion, facts
from planner.cli import (
    UsageError,
    build_parser,
    main,
    parse_server,
    recommended_lines,
    scenario_from_args,
    summary_lines,
)
from planner.inputs.catalog import load_catalog
from planner.inputs.importers import write_inputs_sheet
from planner.inputs.importers.workbook import PLAN_INPUTS_SHEET
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import WorkloadKind, load_workloads
from planner.methods import k8s_mps, k8s_time_slicing
from planner.methods.k8s_mig import STRATEGY, MigStrategy
from planner.methods.kubernetes import AI_ENTERPRISE
from planner.methods.registry import Method
from planner.output.report import plan_scenario
from planner.scenario import Scenario
from tests import builders
from tests.builders import scenario_of

REPO = Path(__file__).resolve().parent.parent


def test_plan_on_sample_writes_workbook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With no files given, `plan --out` plans the sample, prints a line per method, writes it."""
    out = tmp_path / "plan.xlsx"
    assert main(["plan", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for method in Method:
        assert method.label in printed
    assert "GPUs over bound" in printed
    assert f"Wrote {out}" in printed
    book = load_workbook(out)
    assert book.sheetnames[:2] == ["Overview", "Summary"]
    assert "Placement MIG" in book.sheetnames
    harvested = {row[0]: row[1] for row in book["Harvest summary"].iter_rows(values_only=True)}
    assert harvested["Harvested"] > 0


def test_plan_workbook_leaves_out_harvest_when_asked(tmp_path: Path) -> None:
    """`--no-harvest` writes the plan without the harvest sheets; the plan sheets stay."""
    out = tmp_path / "plan.xlsx"
    assert main(["plan", "--methods", "vgpu", "--no-harvest", "--out", str(out)]) == 0
    names = load_workbook(out).sheetnames
    assert "Harvest summary" not in names
    assert "Placement vGPU (time-sliced)" in names


def test_unusable_inventory_exits_2_with_file_and_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An inventory without its required columns stops with exit 2, naming file and fix."""
    bad = tmp_path / "my_inventory.csv"
    bad.write_text("host,cluster\nh1,c1\n", encoding="utf-8")
    assert main(["plan", "--inventory", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "my_inventory.csv" in err
    assert "Fix" in err
    assert "Traceback" not in err


def test_a_lone_rvtools_vm_tab_is_refused_naming_what_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """RVTools' tab of virtual machines saved as CSV and given alone is refused as what it is,
    with the export or its vHost tab to give instead, not read as an inventory CSV missing its
    columns."""
    vms = tmp_path / "vInfo.csv"
    vms.write_text(
        "VM,Powerstate,Template,CPUs,Memory,Host,Cluster\nvm1,poweredOn,False,4,8192,h,c\n",
        encoding="utf-8",
    )
    assert main(["plan", "--inventory", str(vms)]) == 2
    err = capsys.readouterr().err
    assert "RVTools tab of virtual machines" in err
    assert "vHost tab saved as CSV" in err
    assert "required column" not in err
    assert "Traceback" not in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A workload file that does not exist is reported by path, exit 2, no traceback."""
    missing = tmp_path / "nowhere.csv"
    assert main(["plan", "--workloads", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "nowhere.csv" in err
    assert "not found" in err


def test_unknown_server_model_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """--size with an unknown GPU model exits 2 and suggests the closest catalog names."""
    assert main(["plan", "--size", "H100-80GB-PCI:4:64:512"]) == 2
    err = capsys.readouterr().err
    assert "unknown GPU model" in err
    assert "H100-80GB-PCIe" in err


def test_size_question_sizes_servers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--size answers the sizing question for the methods asked, and says so."""
    out = tmp_path / "size.xlsx"
    code = main(
        [
            "plan",
            "--size",
            "H100-80GB-PCIe:8:128:2048",
            "--methods",
            "vgpu",
            "mig",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "Sizing servers of 8× H100-80GB-PCIe" in printed
    assert "Passthrough" not in printed
    summary = load_workbook(out)["Summary"]
    texts = [v for row in summary.iter_rows(values_only=True) for v in row if isinstance(v, str)]
    assert "size a cluster of 8× H100-80GB-PCIe servers (128 cores, 2048 GiB RAM)" in texts


def test_parse_server_rules() -> None:
    """A server is MODEL:GPUS:CORES:RAM with a catalog model and positive numbers."""
    catalog = load_catalog()
    server = parse_server("h100 80gb pcie:8:112:2048", catalog)
    assert (server.gpu_model, server.gpus, server.cpu_cores, server.ram_gib) == (
        "H100-80GB-PCIe",
        8,
        112.0,
        2048.0,
    )
    with pytest.raises(UsageError, match="4 parts"):
        parse_server("H100-80GB-PCIe:8", catalog)
    with pytest.raises(UsageError, match="GPUS: 'eight' is not a number"):
        parse_server("H100-80GB-PCIe:eight:112:2048", catalog)
    with pytest.raises(UsageError, match="GPUS: 0 is out of range"):
        parse_server("H100-80GB-PCIe:0:112:2048", catalog)


def test_bad_option_value_exits_2_with_message(capsys: pytest.CaptureFixture[str]) -> None:
    """A PUE below 1 is refused by the parser with exit 2 and the rule."""
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--pue", "0.8"])
    assert exit_info.value.code == 2
    assert "pue (PUE) must be a finite number from 1 to 3" in capsys.readouterr().err


def test_options_reach_the_assumptions() -> None:
    """Command-line assumptions replace the defaults in the scenario planned."""
    args = build_parser().parse_args(
        [
            "plan",
            "--vsphere",
            "7",
            "--vgpu-scheduler",
            "equal-share",
            "--licence-usd",
            "1000",
            "--years",
            "5",
            "--pue",
            "1.2",
            "--no-mig-backed-vgpu",
        ]
    )
    scenario, _ = scenario_from_args(args)
    a = scenario.assumptions
    assert a.vsphere_version is VsphereVersion.V7
    assert a.vgpu_scheduler is VgpuScheduler.EQUAL_SHARE
    assert (a.licence_usd_per_gpu_year, a.amortisation_years, a.pue) == (1000.0, 5.0, 1.2)
    assert a.mig_backed_vgpu is False


def test_perf_options_reach_the_performance_constants() -> None:
    """Each `--perf NAME=VALUE` sets one constant of the slowdown model; the last of a name wins."""
    args = build_parser().parse_args(
        [
            "plan",
            "--perf",
            "no_rdma_factor=3",
            "--perf",
            "network_overhead_vdi=0.4",
            "--perf",
            "no_rdma_factor=2.5",
        ]
    )
    scenario, _ = scenario_from_args(args)
    assert scenario.assumptions.performance_constants == {
        "no_rdma_factor": 2.5,
        "network_overhead_vdi": 0.4,
    }
    plain, _ = scenario_from_args(build_parser().parse_args(["plan"]))
    assert plain.assumptions.performance_constants == {}


def test_perf_override_changes_the_workbook(tmp_path: Path) -> None:
    """A `--perf` value is the one the plan uses: the workbook's Performance model sheet shows it
    as in use and overridden."""
    out = tmp_path / "plan.xlsx"
    argv = ["plan", "--methods", "passthrough", "--no-harvest", "--out", str(out)]
    assert main([*argv, "--perf", "vgpu_load_penalty_notebook=1.5"]) == 0
    sheet = load_workbook(out)["Performance model"]
    names = [c.value for c in sheet[1]]
    rows = {
        r[0]: dict(zip(names, r, strict=True)) for r in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert rows["vgpu_load_penalty_notebook"]["Value"] == 1.5
    assert rows["vgpu_load_penalty_notebook"]["Changed by you?"] == "yes"


def test_a_bad_constant_in_a_restored_workbook_is_refused_on_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A performance constant out of its range in a plan workbook is refused when the workbook
    is read, naming the sheet's row, the constant, the value and its rule; the plan is made
    with the model's default (the override is gone from the new workbook), and the same value
    given as --perf beside the workbook stops the command naming the rule."""
    first = tmp_path / "plan.xlsx"
    argv = ["plan", "--methods", "passthrough", "--no-harvest"]
    assert main([*argv, "--perf", "no_rdma_factor=3", "--out", str(first)]) == 0
    book = load_workbook(first)
    sheet = book[PLAN_INPUTS_SHEET]
    row = next(r for r in sheet.iter_rows(min_row=3) if r[1].value == _NO_RDMA)
    row[2].value = "0.5"
    book.save(first)
    capsys.readouterr()
    again = tmp_path / "again.xlsx"
    assert main([*argv, "--from-workbook", str(first), "--out", str(again)]) == 0
    err = capsys.readouterr().err
    assert f"row {row[2].row}" in err
    assert f"{_NO_RDMA}: '0.5' is refused" in err
    assert "must be at least 1 [multiplier], got 0.5" in err
    restored = load_workbook(again)[PLAN_INPUTS_SHEET]
    assert _NO_RDMA not in [r[1] for r in restored.iter_rows(values_only=True)]
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--from-workbook", str(first), "--perf", "no_rdma_factor=0.5"])
    assert stopped.value.code == 2
    assert "no_rdma_factor=0.5" in capsys.readouterr().err


def test_perf_beside_a_restored_workbook_adds_to_its_overrides_one_by_one(
    tmp_path: Path,
) -> None:
    """--perf beside --from-workbook overrides the constants it names and keeps the workbook's
    other overrides: the workbook's, then each --perf on top, the last of a name winning. It
    replaced the workbook's whole set, so its other overrides were dropped without a word."""
    first = tmp_path / "plan.xlsx"
    argv = ["plan", "--methods", "passthrough", "--no-harvest"]
    saved = ["--perf", "no_rdma_factor=3", "--perf", "network_overhead_vdi=0.4"]
    assert main([*argv, *saved, "--out", str(first)]) == 0
    args = build_parser().parse_args(
        [
            *argv,
            "--from-workbook",
            str(first),
            "--perf",
            "no_rdma_factor=2",
            "--perf",
            "vgpu_load_penalty_notebook=1.5",
            "--perf",
            "no_rdma_factor=2.5",
        ]
    )
    scenario, _ = scenario_from_args(args)
    assert scenario.assumptions.performance_constants == {
        "no_rdma_factor": 2.5,
        "network_overhead_vdi": 0.4,
        "vgpu_load_penalty_notebook": 1.5,
    }
    restored, _ = scenario_from_args(
        build_parser().parse_args([*argv, "--from-workbook", str(first)])
    )
    assert restored.assumptions.performance_constants == {
        "no_rdma_factor": 3.0,
        "network_overhead_vdi": 0.4,
    }


_NO_RDMA = "performance_constants[no_rdma_factor]"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("no_such_constant=1", "unknown performance constant 'no_such_constant'"),
        ("no_rdma_factor", "expected NAME=VALUE"),
        ("no_rdma_factor=fast", "the value must be a number, for example no_rdma_factor=2"),
        ("remote_interference=2", "at most 1"),
        ("network_overhead_training=-0.1", "at least 0"),
    ],
)
def test_bad_perf_option_exits_2_with_the_rule(
    option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `--perf` naming no constant, without `=`, not a number or out of range stops with exit 2,
    the option and what is wrong, before anything is planned."""
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--methods", "passthrough", "--perf", option])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --perf" in err
    assert message in err
    assert "Traceback" not in err


def test_harvest_subcommand_is_registered() -> None:
    """The harvest subcommand is part of the same command line."""
    args = build_parser().parse_args(["harvest"])
    assert args.command == "harvest"
    assert callable(args.func)


def test_module_entry_point(tmp_path: Path) -> None:
    """`python -m planner plan` runs as a program and exits 0 on the sample."""
    out = tmp_path / "p.xlsx"
    done = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--methods", "passthrough", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.is_file()


def test_a_trace_list_given_as_the_other_input_names_the_option_it_belongs_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trace pod list given alone as the inventory is refused as the other input's list,
    naming ``--workloads``, not as a list given among other files."""
    pods = tmp_path / "pods.csv"
    pods.write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
        "deletion_time,scheduled_time\np0,4000,8192,1,500,,LS,Running,0,10,0\n"
    )
    assert main(["plan", "--inventory", str(pods)]) == 2
    err = capsys.readouterr().err
    assert "pod list (workloads) of Alibaba's GPU-sharing trace (openb), not inventory" in err
    assert "python -m planner plan --workloads pods.csv" in err
    assert "among other files" not in err


def test_a_trace_node_list_prints_what_it_read_and_assumed_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``plan --inventory <trace node list>`` prints the node list's notes on stderr, one
    ``import:`` line each, as the dashboard shows them: the hosts read, the model the catalog
    lacks with where to give its figures (``--catalog-extra``), and each host field the trace
    has no column for with the value assumed; none of them on stdout."""
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(
        "sn,cpu_milli,memory_mib,gpu,model\nnode-0,64000,262144,2,T4\nnode-1,96000,393216,8,G2\n"
    )
    assert main(["plan", "--inventory", str(nodes), "--methods", "fractional", "--no-harvest"]) == 0
    captured = capsys.readouterr()
    imported = [line for line in captured.err.splitlines() if line.startswith("import: ")]
    assert imported == [
        "import: nodes.csv: read: hosts = 2 (10 GPUs)",
        "import: nodes.csv: GPU model 'G2' (1 node, first on row 3) is not in the catalog: "
        "taken as a GPU of 32 GiB, 300 W and 100 TFLOPS FP16 (guesses), price unknown; give it "
        "as your own GPU model (--catalog-extra) to set its figures",
        "import: nodes.csv: cluster assumed = openb: the trace has no column for it",
        "import: nodes.csv: platform assumed = kubernetes: the trace has no column for it",
        "import: nodes.csv: network_gbps assumed = 0.0: the trace has no column for it",
        "import: nodes.csv: rdma assumed = no: the trace has no column for it",
        "import: nodes.csv: mig_enabled assumed = no: the trace has no column for it",
    ]
    assert "import:" not in captured.out


_STRAY_SOLVER_PRINT = """
import os, runpy, sys
import planner.solve.milp as milp
solve = milp.milp
def noisy(**arguments):
    os.write(1, b"HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\\n")
    return solve(**arguments)
milp.milp = noisy
sys.argv = ["planner", "plan", "--methods", "passthrough", "vgpu", "--no-harvest"]
runpy.run_module("planner", run_name="__main__")
"""


def test_what_the_solver_prints_itself_stays_out_of_the_plan() -> None:
    """HiGHS now and then writes a debug line straight to the process's stdout (below Python's
    ``sys.stdout``); ``python -m planner`` keeps it out of the plan it prints, every line of
    which still comes through."""
    done = subprocess.run(
        [sys.executable, "-c", _STRAY_SOLVER_PRINT],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "HighsMipSolverData" not in done.stdout
    assert done.stdout.startswith("Recommended plan: Serves")
    assert "vGPU (time-sliced)" in done.stdout


def test_skipped_rows_are_reported_and_planning_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad row is reported on stderr with row, column and fix; the rest is planned, exit 0."""
    sample = (REPO / "data" / "sample" / "workloads.csv").read_text(encoding="utf-8")
    header, first, *rest = sample.splitlines()
    name, kind, _, *tail = first.split(",")
    broken = tmp_path / "mix.csv"
    broken.write_text("\n".join([header, ",".join([name, kind, "many", *tail]), *rest]) + "\n")
    assert main(["plan", "--workloads", str(broken), "--methods", "passthrough"]) == 0
    captured = capsys.readouterr()
    assert "mix.csv, row 2, column 'instances'" in captured.err
    assert "Fix:" in captured.err
    assert "Passthrough" in captured.out


def test_semicolon_inputs_with_decimal_commas_plan_as_the_comma_ones(tmp_path: Path) -> None:
    """The sample inventory and workloads saved by a European spreadsheet (semicolons between
    columns, decimal commas) give the command line the same hosts and classes as the sample."""
    from importer_samples import european_csv

    files = []
    for name in ("inventory.csv", "workloads.csv"):
        path = tmp_path / name
        path.write_bytes(european_csv((REPO / "data" / "sample" / name).read_bytes()))
        files.append(str(path))
    args = ["plan", "--inventory", files[0], "--workloads", files[1]]
    european, problems = scenario_from_args(build_parser().parse_args(args))
    plain, _ = scenario_from_args(build_parser().parse_args(["plan"]))
    assert problems == ()
    assert european.inventory == plain.inventory
    assert european.workloads == plain.workloads


def test_unwritable_workbook_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A workbook path that cannot be written gives exit 1 and the reason, after the summary."""
    out = tmp_path / "missing-dir" / "plan.xlsx"
    assert main(["plan", "--methods", "passthrough", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "cannot write" in captured.err
    assert "Passthrough" in captured.out


def test_size_from_the_server_catalog_says_what_to_buy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--size names server types of the catalog (repeatable): the recommended plan says which
    servers to buy, how many and for how much."""
    code = main(["plan", "--size", "l40s-4", "--size", "hgx-h100-8", "--methods", "vgpu"])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Recommended plan: Buy ")
    assert "Sizing servers of l40s-4 (4× L40S)" in printed
    assert "Sizing servers of hgx-h100-8 (8× H100-80GB-SXM)" in printed


def test_a_plan_placing_nothing_says_why_on_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    """Sized on L40S servers, MIG places none of the sample's instances: its line says why,
    not only 'placed 0/308'."""
    code = main(["plan", "--size", "l40s-4", "--methods", "vgpu", "mig"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    (mig,) = [line for line in lines if line.startswith("MIG")]
    assert "placed 0/" in mig
    assert "none placed: " in mig
    assert "L40S does not support MIG" in mig
    (vgpu,) = [line for line in lines if line.startswith("vGPU")]
    assert "none placed" not in vgpu


def test_a_kubernetes_method_sizes_servers_running_kubernetes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A server type is hardware: sized for a Kubernetes method, the catalog's vSphere type runs
    Kubernetes, and the method places the sample's pods (it placed none, 'runs on Kubernetes
    hosts, and the host runs vSphere'); the recommended plan names the platform it buys."""
    code = main(["plan", "--size", "l40s-4", "--methods", "k8s-time-slicing"])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    (k8s,) = [line for line in lines if line.startswith("Time-slicing (Kubernetes)")]
    assert "none placed" not in k8s
    assert "placed 0/" not in k8s
    assert lines[0].startswith("Recommended plan: Buy ")
    assert "l40s-4 (4× L40S, Kubernetes)" in lines[0]


def test_size_with_an_unknown_server_type_name_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A --size word that is no catalog server type names the types there are."""
    assert main(["plan", "--size", "hgx-h200"]) == 2
    err = capsys.readouterr().err
    assert "not a server type of the catalog" in err
    assert "hgx-h100-8" in err


def test_kubernetes_options_reach_the_assumptions() -> None:
    """The device plugin's replicas, the MIG strategy and the AI Enterprise switch reach the
    scenario planned; by default no licence is charged on Kubernetes."""
    defaults, _ = scenario_from_args(build_parser().parse_args(["plan"]))
    assert AI_ENTERPRISE.of(defaults.assumptions) is False
    args = build_parser().parse_args(
        [
            "plan",
            "--time-slicing-replicas",
            "8",
            "--mps-replicas",
            "2",
            "--mig-strategy",
            "single",
            "--k8s-ai-enterprise",
        ]
    )
    a = scenario_from_args(args)[0].assumptions
    assert (k8s_time_slicing.REPLICAS.of(a), k8s_mps.REPLICAS.of(a)) == (8, 2)
    assert STRATEGY.of(a) is MigStrategy.SINGLE
    assert AI_ENTERPRISE.of(a) is True


@pytest.mark.parametrize("value", ["0", "49", "two"])
def test_bad_replicas_exit_2_with_the_rule(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Replicas must be a whole number of pods per GPU from 1 to 48."""
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", "--mps-replicas", value])
    assert exit_info.value.code == 2
    assert "--mps-replicas" in capsys.readouterr().err


def _small_estate(tmp_path: Path) -> tuple[Path, Path]:
    """One 2-GPU L40S host of cluster prod, and five fine-tuning jobs of one whole GPU each."""
    inventory = tmp_path / "inventory.csv"
    inventory.write_text(
        "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
        "h1,prod,L40S,2,64,512,100,yes\n"
    )
    workloads = tmp_path / "workloads.csv"
    workloads.write_text(
        "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
        "ram_gib,live_migration,isolation,latency_tolerant,priority\n"
        "tune,training,5,1,40,70%,24x7,7,8,64,no,no,yes,2\n"
    )
    return inventory, workloads


def test_add_to_inventory_with_headroom_says_what_to_buy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --add-to-inventory --size l40s-4 --headroom 1` on one full 2-GPU host and five
    whole-GPU jobs: the lone owned host is its cluster's failover host, so all five go to new
    4-GPU servers, two of them plus one kept idle: buy 3; the workbook states the purchase and
    each cluster's headroom."""
    inventory, workloads = _small_estate(tmp_path)
    out = tmp_path / "add.xlsx"
    args = ["plan", "--inventory", str(inventory), "--workloads", str(workloads)]
    more = ["--add-to-inventory", "--size", "l40s-4", "--headroom", "1", "--methods"]
    assert main([*args, *more, "passthrough", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Recommended plan: Buy 3 × l40s-4 (4× L40S) (for $")
    assert "on top of your 1 host: serves all 5 instances" in printed
    assert "buy l40s-4 (4× L40S): 3 at $" in printed
    assert "1 of them kept idle for failover" in printed
    assert "headroom: cluster new (3 hosts): any 1 host can fail" in printed
    sheet = load_workbook(out)["Recommended plan"]
    cells = [str(c) for row in sheet.iter_rows(values_only=True) for c in row if c is not None]
    assert any(c.startswith("Buy 3 × l40s-4") for c in cells)
    assert "cluster new (3 hosts): any 1 host can fail (every set checked)" in cells
    summary = load_workbook(out)["Summary"]
    texts = [str(c) for row in summary.iter_rows(values_only=True) for c in row if c]
    assert any(t.startswith("add to the inventory l40s-4") for t in texts)


def test_add_to_inventory_without_a_server_type_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--add-to-inventory and --headroom need --size; a negative headroom is refused."""
    assert main(["plan", "--add-to-inventory"]) == 2
    assert "--size TYPE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["plan", "--size", "l40s-4", "--headroom", "-1"])
    assert "must be 0 to" in capsys.readouterr().err


def test_a_plan_without_a_proven_cost_bound_says_so() -> None:
    """The recommended plan's cost line gives the bound and the ratio; where no bound above $0
    was proven it says so, never that no plan costs under $0."""
    scenario = scenario_of(
        [],
        [builders.host("h1", "L40S", 2)],
        [builders.workload("desk", kind=WorkloadKind.VDI, instances=4, memory_gib=4)],
        catalog=load_catalog(),
    )
    plan = plan_scenario(scenario)
    assert plan.recommended is not None
    bounded = recommended_lines(plan)[1]
    assert f"costs under ${plan.recommended.cost_lower_bound_usd:,.0f}" in bounded
    unbounded = dataclasses.replace(
        plan, recommended=dataclasses.replace(plan.recommended, cost_lower_bound_usd=0.0)
    )
    line = recommended_lines(unbounded)[1]
    assert "no lower bound on its cost could be proven (ratio —" in line
    assert "$0" not in line


def _other_value(about: Fact, default: object) -> object:
    """A value of an assumption's option other than its default: another choice, or the end
    of its range farther from the default."""
    if isinstance(default, enum.Enum):
        return next(member for member in type(default) if member is not default)
    assert about.minimum is not None
    assert about.maximum is not None
    value = about.maximum if about.maximum != default else about.minimum
    return int(value) if about.whole else value


def _workbook_with(assumptions: Assumptions, path: Path) -> Path:
    """A plan workbook of the sample files that restores ``assumptions``."""
    catalog = load_catalog()
    sample = REPO / "data" / "sample"
    book = Workbook()
    write_inputs_sheet(
        book,
        Scenario(
            catalog,
            load_inventory((sample / "inventory.csv").read_bytes(), catalog).value,
            load_workloads((sample / "workloads.csv").read_bytes(), catalog).value,
            assumptions,
        ),
    )
    book.save(path)
    return path


def test_an_option_given_at_its_default_wins_over_the_restored_workbook(tmp_path: Path) -> None:
    """Every assumption's option given beside --from-workbook is the value planned, also when
    it is the option's default (--pue 1.5 over a workbook's 1.2); an option not given keeps the
    workbook's value. Options given at their default value were ignored, the workbook's kept."""
    valued = [
        (name, about, default)
        for name, about, default in facts(Assumptions())
        if about.flag is not None and not isinstance(default, bool)
    ]
    changed = {name: _other_value(about, default) for name, about, default in valued}
    book = _workbook_with(Assumptions().with_facts(changed), tmp_path / "plan.xlsx")
    at_default = [
        text
        for _, about, default in valued
        for text in (about.flag, str(default.value if isinstance(default, enum.Enum) else default))
    ]
    argv = ["plan", "--from-workbook", str(book)]
    given, _ = scenario_from_args(build_parser().parse_args([*argv, *at_default]))
    kept, _ = scenario_from_args(build_parser().parse_args(argv))
    given_values, kept_values = given.assumptions.by_name(), kept.assumptions.by_name()
    for name, _, default in valued:
        assert given_values[name] == default, name
        assert kept_values[name] == changed[name], name


def test_an_option_given_at_its_default_beside_a_saved_scenario_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --scenario NAME --pue 1.5` stops, naming --pue, which the saved scenario's PUE
    would override, also when 1.5 is the option's default; it was let through unseen."""
    db = ["--db", str(tmp_path / "s.sqlite")]
    assert main(["scenarios", "save", "base", "--pue", "2", *db]) == 0
    capsys.readouterr()
    assert main(["plan", "--scenario", "base", "--pue", "1.5", *db]) == 2
    assert "--pue would be ignored" in capsys.readouterr().err


def test_a_restored_workbook_giving_an_assumption_twice_stops_naming_both_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --from-workbook` of a workbook whose Planner inputs sheet gives pue twice (1.5 on
    its own row, 3.0 added below) stops with the bad-input code, naming the sheet, both rows,
    both values and the fix, and plans nothing; the last value was planned without a word."""
    book = tmp_path / "plan.xlsx"
    assert main(["plan", "--methods", "passthrough", "--no-harvest", "--out", str(book)]) == 0
    edited = load_workbook(book)
    sheet = edited[PLAN_INPUTS_SHEET]
    first = next(r[1].row for r in sheet.iter_rows(min_row=3) if r[1].value == "pue")
    sheet.append(["assumption", "pue", "3.0"])
    edited.save(book)
    capsys.readouterr()
    code = main(["plan", "--from-workbook", str(book), "--methods", "passthrough"])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        f"plan.xlsx [{PLAN_INPUTS_SHEET}], row {sheet.max_row}, column 'name': the assumption "
        f"pue is given twice, on row {first} ('1.5') and on this row ('3.0')"
    ) in err
    assert "Fix: delete one of the two rows of pue, keeping the value meant" in err
    assert "nothing was planned" in err
    assert "Traceback" not in err


def test_a_problem_on_a_gpu_still_counted_is_not_a_skipped_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """nvidia-smi query output whose second GPU's index is '²' plans both GPUs, and the summary
    line counts the index as another problem, not a row skipped; it said '1 row skipped' of a
    row whose GPU was planned."""
    smi = tmp_path / "gpu-1.csv"
    smi.write_text(
        "index, name, memory.total [MiB], hostname\n"
        "0, NVIDIA L40S, 46068 MiB, gpu-1\n"
        "², NVIDIA L40S, 46068 MiB, gpu-1\n"
    )
    args = ["--inventory", str(smi), "--cluster-gpus", "imported=L40S:2"]
    scenario, _ = scenario_from_args(build_parser().parse_args(["plan", *args]))
    assert scenario.inventory.gpu_count == 2
    assert main(["plan", *args, "--methods", "passthrough", "--no-harvest"]) == 0
    err = capsys.readouterr().err
    assert "row 3, column 'index': the index '²' is not" in err
    assert "plan: 1 other problem: see the list above." in err
    assert "skipped" not in err


def test_a_plan_line_counts_one_gpu_and_one_host_in_the_singular() -> None:
    """One job on one L40S: the passthrough line reads '1 GPU   1 host', not '1 GPUs 1 hosts'."""
    scenario = scenario_of(
        [],
        [builders.host("l40s", "L40S", 1)],
        [builders.workload("job", kind=WorkloadKind.TRAINING, memory_gib=40, vcpus=8)],
        catalog=load_catalog(),
    )

    lines = summary_lines(plan_scenario(scenario, methods=(Method.PASSTHROUGH,)))

    line = next(x for x in lines if x.startswith("Passthrough"))
    assert "   1 GPU     1 host   placed 1/1" in line


def test_the_help_names_how_many_methods_are_planned_by_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``plan --help`` says the default plans every method of the registry, not 'all four'."""
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default: all {len(Method)})" in out


def test_pods_on_time_sliced_nodes_given_as_the_inventory_ask_one_replica_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`plan --inventory nodes.json --workloads pods.json`: four pods asking nvidia.com/gpu: 1
    on a node whose T4 is time-sliced 4 ways ask a quarter of a GPU each, as the pods' import
    reads them beside their nodes (they were planned as 4 whole T4s)."""
    nodes = tmp_path / "nodes.json"
    nodes.write_bytes(
        kube_list(
            node(
                "gpu-1",
                {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.replicas": "4"},
                extra={"nvidia.com/gpu": "4"},
            )
        )
    )
    pods = tmp_path / "pods.json"
    pods.write_bytes(
        kube_list(
            *(
                pod(
                    f"web-5d9f8c6b5d-{i}",
                    owner=("ReplicaSet", "web-5d9f8c6b5d"),
                    labels={"pod-template-hash": "5d9f8c6b5d"},
                    containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
                )
                for i in range(4)
            )
        )
    )
    code = main(
        [
            "plan",
            "--inventory",
            str(nodes),
            "--workloads",
            str(pods),
            "--methods",
            "k8s-time-slicing",
        ]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "4 pods on nodes that share their GPUs" in err
    assert "nodes no kubectl get nodes file gives" not in err


TRACE_NODES = (
    "sn,cpu_milli,memory_mib,gpu,model\nnode-0,64000,262144,2,T4\nnode-1,96000,393216,8,G2\n"
)


def test_cluster_given_is_the_cluster_of_a_trace_node_lists_nodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trace has no column for a cluster: ``--cluster prod`` puts its nodes in cluster
    prod, and the note says the cluster given instead of 'cluster assumed = openb'."""
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(TRACE_NODES)
    args = build_parser().parse_args(["plan", "--inventory", str(nodes), "--cluster", "prod"])
    scenario, problems = scenario_from_args(args)
    assert {h.cluster for h in scenario.inventory.hosts} == {"prod"}
    assert not [p for p in problems if "--cluster" in p.message]
    err = capsys.readouterr().err
    assert "import: user: read: cluster = prod" in err
    assert "cluster assumed" not in err


def test_import_options_no_input_uses_are_named_and_stop_strict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The sample's planner CSVs name their hosts, clusters and GPUs and list no kubectl pod:
    --host-name, --cluster, --cluster-gpus and --group-by given with them are each a problem
    naming the option, the file and what it was read as; --strict stops on them."""
    options = [
        "--host-name",
        "gpu9",
        "--cluster",
        "prod",
        "--cluster-gpus",
        "prod=L40S:4",
        "--group-by",
        "app",
    ]
    _, problems = scenario_from_args(build_parser().parse_args(["plan", *options]))
    said = {p.message.split(" ")[0]: str(p) for p in problems}
    assert set(said) == {"--host-name", "--cluster", "--cluster-gpus", "--group-by"}
    assert said["--host-name"].startswith("inventory.csv: --host-name 'gpu9' is not used")
    assert (
        "inventory.csv (the planner's inventory CSV) names every host's cluster"
        in (said["--cluster"])
    )
    assert "--cluster-gpus 'prod=L40S:4' is not used" in said["--cluster-gpus"]
    assert said["--group-by"].startswith("workloads.csv: --group-by 'app' is not used")
    assert "Fix: leave --group-by out" in said["--group-by"]
    assert main(["plan", "--strict", *options]) == 2
    err = capsys.readouterr().err
    assert "input: workloads.csv: --group-by 'app' is not used" in err
    assert "--strict: stopped" in err


def test_import_options_the_import_uses_are_not_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--host-name and --cluster name the host and cluster of an nvidia-smi -L output saved
    without them, and --group-by groups kubectl pods: used, none of them is a problem."""
    smi = tmp_path / "gpus.txt"
    smi.write_text(
        "GPU 0: NVIDIA L40S (UUID: GPU-11111111-2222-3333-4444-555555555555)\n"
        "GPU 1: NVIDIA L40S (UUID: GPU-11111111-2222-3333-4444-666666666666)\n"
    )
    pods = tmp_path / "pods.json"
    pods.write_bytes(
        kube_list(
            pod(
                "web-0",
                owner=("StatefulSet", "web"),
                labels={"app": "web"},
                containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
            )
        )
    )
    args = build_parser().parse_args(
        [
            "plan",
            "--inventory",
            str(smi),
            "--host-name",
            "gpu9",
            "--cluster",
            "prod",
            "--workloads",
            str(pods),
            "--group-by",
            "app",
        ]
    )
    scenario, problems = scenario_from_args(args)
    assert [(h.name, h.cluster) for h in scenario.inventory.hosts] == [("gpu9", "prod")]
    assert not [p for p in problems if "is not used" in p.message]


def test_plan_scenario_with_a_database_in_a_read_only_folder_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plan --scenario NAME` whose scenario database sits in a folder that is not writable
    exits 1, README's code for an output that cannot be written, not 2 (bad input): the
    message names the folder and the fix."""
    import sqlite3

    db = tmp_path / "s.sqlite"
    assert main(["scenarios", "save", "base", "--db", str(db)]) == 0
    capsys.readouterr()
    connect = sqlite3.connect

    class InReadOnlyFolder(sqlite3.Connection):
        """SQLite's answer where the folder refuses the journal files (root ignores
        permissions, so the folder cannot refuse them here)."""

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql.startswith("PRAGMA journal_mode"):
                refused = sqlite3.OperationalError("attempt to write a readonly database")
                refused.sqlite_errorcode = sqlite3.SQLITE_READONLY_DIRECTORY
                raise refused
            return super().execute(sql, *args)

    def read_only(*args: object, **kwargs: object) -> sqlite3.Connection:
        return connect(str(db), factory=InReadOnlyFolder)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    assert main(["plan", "--scenario", "base", "--db", str(db)]) == 1
    said = capsys.readouterr().err
    assert f"plan: cannot write the scenario database {db}" in said
    assert f"its folder {tmp_path} is not writable" in said
    assert "Traceback" not in said
