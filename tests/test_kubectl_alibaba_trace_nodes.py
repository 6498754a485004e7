"""Nodes of Alibaba's GPU-sharing trace as its simulator reads them: the YAML of the trace's
``node_yaml/openb_node_list_gpu_node.yaml`` (alibaba/clusterdata ``cluster-trace-gpu-v2023``)."""

from __future__ import annotations

from importer_samples import CATALOG

from planner.inputs import alibaba_trace
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from tests.trace_yaml import trace_node

NODE_YAML = "\n---\n\n".join(
    [
        trace_node("openb-node-0000", "P100", 2),
        trace_node("openb-node-0001", "P100", 2),
        trace_node("openb-node-0002", "P100", 2),
        trace_node("openb-node-0003", "P100", 2),
        trace_node("openb-node-0004", "P100", 2),
        trace_node("openb-node-0005", "P100", 2),
        trace_node("openb-node-0026", "G2", 8, 96000),
        trace_node("openb-node-0035", "T4", 4, 96000),
    ]
).encode()


def test_trace_models_given_as_ones_own_gpus_are_no_problem() -> None:
    """If the user's catalog has the trace's models (given as their own GPUs, or added by the
    trace's CSV node list), the node YAML's nodes of those models are read without a problem."""
    catalog = alibaba_trace.load_node_list(
        b"sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,P100\nn2,96000,393216,8,G2\n",
        CATALOG,
    ).value.catalog
    read = read_kubectl_nodes(NODE_YAML, "openb_node_list_gpu_node.yaml", catalog)
    assert read.problems == ()
    models = {h.name: h.get("gpu_model") for h in read.hosts}
    p100 = models["openb-node-0000"]
    assert p100 is not None
    assert p100.value == "P100"
