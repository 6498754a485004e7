"""Pods of Alibaba's GPU-sharing trace as its simulator reads them: the YAML ``pod_csv_to_yaml.py``
(alibaba/clusterdata ``cluster-trace-gpu-v2023``) writes, the GPU ask in annotations."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG

from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog
from planner.inputs.importers.kubectl_pods import group_pods, read_kubectl_pods
from planner.inputs.importers.mix import import_workloads
from planner.inputs.problems import InputError
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from tests.trace_yaml import gpu_ask, trace_pod

NODE_LIST = b"""sn,cpu_milli,memory_mib,gpu,model
openb-node-0000,64000,262144,2,P100
openb-node-0025,32000,131072,4,V100M16
openb-node-0023,96000,786432,8,V100M32
"""
"""Three nodes of the trace's node list: its models, as the CSV loader adds them to the catalog."""

POD_LIST = b"""name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec
openb-pod-0000,12000,16384,1,1000,
openb-pod-0001,6000,12288,1,460,
openb-pod-0002,6000,12288,1,460,
openb-pod-0003,12000,16384,1,1000,V100M16|V100M32
openb-pod-0004,88000,327680,8,1000,
openb-pod-0005,8000,30517,0,0,
"""
"""The same pods as the trace's CSV pod list."""


POD_YAML = "\n---\n\n".join(
    [
        trace_pod("openb-pod-0000", 12000, 16384, gpu_ask("1000", "1")),
        trace_pod("openb-pod-0001", 6000, 12288, gpu_ask("460", "1")),
        trace_pod("openb-pod-0002", 6000, 12288, gpu_ask("460", "1")),
        trace_pod("openb-pod-0003", 12000, 16384, gpu_ask("1000", "1", "V100M16|V100M32")),
        trace_pod("openb-pod-0004", 88000, 327680, gpu_ask("1000", "8")),
        trace_pod("openb-pod-0005", 8000, 30517, {}),
    ]
).encode()
"""The pods of ``POD_LIST`` as the trace's simulator input."""


def _trace_catalog() -> Catalog:
    """The catalog with the trace's models, as its CSV node list extends it."""
    return alibaba_trace.load_node_list(NODE_LIST, CATALOG).value.catalog


def _classes(data: bytes, catalog: Catalog) -> dict[str, WorkloadClass]:
    """The classes the importer makes of ``data`` (validated as the command line validates
    them), by name."""
    imported = import_workloads([("openb_pod_list.yaml", data)], catalog)
    return {w.name: w for w in imported.workloads(catalog).value}


def test_trace_pods_asking_by_annotation_are_the_classes_of_the_trace_csv() -> None:
    """If the trace's pods ask for GPUs by alibabacloud.com/gpu-milli and gpu-count (with
    gpu-card-model), they are read as the trace's CSV pod list reads gpu_milli, num_gpu and
    gpu_spec: the same classes and instances, a share of one GPU (its memory share alike) or
    whole GPUs, the models pinned; training busy all day, as the CSV's classes."""
    catalog = _trace_catalog()
    from_yaml = _classes(POD_YAML, catalog)
    csv_pods = alibaba_trace.load_pod_list(POD_LIST, catalog).value
    from_csv = {w.name: w for w in csv_pods.workloads}
    assert (
        set(from_yaml)
        == set(from_csv)
        == {
            "gpu1x1000-cpu12000-mem16384",
            "gpu1x460-cpu6000-mem12288",
            "gpu1x1000-cpu12000-mem16384-V100M16+V100M32",
            "gpu8x1000-cpu88000-mem327680",
        }
    )
    for name, expected in from_csv.items():
        got = from_yaml[name]
        assert (got.instances, got.gpus, got.memory_share, got.gpu_models) == (
            expected.instances,
            expected.gpus,
            expected.memory_share,
            expected.gpu_models,
        ), name
        assert (got.vcpus, got.ram_gib) == (pytest.approx(expected.vcpus), expected.ram_gib)
        assert (got.kind, got.busy_fraction) == (WorkloadKind.TRAINING, 1.0)
    share = from_yaml["gpu1x460-cpu6000-mem12288"]
    assert (share.instances, share.gpus, share.memory_share) == (2, 0.46, 0.46)
    pinned = from_yaml["gpu1x1000-cpu12000-mem16384-V100M16+V100M32"]
    assert pinned.gpu_models == ("V100M16", "V100M32")
    assert pinned.memory_gib == 16.0  # the smaller of the two V100s


def test_trace_gpu_pods_beside_an_nvidia_pod_are_not_taken_for_pods_without_gpu() -> None:
    """If one ordinary nvidia.com/gpu pod is given beside the trace's pods, the trace's GPU pods
    are still counted: only the pod asking no GPU at all is said to request none."""
    nvidia = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: serve-0\n  namespace: ml\nspec:\n"
        "  containers:\n  - name: main\n    resources:\n      limits:\n"
        "        nvidia.com/gpu: 1\n"
    )
    data = POD_YAML + b"\n---\n\n" + nvidia.encode()
    read = read_kubectl_pods(data, "pods.yaml", _trace_catalog())
    grouped = group_pods(read.pods, _trace_catalog())
    assert sum(grouped.frame["instances"]) == 5 + 1
    said = " ".join(n.text for n in grouped.notes)
    assert "1 pod requests no GPU" in said


def test_trace_pods_alone_are_read_not_refused_as_asking_no_gpu() -> None:
    """If a file holds only the trace's pods, the import reads its GPU pods, never refusing the
    file as pods that request no GPU."""
    catalog = _trace_catalog()
    imported = import_workloads([("pods.yaml", POD_YAML)], catalog)
    assert not [p for p in imported.problems if "request none" in p.message]
    assert len(imported.workloads(catalog).value) == 4


@pytest.mark.parametrize(
    ("annotations", "said"),
    [
        (gpu_ask("500", "2"), "2 GPUs of 500 thousandths each"),
        (gpu_ask("300", "0"), "gpu-count 0 beside 300 thousandths"),
        (gpu_ask("0", "1"), "1 GPU of 0 thousandths each"),
        (gpu_ask("1500", "1"), "not a whole number of thousandths of a GPU from 0 to 1000"),
        (gpu_ask("0.46", "1"), "not a whole number of thousandths of a GPU"),
    ],
)
def test_a_trace_gpu_ask_the_trace_never_writes_leaves_the_pod_out_saying_why(
    annotations: dict[str, str], said: str
) -> None:
    """If a pod's gpu-milli and gpu-count are a pair the trace never writes (a share of several
    GPUs, a share of no GPU) or no whole number in range, the pod is left out with a problem
    naming the annotation, as the trace's CSV pod list refuses such a row."""
    data = "\n---\n".join(
        [
            trace_pod("good", 4000, 8192, gpu_ask("1000", "1")),
            trace_pod("bad", 4000, 8192, annotations),
        ]
    ).encode()
    read = read_kubectl_pods(data, "pods.yaml", _trace_catalog())
    assert [p.name for p in read.pods] == ["good"]
    (problem,) = read.problems
    assert said in problem.message
    assert "pod left out" in problem.message
    assert "alibabacloud.com/gpu-" in (problem.column or "")


def test_a_trace_pod_pinned_to_models_the_catalog_lacks_is_left_out_naming_the_node_list() -> None:
    """If the catalog has none of the models a trace pod's gpu-card-model allows (the trace's
    node list was not given), the pod is left out, as it could never be placed, with a problem
    naming the models and the trace's node list that adds them; its other pods are read."""
    data = "\n---\n".join(
        [
            trace_pod("free", 4000, 8192, gpu_ask("1000", "1")),
            trace_pod("pinned", 4000, 8192, gpu_ask("1000", "1", "V100M16|V100M32")),
        ]
    ).encode()
    read = read_kubectl_pods(data, "pods.yaml", CATALOG)
    assert [p.name for p in read.pods] == ["free"]
    (problem,) = read.problems
    assert "'V100M16' or 'V100M32'" in problem.message
    assert "openb_node_list_gpu_node.csv" in problem.fix


def test_a_file_of_trace_pods_all_without_gpu_is_refused_naming_the_trace_annotations() -> None:
    """If no pod of a file asks for a GPU, the refusal names the trace's annotations among the
    GPU requests read."""
    data = trace_pod("cpu", 4000, 8192, {}).encode()
    imported = import_workloads([("pods.yaml", data)], CATALOG)
    with pytest.raises(InputError) as refused:
        imported.workloads(CATALOG)
    assert "alibabacloud.com/gpu-milli" in str(refused.value)
