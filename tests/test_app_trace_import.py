"""AppTest of Alibaba GPU-sharing trace lists imported on the Inventory and Workloads pages: a
node list becomes the inventory and a pod list the workload mix, each read by the trace's loader
(as the command line reads them), with what was assumed and every refused row listed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from planner.inputs import alibaba_trace
from planner.inputs.importers import sheets

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")

NODES = (
    b"sn,cpu_milli,memory_mib,gpu,model\n"
    b"node-0,64000,262144,2,T4\n"
    b"node-1,96000,393216,8,G2\n"
    b"node-2,32000,131072,many,T4\n"
)
"""Two usable nodes (one of a model the catalog lacks) and one whose GPU count is not a number."""
PODS = (
    b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
    b"pod-0,8000,16384,1,500,\n"
    b"pod-1,8000,16384,1,500,\n"
    b"pod-2,16000,65536,2,1000,G2\n"
    b"pod-3,4000,8192,0,0,\n"
    b"pod-4,4000,8192,2,300,\n"
)
"""Two identical half-GPU pods, a 2-GPU pod that may only use G2, a pod without GPU and a pod
asking 300 thousandths of each of 2 GPUs (refused: a share is of one GPU only)."""


def _page(path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page(path).run()


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _problems(at: AppTest) -> pd.DataFrame:
    return next(df.value for df in at.dataframe if "problem" in df.value.columns)


def _upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    return at.file_uploader(key=key).set_value((name, data, "text/csv")).run()


def test_a_node_list_waits_with_its_assumptions_and_bad_rows_then_is_the_inventory() -> None:
    """A node list is read as the trace's, says what it assumed (the model G2 the catalog lacks,
    to be given on this page's own-GPU section, not with a command-line option; the cluster no
    column gives) and lists the refused row with file, row, column and why; it
    waits for Apply, and then its 2 usable nodes are the inventory, the notes still shown."""
    at = _page("ui/pages/inventory.py")
    _upload(at, "inventory_upload", "nodes.csv", NODES)
    assert not at.exception
    assert any("read as Alibaba GPU-sharing trace node list" in c.value for c in at.caption)
    assert at.subheader[0].value == "In use: the bundled sample"
    summary = "\n".join(m.value for m in at.markdown)
    assert "GPU model 'G2' (1 node, first on row 3) is not in the catalog" in summary
    assert "give it as your own GPU model (Inventory page: Add your own GPU models)" in summary
    assert "--catalog-extra" not in summary
    assert "cluster assumed = openb" in summary
    (refused,) = _problems(at).to_dict("records")
    assert (refused["file"], refused["row"], refused["column"]) == ("nodes.csv", 4, "gpu")
    assert _metric(at, "Hosts kept") == "2"
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: nodes.csv"
    assert _metric(at, "Hosts") == "2"
    assert _metric(at, "GPUs") == "10"
    assert any("G2" in i.value and "guesses" in i.value for i in at.info)
    assert any("1 problem in nodes.csv; 1 row was skipped" in w.value for w in at.warning)


def test_a_pod_list_on_an_inventory_without_its_nodes_says_what_that_changes() -> None:
    """On the sample inventory a pod list is read, with a warning that it is planned on the
    trace's nodes: the pod that may only use G2 (which the sample lacks) is listed as left out,
    and so is the pod asking a share of 2 GPUs; once applied, its classes are shown read-only,
    the pods without GPU among them, and no editor offers to rewrite the mix without them."""
    at = _page("ui/pages/workloads.py")
    _upload(at, "workloads_upload", "pods.csv", PODS)
    assert not at.exception
    assert any("read as Alibaba GPU-sharing trace pod list" in c.value for c in at.caption)
    assert any("upload its node list" in w.value for w in at.warning)
    refused = _problems(at)
    assert list(refused["row"]) == [4, 6]
    assert list(refused["column"]) == ["gpu_spec", "gpu_milli"]
    assert "which no node has" in refused.iloc[0]["problem"]
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: pods.csv"
    assert any("upload its node list" in w.value for w in at.warning)
    assert _metric(at, "Workload classes") == "1"
    assert _metric(at, "Instances") == "2"
    classes = next(df.value for df in at.dataframe if "memory_share" in df.value.columns)
    assert sorted(classes["gpus"]) == [0.0, 0.5]
    assert not [b for b in at.button if b.key == "workloads_apply"]


def test_a_pod_list_without_gpu_pods_says_what_to_do_on_its_own_page() -> None:
    """A pod list whose pods ask for no GPU leaves no class to plan: the warning says so and
    what to do instead, not to add rows and press a button its page does not have."""
    at = _page("ui/pages/workloads.py")
    cpu_pods = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\npod-0,4000,8192,0,0,\n"
    _upload(at, "workloads_upload", "cpu-pods.csv", cpu_pods)
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: cpu-pods.csv"
    (empty,) = [w.value for w in at.warning if "no usable workload class" in w.value]
    assert "none of its pods asks for a GPU" in empty
    assert "Use this mix" not in empty
    assert not [b for b in at.button if b.key == "workloads_apply"]


def _help(at: AppTest, label: str) -> str:
    return next(str(m.proto.help) for m in at.metric if m.label == label)


def test_a_pod_list_on_its_node_list_places_every_pod_it_can() -> None:
    """With the trace's node list in use, the pod that may only use G2 is read (its model is on
    a node) and no warning asks for the node list. The review counts the classes the Workloads
    page then counts, those that use a GPU, and both say the class of pods without GPU apart."""
    at = _page("ui/pages/inventory.py")
    _upload(at, "inventory_upload", "nodes.csv", NODES)
    assert _metric(at, "GPUs after") == "10"
    at.button(key="inventory_upload_apply").click().run()
    at.switch_page("ui/pages/workloads.py").run()
    _upload(at, "workloads_upload", "pods.csv", PODS)
    assert not at.exception
    assert not any("upload its node list" in w.value for w in at.warning)
    assert list(_problems(at)["row"]) == [6]
    assert _metric(at, "Classes kept") == "2"
    assert "1 class of pods without GPU (1 pod)" in _help(at, "Classes kept")
    assert _metric(at, "GPUs requested after") == "3"
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    assert _metric(at, "Workload classes") == "2"
    assert "1 class of pods without GPU (1 pod)" in _help(at, "Workload classes")
    assert _metric(at, "Instances") == "3"


def test_a_list_on_the_other_page_is_refused_naming_the_page_it_belongs_to() -> None:
    """A node list uploaded as workloads cannot be used: the error names the Inventory page,
    nothing waits for Apply, and the mix in use stays."""
    at = _page("ui/pages/workloads.py")
    _upload(at, "workloads_upload", "nodes.csv", NODES)
    assert not at.exception
    assert any("nodes.csv cannot be used" in e.value for e in at.error)
    (refused,) = _problems(at).to_dict("records")
    assert refused["fix"].endswith("or upload it on the dashboard's Inventory page")
    assert "not workloads" in refused["problem"]
    assert not [b for b in at.button if b.key == "workloads_upload_apply"]
    assert at.subheader[0].value == "In use: sample workloads.csv"


def _trace_workbook() -> bytes:
    """The plan workbook of NODES and PODS, as the Compare page's download writes it."""
    from planner.inputs.catalog import load_catalog
    from planner.methods.registry import Method
    from planner.output.export import workbook_bytes
    from planner.output.report import plan_scenario
    from planner.scenario import load_scenario

    scenario = load_scenario(("nodes.csv", NODES), ("pods.csv", PODS), load_catalog()).value
    plan = plan_scenario(scenario, methods=(Method.PASSTHROUGH,))
    return workbook_bytes(plan, given={"inventory.csv": NODES, "workloads.csv": PODS})


def test_the_workbook_of_a_trace_plan_restores_the_whole_plan() -> None:
    """A trace plan's workbook uploaded on the Inventory page offers to restore the whole plan
    (its node list shown as what applying the inventory alone would plan on); restored, the
    node list and the pod list are in use again, read by the trace's loader."""
    at = _page("ui/pages/inventory.py")
    workbook = _trace_workbook()
    at.file_uploader(key="inventory_upload").set_value(
        ("plan.xlsx", workbook, "application/octet-stream")
    ).run()
    assert not at.exception
    assert not at.error
    assert any("read as Alibaba GPU-sharing trace node list" in c.value for c in at.caption)
    at.button(key="inventory_upload_restore").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: plan.xlsx inventory"
    assert _metric(at, "Hosts") == "2"
    at.switch_page("ui/pages/workloads.py").run()
    assert not at.exception
    assert at.subheader[0].value == "In use: plan.xlsx workloads"
    assert _metric(at, "Workload classes") == "2"
    assert _metric(at, "Instances") == "3"


def test_a_trace_list_waiting_for_apply_is_not_read_again_on_a_rerun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a pod list, or a trace plan's workbook, waits for Apply, a rerun that changes
    nothing reads neither again: no workbook is opened and the trace's loader is not called,
    and the review shows the same classes or hosts."""
    calls: Counter[str] = Counter()

    def counted(name: str, module: Any) -> None:
        function: Callable[..., Any] = getattr(module, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        monkeypatch.setattr(module, name, call)

    for name in ("load_node_list", "load_pod_list"):
        counted(name, alibaba_trace)
    counted("load_workbook", sheets)
    for page, key, name, data in (
        ("ui/pages/workloads.py", "workloads_upload", "pods.csv", PODS),
        ("ui/pages/inventory.py", "inventory_upload", "plan.xlsx", _trace_workbook()),
    ):
        at = _page(page)
        at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
        assert not at.exception
        kept = _metric(at, "Classes kept" if key == "workloads_upload" else "Hosts kept")
        before = calls.copy()
        at.run()
        at.run()
        assert not at.exception
        assert calls == before, name
        assert _metric(at, "Classes kept" if key == "workloads_upload" else "Hosts kept") == kept
