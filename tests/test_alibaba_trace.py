"""Alibaba openb trace files: recognised by header, read into hosts and pod classes, bad rows
reported; planned through the CLI."""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from csv_layouts import LAYOUTS
from openpyxl import load_workbook

from planner.cli import build_parser, main, scenario_from_args
from planner.inputs.alibaba_trace import (
    TraceCluster,
    is_node_list,
    is_pod_list,
    load_node_list,
    load_pod_list,
)
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError
from planner.measure.costs import AnnualRates
from planner.measure.result import measure_plan
from planner.methods.registry import Method
from planner.output.export import write_workbook
from planner.output.recommendations import within_limits
from planner.output.report import plan_scenario
from planner.solve.mixed import recommend

NODES = """sn,cpu_milli,memory_mib,gpu,model
node-0,32000,131072,2,T4
node-1,96000,393216,8,G2
node-2,64000,262144,4,P100
"""
PODS = """name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,\
deletion_time,scheduled_time
pod-0,4000,8192,1,500,,LS,Running,0,10,0
pod-1,4000,8192,1,500,,LS,Running,0,10,0
pod-2,8000,16384,1,1000,T4,BE,Running,0,10,0
pod-3,16000,32768,4,1000,,LS,Running,0,10,0
pod-4,2000,4096,0,0,,BE,Running,0,10,0
pod-5,1000,2048,1,250,G2|P100,LS,Running,0,10,0
"""


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_files_are_recognised_by_their_header() -> None:
    """A node list and a pod list are told apart from each other and from a planner CSV."""
    assert is_node_list(NODES.encode())
    assert not is_pod_list(NODES.encode())
    assert is_pod_list(PODS.encode())
    assert not is_node_list(PODS.encode())
    assert not is_pod_list(b"name,kind,instances,gpus,memory_gib\n")


def test_a_list_is_recognised_in_the_encodings_its_loader_reads() -> None:
    """A list saved as UTF-16 with its byte-order mark, which the loader reads, is recognised as
    its UTF-8 text is; bytes the loader cannot decode (Windows-1252) are no trace list, so the
    file's loader refuses them saying how to save them."""
    assert is_node_list(NODES.encode("utf-16"))
    assert is_pod_list(PODS.encode("utf-16"))
    assert not is_node_list(NODES.replace("node-0", "nœud-0").encode("cp1252"))


def _openb(name: str) -> Path:
    """A file of the real trace in ``shared/data/alibaba-openb`` beside the repository (or
    above it); the test is skipped when it is absent."""
    here = Path(__file__).resolve().parent
    for folder in here.parents:
        path = folder / "shared" / "data" / "alibaba-openb" / name
        if path.is_file():
            return path
    pytest.skip(f"the Alibaba openb trace ({name}) is not beside the repository")


def _every(path: Path, step: int) -> list[list[str]]:
    """The header and every ``step``-th row of a real list: a small slice of each kind of row."""
    rows = list(csv.reader(io.StringIO(path.read_text())))
    return [rows[0], *rows[1::step]]


def _written(rows: list[list[str]], separator: str = ",", line_end: str = "\n") -> str:
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator=line_end).writerows(rows)
    return out.getvalue()


RESAVED: dict[str, Callable[[list[list[str]]], bytes]] = {
    "semicolons (Excel CSV in a decimal-comma locale)": lambda r: _written(r, ";").encode(),
    "tabs (Excel Text, tab delimited)": lambda r: _written(r, "\t", "\r\n").encode(),
    "UTF-16 tabs (Excel Unicode Text)": lambda r: (
        codecs.BOM_UTF16_LE + _written(r, "\t", "\r\n").encode("utf-16-le")
    ),
    "UTF-16 without its byte-order mark": lambda r: _written(r, "\t", "\r\n").encode("utf-16-le"),
    "UTF-16 big-endian without its byte-order mark": lambda r: _written(r).encode("utf-16-be"),
    "a blank line above the header": lambda r: ("\n" + _written(r)).encode(),
    "Excel's sep=; line above the header": lambda r: (
        "sep=;\r\n" + _written(r, ";", "\r\n")
    ).encode(),
    "blank rows of separators above the header": lambda r: (";;;;\n" + _written(r, ";")).encode(),
    **{layout: laid.write for layout, laid in LAYOUTS.items()},
}
"""How a spreadsheet re-saves a trace list, and the layouts every CSV reader reads alike (blank
lines and Excel's sep= line in either order, a byte-order mark); each reads as the
comma-separated original."""


@pytest.mark.parametrize("saved_as", RESAVED)
def test_a_real_list_re_saved_by_a_spreadsheet_reads_as_the_original(
    catalog: Catalog, saved_as: str
) -> None:
    """A slice of the real node list and pod list, re-saved with semicolons, tabs, as UTF-16
    (with its byte-order mark or without), below a blank line or below Excel's sep= line, is
    recognised as the trace's list (not taken for a planner CSV) and reads to the hosts,
    catalog and classes of the comma original."""
    nodes = _every(_openb("openb_node_list_gpu_node.csv"), 25)
    pods = _every(_openb("openb_pod_list_gpuspec33.csv"), 97)
    plain_nodes = load_node_list(_written(nodes).encode(), catalog, file_name="nodes.csv")
    plain_pods = load_pod_list(
        _written(pods).encode(),
        catalog,
        file_name="pods.csv",
        gpu_models=[h.gpu_model for h in plain_nodes.value.inventory.hosts],
    )
    # The slice holds shares, whole GPUs, pods without GPU and pods bound to models.
    assert {w.memory_share is None for w in plain_pods.value.workloads} == {True, False}
    assert plain_pods.value.cpu_only
    assert any(w.gpu_models for w in plain_pods.value.workloads)
    save = RESAVED[saved_as]
    assert (is_node_list(save(nodes)), is_pod_list(save(nodes))) == (True, False)
    assert (is_pod_list(save(pods)), is_node_list(save(pods))) == (True, False)
    read_nodes = load_node_list(save(nodes), catalog, file_name="nodes.csv")
    read_pods = load_pod_list(
        save(pods),
        catalog,
        file_name="pods.csv",
        gpu_models=[h.gpu_model for h in read_nodes.value.inventory.hosts],
    )
    assert (read_nodes.problems, read_pods.problems) == ((), ())
    assert read_nodes.value.inventory == plain_nodes.value.inventory
    assert read_nodes.value.catalog == plain_nodes.value.catalog
    assert read_pods.value.workloads == plain_pods.value.workloads
    assert read_pods.value.cpu_only == plain_pods.value.cpu_only


def test_a_sep_line_names_the_separator_of_a_list_whose_header_holds_more_commas(
    catalog: Catalog,
) -> None:
    """Below sep=; a node list whose last column's name holds commas is split on semicolons,
    as Excel splits it: recognised and read, the extra column named as unknown."""
    data = (
        b"sep=;\nsn;cpu_milli;memory_mib;gpu;model;notes (a, b, c, d, e, f)\n"
        b"node-0;32000;131072;2;T4;x\n"
    )
    assert is_node_list(data)
    loaded = load_node_list(data, catalog, file_name="nodes.csv")
    assert [h.name for h in loaded.value.inventory.hosts] == ["node-0"]
    (problem,) = loaded.problems
    assert problem.message.startswith("unknown column 'notes (a, b, c, d, e, f)' is ignored")


def test_a_list_row_too_long_for_csv_is_refused_naming_its_row_and_the_limit(
    catalog: Catalog,
) -> None:
    """A pod list with one line over Python's CSV field limit and no quote in it is refused
    naming that row and the limit, with a fix to shorten the cell, not to close a quote."""
    limit = csv.field_size_limit()
    data = (PODS + "pod-9," + "9" * (limit + 1) + ",8192,1,500,,LS,Running,0,10,0\n").encode()
    with pytest.raises(InputError) as caught:
        load_pod_list(data, catalog, file_name="pods.csv")
    (problem,) = caught.value.problems
    assert problem.row == 8
    assert f"longer than {limit:,} characters" in problem.message
    assert "quote" not in problem.fix


def test_a_node_without_cores_or_memory_is_a_problem_naming_row_and_column(
    catalog: Catalog,
) -> None:
    """A node of 0 milli-cores or 0 MiB would be a host with no cores or no RAM, which the
    planner's inventory refuses: each is a problem naming the file, its row and column and the
    range to enter, its node left out, and the other nodes read."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "no-cores,0,131072,2,T4\n"
        "no-memory,32000,0,2,T4\n"
        "ok,32000,131072,2,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    assert [h.name for h in loaded.value.inventory.hosts] == ["ok"]
    found = [(p.file, p.row, p.column, p.message, p.fix) for p in loaded.problems]
    assert found == [
        (
            "nodes.csv",
            2,
            "cpu_milli",
            "0 is out of range",
            "enter a whole number from 1 to 4096000 milli-cores",
        ),
        (
            "nodes.csv",
            3,
            "memory_mib",
            "0 is out of range",
            "enter a whole number from 1 to 1073741824 MiB",
        ),
    ]


def test_the_real_node_list_reads_whole_with_cores_and_memory_on_every_node(
    catalog: Catalog,
) -> None:
    """Every node of the real node list has cores and memory: all 1,213 read, no problem."""
    loaded = load_node_list(_openb("openb_node_list_gpu_node.csv"), catalog)
    assert loaded.problems == ()
    hosts = loaded.value.inventory.hosts
    assert len(hosts) == 1213
    assert min(h.cpu_cores for h in hosts) > 0
    assert min(h.ram_gib for h in hosts) > 0


def test_nodes_become_kubernetes_hosts_and_new_models_join_the_catalog(catalog: Catalog) -> None:
    """cpu_milli/1000 cores, memory_mib/1024 GiB, Kubernetes; G2 and P100 get catalog entries
    (P100 with its datasheet's 16 GiB, G2's memory flagged as a guess); T4 stays the catalog's."""
    loaded = load_node_list(NODES.encode(), catalog, file_name="nodes.csv")
    hosts = loaded.value.inventory.hosts
    assert [(h.name, h.gpus, h.cpu_cores, h.ram_gib) for h in hosts] == [
        ("node-0", 2, 32.0, 128.0),
        ("node-1", 8, 96.0, 384.0),
        ("node-2", 4, 64.0, 256.0),
    ]
    assert {h.platform for h in hosts} == {Platform.KUBERNETES}
    gpus = loaded.value.catalog.gpus
    assert gpus["T4"] == catalog.gpus["T4"]
    assert gpus["P100"].memory_gib == 16.0
    assert "guess" in gpus["G2"].source


def test_each_model_the_catalog_lacks_is_a_note_saying_what_it_was_taken_as(
    catalog: Catalog,
) -> None:
    """G2 and P100 are not in the catalog: one note each names the model, its nodes, the
    figures it was taken as (guesses for G2, the datasheet for P100) and where to give its own
    (the command line's option unless the caller names another place); T4 gets none."""
    nodes = NODES + "node-3,64000,262144,8,G2\n"
    notes = _model_notes(load_node_list(nodes.encode(), catalog, file_name="nodes.csv").value)
    assert notes == (
        "GPU model 'G2' (2 nodes, first on row 3) is not in the catalog: taken as a GPU of "
        "32 GiB, 300 W and 100 TFLOPS FP16 (guesses), price unknown; give it as your own GPU "
        "model (--catalog-extra) to set its figures",
        "GPU model 'P100' (1 node, first on row 4) is not in the catalog: taken as a GPU of "
        "16 GiB, 250 W and 18.7 TFLOPS FP16 (from its datasheet), price unknown; give it as "
        "your own GPU model (--catalog-extra) to set its figures",
    )
    elsewhere = _model_notes(
        load_node_list(
            nodes.encode(), catalog, file_name="nodes.csv", own_gpus_at="the GPU models page"
        ).value
    )
    assert elsewhere == tuple(
        note.replace("(--catalog-extra)", "(the GPU models page)") for note in notes
    )


def _model_notes(cluster: TraceCluster) -> tuple[str, ...]:
    """The texts of ``cluster``'s notes on models the catalog lacked."""
    return tuple(n.text for n in cluster.notes if n.locator == "model")


def test_a_node_list_carries_notes_on_what_it_read_and_each_value_it_assumed(
    catalog: Catalog,
) -> None:
    """The loader's notes, under the file's name and in this order: the hosts and GPUs read
    (from the node columns), one assumed note per model the catalog lacked, then each host
    field the trace has no column for with the value every node was given: cluster openb,
    platform kubernetes, no network speed, no RDMA, MIG off."""
    cluster = load_node_list(NODES.encode(), catalog, file_name="nodes.csv").value
    read, *models, cluster_note, platform, network, rdma, mig = cluster.notes
    assert {n.file for n in cluster.notes} == {"nodes.csv"}
    assert {n.line for n in cluster.notes} == {None}
    assert (read.locator, read.field, read.value, read.source, read.text) == (
        "sn, cpu_milli, memory_mib, gpu, model",
        "hosts",
        "3 (14 GPUs)",
        "read",
        "one host per node: cores = cpu_milli / 1000, RAM = memory_mib / 1024",
    )
    assert [(n.locator, n.field, n.source) for n in models] == [("model", "", "assumed")] * 2
    assert [m.text.split("'")[1] for m in models] == ["G2", "P100"]
    assumed = [cluster_note, platform, network, rdma, mig]
    assert [(n.field, n.value, n.source) for n in assumed] == [
        ("cluster", "openb", "assumed"),
        ("platform", "kubernetes", "assumed"),
        ("network_gbps", "0.0", "assumed"),
        ("rdma", "no", "assumed"),
        ("mig_enabled", "no", "assumed"),
    ]
    assert {n.text for n in assumed} == {"the trace has no column for it"}


def test_a_pod_list_carries_notes_on_what_it_read_and_each_value_it_assumed(
    catalog: Catalog,
) -> None:
    """The loader's notes, under the file's name and in this order: the pods read and grouped,
    each class field the trace has no column for with the value every class was given
    (training, busy all day every day, priority 2, no live migration, isolation or remote use),
    a share's GPU memory from the inventory's models, and the pods without GPU."""
    pods = load_pod_list(
        PODS.encode(), catalog, file_name="pods.csv", gpu_models=("T4", "G2", "P100")
    ).value
    read, *assumed, share, without_gpu = pods.notes
    assert {n.file for n in pods.notes} == {"pods.csv"}
    assert (read.field, read.value, read.source) == (
        "classes",
        "5 GPU pods in 4 classes; 1 pod without GPU",
        "read",
    )
    assert [(n.field, n.value, n.source, n.text) for n in assumed] == [
        (field, value, "assumed", "the trace has no column for it")
        for field, value in (
            ("kind", "training"),
            ("busy_fraction", "1.0"),
            ("active_hours", "24 h, 7 days"),
            ("priority", "2"),
            ("live_migration, isolation, remote OK", "no"),
        )
    ]
    assert (share.field, share.value, share.source) == (
        "memory_gib",
        "share × GPU memory",
        "assumed",
    )
    assert share.text.endswith(
        "the smallest model the pod may use among the inventory's (T4, G2, P100)"
    )
    assert (without_gpu.locator, without_gpu.source) == ("num_gpu", "derived")
    assert without_gpu.text.startswith("1 pods use no GPU")


def test_a_pod_list_of_whole_gpus_only_has_no_note_on_shares_or_pods_without_gpu(
    catalog: Catalog,
) -> None:
    """Without a share there is no GPU memory of a share to assume, and without a pod that
    uses no GPU no note says so: the read note and the class fields only."""
    whole = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,4000,8192,1,1000\n"
    notes = load_pod_list(whole.encode(), catalog, file_name="pods.csv").value.notes
    assert [n.field for n in notes] == [
        "classes",
        "kind",
        "busy_fraction",
        "active_hours",
        "priority",
        "live_migration, isolation, remote OK",
    ]


def test_a_pod_whose_gpu_spec_names_no_nodes_model_is_a_problem_naming_it(
    catalog: Catalog,
) -> None:
    """A GPU pod that may only use models no node has could never be placed: it is left out
    with a problem naming the pod, its row and the nodes' models; the other pods are read."""
    pods = PODS + "pod-6,1000,2048,1,500,V100M32|A10,LS,Running,0,10,0\n"
    cluster = load_node_list(NODES.encode(), catalog).value
    loaded = load_pod_list(pods.encode(), cluster.catalog, gpu_models=("T4", "G2", "P100"))
    (problem,) = loaded.problems
    assert (problem.row, problem.column) == (8, "gpu_spec")
    assert problem.message == (
        "pod pod-6 may only use A10 or V100M32, which no node has (the nodes have T4, G2, "
        "P100): pod left out"
    )
    assert sum(w.instances for w in loaded.value.workloads) == 5


def test_identical_pods_form_one_class_and_cpu_only_pods_stand_apart(catalog: Catalog) -> None:
    """Two half-GPU pods are one class with memory_share 0.5; the CPU-only pod is apart; the
    gpu_spec becomes the class's model list."""
    cluster = load_node_list(NODES.encode(), catalog).value
    pods = load_pod_list(PODS.encode(), cluster.catalog, gpu_models=("T4", "G2", "P100")).value
    by_gpus = {(w.gpus, w.gpu_models): w for w in pods.workloads}
    half = by_gpus[(0.5, ())]
    assert (half.instances, half.memory_share, half.vcpus, half.ram_gib) == (2, 0.5, 4.0, 8.0)
    assert by_gpus[(1.0, ("T4",))].memory_share is None
    assert by_gpus[(4.0, ())].instances == 1
    assert by_gpus[(0.25, ("G2", "P100"))].memory_gib == pytest.approx(0.25 * 16.0)
    assert [(w.instances, w.gpus, w.vcpus) for w in pods.cpu_only] == [(1, 0.0, 2.0)]


def test_bad_rows_name_file_row_column_and_fix(catalog: Catalog) -> None:
    """A share on several GPUs, GPUs without a share, a share without GPUs and a non-number are
    each reported with file, row and column, and the good row still loads."""
    bad = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        "ok,1000,1024,1,300\n"
        "multi,1000,1024,2,500\n"
        "zero,1000,1024,1,0\n"
        "ghost,1000,1024,0,200\n"
        "text,lots,1024,1,300\n"
    )
    loaded = load_pod_list(bad.encode(), catalog, file_name="pods.csv")
    assert [w.instances for w in loaded.value.workloads] == [1]
    found = {(p.file, p.row, p.column) for p in loaded.problems}
    assert found == {
        ("pods.csv", 3, "gpu_milli"),
        ("pods.csv", 4, "gpu_milli"),
        ("pods.csv", 5, "gpu_milli"),
        ("pods.csv", 6, "cpu_milli"),
    }
    assert all(p.fix for p in loaded.problems)


def test_a_file_without_usable_rows_is_refused(catalog: Catalog) -> None:
    """A node list whose only row has no GPU model for its GPUs cannot be used."""
    with pytest.raises(InputError) as raised:
        load_node_list(b"sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1024,2,\n", catalog)
    assert any(p.column == "model" and p.row == 2 for p in raised.value.problems)


def test_cli_plans_a_generated_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m planner plan --inventory <node list> --workloads <pod list>`` plans the trace
    with the fractional method: every GPU pod placed, the CPU-only pod reported apart, no rule
    broken."""
    nodes = tmp_path / "openb_node_list_gpu_node.csv"
    pods = tmp_path / "openb_pod_list_small.csv"
    nodes.write_text(NODES)
    pods.write_text(PODS)
    code = main(
        ["plan", "--inventory", str(nodes), "--workloads", str(pods), "--methods", "fractional"]
    )
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("Fractional GPU"))
    assert "placed 5/5" in line
    assert "1 pod without a GPU: the methods that place pods on nodes give them node cores" in out
    assert "BROKEN" not in out
    # The models the catalog lacks are said, with what they were taken as.
    assert (
        "import: openb_node_list_gpu_node.csv: GPU model 'G2' (1 node, first on row 3) is "
        "not in the catalog" in captured.err
    )
    # So are the values the pod list does not give.
    assert (
        "import: openb_pod_list_small.csv: kind assumed = training: the trace has no column "
        "for it" in captured.err
    )
    assert "import: openb_pod_list_small.csv: 1 pods use no GPU" in captured.err


def test_cli_workbook_and_saved_scenario_of_a_trace_plan_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workbook of a trace plan restores it (``--from-workbook``) and a scenario saved with
    the trace lists plans (``--scenario``): the same summary, the pod without GPU still there."""
    nodes = tmp_path / "openb_node_list_gpu_node.csv"
    pods = tmp_path / "openb_pod_list_small.csv"
    nodes.write_text(NODES)
    pods.write_text(PODS)
    book, db = tmp_path / "plan.xlsx", tmp_path / "scenarios.sqlite"
    files = ["--inventory", str(nodes), "--workloads", str(pods)]
    methods = ["--methods", "fractional", "--no-harvest"]
    assert main(["plan", *files, *methods, "--out", str(book)]) == 0
    first = capsys.readouterr().out.splitlines()[:-1]
    assert main(["plan", "--from-workbook", str(book), *methods]) == 0
    assert capsys.readouterr().out.splitlines() == first
    assert main(["scenarios", "save", "trace", *files, "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["plan", "--scenario", "trace", "--db", str(db), *methods]) == 0
    assert capsys.readouterr().out.splitlines() == first
    assert "1 pod without a GPU" in "\n".join(first)


def _sheets(path: Path, titles: tuple[str, ...]) -> dict[str, list[tuple[object, ...]]]:
    book = load_workbook(path, read_only=True)
    return {title: list(book[title].iter_rows(values_only=True)) for title in titles}


def test_plan_out_reads_each_input_file_once_and_keeps_the_lists_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``plan --out`` opens the node list and the pod list once each (the workbook keeps them
    from that reading), and a plan restored from that workbook opens it once; both workbooks
    hold the inputs exactly as a workbook written with the files as given holds them."""
    nodes = tmp_path / "openb_node_list_gpu_node.csv"
    pods = tmp_path / "openb_pod_list_small.csv"
    nodes.write_text(NODES)
    pods.write_text(PODS)
    book, again = tmp_path / "plan.xlsx", tmp_path / "again.xlsx"
    files = ["--inventory", str(nodes), "--workloads", str(pods)]
    methods = ["--methods", "fractional", "--no-harvest"]
    scenario, _ = scenario_from_args(build_parser().parse_args(["plan", *files]))
    expected = tmp_path / "expected.xlsx"
    write_workbook(
        plan_scenario(scenario, methods=(Method.FRACTIONAL,)),
        expected,
        given={"inventory.csv": nodes.read_bytes(), "workloads.csv": pods.read_bytes()},
    )
    reads: Counter[str] = Counter()
    read_bytes = Path.read_bytes

    def counted(path: Path) -> bytes:
        reads[path.name] += 1
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", counted)
    assert main(["plan", *files, *methods, "--out", str(book)]) == 0
    assert main(["plan", "--from-workbook", str(book), *methods, "--out", str(again)]) == 0
    assert {name: reads[name] for name in (nodes.name, pods.name, book.name)} == {
        nodes.name: 1,
        pods.name: 1,
        book.name: 1,
    }
    inputs = ("Inventory", "Workloads", "Planner inputs")
    assert _sheets(book, inputs) == _sheets(expected, inputs)
    assert _sheets(again, inputs) == _sheets(expected, inputs)


def test_a_list_with_a_column_missing_is_still_read_as_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pod list without gpu_milli (or a node list without model) is refused naming the missing
    column, rather than taken for nvidia-smi output or a planner CSV."""
    pods = tmp_path / "pods.csv"
    pods.write_text("name,cpu_milli,memory_mib,num_gpu\npod-0,4000,8192,1\n")
    nodes = tmp_path / "nodes.csv"
    nodes.write_text("sn,cpu_milli,memory_mib,gpu\nnode-0,32000,131072,2\n")
    assert is_pod_list(pods.read_bytes())
    assert is_node_list(nodes.read_bytes())
    for option, path, column in (
        ("--workloads", pods, "gpu_milli"),
        ("--inventory", nodes, "model"),
    ):
        assert main(["plan", option, str(path)]) == 2
        err = capsys.readouterr().err
        assert f"required column '{column}' is missing" in err
        assert "nvidia-smi" not in err


def test_a_mix_started_from_single_method_hosts_keeps_classes_over_their_limit_apart(
    tmp_path: Path,
) -> None:
    """On the trace's first 60 nodes and the default list's first 360 pods, hosts set up as
    the single-method plans' (where the plan by configuration starts) pack some classes with
    others past their slowdown limit; the planner fell back to the mix from its own hosts
    and kept a dearer plan than that mix. The recommended plan is within every limit and
    costs no more than the mix chosen from its own hosts alone, up to the power of busy GPUs,
    which the planner's ranking leaves out as its MILP does (under half a percent here; the
    plan kept before cost 1.5 % more)."""
    nodes, pods = tmp_path / "nodes.csv", tmp_path / "pods.csv"
    node_list = _openb("openb_node_list_gpu_node.csv").read_text().splitlines(keepends=True)
    pod_list = _openb("openb_pod_list_default.csv").read_text().splitlines(keepends=True)
    nodes.write_text("".join(node_list[:61]))
    pods.write_text("".join(pod_list[:361]))
    files = ["--inventory", str(nodes), "--workloads", str(pods)]
    scenario, _ = scenario_from_args(build_parser().parse_args(["plan", *files]))
    best = plan_scenario(scenario).recommended
    assert best is not None
    assert best.source.startswith("a mix")
    assert within_limits(best.result, scenario)
    own = measure_plan(recommend(scenario, AnnualRates(scenario)).plan, scenario)
    served = best.result.metrics.instances_placed
    assert served >= own.metrics.instances_placed
    assert best.result.cost.total_usd_per_year <= own.cost.total_usd_per_year * 1.005


def test_node_names_and_models_are_read_as_every_loader_reads_them(catalog: Catalog) -> None:
    """A node name is read as the planner's inventory reads a host name: invisible characters
    (a zero-width space, an escape) removed with a problem, a name over 253 characters left out
    with one, and a name showing as an earlier node's, case aside, left out as listed twice,
    naming the first. A model the catalog lacks written in another case (p100 after P100) is
    the first spelling's model, named in its note, not a second model."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "n1,64000,262144,2,P100\n"
        "n1\u200b,64000,262144,2,P100\n"
        "n\x1b2,64000,262144,2,P100\n" + "n" * 300 + ",64000,262144,2,P100\n"
        "n4,64000,262144,2,p100\n"
        "N1,64000,262144,2,P100\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    hosts = loaded.value.inventory.hosts
    assert [(h.name, h.gpu_model) for h in hosts] == [
        ("n1", "P100"),
        ("n2", "P100"),
        ("n4", "P100"),
    ]
    said = {(p.row, p.column, p.message.split(":")[0]) for p in loaded.problems}
    assert said == {
        (3, "sn", "the node name 'n1\\u200b' (it holds an invisible character"),
        (3, "sn", "node n1\\u200b is listed twice (first on row 2)"),
        (4, "sn", "the node name 'n\\u001b2' (it holds an invisible character"),
        (5, "sn", "the node name is 300 characters, over the limit of 253 characters"),
        (
            7,
            "sn",
            "node N1 is listed twice (first on row 2 as 'n1'; names differing only in case "
            "are one node)",
        ),
    }
    assert "P100" in loaded.value.catalog.gpus
    assert "p100" not in loaded.value.catalog.gpus
    (model,) = (n for n in loaded.value.notes if n.locator == "model")
    assert "also written 'p100' (row 6)" in model.text


def test_pod_names_and_allowed_models_are_read_as_every_loader_reads_them(
    catalog: Catalog,
) -> None:
    """A pod listed twice (two lists joined) is counted once: the repeat is left out with a
    problem naming the first row, its demand not doubled. A pod name is read as a class name is
    (invisible characters removed, said); gpu_spec's models are matched case aside, invisible
    characters removed and said, so a pod allowed 'p100' runs on the P100 nodes."""
    cluster = load_node_list(
        b"sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,P100\n", catalog
    ).value
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        "pod-0,1000,1024,1,1000,p100\n"
        "pod-1,1000,1024,1,1000,P100\u200b\n"
        "pod-0,1000,1024,1,1000,p100\n"
        "POD-1\u200b,1000,1024,1,1000,P100\n"
    )
    loaded = load_pod_list(
        pods.encode(), cluster.catalog, file_name="pods.csv", gpu_models=["P100"]
    )
    (only,) = loaded.value.workloads
    assert (only.instances, only.gpu_models) == (2, ("P100",))
    said = {(p.row, p.column, p.message.split(": ")[-1]) for p in loaded.problems}
    assert said == {
        (3, "gpu_spec", "the invisible characters are removed, read as 'P100'"),
        (4, "name", "left out, its demand counted once"),
        (5, "name", "the invisible characters are removed, read as 'POD-1'"),
        (5, "name", "left out, its demand counted once"),
    }
    repeats = [p.message for p in loaded.problems if p.message.endswith("counted once")]
    assert repeats == [
        "pod pod-0 is listed twice (first on row 2): left out, its demand counted once",
        "pod POD-1\\u200b is listed twice (first on row 3 as 'pod-1'; names differing only in "
        "case are one pod): left out, its demand counted once",
    ]


def test_two_pods_of_one_name_with_other_shapes_are_both_counted(catalog: Catalog) -> None:
    """Two lists joined number their pods alike (openb-pod-0000 in each): a row naming a pod
    already counted but with another shape or times is another pod, kept and counted with a
    problem naming the cells that differ; an exact repeat is still counted once."""
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\n"
        "openb-pod-0000,12000,16384,1,1000,0\n"
        "openb-pod-0000,12000,16384,1,1000,0\n"
        "openb-pod-0000,20000,65536,0,0,5\n"
    )
    loaded = load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["T4"])
    assert [w.instances for w in loaded.value.workloads] == [1]
    assert [(w.vcpus, w.ram_gib) for w in loaded.value.cpu_only] == [(20.0, 64.0)]
    repeat, other = loaded.problems
    assert (repeat.row, repeat.row_kept) == (3, False)
    assert repeat.message.endswith("left out, its demand counted once")
    assert (other.row, other.column, other.row_kept) == (4, "name", True)
    assert other.message == (
        "pod openb-pod-0000 is named twice (first on row 2), but this is another pod "
        "(num_gpu 0 here, 1 there; gpu_milli 0 here, 1000 there; cpu_milli 20000 here, 12000 "
        "there; memory_mib 65536 here, 16384 there; creation_time 5 here, 0 there): counted as "
        "a pod of its own"
    )
    assert "different names" in other.fix


def test_a_model_neither_catalog_nor_trace_has_is_a_problem_with_memory_its_name_states(
    catalog: Catalog,
) -> None:
    """A GPU model that is neither the catalog's nor the trace's is planned, but as a problem
    (not only a note) on its first row: memory from the name when it states it
    (A800-SXM4-80GB: 80 GiB), else a guess; a near catalog name is offered only for a typo
    (T4x: T4), not for another GPU (A800 is no A10)."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "a-1,64000,262144,8,A800-SXM4-80GB\n"
        "a-2,64000,262144,8,A800-SXM4-80GB\n"
        "t-1,64000,262144,2,T4x\n"
        "b-1,64000,262144,8,A800\n"
        "g-1,64000,262144,8,G2\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    gpus = loaded.value.catalog.gpus
    assert (gpus["A800-SXM4-80GB"].memory_gib, gpus["A800"].memory_gib) == (80.0, 32.0)
    assert len(loaded.value.inventory.hosts) == 5
    said = {p.message.split("'")[1]: p for p in loaded.problems}
    assert set(said) == {"A800-SXM4-80GB", "T4x", "A800"}
    assert all(p.row_kept and p.column == "model" for p in said.values())
    a800 = said["A800-SXM4-80GB"]
    assert a800.row == 2
    assert a800.message == (
        "GPU model 'A800-SXM4-80GB' (2 nodes, first on row 2) is neither in the catalog nor "
        "one of the trace's models: planned as a GPU of 80 GiB (as its name states), 300 W "
        "and 100 TFLOPS FP16 (guesses)"
    )
    assert a800.fix == "give the model's figures as your own GPU model (--catalog-extra)"
    assert said["T4x"].fix.startswith("if it is 'T4', write that name")
    assert "if it is" not in said["A800"].fix


def test_a_model_cell_that_is_no_model_name_leaves_its_node_out(catalog: Catalog) -> None:
    """A bare number (a memory size put in the model column) or markup in the model column is
    no GPU model: the node is left out with a problem naming the cell, not planned as a GPU
    model called '16384'."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "n-1,64000,262144,2,16384\n"
        "n-2,64000,262144,2,<img src=x onerror=alert(1)>\n"
        "n-3,64000,262144,2,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    assert [h.name for h in loaded.value.inventory.hosts] == ["n-3"]
    number, markup = loaded.problems
    assert (number.row, number.column, number.row_kept) == (2, "model", False)
    assert number.message == (
        "16384 is no GPU model name (a number: a memory size or count in the model column?): "
        "node left out"
    )
    assert markup.row == 3
    assert markup.message.endswith("is no GPU model name: node left out")
    assert "write the GPU model of the node's GPUs in model" in markup.fix


def test_trace_lists_keep_the_inventory_and_workload_limits(catalog: Catalog) -> None:
    """A node or pod over the planner CSVs' 4,096 cores is a row problem, as the inventory's
    cpu_cores and the workload CSV's vcpus refuse it; a node of A16s holds whole boards of 4,
    as an inventory row must."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "big-1,5000000,262144,8,T4\n"
        "a16-1,64000,262144,2,A16\n"
        "a16-2,64000,262144,8,A16\n"
        "ok-1,4096000,262144,8,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    assert [h.name for h in loaded.value.inventory.hosts] == ["a16-2", "ok-1"]
    cores, board = loaded.problems
    assert (cores.row, cores.column, cores.message) == (2, "cpu_milli", "5000000 is out of range")
    assert cores.fix == "enter a whole number from 1 to 4096000 milli-cores"
    assert (board.row, board.column) == (3, "gpu")
    assert board.message == "A16 boards carry 4 GPUs each, so a host cannot have 2"
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        "q-1,99999999,1024,1,500\n"
        "q-2,1000,1024,1,500\n"
    )
    pod_list = load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["T4"])
    assert [w.instances for w in pod_list.value.workloads] == [1]
    (pod,) = pod_list.problems
    assert (pod.row, pod.column, pod.fix) == (
        2,
        "cpu_milli",
        "enter a whole number from 0 to 4096000 milli-cores",
    )


def test_a_second_header_of_another_layout_is_one_problem_and_heads_the_rows_below(
    catalog: Catalog,
) -> None:
    """Two pod lists joined (cat) whose headers differ: the second header is one problem, as a
    repeated header is, not four 'not a number' cells; the rows below it are read by its own
    columns, so a list with its columns in another order is read right."""
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
        "a-0,12000,16384,1,1000,,LS\n"
        "num_gpu,gpu_milli,name,memory_mib,cpu_milli\n"
        "1,500,b-pod,8192,4000\n"
    )
    loaded = load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["T4"])
    (header,) = loaded.problems
    assert (header.row, header.column) == (3, None)
    assert header.message.startswith("the header row is repeated here, with other columns")
    shares = [(w.gpus, w.vcpus, w.ram_gib) for w in loaded.value.workloads]
    assert shares == [(1.0, 12.0, 16.0), (0.5, 4.0, 8.0)]


def test_a_number_with_its_columns_unit_or_as_a_kubernetes_quantity_is_read(
    catalog: Catalog,
) -> None:
    """A cell carrying its column's own unit (262144 MiB, 64000m, 2 GPUs) reads as its number,
    as in the planner's CSVs; a cell in another unit (256Gi, 64 cores) is refused with the
    number to write, never converted silently."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "u-1,64000m,262144 MiB,2 GPUs,T4\n"
        "u-2,64000,256Gi,2,T4\n"
        "u-3,64 cores,262144,2,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    (host,) = loaded.value.inventory.hosts
    assert (host.name, host.cpu_cores, host.ram_gib, host.gpus) == ("u-1", 64.0, 256.0, 2)
    memory, cores = loaded.problems
    assert (memory.row, memory.column, memory.fix) == (
        3,
        "memory_mib",
        "write 262144 (256 Gi in MiB)",
    )
    assert (cores.row, cores.column, cores.fix) == (
        4,
        "cpu_milli",
        "write 64000 (64 cores in milli-cores)",
    )
    pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,4000m,8192Mi,1 GPU,1000\n"
    (pod_class,) = load_pod_list(pods.encode(), catalog, gpu_models=["T4"]).value.workloads
    assert (pod_class.vcpus, pod_class.ram_gib, pod_class.gpus) == (4.0, 8.0, 1.0)


def test_a_pod_list_read_before_its_node_list_says_to_give_the_node_list_first(
    catalog: Catalog,
) -> None:
    """A pod list whose GPU pods all may only use models the inventory in use lacks (read on
    the sample inventory, before its own node list) is refused saying so and to give its node
    list first, not 'no usable pod row. Fix: add pods': the pods are there."""
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        "p-0,4000,8192,1,1000,G2\n"
        "p-1,4000,8192,1,500,P100|T4\n"
    )
    with pytest.raises(InputError) as refused:
        load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["L40S"])
    *left_out, last = refused.value.problems
    assert [p.row for p in left_out] == [2, 3]
    assert last.row is None
    assert last.message == (
        "no pod can be planned on the inventory in use: 2 GPU pods may only use GPU models its "
        "nodes lack (they have L40S)"
    )
    assert "upload the node list on the Inventory page and apply it first" in last.fix
