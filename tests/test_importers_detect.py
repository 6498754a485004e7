"""Tests of telling file formats apart by their content."""

from __future__ import annotations

import json

import pytest
from csv_layouts import HOSTS, LAYOUTS
from importer_samples import (
    CATALOG,
    DCGM,
    KUBECTL_NODES,
    MIG_LGI,
    MIG_LGIP,
    NVIDIA_SMI_LIST,
    NVIDIA_SMI_QUERY,
    NVIDIA_SMI_TABLE,
    REPO,
    RVTOOLS,
    as_kubectl_yaml,
    european_csv,
    kube_list,
    node,
    pod,
    sample,
)

from planner.inputs.alibaba_trace import is_node_list, load_node_list
from planner.inputs.importers.detect import Format, detect_format, known_formats
from planner.inputs.importers.estate import import_inventory
from planner.inputs.limits import MAX_KUBECTL_JSON_MB
from planner.inputs.problems import InputError
from planner.inputs.tabular import SPREADSHEET_SEPARATORS, read_csv_table


@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        (KUBECTL_NODES, Format.KUBECTL_NODES),
        (NVIDIA_SMI_QUERY, Format.NVIDIA_SMI_QUERY),
        (NVIDIA_SMI_LIST, Format.NVIDIA_SMI_LIST),
        (NVIDIA_SMI_TABLE, Format.NVIDIA_SMI_TABLE),
        (MIG_LGI, Format.MIG_INSTANCES),
        (MIG_LGIP, Format.MIG_PROFILES),
        (RVTOOLS, Format.RVTOOLS),
        (DCGM, Format.DCGM),
    ],
)
def test_every_sample_is_detected(relative: str, expected: Format) -> None:
    """Each real tool output is recognised by its content."""
    assert detect_format(*sample(relative)) is expected


def test_planner_csvs_are_detected_whatever_their_name() -> None:
    """The planner's own CSVs are recognised by their header, not their file name."""
    inventory = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
    workloads = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    assert detect_format("hosts.txt", inventory) is Format.INVENTORY_CSV
    assert detect_format("mix", workloads) is Format.WORKLOADS_CSV


@pytest.mark.parametrize("separator", [";", "\t"])
def test_planner_csvs_saved_with_semicolons_or_tabs_are_detected(separator: str) -> None:
    """The planner's CSVs as a European spreadsheet saves them (semicolons or tabs between
    columns) are still the planner's CSVs, not 'cannot tell which tool wrote this file'."""
    inventory = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
    workloads = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    assert detect_format("i.csv", european_csv(inventory, separator)) is Format.INVENTORY_CSV
    assert detect_format("w.csv", european_csv(workloads, separator)) is Format.WORKLOADS_CSV


def test_a_planner_csv_separated_by_vertical_bars_is_refused_naming_them() -> None:
    """An inventory separated by '|' reaches the planner's loader, which names the separator,
    rather than 'cannot tell which tool wrote this file'."""
    inventory = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
    barred = european_csv(inventory, "|")
    assert detect_format("i.csv", barred) is Format.INVENTORY_CSV
    with pytest.raises(InputError, match=r"separated by vertical bars \(\|\), not commas"):
        import_inventory([("i.csv", barred)], CATALOG)


def test_kubectl_kinds_and_labels_stream() -> None:
    """Pods, nodes and a jq stream of node labels are told apart."""
    assert detect_format("a", kube_list(pod("p"))) is Format.KUBECTL_PODS
    assert detect_format("a", kube_list(node("n"))) is Format.KUBECTL_NODES
    labels = b'{"kubernetes.io/hostname": "a"}\n{"kubernetes.io/hostname": "b"}\n'
    assert detect_format("a", labels) is Format.KUBECTL_NODES
    assert detect_format("a", json.dumps(pod("p")).encode()) is Format.KUBECTL_PODS


def test_pasted_prompt_before_output_is_ignored() -> None:
    """A shell prompt line before the output does not hide its format."""
    data = b"root@gpu-7:~# nvidia-smi -L\nGPU 0: NVIDIA A30 (UUID: GPU-1)\n"
    assert detect_format("a", data) is Format.NVIDIA_SMI_LIST


def test_unknown_content_is_refused_listing_the_formats_of_the_role() -> None:
    """Text no importer reads is an InputError whose fix lists the formats the role accepts."""
    with pytest.raises(InputError) as caught:
        detect_format("notes.txt", b"hello world\n", role="inventory")
    (problem,) = caught.value.problems
    assert "cannot tell" in problem.message
    assert "nvidia-smi -L" in problem.fix
    assert "RVTools" in problem.fix
    assert "DCGM" not in problem.fix
    assert "DCGM" in known_formats("workloads")


def test_empty_file_is_refused() -> None:
    """An empty file (or one with prompts only) is refused as empty."""
    with pytest.raises(InputError, match="empty"):
        detect_format("e.txt", b"$ nvidia-smi -L\n\n")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,count", Format.INVENTORY_CSV),
        ("hostname,cluster,gpu_model,gpus_per_host,count", Format.INVENTORY_CSV),
        ("name,instances,gpus,memory_gib,busy_fraction", Format.WORKLOADS_CSV),
        ("name,kind,gpus,memory_gib,busy_fraction", Format.WORKLOADS_CSV),
    ],
)
def test_planner_csv_with_a_column_missing_is_still_the_planners(
    header: str, expected: Format
) -> None:
    """A planner CSV missing a required column is detected as the planner's (whose loader names
    the column), not as nvidia-smi query output because it shares 'name' or 'count'."""
    assert detect_format("a.csv", f"{header}\n".encode()) is expected


@pytest.mark.parametrize(
    "header",
    ["name", "name, count", "index, memory.total [MiB]", "timestamp, name, pci.bus_id"],
)
def test_query_csvs_are_still_detected(header: str) -> None:
    """nvidia-smi query CSVs keep being recognised, by their own fields or 'name' alone."""
    assert detect_format("q.csv", f"{header}\n".encode()) is Format.NVIDIA_SMI_QUERY


def test_a_trace_list_is_refused_naming_how_it_is_read() -> None:
    """A list of the Alibaba trace among other files is refused, naming the command and the
    dashboard page that read it alone."""
    nodes = b"sn,cpu_milli,memory_mib,gpu,model\nnode-0,32000,131072,2,T4\n"
    with pytest.raises(InputError) as caught:
        detect_format("nodes.csv", nodes, role="inventory")
    (problem,) = caught.value.problems
    assert "Alibaba" in problem.message
    assert "not among other files" in problem.message
    assert problem.fix == (
        "give it alone: python -m planner plan --inventory nodes.csv, or upload it alone on "
        "the dashboard's Inventory page"
    )


_NODES = [
    ["sn", "cpu_milli", "memory_mib", "gpu", "model"],
    ["node-0", "32000", "131072", "2", "T4"],
]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_detection_and_both_csv_readers_find_the_same_header(layout: str) -> None:
    """Detection, the planner's CSV loader and the trace reader find the header of a file laid
    out with blank lines, Excel's sep=; line, a byte-order mark or tabs on the same row: an
    inventory is detected as one and read with its columns, its data row numbered below that
    header; a trace node list is refused among other files as the trace's and read whole."""
    laid = LAYOUTS[layout]
    hosts, nodes = laid.write(HOSTS), laid.write(_NODES)
    assert detect_format("hosts.csv", hosts) is Format.INVENTORY_CSV
    table = read_csv_table(hosts, "hosts.csv", separators=SPREADSHEET_SEPARATORS)
    assert list(table.columns) == HOSTS[0]
    assert [r.number for r in table.rows] == [laid.header_row + 1]
    with pytest.raises(InputError, match="a node list \\(hosts\\) of Alibaba's GPU-sharing trace"):
        detect_format("nodes.csv", nodes)
    assert is_node_list(nodes)
    loaded = load_node_list(nodes, CATALOG, file_name="nodes.csv")
    assert [h.name for h in loaded.value.inventory.hosts] == ["node-0"]
    assert loaded.problems == ()


def test_detection_reads_the_header_on_the_separator_a_sep_line_names() -> None:
    """Below sep=; a header whose last name holds more commas than it has semicolons is split
    on semicolons, as the loader splits it: the planner's inventory, not 'cannot tell which
    tool wrote this file'."""
    data = b"sep=;\nhost;gpu_model;notes (rack, row, slot, pdu)\na;L4;x\n"
    assert detect_format("hosts.csv", data) is Format.INVENTORY_CSV
    table = read_csv_table(data, "hosts.csv", separators=SPREADSHEET_SEPARATORS)
    assert list(table.columns)[:2] == ["host", "gpu_model"]


def test_an_rvtools_vm_tab_below_a_sep_line_is_named() -> None:
    """An RVTools tab of virtual machines saved by Excel with its sep=; line is refused as
    that tab, its header read below the sep= line as every CSV header is."""
    data = (
        b"sep=;\nVM;Powerstate;Template;CPUs;Memory;Host;Cluster\nvm1;poweredOn;False;4;8192;h;c\n"
    )
    with pytest.raises(InputError, match="RVTools tab of virtual machines"):
        detect_format("vinfo.csv", data, role="inventory")


@pytest.mark.parametrize(
    ("data", "message", "fix"),
    [
        (b"No devices were found\n", "nvidia-smi printed an error", "NVIDIA driver works"),
        (
            b"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
            "nvidia-smi printed an error",
            "NVIDIA driver works",
        ),
        (b"No GPU instances found: Not Found\n", "no GPU instance", "create the GPU instances"),
        (b"<?xml version='1.0'?>\n<inventory/>\n", "XML, but not nvidia-smi", "-q -x"),
        (
            b"Name:               gpu-1\nRoles:              <none>\nLabels:             a=b\n"
            b"Capacity:\n  cpu:  64\n  nvidia.com/gpu:  8\n",
            "kubectl describe nodes",
            "kubectl get nodes -o json",
        ),
        (
            b"Name:         train-0\nNamespace:    ml\nNode:         gpu-1/10.0.0.1\n"
            b"Status:       Running\n",
            "kubectl describe pods",
            "kubectl get pods -A -o json",
        ),
        (
            b"VM,Powerstate,Template,CPUs,Memory,Host,Cluster\nvm1,poweredOn,False,4,8192,h,c\n",
            "RVTools tab of virtual machines",
            "vHost tab saved as CSV",
        ),
        (
            b"apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n"
            b"    name: web\n  status:\n    replicas: 1\nkind: List\n",
            "YAML, but neither Kubernetes nodes nor pods (objects of kind Deployment)",
            "kubectl get nodes -o json or -o yaml",
        ),
        (
            b"NAME    STATUS   ROLES    AGE   VERSION\ngpu-1   Ready    <none>   3d    v1.30\n",
            "table",
            "-o json",
        ),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), ".xls", "save it as an Excel Workbook"),
    ],
)
def test_known_output_that_is_not_read_is_named(data: bytes, message: str, fix: str) -> None:
    """A tool's error, or a format of a known tool the importers do not read, is refused saying
    what it is and what to run instead, not 'cannot tell which tool wrote this file'."""
    with pytest.raises(InputError) as caught:
        detect_format("out.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert message in problem.message
    assert fix in problem.fix


@pytest.mark.parametrize(
    "data",
    [
        b"NVIDIA A100-SXM4-80GB, 81920 MiB, Enabled\n",
        b"Tesla T4\nTesla T4\n",
        b"A100-SXM4-40GB, 40536\n",
    ],
)
def test_a_query_without_its_header_is_detected(data: bytes) -> None:
    """``--format=csv,noheader`` output (GPU names in one column, nvidia-smi's ``", "`` between
    cells, with or without units) is the query format, read by its name column."""
    assert detect_format("q.txt", data) is Format.NVIDIA_SMI_QUERY


def test_a_headerless_csv_saved_by_a_spreadsheet_is_not_a_query() -> None:
    """An inventory without its header holds a model name but bare commas: not taken for
    nvidia-smi output."""
    with pytest.raises(InputError, match="cannot tell which tool"):
        detect_format("hosts.csv", b"gpu-01,prod,H100-80GB-SXM,8,64,512\n")


@pytest.mark.parametrize(
    "data",
    [
        b"0, 81920 MiB\n1, 81920 MiB\n",
        b"0, 81920 MiB\n\n1, 81920 MiB\n\n",
        b"81920 MiB\n81920 MiB\n",
    ],
    ids=["two-columns", "blank-lines", "one-column"],
)
def test_headerless_query_values_without_a_name_are_refused_with_the_command(
    data: bytes,
) -> None:
    """``--query-gpu=index,memory.total --format=csv,noheader`` (blank lines between its rows or
    not): the query format, but no column is a GPU name and no field can be told, so the file
    is refused with the command that prints the header."""
    assert detect_format("q.txt", data) is Format.NVIDIA_SMI_QUERY
    with pytest.raises(InputError) as caught:
        import_inventory([("q.txt", data)], CATALOG)
    (problem,) = caught.value.problems
    assert "without its header row" in problem.message
    assert "--format=csv (without noheader" in problem.fix


@pytest.mark.parametrize(
    "data",
    [
        b"NVIDIA L4, 23034 MiB\n\nNVIDIA L4, 23034 MiB\n",
        b"NVIDIA L4, 23034 MiB\r\n\r\n  \r\nNVIDIA L4, 23034 MiB\r\n",
        b"gpu-01: NVIDIA L4, 23034 MiB\n\ngpu-02: NVIDIA L4, 23034 MiB\n",
    ],
    ids=["blank", "windows-blank-and-spaces", "pdsh"],
)
def test_blank_lines_between_headerless_query_rows_are_skipped(data: bytes) -> None:
    """Blank lines between the rows of ``--format=csv,noheader`` output (a paste, pdsh, a
    trailing newline per host) are no reason to refuse it: it is the query format, each other
    line one GPU."""
    assert detect_format("q.txt", data) is Format.NVIDIA_SMI_QUERY
    imported = import_inventory([("q.txt", data)], CATALOG)
    assert imported.frame["gpus_per_host"].sum() == 2


@pytest.mark.parametrize(
    "data",
    [
        b"sep=,\nNVIDIA L4, 23034 MiB\nNVIDIA L4, 23034 MiB\n",
        b"\r\nsep=,\r\n\r\nNVIDIA L4, 23034 MiB\r\nNVIDIA L4, 23034 MiB\r\n",
        b",,\nNVIDIA L4, 23034 MiB\nNVIDIA L4, 23034 MiB\n",
    ],
    ids=["sep", "blank-lines-around-sep", "blank-row"],
)
def test_a_headerless_query_below_a_sep_line_is_detected_as_its_reader_reads_it(
    data: bytes,
) -> None:
    """``--format=csv,noheader`` output below Excel's sep= line (or a blank row of commas),
    where ``tabular.csv_header`` puts the table's start, is the query format, each row one GPU,
    as its reader reads it; detection looked at the lines from the file's first and could tell
    no tool."""
    assert detect_format("q.csv", data) is Format.NVIDIA_SMI_QUERY
    imported = import_inventory([("q.csv", data)], CATALOG)
    assert imported.frame["gpus_per_host"].sum() == 2


@pytest.mark.parametrize(
    "data",
    [
        b"\n==============NVSMI LOG==============\n\nTimestamp : Tue Jan  9 2024\n",
        b'<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "x.dtd">\n<nvidia_smi_log>\n',
    ],
)
def test_the_nvidia_smi_q_report_is_detected_as_text_or_xml(data: bytes) -> None:
    """``nvidia-smi -q`` and ``nvidia-smi -q -x`` are one format, read by its labels or tags."""
    assert detect_format("q.txt", data) is Format.NVIDIA_SMI_REPORT


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"gpu-01: NVIDIA L4, 23034 MiB\ngpu-02: NVIDIA L4, 23034 MiB\n", "nvidia-smi-query"),
        (b"gpu-01: index, name\ngpu-01: 0, NVIDIA L4\n", "nvidia-smi-query"),
        (b"gpu-01: GPU 0: NVIDIA L4 (UUID: GPU-1)\n", "nvidia-smi-list"),
        (
            b"name;memory.total [MiB];mig.mode.current\nNVIDIA L4;23034 MiB;[N/A]\n",
            "nvidia-smi-query",
        ),
    ],
)
def test_pdsh_prefixed_and_semicolon_query_outputs_are_detected(data: bytes, expected: str) -> None:
    """A pdsh or clush run (``host: <line>``) is detected by what follows the prefix; a query
    CSV a spreadsheet saved with semicolons is still a query CSV (not a planner CSV missing
    its 'host' column)."""
    assert detect_format("gpus.csv", data) == Format(expected)


def test_a_pdsh_run_of_a_format_not_read_host_by_host_is_refused_saying_how_to_split_it() -> None:
    """nvidia-smi mig -lgi through pdsh: refused naming the run and how to split it into one
    file per host (the plain table and -q through pdsh are read host by host)."""
    data = (
        b"gpu-01: +-------------------------------------------------------+\n"
        b"gpu-01: | GPU instances:                                        |\n"
        b"gpu-01: | GPU   Name             Profile  Instance   Placement  |\n"
    )
    with pytest.raises(InputError) as caught:
        detect_format("fleet.txt", data)
    (problem,) = caught.value.problems
    assert problem.message.startswith("nvidia-smi mig -lgi output of 1 host(s) gathered by pdsh")
    assert "in its own file named after the host" in problem.fix


def test_a_prometheus_api_answer_is_refused_naming_it_and_the_exporters_metrics_text() -> None:
    """``curl prometheus:9090/api/v1/query?query=DCGM_FI_DEV_GPU_UTIL``: JSON naming its result
    type and metric, refused pointing to dcgm-exporter's /metrics text (it was called neither
    Kubernetes nodes nor pods)."""
    answer = {
        "status": "success",
        "data": {
            "resultType": "vector",
            "result": [
                {
                    "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0", "Hostname": "g1"},
                    "value": [1717000000.5, "42"],
                }
            ],
        },
    }
    with pytest.raises(InputError) as caught:
        detect_format("util.json", json.dumps(answer).encode(), role="workloads")
    (problem,) = caught.value.problems
    assert "Prometheus HTTP API answer (resultType vector) of DCGM_FI_DEV_GPU_UTIL" in (
        problem.message
    )
    assert "/metrics" in problem.fix


def test_kubectl_yaml_is_detected_as_its_json() -> None:
    """kubectl's -o yaml of nodes or pods (a List, one object, several documents after ---, a
    prompt pasted above) is the format its -o json is."""
    nodes = kube_list(node("n", {"nvidia.com/gpu.count": "1"}))
    pods = kube_list(pod("p"))
    one_node = json.dumps(node("n")).encode()
    assert detect_format("n.yaml", as_kubectl_yaml(nodes)) is Format.KUBECTL_NODES
    assert detect_format("p.yaml", as_kubectl_yaml(pods)) is Format.KUBECTL_PODS
    assert detect_format("one.yaml", as_kubectl_yaml(one_node)) is Format.KUBECTL_NODES
    several = b"---\n" + as_kubectl_yaml(one_node) + b"---\n" + as_kubectl_yaml(one_node)
    assert detect_format("two.yaml", several) is Format.KUBECTL_NODES
    prompted = b"$ kubectl get pods -A -o yaml\n" + as_kubectl_yaml(pods)
    assert detect_format("p.txt", prompted) is Format.KUBECTL_PODS


def test_objects_of_another_kind_are_refused_in_json_as_in_yaml() -> None:
    """kubectl's list of Deployments has status and metadata as nodes do, but its kind says
    what it is: refused naming the kind, JSON and YAML alike, not read as nodes."""
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}
    data = kube_list({**deployment, "status": {"replicas": 1}})
    for name, given, form in (("d.json", data, "JSON"), ("d.yaml", as_kubectl_yaml(data), "YAML")):
        with pytest.raises(InputError) as refused:
            detect_format(name, given, role="inventory")
        (problem,) = refused.value.problems
        assert problem.message == (
            f"{form}, but neither Kubernetes nodes nor pods (objects of kind Deployment)"
        )


def test_yaml_of_no_kubectl_list_gets_the_messages_json_gets() -> None:
    """An empty list and objects neither nodes nor pods are refused as their JSON is, naming
    YAML; a label map alone is no node in YAML (jq prints JSON), and lines of dashes are no
    YAML start."""
    empty = b'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'
    with pytest.raises(InputError, match=r"kubectl's YAML output of an empty list \(kind List"):
        detect_format("none.yaml", empty, role="inventory")
    with pytest.raises(InputError, match=r"^x\.yaml: YAML, but neither Kubernetes nodes nor pods"):
        detect_format("x.yaml", b"---\nfoo: bar\nbaz: qux\n", role="inventory")
    with pytest.raises(InputError, match="cannot tell which tool wrote this file"):
        detect_format("x.txt", b"----------\nsome text\n", role="inventory")


def _padded_pods(megabytes: int) -> bytes:
    """kubectl get pods -A -o json of about ``megabytes`` MB, most of it kubectl's
    last-applied copy of each pod, as a large cluster's output is."""
    pad = "x" * 3000
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "ns",
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": pad},
        },
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {}}]},
        "status": {"phase": "Running"},
    }
    count = megabytes * 1024 * 1024 // len(json.dumps(pod)) + 1
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod] * count}).encode()


@pytest.mark.parametrize("yaml", [False, True], ids=["json", "yaml"])
def test_kubectl_output_over_the_size_limit_is_told_how_to_shrink_kubectl_output(
    yaml: bool,
) -> None:
    """kubectl pods output over the size limit has no rows or count column: its refusal says
    how to leave out what the plan does not read (kubectl's last-applied copy of each pod),
    with the pods command, and never the CSV's fix. JSON is refused over its own limit, YAML
    over the 20 MB of every file."""
    if yaml:
        data = b"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n" + b" " * (21 << 20)
    else:
        data = _padded_pods(MAX_KUBECTL_JSON_MB + 1)
    with pytest.raises(InputError) as raised:
        detect_format("pods.json", data, role="workloads")
    ((problem),) = raised.value.problems
    assert "over the limit" in problem.message
    assert "kubectl get pods -A -o json" in problem.fix
    assert "last-applied-configuration" in problem.fix
    assert "count" not in problem.fix


_KUBECTL_STDERR = (
    b'E1128 10:00:00.123456   12345 memcache.go:265] "Unhandled Error" err="couldn\'t get '
    b'current server API group list: the server has asked for the client to provide credentials"\n'
    b"Warning: Use tokens from the TokenRequest API or manually created secret-based tokens "
    b"instead of auto-generated secret-based tokens.\n"
)
"""kubectl's log line and an API server's warning, as ``2>&1`` saves them before the output."""


@pytest.mark.parametrize("as_yaml", [False, True], ids=["json", "yaml"])
def test_kubectl_messages_before_its_output_are_named_by_row_with_the_fix(as_yaml: bool) -> None:
    """``kubectl get nodes -o json > nodes.json 2>&1``: kubectl's stderr lines stand before the
    JSON (or YAML); the file is refused naming row 1 as a kubectl error or warning line, the
    rows to remove and the command that saves only the output. It read 'cannot tell which
    tool wrote this file'."""
    nodes = kube_list(node("gpu-1", {"nvidia.com/gpu.product": "NVIDIA-L4"}))
    data = _KUBECTL_STDERR + (as_kubectl_yaml(nodes) if as_yaml else nodes)
    with pytest.raises(InputError) as caught:
        detect_format("nodes.json", data, role="inventory")
    (problem,) = caught.value.problems
    form = "YAML" if as_yaml else "JSON"
    assert problem.row == 1
    assert problem.message.startswith(f"a kubectl error or warning line, not {form}: 'E1128")
    assert problem.fix.startswith("remove rows 1-2, the lines before")
    assert f"kubectl get nodes -o {form.lower()} > nodes.{form.lower()} 2>/dev/null" in problem.fix


def test_kubectl_messages_alone_are_kubectls_error_instead_of_its_output() -> None:
    """kubectl's log line and its ``error:`` line, and no output: refused quoting the error."""
    data = _KUBECTL_STDERR + b"error: You must be logged in to the server (Unauthorized)\n"
    with pytest.raises(InputError) as caught:
        detect_format("nodes.json", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.row == 3
    assert "kubectl printed an error instead of its output: 'error: You must be" in problem.message


_TOPOLOGY = (
    b"\t\x1b[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
    b"GPU0\t X \tNV18\tSYS\t0-47\t0\t\tN/A\n"
    b"GPU1\tNV18\t X \tSYS\t0-47\t0\t\tN/A\n"
    b"NIC0\tSYS\tSYS\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n"
)
_SMI_DMON = (
    b"# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
    b"# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n"
    b"    0     72     35      -     45     12      0      0      0      0   1215   1410 \n"
)
_DCGMI_DMON = (
    b"#Entity   SMACT  SMOCC  TENSO  DRAMA  FB_USED\nID\n"
    b"GPU 0     0.832  0.412  0.201  0.377  40211\nGPU 1     0.001  0.000  0.000  0.000  0\n"
)
_TEGRASTATS = (
    b"RAM 2448/7765MB (lfb 1x4MB) SWAP 0/3882MB (cached 0MB) CPU [8%@1510,3%@1510,off,off] "
    b"EMC_FREQ 0% GR3D_FREQ 0% AO@44.5C GPU@45C VDD_IN 3721/3721 VDD_SOC 1116/1116\n"
)
_NODES_WITH_LABELS = (
    b"NAME       STATUS   ROLES           AGE   VERSION   PRODUCT                 COUNT\n"
    b"cp-01      Ready    control-plane   40d   v1.30.2                           \n"
    b"gpu-01     Ready    <none>          40d   v1.30.2   NVIDIA-A100-SXM4-80GB   8\n"
)


@pytest.mark.parametrize(
    ("data", "message", "fix"),
    [
        (_TOPOLOGY, "nvidia-smi topo -m output", "nvidia-smi --query-gpu=name,memory.total"),
        (_SMI_DMON, "nvidia-smi dmon output", "dcgm-exporter's metrics"),
        (_DCGMI_DMON, "dcgmi dmon output", "curl <exporter>:9400/metrics"),
        (_TEGRASTATS, "tegrastats output of an NVIDIA Jetson module", "--catalog-extra"),
        (
            _NODES_WITH_LABELS,
            "kubectl's table output with label columns (PRODUCT, COUNT, from -L)",
            "kubectl get nodes -o json",
        ),
    ],
    ids=["topo-m", "nvidia-smi-dmon", "dcgmi-dmon", "tegrastats", "kubectl-get-nodes-L"],
)
def test_monitoring_outputs_are_named_with_what_to_run_instead(
    data: bytes, message: str, fix: str
) -> None:
    """``nvidia-smi topo -m``, ``nvidia-smi dmon``, ``dcgmi dmon``, tegrastats and a kubectl
    table with ``-L`` label columns are refused saying what the file was recognised as and what
    to run instead (they read 'cannot tell which tool wrote this file', and the -L table 'has
    no GPU figures' though its columns show them)."""
    with pytest.raises(InputError) as caught:
        detect_format("out.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.message.startswith(message)
    assert fix in problem.fix


def test_an_ansible_run_of_a_format_not_read_host_by_host_is_refused_naming_ansible() -> None:
    """nvidia-smi mig -lgi gathered by Ansible: refused saying it is that output of several
    hosts gathered by Ansible, and how to give it (one file per host)."""
    lgi = b"+----------+\n| GPU instances:  |\n| GPU   Name   Profile  Instance   Placement |\n"
    data = b"gpu01 | CHANGED | rc=0 >>\n" + lgi + b"gpu02 | CHANGED | rc=0 >>\n" + lgi
    with pytest.raises(InputError) as caught:
        detect_format("lgi.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.message.startswith(
        "nvidia-smi mig -lgi output of 2 host(s) gathered by Ansible, which is read host by host "
        "only for"
    )
    assert "in its own file named after the host" in problem.fix


def test_a_run_in_which_no_host_gave_output_lists_each_host_and_its_reason() -> None:
    """Every host of an Ansible run unreachable: refused listing each host with Ansible's
    reason, then that no host gave output."""
    data = (
        b'gpu01 | UNREACHABLE! => {\n    "msg": "ssh: connect to host gpu01 port 22: timed out",\n'
        b'    "unreachable": true\n}\ngpu02 | UNREACHABLE! => {\n    "msg": "ssh: Could not '
        b'resolve hostname gpu02",\n    "unreachable": true\n}\n'
    )
    with pytest.raises(InputError) as caught:
        detect_format("gpus.txt", data, role="inventory")
    first, second, none = caught.value.problems
    assert (first.row, second.row) == (1, 5)
    assert first.message.endswith(
        "UNREACHABLE: 'ssh: connect to host gpu01 port 22: timed out'; the host is left out"
    )
    assert second.message.startswith("host gpu02: Ansible reports it UNREACHABLE: 'ssh: Could not")
    assert none.message == "a run over several hosts (Ansible) in which no host gave output"


def test_a_refusal_of_a_hosts_block_names_the_row_of_the_file() -> None:
    """kubectl's messages inside an Ansible host's block are refused naming their row in the
    file (row 2), not in the block."""
    data = (
        b"gpu01 | CHANGED | rc=0 >>\n"
        b"E1128 10:00:00.123456   12345 memcache.go:265] couldn't get the API group list\n"
        b'{"apiVersion": "v1", "kind": "List", "items": []}\n'
    )
    with pytest.raises(InputError) as caught:
        detect_format("nodes.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.row == 2
    assert problem.message.startswith("a kubectl error or warning line, not JSON")


def test_ansible_playbook_output_is_refused_with_the_ad_hoc_command() -> None:
    """ansible-playbook's PLAY and TASK output holds the hosts' lines as JSON strings: refused
    naming it, with the ad hoc command whose blocks are read host by host."""
    data = (
        b"PLAY [gpus] ********************************************************\n\n"
        b"TASK [nvidia-smi] **************************************************\n"
        b"changed: [gpu01]\n\nTASK [debug] ****\nok: [gpu01] => {\n"
        b'    "out.stdout_lines": [\n        "GPU 0: NVIDIA L4 (UUID: GPU-1)"\n    ]\n}\n'
    )
    with pytest.raises(InputError) as caught:
        detect_format("play.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.message.startswith("ansible-playbook output (PLAY and TASK lines)")
    assert "ansible GROUP -a 'nvidia-smi -L'" in problem.fix


_GRAFANA_JOINED = (
    b'"Time","DCGM_FI_DEV_GPU_UTIL{pod=""a-6d4cf56db6-abcde"", namespace=""prod""}",'
    b'"DCGM_FI_DEV_GPU_UTIL{pod=""web-6d4cf56db6-abcde"", namespace=""prod""}"\n'
    b'"2026-11-28 10:00:00",40,70\n"2026-11-28 10:01:00",42,71\n'
)
_GRAFANA_SERIES = (
    b'"Series","Time","Value"\n'
    b'"a-6d4cf56db6-abcde","2026-11-28 10:00:00",40\n'
    b'"web-6d4cf56db6-abcde","2026-11-28 10:00:00",70\n'
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            _GRAFANA_JOINED,
            "a Grafana CSV export of DCGM_FI_DEV_GPU_UTIL (a column per series, a row per time)",
        ),
        (_GRAFANA_SERIES, "a Grafana CSV export (one row per series and time)"),
    ],
    ids=["series-joined-by-time", "series-time-value"],
)
def test_a_grafana_csv_export_is_refused_naming_it_and_the_exporters_text(
    data: bytes, message: str
) -> None:
    """A Grafana panel's CSV export of DCGM metrics (a column per series, or Series, Time, Value
    rows) is refused naming it, the metric its columns hold, and the exporter's or Prometheus
    federation's text to give instead; it read 'cannot tell which tool wrote this file'."""
    with pytest.raises(InputError) as caught:
        detect_format("grafana.csv", data, role="workloads")
    (problem,) = caught.value.problems
    assert problem.message.startswith(message)
    assert "which is not read" in problem.message
    assert "curl <exporter>:9400/metrics > dcgm.prom" in problem.fix
    assert "/federate?match[]=" in problem.fix


def test_a_csv_whose_first_column_is_time_but_names_no_series_is_not_taken_for_grafana() -> None:
    """Only a Time column beside columns named after series (``METRIC{labels}``) is Grafana's:
    a table of times and plain columns is still refused as an unknown file."""
    with pytest.raises(InputError) as caught:
        detect_format("t.csv", b"Time,load\n2026-11-28 10:00:00,3\n", role="workloads")
    (problem,) = caught.value.problems
    assert "Grafana" not in problem.message


def test_dcgm_metrics_under_their_old_names_are_named_with_how_to_get_the_current_ones() -> None:
    """A scrape of the DCGM exporter's 1.x metric names (dcgm_gpu_utilization, dcgm_fb_used,
    pods in pod_name) is refused naming them and the current names to give, not 'cannot tell
    which tool wrote this file'."""
    labels = b'{gpu="0",uuid="GPU-8f64",pod_name="train-0",pod_namespace="ml"}'
    data = (
        b"# HELP dcgm_gpu_temp GPU temperature (in C).\n# TYPE dcgm_gpu_temp gauge\n"
        b"dcgm_gpu_temp" + labels + b" 34\n"
        b"# HELP dcgm_gpu_utilization GPU utilization (in %).\n"
        b"dcgm_gpu_utilization" + labels + b" 87\n"
        b"dcgm_fb_used" + labels + b" 30123\n"
    )
    with pytest.raises(InputError) as caught:
        detect_format("old.prom", data, role="workloads")
    (problem,) = caught.value.problems
    assert problem.file == "old.prom"
    assert problem.message.startswith("DCGM exporter metrics under their 1.x names")
    assert "DCGM_FI_DEV_GPU_UTIL" in problem.fix
    assert "dcgm-exporter 2.0 or later" in problem.fix


_LCI = (
    b"+--------------------------------------------------------------------+\n"
    b"| Compute instances:                                                 |\n"
    b"| GPU     GPU       Name             Profile   Instance   Placement  |\n"
    b"|       Instance                       ID        ID       Start:Size |\n"
    b"|         ID                                                         |\n"
    b"|====================================================================|\n"
    b"|   0      1       MIG 3g.20gb          2         0          0:3     |\n"
    b"+--------------------------------------------------------------------+\n"
)
_LCIP = (
    b"+--------------------------------------------------------------------------------------+\n"
    b"| Compute instance profiles:                                                           |\n"
    b"| GPU     GPU       Name             Profile  Instances   Exclusive       Shared       |\n"
    b"|       Instance                     ID       Free/Total     SM       DEC   ENC   OFA  |\n"
    b"|         ID                                                          CE    JPEG       |\n"
    b"|======================================================================================|\n"
    b"|   0      1       MIG 1c.3g.20gb       0      0/3           14        2     0     0   |\n"
)


@pytest.mark.parametrize(
    ("data", "message", "fix"),
    [
        (_LCI, "nvidia-smi mig -lci output", "give nvidia-smi mig -lgi"),
        (_LCIP, "nvidia-smi mig -lcip output", "give nvidia-smi mig -lgip"),
    ],
    ids=["mig-lci", "mig-lcip"],
)
def test_mig_compute_instance_listings_are_named_with_the_gpu_instance_listing_to_give(
    data: bytes, message: str, fix: str
) -> None:
    """``nvidia-smi mig -lci`` and ``-lcip`` (compute instances and their profiles, inside GPU
    instances) are refused naming the command and the -lgi or -lgip listing to give instead;
    they read 'cannot tell which tool wrote this file'."""
    with pytest.raises(InputError) as caught:
        detect_format("lci.txt", data, role="inventory")
    (problem,) = caught.value.problems
    assert problem.message.startswith(message)
    assert fix in problem.fix
