"""Tests of Kubernetes nodes' GPUs read from NVIDIA's DRA driver's ResourceSlices
(``kubectl get resourceslices -o json``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from importer_samples import CATALOG, as_kubectl_yaml, kube_list, node

from planner.inputs.importers.detect import detect_format
from planner.inputs.importers.estate import import_inventory
from planner.inputs.importers.mix import import_workloads
from planner.inputs.importers.resource_slices import read_resource_slices
from planner.inputs.problems import InputError

H100 = "NVIDIA H100 80GB HBM3"


def _attributes(**values: Any) -> dict[str, Any]:
    return {k: {"int": v} if isinstance(v, int) else {"string": v} for k, v in values.items()}


def _gpu(index: int, product: str = H100, memory: str = "81559Mi") -> dict[str, Any]:
    """A whole GPU as the DRA driver publishes it (type gpu)."""
    return {
        "name": f"gpu-{index}",
        "attributes": _attributes(
            type="gpu",
            uuid=f"GPU-{index:08d}",
            productName=product,
            index=index,
            pcieBusID=f"0000:{index + 16:02x}:00.0",
        ),
        "capacity": {"memory": {"value": memory}},
    }


def _mig(parent: int, profile: str, number: int) -> dict[str, Any]:
    """A MIG device in place on GPU ``parent`` (type mig)."""
    return {
        "name": f"gpu-{parent}-mig-{number}",
        "attributes": _attributes(
            type="mig",
            uuid=f"MIG-{parent}-{number}",
            parentUUID=f"GPU-{parent:08d}",
            profile=profile,
            productName="NVIDIA A100-SXM4-80GB",
        ),
        "capacity": {"memory": {"value": "9856Mi"}},
    }


def _slice(node_name: str, devices: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpu.nvidia.com-x"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
            **spec,
        },
    }


def _file(*slices: dict[str, Any]) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(slices)}).encode()


def test_a_nodes_gpus_are_the_dra_drivers_gpu_devices() -> None:
    """If NVIDIA's DRA driver publishes 8 devices of type gpu named 'NVIDIA H100 80GB HBM3' with
    81559Mi each for node dra-1, the node has 8 H100 80GB SXM with MIG off, on Kubernetes."""
    read = read_resource_slices(_file(_slice("dra-1", [_gpu(i) for i in range(8)])), "rs", CATALOG)
    (host,) = read.hosts
    values = {f.field: f.value for f in host.facts}
    assert host.name == "dra-1"
    assert values == {
        "platform": "kubernetes",
        "gpu_model": "H100-80GB-SXM",
        "gpus_per_host": 8,
        "mig_enabled": "no",
    }
    assert read.problems == ()


def test_mig_devices_count_their_parent_gpus_and_are_the_mig_layout() -> None:
    """If two A100 80GB GPUs are split into MIG devices (3 × 1g.10gb and 2 × 3g.40gb), the node has
    2 GPUs, MIG enabled, each GPU's devices its layout; a third GPU with MIG off beside them is
    a problem (one MIG mode per host)."""
    devices = [_mig(0, "1g.10gb", n) for n in range(3)] + [_mig(1, "3g.40gb", n) for n in range(2)]
    read = read_resource_slices(_file(_slice("a100", devices)), "rs", CATALOG)
    (host,) = read.hosts
    values = {f.field: f.value for f in host.facts}
    assert (values["gpu_model"], values["gpus_per_host"]) == ("A100-80GB-SXM", 2)
    assert values["mig_enabled"] == "yes"
    assert sorted(tuple(i.profile for i in g.instances) for g in host.mig_layout) == [
        ("1g.10gb",) * 3,
        ("3g.40gb",) * 2,
    ]
    assert read.problems == ()
    mixed = [*devices, _gpu(2, "NVIDIA A100-SXM4-80GB")]
    read = read_resource_slices(_file(_slice("a100", mixed)), "rs", CATALOG)
    assert {f.field: f.value for f in read.hosts[0].facts}["gpus_per_host"] == 3
    (problem,) = read.problems
    assert "1 GPU with MIG off beside 2 GPUs with MIG devices" in problem.message


def test_a_passthrough_device_is_the_gpu_of_its_pci_bus_and_old_generations_are_not_read() -> None:
    """If a GPU is published both as type gpu and as type vfio (passthrough) of the same PCI
    bus, it counts once; the slices of an older generation of the pool are not read."""
    vfio = {
        "name": "gpu-vfio-0",
        "attributes": _attributes(type="vfio", pcieBusID="0000:10:00.0", productName="GH100"),
    }
    old = _slice("n1", [_gpu(i) for i in range(4)])
    new = _slice("n1", [_gpu(0), vfio, _gpu(1)])
    new["spec"]["pool"]["generation"] = 2
    read = read_resource_slices(_file(old, new), "rs", CATALOG)
    assert {f.field: f.value for f in read.hosts[0].facts}["gpus_per_host"] == 2


def test_slices_of_other_drivers_only_are_refused_naming_the_driver() -> None:
    """If the file holds ResourceSlices of another driver only (compute-domain.nvidia.com), it
    is refused naming the driver and how to list NVIDIA's GPUs; beside gpu.nvidia.com's they
    are one problem and the GPUs are read."""
    other = _slice("n1", [])
    other["spec"]["driver"] = "compute-domain.nvidia.com"
    with pytest.raises(InputError) as refused:
        read_resource_slices(_file(other), "rs.json", CATALOG)
    (problem,) = refused.value.problems
    assert "compute-domain.nvidia.com" in problem.message
    assert "--field-selector spec.driver=gpu.nvidia.com" in problem.fix
    read = read_resource_slices(_file(other, _slice("n2", [_gpu(0)])), "rs.json", CATALOG)
    assert [h.name for h in read.hosts] == ["n2"]
    assert "compute-domain.nvidia.com" in read.problems[0].message


def test_the_inventory_reads_resource_slices_with_the_nodes_cpu_and_memory() -> None:
    """If kubectl get resourceslices -o json is given beside kubectl get nodes -o json of a node
    whose GPUs only DRA publishes (NFD's pci-10de.present, no nvidia.com/gpu), the node is one
    host: its 8 H100s from the slices, its cores and memory from the node, and no problem. Its
    slices alone give the GPUs (cores and memory assumed); they were refused as 'neither
    Kubernetes nodes nor pods'."""
    labels = {"feature.node.kubernetes.io/pci-10de.present": "true"}
    nodes = kube_list(node("dra-1", labels, cpu="112", memory="1024Gi"))
    slices = _file(_slice("dra-1", [_gpu(i) for i in range(8)]))
    imported = import_inventory([("nodes.json", nodes), ("rs.json", slices)], CATALOG)
    row = imported.frame.iloc[0].to_dict()
    assert len(imported.frame) == 1
    assert (row["host"], row["gpu_model"], row["gpus_per_host"]) == ("dra-1", "H100-80GB-SXM", 8)
    assert (row["cpu_cores"], row["ram_gib"]) == (112.0, 1024.0)
    assert imported.problems == ()
    alone = import_inventory([("rs.json", slices)], CATALOG)
    assert alone.frame["gpus_per_host"].tolist() == [8]


def test_resource_slices_as_kubectl_yaml_read_as_their_json() -> None:
    """``kubectl get resourceslices -o yaml`` gives the hosts its JSON gives, named as read from
    -o yaml."""
    data = _file(_slice("dra-1", [_gpu(i) for i in range(4)]))
    json_read = read_resource_slices(data, "rs.json", CATALOG)
    yaml_read = read_resource_slices(as_kubectl_yaml(data), "rs.json", CATALOG)
    assert yaml_read.hosts == json_read.hosts
    assert yaml_read.tool == "kubectl get resourceslices -o yaml"


@pytest.mark.parametrize("form", ["JSON", "YAML"])
def test_resource_slices_given_as_workloads_are_named_an_inventory_file(form: str) -> None:
    """If kubectl get resourceslices output is given as workloads (detection alone, or the
    workloads import), the problem names the file, says ResourceSlices describe the nodes'
    devices (an inventory) and where to give it, not 'neither nodes nor pods'."""
    data = _file(_slice("gpu-1", [_gpu(0)]))
    if form == "YAML":
        data = as_kubectl_yaml(data)
    for refused in (
        lambda: detect_format("slices.json", data, role="workloads"),
        lambda: import_workloads([("slices.json", data)], CATALOG),
    ):
        with pytest.raises(InputError) as error:
            refused()
        (problem,) = error.value.problems
        assert problem.file == "slices.json"
        assert "kubectl get resourceslices" in problem.message
        assert "ResourceSlices" in problem.message
        assert "devices" in problem.message
        assert "neither" not in problem.message
        assert problem.fix.startswith("give it as an inventory file (the Inventory page's import")


def test_resource_slices_detected_with_no_role_say_the_inventory_reads_them() -> None:
    """Detected with no role, ResourceSlices are named as the inventory's input; the inventory
    import still reads them."""
    data = _file(_slice("gpu-1", [_gpu(0)]))
    with pytest.raises(InputError) as error:
        detect_format("slices.json", data)
    (problem,) = error.value.problems
    assert "ResourceSlices" in problem.message
    assert "inventory" in problem.fix
    assert import_inventory([("slices.json", data)], CATALOG).frame["host"].tolist() == ["gpu-1"]
