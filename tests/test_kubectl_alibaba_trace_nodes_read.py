"""The node YAML of Alibaba's GPU-sharing trace (``node_yaml/openb_node_list_gpu_node.yaml``)
read as its CSV node list is: the trace's models the catalog lacks added, the same hosts."""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import pytest
from importer_samples import CATALOG

from planner.cli import build_parser, read_inputs
from planner.inputs import alibaba_trace
from planner.inputs.importers import import_inventory
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from planner.inputs.inventory import Host
from tests.trace_yaml import trace_node, yaml_stream

YAML_NAME = "openb_node_list_gpu_node.yaml"


NODES = (
    ("openb-node-0000", "P100", 2, 64000, 262144),
    ("openb-node-0001", "P100", 2, 64000, 262144),
    ("openb-node-0026", "G2", 8, 96000, 786432),
    ("openb-node-0035", "T4", 4, 96000, 393216),
)


def _yaml(nodes: tuple[tuple[str, str, int, int, int], ...]) -> bytes:
    return yaml_stream(*(trace_node(*n) for n in nodes))


def _csv(nodes: tuple[tuple[str, str, int, int, int], ...]) -> bytes:
    rows = [f"{name},{cpu},{memory},{gpus},{model}" for name, model, gpus, cpu, memory in nodes]
    return ("sn,cpu_milli,memory_mib,gpu,model\n" + "\n".join(rows) + "\n").encode()


def _shape(host: Host) -> tuple[str, str, int, float, float]:
    return host.name, host.gpu_model, host.gpus, host.cpu_cores, host.ram_gib


def test_the_trace_models_a_node_yaml_labels_are_added_each_with_a_note() -> None:
    """If the trace's node YAML labels nodes with its models the catalog lacks (P100, G2), each
    is added with the figures the trace's CSV loader gives it, and one note per model says
    those figures and names its nodes; no problem is raised and a catalog model (T4) is the
    catalog's."""
    read = read_kubectl_nodes(_yaml(NODES), YAML_NAME, CATALOG)
    assert read.problems == ()
    assert {m.name: m for m in read.added_models} == {
        "P100": alibaba_trace.trace_gpu_model("P100"),
        "G2": alibaba_trace.trace_gpu_model("G2"),
    }
    said = [n.text for n in read.notes if "is not in the catalog" in n.text]
    assert len(said) == 2
    p100 = next(t for t in said if "'P100'" in t)
    assert "2 nodes: openb-node-0000, openb-node-0001" in p100
    assert "16 GiB, 250 W and 18.7 TFLOPS FP16" in p100
    assert alibaba_trace.trace_gpu_model("P100").source in p100
    g2 = next(t for t in said if "'G2'" in t)
    assert "1 node: openb-node-0026" in g2
    assert "guesses" in g2
    assert "T4" not in {m.name for m in read.added_models}


def test_a_node_yaml_imports_the_hosts_its_csv_node_list_loads() -> None:
    """If the trace's node YAML is imported, its hosts (names, models, GPUs, cores, RAM) and the
    models added are those its CSV node list gives; the catalog given is left as it was."""
    imported = import_inventory([(YAML_NAME, _yaml(NODES))], CATALOG)
    hosts = imported.inventory(CATALOG)
    trace = alibaba_trace.load_node_list(_csv(NODES), CATALOG).value
    assert [_shape(h) for h in hosts.value.hosts] == [_shape(h) for h in trace.inventory.hosts]
    planned_with = imported.planning_catalog(CATALOG)
    for model in ("P100", "G2"):
        assert planned_with.gpu(model) == trace.catalog.gpu(model)
    assert CATALOG.resolve("P100") is None


def test_a_model_the_catalog_has_keeps_its_own_figures() -> None:
    """If the user's catalog has a trace model (given as their own GPU), the node YAML's nodes
    of it are read with the user's figures, nothing is added and nothing is noted as added."""
    catalog = alibaba_trace.load_node_list(_csv(NODES[:1]), CATALOG).value.catalog
    read = read_kubectl_nodes(_yaml(NODES), YAML_NAME, catalog)
    assert [m.name for m in read.added_models] == ["G2"]
    imported = import_inventory([(YAML_NAME, _yaml(NODES))], catalog)
    assert imported.planning_catalog(catalog).gpu("P100") is catalog.gpu("P100")


def _plan_args(inventory: Path) -> argparse.Namespace:
    return build_parser().parse_args(["plan", "--inventory", str(inventory)])


def test_plan_reads_a_node_yaml_as_its_csv(tmp_path: Path) -> None:
    """`plan --inventory openb_node_list_gpu_node.yaml` plans the hosts and GPU models of the
    trace's CSV node list, printing a note per model added; no input problem is listed."""
    yaml_file = tmp_path / YAML_NAME
    yaml_file.write_bytes(_yaml(NODES))
    csv_file = tmp_path / "openb_node_list_gpu_node.csv"
    csv_file.write_bytes(_csv(NODES))
    report = io.StringIO()
    from_yaml = read_inputs(_plan_args(yaml_file), report=report)
    from_csv = read_inputs(_plan_args(csv_file), report=io.StringIO())
    assert from_yaml.problems == ()
    assert [_shape(h) for h in from_yaml.scenario.inventory.hosts] == [
        _shape(h) for h in from_csv.scenario.inventory.hosts
    ]
    for model in ("P100", "G2"):
        assert from_yaml.scenario.catalog.gpu(model) == from_csv.scenario.catalog.gpu(model)
    said = report.getvalue()
    assert f"import: {YAML_NAME}: GPU model 'P100' (2 nodes: " in said


def _openb(name: str) -> Path:
    """A file of the real trace in ``shared/data/alibaba-openb`` beside the repository (or
    above it); the test is skipped when it is absent."""
    here = Path(__file__).resolve().parent
    for folder in here.parents:
        path = folder / "shared" / "data" / "alibaba-openb" / name
        if path.is_file():
            return path
    pytest.skip(f"the Alibaba openb trace ({name}) is not beside the repository")


def test_the_whole_trace_as_yaml_imports_as_its_csv() -> None:
    """If the trace's 1,213 nodes are given as its node YAML, 1,213 hosts of 6,212 GPUs are
    imported, each as the CSV node list loads it, and no problem is raised."""
    path = _openb("openb_node_list_gpu_node.csv")
    with path.open(newline="") as text:
        nodes = tuple(
            (r["sn"], r["model"], int(r["gpu"]), int(r["cpu_milli"]), int(r["memory_mib"]))
            for r in csv.DictReader(text)
        )
    imported = import_inventory([(YAML_NAME, _yaml(nodes))], CATALOG)
    hosts = imported.inventory(CATALOG)
    assert imported.problems == ()
    assert len(hosts.value.hosts) == 1213
    assert hosts.value.gpu_count == 6212
    trace = alibaba_trace.load_node_list(path, CATALOG).value
    assert [_shape(h) for h in hosts.value.hosts] == [_shape(h) for h in trace.inventory.hosts]


def test_a_labelled_model_neither_the_catalogs_nor_the_traces_is_a_problem_its_nodes_kept() -> None:
    """If Alibaba's label names a model that is neither the catalog's nor the trace's (G9), its
    node is kept with the guessed figures the trace's CSV loader gives such a model, and one
    problem names the model, its node, the figures and the fix, as the CSV's does."""
    nodes = (("ali-0", "G9", 2, 64000, 262144),)
    imported = import_inventory([(YAML_NAME, _yaml(nodes))], CATALOG)
    (host,) = imported.inventory(CATALOG).value.hosts
    assert (host.gpu_model, host.gpus) == ("G9", 2)
    (problem,) = imported.problems
    assert problem.column == "node ali-0: metadata.labels.alibabacloud.com/gpu-card-model"
    assert "'G9' (1 node: ali-0) is neither in the catalog nor one of the trace's models" in (
        problem.message
    )
    assert "32 GiB, 300 W and 100 TFLOPS FP16" in problem.message
    assert "your own GPU file" in problem.fix
    assert problem.row_kept
