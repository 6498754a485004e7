"""Tests of kubectl pods pinned to a GPU by a cloud's node label, and of GPU requests no node or
GPU could hold."""

from __future__ import annotations

from typing import Any

import pytest
from importer_samples import CATALOG, container, kube_list, node, pod

from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from planner.inputs.importers.kubectl_pods import group_pods, read_kubectl_pods


def _pinned(selector: dict[str, str]) -> Any:
    return pod(
        "x-0",
        owner=("StatefulSet", "x"),
        containers=[container(limits={"nvidia.com/gpu": "1"})],
        node_selector=selector,
    )


@pytest.mark.parametrize(
    ("selector", "model"),
    [
        ({"cloud.google.com/gke-accelerator": "nvidia-l4"}, "L4"),
        ({"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}, "A100-40GB-SXM"),
        ({"node.kubernetes.io/instance-type": "g6e.xlarge"}, "L40S"),
        ({"beta.kubernetes.io/instance-type": "p4de.24xlarge"}, "A100-80GB-SXM"),
    ],
)
def test_a_pod_pinned_by_a_cloud_label_gets_that_gpu_model(
    selector: dict[str, str], model: str
) -> None:
    """If a pod's node selector names a GKE accelerator or an EC2 instance type, its class may
    only use that GPU model and its memory is that model's, as for GFD's nvidia.com/gpu.product;
    the nodes' importer reads the same labels the same way."""
    read = read_kubectl_pods(kube_list(_pinned(selector)), "pods.json", CATALOG)
    (only,) = read.pods
    assert only.gpu_models == (model,)
    row = group_pods(read.pods, CATALOG).frame.iloc[0]
    assert (row["gpu_models"], row["memory_gib"]) == (model, CATALOG.gpus[model].memory_gib)


def test_a_pod_pinned_by_instance_type_affinity_gets_that_gpu_model() -> None:
    """A required node affinity ``In`` a GPU instance type pins the pod as a node selector does;
    an instance type without a GPU names no model."""
    pinned = _pinned({})
    pinned["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "node.kubernetes.io/instance-type",
                                "operator": "In",
                                "values": ["g5.xlarge", "m5.large"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    (only,) = read_kubectl_pods(kube_list(pinned), "pods.json", CATALOG).pods
    assert only.gpu_models == ("A10G",)


def _read(*items: Any) -> Any:
    """The pods read, beside one ordinary pod so that the file is never left without a pod."""
    whole = pod("whole", containers=[container(limits={"nvidia.com/gpu": "1"})])
    return read_kubectl_pods(kube_list(*items, whole), "pods.json", CATALOG)


@pytest.mark.parametrize(
    ("resource", "asked", "shown"),
    [
        ("nvidia.com/gpu", "1k", "'1k' (1000)"),
        ("nvidia.com/gpu", "2Ki", "'2Ki' (2048)"),
        ("nvidia.com/gpu", "100000", "'100000'"),
        ("nvidia.com/gpu", "17", "'17'"),
        ("volcano.sh/vgpu-number", "32", "'32'"),
    ],
)
def test_a_pod_asking_more_gpus_than_a_node_holds_is_left_out(
    resource: str, asked: str, shown: str
) -> None:
    """If a container asks more GPUs than the largest GPU node holds (16), the pod can never be
    scheduled (a pod runs on one node): it is left out with a problem naming pod, container,
    resource and value, the value of a suffixed quantity spelled out (1k is 1000), not read as
    1000 GPUs."""
    read = _read(pod("p-1", containers=[container(limits={resource: asked})]))
    assert [p.name for p in read.pods] == ["whole"]
    (problem,) = read.problems
    assert problem.column == f"pod ml/p-1: main {resource}"
    assert problem.message.startswith(f"{shown} GPUs in one container is more than any node")
    assert "16 GPUs" in problem.message
    assert "pod left out" in problem.message
    assert "workload CSV" in problem.fix


def test_sixteen_gpus_or_2000m_are_read_without_a_problem() -> None:
    """16 GPUs (a 16-GPU node's worth) and 2000m (2, a whole quantity Kubernetes accepts for an
    extended resource) are read as asked."""
    read = _read(
        pod("big", containers=[container(limits={"nvidia.com/gpu": "16"})]),
        pod("milli", containers=[container(limits={"nvidia.com/gpu": "2000m"})]),
    )
    assert read.problems == ()
    assert [p.gpu.gpus for p in read.pods if p.gpu is not None] == [16.0, 2.0, 1.0]


def test_a_pod_whose_containers_together_ask_more_gpus_than_a_node_holds_is_left_out() -> None:
    """Two containers of 10 GPUs each ask 20 GPUs of one node: the pod is left out naming both."""
    ten = {"nvidia.com/gpu": "10"}
    read = _read(pod("p-1", containers=[container("a", limits=ten), container("b", limits=ten)]))
    assert [p.name for p in read.pods] == ["whole"]
    (problem,) = read.problems
    assert problem.column == "pod ml/p-1: spec.containers[].resources"
    assert "the pod asks 20 GPUs in all (containers a, b)" in problem.message
    assert "at most 16 GPUs" in problem.message


def test_gpus_counted_by_a_label_or_annotation_beyond_a_node_leave_the_pod_out() -> None:
    """Alibaba's aliyun.com/gpu-count label of 64 and KAI's gpu-fraction-num-devices of 32 ask
    more GPUs than a node holds: each pod is left out naming the label or annotation."""
    alibaba = pod(
        "ack",
        labels={"aliyun.com/gpu-count": "64"},
        containers=[container(limits={"aliyun.com/gpu-mem": "8"})],
    )
    kai = pod("kai")
    kai["metadata"]["annotations"] = {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "32"}
    read = _read(alibaba, kai)
    assert [p.name for p in read.pods] == ["whole"]
    assert [p.column for p in read.problems] == [
        "pod ml/ack: metadata.labels.aliyun.com/gpu-count",
        "pod ml/kai: metadata.annotations.gpu-fraction-num-devices",
    ]
    assert all("16" in p.message for p in read.problems)


@pytest.mark.parametrize(
    ("limits", "resource", "fix"),
    [
        ({"nvidia.com/gpu": "1", "nvidia.com/gpumem": "999999"}, "nvidia.com/gpumem", "MiB"),
        ({"volcano.sh/vgpu-memory": "999999"}, "volcano.sh/vgpu-memory", "MiB"),
        ({"aliyun.com/gpu-mem": "16000"}, "aliyun.com/gpu-mem", "--memory-unit=MiB"),
    ],
)
def test_gpu_memory_above_the_largest_gpus_leaves_the_pod_out(
    limits: dict[str, str], resource: str, fix: str
) -> None:
    """If a pod asks more memory of one GPU than the largest GPU in the catalog has (HAMi's
    gpumem 999999 MiB is 976.6 GiB; Alibaba's gpu-mem 16000 GiB, MiB written where the device
    plugin counts GiB), no GPU holds it: the pod is left out with a problem naming the resource,
    the GiB asked and the catalog's largest GPU, not planned at 976 GiB."""
    read = _read(pod("p-1", containers=[container(limits=limits)]))
    assert [p.name for p in read.pods] == ["whole"]
    (problem,) = read.problems
    assert problem.column == f"pod ml/p-1: main {resource}"
    assert "of one GPU's memory is more than the largest GPU in the catalog" in problem.message
    largest = max(CATALOG.gpus.values(), key=lambda g: g.memory_gib)
    assert f"({largest.name}, {largest.memory_gib:g} GiB)" in problem.message
    assert "pod left out" in problem.message
    assert fix in problem.fix


def test_gpu_memory_of_a_kai_annotation_above_the_largest_gpus_leaves_the_pod_out() -> None:
    """KAI's gpu-memory annotation of 999999 MiB fits no GPU: the pod is left out naming it;
    81920 MiB (an 80 GiB GPU's) is read."""
    huge, fits = pod("huge"), pod("fits")
    huge["metadata"]["annotations"] = {"gpu-memory": "999999"}
    fits["metadata"]["annotations"] = {"gpu-memory": "81920"}
    read = _read(huge, fits)
    assert [p.name for p in read.pods] == ["fits", "whole"]
    (problem,) = read.problems
    assert problem.column == "pod ml/huge: metadata.annotations.gpu-memory"
    assert "more than the largest GPU in the catalog" in problem.message


def test_part_of_a_gpu_as_a_quantity_says_kubernetes_takes_extended_resources_whole() -> None:
    """nvidia.com/gpu: 500m is 0.5, which Kubernetes refuses for an extended resource (they are
    whole): the problem says so and gives the value, the pod read with the 1 GPU it would need."""
    read = _read(pod("p-1", containers=[container(limits={"nvidia.com/gpu": "500m"})]))
    (problem,) = read.problems
    assert "'500m' is not a whole number (0.5)" in problem.message
    assert "extended resources such as nvidia.com/gpu only whole" in problem.message
    assert [p.gpu.gpus for p in read.pods if p.gpu is not None] == [1.0, 1.0]


def test_mig_instances_beyond_one_gpu_count_the_gpus_they_fill() -> None:
    """If a container asks more MIG instances than one GPU has slices for (14 × 1g.10gb, 7 per
    A100), they fill 2 GPUs, not 1 holding 140 GiB; instances filling more GPUs than a node
    holds (200 × 1g.10gb, 29 GPUs) leave the pod out."""
    read = _read(
        pod("fourteen", containers=[container(limits={"nvidia.com/mig-1g.10gb": "14"})]),
        pod("many", containers=[container(limits={"nvidia.com/mig-1g.10gb": "200"})]),
    )
    assert [p.name for p in read.pods] == ["fourteen", "whole"]
    fourteen = read.pods[0].gpu
    assert fourteen is not None
    assert (fourteen.gpus, fourteen.memory_gib) == (2.0, 140.0)
    (problem,) = read.problems
    assert problem.column == "pod ml/many: spec.containers[].resources"
    assert "the pod asks 29 GPUs in all" in problem.message


@pytest.mark.parametrize(
    ("labels", "advertised", "locator", "shown", "count"),
    [
        ({}, {"nvidia.com/gpu": "1k"}, "status.allocatable.nvidia.com/gpu", "'1k' (1000)", 1000),
        ({"nvidia.com/gpu.count": "32"}, {}, "metadata.labels.nvidia.com/gpu.count", "'32'", 32),
        ({}, {"nvidia.com/gpu": "2Ki"}, "status.allocatable.nvidia.com/gpu", "'2Ki' (2048)", 2048),
    ],
)
def test_a_node_counting_more_gpus_than_a_server_holds_is_a_problem(
    labels: dict[str, str], advertised: dict[str, str], locator: str, shown: str, count: int
) -> None:
    """If a node advertises or labels more GPUs than the largest GPU servers hold (16), the count
    is a problem naming node, field and value, a suffixed quantity spelled out (1k is 1000); the
    count read is kept, as the user gave it (a plain count over the inventory's 64 is left to the
    inventory's own problem). 16 GPUs are no problem."""
    model = {"nvidia.com/gpu.product": "NVIDIA-L4"}
    read = read_kubectl_nodes(
        kube_list(
            node("n1", {**model, **labels}, extra=advertised),
            node("n2", model, extra={"nvidia.com/gpu": "16"}),
        ),
        "nodes.json",
        CATALOG,
    )
    (problem,) = read.problems
    assert problem.column == f"node n1: {locator}"
    assert problem.message.startswith(f"{shown} GPUs on one node are more than")
    assert "at most 16 GPUs" in problem.message
    counts = [f.value for h in read.hosts for f in h.facts if f.field == "gpus_per_host"]
    assert counts == [count, 16]


def test_gpu_memory_is_read_against_a_catalog_without_gpus() -> None:
    """With a catalog of no GPU there is no largest GPU to hold memory against: HAMi's gpumem is
    read as asked, with no problem and no traceback."""
    from planner.inputs.catalog import Catalog

    empty = Catalog(gpus={}, vgpu_profiles={}, mig_profiles={})
    asked = container(limits={"nvidia.com/gpu": "1", "nvidia.com/gpumem": "8192"})
    read = read_kubectl_pods(kube_list(pod("p-1", containers=[asked])), "pods.json", empty)
    assert read.problems == ()
    (only,) = read.pods
    assert only.gpu is not None
    assert only.gpu.memory_gib == 8.0


@pytest.mark.parametrize(
    ("selector", "named"),
    [
        ({"node.kubernetes.io/instance-type": "g5g.xlarge"}, "T4G"),
        ({"nvidia.com/gpu.product": "NVIDIA-Foo-9000"}, "NVIDIA-Foo-9000"),
    ],
)
def test_a_pod_pinned_to_a_gpu_the_catalog_lacks_is_kept_with_a_problem(
    selector: dict[str, str], named: str
) -> None:
    """If a pod's node selector pins it to a GPU no catalog model is (g5g's T4G), the pod is
    kept without a model, and a problem naming the label, its value and the GPU says its class
    may be planned on any model with its memory assumed, and how to add the GPU."""
    read = read_kubectl_pods(kube_list(_pinned(selector)), "pods.json", CATALOG)
    (only,) = read.pods
    assert only.gpu_models == ()
    (problem,) = read.problems
    (label,) = selector
    assert problem.column == f"pod ml/x-0: spec.nodeSelector.{label}"
    assert problem.row_kept
    assert f"'{selector[label]}'" in problem.message
    assert named in problem.message
    assert "catalog" in problem.fix
