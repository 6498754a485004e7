"""Tests of GPU workloads read from ``kubectl get pods -A -o json`` or ``-o yaml`` and grouped into
classes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from importer_samples import CATALOG, as_kubectl_yaml, container, kube_list, node, pod

from planner.inputs.importers.kubectl_pods import (
    PodRequest,
    group_pods,
    label_keys,
    owner_of,
    pods_frame,
    read_kubectl_pods,
    workload_kind,
)
from planner.inputs.problems import InputError
from planner.inputs.workloads import WorkloadKind, workloads_from_frame


def _gpu(count: str = "1", cpu: str = "4", memory: str = "16Gi") -> dict[str, object]:
    return container(limits={"nvidia.com/gpu": count}, requests={"cpu": cpu, "memory": memory})


def _pods(*items: dict[str, object]) -> list[PodRequest]:
    return list(read_kubectl_pods(kube_list(*items), "pods.json", CATALOG).pods)


def _deployment_pod(suffix: str) -> dict[str, object]:
    return pod(
        f"chat-7d9f8c6b5d-{suffix}",
        owner=("ReplicaSet", "chat-7d9f8c6b5d"),
        labels={"pod-template-hash": "7d9f8c6b5d", "app": "chat"},
        containers=[_gpu()],
    )


def test_kubectl_yaml_of_pods_reads_as_its_json() -> None:
    """``kubectl get pods -A -o yaml`` gives the pods, owners, requests and problems its JSON
    gives (one pod's GPU limit unreadable)."""
    pods = kube_list(
        _deployment_pod("a"),
        pod("bad", containers=[container(limits={"nvidia.com/gpu": "x"})]),
        pod("job-1", owner=("Job", "nightly"), containers=[_gpu("2", cpu="500m")]),
    )
    as_json = read_kubectl_pods(pods, "pods", CATALOG)
    as_yaml = read_kubectl_pods(as_kubectl_yaml(pods), "pods", CATALOG)
    assert as_yaml.pods == as_json.pods
    assert as_yaml.problems == as_json.problems
    assert [(p.name, p.owner_name) for p in as_yaml.pods] == [
        ("chat-7d9f8c6b5d-a", "chat"),
        ("bad", "bad"),
        ("job-1", "nightly"),
    ]
    assert [p.column for p in as_yaml.problems] == ["pod ml/bad: main nvidia.com/gpu"]


def test_owners_deployment_cronjob_statefulset_and_bare_pod() -> None:
    """A ReplicaSet's pods belong to its Deployment (hash stripped), a Job's named after a
    scheduled minute to its CronJob, other owners as they are, a pod without owner to itself."""
    assert owner_of(
        [{"kind": "ReplicaSet", "name": "chat-7d9f8c6b5d"}],
        {"pod-template-hash": "7d9f8c6b5d"},
        "x",
    ) == ("Deployment", "chat", "derived")
    assert owner_of([{"kind": "ReplicaSet", "name": "web-5f7c9b8d4"}], {}, "x") == (
        "Deployment",
        "web",
        "derived",
    )
    assert owner_of([{"kind": "Job", "name": "etl-28391234"}], {}, "x") == (
        "CronJob",
        "etl",
        "derived",
    )
    assert owner_of([{"kind": "Job", "name": "once"}], {}, "x") == ("Job", "once", "read")
    assert owner_of([{"kind": "StatefulSet", "name": "db"}], {}, "x") == (
        "StatefulSet",
        "db",
        "read",
    )
    assert owner_of(None, {}, "lonely") == ("Pod", "lonely", "read")


@pytest.mark.parametrize(
    ("owner", "name", "kind"),
    [
        ("StatefulSet", "jupyter-alice", WorkloadKind.NOTEBOOK),
        ("Notebook", "alice", WorkloadKind.NOTEBOOK),
        ("Job", "bert-train", WorkloadKind.TRAINING),
        ("PyTorchJob", "llm", WorkloadKind.TRAINING),
        ("CronJob", "etl", WorkloadKind.BATCH),
        ("Deployment", "chat", WorkloadKind.INFERENCE),
        ("Pod", "debug", WorkloadKind.INFERENCE),
    ],
)
def test_kind_heuristic(owner: str, name: str, kind: WorkloadKind) -> None:
    """Notebook and training names come first, then Jobs are batch, anything else inference."""
    assert workload_kind(owner, name)[0] is kind


def test_pods_of_a_deployment_are_one_class_with_assumptions_marked() -> None:
    """Two pods of one Deployment are one inference class of 2 instances, 1 GPU, 4 vCPUs and
    16 GiB; kind, busy fraction, schedule, isolation and memory are marked assumed, and the frame
    passes the workload validator."""
    pods = _pods(_deployment_pod("aaaaa"), _deployment_pod("bbbbb"))
    grouped = group_pods(pods, CATALOG)
    row = grouped.frame.iloc[0]
    assert (
        row["name"],
        row["kind"],
        row["instances"],
        row["gpus"],
        row["vcpus"],
        row["ram_gib"],
        row["active_hours"],
    ) == ("chat", "inference", 2, 1.0, 4.0, 16.0, "24x7")
    sources = {n.field: n.source for n in grouped.notes if n.subject == "chat"}
    assert sources["kind"] == sources["busy_fraction"] == sources["memory_gib"] == "assumed"
    assert sources["instances"] == "read"
    assert grouped.class_of[("ml", "chat-7d9f8c6b5d-aaaaa")] == "chat"
    loaded = workloads_from_frame(grouped.frame, CATALOG, file_name="pods")
    assert loaded.value[0].instances == 2


def test_grouped_by_a_label_the_user_picks() -> None:
    """Grouping by ``team`` makes one class per value across owners; pods without the label
    are grouped by owner, with a note."""
    pods = _pods(
        pod("a-0", owner=("StatefulSet", "a"), labels={"team": "vision"}, containers=[_gpu()]),
        pod("b-0", owner=("StatefulSet", "b"), labels={"team": "vision"}, containers=[_gpu()]),
        pod("c-0", owner=("StatefulSet", "c"), containers=[_gpu()]),
    )
    grouped = group_pods(pods, CATALOG, group_by="team")
    assert list(grouped.frame["name"]) == ["vision", "c"]
    assert list(grouped.frame["instances"]) == [2, 1]
    assert any("1 GPU pod lacks label team" in n.text for n in grouped.notes)
    assert label_keys(pods) == ["team"]


def test_init_containers_follow_the_kubernetes_rule() -> None:
    """The pod requests max(largest init container, sum of containers): an 8-core init beside
    two 2-core containers is 8 cores; a sidecar (restartPolicy Always) adds to both sides."""
    pods = _pods(
        pod(
            "p",
            containers=[_gpu(cpu="2", memory="1Gi"), container("b", requests={"cpu": "2"})],
            init_containers=[container("init", requests={"cpu": "8", "memory": "4Gi"})],
        ),
        pod(
            "q",
            containers=[_gpu(cpu="2")],
            init_containers=[
                container("side", requests={"cpu": "1"}, restart_policy="Always"),
                container("init", requests={"cpu": "2"}),
            ],
        ),
    )
    assert (pods[0].cpu_cores, pods[0].ram_gib) == (8.0, 4.0)
    assert pods[1].cpu_cores == 3.0


def test_mig_hami_and_shared_requests() -> None:
    """A MIG 1g.10gb request is 1 of 7 compute slices and 10 GiB; HAMi's gpucores 30 % and
    gpumem 8000 MiB are 0.3 GPU and 7.8 GiB; a time-sliced replica is an assumed quarter GPU;
    requests set only as limits count."""
    pods = _pods(
        pod("mig", containers=[container(limits={"nvidia.com/mig-1g.10gb": "1"})]),
        pod(
            "hami",
            containers=[
                container(
                    limits={
                        "nvidia.com/gpu": "1",
                        "nvidia.com/gpumem": "8000",
                        "nvidia.com/gpucores": "30",
                    }
                )
            ],
        ),
        pod("shared", containers=[container(limits={"nvidia.com/gpu.shared": "1"})]),
    )
    mig, hami, shared = (p.gpu for p in pods)
    assert mig is not None
    assert (mig.gpus, mig.memory_gib, mig.mig_profile) == (pytest.approx(1 / 7), 10.0, "1g.10gb")
    assert hami is not None
    assert (hami.gpus, hami.memory_gib) == (pytest.approx(0.3), pytest.approx(8000 / 1024))
    assert shared is not None
    assert (shared.gpus, shared.gpus_source) == (0.25, "assumed")


def test_node_selector_model_sets_memory_and_gpu_models() -> None:
    """A pod pinned to ``nvidia.com/gpu.product: NVIDIA-L40S`` runs on L40S: its class may only use
    L40S and its memory is the L40S's 48 GiB per GPU (derived)."""
    pods = _pods(
        pod(
            "x-0",
            owner=("StatefulSet", "x"),
            containers=[_gpu()],
            node_selector={"nvidia.com/gpu.product": "NVIDIA-L40S"},
        )
    )
    row = group_pods(pods, CATALOG).frame.iloc[0]
    assert (row["gpu_models"], row["memory_gib"]) == ("L40S", 48.0)


def test_pods_without_gpus_and_finished_pods_are_listed_apart() -> None:
    """CPU-only pods and finished GPU pods stay in the pod table but are not instances; notes
    count them."""
    pods = _pods(
        pod("web-0", owner=("StatefulSet", "web"), containers=[container()]),
        pod("done", containers=[_gpu()], phase="Succeeded"),
        pod("live", containers=[_gpu()]),
    )
    grouped = group_pods(pods, CATALOG)
    assert list(grouped.frame["name"]) == ["live"]
    texts = " ".join(n.text for n in grouped.notes)
    assert "1 pod requests no GPU" in texts
    assert "1 GPU pod has finished" in texts
    assert list(pods_frame(pods)["pod"]) == ["web-0", "done", "live"]


def test_same_owner_name_in_two_namespaces() -> None:
    """Owners of one name in two namespaces are two classes named namespace/name."""
    pods = _pods(
        pod("a-0", namespace="x", owner=("StatefulSet", "a"), containers=[_gpu()]),
        pod("a-0", namespace="y", owner=("StatefulSet", "a"), containers=[_gpu()]),
    )
    assert list(group_pods(pods, CATALOG).frame["name"]) == ["x/a", "y/a"]


def test_nodes_given_as_pods_are_refused() -> None:
    """Nodes output given as pods is refused, saying where it belongs."""
    with pytest.raises(InputError, match="inventory") as caught:
        read_kubectl_pods(json.dumps({"kind": "Node"}).encode(), "n.json", CATALOG)
    (problem,) = caught.value.problems
    assert problem.fix == (
        "give it as an inventory file (the Inventory page's import, or --inventory on the "
        "command line)"
    )


def test_nodes_among_workload_files_are_refused_in_words_for_both_dashboard_and_cli() -> None:
    """Nodes output given to the workload import is refused naming both ways to give it as
    inventory: the dashboard's Inventory page (which has no flags) and --inventory."""
    from planner.inputs.importers.mix import import_workloads

    nodes = kube_list(node("gpu-1", {"nvidia.com/gpu.product": "NVIDIA-L4"}))
    with pytest.raises(InputError) as caught:
        import_workloads([("nodes.json", nodes)], CATALOG)
    (problem,) = caught.value.problems
    assert "Inventory page's import" in problem.fix
    assert "--inventory on the command line" in problem.fix


def test_a_class_the_workload_mix_refuses_is_traced_to_the_pods_file() -> None:
    """A class whose GPU request the workload mix refuses is reported at the pods file and the
    request it came from, naming the class; the file-level refusal names the files given."""
    from planner.inputs.importers.mix import import_workloads

    huge = pod("p-1", containers=[_gpu(cpu="10000")])
    with pytest.raises(InputError) as caught:
        import_workloads([("pods.json", kube_list(huge))], CATALOG).workloads(CATALOG)
    first, *_, last = caught.value.problems
    assert (first.file, first.column) == ("pods.json", "spec.containers[].resources.requests.cpu")
    assert first.message.startswith("class p-1: vcpus 10000 is out of range")
    assert last.file == "pods.json"
    assert last.message == "no usable workload row"


def test_a_negative_gpu_request_is_a_problem_not_a_silent_zero() -> None:
    """A negative GPU request is reported with its pod and container; the pod counts no GPU."""
    negative = pod("p-1", containers=[container(limits={"nvidia.com/gpu": "-1"})])
    read = read_kubectl_pods(kube_list(negative), "pods.json", CATALOG)
    (problem,) = read.problems
    assert problem.column == "pod ml/p-1: main nvidia.com/gpu"
    assert "'-1' is negative" in problem.message
    assert read.pods[0].gpu is None


def test_pods_without_a_gpu_say_why_no_class_results() -> None:
    """When no pod holds or waits for a GPU, the problem says how many request none and how many
    have finished, and which requests count as GPUs."""
    pods = [
        pod("cpu-1", containers=[container(requests={"cpu": "1"})]),
        pod("done-1", containers=[container(limits={"nvidia.com/gpu": "1"})], phase="Succeeded"),
    ]
    read = read_kubectl_pods(kube_list(*pods), "pods.json", CATALOG)
    grouped = group_pods(read.pods, CATALOG)
    assert grouped.frame.empty
    (problem,) = grouped.problems
    assert problem.file == "pods.json"
    assert "none of the 2 pods holds or waits for a GPU (1 request none, 1 have finished)" in (
        problem.message
    )
    assert "nvidia.com/gpu" in problem.fix


def test_an_unknown_mig_profile_leaves_the_pod_out_naming_the_known_profiles() -> None:
    """A pod requesting nvidia.com/mig-9g.99gb, a profile no catalog GPU has, is left out with
    a problem naming pod, container and resource and listing the nearest known profiles; it was
    read as a whole GPU with 99 GiB assumed from the name. The other pods are read."""
    read = read_kubectl_pods(
        kube_list(
            pod("odd", containers=[container(limits={"nvidia.com/mig-9g.99gb": "1"})]),
            pod("fine", containers=[container(limits={"nvidia.com/mig-1g.10gb": "1"})]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["fine"]
    (problem,) = read.problems
    assert problem.column == "pod ml/odd: main nvidia.com/mig-9g.99gb"
    assert "9g.99gb is no profile of any GPU in the catalog: pod left out" in problem.message
    assert "such as the nearest: 3g.93gb, 4g.93gb, 4g.96gb, 7g.40gb, 7g.80gb" in problem.fix


def test_a_file_whose_every_pod_is_left_out_says_so() -> None:
    """When every pod requests an unknown MIG profile the file is refused listing them, and
    not as 'no pod in the file'."""
    data = kube_list(pod("odd", containers=[container(limits={"nvidia.com/mig-9g.99gb": "1"})]))
    with pytest.raises(InputError) as caught:
        read_kubectl_pods(data, "pods.json", CATALOG)
    first, last = caught.value.problems
    assert "9g.99gb" in first.message
    assert last.message == "every pod in the file was left out (1)"


@pytest.mark.parametrize(
    "limits",
    [
        {"nvidia.com/mig-1g.5gb": "1", "nvidia.com/mig-2g.10gb": "1"},
        {"nvidia.com/gpu": "1", "nvidia.com/mig-1g.10gb": "1"},
        {"nvidia.com/gpu": "1", "nvidia.com/gpu.shared": "2"},
    ],
)
def test_a_container_with_two_gpu_resources_is_left_out_not_counted_short(
    limits: dict[str, str],
) -> None:
    """A container requesting two GPU resources was read as one of them (a whole GPU or a MIG
    instance dropped); its pod is left out with a problem naming both resources, the others
    are read."""
    read = read_kubectl_pods(
        kube_list(
            pod("two", containers=[container(limits=limits)]),
            pod("one", containers=[container(limits={"nvidia.com/gpu": "1"})]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["one"]
    (problem,) = read.problems
    assert problem.column == "pod ml/two: main resources"
    assert all(resource in problem.message for resource in limits)
    assert "workload CSV" in problem.fix


def test_a_zero_second_gpu_resource_does_not_leave_the_pod_out() -> None:
    """A resource requested at 0 beside a real request is no second request: the pod is read
    with its one MIG instance."""
    limits = {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "2"}
    read = read_kubectl_pods(
        kube_list(pod("p", containers=[container(limits=limits)])), "pods.json", CATALOG
    )
    (only,) = read.pods
    assert only.gpu is not None
    assert only.gpu.mig_profile == "1g.10gb"
    assert not read.problems


@pytest.mark.parametrize(
    ("limit", "said"),
    [
        ("abc", "'abc' is not a Kubernetes quantity"),
        ("-1", "'-1' is not a whole number of at least 0"),
        ("1.5", "'1.5' is not a whole number of at least 0"),
        ("500m", "'500m' is not a whole number of at least 0"),
        ("2", "the limit 2 is not the request 1: Kubernetes requires them equal"),
    ],
)
def test_a_bad_gpu_limit_beside_a_good_request_is_a_problem_naming_pod_and_field(
    limit: str, said: str
) -> None:
    """A container's nvidia.com/gpu limit beside its request that is unreadable, negative, not a
    whole number or another number than the request (Kubernetes takes whole numbers of an
    extended resource, its limit equal to its request) is one problem naming the pod, the
    container and the limits field, saying the request is read; the pod is read with it. The
    limit was ignored in silence."""
    bad = container(requests={"nvidia.com/gpu": "1"}, limits={"nvidia.com/gpu": limit})
    read = read_kubectl_pods(kube_list(pod("p-1", containers=[bad])), "pods.json", CATALOG)
    (problem,) = read.problems
    assert problem.column == "pod ml/p-1: main limits nvidia.com/gpu"
    assert said in problem.message
    assert problem.message.endswith("the request 1 is read")
    (only,) = read.pods
    assert only.gpu is not None
    assert only.gpu.gpus == 1.0


def test_a_gpu_limit_equal_to_its_request_or_alone_is_no_problem() -> None:
    """A limit equal to the request ('1' and 1), a limit alone, and a CPU limit above its
    request (allowed for CPU and memory) are read without a problem."""
    pods = [
        pod(
            "same",
            containers=[
                container(requests={"nvidia.com/gpu": "1"}, limits={"nvidia.com/gpu": "1"})
            ],
        ),
        pod("alone", containers=[container(limits={"nvidia.com/mig-1g.10gb": "2"})]),
        pod(
            "cpu",
            containers=[
                container(
                    requests={"nvidia.com/gpu": "2", "cpu": "1"},
                    limits={"nvidia.com/gpu": "2", "cpu": "4"},
                )
            ],
        ),
    ]
    read = read_kubectl_pods(kube_list(*pods), "pods.json", CATALOG)
    assert not read.problems
    assert [p.gpu.gpus for p in read.pods if p.gpu is not None] == [1.0, pytest.approx(2 / 7), 2.0]


@pytest.mark.parametrize(
    ("resource", "asked", "read_as"),
    [("nvidia.com/gpu", "1.5", 2.0), ("nvidia.com/gpu", "500m", 1.0)],
)
def test_a_gpu_count_that_is_not_whole_is_a_problem_and_read_rounded_up(
    resource: str, asked: str, read_as: float
) -> None:
    """Kubernetes refuses a pod asking 1.5 GPUs (extended resources are whole), so such output
    was edited: a problem naming pod, container and resource, the pod read with the whole
    devices it would need. It was read as 1.5 GPUs in silence."""
    odd = container(requests={resource: asked})
    read = read_kubectl_pods(kube_list(pod("p-1", containers=[odd])), "pods.json", CATALOG)
    (problem,) = read.problems
    assert problem.column == f"pod ml/p-1: main {resource}"
    assert f"'{asked}' is not a whole number" in problem.message
    (only,) = read.pods
    assert only.gpu is not None
    assert only.gpu.gpus == read_as


def test_a_list_without_a_kind_of_pods_is_read() -> None:
    """``{"items": [...]}`` of pods without the list's kind is read as kubectl's list is."""
    data = json.dumps({"items": [pod("p1"), pod("p2")]}).encode()
    read = read_kubectl_pods(data, "p.json", CATALOG)
    assert [p.name for p in read.pods] == ["p1", "p2"]


def test_a_kindless_node_given_as_pods_is_refused_as_nodes_output() -> None:
    """An object without a kind that has metadata and status objects and no containers is a
    node to the pod reader as to detection: the file is refused, saying where it belongs."""
    kindless = {k: v for k, v in node("n").items() if k != "kind"}
    with pytest.raises(InputError, match="kubectl get nodes output"):
        read_kubectl_pods(json.dumps([pod("p"), kindless]).encode(), "p.json", CATALOG)


@pytest.mark.parametrize(
    ("resource", "asked"),
    [
        ("nvidia.com/gpu", "1." + "5" * 5000),
        ("nvidia.com/gpu", "9" * 5000),
        ("cpu", "-" + "2" * 5000),
        ("memory", "1" * 5000 + "Qi"),
    ],
)
def test_a_request_too_long_to_quote_is_cut_in_its_problem(resource: str, asked: str) -> None:
    """A request of 5,000 characters is named in its problem cut, its length said: a problem
    stays a line, whatever the file holds."""
    odd = container(requests={resource: asked}, limits={resource: asked})
    read = read_kubectl_pods(kube_list(pod("p-1", containers=[odd])), "pods.json", CATALOG)
    assert read.problems
    for problem in read.problems:
        assert len(problem.message) + len(problem.fix) < 600


_LONG = "x" * 5000


@pytest.mark.parametrize(
    ("name", "resources"),
    [
        (_LONG, {"nvidia.com/gpu": "1.5"}),
        (_LONG, {"cpu": "lots"}),
        ("main", {f"nvidia.com/mig-{_LONG}": "1"}),
        ("main", {f"nvidia.com/mig-{_LONG}": "1.5"}),
        ("main", {f"nvidia.com/mig-1g.{_LONG}": "1", "nvidia.com/gpu": "1"}),
    ],
    ids=["container name", "container name, cpu", "MIG resource", "MIG count", "two resources"],
)
def test_a_container_or_resource_name_too_long_to_quote_is_cut_where_its_problem_names_it(
    name: str, resources: dict[str, str]
) -> None:
    """A container name or a resource key of 5,000 characters is cut in the problem's column
    and message, its length said, as values are: a problem stays a line (the column held the
    whole name)."""
    odd = container(name, requests=resources, limits=resources)
    read = read_kubectl_pods(
        kube_list(pod("p-1", containers=[odd]), pod("p-2", containers=[_gpu()])),
        "pods.json",
        CATALOG,
    )
    assert read.problems
    for problem in read.problems:
        assert len(problem.column or "") < 200, problem.column
        assert len(problem.message) + len(problem.fix) < 600, problem.message
        assert "(5,0" in f"{problem.column} {problem.message}"


def _annotated(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    """A pod asking for GPUs by annotation, as KAI Scheduler and Run:ai take it."""
    item = pod(name, containers=[container(requests={"cpu": "2", "memory": "8Gi"})])
    item["metadata"]["annotations"] = annotations
    return item


def test_a_kai_gpu_fraction_or_gpu_memory_annotation_is_a_fractional_gpu_request() -> None:
    """If a pod asks for a GPU share by KAI Scheduler's (Run:ai's) annotation, with no GPU
    resource, it is a fractional GPU request, not a pod without a GPU."""
    read = read_kubectl_pods(
        kube_list(
            _annotated("half", {"gpu-fraction": "0.5"}),
            _annotated("mem", {"gpu-memory": "8192"}),
            _annotated("two", {"gpu-fraction": "0.25", "gpu-fraction-num-devices": "2"}),
        ),
        "pods.json",
        CATALOG,
    )
    gpus = {p.name: p.gpu for p in read.pods}
    half, mem, two = gpus["half"], gpus["mem"], gpus["two"]
    assert half is not None
    assert mem is not None
    assert two is not None
    assert (half.gpus, half.memory_gib) == (0.5, None)
    assert (mem.memory_gib, mem.gpus_source) == (8.0, "assumed")
    assert mem.gpus == pytest.approx(8 / 40)
    assert two.gpus == 2.0
    assert read.problems == ()
    grouped = group_pods(read.pods, CATALOG)
    assert sorted(grouped.frame["gpus"]) == [pytest.approx(0.2), 0.5, 2.0]


def test_an_unread_gpu_resource_or_annotation_leaves_the_pod_out_naming_it() -> None:
    """If a pod asks for GPUs by another vendor's resource or an annotation that is not KAI's,
    it is left out with a problem naming what it asked, never counted as asking no GPU."""
    read = read_kubectl_pods(
        kube_list(
            _annotated("runai", {"runai-gpu-fraction": "0.25"}),
            pod("amd", containers=[container(limits={"amd.com/gpu": "1"})]),
            pod(
                "intel",
                containers=[
                    container(limits={"gpu.intel.com/i915": "1", "gpu.intel.com/memory.max": "4G"})
                ],
            ),
            _annotated("bad", {"gpu-fraction": "1.5"}),
            pod("whole", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["whole"]
    text = " ".join(f"{p.column} {p.message}" for p in read.problems)
    for asked in (
        "runai-gpu-fraction",
        "amd.com/gpu is a GPU resource",
        "gpu.intel.com/i915, gpu.intel.com/memory.max are GPU resources",
        "'1.5' is not a share of a GPU",
    ):
        assert asked in text
    assert text.count("pod left out") == 4


def test_a_gpu_pod_in_phase_unknown_is_not_called_finished() -> None:
    """If a GPU pod's phase is Unknown (its node stopped reporting), the note says so and does
    not count it among the finished (Succeeded or Failed) pods."""
    grouped = group_pods(
        _pods(
            pod("lost", containers=[_gpu()], phase="Unknown"),
            pod("done", containers=[_gpu()], phase="Succeeded"),
            pod("live", containers=[_gpu()]),
        ),
        CATALOG,
    )
    texts = [n.text for n in grouped.notes if n.locator == "status.phase"]
    assert any(t.startswith("1 GPU pod has finished") for t in texts)
    assert any(t.startswith("1 GPU pod in phase Unknown") for t in texts)
    assert list(grouped.frame["instances"]) == [1]


def _alibaba(name: str, limits: dict[str, str], labels: dict[str, str] | None = None) -> Any:
    return pod(name, labels=labels, containers=[container(limits=limits)])


def test_alibaba_gpu_sharing_requests_are_memory_and_core_shares() -> None:
    """If a pod asks Alibaba Cloud's GPU sharing for aliyun.com/gpu-mem (GiB), it holds that GPU
    memory and, without aliyun.com/gpu-core.percentage, the share of an assumed 40 GiB GPU it is
    (8 GiB = 0.2 GPU); gpu-core.percentage 30 makes it 0.3 GPU; the pod label aliyun.com/gpu-count
    2 spreads 8 GiB as 4 GiB on each of 2 GPUs, shares of 2 GPUs held as 2 whole GPUs. The YAML
    of the same pods reads alike."""
    pods = kube_list(
        _alibaba("mem", {"aliyun.com/gpu-mem": "8"}),
        _alibaba("core", {"aliyun.com/gpu-mem": "6", "aliyun.com/gpu-core.percentage": "30"}),
        _alibaba("two", {"aliyun.com/gpu-mem": "8"}, {"aliyun.com/gpu-count": "2"}),
    )
    read = read_kubectl_pods(pods, "pods", CATALOG)
    assert read.problems == ()
    mem, core, two = (p.gpu for p in read.pods)
    assert mem is not None
    assert core is not None
    assert two is not None
    assert (mem.gpus, mem.gpus_source, mem.memory_gib, mem.memory_source) == (
        pytest.approx(0.2),
        "assumed",
        8.0,
        "read",
    )
    assert "aliyun.com/gpu-mem" in mem.gpus_text
    assert (core.gpus, core.gpus_source, core.memory_gib) == (pytest.approx(0.3), "read", 6.0)
    assert (two.gpus, two.gpus_source, two.memory_gib) == (2.0, "assumed", 8.0)
    assert "2 GPUs" in two.gpus_text
    as_yaml = read_kubectl_pods(as_kubectl_yaml(pods), "pods", CATALOG)
    assert as_yaml.pods == read.pods
    grouped = group_pods(read.pods, CATALOG)
    assert sorted(grouped.frame["memory_gib"]) == [6.0, 8.0, 8.0]


def test_an_alibaba_gpu_count_label_that_is_no_count_leaves_the_pod_out() -> None:
    """If a pod's aliyun.com/gpu-count label is not a whole number of GPUs of at least 1, how its
    GPU memory is spread is not known: the pod is left out with a problem naming the label."""
    read = read_kubectl_pods(
        kube_list(
            _alibaba("bad", {"aliyun.com/gpu-mem": "8"}, {"aliyun.com/gpu-count": "two"}),
            pod("whole", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["whole"]
    assert len(read.problems) == 1
    problem = read.problems[0]
    assert problem.column == "pod ml/bad: metadata.labels.aliyun.com/gpu-count"
    assert "'two' is not a whole number of GPUs of at least 1" in problem.message
    assert "pod left out" in problem.message


def test_a_container_asking_alibaba_sharing_and_whole_gpus_is_left_out_naming_both() -> None:
    """If one container asks for whole GPUs and Alibaba Cloud's shared GPU memory, which it holds
    is not known: the pod is left out with a problem naming both resources."""
    read = read_kubectl_pods(
        kube_list(
            _alibaba("both", {"nvidia.com/gpu": "1", "aliyun.com/gpu-mem": "8"}),
            pod("whole", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["whole"]
    assert [p.message.split(":")[0] for p in read.problems] == [
        "the container requests nvidia.com/gpu and aliyun.com/gpu-mem"
    ]


def test_volcano_vgpu_requests_are_read_as_hami_shares() -> None:
    """If a pod asks Volcano's vGPU (volcano.sh/vgpu-number GPUs, vgpu-memory MiB and vgpu-cores %
    of each), 2 vGPUs at 50 % and 3000 MiB, each on a GPU of its own, are 2 whole GPUs (assumed)
    and 2 × 3000 MiB; 1 vGPU of 4096 MiB alone is
    the share of an assumed 40 GiB GPU (0.1); a vGPU without limits is a whole GPU. The YAML of
    the same pods reads alike."""
    pods = kube_list(
        pod(
            "cores",
            containers=[
                container(
                    limits={
                        "volcano.sh/vgpu-number": "2",
                        "volcano.sh/vgpu-memory": "3000",
                        "volcano.sh/vgpu-cores": "50",
                    }
                )
            ],
        ),
        pod(
            "memory",
            containers=[
                container(limits={"volcano.sh/vgpu-number": "1", "volcano.sh/vgpu-memory": "4096"})
            ],
        ),
        pod("whole", containers=[container(limits={"volcano.sh/vgpu-number": "1"})]),
    )
    read = read_kubectl_pods(pods, "pods", CATALOG)
    assert read.problems == ()
    cores, memory, whole = (p.gpu for p in read.pods)
    assert cores is not None
    assert memory is not None
    assert whole is not None
    assert (cores.gpus, cores.gpus_source) == (2.0, "assumed")
    assert cores.memory_gib == pytest.approx(2 * 3000 / 1024)
    assert "volcano.sh/vgpu-cores" in cores.gpus_text
    assert (memory.gpus, memory.gpus_source, memory.memory_gib) == (0.1, "assumed", 4.0)
    assert (whole.gpus, whole.memory_gib) == (1.0, None)
    assert whole.resource == "Volcano vGPU volcano.sh/vgpu-number"
    assert read_kubectl_pods(as_kubectl_yaml(pods), "pods", CATALOG).pods == read.pods


def test_a_container_asking_volcano_vgpus_and_whole_gpus_is_left_out_naming_both() -> None:
    """If one container asks for whole GPUs and Volcano vGPUs, which it holds is not known: the
    pod is left out with a problem naming both resources."""
    read = read_kubectl_pods(
        kube_list(
            pod(
                "both",
                containers=[
                    container(limits={"nvidia.com/gpu": "1", "volcano.sh/vgpu-number": "1"})
                ],
            ),
            pod("whole", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["whole"]
    assert [p.message.split(":")[0] for p in read.problems] == [
        "the container requests nvidia.com/gpu and volcano.sh/vgpu-number"
    ]


def test_a_sharing_percentage_over_100_leaves_the_pod_out_naming_it() -> None:
    """If a pod asks a sharing scheme for more than 100 % of a GPU's cores or memory (HAMi's
    gpumem-percentage 150, Volcano's vgpu-cores 120, Alibaba's gpu-core.percentage 101), no GPU
    can hold it and what it meant is not known: it is left out with a problem naming the
    resource, not read as several GPUs."""
    read = read_kubectl_pods(
        kube_list(
            pod(
                "hami",
                containers=[
                    container(limits={"nvidia.com/gpu": "2", "nvidia.com/gpumem-percentage": "150"})
                ],
            ),
            pod(
                "volcano",
                containers=[
                    container(
                        limits={"volcano.sh/vgpu-number": "1", "volcano.sh/vgpu-cores": "120"}
                    )
                ],
            ),
            _alibaba("ack", {"aliyun.com/gpu-mem": "8", "aliyun.com/gpu-core.percentage": "101"}),
            pod("whole", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["whole"]
    assert [p.column for p in read.problems] == [
        "pod ml/hami: main nvidia.com/gpumem-percentage",
        "pod ml/volcano: main volcano.sh/vgpu-cores",
        "pod ml/ack: main aliyun.com/gpu-core.percentage",
    ]
    assert all("over 100 %" in p.message and "pod left out" in p.message for p in read.problems)


def test_a_zero_sharing_resource_beside_whole_gpus_leaves_them_whole() -> None:
    """If a container asks 2 whole GPUs and 0 of Alibaba's or Volcano's sharing resources, it
    holds the 2 GPUs: a zero request of another scheme is no request."""
    read = read_kubectl_pods(
        kube_list(
            _alibaba("ack-zero", {"nvidia.com/gpu": "2", "aliyun.com/gpu-mem": "0"}),
            _alibaba("volcano-zero", {"nvidia.com/gpu": "2", "volcano.sh/vgpu-memory": "0"}),
        ),
        "pods.json",
        CATALOG,
    )
    assert read.problems == ()
    assert [(p.gpu.resource, p.gpu.gpus) for p in read.pods if p.gpu is not None] == [
        ("nvidia.com/gpu", 2.0),
        ("nvidia.com/gpu", 2.0),
    ]


def _vm(name: str, resource: str, count: str = "1") -> dict[str, object]:
    """A KubeVirt virt-launcher pod asking ``resource`` of the GPU Operator's sandbox plugin."""
    return pod(
        f"virt-launcher-{name}-abcde",
        owner=("VirtualMachineInstance", name),
        labels={"kubevirt.io": "virt-launcher"},
        containers=[
            container(
                name="compute",
                requests={"cpu": "4", "memory": "16Gi", resource: count},
                limits={resource: count},
            )
        ],
    )


def test_a_kubevirt_vm_passed_a_gpu_asks_that_whole_gpu() -> None:
    """If a KubeVirt VM's pod asks nvidia.com/GA102GL_A10 (the sandbox device plugin names a GPU
    passed through by its PCI device), it asks 1 whole A10, runs on the A10 and holds its 24
    GiB; nvidia.com/TU104GL_Tesla_T4: 2 is 2 T4s (they were counted as asking no GPU)."""
    a10, t4 = _pods(
        _vm("vdi-0", "nvidia.com/GA102GL_A10"), _vm("t4", "nvidia.com/TU104GL_Tesla_T4", "2")
    )
    assert a10.gpu is not None
    assert (a10.gpu.gpus, a10.gpu.memory_gib, a10.gpu_models) == (1.0, 24.0, ("A10",))
    assert "passed through" in a10.gpu.gpus_text
    assert t4.gpu is not None
    assert (t4.gpu.gpus, t4.gpu.memory_gib, t4.gpu_models) == (2.0, 32.0, ("T4",))


def test_a_kubevirt_vm_with_a_vgpu_asks_the_profiles_share_of_its_gpu() -> None:
    """If a KubeVirt VM's pod asks nvidia.com/NVIDIA_A10-4Q (a vGPU type of the sandbox device
    plugin), it asks the 4 GiB frame buffer's share of an A10's 24 GiB, 1/6 of a GPU, with 4 GiB
    of memory, on the A10; its class says so."""
    (desk,) = _pods(_vm("desk-0", "nvidia.com/NVIDIA_A10-4Q"))
    assert desk.gpu is not None
    assert desk.gpu.gpus == pytest.approx(1 / 6)
    assert (desk.gpu.memory_gib, desk.gpu_models) == (4.0, ("A10",))
    frame = group_pods([desk], CATALOG).frame
    assert list(frame["gpu_models"]) == ["A10"]
    assert list(frame["memory_gib"]) == [4.0]


def test_an_nvidia_resource_not_read_leaves_its_pod_out_unless_a_gpu_is_read() -> None:
    """If a pod asks an nvidia.com/ resource the importer does not read (a sandbox GPU the
    catalog lacks, another device plugin's resource) and no GPU it reads, it is left out with a
    problem naming the resource, never counted as asking no GPU; beside nvidia.com/gpu (a
    network device of NVIDIA's network operator) the pod is read by its GPUs."""
    network = container(limits={"nvidia.com/gpu": "1", "nvidia.com/mlnx_sriov_rdma": "1"})
    read = read_kubectl_pods(
        kube_list(
            _vm("odd", "nvidia.com/GB999GL_Foo"),
            pod("other", containers=[container(limits={"nvidia.com/vfio_dev": "1"})]),
            pod("trainer", containers=[network]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["trainer"]
    text = " ".join(f"{p.column} {p.message} {p.fix}" for p in read.problems)
    assert "nvidia.com/GB999GL_Foo is a GPU passed through for a KubeVirt VM" in text
    assert "nvidia.com/vfio_dev is a GPU resource the importer does not read" in text
    assert text.count("pod left out") == 2
    assert "workload CSV" in text


def test_gpu_names_are_matched_only_for_sandbox_resources_once_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Matching a GPU name costs up to a millisecond, so a pods file of many GPU pods matches
    none for nvidia.com/gpu or MIG resources, and a VDI pool's virt-launcher pods, all asking one
    vGPU type, match it once."""
    from planner.inputs.importers import kubectl_nodes

    matched: list[str] = []
    original = kubectl_nodes.match_gpu_name

    def counting(name: str, catalog: Any, **kwargs: Any) -> Any:
        matched.append(name)
        return original(name, catalog, **kwargs)

    monkeypatch.setattr(kubectl_nodes, "match_gpu_name", counting)
    monkeypatch.setattr(kubectl_nodes, "_VM_GPUS_MATCHED", {})
    mig = container(limits={"nvidia.com/mig-1g.10gb": "1"})
    _pods(*(pod(f"p{i}", containers=[_gpu()]) for i in range(5)), pod("m", containers=[mig]))
    assert matched == []
    desks = _pods(*(_vm(f"desk-{i}", "nvidia.com/NVIDIA_A10-4Q") for i in range(5)))
    assert matched == ["NVIDIA A10-4Q"]
    assert all(d.gpu_models == ("A10",) for d in desks)


def _asking_mig(name: str, profile: str, node_selector: dict[str, str]) -> dict[str, Any]:
    item = pod(name, containers=[container(limits={f"nvidia.com/mig-{profile}": "1"})])
    item["spec"]["nodeSelector"] = node_selector
    return item


def test_an_unknown_mig_profile_names_the_profiles_of_the_pods_gpu_else_the_nearest() -> None:
    """If a pod asks a MIG profile no catalog GPU has, its fix lists the profiles of the GPU its
    node selector names (the node's GPU product, or the product of a MIG single-strategy node),
    else the 8 nearest in slices or memory in the catalog, in catalog order (a name giving
    neither, one GPU's profiles), and where every profile is listed: never every profile of
    every GPU."""
    h100 = "NVIDIA-H100-80GB-HBM3"
    read = read_kubectl_pods(
        kube_list(
            _asking_mig("on-h100", "2g.30gb", {"nvidia.com/gpu.product": h100}),
            _asking_mig("anywhere", "2g.30gb", {}),
            _asking_mig("unnamed", "big", {}),
            pod("fine", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["fine"]
    fixes = {p.column.split(":")[0]: p.fix for p in read.problems if p.column}
    h100_profiles = "1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb"
    assert fixes["pod ml/on-h100"].startswith(
        f"request one of its GPU's profiles (H100-80GB-SXM): {h100_profiles}; "
    )
    assert fixes["pod ml/anywhere"].startswith(
        "request a profile the catalog has, such as the nearest: 1g.24gb, 1g.34gb, 1g.35gb, "
        "2g.20gb, 2g.24gb, 2g.35gb, 2g.45gb, 2g.47gb; "
    )
    assert fixes["pod ml/unnamed"].startswith(
        "request a profile named <slices>g.<memory>gb, such as the A100-40GB-PCIe's: 1g.5gb, "
    )
    for fix in fixes.values():
        assert "data/catalog/mig_profiles.csv" in fix
        assert len(re.findall(r"\b\d+g\.\d+gb\b", fix)) <= 8


def test_a_mig_single_strategy_pod_of_an_unknown_profile_names_its_gpus_profiles() -> None:
    """A pod asking nvidia.com/gpu pinned to GPU Feature Discovery's MIG single-strategy product
    of a profile the catalog lacks is left out, its fix listing the profiles of that product's
    GPU."""
    item = pod("single", containers=[_gpu()])
    item["spec"]["nodeSelector"] = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-2g.30gb"}
    read = read_kubectl_pods(
        kube_list(item, pod("fine", containers=[_gpu()])), "pods.json", CATALOG
    )
    (problem,) = read.problems
    assert "2g.30gb is no profile of any GPU in the catalog" in problem.message
    assert "(H100-80GB-SXM): 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb;" in problem.fix


def test_a_pod_pinned_to_two_gpus_asking_an_unknown_profile_names_their_nearest_few() -> None:
    """If the pod's node affinity accepts two GPUs, its fix lists the profiles of those two
    only, the 8 nearest of them when they have more."""
    item = _asking_mig("either", "2g.30gb", {})
    item["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "nvidia.com/gpu.product",
                                "operator": "In",
                                "values": ["NVIDIA-H100-80GB-HBM3", "NVIDIA-H200"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    read = read_kubectl_pods(
        kube_list(item, pod("fine", containers=[_gpu()])), "pods.json", CATALOG
    )
    (problem,) = read.problems
    assert problem.fix.startswith(
        "request one of the nearest of its GPUs' profiles (H100-80GB-SXM, H200-141GB-SXM): "
        "1g.10gb, 1g.18gb, 1g.20gb, 1g.35gb, 2g.20gb, 2g.35gb, 3g.40gb, 4g.40gb; "
    )


def test_a_pod_pinned_to_a_gpu_lacking_its_mig_profile_is_left_out_naming_its_profiles() -> None:
    """A pod pinned to an H100 (nvidia.com/gpu.product) asking nvidia.com/mig-1g.5gb, an A100
    40GB profile the H100 lacks, is left out with a problem naming the pod, the resource, the
    H100's profiles and the pin, rather than read with the A100's figures on the H100. A pin
    whose GPUs include one with the profile reads that GPU's figures; the other pods are read."""
    h100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    either = _asking_mig("either", "1g.5gb", {})
    either["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "nvidia.com/gpu.product",
                                "operator": "In",
                                "values": ["NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-40GB"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    read = read_kubectl_pods(
        kube_list(
            _asking_mig("on-h100", "1g.5gb", h100),
            _asking_mig("fits", "1g.10gb", h100),
            either,
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["fits", "either"]
    (problem,) = read.problems
    assert problem.file == "pods.json"
    assert problem.column == "pod ml/on-h100: main nvidia.com/mig-1g.5gb"
    assert "1g.5gb is no profile of the GPU the pod is pinned to (H100-80GB-SXM)" in (
        problem.message
    )
    assert "pod left out" in problem.message
    assert problem.fix.startswith(
        "request one of its GPU's profiles (H100-80GB-SXM): "
        "1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb; "
    )
    assert "or remove the pin" in problem.fix
    assert "it is a profile of A100-40GB-PCIe, A100-40GB-SXM:" in problem.message
    fits, both = read.pods
    assert fits.gpu is not None
    assert fits.gpu.memory_gib == 10
    assert "1 of 7 compute slices" in fits.gpu.gpus_text
    assert both.gpu is not None
    assert both.gpu.memory_gib == 5


def test_a_pod_pinned_to_a_gpu_without_mig_profiles_asking_one_is_left_out_saying_so() -> None:
    """A pod pinned to an L40S, which has no MIG profiles in the catalog, asking
    nvidia.com/mig-1g.10gb is left out, its fix saying the catalog lists no MIG profiles for the
    L40S and to request nvidia.com/gpu if it runs without MIG; it is not read as an A100's or
    H100's MIG instance."""
    read = read_kubectl_pods(
        kube_list(
            _asking_mig("on-l40s", "1g.10gb", {"nvidia.com/gpu.product": "NVIDIA-L40S"}),
            pod("fine", containers=[_gpu()]),
        ),
        "pods.json",
        CATALOG,
    )
    assert [p.name for p in read.pods] == ["fine"]
    (problem,) = read.problems
    assert problem.column == "pod ml/on-l40s: main nvidia.com/mig-1g.10gb"
    assert "no profile of the GPU the pod is pinned to (L40S)" in problem.message
    assert "and 5 more GPUs: pod left out" in problem.message
    assert problem.fix.startswith(
        "request nvidia.com/gpu if the L40S runs without MIG (the catalog lists no MIG profiles "
        "for it); or remove the pin"
    )


def test_gpu_requests_of_two_containers_are_each_named_in_the_pod_s_note() -> None:
    """If a pod's two containers ask MIG 1g.10gb and 2g.20gb, the pod asks 3 of 7 compute slices
    and 30 GiB, and its notes name both requests, not the first alone."""
    read = read_kubectl_pods(
        kube_list(
            pod(
                "mig3",
                containers=[
                    container("a", limits={"nvidia.com/mig-1g.10gb": "1"}),
                    container("b", limits={"nvidia.com/mig-2g.20gb": "1"}),
                ],
            )
        ),
        "pods.json",
        CATALOG,
    )
    gpu = read.pods[0].gpu
    assert gpu is not None
    assert (gpu.gpus, gpu.memory_gib) == (pytest.approx(3 / 7), 30.0)
    assert "MIG 1g.10gb" in gpu.gpus_text
    assert "MIG 2g.20gb" in gpu.gpus_text
    assert "MIG 2g.20gb: 20 GiB" in gpu.memory_text
