"""Pods of Alibaba's GPU-sharing trace as its pod YAML (``pod_csv_to_yaml.py``) gives them, read
as its CSV pod list reads them on the trace's nodes."""

from __future__ import annotations

from pathlib import Path

from importer_samples import CATALOG

from planner.cli import build_parser, scenario_from_args
from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog
from planner.inputs.importers.kubectl_pods import group_pods, read_kubectl_pods
from planner.inputs.importers.mix import import_workloads
from planner.inputs.importers.provenance import summarise_notes
from planner.inputs.workloads import WorkloadClass
from tests.trace_yaml import gpu_ask, trace_node, trace_pod, yaml_stream

NODE_LIST = b"""sn,cpu_milli,memory_mib,gpu,model
openb-node-0000,64000,262144,2,P100
openb-node-0025,32000,131072,4,V100M16
openb-node-0023,96000,786432,8,V100M32
openb-node-0026,96000,393216,8,G2
"""
"""Nodes of the trace's node list: its models, as the CSV loader adds them to the catalog."""


def _trace_catalog() -> Catalog:
    """The catalog with the trace's models, as its CSV node list extends it."""
    return alibaba_trace.load_node_list(NODE_LIST, CATALOG).value.catalog


def _classes(data: bytes, catalog: Catalog) -> dict[str, WorkloadClass]:
    imported = import_workloads([("pods.yaml", data)], catalog)
    return {w.name: w for w in imported.workloads(catalog).value}


def test_a_pod_allowed_the_v100_family_may_use_the_traces_v100s_as_the_csv() -> None:
    """If a trace pod's alibabacloud.com/gpu-card-model is V100 (the family), it may use the
    trace's V100M16 and V100M32, as the CSV pod list reads gpu_spec V100, with a note naming
    the reading and the pod; not left out as a model the catalog lacks."""
    catalog = _trace_catalog()
    data = yaml_stream(
        trace_pod("openb-pod-0000", 12000, 16384, gpu_ask(1000, 1, "V100")),
        trace_pod("openb-pod-0001", 12000, 16384, gpu_ask(1000, 1)),
    )
    imported = import_workloads([("pods.yaml", data)], catalog)
    assert imported.problems == ()
    classes = {w.name: w for w in imported.workloads(catalog).value}
    csv = alibaba_trace.load_pod_list(
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        b"openb-pod-0000,12000,16384,1,1000,V100\nopenb-pod-0001,12000,16384,1,1000,\n",
        catalog,
    ).value
    pinned = "gpu1x1000-cpu12000-mem16384-V100M16+V100M32"
    assert {w.name: w.gpu_models for w in csv.workloads}[pinned] == ("V100M16", "V100M32")
    assert classes[pinned].gpu_models == ("V100M16", "V100M32")
    (said,) = [n.text for n in imported.notes if "'V100'" in n.text]
    assert "read as V100M16|V100M32" in said
    assert "paib-gpu/openb-pod-0000" in said


def test_with_the_trace_nodes_given_a_class_memory_is_of_the_smallest_gpu_it_may_use() -> None:
    """If the trace's node YAML is given with its pod YAML, a class's GPU memory is its GPUs ×
    the memory of the smallest of the nodes' models it may use (the 16 GiB P100 of any model,
    the 32 GiB V100M32 for a pod pinned to it), as the CSV pod list takes it on its node list,
    and the note says so; not an assumed 40 GiB GPU."""
    catalog = _trace_catalog()
    nodes = yaml_stream(
        trace_node("n0", "P100", 2, 96000, 393216),
        trace_node("n1", "V100M32", 8, 96000, 393216),
        trace_node("n2", "G2", 8, 96000, 393216),
    )
    pods = yaml_stream(
        trace_pod("openb-pod-0000", 12000, 16384, gpu_ask(1000, 2)),
        trace_pod("openb-pod-0001", 6000, 12288, gpu_ask(460, 1)),
        trace_pod("openb-pod-0002", 6000, 12288, gpu_ask(1000, 1, "V100M32|G2")),
    )
    imported = import_workloads(
        [("pods.yaml", pods)], catalog, nodes=[("openb_node_list_gpu_node.yaml", nodes)]
    )
    classes = {w.name: w for w in imported.workloads(catalog).value}
    csv = alibaba_trace.load_pod_list(
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        b"openb-pod-0000,12000,16384,2,1000,\nopenb-pod-0001,6000,12288,1,460,\n"
        b"openb-pod-0002,6000,12288,1,1000,V100M32|G2\n",
        catalog,
        gpu_models=("P100", "V100M32", "G2"),
    ).value
    assert {w.name: w.memory_gib for w in classes.values()} == {
        w.name: w.memory_gib for w in csv.workloads
    }
    assert classes["gpu2x1000-cpu12000-mem16384"].memory_gib == 32.0
    assert classes["gpu1x460-cpu6000-mem12288"].memory_gib == 0.46 * 16
    assert classes["gpu1x1000-cpu6000-mem12288-G2+V100M32"].memory_gib == 32.0
    (said,) = [
        n.text
        for n in imported.notes
        if n.subject == "gpu2x1000-cpu12000-mem16384" and n.field == "memory_gib"
    ]
    assert "the P100, the smallest GPU the pods may use among the nodes'" in said
    summary = summarise_notes(imported.notes)
    assert any(
        "the smallest GPU it may use among the nodes' (P100, V100M32, G2)" in line
        for line in summary
    )


def test_without_the_trace_nodes_a_class_memory_is_of_an_assumed_gpu_and_says_so() -> None:
    """If the trace's pods are given without nodes, a class's memory is of an assumed GPU, said
    as assumed."""
    catalog = _trace_catalog()
    imported = import_workloads(
        [("pods.yaml", yaml_stream(trace_pod("p", 12000, 16384, gpu_ask(1000, 1))))], catalog
    )
    (said,) = [n for n in imported.notes if n.field == "memory_gib"]
    assert said.source == "assumed"


def test_trace_pods_without_gpu_are_the_cpu_only_classes_of_the_csv() -> None:
    """If the trace's pod YAML holds pods without GPU (no annotation, as pod_csv_to_yaml.py
    writes a pod of num_gpu 0), they form the CSV pod list's CPU-only classes, one per shape
    with its pods counted, cores and RAM; pods without GPU of another file (a cluster's own
    kubectl output) are not made classes."""
    catalog = _trace_catalog()
    trace = yaml_stream(
        trace_pod("openb-pod-0000", 12000, 16384, gpu_ask(1000, 1)),
        trace_pod("openb-pod-0001", 12500, 57344, {}),
        trace_pod("openb-pod-0002", 12500, 57344, {}),
        trace_pod("openb-pod-0003", 8000, 30517, {}),
    )
    own = (
        b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  namespace: app\nspec:\n"
        b"  containers:\n  - name: main\n    resources:\n      requests:\n        cpu: 2\n"
    )
    read = [
        *read_kubectl_pods(trace, "pods.yaml", catalog).pods,
        *read_kubectl_pods(own, "own.yaml", catalog).pods,
    ]
    grouped = group_pods(read, catalog)
    csv = alibaba_trace.load_pod_list(
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        b"openb-pod-0000,12000,16384,1,1000\nopenb-pod-0001,12500,57344,0,0\n"
        b"openb-pod-0002,12500,57344,0,0\nopenb-pod-0003,8000,30517,0,0\n",
        catalog,
    ).value
    assert grouped.cpu_only == csv.cpu_only
    assert [(w.name, w.instances, w.gpus) for w in grouped.cpu_only] == [
        ("cpu12500-mem57344", 2, 0.0),
        ("cpu8000-mem30517", 1, 0.0),
    ]


def test_a_trace_class_ram_is_the_pods_mib_unrounded_as_the_csv() -> None:
    """If a trace pod asks memory that is no whole thousandth of a GiB (30517 MiB), its class's
    RAM is exactly that, 30.517578125 GiB, as the CSV pod list reads it, not rounded to
    30.518 GiB."""
    catalog = _trace_catalog()
    classes = _classes(yaml_stream(trace_pod("p", 4000, 30517, gpu_ask(1000, 1))), catalog)
    assert classes["gpu1x1000-cpu4000-mem30517"].ram_gib == 30517 / 1024


def test_with_the_trace_nodes_given_a_pod_allowed_none_of_their_models_is_left_out() -> None:
    """If a trace pod's gpu-card-model allows only models none of the nodes given has (V100M16,
    on nodes of P100 and G2), it is left out with a problem naming the pod, the models and the
    nodes' models, as the CSV pod list leaves it out on its node list; the other pods are
    read."""
    catalog = _trace_catalog()
    nodes = yaml_stream(
        trace_node("n0", "P100", 2, 96000, 393216), trace_node("n1", "G2", 8, 96000, 393216)
    )
    pods = yaml_stream(
        trace_pod("openb-pod-0000", 12000, 16384, gpu_ask(1000, 1)),
        trace_pod("openb-pod-0001", 12000, 16384, gpu_ask(1000, 1, "V100M16")),
    )
    imported = import_workloads(
        [("pods.yaml", pods)], catalog, nodes=[("openb_node_list_gpu_node.yaml", nodes)]
    )
    (problem,) = imported.problems
    assert problem.column == (
        "pod paib-gpu/openb-pod-0001: metadata.annotations.alibabacloud.com/gpu-card-model"
    )
    assert "may only use 'V100M16', which no node has (the nodes have P100, G2)" in (
        problem.message
    )
    assert "pod left out" in problem.message
    assert [w.instances for w in imported.workloads(catalog).value] == [1]
    csv = alibaba_trace.load_pod_list(
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        b"openb-pod-0000,12000,16384,1,1000,\nopenb-pod-0001,12000,16384,1,1000,V100M16\n",
        catalog,
        gpu_models=("P100", "G2"),
    )
    assert [w.instances for w in csv.value.workloads] == [1]


def test_the_command_line_plans_the_trace_yamls_pods_without_gpu_as_the_csvs(
    tmp_path: Path,
) -> None:
    """``plan`` on the trace's node and pod YAML gives the scenario the pods without GPU as
    CPU-only classes, as on its CSV lists (the methods that place pods on nodes give them
    cores and RAM)."""
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(
        trace_node("openb-node-0001", "G2", 8, 96000, 393216)
        + "\n---\n"
        + trace_node("openb-node-0002", "G2", 8, 96000, 393216)
    )
    pods = tmp_path / "pods.yaml"
    pods.write_bytes(
        yaml_stream(
            trace_pod("openb-pod-0000", 12000, 16384, gpu_ask(500, 1)),
            trace_pod("openb-pod-0001", 12500, 57344, {}),
            trace_pod("openb-pod-0002", 12500, 57344, {}),
        )
    )
    args = ["plan", "--inventory", str(nodes), "--workloads", str(pods)]
    scenario, _ = scenario_from_args(build_parser().parse_args(args))
    assert [(w.name, w.instances) for w in scenario.cpu_only] == [("cpu12500-mem57344", 2)]
    assert sum(w.instances for w in scenario.workloads) == 1
