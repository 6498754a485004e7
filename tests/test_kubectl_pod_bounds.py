"""Tests of kubectl pods pinned to a GPU by a cloud's node label, and of GPU requests no node or
GPU could hold."""

from __future__ import annotations

from typing import Any

import pytest
from importer_samples import CATALOG, container, kube_list, pod

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
