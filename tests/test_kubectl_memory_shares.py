"""Tests of a pod's GPU memory read against the GPU its node selector names (HAMi's and
Volcano's memory shares) or, with the nodes given, the GPU of the node it runs on."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, container, kube_list, node, pod

from planner.inputs.importers.kubectl_pods import group_pods, read_kubectl_pods
from planner.inputs.importers.mix import import_workloads

_L4 = {"nvidia.com/gpu.product": "NVIDIA-L4"}
_HAMI_HALF = {
    "nvidia.com/gpu": "1",
    "nvidia.com/gpumem-percentage": "50",
    "nvidia.com/gpucores": "50",
}
_VOLCANO_HALF = {"volcano.sh/vgpu-number": "1", "volcano.sh/vgpu-memory-percentage": "50"}


def _share_pods(limits: dict[str, str], selector: dict[str, str] | None) -> bytes:
    return kube_list(
        *(
            pod(
                f"pct-{i}",
                owner=("StatefulSet", "pct"),
                containers=[container(limits=limits, requests={"cpu": "1"})],
                node_selector=selector,
            )
            for i in range(2)
        )
    )


@pytest.mark.parametrize("limits", [_HAMI_HALF, _VOLCANO_HALF], ids=["hami", "volcano"])
def test_a_memory_percentage_is_of_the_selected_gpu_s_memory(limits: dict[str, str]) -> None:
    """If a pod asks 50 % of a GPU's memory (HAMi's nvidia.com/gpumem-percentage, Volcano's
    vgpu-memory-percentage) and its node selector names an L4 (24 GiB), it asks 12 GiB, derived
    from the L4, as KAI's gpu-fraction does; its class is 12 GiB, so two such pods fit one L4
    as they do today."""
    read = read_kubectl_pods(_share_pods(limits, _L4), "pods.json", CATALOG)
    assert read.problems == ()
    for each in read.pods:
        assert each.gpu is not None
        assert (each.gpu.memory_gib, each.gpu.memory_source) == (pytest.approx(12.0), "derived")
        assert "the selected L4's 24 GiB" in each.gpu.memory_text
    grouped = group_pods(read.pods, CATALOG)
    assert list(grouped.frame["memory_gib"]) == [pytest.approx(12.0)]
    assert list(grouped.frame["gpu_models"]) == ["L4"]


@pytest.mark.parametrize("limits", [_HAMI_HALF, _VOLCANO_HALF], ids=["hami", "volcano"])
def test_a_memory_percentage_without_a_gpu_named_is_of_an_assumed_gpu(
    limits: dict[str, str],
) -> None:
    """If no node selector names the GPU, 50 % of a GPU's memory is of the assumed 40 GiB GPU
    (20 GiB), marked assumed."""
    read = read_kubectl_pods(_share_pods(limits, None), "pods.json", CATALOG)
    gpu = read.pods[0].gpu
    assert gpu is not None
    assert (gpu.memory_gib, gpu.memory_source) == (pytest.approx(20.0), "assumed")
    assert "an assumed 40 GiB GPU" in gpu.memory_text


def test_whole_gpu_pods_on_given_nodes_take_their_node_s_gpu_memory() -> None:
    """If the nodes come with the pods and the pods' node (spec.nodeName) carries GFD's product
    NVIDIA-L4, pods asking nvidia.com/gpu: 1 without a selector are sized on the L4's 24 GiB
    (derived, naming the nodes), not an assumed 40 GiB, and their class stays free to be planned
    on any model; without the nodes the 40 GiB is assumed."""
    nodes = kube_list(
        node(
            "gpu-1",
            {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"},
            extra={"nvidia.com/gpu": "2"},
        )
    )
    pods = _share_pods({"nvidia.com/gpu": "1"}, None)
    mix = import_workloads([("pods.json", pods)], CATALOG, nodes=[("nodes.json", nodes)])
    assert list(mix.frame["memory_gib"]) == [pytest.approx(24.0)]
    assert list(mix.frame["gpu_models"]) == [""]
    (memory,) = [n for n in mix.notes if n.field == "memory_gib"]
    assert memory.source == "derived"
    assert "24 GiB of the L4 the pods run on" in memory.text
    alone = import_workloads([("pods.json", pods)], CATALOG)
    assert list(alone.frame["memory_gib"]) == [pytest.approx(40.0)]


@pytest.mark.parametrize(
    ("limits", "devices"),
    [
        ({"nvidia.com/gpu": "4", "nvidia.com/gpucores": "25", "nvidia.com/gpumem": "10000"}, 4),
        ({"nvidia.com/gpu": "2", "nvidia.com/gpumem-percentage": "50"}, 2),
        ({"volcano.sh/vgpu-number": "2", "volcano.sh/vgpu-cores": "50"}, 2),
    ],
    ids=["hami-cores", "hami-memory-share", "volcano-cores"],
)
def test_shares_of_several_vgpus_are_whole_gpus_not_one(
    limits: dict[str, str], devices: int
) -> None:
    """If a pod asks several HAMi or Volcano vGPUs with a share each (nvidia.com/gpu: 4 at
    gpucores 25), each vGPU is on a GPU of its own (a tensor-parallel pod sees 4 devices): it holds
    4 whole GPUs, marked assumed and saying why, never 1 GPU read."""
    read = read_kubectl_pods(_share_pods(limits, None), "pods.json", CATALOG)
    assert read.problems == ()
    gpu = read.pods[0].gpu
    assert gpu is not None
    assert (gpu.gpus, gpu.gpus_source) == (float(devices), "assumed")
    assert f"a share of each of {devices} GPUs, counted as {devices} whole GPUs" in gpu.gpus_text


@pytest.mark.parametrize(
    "limits",
    [
        {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "12288"},
        {"volcano.sh/vgpu-number": "1", "volcano.sh/vgpu-memory": "12288"},
        {"aliyun.com/gpu-mem": "12"},
    ],
    ids=["hami", "volcano", "alibaba"],
)
def test_memory_asked_in_mib_or_gib_is_a_share_of_the_selected_gpu(limits: dict[str, str]) -> None:
    """If a pod pinned to an L4 (24 GiB) asks 12 GiB of GPU memory in absolute terms, it asks
    half the L4 (derived), not 0.3 of an assumed 40 GiB GPU; unpinned, the 40 GiB is assumed."""
    pinned = read_kubectl_pods(_share_pods(limits, _L4), "pods.json", CATALOG).pods[0].gpu
    assert pinned is not None
    assert (pinned.gpus, pinned.gpus_source) == (pytest.approx(0.5), "derived")
    assert "of the selected L4's 24 GiB" in pinned.gpus_text
    free = read_kubectl_pods(_share_pods(limits, None), "pods.json", CATALOG).pods[0].gpu
    assert free is not None
    assert (free.gpus, free.gpus_source) == (pytest.approx(0.3), "assumed")


def test_kai_gpu_memory_is_a_share_of_the_selected_gpu() -> None:
    """If a pod pinned to an L4 carries KAI's gpu-memory: 12288 (MiB), it asks half the L4
    (derived), as its gpu-fraction: 0.5 would."""
    found = pod(
        "kai-0",
        containers=[container(requests={"cpu": "1"})],
        node_selector=_L4,
    )
    found["metadata"]["annotations"] = {"gpu-memory": "12288"}
    gpu = read_kubectl_pods(kube_list(found), "pods.json", CATALOG).pods[0].gpu
    assert gpu is not None
    assert (gpu.gpus, gpu.gpus_source) == (pytest.approx(0.5), "derived")
    assert "of the selected L4's 24 GiB" in gpu.gpus_text


def _hami_l40s_node() -> bytes:
    hami = node("gpu-1", extra={"nvidia.com/gpu": "40"})
    hami["metadata"]["annotations"] = {
        "hami.io/node-nvidia-register": "GPU-00000000-aaaa-bbbb-cccc-dddddddddddd,10,46068,100,"
        "NVIDIA-NVIDIA L40S,0,true,0,hami-core:"
    }
    return kube_list(hami)


@pytest.mark.parametrize(
    ("limits", "field", "expected"),
    [
        ({"nvidia.com/gpu": "1", "nvidia.com/gpumem-percentage": "50"}, "memory_gib", 24.0),
        ({"nvidia.com/gpu": "1", "nvidia.com/gpumem": "24576"}, "gpus", 0.5),
        ({"nvidia.com/gpu": "1"}, "memory_gib", 48.0),
    ],
    ids=["memory-share", "memory-mib", "whole"],
)
def test_pods_on_a_given_hami_node_are_sized_on_the_gpu_it_registered(
    limits: dict[str, str], field: str, expected: float
) -> None:
    """If the nodes come with the pods and the pods' node is one of HAMi's, its GPU named only by
    its hami.io/node-nvidia-register annotation (an L40S, 48 GiB), a pod asking 50 % of a GPU's
    memory holds 24 GiB and one asking 24576 MiB half a GPU (derived, naming the L40S), not
    shares of an assumed 40 GiB GPU; a whole GPU is the L40S's 48 GiB."""
    pods = _share_pods(limits, None)
    mix = import_workloads(
        [("pods.json", pods)], CATALOG, nodes=[("nodes.json", _hami_l40s_node())]
    )
    assert list(mix.frame[field]) == [pytest.approx(expected)]
    (note,) = [n for n in mix.notes if n.field == field]
    assert note.source == "derived"
    assert "L40S" in note.text
    assert "assumed" not in note.text


def test_kai_gpu_memory_on_a_given_gfd_labelled_node_is_a_share_of_its_gpu() -> None:
    """If the nodes come with the pods and the pod's node carries GFD's product NVIDIA-L4, KAI's
    gpu-memory: 12288 (MiB) without a selector is half the L4 (derived), not 0.3 of an assumed
    40 GiB GPU."""
    nodes = kube_list(
        node("gpu-1", {"nvidia.com/gpu.product": "NVIDIA-L4"}, extra={"nvidia.com/gpu": "1"})
    )
    found = pod("kai-0", owner=("StatefulSet", "kai"), containers=[container()])
    found["metadata"]["annotations"] = {"gpu-memory": "12288"}
    mix = import_workloads(
        [("pods.json", kube_list(found))], CATALOG, nodes=[("nodes.json", nodes)]
    )
    assert list(mix.frame["gpus"]) == [pytest.approx(0.5)]
    (note,) = [n for n in mix.notes if n.field == "gpus"]
    assert note.source == "derived"
    assert "the L4's 24 GiB its node carries" in note.text


def _typed_pod(gpu_type: str) -> bytes:
    found = pod(
        "typed-0",
        owner=("StatefulSet", "typed"),
        containers=[container(limits={"nvidia.com/gpu": "1", "nvidia.com/gpumem": "10240"})],
    )
    found["metadata"]["annotations"] = {"nvidia.com/use-gputype": gpu_type}
    return kube_list(found)


def test_hami_s_gpu_type_annotation_pins_the_pod_to_the_gpus_it_names() -> None:
    """If a HAMi pod carries nvidia.com/use-gputype: A100 (HAMi takes any GPU whose type contains
    A100), its class may use the catalog's A100s only, and its 10240 MiB is a share of the
    smallest (a 40 GB A100: 0.25 GPU, derived), not of an assumed GPU."""
    read = read_kubectl_pods(_typed_pod("A100"), "pods.json", CATALOG)
    assert read.problems == ()
    (typed,) = read.pods
    assert typed.gpu_models == (
        "A100-40GB-PCIe",
        "A100-40GB-SXM",
        "A100-80GB-PCIe",
        "A100-80GB-SXM",
    )
    assert typed.gpu is not None
    assert (typed.gpu.gpus, typed.gpu.gpus_source) == (pytest.approx(0.25), "derived")


def test_a_gpu_type_annotation_naming_no_catalog_gpu_is_a_problem_pod_kept() -> None:
    """If nvidia.com/use-gputype names a type no catalog GPU's name contains, a problem names
    the annotation and the type; the pod is kept, on any model."""
    read = read_kubectl_pods(_typed_pod("MI300X"), "pods.json", CATALOG)
    assert [p.name for p in read.pods] == ["typed-0"]
    assert read.pods[0].gpu_models == ()
    (problem,) = read.problems
    assert problem.column == "pod ml/typed-0: metadata.annotations.nvidia.com/use-gputype"
    assert "'MI300X'" in problem.message
