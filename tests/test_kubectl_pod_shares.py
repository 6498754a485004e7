"""Tests of pods whose ``nvidia.com/gpu`` is a share of a GPU, as the node they are pinned to
advertises it: a MIG instance (single strategy), a time-sliced or MPS replica."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from importer_samples import CATALOG, container, kube_list, node, pod

from planner.inputs.importers.kubectl_pods import read_kubectl_pods
from planner.inputs.importers.mix import import_workloads


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


def _web_pods(count: int) -> bytes:
    return kube_list(
        *(
            pod(
                f"web-5d9f8c6b5d-{i}",
                owner=("ReplicaSet", "web-5d9f8c6b5d"),
                labels={"pod-template-hash": "5d9f8c6b5d"},
                containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
            )
            for i in range(count)
        )
    )


def test_pods_on_a_time_sliced_node_given_with_the_nodes_ask_one_replica_each() -> None:
    """Four pods asking nvidia.com/gpu: 1 on a node whose T4 is time-sliced 4 ways (GFD's
    nvidia.com/gpu.replicas: 4) ask a quarter of a GPU each when the nodes come with them; the
    pods read as shares are named in a note."""
    nodes = kube_list(
        node(
            "gpu-1",
            {"nvidia.com/gpu.product": "Tesla-T4", "nvidia.com/gpu.replicas": "4"},
            extra={"nvidia.com/gpu": "4"},
        )
    )
    mix = import_workloads([("pods.json", _web_pods(4))], CATALOG, nodes=[("nodes.json", nodes)])
    assert list(mix.frame["gpus"]) == [0.25]
    assert list(mix.frame["instances"]) == [4]
    assert any(n.text.startswith("4 pods on nodes that share their GPUs") for n in mix.notes)


def test_pods_asking_whole_gpus_without_their_nodes_say_how_to_give_them() -> None:
    """Without the nodes, nvidia.com/gpu pods are read as whole GPUs, with a note that on a
    shared node each is a share and how to give the nodes."""
    mix = import_workloads([("pods.json", _web_pods(2))], CATALOG)
    assert list(mix.frame["gpus"]) == [1]
    assert any(
        "2 pods ask nvidia.com/gpu on nodes no kubectl get nodes file gives" in n.text
        for n in mix.notes
    )


def test_the_nodes_replicas_replace_the_share_a_selector_assumed() -> None:
    """A pod pinned to Tesla-T4-SHARED is assumed a quarter of a GPU; its node, given, says the
    T4 is time-sliced 2 ways (nvidia.com/gpu.replicas: 2): half a GPU."""
    pinned = pod(
        "web-0",
        containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
        node_selector={"nvidia.com/gpu.product": "Tesla-T4-SHARED"},
    )
    nodes = kube_list(
        node("gpu-1", {"nvidia.com/gpu.product": "Tesla-T4-SHARED", "nvidia.com/gpu.replicas": "2"})
    )
    mix = import_workloads(
        [("pods.json", kube_list(pinned))], CATALOG, nodes=[("nodes.json", nodes)]
    )
    assert list(mix.frame["gpus"]) == [0.5]


def test_a_pod_listed_twice_is_one_instance_in_its_last_state() -> None:
    """A kubectl get pods -w stream lists a pod at each change: two pods seen Pending then
    Running are 2 instances, not 4, with a note naming the repeats; the same file given twice
    is counted once."""
    pending = pod("svc-a", owner=("StatefulSet", "svc"), containers=[_gpu_container()])
    running = pod("svc-a", owner=("StatefulSet", "svc"), containers=[_gpu_container("2")])
    other = pod("svc-b", owner=("StatefulSet", "svc"), containers=[_gpu_container()])
    stream = b"\n".join(json.dumps(p).encode() for p in (pending, other, running, other))
    read = read_kubectl_pods(stream, "watch.json", CATALOG)
    assert [(p.name, p.gpu and p.gpu.gpus) for p in read.pods] == [("svc-a", 2), ("svc-b", 1)]
    assert read.notes[0].text.startswith("2 pods listed more than once")
    assert "ml/svc-a (2×)" in read.notes[0].text
    twice = import_workloads([("a.json", stream), ("b.json", stream)], CATALOG)
    assert list(twice.frame["instances"]) == [2]
    assert len(twice.pods) == 2


def _gpu_container(count: str = "1") -> dict[str, object]:
    return container(limits={"nvidia.com/gpu": count}, requests={"cpu": "2"})


def test_a_pod_claiming_devices_through_dra_is_listed_with_a_problem() -> None:
    """A pod whose GPU comes from a DRA ResourceClaim (spec.resourceClaims) is left out with a
    problem naming its claim and how to describe the class, not noted as asking no GPU."""
    claimed = pod("dra-train-0", containers=[container(requests={"cpu": "4"})])
    claimed["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}]
    plain = pod("serve-0", containers=[_gpu_container()])
    read = read_kubectl_pods(kube_list(claimed, plain), "pods.json", CATALOG)
    assert [p.name for p in read.pods] == ["serve-0"]
    (problem,) = read.problems
    assert problem.column == "pod ml/dra-train-0: spec.resourceClaims"
    assert "gpu (template single-gpu)" in problem.message
    assert "workload CSV" in problem.fix


def test_the_input_formats_doc_says_how_shared_gpus_are_read() -> None:
    """docs/input-formats.md says how pods on shared nodes, DRA pods and repeated pods are read,
    and how DCGM series of a GPU several pods share are used."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "input-formats.md").read_text()
    for said in (
        "`<model>-MIG-<profile>`",
        "`gke-max-shared-clients-per-gpu`",
        "`spec.resourceClaims`",
        "counted once, in its last state",
        "split equally among the pods when they are replicas of one class",
    ):
        assert said in docs


def test_pods_on_a_node_advertising_its_instance_type_s_gpus_ten_times_ask_a_tenth() -> None:
    """If the nodes come with the pods and a g5.12xlarge (4 A10G) advertises 40 nvidia.com/gpu
    without GPU Feature Discovery's labels (the device plugin's time-slicing, 10 replicas), each
    pod on it asking nvidia.com/gpu: 1 asks a tenth of a GPU, as with nvidia.com/gpu.replicas:
    10, and its note names the node; a node advertising its instance type's 4 leaves whole GPUs."""
    nodes = kube_list(
        node(
            "gpu-1",
            {"node.kubernetes.io/instance-type": "g5.12xlarge"},
            extra={"nvidia.com/gpu": "40"},
        )
    )
    mix = import_workloads([("pods.json", _web_pods(4))], CATALOG, nodes=[("nodes.json", nodes)])
    assert list(mix.frame["gpus"]) == [pytest.approx(0.1)]
    assert any(
        n.field == "gpus" and "node gpu-1 advertises 10 per GPU of its instance type" in n.text
        for n in mix.notes
    )
    whole = kube_list(
        node(
            "gpu-1",
            {"node.kubernetes.io/instance-type": "g5.12xlarge"},
            extra={"nvidia.com/gpu": "4"},
        )
    )
    mix = import_workloads([("pods.json", _web_pods(4))], CATALOG, nodes=[("nodes.json", whole)])
    assert list(mix.frame["gpus"]) == [1]
