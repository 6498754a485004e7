"""Nodes of Alibaba's GPU-sharing trace as its node YAML gives them, read as its CSV node list
reads them: the trace's cluster and network, its models in any case."""

from __future__ import annotations

from importer_samples import CATALOG

from planner.inputs import alibaba_trace
from planner.inputs.importers import import_inventory
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes

YAML_NAME = "openb_node_list_gpu_node.yaml"


def _node(name: str, model: str, gpus: int, labels: str = "") -> str:
    """One node as the trace's node YAML writes it, with extra ``labels`` lines."""
    resources = (
        f"    alibabacloud.com/gpu-count: '{gpus}'\n"
        f"    alibabacloud.com/gpu-milli: '{gpus * 1000}'\n"
        "    cpu: 64000m\n    memory: 262144Mi\n    pods: '1001'\n"
    )
    return (
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels:\n"
        f"    alibabacloud.com/gpu-card-model: {model}\n"
        f"{labels}"
        "    beta.kubernetes.io/os: linux\n"
        f"    kubernetes.io/hostname: {name}\n    kubernetes.io/os: linux\n"
        f"  name: {name}\nstatus:\n  allocatable:\n{resources}  capacity:\n{resources}"
    )


def _csv(rows: str) -> bytes:
    return f"sn,cpu_milli,memory_mib,gpu,model\n{rows}".encode()


def test_trace_nodes_are_in_the_traces_cluster_as_the_csv() -> None:
    """If the trace's node YAML names no cluster, its nodes are in the trace's cluster (openb),
    assumed and said, as its CSV node list gives them, not in 'kubernetes'."""
    data = "\n---\n\n".join([_node("openb-node-0000", "P100", 2), _node("n1", "T4", 4)]).encode()
    imported = import_inventory([(YAML_NAME, data)], CATALOG)
    hosts = imported.inventory(CATALOG).value.hosts
    csv_hosts = alibaba_trace.load_node_list(
        _csv("openb-node-0000,64000,262144,2,P100\nn1,64000,262144,4,T4\n"), CATALOG
    ).value.inventory.hosts
    assert [h.cluster for h in hosts] == [h.cluster for h in csv_hosts] == ["openb", "openb"]
    said = {n.field: n for n in imported.notes if n.subject == "n1"}
    assert said["cluster"].source == "assumed"
    assert "the trace's cluster" in said["cluster"].text


def test_a_cluster_given_or_labelled_still_names_a_trace_nodes_cluster() -> None:
    """If a cluster is given (or the node carries a cluster label), the trace's node is in it,
    not in the trace's own."""
    data = _node("n1", "P100", 2, "    cluster: lab\n").encode()
    (labelled,) = read_kubectl_nodes(data, YAML_NAME, CATALOG).hosts
    cluster = labelled.get("cluster")
    assert cluster is not None
    assert cluster.value == "lab"
    (given,) = read_kubectl_nodes(data, YAML_NAME, CATALOG, cluster="mine").hosts
    cluster = given.get("cluster")
    assert cluster is not None
    assert cluster.value == "mine"


def test_a_trace_model_labelled_in_another_case_is_the_traces_model() -> None:
    """If a node's alibabacloud.com/gpu-card-model writes a trace model in another case (p100),
    it is the trace's P100 with its datasheet figures, as the CSV node list reads it, no
    problem raised; the note says how it was read."""
    data = "\n---\n\n".join([_node("a", "p100", 2), _node("b", "P100", 2)]).encode()
    read = read_kubectl_nodes(data, YAML_NAME, CATALOG)
    assert read.problems == ()
    assert [h.get("gpu_model").value for h in read.hosts] == ["P100", "P100"]  # type: ignore[union-attr]
    assert list(read.added_models) == [alibaba_trace.trace_gpu_model("P100")]
    model = read.hosts[0].get("gpu_model")
    assert model is not None
    assert "'p100' is the trace's model P100 written in another case" in model.note.text
    csv_models = alibaba_trace.load_node_list(
        _csv("a,64000,262144,2,p100\n"), CATALOG
    ).value.inventory.hosts
    assert csv_models[0].gpu_model == "P100"
