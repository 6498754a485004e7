"""Tests of pods whose ``nvidia.com/gpu`` is a share of a GPU, as the node they are pinned to
advertises it: a MIG instance (single strategy), a time-sliced or MPS replica."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, container, kube_list, pod

from planner.inputs.importers.kubectl_pods import read_kubectl_pods


def _one_gpu_pod(selector: dict[str, str]) -> dict[str, object]:
    return pod(
        "web-0",
        containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
        node_selector=selector,
    )


def _gpu_of(selector: dict[str, str]) -> tuple[float, float | None, str]:
    read = read_kubectl_pods(kube_list(_one_gpu_pod(selector)), "pods.json", CATALOG)
    gpu = read.pods[0].gpu
    assert gpu is not None
    return gpu.gpus, gpu.memory_gib, gpu.gpus_text


def test_a_pod_pinned_to_a_mig_single_product_asks_one_mig_instance() -> None:
    """Under the MIG single strategy every nvidia.com/gpu of the node is a slice: a pod pinned to
    GFD's product A100-SXM4-40GB-MIG-1g.5gb asks 1 of 7 compute slices and 5 GiB, not an A100."""
    gpus, memory, text = _gpu_of({"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"})
    assert gpus == pytest.approx(1 / 7)
    assert memory == 5
    assert "MIG 1g.5gb" in text


def test_a_gke_partition_size_selector_asks_one_mig_instance() -> None:
    """GKE's cloud.google.com/gke-gpu-partition-size names the MIG profile of the node's GPUs."""
    gpus, memory, _ = _gpu_of(
        {
            "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
            "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
        }
    )
    assert gpus == pytest.approx(1 / 7)
    assert memory == 5


@pytest.mark.parametrize(
    ("selector", "share"),
    [
        ({"nvidia.com/gpu.product": "Tesla-T4-SHARED"}, 0.25),
        ({"nvidia.com/gpu.sharing-strategy": "mps"}, 0.25),
        (
            {"nvidia.com/gpu.sharing-strategy": "time-slicing", "nvidia.com/gpu.replicas": "8"},
            1 / 8,
        ),
        (
            {
                "cloud.google.com/gke-accelerator": "nvidia-l4",
                "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
                "cloud.google.com/gke-max-shared-clients-per-gpu": "3",
            },
            1 / 3,
        ),
    ],
)
def test_a_pod_pinned_to_a_shared_gpu_asks_one_replica(
    selector: dict[str, str], share: float
) -> None:
    """A pod pinned to a time-sliced or MPS-shared node asks one replica of a GPU: 1/replicas
    when the selector gives them, else the assumed share (0.25), with the reason in its text."""
    gpus, _, text = _gpu_of(selector)
    assert gpus == pytest.approx(share)
    assert "1 replica of a GPU shared by" in text


def test_a_pod_pinned_to_a_plain_product_asks_whole_gpus() -> None:
    """A pod pinned to an unshared product still asks 1 whole GPU, in words without '(s)'."""
    gpus, memory, text = _gpu_of({"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"})
    assert (gpus, memory) == (1, None)
    assert text == "1 whole GPU (nvidia.com/gpu)"
