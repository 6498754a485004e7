"""Variants of every input: the same data saved the ways real tools and spreadsheets save it, and
bad rows or wrong files among good ones, each read as the command line reads it (``read_inputs``,
``main``) and as the dashboard does (``load_hosts``/``load_mix`` for a planner CSV or a trace
list, ``import_inventory``/``import_workloads`` for its import panel).

A correct file saved another way reads as its plain version; a bad row is one problem naming
file, row, column and fix, its row left out and the others read; a file that cannot be used is
refused naming it with a fix; nothing raises anything but ``InputError``. The data is built here.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from importer_samples import (
    CATALOG,
    KUBECTL_NODES,
    MIG_LGI,
    NVIDIA_SMI_LIST,
    NVIDIA_SMI_TABLE,
    as_kubectl_yaml,
    container,
    european_csv,
    kube_list,
    node,
    pod,
    sample,
)

from planner.cli import build_parser, main, read_inputs
from planner.inputs.importers import import_inventory, import_workloads
from planner.inputs.inventory import Host
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.workloads import WorkloadClass
from planner.scenario import load_hosts, load_mix
from tests.builders import xlsx

REPO = Path(__file__).resolve().parent.parent
PLAIN_INVENTORY = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
PLAIN_WORKLOADS = (REPO / "data" / "sample" / "workloads.csv").read_bytes()

Rows = list[list[str]]


def _rows(data: bytes) -> Rows:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def _csv(
    rows: Sequence[Sequence[str]],
    separator: str = ",",
    line_end: str = "\n",
    quoting: int = csv.QUOTE_MINIMAL,
) -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator=line_end, quoting=quoting).writerows(rows)
    return out.getvalue().encode()


def _utf16(data: bytes, codec: str = "utf-16-le") -> bytes:
    """UTF-8 text as Excel's 'Unicode Text' (little-endian) or another UTF-16 saves it."""
    mark = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    return mark + data.decode().encode(codec)


SAVED_AS: dict[str, Callable[[Rows], bytes]] = {
    "columns reordered": lambda rows: _csv([r[::-1] for r in rows]),
    "header in capitals, spaces for underscores, padded": lambda rows: _csv(
        [[f"  {c.upper().replace('_', ' ')} " for c in rows[0]], *rows[1:]]
    ),
    "byte-order mark and CRLF (Excel CSV UTF-8)": lambda rows: (
        codecs.BOM_UTF8 + _csv(rows, line_end="\r\n")
    ),
    "UTF-16 tab-separated (Excel Unicode Text)": lambda rows: _utf16(_csv(rows, "\t", "\r\n")),
    "UTF-16 big-endian, tab-separated": lambda rows: _utf16(_csv(rows, "\t"), "utf-16-be"),
    "semicolons and decimal commas (European Excel)": lambda rows: european_csv(_csv(rows)),
    "Excel's sep= line above the header": lambda rows: b"sep=;\r\n" + european_csv(_csv(rows)),
    "every cell quoted": lambda rows: _csv(rows, quoting=csv.QUOTE_ALL),
    "classic Mac line ends (CR)": lambda rows: _csv(rows, line_end="\r"),
    "empty rows at the end": lambda rows: _csv([*rows, *[[""] * len(rows[0])] * 3]) + b"\n\n",
    "blank lines above the header": lambda rows: b"\n\n" + _csv(rows),
}
"""How a spreadsheet or a tool may save a table, each reading as the plain table does."""


def _with_decimals(rows: Rows, column: str, value: str) -> Rows:
    """``rows`` with ``column`` of the first data row set to ``value`` (a decimal, so that a
    decimal comma variant has one to write)."""
    changed = [list(r) for r in rows]
    changed[1][rows[0].index(column)] = value
    return changed


INVENTORY_ROWS = _with_decimals(_rows(PLAIN_INVENTORY), "network_gbps", "12.5")
WORKLOAD_ROWS = _rows(PLAIN_WORKLOADS)


def _path(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _hosts_everywhere(
    tmp_path: Path, name: str, data: bytes
) -> dict[str, tuple[tuple[Host, ...], tuple[InputProblem, ...]]]:
    """The hosts and problems of an inventory file as each reader of it gives them."""
    args = build_parser().parse_args(["plan", "--inventory", str(_path(tmp_path, name, data))])
    cli = read_inputs(args, report=io.StringIO())
    page = load_hosts((name, data), CATALOG)
    panel = import_inventory([(name, data)], CATALOG).inventory(CATALOG)
    return {
        "command line": (cli.scenario.inventory.hosts, cli.problems),
        "dashboard": (page.value.inventory.hosts, page.problems),
        "import panel": (panel.value.hosts, panel.problems),
    }


def _workloads_everywhere(
    tmp_path: Path, name: str, data: bytes, *, planner_csv: bool = True
) -> dict[str, tuple[tuple[WorkloadClass, ...], tuple[InputProblem, ...]]]:
    """The workload classes and problems of a workload file as each reader of it gives them
    (planned on the bundled sample inventory); a tool's output, not a ``planner_csv``, reaches
    the dashboard through its import panel only."""
    args = build_parser().parse_args(["plan", "--workloads", str(_path(tmp_path, name, data))])
    cli = read_inputs(args, report=io.StringIO())
    panel = import_workloads([(name, data)], CATALOG).workloads(CATALOG)
    read = {
        "command line": (cli.scenario.workloads, cli.problems),
        "import panel": (tuple(panel.value), panel.problems),
    }
    if planner_csv:
        hosts = load_hosts(("inventory.csv", PLAIN_INVENTORY), CATALOG).value
        page = load_mix((name, data), hosts)
        read["dashboard"] = (page.value.workloads, page.problems)
    return read


@pytest.mark.parametrize("saved_as", SAVED_AS)
def test_an_inventory_saved_another_way_reads_as_the_plain_one(
    tmp_path: Path, saved_as: str
) -> None:
    """However a spreadsheet saved the inventory (columns reordered, header case, BOM and CRLF,
    UTF-16, semicolons with decimal commas, Excel's sep= line, empty rows), every reader gives
    the hosts of the plain file, without a problem."""
    plain = load_hosts(("inventory.csv", _csv(INVENTORY_ROWS)), CATALOG).value.inventory.hosts
    read = _hosts_everywhere(tmp_path, "hosts.csv", SAVED_AS[saved_as](INVENTORY_ROWS))
    for reader, (hosts, problems) in read.items():
        assert (reader, hosts, problems) == (reader, plain, ())


@pytest.mark.parametrize("saved_as", SAVED_AS)
def test_a_workload_mix_saved_another_way_reads_as_the_plain_one(
    tmp_path: Path, saved_as: str
) -> None:
    """However a spreadsheet saved the workload mix, every reader gives the classes of the plain
    file (busy 10% and 0.25 GPUs alike), without a problem."""
    hosts = load_hosts(("inventory.csv", PLAIN_INVENTORY), CATALOG).value
    plain = load_mix(("workloads.csv", PLAIN_WORKLOADS), hosts).value.workloads
    read = _workloads_everywhere(tmp_path, "mix.csv", SAVED_AS[saved_as](WORKLOAD_ROWS))
    for reader, (workloads, problems) in read.items():
        assert (reader, workloads, problems) == (reader, plain, ())


def test_quoted_notes_with_commas_quotes_and_line_breaks_leave_the_hosts_as_they_are(
    tmp_path: Path,
) -> None:
    """A notes cell holding commas, double quotes and a line break (quoted, as spreadsheets save
    it) is one cell: the hosts are those of the plain file."""
    plain = load_hosts(("inventory.csv", _csv(INVENTORY_ROWS)), CATALOG).value.inventory.hosts
    notes = INVENTORY_ROWS[0].index("notes")
    rows = [INVENTORY_ROWS[0]] + [
        [*r[:notes], 'rack 4, row "B"\nsecond line, too', *r[notes + 1 :]]
        for r in INVENTORY_ROWS[1:]
    ]
    for reader, (hosts, problems) in _hosts_everywhere(tmp_path, "h.csv", _csv(rows)).items():
        assert (reader, hosts, problems) == (reader, plain, ())


def test_number_cells_carrying_their_units_read_as_the_numbers(tmp_path: Path) -> None:
    """'8 GPUs', '112 cores', '2048 GiB', '400 Gbps' read as 8, 112, 2048 and 400; '10 GiB' of
    GPU memory and '4 vCPUs' likewise in the workload mix."""
    units = {
        "gpus_per_host": "GPUs",
        "cpu_cores": "cores",
        "ram_gib": "GiB",
        "network_gbps": "Gbps",
    }
    plain = load_hosts(("inventory.csv", _csv(INVENTORY_ROWS)), CATALOG).value.inventory.hosts
    header = INVENTORY_ROWS[0]
    rows = [header] + [
        [f"{c} {units[h]}" if h in units else c for h, c in zip(header, r, strict=True)]
        for r in INVENTORY_ROWS[1:]
    ]
    for reader, (hosts, problems) in _hosts_everywhere(tmp_path, "h.csv", _csv(rows)).items():
        assert (reader, hosts, problems) == (reader, plain, ())
    hosts_read = load_hosts(("inventory.csv", PLAIN_INVENTORY), CATALOG).value
    plain_mix = load_mix(("workloads.csv", PLAIN_WORKLOADS), hosts_read).value.workloads
    mix_units = {"memory_gib": "GiB", "ram_gib": "GiB", "vcpus": "vCPUs"}
    header = WORKLOAD_ROWS[0]
    mix = [header] + [
        [f"{c}{mix_units[h]}" if h in mix_units else c for h, c in zip(header, r, strict=True)]
        for r in WORKLOAD_ROWS[1:]
    ]
    for reader, (workloads, problems) in _workloads_everywhere(
        tmp_path, "m.csv", _csv(mix)
    ).items():
        assert (reader, workloads, problems) == (reader, plain_mix, ())


def test_an_unknown_column_and_a_repeated_header_are_named_and_the_hosts_read(
    tmp_path: Path,
) -> None:
    """Files joined one after the other, with a column the planner does not know: one problem
    names the column, one the repeated header's row; every host is read."""
    plain = load_hosts(("inventory.csv", _csv(INVENTORY_ROWS)), CATALOG).value.inventory.hosts
    header, body = [*INVENTORY_ROWS[0], "Rack"], [[*r, "r1"] for r in INVENTORY_ROWS[1:]]
    data = _csv([header, *body[:2], header, *body[2:]])
    for reader, (hosts, problems) in _hosts_everywhere(tmp_path, "joined.csv", data).items():
        assert (reader, hosts) == (reader, plain)
        assert {(p.file, p.row, p.column) for p in problems} == {
            ("joined.csv", None, "Rack"),
            ("joined.csv", 4, None),
        }, reader
        assert "header row is repeated" in next(p.message for p in problems if p.row == 4)


BAD_HOST_CELLS = [
    ("ram_gib", "-5", "out of range"),
    ("ram_gib", "0", "out of range"),
    ("ram_gib", "NaN", "not a finite number"),
    ("ram_gib", "inf", "not a finite number"),
    ("ram_gib", "1e400", "not a finite number"),
    ("ram_gib", "1e308", "out of range"),
    ("ram_gib", "2 TiB", "write 2048"),
    ("ram_gib", "2048GB", "reads two ways"),
    ("ram_gib", "2097152 MiB", "write 2048"),
    ("ram_gib", "2,048", "could be 2.048 or 2048"),
    ("ram_gib", "1,048,576", "thousands separators"),
    ("network_gbps", "12,5", "decimal comma"),
    ("gpus_per_host", "99999999999999999999", "out of range"),
    ("gpus_per_host", "8.5", "not a whole number"),
    ("count", "1e30", "out of range"),
    ("count", "-1", "out of range"),
    ("cpu_cores", "112 vCPUs", "not a unit of this column"),
    ("rdma", "maybe", "not yes or no"),
    ("gpu_model", "NVIDIA GeForce RTX 4090", "unknown GPU model"),
]


@pytest.mark.parametrize(("column", "written", "said"), BAD_HOST_CELLS)
def test_a_bad_host_cell_is_a_problem_naming_file_row_and_column(
    tmp_path: Path, column: str, written: str, said: str
) -> None:
    """A huge, negative, zero, non-finite, wrongly-united or comma-grouped number (or an unknown
    model) in row 2 leaves that row out with one problem naming file, row 2 and the column, what
    is wrong and a fix; every other host is read."""
    rows = _with_decimals(INVENTORY_ROWS, column, written)
    first = rows[1][rows[0].index("host")]
    for reader, (hosts, problems) in _hosts_everywhere(tmp_path, "h.csv", _csv(rows)).items():
        (problem,) = problems
        assert (reader, problem.file, problem.row, problem.column) == (reader, "h.csv", 2, column)
        assert said in str(problem)
        assert problem.fix
        assert not any(h.name.startswith(first) for h in hosts)
        assert len(hosts) == sum(int(r[rows[0].index("count")] or 1) for r in rows[2:])


BAD_WORKLOAD_CELLS = [
    ("instances", "-3", "out of range"),
    ("gpus", "nan", "not a finite number"),
    ("gpus", "1.5", "not a whole number"),
    ("memory_gib", "80 GB", "reads two ways"),
    ("busy_fraction", "35", "out of range"),
    ("busy_fraction", "12,5%", "decimal comma"),
    ("vcpus", "1e999", "not a finite number"),
    ("active_hours", "25-26", ""),
]


@pytest.mark.parametrize(("column", "written", "said"), BAD_WORKLOAD_CELLS)
def test_a_bad_workload_cell_is_a_problem_naming_file_row_and_column(
    tmp_path: Path, column: str, written: str, said: str
) -> None:
    """A bad number (or schedule) in row 2 of the mix leaves that class out with one problem
    naming file, row 2 and the column; every other class is read."""
    rows = _with_decimals(WORKLOAD_ROWS, column, written)
    for reader, (workloads, problems) in _workloads_everywhere(
        tmp_path, "m.csv", _csv(rows)
    ).items():
        (problem,) = problems
        assert (reader, problem.file, problem.row, problem.column) == (reader, "m.csv", 2, column)
        assert said in problem.message
        assert problem.fix
        assert [w.name for w in workloads] == [r[0] for r in rows[2:]]


# A small Alibaba GPU-sharing trace: the published lists' columns, models the catalog has (T4)
# and lacks (G2, V100M32), a node without GPUs, shares, whole and multi-GPU pods, pods without GPU.
TRACE_NODES: Rows = [
    ["sn", "cpu_milli", "memory_mib", "gpu", "model"],
    ["node-0", "64000", "262144", "2", "T4"],
    ["node-1", "96000", "786432", "8", "G2"],
    ["node-2", "96000", "393216", "8", "V100M32"],
    ["node-3", "32000", "131072", "0", ""],
]
TRACE_PODS: Rows = [
    [
        *("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos"),
        *("pod_phase", "creation_time", "deletion_time", "scheduled_time"),
    ],
    ["pod-0", "12000", "16384", "1", "1000", "", "LS", "Running", "0", "12537496", "0"],
    ["pod-1", "6000", "12288", "1", "460", "", "LS", "Running", "427061", "12902960", "427061"],
    ["pod-2", "8000", "32768", "2", "1000", "V100M32", "BE", "Running", "5", "9", "5"],
    ["pod-3", "4000", "8192", "0", "0", "", "BE", "Running", "6", "90", "6"],
    ["pod-4", "6000", "12288", "1", "460", "", "LS", "Running", "7", "80", "7"],
    ["pod-5", "16000", "65536", "8", "1000", "G2|V100M32", "LS", "Running", "8", "70", "8"],
]
TRACE_SAVED_AS = SAVED_AS
"""A trace list may be saved every way a planner CSV may, and still read."""


def _trace(tmp_path: Path, nodes: bytes, pods: bytes) -> dict[str, tuple[Any, ...]]:
    """Hosts, GPU classes, classes without GPU and problems of a trace's two lists, as the
    command line and the dashboard read them."""
    args = build_parser().parse_args(
        [
            "plan",
            "--inventory",
            str(_path(tmp_path, "nodes.csv", nodes)),
            "--workloads",
            str(_path(tmp_path, "pods.csv", pods)),
        ]
    )
    cli = read_inputs(args, report=io.StringIO()).scenario
    page_hosts = load_hosts(("nodes.csv", nodes), CATALOG)
    page_mix = load_mix(("pods.csv", pods), page_hosts.value)
    return {
        "command line": (cli.inventory.hosts, cli.workloads, cli.cpu_only),
        "dashboard": (
            page_hosts.value.inventory.hosts,
            page_mix.value.workloads,
            page_mix.value.cpu_only,
            (*page_hosts.problems, *page_mix.problems),
        ),
    }


@pytest.mark.parametrize("saved_as", TRACE_SAVED_AS)
def test_a_trace_list_saved_another_way_reads_as_the_plain_one(
    tmp_path: Path, saved_as: str
) -> None:
    """A trace node list and pod list re-saved (columns reordered, header case, BOM and CRLF,
    UTF-16 with tabs, semicolons, Excel's sep= line, quoted, CR line ends, blank rows above or
    below) give the plain lists' hosts, classes and pods without GPU."""
    plain = _trace(tmp_path, _csv(TRACE_NODES), _csv(TRACE_PODS))["dashboard"]
    save = TRACE_SAVED_AS[saved_as]
    read = _trace(tmp_path, save(TRACE_NODES), save(TRACE_PODS))
    assert read["dashboard"] == plain
    assert read["command line"] == plain[:3]


@pytest.mark.parametrize(
    "columns",
    [
        ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec"],
        ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos"],
    ],
)
def test_a_pod_list_without_its_time_columns_reads_as_the_full_one(
    tmp_path: Path, columns: list[str]
) -> None:
    """Other seeds' pod lists carry fewer columns (no times, no phase): the classes are those
    of the full list, which does not use them."""
    plain = _trace(tmp_path, _csv(TRACE_NODES), _csv(TRACE_PODS))["dashboard"]
    keep = [TRACE_PODS[0].index(c) for c in columns]
    subset = [[r[i] for i in keep] for r in TRACE_PODS]
    assert _trace(tmp_path, _csv(TRACE_NODES), _csv(subset))["dashboard"] == plain


BAD_PODS = [
    ({"gpu_milli": "1500"}, "gpu_milli", "out of range"),
    ({"gpu_milli": "0"}, "gpu_milli", "asks for 0 thousandths"),
    ({"num_gpu": "0", "gpu_milli": "500"}, "gpu_milli", "num_gpu 0 asks for 500"),
    ({"num_gpu": "2", "gpu_milli": "500"}, "gpu_milli", "500 thousandths of each"),
    ({"gpu_spec": "H800X|Z9"}, "gpu_spec", "which no node has"),
    ({"num_gpu": "99999999999"}, "num_gpu", "out of range"),
    ({"cpu_milli": "-5"}, "cpu_milli", "out of range"),
    ({"memory_mib": "nan"}, "memory_mib", "not a finite number"),
    ({"gpu_milli": "460.5"}, "gpu_milli", "not a whole number"),
]


@pytest.mark.parametrize(("cells", "column", "said"), BAD_PODS)
def test_a_bad_pod_is_listed_with_its_row_and_the_other_pods_read(
    tmp_path: Path, cells: dict[str, str], column: str, said: str
) -> None:
    """A pod asking for more than a GPU, for a share of no GPU, a share of each of several GPUs,
    only models no node has, or a number out of range is one problem naming the file, its row
    and column; it is not counted, and every other pod is."""
    pods = [list(r) for r in TRACE_PODS]
    for name, value in cells.items():
        pods[2][TRACE_PODS[0].index(name)] = value
    read = _trace(tmp_path, _csv(TRACE_NODES), _csv(pods))["dashboard"]
    (problem,) = read[3]
    assert (problem.file, problem.row, problem.column) == ("pods.csv", 3, column)
    assert said in problem.message
    assert problem.fix
    counted = sum(w.instances for w in (*read[1], *read[2]))
    assert counted == len(TRACE_PODS) - 2


BAD_NODES = [
    ({"cpu_milli": "0"}, "cpu_milli", "0 is out of range", "from 1 to 4096000 milli-cores"),
    ({"memory_mib": "0"}, "memory_mib", "0 is out of range", "from 1 to 1073741824 MiB"),
    ({"gpu": "-1"}, "gpu", "-1 is out of range", "from 0 to 64 GPUs"),
    ({"cpu_milli": "many"}, "cpu_milli", "'many' is not a number", "whole number"),
    ({"sn": "node-0"}, "sn", "node node-0 is listed twice", "unique name"),
    ({"model": ""}, "model", "names no GPU model", "fill in model"),
]


@pytest.mark.parametrize(("cells", "column", "said", "fix"), BAD_NODES)
def test_a_bad_node_is_listed_with_its_row_and_the_other_nodes_read(
    tmp_path: Path, cells: dict[str, str], column: str, said: str, fix: str
) -> None:
    """A node without cores or memory (a host the planner's inventory refuses), a GPU count
    below 0, a number that is none, a name used twice or GPUs of no model is one problem naming
    the file, its row and column and what to enter; the node is left out, every other node read,
    on the command line as on the dashboard."""
    nodes = [list(r) for r in TRACE_NODES]
    for name, value in cells.items():
        nodes[2][TRACE_NODES[0].index(name)] = value
    read = _trace(tmp_path, _csv(nodes), _csv(TRACE_PODS))
    (problem,) = (p for p in read["dashboard"][3] if p.file == "nodes.csv")
    assert (problem.file, problem.row, problem.column) == ("nodes.csv", 3, column)
    assert said in problem.message
    assert fix in problem.fix
    kept = [r[0] for r in TRACE_NODES[1:] if r is not TRACE_NODES[2]]
    assert [h.name for h in read["dashboard"][0]] == kept
    assert [h.name for h in read["command line"][0]] == kept


def test_a_node_of_a_model_the_catalog_lacks_is_read_and_said(tmp_path: Path) -> None:
    """A node list naming a model the catalog lacks plans its nodes with a guessed entry, and
    the command line says so, naming the model and where to give its figures."""
    nodes = [list(r) for r in TRACE_NODES]
    nodes[1][4] = "H800X"
    args = build_parser().parse_args(
        ["plan", "--inventory", str(_path(tmp_path, "nodes.csv", _csv(nodes)))]
    )
    report = io.StringIO()
    scenario = read_inputs(args, report=report).scenario
    assert scenario.inventory.hosts[0].gpu_model == "H800X"
    assert "H800X" in scenario.catalog.gpus
    assert "GPU model 'H800X'" in report.getvalue()
    assert "--catalog-extra" in report.getvalue()


def _kube_list(kind: str, items: Sequence[object]) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": kind, "items": list(items)}).encode()


WRONG_FILES: list[tuple[str, str, bytes, str]] = [
    ("inventory", "empty.csv", b"", "empty"),
    ("workloads", "blank.csv", b"  \r\n\r\n\t\n", "empty"),
    ("inventory", "bom-only.csv", codecs.BOM_UTF8, "empty"),
    ("inventory", "diagram.png", b"\x89PNG\r\n\x1a\n" + bytes(64), "PNG image"),
    ("workloads", "pods.csv.gz", b"\x1f\x8b\x08\x00" + bytes(32), "gzip archive"),
    ("inventory", "latin1.csv", "host,cluster\nnoeud-é,x\n".encode("latin-1"), "not UTF-8"),
    ("inventory", "pods.json", kube_list(pod("p")), "describes workloads"),
    ("workloads", "nodes.json", kube_list(node("n", {"nvidia.com/gpu.count": "1"})), "hosts"),
    ("inventory", "none.json", _kube_list("List", []), "empty list"),
    ("workloads", "none.json", _kube_list("List", []), "empty list"),
    ("inventory", "nodes-none.json", _kube_list("NodeList", []), "kind NodeList, no items"),
    ("workloads", "pods-none.json", _kube_list("PodList", []), "kind PodList, no items"),
    ("workloads", "pods.txt", b"No resources found in ml namespace.\n", "found nothing"),
    ("inventory", "nodes.yaml", b"apiVersion: v1\nitems: []\nkind: List\n", "YAML output of an"),
    (
        "inventory",
        "laughs.yaml",
        b"apiVersion: v1\nitems: &a [x, x]\nkind: &b [*a, *a]\nmetadata: [*b, *b]\n",
        "YAML with an anchor (&a)",
    ),
    (
        "workloads",
        "pods.yaml",
        b"apiVersion: v1\nitems:\n- kind: Pod\n  spec: !!python/object/apply:os.system [id]\n",
        "YAML with the tag !!python/object/apply:os.system",
    ),
    (
        "inventory",
        "deep.yaml",
        b"apiVersion: v1\nitems: " + b"[" * 50_000 + b"]" * 50_000 + b"\n",
        "nesting over 64 levels deep",
    ),
    ("workloads", "broken.yaml", b"apiVersion: v1\nitems: [a\n", "not valid YAML"),
    (
        "inventory",
        "nodes-wide.txt",
        b"NAME    STATUS   ROLES    AGE   VERSION   INTERNAL-IP\nn1      Ready    <none>   5d    "
        b"v1.29.0   10.0.0.1\n",
        "table output",
    ),
    ("inventory", "sheet.xlsx", xlsx({"Sheet1": [("host", "gpus"), ("a", 1)]}), "vHost"),
    ("inventory", "huge.csv", b"host," + b"x" * (21 * 2**20), "over the limit"),
    ("inventory", "long-line.csv", b"host," + b"x" * 300_000 + b"\n", "longer than"),
    ("inventory", "pods.csv", _csv(TRACE_PODS), "pod list (workloads)"),
    ("workloads", "nodes.csv", _csv(TRACE_NODES), "node list (hosts)"),
    ("workloads", "hosts.csv", PLAIN_INVENTORY, "describes hosts"),
]


@pytest.mark.parametrize(
    ("role", "name", "data", "said"), WRONG_FILES, ids=[f"{w[0]}-{w[1]}" for w in WRONG_FILES]
)
def test_a_file_of_the_wrong_kind_is_refused_naming_it_with_a_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    role: str,
    name: str,
    data: bytes,
    said: str,
) -> None:
    """An empty file, an image, an archive, Latin-1 text, the other role's kubectl output, an
    empty kubectl list (JSON or YAML) or kubectl's 'No resources found', YAML kubectl never
    writes (anchors and aliases, a Python tag, deep nesting) or broken YAML, a table, an unknown
    workbook, a file over the size limit or of one endless line, or the other trace list: the
    command line exits 2 naming the file with a fix (no traceback), and the dashboard's import
    refuses it alike."""
    path = _path(tmp_path, name, data)
    assert main(["plan", f"--{role}", str(path), "--methods", "passthrough", "--no-harvest"]) == 2
    err = capsys.readouterr().err
    assert name in err
    assert "Fix:" in err
    assert said in err
    assert "Traceback" not in err
    importer = import_inventory if role == "inventory" else import_workloads
    with pytest.raises(InputError) as refused:
        importer([(name, data)], CATALOG)
    assert all(p.file.startswith(name) and p.fix for p in refused.value.problems)


VHOST: Rows = [
    ["Host", "Datacenter", "Cluster", "# CPU", "Cores per CPU", "# Cores", "# Memory", "# VMs"],
    ["esx-01.lab", "dc", "gpu", "2", "16", "32", "261797", "11"],
    ["esx-02.lab", "dc", "gpu", "2", "24", "48", "524288", "4"],
    ["esx-03.lab", "dc", "other", "2", "16", "32", "1048576", "0"],
]
VHOST_SAVED_AS: dict[str, Callable[[Rows], bytes]] = {
    "workbook": lambda rows: xlsx({"vInfo": [("VM", "Host")], "vHost": rows}),
    "comma CSV": _csv,
    "semicolon CSV": lambda rows: _csv(rows, ";"),
    "tab CSV": lambda rows: _csv(rows, "\t"),
    "CSV with BOM and CRLF": lambda rows: codecs.BOM_UTF8 + _csv(rows, line_end="\r\n"),
    "UTF-16 tab CSV": lambda rows: _utf16(_csv(rows, "\t", "\r\n")),
    "columns reordered": lambda rows: _csv([r[::-1] for r in rows]),
    "header in lower case": lambda rows: _csv([[c.lower() for c in rows[0]], *rows[1:]]),
    "memory with thousands commas": lambda rows: _csv(
        [rows[0], *[[*r[:6], f"{int(r[6]):,}", *r[7:]] for r in rows[1:]]]
    ),
}
GPUS_BY_CLUSTER = {"gpu": ("L40S", 4), "other": ("L4", 2)}


def _vhost_hosts(
    tmp_path: Path, name: str, data: bytes
) -> dict[str, tuple[list[tuple[object, ...]], tuple[InputProblem, ...]]]:
    args = build_parser().parse_args(
        [
            *("plan", "--inventory", str(_path(tmp_path, name, data))),
            *("--cluster-gpus", "gpu=L40S:4", "--cluster-gpus", "other=L4:2"),
        ]
    )
    cli = read_inputs(args, report=io.StringIO())
    imported = import_inventory([(name, data)], CATALOG, gpus_by_cluster=GPUS_BY_CLUSTER)
    panel = imported.inventory(CATALOG)

    def shown(hosts: Sequence[Host]) -> list[tuple[object, ...]]:
        return sorted(
            (h.name, h.cluster, h.gpu_model, h.gpus, h.cpu_cores, h.ram_gib) for h in hosts
        )

    return {
        "command line": (shown(cli.scenario.inventory.hosts), cli.problems),
        "import panel": (shown(panel.value.hosts), panel.problems),
    }


@pytest.mark.parametrize("saved_as", VHOST_SAVED_AS)
def test_an_rvtools_vhost_tab_saved_another_way_reads_as_the_workbook(
    tmp_path: Path, saved_as: str
) -> None:
    """RVTools' vHost tab as a workbook or as CSV however saved gives the same hosts: cores,
    memory in GiB from MiB (255.661 GiB from 261,797 MiB, written with thousands commas too)."""
    plain = _vhost_hosts(tmp_path, "rvtools.xlsx", VHOST_SAVED_AS["workbook"](VHOST))
    assert plain["command line"][0][0] == ("esx-01.lab", "gpu", "L40S", 4, 32.0, 255.661)
    name = "rvtools.xlsx" if saved_as == "workbook" else "vhost.csv"
    read = _vhost_hosts(tmp_path, name, VHOST_SAVED_AS[saved_as](VHOST))
    assert read == {reader: (hosts, ()) for reader, (hosts, _) in plain.items()}


@pytest.mark.parametrize("saved_as", ["workbook", "comma CSV", "semicolon CSV"])
def test_a_repeated_vhost_header_is_no_host(tmp_path: Path, saved_as: str) -> None:
    """vHost tabs of two vCenters joined one after the other repeat the header: that row is one
    problem naming it, not a host 'Host' with assumed cores and memory; the hosts on both sides
    are read."""
    plain = _vhost_hosts(tmp_path, "rvtools.xlsx", VHOST_SAVED_AS["workbook"](VHOST))
    joined = [*VHOST[:2], VHOST[0], *VHOST[2:]]
    name = "rvtools.xlsx" if saved_as == "workbook" else "vhost.csv"
    for reader, (hosts, problems) in _vhost_hosts(
        tmp_path, name, VHOST_SAVED_AS[saved_as](joined)
    ).items():
        assert (reader, hosts) == (reader, plain[reader][0])
        (problem,) = problems
        assert (problem.file, problem.row) == (f"{name} [vHost]", 3)
        assert "header row is repeated" in problem.message
        assert problem.fix == "delete this row"


@pytest.mark.parametrize("saved_as", ["workbook", "comma CSV", "semicolon CSV"])
def test_a_second_vhost_header_with_its_columns_elsewhere_reads_the_rows_below_by_it(
    tmp_path: Path, saved_as: str
) -> None:
    """A second vCenter's export joined below the first, its columns in another order and one
    more: its header row is no host (it was read as host 'Host') and the rows below are read by
    it, each host with its own cores and memory (they were read by the first header's
    positions), with one problem naming the row."""
    plain = _vhost_hosts(tmp_path, "rvtools.xlsx", VHOST_SAVED_AS["workbook"](VHOST))
    order = [0, 2, 6, 5, 1, 3, 4, 7]
    moved = [[row[i] for i in order] + ["note"] for row in VHOST]
    moved[0][-1] = "Annotation"
    joined = [*VHOST[:2], *moved[0:1], *moved[2:]]
    name = "rvtools.xlsx" if saved_as == "workbook" else "vhost.csv"
    for reader, (hosts, problems) in _vhost_hosts(
        tmp_path, name, VHOST_SAVED_AS[saved_as](joined)
    ).items():
        assert (reader, hosts) == (reader, plain[reader][0])
        (problem,) = problems
        assert (problem.file, problem.row) == (f"{name} [vHost]", 3)
        assert "the rows below are read by this header" in problem.message


QUERY_HEADER = ["name", "memory.total [MiB]", "mig.mode.current", "index"]
QUERY_ROWS = [
    ["NVIDIA A100-SXM4-80GB", "81920 MiB", "Enabled", "0"],
    ["NVIDIA A100-SXM4-80GB", "81920 MiB", "Enabled", "1"],
]


def _query(header: Sequence[str], rows: Sequence[Sequence[str]], separator: str = ", ") -> str:
    return "".join(separator.join(r) + "\n" for r in (header, *rows))


QUERY_SAVED_AS = {
    "fields reordered": _query(QUERY_HEADER[::-1], [r[::-1] for r in QUERY_ROWS]),
    "nounits": _query(
        ["name", "memory.total", "mig.mode.current", "index"],
        [[r[0], r[1].split()[0], *r[2:]] for r in QUERY_ROWS],
    ),
    "more fields": _query(
        [*QUERY_HEADER, "uuid", "utilization.gpu [%]"],
        [[*r, f"GPU-{i}", "9 %"] for i, r in enumerate(QUERY_ROWS)],
    ),
    "header in capitals": _query([h.upper() for h in QUERY_HEADER], QUERY_ROWS),
    "semicolons (re-saved by a spreadsheet)": _query(QUERY_HEADER, QUERY_ROWS, ";"),
    "tabs": _query(QUERY_HEADER, QUERY_ROWS, "\t"),
    "blank lines at the end": _query(QUERY_HEADER, QUERY_ROWS) + "\n\n\n",
}


def _gpus(hosts: Sequence[Host]) -> list[tuple[str, int, bool]]:
    return [(h.gpu_model, h.gpus, h.mig_enabled) for h in hosts]


@pytest.mark.parametrize("saved_as", QUERY_SAVED_AS)
@pytest.mark.parametrize(
    "encode",
    [
        str.encode,
        lambda text: codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode(),
        lambda text: _utf16(text.replace("\n", "\r\n").encode()),
    ],
    ids=["UTF-8", "BOM and CRLF (Windows)", "UTF-16 (PowerShell >)"],
)
def test_an_nvidia_smi_query_csv_saved_another_way_reads_as_the_plain_one(
    tmp_path: Path, saved_as: str, encode: Callable[[str], bytes]
) -> None:
    """nvidia-smi --query-gpu output with its fields in another order, without units, with more
    fields, re-saved with semicolons or tabs, from Windows or PowerShell: two A100 80GB SXM GPUs
    with MIG on, as in the plain output."""
    data = encode(QUERY_SAVED_AS[saved_as])
    args = build_parser().parse_args(
        ["plan", "--inventory", str(_path(tmp_path, "gpu-07.csv", data))]
    )
    cli = read_inputs(args, report=io.StringIO())
    panel = import_inventory([("gpu-07.csv", data)], CATALOG).inventory(CATALOG)
    expected = [("A100-80GB-SXM", 2, True)]
    assert _gpus(cli.scenario.inventory.hosts) == expected
    assert _gpus(panel.value.hosts) == expected


@pytest.mark.parametrize("output", [NVIDIA_SMI_TABLE, NVIDIA_SMI_LIST, MIG_LGI])
@pytest.mark.parametrize(
    "paste",
    [
        lambda text: text.replace(" ", "\u00a0"),
        lambda text: text.replace("  ", "\u00a0 "),
        lambda text: text.replace(" ", "\u00a0", 3),
    ],
    ids=["every space", "runs of spaces", "first spaces"],
)
def test_tool_output_copied_from_a_web_page_reads_as_the_output(
    output: str, paste: Callable[[str], str]
) -> None:
    """nvidia-smi's table, -L list and mig -lgi copied from a web page, a chat or a mail have
    no-break spaces where the tool printed spaces: they read as the tool's output."""
    name, data = sample(output)
    plain = import_inventory([("gpu-07.txt", data)], CATALOG).inventory(CATALOG).value.hosts
    pasted = paste(data.decode()).encode()
    read = import_inventory([("gpu-07.txt", pasted)], CATALOG).inventory(CATALOG).value.hosts
    assert _gpus(read) == _gpus(plain), name


def _dcgm_line(metric: str, value: object, pod_name: str, gpu: str) -> str:
    labels = (
        f'gpu="{gpu}",UUID="GPU-{gpu}",modelName="NVIDIA L4",Hostname="n1",namespace="ml",'
        f'pod="{pod_name}",container="main"'
    )
    return f"{metric}{{{labels}}} {value}\n"


DCGM_PODS = kube_list(
    *[
        pod(
            f"inf-{i}",
            owner=("ReplicaSet", "inf-7d9"),
            containers=[
                container(requests={"cpu": "2", "memory": "8Gi"}, limits={"nvidia.com/gpu": "1"})
            ],
        )
        for i in range(2)
    ]
)
DCGM = (
    "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
    + _dcgm_line("DCGM_FI_DEV_GPU_UTIL", 40, "inf-0", "0")
    + _dcgm_line("DCGM_FI_DEV_GPU_UTIL", 60, "inf-1", "1")
    + _dcgm_line("DCGM_FI_DEV_FB_USED", 8000, "inf-0", "0")
    + _dcgm_line("DCGM_FI_DEV_FB_USED", 9000, "inf-1", "1")
)


def _measured(dcgm: bytes) -> tuple[list[tuple[str, float, float]], tuple[InputProblem, ...]]:
    read = import_workloads([("pods.json", DCGM_PODS), ("dcgm.prom", dcgm)], CATALOG)
    classes = read.workloads(CATALOG)
    return [(w.name, w.busy_fraction, w.memory_gib) for w in classes.value], classes.problems


@pytest.mark.parametrize(
    "saved_as",
    [
        lambda text: codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode(),
        lambda text: _utf16(text.encode()),
        lambda text: text.replace('gpu="0",UUID="GPU-0"', 'UUID="GPU-0",gpu="0"').encode(),
        lambda text: "".join(
            f"{line} 1700000000000\n" for line in text.splitlines() if not line.startswith("#")
        ).encode(),
        lambda text: (text + text).encode(),
    ],
    ids=["BOM and CRLF", "UTF-16", "labels reordered", "timestamps", "two scrapes"],
)
def test_dcgm_metrics_saved_another_way_measure_as_the_plain_scrape(
    saved_as: Callable[[str], bytes],
) -> None:
    """A DCGM scrape saved on Windows, as UTF-16, with labels in another order, with sample
    timestamps or scraped twice measures the class as the plain scrape: busy 50 %, 8.79 GiB."""
    plain = _measured(DCGM.encode())
    assert plain[0] == [("inf-7d9", 0.5, pytest.approx(8.789, abs=1e-3))]
    assert _measured(saved_as(DCGM)) == plain


@pytest.mark.parametrize(
    ("value", "said"),
    [("1e308", "above 1,048,576 MiB"), ("NaN", "cannot be read"), ("-1", "cannot be read")],
)
def test_an_impossible_dcgm_memory_sample_is_left_out_naming_its_line(
    value: str, said: str
) -> None:
    """A frame-buffer sample above 1 TiB (an exporter fault), not a number or negative is one
    problem naming the file, its line and the metric; the class's memory is the peak of its
    other samples."""
    measured, problems = _measured(
        (DCGM + _dcgm_line("DCGM_FI_DEV_FB_USED", value, "inf-0", "0")).encode()
    )
    assert measured == _measured(DCGM.encode())[0]
    (problem,) = problems
    assert (problem.file, problem.row, problem.column) == ("dcgm.prom", 7, "DCGM_FI_DEV_FB_USED")
    assert said in problem.message


@pytest.mark.parametrize(
    "encode",
    [
        lambda data: codecs.BOM_UTF8 + data.replace(b"\n", b"\r\n"),
        lambda data: _utf16(data),
        lambda data: json.dumps(json.loads(data), separators=(",", ":")).encode(),
        lambda data: data.replace(b'"kind": "List"', b'"kind": "PodList"'),
    ],
    ids=["BOM and CRLF", "UTF-16 (PowerShell >)", "compact", "kind PodList"],
)
def test_kubectl_pods_saved_another_way_read_as_the_plain_output(
    tmp_path: Path, encode: Callable[[bytes], bytes]
) -> None:
    """kubectl get pods -o json saved from Windows, by PowerShell, compacted by jq or listed as
    a PodList gives the plain output's classes."""
    plain = _workloads_everywhere(tmp_path, "pods.json", DCGM_PODS, planner_csv=False)
    assert [w.name for w in plain["import panel"][0]] == ["inf-7d9"]
    assert plain["command line"] == plain["import panel"]
    read = _workloads_everywhere(tmp_path, "pods.json", encode(DCGM_PODS), planner_csv=False)
    assert read == plain


def test_the_command_line_plans_a_re_saved_scenario_as_the_plain_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: the inventory as Excel's Unicode Text and the mix as a European CSV with
    Excel's sep= line plan exactly as the plain files (the same summary lines), exit 0."""
    options = ["--methods", "passthrough", "--no-harvest"]
    plain = [
        "--inventory",
        str(_path(tmp_path, "inventory.csv", _csv(INVENTORY_ROWS))),
        "--workloads",
        str(_path(tmp_path, "workloads.csv", PLAIN_WORKLOADS)),
    ]
    assert main(["plan", *plain, *options]) == 0
    expected = capsys.readouterr().out
    hosts = SAVED_AS["UTF-16 tab-separated (Excel Unicode Text)"](INVENTORY_ROWS)
    mix = SAVED_AS["Excel's sep= line above the header"](WORKLOAD_ROWS)
    saved = [
        "--inventory",
        str(_path(tmp_path, "hosts.txt", hosts)),
        "--workloads",
        str(_path(tmp_path, "mix.csv", mix)),
    ]
    assert main(["plan", *saved, *options]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "Passthrough" in captured.out
    assert "input:" not in captured.err


def test_kubectl_yaml_plans_as_its_json_from_the_command_line(tmp_path: Path) -> None:
    """``kubectl get nodes -o yaml`` and ``kubectl get pods -A -o yaml`` given on the command
    line (and to the import panel) give the hosts and workload classes their JSON gives."""
    _, nodes = sample(KUBECTL_NODES)
    pods = kube_list(
        pod("a", owner=("Job", "train"), containers=[container(limits={"nvidia.com/gpu": "1"})])
    )
    read = {}
    for form, convert in (("json", lambda data: data), ("yaml", as_kubectl_yaml)):
        args = build_parser().parse_args(
            [
                *("plan", "--inventory", str(_path(tmp_path, f"nodes.{form}", convert(nodes)))),
                *("--workloads", str(_path(tmp_path, f"pods.{form}", convert(pods)))),
            ]
        )
        cli = read_inputs(args, report=io.StringIO())
        panel = import_inventory([(f"nodes.{form}", convert(nodes))], CATALOG).inventory(CATALOG)
        read[form] = (cli.scenario.inventory.hosts, cli.scenario.workloads, panel.value.hosts)
    hosts, workloads, panel_hosts = read["yaml"]
    assert [(h.name, h.gpu_model, h.gpus) for h in hosts] == [("nori", "A16", 4)]
    assert [w.name for w in workloads] == ["train"]
    assert read["yaml"] == read["json"]
    assert panel_hosts == hosts
