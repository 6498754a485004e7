"""Which tool wrote a file: detected from its content (never its name), so any file can be given."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from planner.inputs.importers.kube import (
    KubeObject,
    as_text,
    kube_documents,
    kube_objects,
    list_items,
    object_kind,
)
from planner.inputs.importers.nvidia_smi import is_headerless_query
from planner.inputs.importers.resource_slices import KIND as RESOURCE_SLICE
from planner.inputs.importers.text import ToolText, host_outputs, tool_text
from planner.inputs.inventory import INVENTORY_COLUMNS, INVENTORY_SHEET_HEADERS, INVENTORY_TABLE
from planner.inputs.limits import MAX_FILE_MB, MAX_KUBECTL_JSON_MB
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import (
    COMPOUND_FILE,
    SPREADSHEET_SEPARATORS,
    CsvHeader,
    column_names,
    csv_header,
    header_below_titles,
    is_workbook,
    normalise_column,
    quoted,
    refuse_large_file,
)
from planner.inputs.workloads import WORKLOAD_COLUMNS, WORKLOAD_SHEET_HEADERS, WORKLOAD_TABLE

__all__ = [
    "PLAN_INPUTS_SHEET",
    "Detected",
    "Format",
    "UnknownFormatError",
    "detect_file",
    "detect_format",
    "give_as",
    "known_formats",
    "trace_list_problem",
]

PLAN_INPUTS_SHEET = "Planner inputs"
"""The plan workbook's machine-readable sheet (``planner.inputs.importers.workbook``)."""

Role = Literal["inventory", "workloads", "scenario"]


class Format(StrEnum):
    """A file format the planner reads, named after what produces it."""

    INVENTORY_CSV = "inventory-csv"
    WORKLOADS_CSV = "workloads-csv"
    KUBECTL_NODES = "kubectl-nodes"
    KUBECTL_PODS = "kubectl-pods"
    NVIDIA_SMI_QUERY = "nvidia-smi-query"
    NVIDIA_SMI_LIST = "nvidia-smi-list"
    NVIDIA_SMI_TABLE = "nvidia-smi-table"
    NVIDIA_SMI_REPORT = "nvidia-smi-q"
    MIG_INSTANCES = "nvidia-smi-mig-lgi"
    MIG_PROFILES = "nvidia-smi-mig-lgip"
    RVTOOLS = "rvtools"
    DCGM = "dcgm"
    PLAN_WORKBOOK = "plan-workbook"

    @property
    def label(self) -> str:
        """What produces the format, as a user would type or say it."""
        return _LABELS[self]

    @property
    def role(self) -> Role:
        """What the format describes: hosts (inventory), workloads, or a whole scenario."""
        if self in (Format.WORKLOADS_CSV, Format.KUBECTL_PODS, Format.DCGM):
            return "workloads"
        if self is Format.PLAN_WORKBOOK:
            return "scenario"
        return "inventory"


_LABELS = {
    Format.INVENTORY_CSV: "the planner's inventory CSV",
    Format.WORKLOADS_CSV: "the planner's workload CSV",
    Format.KUBECTL_NODES: "kubectl get nodes -o json or -o yaml (or the nodes' labels)",
    Format.KUBECTL_PODS: "kubectl get pods -A -o json or -o yaml",
    Format.NVIDIA_SMI_QUERY: "nvidia-smi --query-gpu=... --format=csv",
    Format.NVIDIA_SMI_LIST: "nvidia-smi -L",
    Format.NVIDIA_SMI_TABLE: "nvidia-smi",
    Format.NVIDIA_SMI_REPORT: "nvidia-smi -q (or nvidia-smi -q -x)",
    Format.MIG_INSTANCES: "nvidia-smi mig -lgi",
    Format.MIG_PROFILES: "nvidia-smi mig -lgip",
    Format.RVTOOLS: "an RVTools export (.xlsx, or its vHost tab as CSV)",
    Format.DCGM: "DCGM exporter metrics (curl <exporter>:9400/metrics)",
    Format.PLAN_WORKBOOK: "a plan workbook written by the planner (.xlsx)",
}
_TOOL_ERROR = re.compile(
    r"NVIDIA-SMI has failed|No devices were found|Failed to initialize NVML|"
    r"Unable to determine the device handle|Insufficient Permissions"
)
"""nvidia-smi's own error messages, printed instead of its output."""
_YAML_START = re.compile(r"^(---\s*$|apiVersion:|kind:|items:)")
"""How kubectl's YAML starts: its keys sorted (``apiVersion`` first), ``---`` before each of
several documents."""
_QUERY_FIELD = re.compile(r"^[a-z][a-z0-9_.]*(\s*\[[^\]]*\])?$")
_QUERY_KNOWN = frozenset(
    {
        "name",
        "gpu_name",
        "index",
        "uuid",
        "gpu_uuid",
        "count",
        "serial",
        "timestamp",
        "driver_version",
        "kmd_version",
        "pci.bus_id",
        "memory.total",
        "mig.mode.current",
    }
)
"""Fields of ``nvidia-smi --query-gpu`` that tell its CSV (``kmd_version`` is driver 610's name
for ``driver_version``)."""
_QUERY_NAMES = frozenset({"name", "gpu_name", "count"})
"""Query fields a planner or trace CSV may also have: alone they only make a query CSV when no
other column is there (``--query-gpu=name,count``)."""
_INVENTORY_ONLY = frozenset({*INVENTORY_COLUMNS, "mig_enabled", "platform"} - {"ram_gib"})
_WORKLOADS_ONLY = frozenset(WORKLOAD_COLUMNS) - {"name", "ram_gib"}
_PLANNER_MATCH = 3
"""Columns a header shares with one planner CSV (and not the other) to be read as it: a planner
CSV with a required column missing or misspelt is still the planner's, and its loader names the
column, rather than being taken for another tool's output."""
_SHEET_HEADERS = {
    normalise_column(written): column
    for written, column in (*INVENTORY_SHEET_HEADERS.items(), *WORKLOAD_SHEET_HEADERS.items())
}
"""The plan workbook's Inventory and Workloads headers in words, by the column each names: a
sheet saved as CSV is the planner's CSV."""
_DCGM = re.compile(r"^(#\s*(HELP|TYPE)\s+)?DCGM_FI_\w+")
_OLD_DCGM = re.compile(r"^(#\s*(HELP|TYPE)\s+)?dcgm_\w+")
"""A DCGM exporter metric under its 1.x name (``dcgm_gpu_utilization``, ``dcgm_fb_used``), as
NVIDIA's gpu-monitoring-tools wrote them."""
_LIST_LINE = re.compile(r"^GPU\s+\d+:\s*\S")
_TABLE_BANNER = re.compile(r"NVIDIA-SMI.*\b(Driver|KMD) Version")
"""The plain nvidia-smi table's banner: ``Driver Version: 590.48.01``, or from driver 610 on
``KMD Version: 610.43.02`` (the kernel-mode driver) beside ``CUDA UMD Version``."""
_TABLE_GPU_HEADER = re.compile(r"^\|\s*GPU\s+Name\s+(Persistence-M|Driver-Model)\s*\|")
"""The first header line of the plain table's GPU rows, whatever its banner says: Linux drivers
end the name cell with ``Persistence-M``, Windows drivers with ``Driver-Model``."""


_GIVE_AS = {
    "inventory": (
        "an inventory file (the Inventory page's import, or --inventory on the command line)"
    ),
    "workloads": (
        "a workload file (the Workloads page's import, or --workloads on the command line)"
    ),
}

_EMPTY_LIST_FIX = {
    "inventory": "check the cluster kubectl is talking to (kubectl config current-context), then "
    "give the output of kubectl get nodes -o json",
    "workloads": "check the cluster and the namespace: kubectl get pods -A -o json lists the pods "
    "of every namespace (without -A, only the current one)",
}
"""How to list the objects again when kubectl listed none, by the role the file was given as."""


def give_as(role: Literal["inventory", "workloads"]) -> str:
    """How to give a file of ``role`` instead, worded for the dashboard and the command line
    alike (the same messages reach both)."""
    return f"give it as {_GIVE_AS[role]}"


def known_formats(role: Role | None = None) -> str:
    """The formats of one role (all when None), listed for a message."""
    return "; ".join(f.label for f in Format if role is None or f.role in (role, "scenario"))


class UnknownFormatError(InputError):
    """The content matches no format the planner knows (a refusal of a known tool's output that
    is not read is an ``InputError`` of its own, naming what to give instead)."""


def _refuse(file: str, message: str, role: Role | None) -> InputError:
    return InputError(
        [InputProblem(file, None, None, message, f"give one of: {known_formats(role)}")]
    )


@dataclass(frozen=True)
class Detected:
    """A file's format, with the workbook opened to tell it, so that its reader does not open
    the file again."""

    format: Format
    workbook: Any = None
    """The openpyxl read-only workbook of an .xlsx; None for any other file."""


_HEAD_BYTES = 65_536
"""Bytes looked at to tell what a file over the size limit is, before refusing it."""
_KUBECTL_KIND = re.compile(r'"?kind"?\s*:\s*"?(Pod|Node)"?\s*[,}\n]')
_LAST_APPLIED = (
    "jq 'del(.items[].metadata.annotations[\"kubectl.kubernetes.io/"
    "last-applied-configuration\"], .items[].metadata.managedFields)'"
)
"""The bytes of kubectl output the planner never reads: each object's last-applied copy of
itself (often most of a large cluster's output) and its field-ownership records."""


def _refuse_large(file: str, data: bytes) -> None:
    """Refuse a file over its size limit before reading it, with the fix of its kind: kubectl
    output has no rows or count column to cut, but its last-applied copies can go. kubectl's
    JSON has a limit of its own (``MAX_KUBECTL_JSON_MB``), every other file ``MAX_FILE_MB``."""
    if len(data) <= MAX_FILE_MB * 1024 * 1024:
        return
    # UTF-16 output (Windows PowerShell) reads as text once its zero bytes are gone.
    head = data[:_HEAD_BYTES].replace(b"\x00", b"").decode("utf-8", "ignore").lstrip("\ufeff \r\n")
    as_json = head.startswith(("{", "["))
    kubectl = as_json or _YAML_START.match(head) is not None
    if not (kubectl and "apiVersion" in head):
        refuse_large_file(file, len(data))
        return
    if as_json and len(data) <= MAX_KUBECTL_JSON_MB * 1024 * 1024:
        return
    kind = _KUBECTL_KIND.search(head)
    if kind is not None and kind[1] == "Node":
        command, saved, part = "kubectl get nodes -o json", "nodes.json", "-l LABEL"
    else:
        command, saved, part = "kubectl get pods -A -o json", "pods.json", "-n NAMESPACE, -l LABEL"
    refuse_large_file(
        file,
        len(data),
        limit_mb=MAX_KUBECTL_JSON_MB if as_json else MAX_FILE_MB,
        fix="leave out what the plan does not read, kubectl's last-applied copy of each "
        f"object: {command} | {_LAST_APPLIED} > {saved} (as JSON, which jq writes and is read "
        f"up to {MAX_KUBECTL_JSON_MB} MB); or give a part per file ({part})",
    )


def detect_file(file: str, data: bytes, *, role: Role | None = None) -> Detected:
    """The format of a file, from its content, with the workbook of an .xlsx opened once (for
    its reader to use). Raises as ``detect_format``."""
    _refuse_large(file, data)
    if is_workbook(data):
        from planner.inputs.importers.sheets import workbook_sheets

        book = workbook_sheets(data, file, "give the workbook as saved (.xlsx)")
        return Detected(_workbook_format(book, file, role), book)
    return Detected(detect_format(file, data, role=role))


def detect_format(file: str, data: bytes, *, role: Role | None = None) -> Format:
    """The format of a file, from its content.

    ``role`` only words the refusal (the formats listed are those of the role). Raises
    ``InputError`` naming the known formats when the content matches none, and a file over
    its size limit (``MAX_FILE_MB``; kubectl's JSON ``MAX_KUBECTL_JSON_MB``) before reading it.
    """
    _refuse_large(file, data)
    if is_workbook(data):
        return detect_file(file, data, role=role).format
    if data.startswith(COMPOUND_FILE):
        from planner.inputs.importers.sheets import refuse_encrypted_workbook

        refuse_encrypted_workbook(data, file)
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "an Excel 97-2003 workbook (.xls), which is not read",
                    "open it in Excel and save it as an Excel Workbook (.xlsx)",
                )
            ]
        )
    text = tool_text(data, file)
    lines = [line for _, line in text.lines]
    if not lines:
        raise _refuse(file, "the file is empty", role)
    prefixed = _host_prefixed_format(text, role)
    if prefixed is not None:
        return prefixed
    _refuse_kubectl_messages(text)
    if lines[0].lstrip().startswith(("{", "[")) or _YAML_START.match(lines[0]):
        return _kube_format(data, file, role)
    header = _csv_header(text)
    found = None if header is None else _csv_format(_titled(text, header))
    if found is not None:
        return found
    _refuse_plan_results(file, header, role)
    _refuse_trace(file, data, role)
    found = _text_format(lines)
    if found is not None:
        return found
    if _LIST_LINE.match(lines[0]):
        return Format.NVIDIA_SMI_LIST
    if any("NVSMI LOG" in line or "<nvidia_smi_log" in line for line in lines[:5]):
        return Format.NVIDIA_SMI_REPORT
    table = _table_lines(text, header)
    if is_headerless_query(table) and not any(_TOOL_ERROR.search(line) for line in lines[:5]):
        return Format.NVIDIA_SMI_QUERY
    unread = _unread_output(lines, header)
    if unread is not None:
        raise InputError([InputProblem(file, None, None, *unread)])
    (unknown,) = _refuse(file, "cannot tell which tool wrote this file", role).problems
    fix = f"{unknown.fix}; or, from a plan workbook, {_PLAN_SHEETS}"
    raise UnknownFormatError([dataclasses.replace(unknown, fix=fix)])


_PLAN_SHEETS = (
    "its Inventory or Workloads sheet saved as CSV (open that sheet, then File > Save As > CSV)"
)
"""The sheets of a plan workbook read as CSV, for a file that may be another of its sheets."""
_RESULT_COLUMNS = frozenset({"instance", "gpu_index"})
"""Columns of a plan's results, one row per instance or GPU (the plan workbook's Placement,
Utilisation and Not placed sheets), that no input table has."""


def _refuse_plan_results(file: str, header: CsvHeader | None, role: Role | None) -> None:
    """Refuse a sheet of a plan's results saved as CSV: its ``Host`` and ``GPU model`` columns
    would make it look like an inventory."""
    if header is None or not {normalise_column(c) for c in header.cells} & _RESULT_COLUMNS:
        return
    sheet = {"inventory": "Inventory", "workloads": "Workloads"}.get(str(role))
    raise InputError(
        [
            InputProblem(
                file,
                header.row,
                None,
                "a plan's results saved as CSV (a plan workbook's Placement, Utilisation or "
                "Not placed sheet: one row per instance or GPU), not "
                + (f"{role}" if sheet else "an inventory or workloads"),
                (
                    f"open the plan workbook's {sheet} sheet and save that sheet as CSV (File > "
                    "Save As > CSV), or give the plan workbook (.xlsx) itself"
                    if sheet
                    else f"give the plan workbook (.xlsx) itself, or {_PLAN_SHEETS}"
                ),
            )
        ]
    )


_PER_HOST_READ = (
    Format.NVIDIA_SMI_QUERY,
    Format.NVIDIA_SMI_LIST,
    Format.NVIDIA_SMI_TABLE,
    Format.NVIDIA_SMI_REPORT,
)
"""Formats whose readers take a run of several hosts (pdsh, clush, Ansible) host by host."""


def _host_prefixed_format(text: ToolText, role: Role | None) -> Format | None:
    """The format of a run over several hosts (``text.host_outputs``: pdsh's or clush's host
    prefix, clush's blocks, Ansible's results), from its first host's output; None when the
    file is one host's output, or what the run holds is no known output. Refused when the
    format's reader does not take a run of several hosts, or no host gave output."""
    run = host_outputs(text)
    if run is None:
        return None
    if not run.outputs:
        raise InputError(
            [
                *run.problems,
                InputProblem(
                    text.file,
                    None,
                    None,
                    f"a run over several hosts ({run.tool}) in which no host gave output",
                    "run the command again on hosts where it works and give what it prints",
                ),
            ]
        )
    first = next(part for part in run.outputs.values() if part.lines)
    # A block keeps its rows' numbers (blank rows above it) for a refusal to name them.
    inner = ("\n".join(line for _, line in first.lines) if run.prefixed else first.text).encode()
    try:
        found = detect_format(text.file, inner, role=role)
    except InputError:
        if run.prefixed:
            return None
        raise
    if found in _PER_HOST_READ:
        return found
    raise InputError(
        [
            InputProblem(
                text.file,
                first.lines[0][0],
                None,
                f"{found.label} output of {len(run.outputs)} host(s) gathered by {run.tool}, "
                "which is read host by host only for nvidia-smi --query-gpu, nvidia-smi -L, "
                "nvidia-smi and nvidia-smi -q",
                "give each host's output in its own file named after the host (pdsh's dshbak "
                "-d DIR, or clush's --outdir), or run nvidia-smi --query-gpu=name,memory.total,"
                f"mig.mode.current --format=csv through {run.tool.split()[0]} instead",
            )
        ]
    )


_KUBECTL_MESSAGE = re.compile(
    r"^([IWEF][0-9]{4} [0-9:.]+\s+[0-9]+ [\w.-]+:[0-9]+\] |Warning: |error: |Error from server)"
)
"""A line kubectl writes to its standard error: a log line (``E1128 10:00:00.123456  12345
memcache.go:265] ...``), a warning from the API server, or its error message."""


def _refuse_kubectl_messages(text: ToolText) -> None:
    """Refuse kubectl's own messages saved in front of its output (``2>&1``, or a terminal
    paste), naming the first one's row: the JSON or YAML after them is not cut out, so that
    nothing the user gave is passed over unseen. Output made of such messages alone is
    kubectl's error instead of its output."""
    messages = []
    for number, line in text.lines:
        if not line.strip():
            continue
        if _KUBECTL_MESSAGE.match(line) is None:
            break
        messages.append((number, line.strip()))
    else:
        errors = [(n, m) for n, m in messages if not m.startswith("Warning: ")]
        if errors:
            number, said = next(
                ((n, m) for n, m in errors if m.startswith(("error:", "Error from"))), errors[0]
            )
            raise InputError(
                [
                    InputProblem(
                        text.file,
                        number,
                        None,
                        f"kubectl printed an error instead of its output: {quoted(said[:200])}",
                        "check that kubectl reaches the cluster as a user allowed to list the "
                        "objects (kubectl config current-context; kubectl auth can-i list nodes), "
                        "then run the command again and give what it prints",
                    )
                ]
            )
        return
    if not messages:
        return
    rest = line.lstrip()
    if rest.startswith(("{", "[")):
        form, start, option = "JSON", f"the '{rest[0]}'", "json"
    elif _YAML_START.match(rest):
        form, start, option = "YAML", "its first key", "yaml"
    else:
        return
    kind = _KUBECTL_KIND.search(text.text[:_HEAD_BYTES])
    listed = "nodes" if kind is not None and kind[1] == "Node" else "pods -A"
    saved = listed.split()[0]
    first_row, first = messages[0]
    rows = f"row {first_row}" if len(messages) == 1 else f"rows {first_row}-{messages[-1][0]}"
    raise InputError(
        [
            InputProblem(
                text.file,
                first_row,
                None,
                f"a kubectl error or warning line, not {form}: {quoted(first)} (kubectl writes "
                "its messages among its output when both are saved, 2>&1, or pasted from a "
                "terminal)",
                f"remove {rows}, the lines before {start}, or save only kubectl's output: "
                f"kubectl get {listed} -o {option} > {saved}.{option} 2>/dev/null",
            )
        ]
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
"""A terminal's escape sequence (underline, colour), which ``nvidia-smi topo -m`` prints around
its header."""
_TOPOLOGY = re.compile(r"^\s*GPU0\s.*\bCPU Affinity\b")
_SMI_MONITOR = re.compile(r"^#\s*gpu\s+(?P<first>\w+)")
_DCGMI_MONITOR = re.compile(r"^#\s*Entity\s+\w+")
_TEGRASTATS = re.compile(r"\bRAM [0-9]+/[0-9]+MB\b.*\b(GR3D_FREQ|EMC_FREQ)\b")
_PLAYBOOK = re.compile(r"^(PLAY|TASK) \[.*\]\s*\**\s*$")
"""A play's or a task's heading in ansible-playbook's output: ``TASK [nvidia-smi] ****``."""
_FOR_HOSTS = (
    "for the GPU hosts, run nvidia-smi --query-gpu=name,memory.total,mig.mode.current "
    "--format=csv (or nvidia-smi -L) on each host and give what it prints"
)
_FOR_USE = (
    "for how busy the workloads keep their GPUs, give dcgm-exporter's metrics: curl "
    "<exporter>:9400/metrics > dcgm.prom"
)


_METRIC_SERIES = re.compile(r"^\s*(?P<metric>[A-Za-z_:][\w:]*)\s*\{")
"""A column Grafana names after a series: the metric, then its labels
(``DCGM_FI_DEV_GPU_UTIL{pod="a"}``)."""


def _grafana_export(header: CsvHeader) -> tuple[str, str] | None:
    """(message, fix) for a Grafana panel's CSV export (Inspect > Data > Download CSV): a
    ``Time`` column and a column per series (``Series joined by time``), or ``Series``, ``Time``,
    ``Value`` rows. Neither is read: a series keeps only the labels its legend or query kept,
    seldom the GPU's (``gpu``, ``UUID``, ``Hostname``), and its values are the panel's, not the
    exporter's samples."""
    cells = [c.strip().strip('"').strip() for c in header.cells]
    lowered = [c.lower() for c in cells]
    if lowered == ["series", "time", "value"]:
        layout = "one row per series and time"
        metrics: list[str] = []
    elif len(cells) > 1 and lowered[0] == "time":
        metrics = [m.group("metric") for c in cells[1:] if (m := _METRIC_SERIES.match(c))]
        if not metrics:
            return None
        layout = "a column per series, a row per time"
    else:
        return None
    names = sorted(set(metrics))
    of = f" of {', '.join(names[:3])}{' ...' if len(names) > 3 else ''}" if names else ""
    return (
        f"a Grafana CSV export{of} ({layout}), which is not read: its series keep only the "
        "labels the panel kept, not each GPU's (gpu, UUID, Hostname), and hold the panel's "
        "values, not the exporter's samples",
        "give dcgm-exporter's own text: curl <exporter>:9400/metrics > dcgm.prom, or through "
        "Prometheus: curl -g '<prometheus>:9090/federate?match[]={__name__=~\"DCGM_FI_.*\"}' "
        "> dcgm.prom; and give that file",
    )


def _monitor_output(lines: list[str]) -> tuple[str, str] | None:
    """(message, fix) for output of NVIDIA's monitoring commands, which sample how the GPUs are
    used or show how they connect but do not name the GPU models the plan needs."""
    head = [_ANSI.sub("", line) for line in lines[:3]]
    if any(_TOPOLOGY.match(line) for line in head):
        return (
            "nvidia-smi topo -m output (how the GPUs, NICs and CPUs connect), which names no "
            "GPU model or memory and is not read",
            _FOR_HOSTS,
        )
    monitor = _SMI_MONITOR.match(head[0])
    if monitor is not None:
        command = "pmon" if monitor.group("first").lower() == "pid" else "dmon"
        return (
            f"nvidia-smi {command} output (samples of each GPU's use), which names no GPU model "
            "and is not read",
            f"{_FOR_HOSTS}; {_FOR_USE}",
        )
    if _DCGMI_MONITOR.match(head[0]):
        return (
            "dcgmi dmon output (samples of DCGM fields per GPU), which names no GPU model and "
            "is not read: DCGM's fields are read from dcgm-exporter's metrics",
            f"{_FOR_USE}; {_FOR_HOSTS}",
        )
    if any(_OLD_DCGM.match(line.strip()) for line in lines):
        return (
            "DCGM exporter metrics under their 1.x names (dcgm_gpu_utilization, dcgm_fb_used, "
            "as NVIDIA's gpu-monitoring-tools wrote them), which are not read",
            "give them under their current names (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED), "
            "as dcgm-exporter 2.0 or later writes them (NVIDIA's GPU Operator runs it): curl "
            "<exporter>:9400/metrics > dcgm.prom",
        )
    if any(_TEGRASTATS.search(line) for line in head):
        return (
            "tegrastats output of an NVIDIA Jetson module (its memory and load), which is not "
            "read: a Jetson's integrated GPU shares the module's memory and is not a server GPU "
            "the planner shares",
            "give nvidia-smi output of the GPU servers to plan; to plan this module anyway, add "
            "its GPU as your own model (--catalog-extra) and give it in an inventory CSV",
        )
    return None


_KUBECTL_TABLE_COLUMNS = frozenset(
    {
        "NAME",
        "NAMESPACE",
        "STATUS",
        "ROLES",
        "AGE",
        "VERSION",
        "INTERNAL-IP",
        "EXTERNAL-IP",
        "OS-IMAGE",
        "KERNEL-VERSION",
        "CONTAINER-RUNTIME",
        "READY",
        "RESTARTS",
        "IP",
        "NODE",
        "NOMINATED",
        "READINESS",
        "GATES",
    }
)
"""The columns of ``kubectl get nodes`` and ``kubectl get pods`` tables (``-o wide`` too);
others are label columns added with ``-L``."""


def _kubectl_table(first: str) -> tuple[str, str] | None:
    """(message, fix) for a kubectl table (``kubectl get nodes``, ``-L LABEL`` columns too)."""
    words = first.split()
    if not (words[:1] in (["NAME"], ["NAMESPACE"]) and {"STATUS", "AGE"} & set(words)):
        return None
    fix = (
        "run the kubectl command with -o json (kubectl get nodes -o json, kubectl get pods -A "
        "-o json)"
    )
    labels = [w for w in words if w not in _KUBECTL_TABLE_COLUMNS]
    if not labels:
        return "kubectl's table output, which has no GPU, CPU or memory figures", fix
    return (
        f"kubectl's table output with label columns ({', '.join(labels[:6])}, from -L), which "
        "is not read: a label column shows the label's last part only, and the table has no CPU "
        "or memory figures",
        f"{fix}: its labels give the GPU model and count",
    )


def _unread_output(lines: list[str], header: CsvHeader | None) -> tuple[str, str] | None:
    """(message, fix) for output of a known tool that the importers do not read: a tool's error
    instead of its output, or a format of it that lacks what the planner needs. ``header``:
    the lines' header read as CSV (``_csv_header``)."""
    first = lines[0].strip()
    for line in lines[:5]:
        error = _TOOL_ERROR.search(line)
        if error is not None:
            return (
                f"nvidia-smi printed an error instead of its output: '{line.strip()[:120]}'",
                "run it again on a host where the NVIDIA driver works (as root if it asks for "
                "permissions) and give what it prints",
            )
        if line.strip().startswith("No GPU instances found"):
            return (
                "nvidia-smi mig -lgi found no GPU instance: MIG mode is on but no GPU is split",
                "create the GPU instances first, or give nvidia-smi -L or nvidia-smi output for "
                "the GPUs",
            )
    if first.startswith("No resources found"):
        return (
            f"kubectl found nothing to list ('{first[:120]}')",
            f"{_EMPTY_LIST_FIX['workloads']}; for nodes, {_EMPTY_LIST_FIX['inventory']}",
        )
    if first.startswith("<"):
        return (
            "XML, but not nvidia-smi -q -x's report (no <nvidia_smi_log>)",
            "give nvidia-smi -q -x or nvidia-smi -q output unchanged",
        )
    compute = _mig_compute_instances(lines)
    if compute is not None:
        return compute
    described = _kubectl_describe(lines)
    if described is not None:
        return described
    rvtools_tab = None if header is None else _rvtools_vm_tab(header)
    if rvtools_tab is not None:
        return rvtools_tab
    grafana = None if header is None else _grafana_export(header)
    if grafana is not None:
        return grafana
    monitor = _monitor_output(lines)
    if monitor is not None:
        return monitor
    if any(_PLAYBOOK.match(line) for line in lines[:5]):
        return (
            "ansible-playbook output (PLAY and TASK lines), which is not read: the hosts' output "
            "stands in it as JSON strings",
            "run the command ad hoc and give what it prints, a block per host read host by "
            "host: ansible GROUP -a 'nvidia-smi -L' > gpus.txt",
        )
    return _kubectl_table(first)


def _mig_compute_instances(lines: list[str]) -> tuple[str, str] | None:
    """(message, fix) for ``nvidia-smi mig -lci`` or ``-lcip`` output: the compute instances
    inside the GPU instances, or the profiles for them, which name no GPU model and leave the
    GPU instances (what a MIG plan places) unsaid."""
    for line in lines[:5]:
        cell = line.strip().strip("|").strip()
        if cell.startswith("Compute instances:"):
            return (
                "nvidia-smi mig -lci output (the compute instances inside each GPU instance), "
                "which names no GPU model and is not read",
                "for the MIG instances in place, give nvidia-smi mig -lgi, with nvidia-smi -L "
                "(or --query-gpu=name,memory.total,mig.mode.current --format=csv) for the GPUs",
            )
        if cell.startswith("Compute instance profiles:"):
            return (
                "nvidia-smi mig -lcip output (the compute instance profiles of each GPU "
                "instance), which names no GPU model and is not read",
                "for the profiles the GPUs offer, give nvidia-smi mig -lgip, with nvidia-smi -L "
                "(or --query-gpu=name,memory.total,mig.mode.current --format=csv) for the GPUs",
            )
    return None


_DESCRIBE_NAME = re.compile(r"^Name:\s+\S")
_DESCRIBE_LINES = 30
"""Lines of ``kubectl describe`` looked at for the labels that tell nodes from pods."""


def _kubectl_describe(lines: list[str]) -> tuple[str, str] | None:
    """(message, fix) for ``kubectl describe nodes`` or ``pods``: text laid out for reading, whose
    figures kubectl's JSON gives in full."""
    if not _DESCRIBE_NAME.match(lines[0]):
        return None
    labels = {line.split(":", 1)[0] for line in lines[:_DESCRIBE_LINES] if ":" in line}
    if {"Roles", "Capacity", "Allocatable"} & labels and "Namespace" not in labels:
        return (
            "kubectl describe nodes output, which is not read",
            "run kubectl get nodes -o json and give what it prints",
        )
    if "Namespace" in labels and {"Containers", "Node", "Status"} & labels:
        return (
            "kubectl describe pods output, which is not read",
            "run kubectl get pods -A -o json and give what it prints",
        )
    return None


def _rvtools_vm_tab(header: CsvHeader) -> tuple[str, str] | None:
    """(message, fix) for an RVTools tab of VMs (vInfo, vCPU, vMemory, ...) saved as CSV: the
    hosts are in its vHost tab."""
    cells = {normalise_column(c) for c in header.cells}
    if not {"vm", "powerstate"} <= cells:
        return None
    return (
        "an RVTools tab of virtual machines (one row per VM) saved as CSV; the hosts are in "
        "its vHost tab",
        "give the whole RVTools export (.xlsx), or its vHost tab saved as CSV",
    )


def _refuse_trace(file: str, data: bytes, role: Role | None) -> None:
    """Refuse a list of Alibaba's GPU-sharing trace, naming how it is read instead."""
    problem = trace_list_problem(file, data, role, among_others=True)
    if problem is not None:
        raise InputError([problem])


def trace_list_problem(
    file: str, data: bytes, role: Role | None, *, among_others: bool
) -> InputProblem | None:
    """Why a list of Alibaba's GPU-sharing trace cannot be imported as ``role``: it is the other
    role's list, or it is given ``among_others`` (it is read on its own); None when it is no
    trace list or can be."""
    from planner.inputs import alibaba_trace

    lists = (
        (alibaba_trace.is_node_list, "inventory", "node list (hosts)", "Inventory"),
        (alibaba_trace.is_pod_list, "workloads", "pod list (workloads)", "Workloads"),
    )
    for is_list, kind, what, page in lists:
        if not is_list(data):
            continue
        option = f"--{kind}"
        if role in ("inventory", "workloads") and role != kind:
            return InputProblem(
                file,
                None,
                None,
                f"a {what} of Alibaba's GPU-sharing trace (openb), not {role}",
                f"give it with {option}: python -m planner plan {option} {file}, or upload it "
                f"on the dashboard's {page} page",
            )
        if among_others:
            return InputProblem(
                file,
                None,
                None,
                f"a {what} of Alibaba's GPU-sharing trace (openb), which is read on its own, "
                "not among other files",
                f"give it alone: python -m planner plan {option} {file}, or upload it alone on "
                f"the dashboard's {page} page",
            )
        return None
    return None


def _workbook_format(book: Any, file: str, role: Role | None) -> Format:
    """The format of an opened Excel workbook, from its sheet names."""
    names = [n.strip().lower() for n in book.sheetnames]
    if PLAN_INPUTS_SHEET.lower() in names:
        return Format.PLAN_WORKBOOK
    if "vhost" in names:
        return Format.RVTOOLS
    sheets = ", ".join(quoted(name) for name in book.sheetnames)
    known = known_formats(role)
    raise InputError(
        [
            InputProblem(
                file,
                None,
                None,
                "an Excel workbook with neither a vHost tab (RVTools) nor a 'Planner inputs' "
                f"sheet (a plan workbook); its sheets: {sheets}",
                "a table typed in Excel is read as CSV: open its sheet, use File > Save As > "
                f"CSV UTF-8 and upload the .csv; or give one of: {known}",
            )
        ]
    )


def _text_format(lines: list[str]) -> Format | None:
    """The format of a tool's text output, from the first line that tells, or None."""
    for line in lines:
        stripped = line.strip()
        if _DCGM.match(stripped):
            return Format.DCGM
        cell = stripped.strip("|").strip()
        if cell.startswith("GPU instances:"):
            return Format.MIG_INSTANCES
        if cell.startswith("GPU instance profiles:"):
            return Format.MIG_PROFILES
        if _TABLE_BANNER.search(stripped) or _TABLE_GPU_HEADER.match(stripped):
            return Format.NVIDIA_SMI_TABLE
    return None


def _kube_format(data: bytes, file: str, role: Role | None) -> Format:
    """The format of kubectl's JSON or YAML output (``kube.kube_documents``) from what its
    objects are (``kube.object_kind``): pods when any is a pod, else nodes when any is a node or
    a node's label map. Objects of other kinds only (``kubectl get deployments``) are refused."""
    read = kube_documents(data, file)
    _refuse_prometheus_answer(read.documents, file)
    objects = kube_objects(read.documents)
    if not objects:
        _refuse_empty_list(read.documents, read.form, file, role)
    _refuse_kubectl_error(objects, file)
    found = {object_kind(o, read.form) for o in objects}
    if KubeObject.POD in found and found & {KubeObject.NODE, KubeObject.NODE_LABELS}:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"kubectl's {read.form} output holding both nodes and pods (kubectl get "
                    "nodes,pods): the nodes are the inventory and the pods the workloads, each "
                    "given as its own file",
                    "list them with two commands: kubectl get nodes -o json > nodes.json (the "
                    "inventory) and kubectl get pods -A -o json > pods.json (the workloads)",
                )
            ]
        )
    if KubeObject.POD in found:
        return Format.KUBECTL_PODS
    if found & {KubeObject.NODE, KubeObject.NODE_LABELS}:
        return Format.KUBECTL_NODES
    if all(as_text(o.get("kind")) == RESOURCE_SLICE for o in objects):
        _refuse_resource_slices(read.form, file, role)
    others = sorted({as_text(o.get("kind")) for o in objects} - {""})
    listed = f" (objects of kind {', '.join(others[:3])})" if others else ""
    raise _refuse(file, f"{read.form}, but neither Kubernetes nodes nor pods{listed}", role)


def _refuse_resource_slices(form: str, file: str, role: Role | None) -> None:
    """Refuse ResourceSlices (Kubernetes dynamic resource allocation) as a format of their own:
    they list the nodes' devices, so only the inventory's import reads them
    (``estate``, by ``resource_slices``); given as workloads they are named as an inventory."""
    what = (
        f"kubectl get resourceslices output ({form}): ResourceSlices (Kubernetes dynamic "
        "resource allocation) describe the nodes' devices, the GPUs of an inventory"
    )
    raise InputError(
        [
            InputProblem(
                file,
                None,
                None,
                f"{what}, not workloads" if role == "workloads" else what,
                give_as("inventory")
                + ", beside kubectl get nodes -o json for the nodes' CPU and memory",
            )
        ]
    )


def _refuse_kubectl_error(objects: list[Mapping[str, Any]], file: str) -> None:
    """Refuse kubectl's answer when it is an error (objects of kind ``Status``, such as the 403
    of a user not allowed to list nodes) with kubectl's own message, reason and code."""
    if not objects or any(as_text(o.get("kind")) != "Status" for o in objects):
        return
    status = objects[0]
    said = as_text(status.get("message")) or "no message"
    reason = as_text(status.get("reason"))
    code = as_text(status.get("code"))
    why = ", ".join(p for p in (reason, f"code {code}" if code else "") if p)
    raise InputError(
        [
            InputProblem(
                file,
                None,
                None,
                f"kubectl's answer is an error, not a list: {quoted(said[:200])}"
                + (f" ({why})" if why else ""),
                "run kubectl as a user allowed to list the objects (kubectl auth can-i list "
                "nodes; kubectl auth can-i list pods -A) and give its output",
            )
        ]
    )


def _refuse_empty_list(documents: list[Any], form: str, file: str, role: Role | None) -> None:
    """Refuse kubectl's output of an empty list (``{"kind": "List", "items": []}``, what
    ``kubectl get pods -o json`` writes for a namespace without pods): it is kubectl's output,
    of nothing, which says more than 'neither nodes nor pods'. ``form``: JSON or YAML."""
    kinds = [
        as_text(d.get("kind")) or "List"
        for d in documents
        if isinstance(d, dict) and list_items(d) == []
    ]
    if not kinds:
        return
    fix = _EMPTY_LIST_FIX.get(str(role)) or (
        f"{_EMPTY_LIST_FIX['inventory']}; for workloads, {_EMPTY_LIST_FIX['workloads']}"
    )
    raise InputError(
        [
            InputProblem(
                file,
                None,
                None,
                f"kubectl's {form} output of an empty list (kind "
                f"{', '.join(dict.fromkeys(kinds))}, no items): the cluster or namespace queried "
                "has no such objects",
                fix,
            )
        ]
    )


def _refuse_prometheus_answer(documents: list[Any], file: str) -> None:
    """Refuse an answer of Prometheus' HTTP API (``/api/v1/query``: ``{"status": ...,
    "data": {"resultType": ..., "result": [...]}}``), naming the metrics it holds: its samples
    are one value per series at one instant (or a range), where the DCGM importer reads the
    exporter's own scrape, with its HELP and TYPE lines and every field of the GPU."""
    for document in documents:
        answer = document.get("data") if isinstance(document, dict) else None
        if not (isinstance(answer, dict) and "resultType" in answer):
            continue
        result = answer.get("result")
        series = result if isinstance(result, list) else []
        names = sorted(
            {
                str(s["metric"].get("__name__", ""))
                for s in series
                if isinstance(s, dict) and isinstance(s.get("metric"), dict)
            }
            - {""}
        )
        held = f" of {', '.join(names[:3])}" + (" ..." if len(names) > 3 else "") if names else ""
        dcgm = any(n.startswith("DCGM_") for n in names)
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    f"a Prometheus HTTP API answer (resultType {answer['resultType']}){held}, "
                    "which is not read"
                    + (
                        ": DCGM metrics are read from dcgm-exporter's own /metrics text"
                        if dcgm
                        else ""
                    ),
                    "give dcgm-exporter's scrape as text: curl <exporter>:9400/metrics > "
                    "dcgm.prom, and give that file",
                )
            ]
        )


def _csv_header(text: ToolText) -> CsvHeader | None:
    """The header of ``text`` read as CSV, found as every CSV reader finds it
    (``tabular.csv_header``: below blank lines and Excel's ``sep=;`` line, on the separator
    that line names); None when there is none or it does not split into cells.

    The planner's own CSVs may be separated by semicolons or tabs, as spreadsheets save them
    in some locales (their loaders read them), or by vertical bars (their loaders refuse them
    naming the separator); nvidia-smi's query CSV is comma-separated, or semicolon- or
    tab-separated when a spreadsheet saved it again (its reader reads these too).
    """
    try:
        return csv_header(text.text, text.file, SPREADSHEET_SEPARATORS + "|")
    except InputError:
        return None


def _titled(text: ToolText, header: CsvHeader) -> CsvHeader:
    """The header of a planner CSV below a title (a plan workbook's sheet saved as CSV with
    rows above its table, ``tabular.header_below_titles``); ``header`` itself when no line
    below holds an inventory's or a workload file's required columns."""
    for columns in (INVENTORY_TABLE, WORKLOAD_TABLE):
        below = header_below_titles(text.text, header, SPREADSHEET_SEPARATORS, columns)
        if below is not None:
            return below
    return header


def _table_lines(text: ToolText, header: CsvHeader | None) -> list[str]:
    """The lines of ``text`` from its header on, as the query CSV's reader reads them: what
    stands above the header (Excel's ``sep=`` line, blank rows of separators) is no row. All
    the lines when there is no header."""
    start = 1 if header is None else header.row
    return [line for number, line in text.lines if number >= start]


def _csv_format(header: CsvHeader) -> Format | None:
    """The format of a CSV file from its header, or None when it is no CSV the planner knows."""
    from planner.inputs.importers.rvtools import is_vhost_csv

    cells = header.cells
    if is_vhost_csv(cells):
        return Format.RVTOOLS
    columns = set(column_names(cells, _SHEET_HEADERS))
    if columns & _RESULT_COLUMNS:
        return None
    if {"host", "gpu_model"} <= columns:
        return Format.INVENTORY_CSV
    if {"name", "kind", "instances"} <= columns:
        return Format.WORKLOADS_CSV
    inventory, workloads = len(columns & _INVENTORY_ONLY), len(columns & _WORKLOADS_ONLY)
    if max(inventory, workloads) >= _PLANNER_MATCH:
        return Format.INVENTORY_CSV if inventory >= workloads else Format.WORKLOADS_CSV
    if header.separator == "|":
        return None
    written = [c.strip().lower() for c in cells]
    fields = [re.sub(r"\s*\[.*$", "", f) for f in written]
    # A field of nvidia-smi's own (dotted, or one the importer knows) tells a query CSV from
    # another CSV that shares only 'name' or 'count' with it.
    specific = any("." in f or f in _QUERY_KNOWN - _QUERY_NAMES for f in fields)
    names_only = bool(fields) and set(fields) <= _QUERY_NAMES and fields != ["count"]
    if all(_QUERY_FIELD.match(f) for f in written) and (specific or names_only):
        return Format.NVIDIA_SMI_QUERY
    return None
