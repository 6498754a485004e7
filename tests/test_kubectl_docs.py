"""Tests that docs/input-formats.md describes what the kubectl importers read: every resource
and label, every EC2 instance family and the figures they assume."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner.inputs.importers import kubectl_nodes, kubectl_pods

_DOCS = Path(__file__).resolve().parents[1] / "docs" / "input-formats.md"


def _row(command: str) -> str:
    """The docs' table row of the importer of ``command``."""
    return next(
        line for line in _DOCS.read_text().splitlines() if line.startswith(f"| `{command}`")
    )


def _named(name: str, row: str) -> bool:
    """``name`` is in ``row``, whole or (after others of its prefix) as its last part in code."""
    return name in row or f"`{name.rsplit('/', 1)[-1]}`" in row


_POD_NAMES = sorted(
    {
        name
        for scheme in (kubectl_pods._HAMI, kubectl_pods._VOLCANO, kubectl_pods._ALIBABA)
        for name in (*scheme.own, scheme.devices)
    }
    | set(kubectl_nodes.GPU_SELECTOR_LABELS)
)
_NODE_NAMES = sorted(
    {
        *kubectl_nodes._ADVERTISED,
        *kubectl_nodes.GPU_SELECTOR_LABELS,
        kubectl_nodes._ALIBABA_MODEL,
        kubectl_nodes._ACK_MODEL,
        kubectl_nodes._ACK_MEMORY,
        kubectl_nodes._VOLCANO_VGPUS,
        kubectl_nodes._KARPENTER_GPU,
        kubectl_nodes._KARPENTER_MEMORY,
        kubectl_nodes.GKE_SHARING_LABEL,
        kubectl_nodes.GKE_CLIENTS_LABEL,
        kubectl_nodes.GKE_PARTITION_LABEL,
    }
)


@pytest.mark.parametrize("name", _POD_NAMES)
def test_the_pods_row_names_each_resource_and_label_read(name: str) -> None:
    """Every GPU resource and pinning label the pods' importer reads (Volcano's vgpu-number,
    Alibaba's aliyun.com/gpu-mem, the EC2 instance type...) is named in the docs' pods row."""
    assert _named(name, _row("kubectl get pods -A -o json")), name


@pytest.mark.parametrize("name", _NODE_NAMES)
def test_the_nodes_row_names_each_resource_and_label_read(name: str) -> None:
    """Every resource and label the nodes' importer reads (ACK's, Volcano's, EC2's, GKE's) is
    named in the docs' nodes row."""
    assert _named(name, _row("kubectl get nodes -o json")), name


def test_the_nodes_row_names_each_ec2_family_and_the_volcano_split() -> None:
    """Each EC2 instance family the nodes' importer knows is named, and the 10 vGPUs per GPU it
    assumes for Volcano."""
    row = _row("kubectl get nodes -o json")
    missing = [f for f in kubectl_nodes._EC2_GPUS if not re.search(rf"\b{re.escape(f)}\b", row)]
    assert missing == []
    assert f"default {kubectl_nodes._VOLCANO_SPLIT} per GPU" in row


def test_the_pods_row_gives_the_figures_assumed_and_the_bounds() -> None:
    """The pods row gives the assumed GPU memory and time-sliced share, the most GPUs a pod may
    ask and Kubernetes' rule that extended resources are whole."""
    row = _row("kubectl get pods -A -o json")
    defaults = kubectl_pods.WorkloadDefaults()
    assert f"an assumed {defaults.gpu_memory_gib:g} GiB" in row
    assert f"an assumed {defaults.shared_gpu_share:g} GPU" in row
    assert f"more than {kubectl_pods.MAX_GPUS_PER_NODE} GPUs in one container or pod" in row
    assert "Kubernetes takes only whole" in row


def test_the_pods_row_says_how_a_kubevirt_vms_gpu_is_read() -> None:
    """The pods row names the sandbox device plugin's passthrough and vGPU resources, what each
    is read as, and that an nvidia.com/ resource not read leaves its pod out."""
    row = _row("kubectl get pods -A -o json")
    assert "`nvidia.com/GA102GL_A10`" in row
    assert "`nvidia.com/NVIDIA_A10-4Q`" in row
    assert "1/6 of an A10" in row
    assert "another `nvidia.com/` resource on a pod asking no GPU read here" in row


def test_the_nodes_row_says_how_a_node_giving_its_gpus_to_kubevirt_vms_is_read() -> None:
    """The nodes row names the workload label and the sandbox device plugin's resources, and
    that vGPUs are not counted as GPUs."""
    row = _row("kubectl get nodes -o json")
    assert f"`{kubectl_nodes.WORKLOAD_CONFIG_LABEL}`" in row
    assert "`vm-passthrough` or `vm-vgpu`" in row
    assert "which count vGPUs, not GPUs" in row
