"""AppTest of the node YAML of Alibaba's GPU-sharing trace (``openb_node_list_gpu_node.yaml``)
imported on the Inventory page: its hosts are those the command line plans (``plan --inventory
FILE.yaml``), the trace's models the catalog lacks added with their figures, before and after
Apply."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.trace_yaml import trace_node, yaml_stream

TIMEOUT_S = 60
WHOLE_TRACE_TIMEOUT_S = 300
APP = str(Path(__file__).resolve().parent.parent / "app.py")
YAML_NAME = "openb_node_list_gpu_node.yaml"
CSV_NAME = "openb_node_list_gpu_node.csv"

Node = tuple[str, str, int, int, int]
"""(name, model label, GPUs, CPU [milli-cores], memory [MiB]), as the trace's node list."""

NODES: tuple[Node, ...] = (
    ("openb-node-0000", "P100", 2, 64000, 262144),
    ("openb-node-0001", "P100", 2, 64000, 262144),
    ("openb-node-0026", "G2", 8, 96000, 786432),
    ("openb-node-0035", "T4", 4, 96000, 393216),
)
"""Two nodes of P100 and one of G2 (trace models the catalog lacks) and one of T4 (a catalog
model)."""
UNKNOWN: Node = ("ali-0", "G9", 2, 64000, 262144)
"""A node labelled with a model neither the catalog's nor the trace's."""


def _yaml(nodes: tuple[Node, ...]) -> bytes:
    return yaml_stream(*(trace_node(*n) for n in nodes))


def _csv(nodes: tuple[Node, ...]) -> bytes:
    rows = [f"{name},{cpu},{memory},{gpus},{model}" for name, model, gpus, cpu, memory in nodes]
    return ("sn,cpu_milli,memory_mib,gpu,model\n" + "\n".join(rows) + "\n").encode()


def _inventory_page(timeout: float = TIMEOUT_S) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout).run()
    return at.switch_page("ui/pages/inventory.py").run()


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    return at.file_uploader(key="inventory_upload").set_value((name, data, "text/plain")).run()


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _problems(at: AppTest) -> pd.DataFrame:
    found = [df.value for df in at.dataframe if "problem" in df.value.columns]
    return found[0] if found else pd.DataFrame(columns=["file", "row", "column", "problem"])


def _own_gpus_in_use(at: AppTest) -> str | None:
    said = [s.value for s in at.success if "to the catalog" in s.value]
    return said[0] if said else None


def _applied_figures(name: str, data: bytes) -> tuple[str, str, str]:
    """Hosts, GPUs and GPU memory the Inventory page shows once ``data`` is applied."""
    at = _upload(_inventory_page(), name, data)
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    return _metric(at, "Hosts"), _metric(at, "GPUs"), _metric(at, "GPU memory")


def test_a_node_yaml_keeps_the_nodes_of_the_trace_models_as_the_command_line_does() -> None:
    """If the trace's node YAML is uploaded, the review keeps every node (those of P100 and G2,
    which the catalog lacks, too) with no problem, and says that applying adds those models to
    the user's own GPU models; once applied, the page plans the hosts, GPUs and GPU memory the
    trace's CSV node list gives, the models listed as own GPU models; Undo takes them away."""
    at = _upload(_inventory_page(), YAML_NAME, _yaml(NODES))
    assert not at.exception
    assert _metric(at, "Hosts kept") == "4"
    assert _metric(at, "GPUs after") == "16"
    assert _problems(at).empty
    (adds,) = [i.value for i in at.info if "to your own GPU models" in i.value]
    assert "adds P100, G2 to your own GPU models" in adds
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == f"In use: {YAML_NAME}"
    applied = (_metric(at, "Hosts"), _metric(at, "GPUs"), _metric(at, "GPU memory"))
    assert applied == ("4", "16", "384 GiB")
    assert applied == _applied_figures(CSV_NAME, _csv(NODES))
    assert not [w.value for w in at.warning if "problem" in w.value]
    own = _own_gpus_in_use(at)
    assert own is not None
    assert f"In use: {YAML_NAME} GPU models adds 2 models to the catalog: P100, G2" in own
    at.button(key="inventory_upload_undo").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: the bundled sample"
    assert _own_gpus_in_use(at) is None


def test_a_model_neither_the_catalogs_nor_the_traces_is_listed_its_node_kept() -> None:
    """If the node YAML labels a node with a model neither the catalog's nor the trace's (G9),
    the review lists one problem naming the node's label and the model, as the command line
    does, and the node is kept with the trace's guessed figures, among the other nodes."""
    at = _upload(_inventory_page(), YAML_NAME, _yaml((*NODES, UNKNOWN)))
    assert not at.exception
    assert _metric(at, "Hosts kept") == "5"
    assert _metric(at, "Rows skipped") == "0"
    (problem,) = _problems(at).to_dict("records")
    assert problem["file"] == YAML_NAME
    assert problem["column"] == "node ali-0: metadata.labels.alibabacloud.com/gpu-card-model"
    assert (
        "'G9' (1 node: ali-0) is neither in the catalog nor one of the trace's models"
        in (problem["problem"])
    )


OWN_GPUS = (
    "name,memory_gib,tdp_w,fp16_tflops,price_usd\n"
    "P100,12,250,18.7,3000\n"
    "RTX-6000-Ada,48,300,364,6800\n"
)
"""The user's own GPU models: their own figures for P100 (12 GiB), and a model of their own."""


def test_the_users_own_gpu_models_are_kept_beside_the_models_added() -> None:
    """If the user's own GPU models are in use, applying the node YAML keeps them (their P100 of
    12 GiB is planned, not the trace's of 16 GiB, and their own model stays) and adds only the
    trace's model they lack (G2)."""
    at = _inventory_page()
    at.file_uploader(key="own_gpus_upload").set_value(
        ("my_gpus.csv", OWN_GPUS.encode(), "text/csv")
    ).run()
    assert not at.exception
    _upload(at, YAML_NAME, _yaml(NODES))
    (adds,) = [i.value for i in at.info if "to your own GPU models" in i.value]
    assert "adds G2 to your own GPU models" in adds
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    own = _own_gpus_in_use(at)
    assert own is not None
    assert f"In use: my_gpus.csv + {YAML_NAME} GPU models adds 3 models" in own
    assert "P100, RTX-6000-Ada, G2" in own
    # 2 x 2 P100 of 12 GiB, 8 G2 of 32 GiB and 4 T4 of 16 GiB.
    assert _metric(at, "GPU memory") == "368 GiB"


def _openb(name: str) -> Path:
    """A file of the real trace in ``shared/data/alibaba-openb`` beside the repository (or
    above it); the test is skipped when it is absent."""
    here = Path(__file__).resolve().parent
    for folder in here.parents:
        path = folder / "shared" / "data" / "alibaba-openb" / name
        if path.is_file():
            return path
    pytest.skip(f"the Alibaba openb trace ({name}) is not beside the repository")


def test_the_whole_trace_as_node_yaml_is_its_1213_hosts() -> None:
    """If the trace's whole node list is uploaded as its node YAML, the review keeps its 1,213
    hosts and 6,212 GPUs with no problem, and once applied the Inventory page plans them all."""
    with _openb(CSV_NAME).open(newline="") as text:
        nodes = tuple(
            (r["sn"], r["model"], int(r["gpu"]), int(r["cpu_milli"]), int(r["memory_mib"]))
            for r in csv.DictReader(text)
        )
    at = _upload(_inventory_page(WHOLE_TRACE_TIMEOUT_S), YAML_NAME, _yaml(nodes))
    assert not at.exception
    assert (_metric(at, "Hosts kept"), _metric(at, "GPUs after")) == ("1,213", "6,212")
    assert _problems(at).empty
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert (_metric(at, "Hosts"), _metric(at, "GPUs")) == ("1,213", "6,212")
