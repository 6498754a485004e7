"""AppTest of the import panel (``ui/importing.py``) on the Inventory and Workloads pages: tool
outputs reviewed then applied, kubectl pods as workload classes, a plan workbook restored."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from importer_samples import (
    CATALOG,
    NVIDIA_SMI_LIST,
    container,
    count_workbook_opens,
    kube_list,
    node,
    pod,
    sample,
)
from openpyxl import Workbook, load_workbook
from streamlit.testing.v1 import AppTest

from planner.assumptions import Assumptions
from planner.inputs.importers import detect, write_inputs_sheet
from planner.inputs.inventory import load_inventory
from planner.inputs.workloads import load_workloads
from planner.scenario import Scenario

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _page(path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page(path).run()


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_a_tool_output_is_reviewed_with_its_assumed_values_then_applied() -> None:
    """``nvidia-smi -L`` names no CPU or memory: the panel says the file was read as nvidia-smi
    -L, lists the assumed values (a dash where a note has no line), and waits; applied, its host
    and 8 GPUs are in use."""
    name, data = sample(NVIDIA_SMI_LIST)
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value((name, data, "text/plain")).run()
    assert not at.exception
    assert at.subheader[0].value == "In use: the bundled sample"
    assert any("read as nvidia-smi -L" in c.value for c in at.caption)
    table = next(df for df in at.dataframe if "source" in df.value.columns)
    notes = table.value
    assert set(notes["source"]) == {"assumed"}
    assert "cpu_cores" in set(notes["field"])
    # A note without a line would show a dash, not the grid's grey "None".
    assert table.proto.placeholder == "–"
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == f"In use: {name}"
    assert _metric(at, "GPUs") == "8"
    assert _metric(at, "Hosts with MIG on") == "1"


def test_kubectl_pods_become_workload_classes() -> None:
    """Two pods of one StatefulSet asking one GPU each are one class of 2 instances, in use once
    applied and shown in the editor."""
    pods = kube_list(
        *(
            pod(
                f"chat-{i}",
                owner=("StatefulSet", "chat"),
                containers=[
                    container(
                        limits={"nvidia.com/gpu": "1"}, requests={"cpu": "4", "memory": "16Gi"}
                    )
                ],
            )
            for i in range(2)
        )
    )
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(("pods.json", pods, "application/json"))
    at.run()
    assert not at.exception
    assert any("read as kubectl get pods" in c.value for c in at.caption)
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: pods.json"
    assert _metric(at, "Workload classes") == "1"
    assert _metric(at, "Instances") == "2"


@pytest.mark.parametrize(
    ("page", "key", "file"),
    [
        (
            "ui/pages/inventory.py",
            "inventory_upload",
            (
                "lab.csv",
                b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"
                b"lab-1,lab,L40S,4,64,512,100,yes,1\n",
            ),
        ),
        (
            "ui/pages/workloads.py",
            "workloads_upload",
            (
                "pods.json",
                kube_list(pod("solo-0", containers=[container(limits={"nvidia.com/gpu": "1"})])),
            ),
        ),
    ],
)
def test_a_lone_text_file_is_detected_once(
    monkeypatch: pytest.MonkeyPatch, page: str, key: str, file: tuple[str, bytes]
) -> None:
    """One text file uploaded has its format detected once, by the importers: the panel's look
    for a plan workbook keeping a trace list does not detect a file that is no workbook."""
    st.cache_data.clear()  # a file an earlier test read would come from the cache, undetected
    detected: list[str] = []
    detect_format = detect.detect_format

    def counted(name: str, data: bytes, **options: Any) -> detect.Format:
        detected.append(name)
        return detect_format(name, data, **options)

    monkeypatch.setattr(detect, "detect_format", counted)
    at = _page(page)
    at.file_uploader(key=key).set_value((*file, "text/plain")).run()
    assert not at.exception
    assert not at.error
    assert detected == [file[0]]


def _plan_workbook(assumptions: Assumptions) -> bytes:
    sample_dir = Path(APP).parent / "data" / "sample"
    scenario = Scenario(
        CATALOG,
        load_inventory((sample_dir / "inventory.csv").read_bytes(), CATALOG).value,
        load_workloads((sample_dir / "workloads.csv").read_bytes(), CATALOG).value[:3],
        assumptions,
    )
    book = Workbook()
    write_inputs_sheet(book, scenario)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_plan_workbook_restores_the_whole_plan_and_undo_brings_the_sample_back() -> None:
    """A plan workbook dropped on the Workloads page offers to restore the whole plan: its
    workloads and its assumptions are in use after the click; Undo returns to the sample."""
    assumptions = Assumptions(licence_usd_per_gpu_year=999.0, max_slowdown=1.2)
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(
        ("plan.xlsx", _plan_workbook(assumptions), "application/octet-stream")
    )
    at.run()
    assert not at.exception
    at.button(key="workloads_upload_restore").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: plan.xlsx workloads"
    assert _metric(at, "Workload classes") == "3"
    restored = at.session_state["_session_scenario_inputs"]
    assert restored.assumptions == assumptions
    at.button(key="workloads_upload_undo").click().run()
    assert at.subheader[0].value == "In use: sample workloads.csv"


def _rvtools() -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "vHost"
    sheet.append(["Host", "Cluster", "# Cores", "# Memory"])
    sheet.append(["esx1.lab", "prod", 48, 524288])
    sheet.append(["esx2.lab", "prod", 48, 524288])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_rvtools_hosts_take_their_gpus_from_the_cluster_the_user_gives() -> None:
    """RVTools has no GPUs: alone it is refused saying so; with prod=L40S:4 given, its two hosts
    have 4 L40S each once applied."""
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value(
        ("export.xlsx", _rvtools(), "application/octet-stream")
    )
    at.run()
    assert not at.exception
    assert any("export.xlsx cannot be used" in e.value for e in at.error)
    at.text_input(key="inventory_upload_cluster_gpus").set_value("prod=L40S:4").run()
    assert not at.exception
    assert not at.error
    at.button(key="inventory_upload_apply").click().run()
    assert at.subheader[0].value == "In use: export.xlsx"
    assert _metric(at, "Hosts") == "2"
    assert _metric(at, "GPUs") == "8"


def test_a_workbook_waiting_for_apply_is_not_opened_again_on_a_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a plan workbook or an RVTools export (its GPUs given) waits for Apply, or an
    unreadable workbook is refused, a rerun that changes nothing opens no workbook: what the
    panel shows stays the same, the refusal's words too."""
    opened = count_workbook_opens(monkeypatch)
    damaged = b"PK\x03\x04 not a workbook"
    cases = (
        ("ui/pages/workloads.py", "workloads_upload", "plan.xlsx", _plan_workbook(Assumptions())),
        ("ui/pages/inventory.py", "inventory_upload", "export.xlsx", _rvtools()),
        ("ui/pages/inventory.py", "inventory_upload", "damaged.xlsx", damaged),
    )
    for page, key, name, data in cases:
        at = _page(page)
        at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
        if name == "export.xlsx":
            at.text_input(key=f"{key}_cluster_gpus").set_value("prod=L40S:4").run()
        assert not at.exception
        shown = ([e.value for e in at.error], [c.value for c in at.caption], len(at.button))
        before = opened[0]
        at.run()
        at.run()
        assert not at.exception
        assert ([e.value for e in at.error], [c.value for c in at.caption], len(at.button)) == (
            shown
        )
        assert opened[0] == before, name
    assert any("damaged.xlsx cannot be used" in e for e in shown[0])


def test_pods_can_be_regrouped_by_a_label() -> None:
    """Pods of two owners sharing the label team=nlp are two classes by owner and one class when
    grouped by team."""
    gpu = container(limits={"nvidia.com/gpu": "1"})
    pods = kube_list(
        pod("a-0", owner=("StatefulSet", "a"), labels={"team": "nlp"}, containers=[gpu]),
        pod("b-0", owner=("StatefulSet", "b"), labels={"team": "nlp"}, containers=[gpu]),
    )
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(("pods.json", pods, "application/json"))
    at.run()
    assert _metric(at, "Classes kept") == "2"
    at.selectbox(key="workloads_upload_group_by").set_value("team").run()
    assert not at.exception
    assert _metric(at, "Classes kept") == "1"


def test_an_import_waiting_for_apply_survives_leaving_the_page() -> None:
    """Leaving the page empties the uploader and the table editor: coming back shows the same
    review, with the table as the user fixed it and the host name typed, still waiting for
    Apply, which then uses the fixes."""
    name, data = sample(NVIDIA_SMI_LIST)
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value((name, data, "text/plain")).run()
    at.text_input(key="inventory_upload_host_name").set_value("gpu-lab-01").run()
    at.session_state["inventory_upload_editor"] = {
        "edited_rows": {"0": {"cluster": "lab"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    at.switch_page("ui/pages/workloads.py").run()
    at.switch_page("ui/pages/inventory.py").run()
    assert not at.exception
    assert any(f"{name} waits for Apply" in i.value for i in at.info)
    table = at.data_editor(key="inventory_upload_editor").value
    assert list(table["cluster"]) == ["lab"]
    assert list(table["host"]) == ["gpu-lab-01"]
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == f"In use: {name}"
    hosts = next(df.value for df in at.get_by_key("inventory_hosts").dataframe)
    assert list(hosts["cluster"]) == ["lab"]
    assert list(hosts["host"]) == ["gpu-lab-01"]
    assert not any("waits for Apply" in i.value for i in at.info)


def test_removing_the_files_from_the_uploader_drops_the_waiting_import() -> None:
    """An upload the user takes out of the uploader is not brought back."""
    name, data = sample(NVIDIA_SMI_LIST)
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value((name, data, "text/plain")).run()
    at.file_uploader(key="inventory_upload").set_value([]).run()
    assert not at.exception
    assert not at.info
    assert "inventory_upload_apply" not in [b.key for b in at.button]


def _problems(at: AppTest) -> pd.DataFrame:
    return next(df.value for df in at.dataframe if "problem" in df.value.columns)


def _gpu_query_csv(gpus_by_host: dict[str, int]) -> bytes:
    """``nvidia-smi --query-gpu=index,name,count,memory.total,hostname --format=csv``: a row per
    GPU."""
    rows = [
        f"{i}, NVIDIA L40S, {gpus}, 46068 MiB, {host}"
        for host, gpus in gpus_by_host.items()
        for i in range(gpus)
    ]
    return "\n".join(["index, name, count, memory.total [MiB], hostname", *rows, ""]).encode()


def test_a_value_the_inventory_refuses_names_the_uploaded_file_and_line() -> None:
    """An nvidia-smi query output listing 65 GPUs on one host (64 at most) is reported at that
    file and line, naming the host, not at a row of an 'imported inventory' the user never
    sees; a value typed over in the review's table is named at the table to fix, by the row
    the editor shows."""
    at = _page("ui/pages/inventory.py")
    data = _gpu_query_csv({"node-a": 65, "node-b": 4})
    at.file_uploader(key="inventory_upload").set_value(("gpus.csv", data, "text/csv")).run()
    assert not at.exception
    (read,) = _problems(at).to_dict("records")
    assert (read["file"], read["row"]) == ("gpus.csv", 2)
    assert read["problem"].startswith("host node-a: gpus_per_host 65 is out of range")
    assert "from 1 to 64" in read["fix"]
    at.session_state["inventory_upload_editor"] = {
        "edited_rows": {"1": {"gpus_per_host": 99}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    problems = _problems(at)
    assert list(problems["file"]) == ["gpus.csv", "table to fix", "table to fix"]
    typed = problems.iloc[1]
    assert (typed["row"], typed["column"]) == (2, "gpus_per_host")
    assert typed["problem"] == "host node-b: gpus_per_host 99 is out of range"
    assert pd.isna(problems.iloc[2]["row"])  # no usable host row left: the table's problem


def test_a_class_the_workload_mix_refuses_names_the_pods_file() -> None:
    """A pod asking 10,000 vCPUs makes a class the workload mix refuses: the panel names the pods
    file and the request, not a row of 'imported workloads'."""
    huge = kube_list(
        pod(
            "p-1",
            containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "10000"})],
        )
    )
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(("pods.json", huge, "application/json"))
    at.run()
    assert not at.exception
    assert any("No row of this import can be used" in e.value for e in at.error)
    problems = _problems(at)
    assert set(problems["file"]) == {"pods.json"}
    first = problems.iloc[0]
    assert first["column"] == "spec.containers[].resources.requests.cpu"
    assert first["problem"].startswith("class p-1: vcpus 10000 is out of range")


def test_the_fix_of_a_file_of_no_known_kind_is_shown_whole() -> None:
    """A file no tool wrote is refused with a fix listing the formats the Inventory page reads
    (not the Workloads page's too); the problem table's rows grow until that fix fits its
    column at about 7 px a character, 21 px a line. It was cut after seven lines."""
    at = _page("ui/pages/inventory.py")
    notes = ("notes.txt", b"hello there\nrandom words\n", "text/plain")
    at.file_uploader(key="inventory_upload").set_value(notes).run()
    assert not at.exception
    table = next(df for df in at.dataframe if "fix" in df.value.columns)
    (fix,) = table.value["fix"]
    assert "kubectl get nodes" in fix
    assert "workload" not in fix
    width = json.loads(table.proto.columns)["fix"]["width"]
    lines = table.proto.row_height // 21
    assert len(fix) <= lines * (width // 7)


@pytest.mark.parametrize("gpus", ["\u00b2", "9" * 5000])
def test_gpus_per_cluster_no_int_reads_are_an_error_on_the_panel(gpus: str) -> None:
    """GPUs typed as ``²`` or 5,000 digits (true of ``str.isdigit``, refused by ``int``) are an
    error naming the field on the panel, not an exception; the export waits for them."""
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value(
        ("export.xlsx", _rvtools(), "application/octet-stream")
    )
    at.run()
    at.text_input(key="inventory_upload_cluster_gpus").set_value(f"prod=L40S:{gpus}").run()
    assert not at.exception
    assert any(
        e.value.startswith("GPUs per cluster: 'prod=L40S:") and "digits 0-9" in e.value
        for e in at.error
    )


def test_a_plan_workbook_giving_an_assumption_twice_is_not_restored_and_says_why() -> None:
    """A plan workbook whose Planner inputs sheet gives pue twice is refused, as kubectl's key
    twice is: no restore is offered, the page says the file cannot be used and lists the problem
    naming the sheet, both rows and both values; the last value was restored without a word."""
    book = load_workbook(io.BytesIO(_plan_workbook(Assumptions())))
    sheet = book["Planner inputs"]
    first = next(r[1].row for r in sheet.iter_rows(min_row=3) if r[1].value == "pue")
    sheet.append(["assumption", "pue", "3.0"])
    out = io.BytesIO()
    book.save(out)
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(
        ("plan.xlsx", out.getvalue(), "application/octet-stream")
    )
    at.run()
    assert not at.exception
    assert "workloads_upload_restore" not in [b.key for b in at.button]
    assert any("plan.xlsx cannot be used" in e.value for e in at.error)
    listed = [
        (row["row"], row["column"], row["problem"])
        for df in at.dataframe
        if "problem" in df.value.columns
        for _, row in df.value.iterrows()
    ]
    assert (
        sheet.max_row,
        "name",
        f"the assumption pue is given twice, on row {first} ('1.5') and on this row ('3.0'): "
        "which value is meant is not known",
    ) in listed
    assert at.session_state["_session_scenario_inputs"].assumptions.pue == Assumptions().pue


def test_a_problem_on_a_gpu_still_counted_is_no_row_skipped_on_the_panel() -> None:
    """nvidia-smi query output whose second GPU's index is '²': both GPUs are counted, the
    problem is listed, and 'Rows skipped' says 0 (it counted every problem as a row)."""
    data = _gpu_query_csv({"gpu-1": 2}).replace(b"1, NVIDIA", "², NVIDIA".encode())
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value(("gpus.csv", data, "text/csv")).run()
    assert not at.exception
    (problem,) = _problems(at).to_dict("records")
    assert (problem["row"], problem["column"]) == (3, "index")
    assert _metric(at, "Rows skipped") == "0"
    assert _metric(at, "GPUs after") == "2"


def test_the_uploaders_take_every_extension_the_readme_commands_write() -> None:
    """Each file the README's import table tells people to write (`> gpu-07.xml`, `-o yaml`) can
    be picked on the Inventory and Workloads pages; a browser greys out any other extension."""
    readme = (Path(APP).parent / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Importing from the tools") :]
    table = table[: table.index("\n## ")]
    written = set(re.findall(r"> [\w<>-]+\.(\w+)", table))
    if "-o yaml" in table:
        written |= {"yaml", "yml"}
    assert {"xml", "yaml", "json", "csv", "prom"} <= written
    for page, key in (
        ("ui/pages/inventory.py", "inventory_upload"),
        ("ui/pages/workloads.py", "workloads_upload"),
    ):
        accepted = {t.removeprefix(".") for t in _page(page).file_uploader(key=key).proto.type}
        assert written <= accepted, f"{page} refuses {sorted(written - accepted)}"


# One GPU measured by DCGM exporter outside Kubernetes: no pod label, so it matches no class.
_DCGM_WITHOUT_PODS = (
    b"# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
    b"# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
    b'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",device="nvidia0",modelName="NVIDIA L4",'
    b'Hostname="edge-1"} 35\n'
)


def test_dcgm_metrics_that_match_no_workload_say_so_before_use() -> None:
    """A workload CSV with DCGM metrics whose series name no pod waits for review, and the
    review says the metrics matched to no workload (as the CLI prints): applied at once, the
    import said nothing and the measurements were silently not used."""
    at = _page("ui/pages/workloads.py")
    csv = (Path(APP).parent / "data" / "sample" / "workloads.csv").read_bytes()
    at.file_uploader(key="workloads_upload").set_value(
        [("workloads.csv", csv, "text/csv"), ("dcgm.prom", _DCGM_WITHOUT_PODS, "text/plain")]
    ).run()
    assert not at.exception
    assert at.button(key="workloads_upload_apply") is not None
    warned = [w.value for w in at.warning if "matched to no workload" in w.value]
    assert len(warned) == 1
    assert warned[0].startswith("dcgm.prom")


def test_the_undo_of_an_inventory_import_is_offered_on_the_inventory_page_only() -> None:
    """An inventory import's undo is on the Inventory page; the Workloads page, whose mix it did
    not change, offers no 'Undo the import of nodes.csv'."""
    at = _page("ui/pages/inventory.py")
    hosts = (Path(APP).parent / "data" / "sample" / "inventory.csv").read_bytes()
    at.file_uploader(key="inventory_upload").set_value(("nodes.csv", hosts, "text/csv")).run()
    assert not at.exception
    assert at.subheader[0].value == "In use: nodes.csv"
    assert at.button(key="inventory_upload_undo").label == "Undo the import of nodes.csv"
    at = at.switch_page("ui/pages/workloads.py").run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "workloads_upload_undo"]


def test_a_change_of_one_class_is_worded_for_one() -> None:
    """An import keeping one class fewer than the mix in use (the sample's, its last row's
    instances unreadable) shows '-1 class', not '-1 classes'."""
    *rows, last = (Path(APP).parent / "data" / "sample" / "workloads.csv").read_text().splitlines()
    name, kind, _instances, rest = last.split(",", 3)
    fewer = "\n".join([*rows, f"{name},{kind},many,{rest}"]).encode()
    at = _page("ui/pages/workloads.py")
    at.file_uploader(key="workloads_upload").set_value(("fewer.csv", fewer, "text/csv")).run()
    assert not at.exception
    kept = next(m for m in at.metric if m.label == "Classes kept")
    assert kept.delta == "-1 class"


def test_the_workloads_uploader_lists_only_formats_that_give_workloads() -> None:
    """The Workloads uploader names kubectl pods and DCGM, not the host-only nvidia-smi, MIG
    listings or RVTools, which it would refuse."""
    at = _page("ui/pages/workloads.py")
    label = at.file_uploader(key="workloads_upload").label
    assert "DCGM" in label
    assert "kubectl" in label
    for inventory_only in ("nvidia-smi", "MIG", "RVTools"):
        assert inventory_only not in label


def test_pods_on_the_time_sliced_nodes_of_the_inventory_in_use_ask_one_replica_each() -> None:
    """Nodes imported on the Inventory page whose T4 is time-sliced 4 ways, then their pods on
    the Workloads page: the four pods asking nvidia.com/gpu: 1 are read as a quarter of a GPU
    each, by the nodes the inventory in use was imported from (they were four whole T4s)."""
    nodes = kube_list(
        node(
            "gpu-1",
            {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.replicas": "4"},
            extra={"nvidia.com/gpu": "4"},
        )
    )
    pods = kube_list(
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
    at = _page("ui/pages/inventory.py")
    at.file_uploader(key="inventory_upload").set_value(("nodes.json", nodes, "application/json"))
    at.run()
    if at.subheader[0].value != "In use: nodes.json":
        # The import waits for Apply when it assumed values (the node's CPU and memory).
        at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: nodes.json"
    at.switch_page("ui/pages/workloads.py").run()
    at.file_uploader(key="workloads_upload").set_value(("pods.json", pods, "application/json"))
    at.run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "4 pods on nodes that share their GPUs" in said
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    assert _metric(at, "Instances") == "4"
    assert _metric(at, "GPUs requested") == "1.0"
