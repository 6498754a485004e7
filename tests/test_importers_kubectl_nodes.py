"""Tests of Kubernetes GPU nodes read from ``kubectl get nodes -o json`` or ``-o yaml`` and node
labels."""

from __future__ import annotations

import json

import pytest
from importer_samples import (
    CATALOG,
    KUBECTL_NODES,
    as_kubectl_yaml,
    kube_list,
    node,
    pod,
    sample,
)

from planner.inputs.importers.estate import import_inventory
from planner.inputs.importers.hosts import HostFacts, HostsRead
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from planner.inputs.problems import InputError


def _values(host: HostFacts) -> dict[str, object]:
    return {f.field: f.value for f in host.facts}


def _one(read: HostsRead) -> HostFacts:
    assert len(read.hosts) == 1
    return read.hosts[0]


def test_rke2_vgpu_node_sample_is_an_a16_vgpu_vm() -> None:
    """The RKE2 node with an A16-4Q vGPU maps to the physical A16, says it is a vGPU VM, rounds
    one vGPU up to one A16 board (assumed), and reads CPU and memory from allocatable."""
    name, data = sample(KUBECTL_NODES)
    host = _one(read_kubectl_nodes(data, name, CATALOG))
    values = _values(host)
    assert host.name == "nori"
    assert values["gpu_model"] == "A16"
    assert values["gpus_per_host"] == 4
    assert values["platform"] == "kubernetes"
    assert values["mig_enabled"] == "no"
    assert values["cpu_cores"] == 2.0
    assert values["ram_gib"] == pytest.approx(15.609, abs=1e-3)
    gpus = host.get("gpus_per_host")
    assert gpus is not None
    assert gpus.source == "assumed"
    assert "vGPU" in gpus.note.text
    assert "A16-4Q" in gpus.note.text
    cluster = host.get("cluster")
    assert cluster is not None
    assert (cluster.value, cluster.source) == ("kubernetes", "assumed")


def test_the_rke2_sample_as_kubectl_yaml_reads_as_its_json() -> None:
    """``kubectl get nodes -o yaml`` of the RKE2 node gives the same host, facts, notes and
    problems as its JSON; the file is named as read from -o yaml."""
    _, data = sample(KUBECTL_NODES)
    as_json = read_kubectl_nodes(data, "nodes", CATALOG)
    as_yaml = read_kubectl_nodes(as_kubectl_yaml(data), "nodes", CATALOG)
    assert as_json.tool == "kubectl get nodes -o json"
    assert as_yaml.tool == "kubectl get nodes -o yaml"
    assert (as_yaml.hosts, as_yaml.notes, as_yaml.problems) == (
        as_json.hosts,
        as_json.notes,
        as_json.problems,
    )
    assert _values(_one(as_yaml))["gpu_model"] == "A16"


def test_plain_gpu_node_reads_count_model_and_cluster_label() -> None:
    """A GPU Operator node: model from gpu.product with gpu.memory picking the size, GPUs from
    gpu.count, cluster from its label, MIG off when no MIG device is advertised."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
        "nvidia.com/gpu.count": "8",
        "nvidia.com/gpu.memory": "81920",
        "nvidia.com/mig.strategy": "none",
        "cluster": "train",
    }
    read = read_kubectl_nodes(
        kube_list(node("g1", labels, cpu="112", memory="2Ti", extra={"nvidia.com/gpu": "8"})),
        "n.json",
        CATALOG,
    )
    values = _values(_one(read))
    assert values["gpu_model"] == "A100-80GB-SXM"
    assert values["gpus_per_host"] == 8
    assert values["cluster"] == "train"
    assert values["mig_enabled"] == "no"
    assert values["cpu_cores"] == 112.0
    assert values["ram_gib"] == 2048.0


def test_mig_single_strategy_counts_mig_devices_not_gpus() -> None:
    """Under the MIG single strategy gpu.count counts MIG devices: 56 × 1g.5gb on A100 40 GB at
    7 per GPU are 8 GPUs, each with 7 instances in its layout; mig.config all-1g.5gb confirms
    the uniform split, so the count is derived, not assumed."""
    labels = {
        "nvidia.com/gpu.product": "A100-SXM4-40GB-MIG-1g.5gb",
        "nvidia.com/gpu.count": "56",
        "nvidia.com/gpu.memory": "4864",
        "nvidia.com/mig.strategy": "single",
        "nvidia.com/mig.config": "all-1g.5gb",
    }
    host = _one(
        read_kubectl_nodes(
            kube_list(node("m1", labels, extra={"nvidia.com/gpu": "56"})), "n.json", CATALOG
        )
    )
    gpus = host.get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (8, "derived")
    assert _values(host)["gpu_model"] == "A100-40GB-SXM"
    assert _values(host)["mig_enabled"] == "yes"
    assert len(host.mig_layout) == 8
    assert all(len(g.instances) == 7 for g in host.mig_layout)
    assert {i.profile for g in host.mig_layout for i in g.instances} == {"1g.5gb"}


def test_mig_single_strategy_without_config_is_assumed_and_rounds_up() -> None:
    """Without mig.config the uniform split is assumed; 10 devices at 7 per GPU are 2 GPUs."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb",
        "nvidia.com/gpu.count": "10",
        "nvidia.com/mig.strategy": "single",
    }
    host = _one(read_kubectl_nodes(kube_list(node("m2", labels)), "n.json", CATALOG))
    gpus = host.get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (2, "assumed")
    assert [len(g.instances) for g in host.mig_layout] == [7, 3]


def test_mixed_strategy_advertises_mig_resources() -> None:
    """Under the mixed strategy gpu.count is physical GPUs and the mig-<profile> resources give
    the instances in place (per host, not per GPU)."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.count": "2",
        "nvidia.com/mig.strategy": "mixed",
    }
    extra = {"nvidia.com/mig-3g.40gb": "2", "nvidia.com/mig-1g.10gb": "3", "nvidia.com/gpu": "0"}
    host = _one(read_kubectl_nodes(kube_list(node("x", labels, extra=extra)), "n.json", CATALOG))
    assert _values(host)["gpus_per_host"] == 2
    assert _values(host)["mig_enabled"] == "yes"
    (layout,) = host.mig_layout
    assert layout.gpu_index is None
    assert sorted(i.profile for i in layout.instances) == ["1g.10gb"] * 3 + ["3g.40gb"] * 2


def test_time_slicing_replicas_divide_the_advertised_gpus() -> None:
    """Without gpu.count, advertised GPUs over gpu.replicas are the physical GPUs (derived)."""
    labels = {"nvidia.com/gpu.product": "Tesla-T4-SHARED", "nvidia.com/gpu.replicas": "4"}
    read = read_kubectl_nodes(
        kube_list(node("t", labels, extra={"nvidia.com/gpu": "16"})), "n.json", CATALOG
    )
    gpus = _one(read).get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (4, "derived")
    assert any("time-sliced" in n.text for n in read.notes)


def test_labels_only_stream_from_jq() -> None:
    """The labels jq prints (objects one after another) make hosts named by
    kubernetes.io/hostname; that CPU and memory are missing is noted for the file."""
    stream = "\n".join(
        json.dumps(
            {
                "kubernetes.io/hostname": name,
                "nvidia.com/gpu.product": "NVIDIA-L40S",
                "nvidia.com/gpu.count": "4",
            },
            indent=2,
        )
        for name in ("a1", "a2")
    )
    read = read_kubectl_nodes(stream.encode(), "labels.json", CATALOG)
    assert [h.name for h in read.hosts] == ["a1", "a2"]
    assert all(
        _values(h)["gpu_model"] == "L40S" and "cpu_cores" not in _values(h) for h in read.hosts
    )
    assert any("labels only" in n.text for n in read.notes)


def test_single_node_object_and_zone_as_cluster() -> None:
    """``kubectl get node x -o json`` is one Node; a zone names the cluster when no cluster
    label does (derived), and the cluster given overrides both."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-L4",
        "nvidia.com/gpu.count": "1",
        "topology.kubernetes.io/zone": "eu-1a",
    }
    data = json.dumps(node("one", labels)).encode()
    cluster = _one(read_kubectl_nodes(data, "n.json", CATALOG)).get("cluster")
    assert cluster is not None
    assert (cluster.value, cluster.source) == ("eu-1a", "derived")
    given = _one(read_kubectl_nodes(data, "n.json", CATALOG, cluster="prod")).get("cluster")
    assert given is not None
    assert given.value == "prod"


def test_nodes_without_gpus_are_left_out_with_a_note() -> None:
    """A CPU-only node is not a host of the inventory, and a note says it was left out."""
    data = kube_list(
        node("cpu-1"),
        node("g", {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"}),
    )
    read = read_kubectl_nodes(data, "n.json", CATALOG)
    assert [h.name for h in read.hosts] == ["g"]
    assert any(n.subject == "cpu-1" and "left out" in n.text for n in read.notes)


def test_unknown_product_is_a_problem_with_the_own_gpu_fix() -> None:
    """A product the catalog lacks is a problem naming the node and how to add the model."""
    labels = {"nvidia.com/gpu.product": "Tesla-P100-PCIE-16GB", "nvidia.com/gpu.count": "8"}
    read = read_kubectl_nodes(kube_list(node("v", labels)), "n.json", CATALOG)
    (problem,) = read.problems
    assert "node v" in (problem.column or "")
    assert "your own GPU" in problem.fix


def test_bad_quantity_is_a_problem_not_a_crash() -> None:
    """An unreadable CPU quantity is a problem naming the node and the field; the rest is read."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"}
    read = read_kubectl_nodes(kube_list(node("b", labels, cpu="lots")), "n.json", CATALOG)
    assert "cpu" in (read.problems[0].column or "")
    assert "cpu_cores" not in _values(_one(read))


def test_pods_given_as_nodes_are_refused() -> None:
    """Pods output given as nodes is refused, saying where it belongs."""
    data = json.dumps({"kind": "List", "items": [{"kind": "Pod"}]}).encode()
    with pytest.raises(InputError, match="workload") as caught:
        read_kubectl_nodes(data, "pods.json", CATALOG)
    (problem,) = caught.value.problems
    assert problem.fix == (
        "give it as a workload file (the Workloads page's import, or --workloads on the command "
        "line), and the nodes as inventory"
    )


@pytest.mark.parametrize(
    ("label", "value"),
    [
        ("nvidia.com/gpu.count", "eight"),
        ("nvidia.com/gpu.count", "-2"),
        ("nvidia.com/gpu.replicas", "x"),
    ],
)
def test_an_unreadable_gpu_label_is_a_problem_naming_it(label: str, value: str) -> None:
    """A GPU count or replica label that is no whole number is reported with its node and label,
    not passed over in silence (the node then takes its GPUs from capacity or another file)."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L40S", "nvidia.com/gpu.count": "4", label: value}
    read = read_kubectl_nodes(
        kube_list(node("gpu-1", labels, extra={"nvidia.com/gpu": "4"})), "nodes.json", CATALOG
    )
    (problem,) = read.problems
    assert problem.column == f"node gpu-1: metadata.labels.{label}"
    assert f"'{value}' is not a whole number" in problem.message


def test_renamed_shared_resource_is_read_when_the_whole_gpu_resource_is_zero() -> None:
    """Time-slicing with renameByDefault advertises nvidia.com/gpu.shared and leaves
    nvidia.com/gpu at 0: 32 shared replicas over 8 per GPU are 4 GPUs, not 1."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-SHARED",
        "nvidia.com/gpu.replicas": "8",
        "nvidia.com/gpu.sharing-strategy": "time-slicing",
    }
    extra = {"nvidia.com/gpu": "0", "nvidia.com/gpu.shared": "32"}
    read = read_kubectl_nodes(kube_list(node("s", labels, extra=extra)), "n.json", CATALOG)
    gpus = _one(read).get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (4, "derived")
    assert gpus.note.locator.endswith("nvidia.com/gpu.shared")


def test_mps_sharing_is_named_in_the_note_and_uneven_replicas_are_assumed() -> None:
    """The note names the sharing strategy GFD labels (mps here, not time-slicing); 30 replicas
    at 8 per GPU do not divide, so the 4 GPUs are assumed, not derived."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-SHARED",
        "nvidia.com/gpu.replicas": "8",
        "nvidia.com/gpu.sharing-strategy": "mps",
    }
    read = read_kubectl_nodes(
        kube_list(node("m", labels, extra={"nvidia.com/gpu": "30"})), "n.json", CATALOG
    )
    gpus = _one(read).get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (4, "assumed")
    (note,) = [n for n in read.notes if n.subject == "m" and "replicas" in n.text]
    assert "mps" in note.text
    assert "time-slicing" not in note.text


def test_shared_gpus_without_replicas_or_count_are_a_problem_not_a_count() -> None:
    """16 shared replicas with neither gpu.count nor gpu.replicas say nothing of the physical
    GPUs: a problem naming the node and resource, and no GPU count is made up."""
    labels = {"nvidia.com/gpu.product": "Tesla-T4-SHARED"}
    read = read_kubectl_nodes(
        kube_list(node("t", labels, extra={"nvidia.com/gpu.shared": "16"})), "n.json", CATALOG
    )
    assert _one(read).get("gpus_per_host") is None
    (problem,) = read.problems
    assert "node t" in (problem.column or "")
    assert "nvidia.com/gpu.shared" in (problem.column or "")
    assert "gpus_per_host" in problem.fix


def test_mixed_strategy_without_count_adds_the_gpus_in_mig_mode() -> None:
    """Under the mixed strategy nvidia.com/gpu counts only GPUs with MIG off: 6 of them beside
    14 × 1g.5gb (2 A100s' worth of compute slices) are 8 GPUs, assumed."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/mig.strategy": "mixed"}
    extra = {"nvidia.com/gpu": "6", "nvidia.com/mig-1g.5gb": "14"}
    host = _one(read_kubectl_nodes(kube_list(node("x", labels, extra=extra)), "n.json", CATALOG))
    gpus = host.get("gpus_per_host")
    assert gpus is not None
    assert (gpus.value, gpus.source) == (8, "assumed")


def test_mixed_strategy_without_model_or_count_is_a_problem() -> None:
    """MIG devices beside nvidia.com/gpu 0 with no product label cannot be turned into GPUs: a
    problem with the fix, where one GPU was made up before."""
    extra = {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.5gb": "14"}
    read = read_kubectl_nodes(kube_list(node("y", {}, extra=extra)), "n.json", CATALOG)
    assert _one(read).get("gpus_per_host") is None
    (problem,) = read.problems
    assert "MIG mode" in problem.message
    assert "gpus_per_host" in problem.fix


def test_a_mixed_strategy_profile_the_catalog_lacks_is_a_problem_and_left_out() -> None:
    """A node advertising ``nvidia.com/mig-9g.99gb`` beside a known profile: the unknown one is
    a problem naming it and stays out of the MIG layout; the known one is kept."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.count": "1",
        "nvidia.com/mig.strategy": "mixed",
    }
    extra = {"nvidia.com/mig-9g.99gb": "1", "nvidia.com/mig-1g.10gb": "2", "nvidia.com/gpu": "0"}
    read = read_kubectl_nodes(kube_list(node("x", labels, extra=extra)), "n.json", CATALOG)
    (layout,) = _one(read).mig_layout
    assert [i.profile for i in layout.instances] == ["1g.10gb"] * 2
    (problem,) = read.problems
    assert problem.column == "node x: status.capacity.nvidia.com/mig-9g.99gb"
    assert "MIG profile 9g.99gb is advertised but is not a MIG profile" in problem.message


def test_a_zero_gpu_count_beside_a_product_says_what_was_read_and_what_to_check() -> None:
    """``gpu.count=0`` beside ``gpu.product``: GPU Feature Discovery counted no GPU on a node it
    names a GPU for. The node reads 0 GPUs with a note naming both labels and what to check
    (the node's GPUs and driver), which the problem refusing 0 GPUs carries."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "0"}
    read = read_kubectl_nodes(
        kube_list(node("g0", labels, extra={"nvidia.com/gpu": "0"})), "n.json", CATALOG
    )
    gpus = _one(read).get("gpus_per_host")
    assert gpus is not None
    assert gpus.value == 0
    text = gpus.note.text
    assert "nvidia.com/gpu.count is 0" in text
    assert "NVIDIA-A100-SXM4-40GB" in text
    assert "advertises 0" in text
    assert "driver" in text
    assert "set gpus_per_host" in text
    data = kube_list(node("g0", labels), node("g4", {**labels, "nvidia.com/gpu.count": "4"}))
    (refused,) = import_inventory([("n.json", data)], CATALOG).inventory(CATALOG).problems
    assert refused.message.startswith("host g0: gpus_per_host 0 is out of range")
    assert "nvidia.com/gpu.count is 0 though" in refused.message


@pytest.mark.parametrize(
    ("labels", "counted_by"),
    [
        (
            {
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                "nvidia.com/mig.strategy": "single",
                "nvidia.com/gpu.count": "0",
            },
            "nvidia.com/gpu.count is 0",
        ),
        (
            {
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                "nvidia.com/mig.strategy": "single",
            },
            "status.allocatable.nvidia.com/gpu is 0",
        ),
        ({"nvidia.com/gpu.product": "NVIDIA-L4"}, "status.allocatable.nvidia.com/gpu is 0"),
    ],
)
def test_no_gpu_counted_reads_zero_gpus_not_one(labels: dict[str, str], counted_by: str) -> None:
    """A node naming a GPU but counting none (MIG devices under the single strategy, or the
    device plugin's resource without ``gpu.count``) reads 0 GPUs with why and what to check;
    it read 1 GPU, rounded up from 0."""
    read = read_kubectl_nodes(
        kube_list(node("g0", labels, extra={"nvidia.com/gpu": "0"})), "n.json", CATALOG
    )
    gpus = _one(read).get("gpus_per_host")
    assert gpus is not None
    assert gpus.value == 0
    assert gpus.note.text.startswith(counted_by)
    assert "driver" in gpus.note.text


def test_a_gpu_count_above_zero_keeps_the_plain_note() -> None:
    """With GPUs counted, the note says only where the count comes from."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"}
    gpus = _one(read_kubectl_nodes(kube_list(node("g", labels)), "n.json", CATALOG)).get(
        "gpus_per_host"
    )
    assert gpus is not None
    assert gpus.note.text == "GPUs on the node (nvidia.com/gpu.count)"


@pytest.mark.parametrize(
    "gpus",
    [{"nvidia.com/gpu": "1"}, {}],
    ids=["beside-whole-gpus", "mig-devices-only"],
)
def test_a_profile_the_catalog_lacks_is_left_out_without_a_gpu_count(gpus: dict[str, str]) -> None:
    """Without ``nvidia.com/gpu.count`` (mixed strategy beside whole GPUs, or MIG devices alone)
    a profile the catalog lacks is left out of the MIG layout with the same problem naming it
    as with the label; the known profile is kept."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/mig.strategy": "mixed"}
    extra = {"nvidia.com/mig-9g.99gb": "1", "nvidia.com/mig-1g.10gb": "2", **gpus}
    read = read_kubectl_nodes(kube_list(node("x", labels, extra=extra)), "n.json", CATALOG)
    (layout,) = _one(read).mig_layout
    assert [i.profile for i in layout.instances] == ["1g.10gb"] * 2
    left_out = [p for p in read.problems if "left out of the node's MIG layout" in p.message]
    (problem,) = left_out
    assert problem.column == "node x: status.capacity.nvidia.com/mig-9g.99gb"
    assert "MIG profile 9g.99gb is advertised but is not a MIG profile" in problem.message


def test_a_node_name_with_an_invisible_character_is_shown_escaped_in_its_problems() -> None:
    """A problem names the node as written, an invisible character escaped (as pods' are)."""
    labels = {"nvidia.com/gpu.product": "Tesla-P100-PCIE-16GB", "nvidia.com/gpu.count": "8"}
    read = read_kubectl_nodes(kube_list(node("gpu\u200b-1", labels)), "n.json", CATALOG)
    (problem,) = read.problems
    assert (problem.column or "").startswith("node gpu\\u200b-1: ")


def test_a_list_without_a_kind_is_read_as_kubectl_s_list_in_json_and_yaml() -> None:
    """``{"items": [...]}`` without a kind, as jq or a hand edit leaves kubectl's list, is
    detected and read as the nodes it holds, JSON and YAML alike."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"}
    data = json.dumps({"items": [node("a", labels), node("b", labels)]}).encode()
    for name, given in (("n.json", data), ("n.yaml", as_kubectl_yaml(data))):
        imported = import_inventory([(name, given)], CATALOG)
        assert list(imported.frame["host"]) == ["a", "b"]
        assert list(imported.frame["gpus_per_host"]) == [2, 2]


def test_objects_of_another_kind_are_no_nodes_when_read_directly() -> None:
    """A Deployment beside a Node (it has metadata and status, as nodes do) is no node for the
    reader either: a problem naming its kind, the Node read."""
    deployment = {"kind": "Deployment", "metadata": {"name": "web"}, "status": {"replicas": 1}}
    labels = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"}
    read = read_kubectl_nodes(kube_list(deployment, node("g", labels)), "n.json", CATALOG)
    assert [h.name for h in read.hosts] == ["g"]
    (problem,) = read.problems
    assert problem.message == "object 1 is neither a Node nor a label map (kind Deployment)"


def test_a_kindless_pod_given_as_nodes_is_refused_as_pods_output() -> None:
    """An object without a kind that has spec.containers is a pod to the node reader as to
    detection: the file is refused, saying where it belongs."""
    kindless = {k: v for k, v in pod("p").items() if k != "kind"}
    with pytest.raises(InputError, match="kubectl get pods output"):
        read_kubectl_nodes(json.dumps([kindless]).encode(), "p.json", CATALOG)


@pytest.mark.parametrize(
    ("labels", "resources"),
    [
        ({"nvidia.com/gpu.count": "x" * 5000}, {}),
        ({"nvidia.com/gpu.replicas": "1" * 4000 + "x"}, {}),
        ({}, {"nvidia.com/gpu": "4" * 4000 + "x"}),
        ({}, {"nvidia.com/mig-1g.10gb": "x" * 5000}),
        ({}, {"cpu": "x" * 5000}),
    ],
)
def test_a_value_too_long_to_quote_is_cut_in_its_problem(
    labels: dict[str, str], resources: dict[str, str]
) -> None:
    """A label or resource of thousands of characters is named in its problem cut, its length
    said: a problem stays a line, whatever the file holds."""
    given = node("gpu-1", {"nvidia.com/gpu.product": "NVIDIA-L40S", **labels}, extra=resources)
    read = read_kubectl_nodes(kube_list(given), "n.json", CATALOG)
    assert read.problems
    for problem in read.problems:
        assert len(problem.message) < 300
        assert "characters)" in problem.message


def test_a_resource_key_too_long_to_quote_is_cut_where_its_problem_names_it() -> None:
    """A MIG resource of 5,000 characters whose count cannot be read is named cut in the
    problem's column, its length said (the column held the whole key)."""
    key = "nvidia.com/mig-" + "x" * 5000
    given = node("gpu-1", {"nvidia.com/gpu.product": "NVIDIA-L40S"}, extra={key: "many"})
    read = read_kubectl_nodes(kube_list(given), "n.json", CATALOG)
    (problem,) = read.problems
    assert len(problem.column or "") < 200
    assert "(5,015 characters)" in (problem.column or "")


def test_alibaba_gpu_count_nodes_are_read_with_their_card_model_label() -> None:
    """If a node advertises Alibaba's alibabacloud.com/gpu-count (alibaba/clusterdata's node
    files), its GPUs are that count and its model the gpu-card-model label, not 'no GPU'."""
    ali = {"alibabacloud.com/gpu-count": "2", "alibabacloud.com/gpu-milli": "2000"}
    read = read_kubectl_nodes(
        kube_list(
            node("ali-t4", {"alibabacloud.com/gpu-card-model": "T4"}, extra=ali),
            node("ali-unknown", {"alibabacloud.com/gpu-card-model": "G9"}, extra=ali),
        ),
        "nodes.json",
        CATALOG,
    )
    values = {h.name: _values(h) for h in read.hosts}
    assert values["ali-t4"]["gpus_per_host"] == 2
    assert values["ali-t4"]["gpu_model"] == "T4"
    assert values["ali-unknown"]["gpus_per_host"] == 2
    assert [p.column for p in read.problems] == [
        "node ali-unknown: metadata.labels.alibabacloud.com/gpu-card-model"
    ]


def test_a_node_advertising_a_gpu_resource_not_read_is_a_problem_not_a_note() -> None:
    """If a node advertises GPUs by a resource the importer does not read (amd.com/gpu), it is
    left out with a problem naming the resource, not noted as having no GPU."""
    read = read_kubectl_nodes(
        kube_list(node("mi300", extra={"amd.com/gpu": "8"})), "nodes.json", CATALOG
    )
    assert read.hosts == ()
    assert len(read.problems) == 1
    assert "amd.com/gpu" in read.problems[0].message
    assert "left out" in read.problems[0].message


def test_gke_and_eks_nodes_take_the_model_from_the_cloud_accelerator_labels() -> None:
    """If GFD does not label the node, GKE's cloud.google.com/gke-accelerator, EKS's
    k8s.amazonaws.com/accelerator and Karpenter's instance-gpu-name give the model, and an EC2
    instance type alone gives its GPU's (g5: A10G)."""
    gpus = {"nvidia.com/gpu": "8"}
    read = read_kubectl_nodes(
        kube_list(
            node("gke-h100", {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}, extra=gpus),
            node("gke-a100", {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}, extra=gpus),
            node("eks-t4", {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"}, extra=gpus),
            node(
                "karpenter",
                {
                    "karpenter.k8s.aws/instance-gpu-name": "a100",
                    "karpenter.k8s.aws/instance-gpu-memory": "81920",
                },
                extra=gpus,
            ),
            node(
                "g5",
                {"node.kubernetes.io/instance-type": "g5.12xlarge"},
                extra={"nvidia.com/gpu": "4"},
            ),
        ),
        "nodes.json",
        CATALOG,
    )
    models = {h.name: _values(h).get("gpu_model") for h in read.hosts}
    assert models == {
        "gke-h100": "H100-80GB-SXM",
        "gke-a100": "A100-40GB-SXM",
        "eks-t4": "T4",
        "karpenter": "A100-80GB-SXM",
        "g5": "A10G",
    }
    assert read.problems == ()


def test_gke_time_sharing_and_mig_partitions_count_physical_gpus() -> None:
    """If GKE shares a node's GPUs (time-sharing, 4 clients per GPU), 8 advertised GPUs are 2;
    if GKE splits them into MIG 1g.5gb partitions, 7 advertised devices are 1 A100."""
    read = read_kubectl_nodes(
        kube_list(
            node(
                "gke-ts-t4",
                {
                    "cloud.google.com/gke-accelerator": "nvidia-tesla-t4",
                    "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
                    "cloud.google.com/gke-max-shared-clients-per-gpu": "4",
                },
                extra={"nvidia.com/gpu": "8"},
            ),
            node(
                "gke-mig",
                {
                    "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
                    "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
                },
                extra={"nvidia.com/gpu": "7"},
            ),
        ),
        "nodes.json",
        CATALOG,
    )
    values = {h.name: _values(h) for h in read.hosts}
    assert values["gke-ts-t4"]["gpus_per_host"] == 2
    assert values["gke-mig"]["gpus_per_host"] == 1
    assert values["gke-mig"]["mig_enabled"] == "yes"
    mig = next(h for h in read.hosts if h.name == "gke-mig")
    assert [len(g.instances) for g in mig.mig_layout] == [7]
    assert read.problems == ()


def test_a_gpu_count_label_contradicting_the_advertised_gpus_is_a_problem() -> None:
    """If GFD's nvidia.com/gpu.count (8) disagrees with the nvidia.com/gpu the node advertises
    (4), the label is taken and a problem names both figures; an agreeing node has none."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "8"}
    read = read_kubectl_nodes(
        kube_list(
            node("contradict", labels, extra={"nvidia.com/gpu": "4"}),
            node("agrees", labels, extra={"nvidia.com/gpu": "8"}),
        ),
        "nodes.json",
        CATALOG,
    )
    assert [_values(h)["gpus_per_host"] for h in read.hosts] == [8, 8]
    assert len(read.problems) == 1
    assert read.problems[0].column == "node contradict: metadata.labels.nvidia.com/gpu.count"
    assert "says 8 GPUs but status.allocatable.nvidia.com/gpu advertises 4" in (
        read.problems[0].message
    )


def test_a_time_sliced_mig_product_label_is_its_model_and_profile() -> None:
    """If GFD renames a time-sliced MIG device (NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED), the
    model and profile are read through the -SHARED suffix: 14 devices are 2 A100s."""
    read = read_kubectl_nodes(
        kube_list(
            node(
                "mig-ts",
                {
                    "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED",
                    "nvidia.com/gpu.count": "14",
                    "nvidia.com/gpu.replicas": "2",
                    "nvidia.com/mig.strategy": "single",
                },
                extra={"nvidia.com/gpu": "28"},
            )
        ),
        "nodes.json",
        CATALOG,
    )
    values = _values(_one(read))
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-40GB-SXM", 2)
    assert read.problems == ()


def test_volcano_vgpu_nodes_count_physical_gpus() -> None:
    """If a node advertises Volcano's vGPUs (volcano.sh/vgpu-number) and no GPU Feature Discovery
    count, its 20 vGPUs are 2 GPUs at the device plugin's default 10 per GPU (assumed, with how to
    set them); with GFD's nvidia.com/gpu.count its 2 GPUs are read. The YAML reads alike."""
    vgpus = {"volcano.sh/vgpu-number": "20", "volcano.sh/vgpu-memory": "163840"}
    nodes = kube_list(
        node("volcano", extra=vgpus),
        node(
            "volcano-gfd",
            {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2"},
            extra=vgpus,
        ),
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    assert read.problems == ()
    values = {h.name: _values(h) for h in read.hosts}
    assert values["volcano"]["gpus_per_host"] == 2
    assert (values["volcano-gfd"]["gpus_per_host"], values["volcano-gfd"]["gpu_model"]) == (
        2,
        "A100-80GB-SXM",
    )
    counted = next(f for f in read.hosts[0].facts if f.field == "gpus_per_host")
    assert counted.source == "assumed"
    assert "volcano.sh/vgpu-number" in counted.note.text
    assert "gpus_per_host" in counted.note.text
    as_yaml = read_kubectl_nodes(as_kubectl_yaml(nodes), "nodes", CATALOG)
    assert (as_yaml.hosts, as_yaml.problems) == (read.hosts, read.problems)


def test_eks_instance_types_give_the_gpu_model_without_a_gpu_label() -> None:
    """If an EKS node has no GPU model label, its EC2 instance type gives the model (p4d.24xlarge
    an A100 40GB SXM, p4de an A100 80GB, p5.48xlarge an H100 80GB SXM, g5 an A10G, g6 an L4, g6e
    an L40S, g4dn a T4, p3 a V100 16GB SXM; the beta label too) and, when nothing else counts
    them, its GPUs (g5.12xlarge: 4); a type whose GPU the catalog lacks (g5g: T4G) is a problem
    naming it, and a type not known here is named in the note. The YAML reads alike."""
    gpus = {"nvidia.com/gpu": "8"}
    instance = "node.kubernetes.io/instance-type"
    nodes = kube_list(
        node("p4d", {instance: "p4d.24xlarge"}, extra=gpus),
        node("p4de", {instance: "p4de.24xlarge"}, extra=gpus),
        node("p5", {instance: "p5.48xlarge"}, extra=gpus),
        node(
            "g5", {"beta.kubernetes.io/instance-type": "g5.xlarge"}, extra={"nvidia.com/gpu": "1"}
        ),
        node("g6", {instance: "g6.xlarge"}, extra={"nvidia.com/gpu": "1"}),
        node("g6e", {instance: "g6e.12xlarge"}, extra={"nvidia.com/gpu": "4"}),
        node("g4dn", {instance: "g4dn.xlarge"}, extra={"nvidia.com/gpu": "1"}),
        node("p3", {instance: "p3.16xlarge"}, extra=gpus),
        node("g5g", {instance: "g5g.xlarge"}, extra={"nvidia.com/gpu": "1"}),
        node("g6f", {instance: "g6f.large"}, extra={"nvidia.com/gpu": "1"}),
    )
    labels_only = json.dumps({"kubernetes.io/hostname": "g5-12", instance: "g5.12xlarge"})
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    models = {h.name: _values(h).get("gpu_model") for h in read.hosts}
    assert models == {
        "p4d": "A100-40GB-SXM",
        "p4de": "A100-80GB-SXM",
        "p5": "H100-80GB-SXM",
        "g5": "A10G",
        "g6": "L4",
        "g6e": "L40S",
        "g4dn": "T4",
        "p3": "V100-16GB-SXM",
        "g5g": "T4G",
        "g6f": None,
    }
    p4de = next(h for h in read.hosts if h.name == "p4de")
    model = next(f for f in p4de.facts if f.field == "gpu_model")
    assert (model.source, model.note.locator) == ("derived", f"metadata.labels.{instance}")
    assert "p4de.24xlarge" in model.note.text
    assert [p.column for p in read.problems] == [f"node g5g: metadata.labels.{instance}"]
    assert "T4G" in read.problems[0].message
    assert "your own GPU" in read.problems[0].fix
    assert any("instance type g6f.large" in n.text for n in read.notes)
    as_yaml = read_kubectl_nodes(as_kubectl_yaml(nodes), "nodes", CATALOG)
    assert (as_yaml.hosts, as_yaml.problems) == (read.hosts, read.problems)
    counted = _values(_one(read_kubectl_nodes(labels_only.encode(), "labels.json", CATALOG)))
    assert (counted["gpu_model"], counted["gpus_per_host"]) == ("A10G", 4)


def test_gpus_read_unlike_the_ec2_instance_types_are_a_problem_naming_both() -> None:
    """If a g5.12xlarge (4 A10G) advertises 6 nvidia.com/gpu without GFD's sharing labels (no
    whole multiple of 4, so no sharing is guessed), the 6 are kept and a problem names both
    counts and how to set the node's GPUs."""
    read = read_kubectl_nodes(
        kube_list(
            node(
                "g5",
                {"node.kubernetes.io/instance-type": "g5.12xlarge"},
                extra={"nvidia.com/gpu": "6"},
            )
        ),
        "nodes.json",
        CATALOG,
    )
    assert _values(_one(read))["gpus_per_host"] == 6
    assert len(read.problems) == 1
    problem = read.problems[0]
    assert problem.column == "node g5: status.allocatable.nvidia.com/gpu"
    assert "the EC2 instance type g5.12xlarge has 4" in problem.message
    assert "set gpus_per_host to 4" in problem.fix


def test_ack_gpu_sharing_nodes_are_read_with_their_gpus_and_model() -> None:
    """If an ACK node shares its GPUs with Alibaba Cloud's GPU sharing, it advertises
    aliyun.com/gpu-count (GPUs) and aliyun.com/gpu-mem (GiB) and ACK labels its GPU
    aliyun.accelerator/nvidia_name with nvidia_mem: 2 Tesla-V100-SXM2-16GB are read, not left out
    as GPUs not read. The YAML reads alike."""
    nodes = kube_list(
        node(
            "ack",
            {
                "aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB",
                "aliyun.accelerator/nvidia_count": "2",
                "aliyun.accelerator/nvidia_mem": "16276MiB",
            },
            extra={"aliyun.com/gpu-count": "2", "aliyun.com/gpu-mem": "30"},
        ),
        node(
            "ack-t4",
            {"aliyun.accelerator/nvidia_name": "Tesla-T4", "aliyun.accelerator/nvidia_mem": "x"},
            extra={"aliyun.com/gpu-count": "1", "aliyun.com/gpu-mem": "14"},
        ),
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert (values["ack"]["gpu_model"], values["ack"]["gpus_per_host"]) == ("V100-16GB-SXM", 2)
    assert (values["ack-t4"]["gpu_model"], values["ack-t4"]["gpus_per_host"]) == ("T4", 1)
    assert read.problems == ()
    as_yaml = read_kubectl_nodes(as_kubectl_yaml(nodes), "nodes", CATALOG)
    assert (as_yaml.hosts, as_yaml.problems) == (read.hosts, read.problems)


_HAMI_L40S = ":".join(
    f"GPU-0000000{i}-aaaa-bbbb-cccc-dddddddddddd,10,46068,100,NVIDIA-NVIDIA L40S,0,true,{i},"
    "hami-core"
    for i in range(4)
)


def test_hami_nodes_count_the_gpus_hami_registered_not_its_vgpus() -> None:
    """If HAMi's device plugin advertises 4 L40S split 10 ways as 40 nvidia.com/gpu, the node
    has the 4 GPUs its hami.io/node-nvidia-register annotation lists, an L40S (its type), the 40
    named in the note as vGPUs; without the annotation, a node labelled gpu=on advertising 40 is
    a problem saying they may be vGPUs and how to give the node's GPUs."""
    hami = node("hami-1", {"gpu": "on"}, extra={"nvidia.com/gpu": "40"})
    hami["metadata"]["annotations"] = {"hami.io/node-nvidia-register": _HAMI_L40S + ":"}
    bare = node("hami-2", {"gpu": "on"}, extra={"nvidia.com/gpu": "40"})
    read = read_kubectl_nodes(kube_list(hami, bare), "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert (values["hami-1"]["gpus_per_host"], values["hami-1"]["gpu_model"]) == (4, "L40S")
    counted = next(f for f in read.hosts[0].facts if f.field == "gpus_per_host")
    assert "vGPUs" in counted.note.text
    assert "40" in counted.note.text
    assert not [p for p in read.problems if "hami-1" in str(p)]
    hami_problems = [p for p in read.problems if "hami-2" in str(p) and "vGPUs" in p.message]
    assert len(hami_problems) == 1
    assert "hami.io/node-nvidia-register" in hami_problems[0].message
    assert "gpus_per_host" in hami_problems[0].fix


def test_aks_vm_sizes_give_each_node_its_gpu_model() -> None:
    """If AKS nodes carry no GPU model label, each Azure VM size gives its own model (NC24ads A100
    v4 an A100 80GB PCIe, NC40ads H100 v5 an H100 NVL, ND96isr H100 v5 8 H100 80GB SXM, ND96asr v4
    8 A100 40GB SXM, NC64as T4 v3 4 T4, NC24s v3 4 V100 16GB) and, from labels alone, its GPUs;
    an NV6ads A10 v5, 1/6 of an A10, is left out with a problem saying it is a vGPU slice, not a
    whole GPU (it was kept as a whole A10)."""
    sizes = {
        "a100": ("Standard_NC24ads_A100_v4", "1"),
        "h100": ("Standard_NC40ads_H100_v5", "1"),
        "nd96": ("Standard_ND96isr_H100_v5", "8"),
        "nd96a": ("Standard_ND96asr_v4", "8"),
        "t4": ("Standard_NC64as_T4_v3", "4"),
        "v100": ("Standard_NC24s_v3", "4"),
        "nva10": ("Standard_NV6ads_A10_v5", "1"),
    }
    nodes = kube_list(
        *(
            node(
                name,
                {
                    "kubernetes.azure.com/accelerator": "nvidia",
                    "node.kubernetes.io/instance-type": size,
                },
                extra={"nvidia.com/gpu": gpus},
            )
            for name, (size, gpus) in sizes.items()
        )
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert {n: (v["gpu_model"], v["gpus_per_host"]) for n, v in values.items()} == {
        "a100": ("A100-80GB-PCIe", 1),
        "h100": ("H100-94GB-NVL", 1),
        "nd96": ("H100-80GB-SXM", 8),
        "nd96a": ("A100-40GB-SXM", 8),
        "t4": ("T4", 4),
        "v100": ("V100-16GB-PCIe", 4),
    }
    model = next(f for f in read.hosts[0].facts if f.field == "gpu_model")
    assert "Azure VM size Standard_NC24ads_A100_v4" in model.note.text
    assert len(read.problems) == 1
    assert "nva10" in str(read.problems[0])
    assert "1/6" in read.problems[0].message
    assert "vGPU" in read.problems[0].message
    assert "left out" in read.problems[0].message
    labels_only = b"".join(
        json.dumps(
            n["metadata"]["labels"] | {"kubernetes.io/hostname": n["metadata"]["name"]}
        ).encode()
        for n in json.loads(nodes)["items"]
        if n["metadata"]["name"] == "nd96"
    )
    assert _values(_one(read_kubectl_nodes(labels_only, "labels", CATALOG)))["gpus_per_host"] == 8


def test_vgpu_vm_nodes_are_kept_with_a_problem_naming_their_profile() -> None:
    """If Tanzu worker nodes are VMs with an L40S-12Q vGPU (nvidia.com/vgpu.present), each stays
    a host with its CPU and memory and one L40S standing in, and each is a problem naming the
    profile, its 12 GiB frame buffer (25 % of the L40S) and how to give the physical hosts."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-L40S-12Q",
        "nvidia.com/gpu.count": "1",
        "nvidia.com/vgpu.present": "true",
        "nvidia.com/gpu.memory": "12288",
    }
    names = [f"tkg-gpu-worker-{i}" for i in range(4)]
    nodes = kube_list(*(node(n, labels, cpu="8", extra={"nvidia.com/gpu": "1"}) for n in names))
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    assert [h.name for h in read.hosts] == names
    assert {(_values(h)["gpu_model"], _values(h)["gpus_per_host"]) for h in read.hosts} == {
        ("L40S", 1)
    }
    assert len(read.problems) == 4
    for name, problem in zip(names, read.problems, strict=True):
        assert name in str(problem)
        assert "L40S-12Q" in problem.message
        assert "12 GiB frame buffer, 25%" in problem.message
        assert "RVTools" in problem.fix


def test_not_ready_and_cordoned_gpu_nodes_are_kept_with_a_note_naming_their_state() -> None:
    """If a GPU node is NotReady (Ready condition Unknown) or cordoned (spec.unschedulable), it is
    still a host, with a note naming its state; a Ready schedulable node has no such note."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L40S", "nvidia.com/gpu.count": "4"}
    ready, down, cordoned = (node(n, labels) for n in ("ok-1", "notready-1", "cordoned-1"))
    ready["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    down["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    cordoned["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    cordoned["spec"] = {"unschedulable": True}
    read = read_kubectl_nodes(kube_list(ready, down, cordoned), "nodes", CATALOG)
    assert [h.name for h in read.hosts] == ["ok-1", "notready-1", "cordoned-1"]
    assert read.problems == ()
    states = {n.subject: n.text for n in read.notes if "takes no new pods" in n.text}
    assert set(states) == {"notready-1", "cordoned-1"}
    assert "NotReady" in states["notready-1"]
    assert "cordoned" in states["cordoned-1"]


def test_node_notes_count_in_words_without_plural_brackets() -> None:
    """If a node's GPUs are 8 time-sliced replicas at 4 per GPU, its note says '4 time-slicing
    replicas'; a vGPU VM's note says '1 vGPU'; no note of either says '(s)'."""
    shared = node(
        "shared",
        {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.replicas": "4"},
        extra={"nvidia.com/gpu": "8"},
    )
    vm = node(
        "vm",
        {"nvidia.com/gpu.product": "NVIDIA-L40S-12Q", "nvidia.com/vgpu.present": "true"},
        extra={"nvidia.com/gpu": "1"},
    )
    read = read_kubectl_nodes(kube_list(shared, vm), "nodes", CATALOG)
    texts = {
        h.name: next(f for f in h.facts if f.field == "gpus_per_host").note.text for h in read.hosts
    }
    assert "4 time-slicing replicas per GPU" in texts["shared"]
    assert "with 1 vGPU of profile" in texts["vm"]
    assert not [t for t in texts.values() if "(s)" in t]


def test_a_node_with_mig_on_some_gpus_only_is_a_problem_naming_them() -> None:
    """Under the mixed strategy a node advertising a whole GPU (nvidia.com/gpu: 1) beside MIG
    devices has MIG off on that GPU: a problem saying all its GPUs are planned as MIG-enabled
    and how to give the node, as nvidia-smi's import does for such a host; the node stays one
    host with both GPUs."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.count": "2",
        "nvidia.com/mig.strategy": "mixed",
    }
    extra = {"nvidia.com/gpu": "1", "nvidia.com/mig-1g.10gb": "7"}
    read = read_kubectl_nodes(kube_list(node("h100-half", labels, extra=extra)), "n.json", CATALOG)
    assert (_values(_one(read))["gpus_per_host"], _values(_one(read))["mig_enabled"]) == (2, "yes")
    (problem,) = read.problems
    assert problem.column == "node h100-half: status.allocatable.nvidia.com/gpu"
    assert problem.message == (
        "1 GPU with MIG off is advertised beside MIG devices (7 × 1g.10gb); the inventory holds "
        "one MIG mode per host, so all 2 GPUs are planned as MIG-enabled"
    )
    assert "same MIG mode on every GPU" in problem.fix
    assert "two rows, one per MIG mode" in problem.fix


def test_aks_ncads_a10_v4_sizes_are_an_a10_or_a_part_of_one() -> None:
    """If an AKS node is an NCads A10 v4 VM, Standard_NC32ads_A10_v4 is one whole A10, and
    Standard_NC8ads_A10_v4 and Standard_NC16ads_A10_v4 hold 1/3 and 1/2 of an A10: those are left
    out, each with a problem saying the part of the A10 it holds, never planned as a whole A10
    (their model was unknown)."""
    sizes = {
        "nc32": "Standard_NC32ads_A10_v4",
        "nc8": "Standard_NC8ads_A10_v4",
        "nc16": "Standard_NC16ads_A10_v4",
    }
    nodes = kube_list(
        *(
            node(name, {"node.kubernetes.io/instance-type": size}, extra={"nvidia.com/gpu": "1"})
            for name, size in sizes.items()
        )
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert {n: (v["gpu_model"], v["gpus_per_host"]) for n, v in values.items()} == {
        "nc32": ("A10", 1),
    }
    parts = {p.column.split(":")[0]: p.message for p in read.problems}
    assert sorted(parts) == ["node nc16", "node nc8"]
    assert "has 1/3 of an NVIDIA A10" in parts["node nc8"]
    assert "has 1/2 of an NVIDIA A10" in parts["node nc16"]
    assert "the node is left out rather than planned as a whole A10" in parts["node nc8"]


def _kubevirt(
    name: str, workload: str, resources: dict[str, str], **labels: str
) -> dict[str, object]:
    """A GPU Operator node giving its GPUs to KubeVirt VMs through the sandbox device plugin."""
    return node(
        name,
        {
            "nvidia.com/gpu.workload.config": workload,
            "nvidia.com/gpu.deploy.sandbox-device-plugin": "true",
            "nvidia.com/gpu.present": "true",
            **labels,
        },
        extra=resources,
    )


def test_kubevirt_passthrough_nodes_have_the_gpus_their_pci_resource_advertises() -> None:
    """If a node gives its GPUs to KubeVirt VMs by passthrough (vm-passthrough, advertising
    nvidia.com/GA102GL_A10: 4), it has 4 A10s, the model named by the PCI device (it was noted
    'no GPU on the node' and left out)."""
    nodes = kube_list(
        _kubevirt("kv-1", "vm-passthrough", {"nvidia.com/GA102GL_A10": "4"}),
        _kubevirt("kv-t4", "vm-passthrough", {"nvidia.com/TU104GL_Tesla_T4": "2"}),
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert (values["kv-1"]["gpu_model"], values["kv-1"]["gpus_per_host"]) == ("A10", 4)
    assert (values["kv-t4"]["gpu_model"], values["kv-t4"]["gpus_per_host"]) == ("T4", 2)
    assert read.problems == ()
    assert not any("no GPU on the node" in n.text for n in read.notes)


def test_kubevirt_vgpu_nodes_count_gpus_by_their_label_or_ask_for_them() -> None:
    """If a node splits its GPUs into vGPUs for KubeVirt VMs (vm-vgpu, nvidia.com/NVIDIA_A10-4Q:
    24), the 24 count vGPUs: its GPUs are nvidia.com/gpu.count's 4 A10s; without that label the
    model is read and a problem says the GPUs are not, asking for them by --cluster-gpus; a node
    set for VMs advertising no sandbox resource is a problem, not 'no GPU'."""
    nodes = kube_list(
        _kubevirt(
            "kv-2", "vm-vgpu", {"nvidia.com/NVIDIA_A10-4Q": "24"}, **{"nvidia.com/gpu.count": "4"}
        ),
        _kubevirt("kv-3", "vm-vgpu", {"nvidia.com/NVIDIA_A10-4Q": "24"}),
        _kubevirt("kv-4", "vm-passthrough", {}),
    )
    read = read_kubectl_nodes(nodes, "nodes", CATALOG)
    values = {h.name: _values(h) for h in read.hosts}
    assert (values["kv-2"]["gpu_model"], values["kv-2"]["gpus_per_host"]) == ("A10", 4)
    assert values["kv-3"]["gpu_model"] == "A10"
    assert "gpus_per_host" not in values["kv-3"]
    assert "gpus_per_host" not in values["kv-4"]
    by_node = {p.column.split(":")[0]: p for p in read.problems}
    assert sorted(by_node) == ["node kv-3", "node kv-4"]
    assert "24 vGPUs of type A10-4Q" in by_node["node kv-3"].message
    assert "--cluster-gpus 'kubernetes=A10:GPUS'" in by_node["node kv-3"].fix
    assert "vm-passthrough" in by_node["node kv-4"].message
    assert "not read" in by_node["node kv-4"].message


def test_a_node_whose_device_plugin_advertises_no_allocatable_gpu_is_a_problem() -> None:
    """If GFD counts 8 GPUs (capacity 8) but the device plugin leaves 0 allocatable (it withdrew
    every GPU as unhealthy), the label's 8 is kept with a problem saying no GPU pod can run on
    the node now, as for 7 of 8."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
    down = node("h100-down", labels, extra={"nvidia.com/gpu": "8"})
    down["status"]["allocatable"] = {**down["status"]["allocatable"], "nvidia.com/gpu": "0"}
    read = read_kubectl_nodes(kube_list(down), "nodes.json", CATALOG)
    assert _values(_one(read))["gpus_per_host"] == 8
    (problem,) = read.problems
    assert problem.column == "node h100-down: metadata.labels.nvidia.com/gpu.count"
    assert "says 8 GPUs but status.allocatable.nvidia.com/gpu advertises 0" in problem.message
    assert "no GPU pod can run on the node now" in problem.message
    assert "unhealthy" in problem.fix


def test_a_node_with_an_nvidia_gpu_present_but_no_gpu_count_says_so_and_how_to_give_it() -> None:
    """If a node carries NFD's feature.node.kubernetes.io/pci-10de.present=true but advertises no
    nvidia.com/gpu and has no GFD label (under DRA, Kubernetes 1.34), it is left out with a
    problem saying an NVIDIA GPU is present but no GPU count is advertised, naming DRA and how to
    give the GPUs (the ResourceSlices, nvidia-smi, --cluster-gpus); it was 'no host with GPUs'
    with nothing about the node. A node without the label is still only noted."""
    labels = {"feature.node.kubernetes.io/pci-10de.present": "true", "cluster": "prod"}
    gfd = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
    data = kube_list(
        node("dra-2", labels),
        node("cpu-1"),
        node("g", {**gfd, "cluster": "prod"}, extra={"nvidia.com/gpu": "8"}),
    )
    imported = import_inventory([("nodes.json", data)], CATALOG)
    assert imported.frame["host"].tolist() == ["g"]
    (problem,) = imported.problems
    assert problem.column == (
        "node dra-2: metadata.labels.feature.node.kubernetes.io/pci-10de.present"
    )
    assert "an NVIDIA GPU is present on the node" in problem.message
    assert "no GPU count is advertised" in problem.message
    assert "DRA" in problem.message
    assert "kubectl get resourceslices -o json" in problem.fix
    assert "--cluster-gpus 'prod=MODEL:GPUS'" in problem.fix
    assert any(n.subject == "cpu-1" and "no GPU on the node" in n.text for n in imported.notes)
    given = import_inventory(
        [("nodes.json", data)], CATALOG, gpus_by_cluster={"prod": ("H100-80GB-SXM", 8)}
    )
    assert given.frame.set_index("host").loc["dra-2", "gpus_per_host"] == 8
    assert given.frame.set_index("host").loc["dra-2", "cpu_cores"] == 64.0
    assert given.problems == ()


def test_resource_slices_among_nodes_are_asked_for_as_a_file_of_their_own() -> None:
    """If ResourceSlices are listed with the nodes (kubectl get nodes,resourceslices), each is a
    problem asking for kubectl get resourceslices -o json as a file of its own, which is read."""
    slice_object = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "spec": {}}
    gfd = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
    read = read_kubectl_nodes(kube_list(node("g", gfd), slice_object), "all.json", CATALOG)
    (problem,) = read.problems
    assert "kind ResourceSlice" in problem.message
    assert "kubectl get resourceslices -o json > resourceslices.json" in problem.fix


def test_a_node_labelled_for_the_dra_driver_without_a_gpu_count_names_that_label() -> None:
    """If a node carries NVIDIA's DRA label nvidia.com/dra-kubelet-plugin=true (no NFD label) and
    advertises no GPU, its problem names that label and DRA; a KubeVirt node whose vGPUs leave
    its GPUs unread (also labelled nvidia.com/gpu.present) keeps its own problem."""
    nodes = kube_list(
        node("dra-3", {"nvidia.com/dra-kubelet-plugin": "true"}),
        _kubevirt("kv-3", "vm-vgpu", {"nvidia.com/NVIDIA_A10-4Q": "24"}),
        node(
            "g", {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, extra={"nvidia.com/gpu": "8"}
        ),
    )
    imported = import_inventory([("nodes.json", nodes)], CATALOG)
    by_node = {str(p.column).split(":")[0]: p for p in imported.problems}
    assert by_node["node dra-3"].column == (
        "node dra-3: metadata.labels.nvidia.com/dra-kubelet-plugin"
    )
    assert "DRA driver publishes" in by_node["node dra-3"].message
    assert "24 vGPUs of type A10-4Q" in by_node["node kv-3"].message
    uncounted = [p.column for p in imported.problems if "no GPU count is advertised" in p.message]
    assert uncounted == ["node dra-3: metadata.labels.nvidia.com/dra-kubelet-plugin"]


@pytest.mark.parametrize(
    ("instance_type", "advertised", "gpus", "replicas"),
    [("g5.12xlarge", "40", 4, 10), ("g5.xlarge", "10", 1, 10), ("g5.12xlarge", "8", 4, 2)],
)
def test_a_whole_multiple_of_the_instance_type_s_gpus_is_read_as_shared_replicas(
    instance_type: str, advertised: str, gpus: int, replicas: int
) -> None:
    """If an EKS node time-sliced by the device plugin without GPU Feature Discovery advertises a
    whole multiple of its EC2 instance type's GPUs (a g5.12xlarge, 4 A10G, advertising 40), the
    instance type's GPUs are read, not the replicas, and a problem says sharing is assumed at
    that many replicas per GPU; no problem says the advertised count is taken."""
    read = read_kubectl_nodes(
        kube_list(
            node(
                "ts",
                {"node.kubernetes.io/instance-type": instance_type},
                extra={"nvidia.com/gpu": advertised},
            )
        ),
        "nodes.json",
        CATALOG,
    )
    host = _one(read)
    assert _values(host)["gpus_per_host"] == gpus
    counted = host.get("gpus_per_host")
    assert counted is not None
    assert counted.source == "derived"
    assert f"{replicas} time-slicing replicas per GPU" in counted.note.text
    assert len(read.problems) == 1
    problem = read.problems[0]
    assert problem.column == "node ts: status.allocatable.nvidia.com/gpu"
    assert (
        f"advertises {advertised} GPUs but the EC2 instance type {instance_type} has {gpus}"
        in problem.message
    )
    assert f"{replicas} time-slicing replicas per GPU" in problem.message
    assert "sharing assumed" in problem.message
    assert "is taken" not in problem.message


def test_a_gpu_count_label_or_replicas_label_wins_over_the_instance_type_s_multiple() -> None:
    """If GPU Feature Discovery labels the node's replicas, they divide the advertised GPUs as
    before and no sharing is assumed from the instance type."""
    read = read_kubectl_nodes(
        kube_list(
            node(
                "ts",
                {
                    "node.kubernetes.io/instance-type": "g5.12xlarge",
                    "nvidia.com/gpu.replicas": "10",
                },
                extra={"nvidia.com/gpu": "40"},
            )
        ),
        "nodes.json",
        CATALOG,
    )
    assert _values(_one(read))["gpus_per_host"] == 4
    assert read.problems == ()
