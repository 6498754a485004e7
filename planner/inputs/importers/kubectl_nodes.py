"""Kubernetes GPU nodes from ``kubectl get nodes -o json`` (or ``-o yaml``) and the GPU Operator's
node labels.

GPU Feature Discovery (GFD, part of NVIDIA's GPU Operator) labels each node with its GPU:
``nvidia.com/gpu.product`` (the name, with ``-MIG-<profile>`` under the MIG single strategy and
``-SHARED`` when time-slicing renames it), ``nvidia.com/gpu.count``, ``nvidia.com/gpu.memory``
[MiB], ``nvidia.com/gpu.replicas`` (time-slicing), ``nvidia.com/mig.strategy``,
``nvidia.com/mig.config`` and ``nvidia.com/vgpu.present``; the device plugin advertises
``nvidia.com/gpu`` and, under the mixed strategy, ``nvidia.com/mig-<profile>`` resources.

Readings and their rules:

- Host: ``metadata.name`` (labels alone: ``kubernetes.io/hostname``); platform ``kubernetes``.
  Its ``metadata.uid`` (``NodesRead.uids``) tells it from a node of the same name in another
  cluster's file: Kubernetes gives every node a uid of its own.
- CPU and memory: ``status.allocatable`` (what the scheduler can give pods, i.e. the cores and
  memory available to workloads the inventory asks for), else ``status.capacity``.
- GPUs: ``nvidia.com/gpu.count``; under the MIG single strategy it counts MIG devices, so the
  physical GPUs are that count over the profile's maximum per GPU (every GPU is split alike
  under the single strategy), rounded up. Without the label: ``nvidia.com/gpu`` (or, when it is
  0, the renamed ``nvidia.com/gpu.shared``) over ``nvidia.com/gpu.replicas`` (time-slicing or
  MPS); shared replicas with no replicas label are a problem, not a count. Under the mixed
  strategy ``nvidia.com/gpu`` counts only GPUs with MIG off, so the GPUs in MIG mode are assumed
  the fewest that hold the ``nvidia.com/mig-<profile>`` devices. A node advertising whole GPUs
  beside MIG devices has MIG on some GPUs only: the inventory holds one MIG mode per host, so it
  is kept whole, all its GPUs planned as MIG-enabled, with a problem saying how to give it.
- A node giving its GPUs to KubeVirt VMs (``nvidia.com/gpu.workload.config`` vm-passthrough or
  vm-vgpu, the GPU Operator's sandbox device plugin advertising ``nvidia.com/<PCI device>`` or
  ``nvidia.com/<vGPU type>``, ``vm_gpu``): the model the resource names (else GFD's product);
  passed through, the GPUs it advertises; as vGPUs, which count vGPUs, ``nvidia.com/gpu.count``,
  else a problem asking for the GPUs. One advertising none of them is a problem, not "no GPU".
- A node labelled ``nvidia.com/vgpu.present=true`` is a VM with a vGPU: its GPU maps to the
  profile's physical model, and its CPU and memory are the VM's; it is kept, with a problem
  naming its profile and frame buffer, as its physical host is not described.
- Cluster: the ``cluster`` argument, else a ``cluster``/``cluster-name`` style label, else
  ``topology.kubernetes.io/zone``, else the trace's ``openb`` for a node of Alibaba's trace
  (below), else ``kubernetes``.
- Managed clusters label the model where GFD does not run: GKE
  ``cloud.google.com/gke-accelerator`` (``nvidia-tesla-t4``, ``nvidia-h100-80gb``), EKS
  ``k8s.amazonaws.com/accelerator``, Karpenter ``karpenter.k8s.aws/instance-gpu-name`` with
  ``instance-gpu-memory`` [MiB]. An EC2 instance type (``node.kubernetes.io/instance-type``, or
  the beta label) of a GPU family AWS lists (``_EC2_GPUS``: p4d.24xlarge 8 × A100 40GB SXM, g5
  A10G, g6e L40S...) gives the model after GFD's and GKE's labels (EKS's accelerator label names
  only the family), and the GPUs when nothing else counts them; GPUs read that are not the
  instance type's are a problem. Without GFD's count or replicas, ``nvidia.com/gpu`` a whole
  multiple (over 1) of the instance type's GPUs is the device plugin's time-slicing or MPS
  advertising each GPU that many times: the instance type's GPUs are read, with a problem saying
  sharing is assumed; another count is kept as advertised. An Azure VM size on AKS (``_AZURE_GPUS``:
  Standard_NC24ads_A100_v4 1 × A100 80GB PCIe, Standard_ND96isr_H100_v5 8 × H100 80GB SXM...)
  is read alike; one with part of a GPU (``_AZURE_PARTIAL_GPUS``: NV6ads A10 v5, 1/6 of an A10,
  or NC8ads A10 v4, 1/3) is left out with a problem, as the inventory counts whole GPUs.
  Another instance type is named in the note as not known.
- GKE's own GPU sharing: time-sharing or MPS (``cloud.google.com/gke-gpu-sharing-strategy``)
  advertises each GPU ``cloud.google.com/gke-max-shared-clients-per-gpu`` times, as
  ``nvidia.com/gpu.replicas`` says for GFD; a MIG partition size
  (``cloud.google.com/gke-gpu-partition-size``) splits every GPU of the node alike and advertises
  its MIG devices as ``nvidia.com/gpu``, as the MIG single strategy does.
- Alibaba Cloud's GPU sharing (the ``alibaba/clusterdata`` node files) advertises
  ``alibabacloud.com/gpu-count`` GPUs and labels the model ``alibabacloud.com/gpu-card-model``;
  on ACK it advertises ``aliyun.com/gpu-count`` GPUs, and ACK labels the model
  ``aliyun.accelerator/nvidia_name`` with ``aliyun.accelerator/nvidia_mem`` [MiB]. A model
  Alibaba's label names that the catalog lacks (the trace's ``P100``, ``V100M16``, ``G2``... in
  its ``node_yaml/openb_node_list_gpu_node.yaml``) is added as the trace's CSV node list adds it
  (``alibaba_trace.trace_gpu_model``; ``NodesRead.added_models``), with one note per model
  saying its figures and nodes; the trace's model written in another case (``p100``) is the
  trace's (``P100``), as the CSV has it.
- Volcano's vGPU device plugin advertises ``volcano.sh/vgpu-number``, 10 vGPUs per GPU unless
  its deviceSplitCount says otherwise: without GFD's ``nvidia.com/gpu.count`` the GPUs are the
  vGPUs over 10, rounded up, assumed.
- HAMi's device plugin advertises each GPU deviceSplitCount times as ``nvidia.com/gpu`` and
  lists the physical GPUs in the node annotation ``hami.io/node-nvidia-register``: the GPUs are
  those it lists, their type the model where no label names it. Without it, a node labelled
  ``gpu=on`` (HAMi's) advertising more than a server holds or a multiple of 10 is a problem.
- More GPUs on one node than the largest GPU servers hold (``MAX_GPUS_PER_NODE``, 16) are a
  problem naming the value (``1k`` is 1000), the count read kept; a plain count the inventory
  refuses is left to its problem.
- A GPU node NotReady (its Ready condition not True) or cordoned (``spec.unschedulable``) is
  kept, as capacity the cluster owns, with a note naming its state.
- Nodes without a GPU are left out, each with a note saying so; a node advertising a GPU
  resource not read here (``amd.com/gpu``) is left out with a problem naming it. A node
  labelled with an NVIDIA GPU (Node Feature Discovery's ``pci-10de.present``, the GPU
  Operator's ``nvidia.com/gpu.present``, ``nvidia.com/dra-kubelet-plugin``) that counts no GPU,
  as under DRA, where NVIDIA's DRA driver publishes the GPUs as ResourceSlices
  (``resource_slices``), is kept with its CPU and memory for another file to give its GPUs,
  and is a problem saying how when none does (``NodesRead.uncounted``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.inputs import alibaba_trace
from planner.inputs.alibaba_trace import TRACE_MODEL_NAMES, trace_gpu_model
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.importers.detect import give_as
from planner.inputs.importers.gpu_names import OWN_GPU_FIX, GpuName, match_gpu_name
from planner.inputs.importers.hosts import Fact, HostFacts, HostsRead, MigGpu, MigInstance, fact
from planner.inputs.importers.kube import (
    KubeObject,
    as_mapping,
    as_text,
    kube_documents,
    kube_objects,
    object_kind,
    parse_quantity,
    quantity_gib,
    quantity_text,
)
from planner.inputs.importers.provenance import ImportNote, NoteSource
from planner.inputs.limits import MAX_GPUS_PER_HOST
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import quoted, shown
from planner.words import counted

__all__ = [
    "CLUSTER_LABELS",
    "GKE_CLIENTS_LABEL",
    "GKE_PARTITION_LABEL",
    "GKE_SHARING_LABEL",
    "GPU_SELECTOR_LABELS",
    "MAX_GPUS_PER_NODE",
    "NODE_SIZE",
    "NVIDIA_PCI_LABEL",
    "PRODUCT_LABEL",
    "REPLICAS_LABEL",
    "SHARING_LABEL",
    "TOOL",
    "WORKLOAD_CONFIG_LABEL",
    "NodesRead",
    "instance_replicas",
    "read_kubectl_nodes",
    "registered_gpu",
    "selected_gpu",
    "vm_gpu",
]

TOOL = "kubectl get nodes -o json"
_TOOLS = {"JSON": TOOL, "YAML": "kubectl get nodes -o yaml"}
"""The command, by the form its output was given in."""
CLUSTER_LABELS = (
    "cluster",
    "cluster-name",
    "cluster_name",
    "cluster.x-k8s.io/cluster-name",
    "alpha.eksctl.io/cluster-name",
    "kubernetes.azure.com/cluster",
)
"""Node labels that name the cluster, tried in order."""
MAX_GPUS_PER_NODE = 16
"""Most GPUs one Kubernetes node holds [GPUs]: the largest GPU servers (NVIDIA DGX-2 and HGX-2,
EC2 p2.16xlarge) have 16. A pod runs on one node, so a pod asking more is never scheduled."""
NODE_SIZE = (
    f"at most {MAX_GPUS_PER_NODE} GPUs: the largest GPU servers, such as a DGX-2 or an EC2 "
    f"p2.16xlarge, have {MAX_GPUS_PER_NODE}"
)
"""``MAX_GPUS_PER_NODE`` and why, for a message."""
_ZONE = "topology.kubernetes.io/zone"
_GPU = "nvidia.com/gpu"
_LABEL = "nvidia.com/"
_SHARED = f"{_GPU}.shared"
PRODUCT_LABEL = f"{_LABEL}gpu.product"
REPLICAS_LABEL = f"{_LABEL}gpu.replicas"
SHARING_LABEL = f"{_LABEL}gpu.sharing-strategy"
# GKE's labels: "About GPU sharing strategies in GKE" and "Run multi-instance GPUs" in the
# GKE documentation (cloud.google.com/kubernetes-engine/docs).
_GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
GKE_SHARING_LABEL = "cloud.google.com/gke-gpu-sharing-strategy"
GKE_CLIENTS_LABEL = "cloud.google.com/gke-max-shared-clients-per-gpu"
GKE_PARTITION_LABEL = "cloud.google.com/gke-gpu-partition-size"
_EKS_ACCELERATOR = "k8s.amazonaws.com/accelerator"
_KARPENTER_GPU = "karpenter.k8s.aws/instance-gpu-name"
_KARPENTER_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
_INSTANCE_TYPES = (_INSTANCE_TYPE, "beta.kubernetes.io/instance-type")
"""Labels naming a node's cloud instance type, the deprecated beta one last."""
_ONE = dict.fromkeys(("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"), 1)
# Amazon EC2 "Accelerated computing instance specifications" and AWS Batch "GPU jobs" tables: the
# NVIDIA GPU of each EC2 instance family (named as NVIDIA names it) and the GPUs of each size.
_EC2_GPUS: dict[str, tuple[str, dict[str, int]]] = {
    "p3": ("V100-SXM2-16GB", {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8}),
    "p3dn": ("V100-SXM2-32GB", {"24xlarge": 8}),
    "p4d": ("A100-SXM4-40GB", {"24xlarge": 8}),
    "p4de": ("A100-SXM4-80GB", {"24xlarge": 8}),
    "p5": ("H100-80GB-HBM3", {"4xlarge": 1, "48xlarge": 8}),
    "p5e": ("H200-141GB-HBM3e", {"48xlarge": 8}),
    "p5en": ("H200-141GB-HBM3e", {"48xlarge": 8}),
    "p6-b200": ("B200-180GB-SXM", {"48xlarge": 8}),
    "g4dn": ("T4", {**_ONE, "12xlarge": 4, "metal": 8}),
    "g5": ("A10G", {**_ONE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "g5g": ("T4G", {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 2}),
    "g6": ("L4", {**_ONE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "gr6": ("L4", {"4xlarge": 1, "8xlarge": 1}),
    "g6e": ("L40S", {**_ONE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8}),
    "p2": ("K80", {"xlarge": 1, "8xlarge": 8, "16xlarge": 16}),
    "g3": ("M60", {"4xlarge": 1, "8xlarge": 2, "16xlarge": 4}),
    "g3s": ("M60", {"xlarge": 1}),
}
# Microsoft Learn "Sizes for virtual machines in Azure", GPU-accelerated series (NC A100 v4,
# NCads H100 v5, ND A100 v4, NDm A100 v4, ND H100 v5, ND H200 v5, NCasT4_v3, NVadsA10 v5,
# NCads A10 v4, NCv3, NDv2): the NVIDIA GPU (as the catalog names it) and the GPUs of each VM
# size, lowercased.
_AZURE_GPUS: dict[str, tuple[str, int]] = {
    "standard_nc24ads_a100_v4": ("A100-80GB-PCIe", 1),
    "standard_nc48ads_a100_v4": ("A100-80GB-PCIe", 2),
    "standard_nc96ads_a100_v4": ("A100-80GB-PCIe", 4),
    "standard_nc40ads_h100_v5": ("H100-94GB-NVL", 1),
    "standard_nc80adis_h100_v5": ("H100-94GB-NVL", 2),
    "standard_nd96asr_v4": ("A100-40GB-SXM", 8),
    "standard_nd96amsr_a100_v4": ("A100-80GB-SXM", 8),
    "standard_nd96isr_h100_v5": ("H100-80GB-SXM", 8),
    "standard_nd96isr_h200_v5": ("H200-141GB-SXM", 8),
    "standard_nc4as_t4_v3": ("T4", 1),
    "standard_nc8as_t4_v3": ("T4", 1),
    "standard_nc16as_t4_v3": ("T4", 1),
    "standard_nc64as_t4_v3": ("T4", 4),
    "standard_nv36ads_a10_v5": ("A10", 1),
    "standard_nv36adms_a10_v5": ("A10", 1),
    "standard_nv72ads_a10_v5": ("A10", 2),
    "standard_nc32ads_a10_v4": ("A10", 1),
    "standard_nc6s_v3": ("V100-16GB-PCIe", 1),
    "standard_nc12s_v3": ("V100-16GB-PCIe", 2),
    "standard_nc24s_v3": ("V100-16GB-PCIe", 4),
    "standard_nc24rs_v3": ("V100-16GB-PCIe", 4),
    "standard_nd40rs_v2": ("V100-32GB-SXM", 8),
}
_AZURE_PARTIAL_GPUS: dict[str, tuple[str, str]] = {
    "standard_nv6ads_a10_v5": ("A10", "1/6"),
    "standard_nv12ads_a10_v5": ("A10", "1/3"),
    "standard_nv18ads_a10_v5": ("A10", "1/2"),
    "standard_nc8ads_a10_v4": ("A10", "1/3"),
    "standard_nc16ads_a10_v4": ("A10", "1/2"),
}
"""Azure VM sizes with part of a GPU (the NVadsA10 v5 and NCads A10 v4 series: a slice of an A10
on Azure's host, its GPU partitioning): the GPU and the part, from the same Microsoft Learn
tables. The NCads A10 v4 rows (NC8ads 1/3, NC16ads 1/2, NC32ads one whole A10) are unverified:
that table could not be read where they were written, and Azure's SKU API, as listed by Aspire's
AksNodeVmSizes, counts NC32ads as 2 GPUs (and every partial size as 1). A node advertising another
count than its size's gets a problem naming both."""
_CLOUD_SIZES_MIB = {"nvidia-tesla-a100": 40960}
"""GPU memory [MiB] of a cloud accelerator name that does not say it: GKE's
``nvidia-tesla-a100`` is the A100 40GB (``nvidia-a100-80gb`` names the other)."""
_ALIBABA_COUNT = "alibabacloud.com/gpu-count"
_ALIBABA_MODEL = "alibabacloud.com/gpu-card-model"
# AliyunContainerService/gpushare-scheduler-extender docs/designs/designs.md: ACK's GPU sharing
# advertises aliyun.com/gpu-count (GPUs) and aliyun.com/gpu-mem (GiB, all GPUs together); ACK
# labels the node's GPU aliyun.accelerator/nvidia_name and its memory nvidia_mem (16276MiB).
_ACK_COUNT = "aliyun.com/gpu-count"
_ACK_MODEL = "aliyun.accelerator/nvidia_name"
_ACK_MEMORY = "aliyun.accelerator/nvidia_mem"
_ADVERTISED = (_GPU, _SHARED, _ALIBABA_COUNT, _ACK_COUNT)
"""Resources counting a node's GPUs, in the order they are taken."""
# Project-HAMi/volcano-vgpu-device-plugin README and doc/config.md: a node advertises
# volcano.sh/vgpu-number, deviceSplitCount (10 by default) vGPUs per GPU, and
# volcano.sh/vgpu-memory.
_VOLCANO_VGPUS = "volcano.sh/vgpu-number"
_VOLCANO_SPLIT = 10
"""vGPUs the Volcano device plugin advertises per GPU unless configured (deviceSplitCount)."""
_VOLCANO_PREFIX = "volcano.sh/vgpu-"
# Project-HAMi/HAMi docs/develop/protocol.md: HAMi's device plugin advertises each GPU
# deviceSplitCount (10 by default) times as nvidia.com/gpu and registers the physical GPUs in a node
# annotation, one "{uuid},{split count},{memory MiB},{cores %},{type},{numa},{healthy}[,...]" per
# GPU, joined by ":"; the type is the GPU's name after "NVIDIA-". Its nodes carry the label gpu=on.
_HAMI_REGISTER = "hami.io/node-nvidia-register"
_HAMI_LOCATOR = f"metadata.annotations.{_HAMI_REGISTER}"
_HAMI_LABEL = ("gpu", "on")
# NVIDIA GPU Operator, "GPU Operator with KubeVirt": a node labelled
# nvidia.com/gpu.workload.config=vm-passthrough or vm-vgpu runs the sandbox device plugin, which
# advertises its GPUs for KubeVirt VMs as nvidia.com/<PCI device name> (passthrough,
# nvidia.com/GA102GL_A10) or nvidia.com/<vGPU type> (nvidia.com/NVIDIA_A10-4Q), not nvidia.com/gpu.
WORKLOAD_CONFIG_LABEL = f"{_LABEL}gpu.workload.config"
NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present"
"""Node Feature Discovery's label for a PCI device of vendor 10de (NVIDIA) on the node."""
_GPU_PRESENT = {
    NVIDIA_PCI_LABEL: "Node Feature Discovery's: an NVIDIA PCI device",
    f"{_LABEL}gpu.present": "the GPU Operator's",
    f"{_LABEL}dra-kubelet-plugin": "NVIDIA's label for nodes whose GPUs its DRA driver publishes",
}
"""Node labels saying an NVIDIA GPU is on the node (value ``true``), and whose they are."""
_VM_PASSTHROUGH = "vm-passthrough"
_VM_VGPU = "vm-vgpu"
_PCI_CHIP = re.compile(r"^(?:G[A-Z]|TU|AD|GV|GP|GK|GM)\d{3}[A-Z]*_")
"""The GPU chip opening a PCI device name as a resource (``GA102GL_``, ``TU104GL_``, ``GH100_``)."""
_VGPU_TYPE = re.compile(r"-\d+[ABCQ]$|-\d-\d+C(?:ME)?$", re.IGNORECASE)
"""How a vGPU type's name ends: ``-4Q`` (frame buffer and series), ``-1-10C`` (MIG-backed)."""
_READ_RESOURCES = frozenset(
    {
        *_ADVERTISED,
        "alibabacloud.com/gpu-milli",
        "aliyun.com/gpu-mem",
        "aliyun.com/gpu-core.percentage",
    }
)


@dataclass(frozen=True)
class NodesRead(HostsRead):
    """The GPU hosts of a ``kubectl get nodes`` file, with what tells each node from another
    cluster's node of the same name."""

    uids: Mapping[str, str] = field(default_factory=dict)
    """Each host's ``metadata.uid`` by its name; a node without one (label maps) is absent."""
    uncounted: Mapping[str, InputProblem] = field(default_factory=dict)
    """Hosts with an NVIDIA GPU present but no GPU count (``NVIDIA_PCI_LABEL``, under DRA), by
    name, each with the problem to report when no other file gives its GPUs."""
    added_models: tuple[GpuModel, ...] = ()
    """GPU models Alibaba's label ``alibabacloud.com/gpu-card-model`` names that the catalog
    lacks (the trace's ``P100``, ``G2``...), each as the trace's CSV node list adds it
    (``alibaba_trace.trace_gpu_model``): the catalog the hosts are planned with holds them."""


def read_kubectl_nodes(
    data: bytes, file: str, catalog: Catalog, *, cluster: str | None = None
) -> NodesRead:
    """GPU hosts from ``kubectl get nodes -o json`` or ``-o yaml`` (a list, ``kube.list_items``,
    or one ``Node``), or from the node labels alone (concatenated JSON objects, or an array of
    them). What is a node, and what a pod, is ``kube.object_kind``'s rule, as for detection.

    Raises ``InputError`` when the file is neither JSON nor YAML, holds no node, or holds pods.
    """
    read = kube_documents(data, file)
    objects = kube_objects(read.documents)
    hosts: list[HostFacts] = []
    notes: list[ImportNote] = []
    problems: list[InputProblem] = []
    uids: dict[str, str] = {}
    uncounted: dict[str, InputProblem] = {}
    labels_only = 0
    for position, item in enumerate(objects, start=1):
        kind = as_text(item.get("kind"))
        what = object_kind(item, read.form)
        if what is KubeObject.POD:
            raise InputError(
                [
                    InputProblem(
                        file,
                        None,
                        None,
                        "this is kubectl get pods output (workloads), not nodes",
                        give_as("workloads") + ", and the nodes as inventory",
                    )
                ]
            )
        if what is KubeObject.NODE:
            node = _Node.from_object(item, position)
        elif what is KubeObject.NODE_LABELS:
            node = _Node.from_labels(item, position)
            labels_only += 1
        else:
            problems.append(
                InputProblem(
                    file,
                    None,
                    f"object {position}",
                    f"object {position} is neither a Node nor a label map"
                    + (f" (kind {kind})" if kind else ""),
                    "give the ResourceSlices (Kubernetes DRA) as a file of their own: kubectl "
                    "get resourceslices -o json > resourceslices.json"
                    if kind == "ResourceSlice"
                    else "give the output of kubectl get nodes -o json",
                )
            )
            continue
        reader = (
            _partial_gpu_node
            if _partial_gpu(node) is not None
            else _vm_host
            if _gives_gpus_to_vms(node, catalog)
            else _host
        )
        host = reader(node, file, catalog, cluster, notes, problems)
        if host is not None:
            hosts.append(host)
            if node.uid:
                uids.setdefault(host.name, node.uid)
            # Only a node read with no GPU fact at all: a KubeVirt node's or a partly read
            # node's missing count has its own problem.
            gpu_facts = {f.field for f in host.facts} & {"gpu_model", "gpus_per_host"}
            if reader is _host and not gpu_facts and _gpu_present(node) is not None:
                cluster_fact = host.get("cluster")
                uncounted[host.name] = _uncounted_problem(
                    node, file, "" if cluster_fact is None else str(cluster_fact.value)
                )
    added_models, added_notes = _trace_models_added(hosts, file, catalog, problems)
    notes.extend(added_notes)
    if labels_only:
        notes.append(
            ImportNote(
                file,
                None,
                "metadata.labels",
                "",
                "",
                "",
                "read",
                "node labels only: CPU and memory are not in this output (kubectl get nodes "
                "-o json has them)",
            )
        )
    if not hosts and not notes and not problems:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    None,
                    "no Kubernetes node in the file",
                    "give the output of kubectl get nodes -o json",
                )
            ]
        )
    return NodesRead(
        file,
        _TOOLS[read.form],
        tuple(hosts),
        tuple(notes),
        tuple(problems),
        uids=uids,
        uncounted=uncounted,
        added_models=added_models,
    )


class _Node:
    """The parts of one node object the importer reads."""

    def __init__(
        self,
        name: str,
        labels: Mapping[str, str],
        capacity: Mapping[str, Any],
        allocatable: Mapping[str, Any],
        annotations: Mapping[str, str] | None = None,
        states: tuple[str, ...] = (),
        uid: str = "",
    ) -> None:
        self.name = name
        self.labels = labels
        self.capacity = capacity
        self.allocatable = allocatable
        self.annotations = annotations or {}
        self.states = states
        """What keeps the node from taking pods (``NotReady``, ``cordoned``); none when it can."""
        self.uid = uid
        """``metadata.uid``, unique to the node across clusters; empty when not given."""

    @classmethod
    def from_object(cls, item: Mapping[str, Any], position: int) -> _Node:
        metadata = as_mapping(item.get("metadata"))
        status = as_mapping(item.get("status"))
        labels = {str(k): as_text(v) for k, v in as_mapping(metadata.get("labels")).items()}
        name = as_text(metadata.get("name")) or labels.get("kubernetes.io/hostname", "")
        annotations = {
            str(k): as_text(v) for k, v in as_mapping(metadata.get("annotations")).items()
        }
        return cls(
            name or f"node-{position}",
            labels,
            as_mapping(status.get("capacity")),
            as_mapping(status.get("allocatable")),
            annotations,
            _states(item),
            as_text(metadata.get("uid")).strip(),
        )

    @classmethod
    def from_labels(cls, labels: Mapping[str, Any], position: int) -> _Node:
        text = {str(k): as_text(v) for k, v in labels.items()}
        return cls(text.get("kubernetes.io/hostname") or f"node-{position}", text, {}, {})

    def resource(self, name: str) -> tuple[Any, str] | None:
        """A resource's quantity with where it was found (allocatable first)."""
        for part, values in (("allocatable", self.allocatable), ("capacity", self.capacity)):
            if name in values:
                return values[name], f"status.{part}.{name}"
        return None


def _whole(text: str) -> int | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and value.is_integer() and value >= 0 else None


def _recorders(
    node: _Node, file: str, facts: list[Fact], problems: list[InputProblem]
) -> tuple[Any, Any]:
    """``add`` (a fact about the node) and ``bad`` (a problem with it), as the readings use
    them."""

    def add(
        field: str, value: str | int | float, locator: str, source: NoteSource, text: str
    ) -> None:
        facts.append(
            fact(
                field,
                value,
                file=file,
                line=None,
                locator=locator,
                host=node.name,
                source=source,
                text=text,
            )
        )

    def bad(locator: str, message: str, fix: str) -> None:
        problems.append(
            InputProblem(file, None, f"node {shown(node.name)}: {locator}", message, fix)
        )

    return add, bad


_NODES_NAMED = 5
"""Nodes a note about many names, at most."""


def _trace_models_added(
    hosts: list[HostFacts], file: str, catalog: Catalog, problems: list[InputProblem]
) -> tuple[tuple[GpuModel, ...], list[ImportNote]]:
    """The GPU models Alibaba's label (``alibabacloud.com/gpu-card-model``) names on ``hosts``
    that the catalog lacks, each as the trace's CSV node list adds it
    (``alibaba_trace.trace_gpu_model``: the trace's ``P100`` from its datasheet, its undisclosed
    ``G2`` guessed), and a note per model saying its figures and naming its nodes, as the CSV's
    note does. A model that is not one of the trace's either (a typo, or a GPU the catalog
    lacks) is also a problem, its nodes kept with guessed figures, as the CSV has it."""
    locator = f"metadata.labels.{_ALIBABA_MODEL}"
    lacked: dict[str, list[str]] = {}
    for host in hosts:
        model = host.get("gpu_model")
        if model is None or model.note.locator != locator:
            continue
        if catalog.resolve(str(model.value)) is None:
            lacked.setdefault(str(model.value), []).append(host.name)
    models = []
    notes = []
    for name, nodes in lacked.items():
        named = ", ".join(shown(n) for n in nodes[:_NODES_NAMED])
        more = len(nodes) - _NODES_NAMED
        if more > 0:
            named += f" and {counted(more, 'node', between='more')}"
        gpu = trace_gpu_model(name)
        models.append(gpu)
        if name not in TRACE_MODEL_NAMES:
            problems.append(_not_a_trace_model(gpu, nodes, named, file, locator))
        notes.append(
            ImportNote(
                file,
                None,
                locator,
                "",
                "",
                "",
                "assumed",
                f"GPU model {quoted(name)} ({counted(len(nodes), 'node')}: {named}) is not in "
                f"the catalog: taken as a GPU of {gpu.memory_gib:g} GiB, {gpu.tdp_w:g} W and "
                f"{gpu.fp16_tflops:g} TFLOPS FP16 ({gpu.source}), price unknown, as the trace's "
                f"CSV node list takes it; to set its figures, {OWN_GPU_FIX}",
            )
        )
    return tuple(models), notes


def _not_a_trace_model(
    gpu: GpuModel, nodes: list[str], named: str, file: str, locator: str
) -> InputProblem:
    """The problem of a model Alibaba's label names that neither the catalog nor the trace has:
    its nodes are kept with the figures ``trace_gpu_model`` guessed, which the message says."""
    return InputProblem(
        file,
        None,
        f"node {shown(nodes[0])}: {locator}" if len(nodes) == 1 else locator,
        f"GPU model {quoted(gpu.name)} ({counted(len(nodes), 'node')}: {named}) is neither in "
        "the catalog nor one of the trace's models: planned as a GPU of "
        f"{gpu.memory_gib:g} GiB, {gpu.tdp_w:g} W and {gpu.fp16_tflops:g} TFLOPS FP16 "
        f"({gpu.source})",
        f"if it is a catalog model, write its name in the label; otherwise {OWN_GPU_FIX}",
        row_kept=True,
    )


def _gives_gpus_to_vms(node: _Node, catalog: Catalog) -> bool:
    """Whether the node gives its GPUs to KubeVirt VMs: it advertises a sandbox device plugin's
    GPU resource (``vm_gpu``) or is labelled vm-passthrough or vm-vgpu, and no GPU for pods."""
    for resource in _ADVERTISED:
        found = node.resource(resource)
        try:
            if found is not None and parse_quantity(found[0]) > 0:
                return False
        except ValueError:
            return False  # read as a pods' GPU node, which reports the value
    return node.labels.get(WORKLOAD_CONFIG_LABEL) in (_VM_PASSTHROUGH, _VM_VGPU) or any(
        vm_gpu(r, catalog) is not None for r in {*node.capacity, *node.allocatable}
    )


def _partial_gpu(node: _Node) -> tuple[str, str, str, str] | None:
    """The node's instance-type label, its Azure VM size, the GPU and the part of it the size
    holds, when the size holds part of a GPU (``_AZURE_PARTIAL_GPUS``)."""
    label, size = _instance_type(node.labels)
    partial = _AZURE_PARTIAL_GPUS.get(size.strip().lower())
    return None if partial is None else (label, size, *partial)


def _partial_gpu_node(
    node: _Node,
    file: str,
    catalog: Catalog,
    cluster: str | None,
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> None:
    """A node of an Azure VM size holding part of a GPU (``_partial_gpu``) is left out, with a
    problem: the inventory counts whole GPUs, and as one whole GPU it would be planned with
    the GPU it shares with other VMs."""
    found = _partial_gpu(node)
    assert found is not None
    label, size, model, part = found
    _, bad = _recorders(node, file, [], problems)
    bad(
        f"metadata.labels.{label}",
        f"the Azure VM size {shown(size)} has {part} of an NVIDIA {model} (a vGPU slice of a GPU "
        "on Azure's host, partitioned between VMs), not a whole GPU: the inventory counts whole "
        f"GPUs, so the node is left out rather than planned as a whole {model}",
        f"plan on a size with whole GPUs (an {model} size listed by Microsoft with 1 GPU or more); "
        f"or, knowing it overstates the node, give it in an inventory CSV row as 1 {model}",
    )


def _vm_host(
    node: _Node,
    file: str,
    catalog: Catalog,
    cluster: str | None,
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> HostFacts:
    """A node giving its GPUs to KubeVirt VMs (``_gives_gpus_to_vms``), its GPUs by ``_vm_gpus``."""
    facts: list[Fact] = []
    add, bad = _recorders(node, file, facts, problems)
    add("platform", Platform.KUBERNETES.value, "kind Node", "read", "a Kubernetes node")
    _cluster(node.labels, cluster, add)
    _cpu_and_memory(node, add, bad)
    _rdma(node, add)
    cluster_name = next(str(f.value) for f in facts if f.field == "cluster")
    _vm_gpus(node, _vm_resources(node, catalog, bad), cluster_name, catalog, add, bad)
    notes.extend(_state_notes(node, file))
    return HostFacts(node.name, file, None, tuple(facts))


def _host(
    node: _Node,
    file: str,
    catalog: Catalog,
    cluster: str | None,
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> HostFacts | None:
    labels = node.labels
    name = node.name
    facts: list[Fact] = []
    add, bad = _recorders(node, file, facts, problems)
    instance = _instance_type(labels)
    product_label, product, by_instance = _product(labels, instance)
    if product_label == _GKE_ACCELERATOR and labels.get(GKE_PARTITION_LABEL):
        # GKE names the MIG device as GFD's single strategy would: <model>-MIG-<profile>.
        product = f"{product}-MIG-{labels[GKE_PARTITION_LABEL]}"
    count_text = labels.get(f"{_LABEL}gpu.count", "")
    mig_counts = _mig_counts(node, bad)
    capacity_gpus = _capacity_gpus(node, bad)
    volcano = _volcano_vgpus(node, bad)
    hami = _hami_gpus(node)
    product_label, product = _hami_product(hami, product_label, product)
    has_gpu = bool(product or count_text or any(mig_counts.values()))
    has_gpu = has_gpu or any(
        found is not None and found[0] > 0 for found in (capacity_gpus, volcano)
    )
    unread = sorted(
        k
        for k in {*node.capacity, *node.allocatable}
        if "gpu" in k.lower()
        and not k.startswith((f"{_LABEL}mig-", _VOLCANO_PREFIX))
        and k not in _READ_RESOURCES
    )
    if not has_gpu and unread:
        bad(
            f"status.capacity.{shown(unread[0])}",
            f"the node advertises {', '.join(map(shown, unread))}, GPUs the importer does not "
            "read: left out",
            "give this host's GPUs in an inventory CSV (gpus_per_host, gpu_model)",
        )
        return None
    if not has_gpu and _gpu_present(node) is not None:
        return _uncounted_host(node, file, cluster, problems)
    if not has_gpu:
        notes.append(
            ImportNote(
                file,
                None,
                "",
                name,
                "",
                "left out",
                "read",
                "no GPU on the node (no nvidia.com/gpu resource or GPU label): left out",
            )
        )
        return None
    add("platform", Platform.KUBERNETES.value, "kind Node", "read", "a Kubernetes node")
    _cluster(labels, cluster, add, trace=product_label == _ALIBABA_MODEL)
    _cpu_and_memory(node, add, bad)
    _rdma(node, add)

    memory_mib = (
        _whole(labels.get(f"{_LABEL}gpu.memory", ""))
        or _whole(labels.get(_KARPENTER_MEMORY, ""))
        or _whole(labels.get(_ACK_MEMORY, "").removesuffix("MiB"))
        or _hami_memory(hami, product_label)
    )
    if memory_mib is None and product_label in (_GKE_ACCELERATOR, _EKS_ACCELERATOR):
        memory_mib = _CLOUD_SIZES_MIB.get(labels.get(product_label, "").lower())
    # Time-slicing's renaming marks the product "-SHARED" after any "-MIG-<profile>".
    matched = (
        product
        if by_instance
        else _cloud_gpu_name(product)
        if product_label != PRODUCT_LABEL
        else product.removesuffix("-SHARED")
    )
    gpu_name = match_gpu_name(matched, catalog, memory_mib=memory_mib) if product else None
    model = None if gpu_name is None else gpu_name.model
    _gpu_model(
        gpu_name,
        product,
        product_label,
        instance,
        name,
        file,
        notes,
        add,
        bad,
        written=labels.get(_ALIBABA_MODEL, ""),
    )

    count_label = _whole(count_text)
    for label in (f"{_LABEL}gpu.count", REPLICAS_LABEL, GKE_CLIENTS_LABEL):
        text = labels.get(label, "")
        if text and _whole(text) is None:
            bad(
                f"metadata.labels.{label}",
                f"{quoted(text)} is not a whole number: the label is not used",
                "give kubectl's output unchanged (GPU Feature Discovery writes whole numbers)",
            )
    layout: list[MigGpu] = []
    if gpu_name is not None and gpu_name.mig_profile is not None:
        _mig_single(
            node,
            gpu_name.mig_profile,
            model,
            count_label,
            capacity_gpus,
            catalog,
            add,
            bad,
            layout,
            file,
        )
    elif gpu_name is not None and (
        gpu_name.vgpu_profile is not None or labels.get(f"{_LABEL}vgpu.present") == "true"
    ):
        _vgpu_vm(
            node,
            gpu_name.vgpu_profile or product,
            model,
            count_label,
            capacity_gpus,
            catalog,
            add,
            bad,
        )
    else:
        _whole_gpus(
            node,
            model,
            count_label,
            capacity_gpus,
            mig_counts,
            hami,
            catalog,
            file,
            notes,
            add,
            bad,
            layout,
            instance,
        )
        if count_label is None and capacity_gpus is None and not hami:
            _uncounted_gpus(volcano, instance, add)
    _check_counts(facts, node, instance, hami, capacity_gpus, bad)
    notes.extend(_state_notes(node, file))
    return HostFacts(name, file, None, tuple(facts), tuple(layout))


def _uncounted_host(
    node: _Node, file: str, cluster: str | None, problems: list[InputProblem]
) -> HostFacts:
    """A node with an NVIDIA PCI device (Node Feature Discovery's ``pci-10de.present``) that
    counts no GPU: kept with its CPU, memory and cluster, for another file to give its GPUs
    (NVIDIA's DRA driver's ResourceSlices, nvidia-smi); ``uncounted`` holds the problem
    ``read_kubectl_nodes`` files when none does."""
    facts: list[Fact] = []
    add, bad = _recorders(node, file, facts, problems)
    add("platform", Platform.KUBERNETES.value, "kind Node", "read", "a Kubernetes node")
    _cluster(node.labels, cluster, add)
    _cpu_and_memory(node, add, bad)
    _rdma(node, add)
    return HostFacts(node.name, file, None, tuple(facts))


def _gpu_present(node: _Node) -> str | None:
    """The first label saying an NVIDIA GPU is on the node (``_GPU_PRESENT``), or None."""
    return next((k for k in _GPU_PRESENT if node.labels.get(k, "").lower() == "true"), None)


def _uncounted_problem(node: _Node, file: str, cluster: str) -> InputProblem:
    """Why a node labelled with an NVIDIA GPU (``_GPU_PRESENT``) but no GPU count is left out,
    and how to give its GPUs. Under Kubernetes DRA (GA in 1.34) NVIDIA's DRA driver publishes
    GPUs as ResourceSlices, not as ``nvidia.com/gpu``; else the device plugin is not running."""
    label = _gpu_present(node) or NVIDIA_PCI_LABEL
    return InputProblem(
        file,
        None,
        f"node {shown(node.name)}: metadata.labels.{label}",
        f"an NVIDIA GPU is present on the node ({label}=true, {_GPU_PRESENT[label]}) "
        f"but no GPU count is advertised (no {_GPU} resource, no GPU Feature "
        "Discovery label): its GPUs may be published through DRA (NVIDIA's DRA driver, "
        "ResourceSlices of gpu.nvidia.com), or the device plugin is not running; left out",
        "give kubectl get resourceslices -o json > resourceslices.json beside this file (its "
        f"GPUs are read by node name), nvidia-smi output of the node, or --cluster-gpus "
        f"'{shown(cluster)}=MODEL:GPUS' (or the import panel's GPUs per cluster)",
    )


def _vm_resources(node: _Node, catalog: Catalog, bad: Any) -> list[tuple[str, float, GpuName]]:
    """The GPU resources the node advertises for KubeVirt VMs (``vm_gpu``), more than none, with
    how many and the GPU each names."""
    found = []
    for resource in sorted({*node.capacity, *node.allocatable}):
        gpu = vm_gpu(resource, catalog)
        advertised = None if gpu is None else node.resource(resource)
        if gpu is None or advertised is None:
            continue
        try:
            count = parse_quantity(advertised[0])
        except ValueError:
            bad(
                advertised[1],
                f"{quoted(str(advertised[0]))} is not a count",
                "give kubectl's output",
            )
            continue
        if count > 0:
            found.append((resource, count, gpu))
    return found


def _vm_gpus(
    node: _Node,
    vms: list[tuple[str, float, GpuName]],
    cluster: str,
    catalog: Catalog,
    add: Any,
    bad: Any,
) -> None:
    """The GPUs of a node the GPU Operator gives to KubeVirt VMs (``nvidia.com/gpu.workload.config``
    vm-passthrough or vm-vgpu): the model its sandbox resource names (else GFD's product label);
    passed through, the GPUs it advertises; split into vGPUs, which count vGPUs, not GPUs,
    ``nvidia.com/gpu.count``, else a problem asking for the node's GPUs."""
    workload = node.labels.get(WORKLOAD_CONFIG_LABEL, "")
    ask = (
        f"give the node's GPUs: --cluster-gpus '{shown(cluster)}=MODEL:GPUS' (or the import "
        "panel's GPUs per cluster), nvidia-smi output of the node (named as here), or its row in "
        "an inventory CSV"
    )
    if not vms:
        bad(
            f"metadata.labels.{WORKLOAD_CONFIG_LABEL}",
            f"the node gives its GPUs to KubeVirt VMs ({WORKLOAD_CONFIG_LABEL}={shown(workload)}) "
            "but advertises none of the sandbox device plugin's GPU resources "
            "(nvidia.com/<PCI device name> or nvidia.com/<vGPU type>), so its GPUs are not read",
            ask,
        )
        return
    resource, count, gpu = vms[0]
    locator = f"status.capacity.{resource}"
    if len(vms) > 1:
        bad(
            locator,
            f"the node advertises GPUs for VMs of {len(vms)} kinds "
            f"({', '.join(f'{shown(r)}: {c:g}' for r, c, _ in vms)}): the inventory holds one GPU "
            f"model per host, so only {shown(resource)} is read",
            "give the node in an inventory CSV, one row per GPU model",
        )
    product = node.labels.get(PRODUCT_LABEL, "")
    model = gpu.model or (match_gpu_name(product, catalog).model if product else None)
    kind = "vGPU type" if gpu.vgpu_profile is not None else "PCI device"
    if model is None:
        bad(
            locator,
            f"{shown(resource)} ({count:g}) names the node's GPUs for KubeVirt VMs, but their "
            f"model is not known here ({gpu.reason})",
            f"{gpu.fix}; or {ask}",
        )
    else:
        add(
            "gpu_model",
            model,
            locator if gpu.model else f"metadata.labels.{PRODUCT_LABEL}",
            "derived",
            f"the GPU the sandbox device plugin gives KubeVirt VMs, named by its {kind} "
            f"({shown(resource)}): {model}",
        )
        if catalog.gpus[model].mig_capable and gpu.mig_profile is None:
            add("mig_enabled", "no", locator, "derived", f"GPUs given to VMs by their {kind}")
    if gpu.vgpu_profile is None:
        add(
            "gpus_per_host",
            int(count),
            locator,
            "read",
            f"GPUs passed through to KubeVirt VMs ({shown(resource)}: {count:g}, "
            f"{WORKLOAD_CONFIG_LABEL}={shown(workload) or 'not given'})",
        )
        return
    count_label = _whole(node.labels.get(f"{_LABEL}gpu.count", ""))
    if count_label is not None:
        add(
            "gpus_per_host",
            count_label,
            f"metadata.labels.{_LABEL}gpu.count",
            "read",
            f"GPUs on the node (nvidia.com/gpu.count), split into {count:g} vGPUs of type "
            f"{gpu.vgpu_profile} for KubeVirt VMs",
        )
        return
    bad(
        locator,
        f"the node's GPUs are split into {count:g} vGPUs of type {gpu.vgpu_profile} for KubeVirt "
        f"VMs ({shown(resource)}), which count vGPUs, not GPUs, and no {_LABEL}gpu.count label "
        "gives the physical GPUs: the node's GPUs are not read",
        ask.replace("MODEL", model or "MODEL"),
    )


def _cloud_gpu_name(label: str) -> str:
    """A cloud's accelerator label as a GPU name: ``nvidia-tesla-t4`` → ``t4``,
    ``nvidia-h100-mega-80gb`` → ``h100-80gb`` (the H100 80GB of A3 Mega machines)."""
    name = label.strip()
    for prefix in ("nvidia-", "tesla-"):
        name = name.removeprefix(prefix) if name.lower().startswith(prefix) else name
    return name.replace("-mega-", "-")


def _mig_counts(node: _Node, bad: Any) -> dict[str, int]:
    """MIG devices per profile the node advertises (capacity first, then GFD labels)."""
    labels = node.labels
    mig_counts: dict[str, int] = {}
    for key, value in node.capacity.items():
        if key.startswith(f"{_LABEL}mig-"):
            try:
                mig_counts[key.removeprefix(f"{_LABEL}mig-")] = int(parse_quantity(value))
            except ValueError:
                bad(
                    f"status.capacity.{shown(key)}",
                    f"{quoted(str(value))} is not a count",
                    "give kubectl's output",
                )
    for key, value in labels.items():
        if key.startswith(f"{_LABEL}mig-") and key.endswith(".count"):
            profile = key.removeprefix(f"{_LABEL}mig-").removesuffix(".count")
            count = _whole(value)
            if count is not None:
                mig_counts.setdefault(profile, count)
    return mig_counts


def _capacity_gpus(node: _Node, bad: Any) -> tuple[float, str] | None:
    """The GPUs the node advertises with where found, or None. Time-slicing with
    ``renameByDefault`` advertises ``nvidia.com/gpu.shared`` and leaves ``nvidia.com/gpu`` at 0,
    so the first resource advertising more than none is taken."""
    advertised: list[tuple[float, str]] = []
    for resource in _ADVERTISED:
        found = node.resource(resource)
        if found is None:
            continue
        try:
            advertised.append((parse_quantity(found[0]), found[1]))
        except ValueError:
            bad(found[1], f"{quoted(str(found[0]))} is not a count", "give kubectl's output")
            return None
    return next((a for a in advertised if a[0] > 0), advertised[0] if advertised else None)


def _instance_type(labels: Mapping[str, str]) -> tuple[str, str]:
    """The label naming the node's cloud instance type and its value (``""`` when none)."""
    label = next((k for k in _INSTANCE_TYPES if labels.get(k)), _INSTANCE_TYPE)
    return label, labels.get(label, "")


def _product(labels: Mapping[str, str], instance: tuple[str, str]) -> tuple[str, str, bool]:
    """The label naming the node's GPU, the name, and whether it is the EC2 instance type's
    GPU: GFD's product, GKE's accelerator, a known EC2 instance type (it names the GPU's size and
    form; EKS's accelerator label, the family), EKS's accelerator, Karpenter's, Alibaba's."""
    ec2 = _instance_gpus(instance[1])
    label = next(
        (
            k
            for k in (
                PRODUCT_LABEL,
                _GKE_ACCELERATOR,
                instance[0] if ec2 is not None else "",
                _EKS_ACCELERATOR,
                _KARPENTER_GPU,
                _ALIBABA_MODEL,
                _ACK_MODEL,
            )
            if k and labels.get(k)
        ),
        PRODUCT_LABEL,
    )
    if ec2 is not None and label == instance[0]:
        return label, ec2[0], True
    if label == _ALIBABA_MODEL:
        # The trace's model in another case (p100) is the trace's, as its CSV node list reads it.
        return label, alibaba_trace.trace_model(labels[label]) or labels[label], False
    return label, labels.get(label, ""), False


def vm_gpu(resource: str, catalog: Catalog) -> GpuName | None:
    """The GPU a KubeVirt VM is given by ``resource``, as the GPU Operator's sandbox device plugin
    names it: passthrough by the PCI device, its chip then its name (``nvidia.com/GA102GL_A10``
    an A10, ``nvidia.com/TU104GL_Tesla_T4`` a T4), a vGPU by its type (``nvidia.com/NVIDIA_A10-4Q``
    the vGPU profile A10-4Q of an A10). None for a resource of neither form; the name's model is
    None for a GPU the catalog lacks."""
    if not resource.startswith(_LABEL):
        return None
    name = resource.removeprefix(_LABEL)
    chip = _PCI_CHIP.match(name)
    if chip is None and _VGPU_TYPE.search(name) is None:
        return None  # matching a name costs up to a millisecond: other resources are skipped
    key = (resource, id(catalog))
    known = _VM_GPUS_MATCHED.get(key)
    if known is None or known[0] is not catalog:
        if len(_VM_GPUS_MATCHED) > _VM_GPUS_KEPT:
            _VM_GPUS_MATCHED.clear()
        written = name if chip is None else name[chip.end() :]
        known = (catalog, match_gpu_name(written.replace("_", " "), catalog))
        _VM_GPUS_MATCHED[key] = known
    found = known[1]
    return found if chip is not None or found.vgpu_profile is not None else None


_VM_GPUS_MATCHED: dict[tuple[str, int], tuple[Catalog, GpuName]] = {}
"""Sandbox resources already matched, by resource and catalog: every virt-launcher pod of a VDI
pool names the same one. The catalog is held, so its id names no other while kept."""
_VM_GPUS_KEPT = 256


GPU_SELECTOR_LABELS = (PRODUCT_LABEL, _GKE_ACCELERATOR, _EKS_ACCELERATOR, *_INSTANCE_TYPES)
"""Node labels naming a node's GPU that a pod's node selector or affinity can pin it by."""


def selected_gpu(label: str, value: str) -> tuple[str, int | None] | None:
    """The GPU name a node label's value gives (as a node of that label is read) and its memory
    [MiB] where the name does not say it, for a pod pinned by that label; None for a label not in
    ``GPU_SELECTOR_LABELS``, an empty value or an instance type of no EC2 GPU family."""
    if label not in GPU_SELECTOR_LABELS or not value.strip():
        return None
    if label in _INSTANCE_TYPES:
        ec2 = _instance_gpus(value)
        return None if ec2 is None else (ec2[0], None)
    if label == PRODUCT_LABEL:
        return value.removesuffix("-SHARED"), None
    return _cloud_gpu_name(value), _CLOUD_SIZES_MIB.get(value.strip().lower())


def _instance_gpus(instance_type: str) -> tuple[str, int | None] | None:
    """The NVIDIA GPU of a cloud instance type (an EC2 instance type, ``_EC2_GPUS``; an Azure VM
    size, ``_AZURE_GPUS``) and how many it has (None for a size not listed, or with part of a
    GPU); None for a type whose family is not listed."""
    key = instance_type.strip().lower()
    if key in _AZURE_GPUS:
        return _AZURE_GPUS[key]
    if key in _AZURE_PARTIAL_GPUS:
        return _AZURE_PARTIAL_GPUS[key][0], None
    family, _, size = key.partition(".")
    found = _EC2_GPUS.get(family)
    return None if found is None else (found[0], found[1].get(size))


def _cloud(instance_type: str) -> tuple[str, str]:
    """What a known instance type is called and where its GPUs are listed."""
    if instance_type.strip().lower().startswith("standard_"):
        return "the Azure VM size", "Microsoft's sizes for virtual machines in Azure"
    return "the EC2 instance type", "Amazon EC2 accelerated computing instance specifications"


def _uncounted_gpus(volcano: tuple[float, str] | None, instance: tuple[str, str], add: Any) -> None:
    """Physical GPUs of a node that neither GFD's count nor ``nvidia.com/gpu`` gives: from its
    Volcano vGPUs (``_volcano_gpus``), else from its EC2 instance type."""
    ec2 = _instance_gpus(instance[1])
    if volcano is not None and volcano[0] > 0:
        _volcano_gpus(volcano, add)
    elif ec2 is not None and ec2[1] is not None:
        add(
            "gpus_per_host",
            ec2[1],
            f"metadata.labels.{instance[0]}",
            "derived",
            f"the GPUs of {_cloud(instance[1])[0]} {shown(instance[1])} ({_cloud(instance[1])[1]})",
        )


def _check_counts(
    facts: list[Fact],
    node: _Node,
    instance: tuple[str, str],
    hami: list[_HamiGpu],
    capacity_gpus: tuple[float, str] | None,
    bad: Any,
) -> None:
    """Problems with the GPUs counted on a node: unlike its instance type's, more than a server
    holds, HAMi's vGPUs taken as GPUs."""
    _check_instance_gpus(facts, instance, bad)
    _check_node_size(facts, node, bad)
    _check_hami_vgpus(facts, node, hami, capacity_gpus, bad)


def _check_instance_gpus(facts: list[Fact], instance: tuple[str, str], bad: Any) -> None:
    """A problem when the GPUs read for a node are not those of its EC2 instance type (GPUs
    shared without the labels that say how, or one the device plugin withdrew): the count read is
    kept."""
    ec2 = _instance_gpus(instance[1])
    counted = next((f for f in facts if f.field == "gpus_per_host"), None)
    if ec2 is None or ec2[1] is None or counted is None or counted.value == ec2[1]:
        return
    bad(
        counted.note.locator,
        f"{counted.value} GPUs are read ({counted.note.locator}) but {_cloud(instance[1])[0]} "
        f"{shown(instance[1])} has {ec2[1]}: the {counted.value} is taken",
        "if the GPUs are time-sliced, give the nodes with GPU Feature Discovery's labels "
        f"(nvidia.com/gpu.replicas); else set gpus_per_host to {ec2[1]}, the GPUs of a "
        f"{shown(instance[1])}",
    )


def _check_node_size(facts: list[Fact], node: _Node, bad: Any) -> None:
    """A problem when a node's GPUs read are more than any GPU server holds
    (``MAX_GPUS_PER_NODE``): a quantity's suffix (``1k`` = 1000) or an edit; the count read is
    kept, as given. A plain count the inventory refuses (over ``MAX_GPUS_PER_HOST``) is left
    to its problem."""
    counted = next((f for f in facts if f.field == "gpus_per_host"), None)
    if counted is None or not isinstance(counted.value, (int, float)):
        return
    if counted.value <= MAX_GPUS_PER_NODE:
        return
    locator = counted.note.locator
    found = next(
        (r for r in (node.resource(n) for n in _ADVERTISED) if r is not None and r[1] == locator),
        None,
    )
    raw = (
        found[0] if found is not None else node.labels.get(locator.removeprefix("metadata.labels."))
    )
    try:
        # The value as written where it is the count itself (not MIG devices or replicas).
        as_written = raw is not None and parse_quantity(raw) == counted.value
    except ValueError:
        as_written = False
    written = quantity_text(raw, float(counted.value)) if as_written else f"{counted.value:g}"
    if counted.value > MAX_GPUS_PER_HOST and not (as_written and written != quoted(str(raw))):
        return  # the inventory refuses it, naming this value; a suffix it would not name
    bad(
        locator,
        f"{written} GPUs on one node are more than any GPU server holds ({NODE_SIZE}): "
        f"the {counted.value:g} is taken",
        "give kubectl's output unchanged (a quantity's suffix multiplies: 1k = 1000, 2Ki = "
        "2048); if the node does hold these GPUs, keep it",
    )


def _volcano_gpus(volcano: tuple[float, str], add: Any) -> None:
    """Physical GPUs of a node counted by its Volcano vGPUs alone (no GFD count, no
    ``nvidia.com/gpu``): the vGPUs over the device plugin's default per GPU, rounded up."""
    vgpus, locator = volcano
    gpus = math.ceil(vgpus / _VOLCANO_SPLIT)
    add(
        "gpus_per_host",
        gpus,
        locator,
        "assumed",
        f"{vgpus:g} Volcano vGPUs ({_VOLCANO_VGPUS}) at the device plugin's default "
        f"{_VOLCANO_SPLIT} per GPU (deviceSplitCount)"
        + (", rounded up" if gpus * _VOLCANO_SPLIT != vgpus else "")
        + ": set gpus_per_host to the node's physical GPUs if its deviceSplitCount differs",
    )


def _volcano_vgpus(node: _Node, bad: Any) -> tuple[float, str] | None:
    """The Volcano vGPUs the node advertises with where found, or None."""
    found = node.resource(_VOLCANO_VGPUS)
    if found is None:
        return None
    try:
        return parse_quantity(found[0]), found[1]
    except ValueError:
        bad(found[1], f"{quoted(str(found[0]))} is not a count", "give kubectl's output")
        return None


def _rdma(node: _Node, add: Any) -> None:
    """RDMA, when a node feature label or an ``rdma/`` resource says so."""
    labels = node.labels
    if any(
        labels.get(k) == "true"
        for k in (
            "feature.node.kubernetes.io/rdma.capable",
            "feature.node.kubernetes.io/rdma.available",
        )
    ) or any(k.startswith("rdma/") for k in node.capacity):
        add("rdma", "yes", "rdma label or resource", "derived", "the node advertises RDMA")


def _gpu_model(
    gpu_name: GpuName | None,
    product: str,
    product_label: str,
    instance: tuple[str, str],
    name: str,
    file: str,
    notes: list[ImportNote],
    add: Any,
    bad: Any,
    *,
    written: str = "",
) -> None:
    """The node's GPU model from its product label (``product_label``), or from its EC2
    instance type (``instance``: label and value): a note when there is none, a problem when the
    catalog has no such model. ``written``: the label's value when ``product`` is the trace's
    model it names in another case."""
    model = None if gpu_name is None else gpu_name.model
    product_locator = (
        product_label
        if product_label.startswith("metadata.")
        else f"metadata.labels.{product_label}"
    )
    instance_label, instance_type = instance
    source: NoteSource = "read" if gpu_name is None else gpu_name.source
    reason = "" if gpu_name is None else gpu_name.reason
    if product_label == instance_label:
        source = "derived"
        reason = (
            f"{_cloud(instance_type)[0]} {shown(instance_type)} has NVIDIA {product} GPUs "
            f"({_cloud(instance_type)[1]}): {reason}"
        )
    if product_label == _HAMI_LOCATOR:
        source = "read"
        reason = f"the GPU HAMi registered on the node ({_HAMI_REGISTER}): {reason}"
    if gpu_name is None:
        notes.append(
            ImportNote(
                file,
                None,
                product_locator,
                name,
                "gpu_model",
                "",
                "read",
                f"no GPU model label ({_LABEL}gpu.product from GPU Feature Discovery, "
                f"{_GKE_ACCELERATOR} on GKE, {_EKS_ACCELERATOR} or {_KARPENTER_GPU} on EKS)"
                + (
                    f"; the instance type {shown(instance_type)} ({instance_label}) is no EC2 "
                    "GPU instance type or Azure GPU VM size known here"
                    if instance_type
                    else ""
                )
                + ": the model must come from another file or the user (gpu_model)",
            )
        )
    elif model is None:
        if product_label == _ALIBABA_MODEL:
            # Added to the catalog as the trace's CSV node list adds it, said once per model
            # (``_trace_models_added``).
            reason = f"{reason}: added as a model of Alibaba's GPU-sharing trace"
            if written and written != product:
                reason = (
                    f"{quoted(written)} is the trace's model {product} written in another case, "
                    f"read as {product} as the trace's CSV node list reads it; {reason}"
                )
        else:
            bad(product_locator, reason, gpu_name.fix)
        add("gpu_model", product, product_locator, "read", reason)
    else:
        add("gpu_model", model, product_locator, source, reason)


def _whole_gpus(
    node: _Node,
    model: str | None,
    count_label: int | None,
    capacity_gpus: tuple[float, str] | None,
    mig_counts: Mapping[str, int],
    hami: list[_HamiGpu],
    catalog: Catalog,
    file: str,
    notes: list[ImportNote],
    add: Any,
    bad: Any,
    layout: list[MigGpu],
    instance: tuple[str, str],
) -> None:
    """GPUs of a node with whole GPUs (time-sliced, split by HAMi or not) and its MIG devices in
    place; ``instance`` (label and value) names its cloud instance type, which fixes its GPUs
    where no label counts them."""
    labels = node.labels
    name = node.name
    replicas_label, strategy_label = REPLICAS_LABEL, SHARING_LABEL
    if labels.get(GKE_SHARING_LABEL) and not labels.get(REPLICAS_LABEL):
        replicas_label, strategy_label = GKE_CLIENTS_LABEL, GKE_SHARING_LABEL
    replicas = _whole(labels.get(replicas_label, "")) or 1
    strategy = labels.get(strategy_label, "") or "time-slicing"
    in_place = {p: c for p, c in mig_counts.items() if c > 0}
    if hami:
        _hami_count(hami, count_label, capacity_gpus, add, bad)
    elif count_label is not None:
        _labelled_gpus(node, count_label, capacity_gpus, replicas, bool(in_place), add, bad)
    elif capacity_gpus is not None and in_place:
        _mixed_gpus(node, model, capacity_gpus, in_place, catalog, add, bad)
    elif (
        capacity_gpus is not None
        and replicas == 1
        and (shared := _instance_replicas(capacity_gpus, instance)) is not None
    ):
        _instance_shared_gpus(shared, capacity_gpus, instance, strategy, add, bad)
    elif capacity_gpus is not None and replicas == 1 and _is_shared(node, capacity_gpus):
        bad(
            capacity_gpus[1],
            f"the node's GPUs are shared ({capacity_gpus[0]:g} advertised) but neither "
            f"{_LABEL}gpu.count nor {REPLICAS_LABEL} is given, so its physical GPUs are unknown",
            "give kubectl get nodes -o json with GPU Feature Discovery's labels, or set "
            "gpus_per_host to the node's physical GPUs",
        )
    elif capacity_gpus is not None and capacity_gpus[0] <= 0:
        counted_by = capacity_gpus[1]
        add("gpus_per_host", 0, counted_by, "read", _none_counted(node, counted_by, capacity_gpus))
    elif capacity_gpus is not None:
        gpus = max(1, math.ceil(capacity_gpus[0] / replicas))
        even = capacity_gpus[0] == gpus * replicas
        add(
            "gpus_per_host",
            gpus,
            capacity_gpus[1],
            "derived" if even else "assumed",
            f"{capacity_gpus[0]:g} advertised GPUs over "
            f"{counted(replicas, f'{strategy} replica')} per GPU"
            + ("" if even else ", rounded up (set gpus_per_host to the node's physical GPUs)"),
        )
    notes.extend(_sharing_notes(file, name, replicas_label, replicas, strategy))
    # A MIG layout holds only profiles the catalog knows for the model, whatever counts the GPUs.
    unknown = [] if model is None else sorted(set(in_place) - {p.name for p in catalog.mig(model)})
    if unknown:
        bad(
            f"status.capacity.{_LABEL}mig-{shown(unknown[0])}",
            f"MIG profile {', '.join(map(shown, unknown))} is advertised but is not a MIG "
            f"profile of the {model} in the catalog; its devices are left out of the node's MIG "
            "layout",
            "check the node's GPU model (nvidia.com/gpu.product), or add the profile to the "
            "catalog",
        )
    in_place = {p: c for p, c in in_place.items() if p not in unknown}
    _partly_mig(capacity_gpus, replicas, count_label, in_place, bad, hami=bool(hami))
    if in_place:
        add(
            "mig_enabled",
            "yes",
            f"status.capacity.{_LABEL}mig-*",
            "derived",
            "MIG devices are advertised (mixed strategy)",
        )
        layout.append(
            MigGpu(
                name,
                None,
                tuple(MigInstance(p, None) for p, c in in_place.items() for _ in range(c)),
                file,
            )
        )
    elif model is not None and catalog.gpus[model].mig_capable:
        add(
            "mig_enabled",
            "no",
            f"metadata.labels.{_LABEL}mig.strategy",
            "derived",
            "no MIG device is advertised",
        )


def instance_replicas(item: Mapping[str, Any]) -> int | None:
    """Times each GPU of a node (an object of ``kubectl get nodes``) is advertised where its
    cloud instance type fixes its GPUs and it advertises a whole multiple of them, no GPU Feature
    Discovery count or replicas label, no HAMi register and no MIG device saying otherwise
    (``_instance_replicas``); None for every other node. The pods on such a node asking
    ``nvidia.com/gpu`` ask replicas, as on a node GFD labels with ``nvidia.com/gpu.replicas``."""
    node = _Node.from_object(item, 0)
    labels = node.labels
    counted_by_label = any(
        labels.get(k) for k in (f"{_LABEL}gpu.count", REPLICAS_LABEL, GKE_CLIENTS_LABEL)
    )
    mig = any(k.startswith(f"{_LABEL}mig-") for k in (*node.capacity, *node.allocatable))
    if counted_by_label or mig or _hami_gpus(node):
        return None
    capacity_gpus = _capacity_gpus(node, lambda *_: None)
    if capacity_gpus is None:
        return None
    shared = _instance_replicas(capacity_gpus, _instance_type(labels))
    return None if shared is None else shared[1]


def _labelled_gpus(
    node: _Node,
    count_label: int,
    capacity_gpus: tuple[float, str] | None,
    replicas: int,
    mig_in_place: bool,
    add: Any,
    bad: Any,
) -> None:
    """A node's GPUs as GPU Feature Discovery's ``nvidia.com/gpu.count`` says, with a problem
    where the device plugin advertises another count at ``replicas`` per GPU."""
    add(
        "gpus_per_host",
        count_label,
        f"metadata.labels.{_LABEL}gpu.count",
        "read",
        _count_note(node, count_label, capacity_gpus),
    )
    # 0 advertised beside a count is the device plugin withdrawing every GPU (an Xid, a
    # failed driver): the node runs no GPU pod until they are back.
    if capacity_gpus is None or mig_in_place or capacity_gpus[0] == count_label * replicas:
        return
    advertised = capacity_gpus[0]
    per_gpu = f" at {replicas} replicas per GPU" if replicas > 1 else ""
    none = ", so no GPU pod can run on the node now" if advertised <= 0 else ""
    bad(
        f"metadata.labels.{_LABEL}gpu.count",
        f"{_LABEL}gpu.count says {count_label} GPUs but {capacity_gpus[1]} advertises "
        f"{advertised:g}{per_gpu}{none}: the label's {count_label} is taken",
        "check the node's GPUs (the device plugin withdraws a GPU it finds unhealthy; "
        "nvidia-smi on the node) and list the nodes again, or set gpus_per_host to the "
        "GPUs the node can use",
    )


def _instance_replicas(
    capacity_gpus: tuple[float, str], instance: tuple[str, str]
) -> tuple[int, int] | None:
    """The GPUs a node's cloud instance type fixes and the times each is advertised, where the
    advertised GPUs are a whole multiple (over 1) of them, as the device plugin's sharing config
    (time-slicing or MPS, without GPU Feature Discovery's labels) advertises them; None
    otherwise, a count not a whole multiple included (not guessed)."""
    hardware = _instance_gpus(instance[1])
    if hardware is None or not hardware[1]:
        return None
    replicas = capacity_gpus[0] / hardware[1]
    return (hardware[1], int(replicas)) if replicas.is_integer() and replicas > 1 else None


def _instance_shared_gpus(
    shared: tuple[int, int],
    capacity_gpus: tuple[float, str],
    instance: tuple[str, str],
    strategy: str,
    add: Any,
    bad: Any,
) -> None:
    """A node's GPUs as its instance type fixes them (``shared``: GPUs and replicas, from
    ``_instance_replicas``): the instance type's, each shared by that many replicas, with a
    problem saying sharing is assumed."""
    label, instance_type = instance
    gpus, replicas = shared
    advertised, resource = capacity_gpus
    cloud, listed = _cloud(instance_type)
    each = f"{replicas} {strategy} replicas per GPU"
    add(
        "gpus_per_host",
        gpus,
        f"metadata.labels.{label}",
        "derived",
        f"the GPUs of {cloud} {shown(instance_type)} ({listed}); the {advertised:g} advertised "
        f"({resource}) are {each}",
    )
    bad(
        resource,
        f"the node advertises {advertised:g} GPUs but {cloud} {shown(instance_type)} has "
        f"{gpus}: read as {counted(gpus, 'GPU')} of {each} (sharing assumed: the device "
        "plugin's time-slicing or MPS config advertises each GPU that many times, and no GPU "
        f"Feature Discovery label, {REPLICAS_LABEL}, says so)",
        f"nothing if the GPUs are shared {replicas} ways; else check the device plugin's "
        "config and list the nodes again (with GPU Feature Discovery on, gfd.enabled=true in "
        "its Helm chart, the nodes carry their sharing labels)",
    )


def _partly_mig(
    capacity_gpus: tuple[float, str] | None,
    replicas: int,
    count_label: int | None,
    in_place: Mapping[str, int],
    bad: Any,
    *,
    hami: bool,
) -> None:
    """A problem when the node advertises whole GPUs beside MIG devices (the mixed strategy
    with MIG off on some GPUs): the inventory holds one MIG mode per host, and the node is kept
    whole, as MIG-enabled, rather than split into rows that would each count as a host of their
    own (its cores, memory and failures counted twice)."""
    # HAMi's GPUs are counted from its own annotation, not nvidia.com/gpu.
    if hami or not in_place or capacity_gpus is None or capacity_gpus[0] <= 0:
        return
    whole = max(1, math.floor(capacity_gpus[0] / replicas))
    devices = ", ".join(f"{c} × {shown(p)}" for p, c in sorted(in_place.items()))
    gpus = "its GPUs" if count_label is None else f"all {counted(count_label, 'GPU')}"
    bad(
        capacity_gpus[1],
        f"{counted(whole, 'GPU')} with MIG off {'is' if whole == 1 else 'are'} advertised "
        f"beside MIG devices ({devices}); the inventory holds one MIG mode per host, so {gpus} are "
        "planned as MIG-enabled",
        "set the same MIG mode on every GPU of the node (a MIG manager config, "
        "nvidia.com/mig.config, that enables MIG on all GPUs, or all-disabled), or give the "
        "host in an inventory CSV as two rows, one per MIG mode, each with its GPUs (this "
        f"output advertises {whole} without MIG)",
    )


def _sharing_notes(
    file: str, name: str, replicas_label: str, replicas: int, strategy: str
) -> list[ImportNote]:
    """A note that the node's GPUs are shared, each advertised ``replicas`` times; none at 1."""
    if replicas <= 1:
        return []
    shared = (
        "GPUs are time-sliced" if strategy == "time-slicing" else f"GPUs are shared by {strategy}"
    )
    return [
        ImportNote(
            file,
            None,
            f"metadata.labels.{replicas_label}",
            name,
            "",
            str(replicas),
            "read",
            f"{shared}: each is advertised as {replicas} replicas",
        )
    ]


def _count_note(node: _Node, count: int, capacity_gpus: tuple[float, str] | None) -> str:
    """What ``nvidia.com/gpu.count`` says: the node's GPUs, or, at 0, that none was counted
    (``_none_counted``)."""
    if count > 0:
        return "GPUs on the node (nvidia.com/gpu.count)"
    return _none_counted(node, f"{_LABEL}gpu.count", capacity_gpus)


def _none_counted(node: _Node, counted_by: str, capacity_gpus: tuple[float, str] | None) -> str:
    """Why a node ``counted_by`` (a label or a resource) reads 0 GPUs or MIG devices: GPU
    Feature Discovery or the device plugin found none (the GPU named by ``gpu.product`` failed,
    its driver is not loaded, or the label is stale), and what to check."""
    product = node.labels.get(PRODUCT_LABEL, "")
    beside = f" though {_LABEL}gpu.product names {product}" if product else ""
    advertised = (
        ""
        if capacity_gpus is None or capacity_gpus[1] == counted_by
        else f" ({capacity_gpus[1]} advertises {capacity_gpus[0]:g})"
    )
    return (
        f"{counted_by} is 0{beside}{advertised}: no GPU was counted on the node (GPU "
        "Feature Discovery or the device plugin found none); check its GPUs and driver "
        "(nvidia-smi on the node, the GPU Operator's driver and device-plugin pods) and list "
        "the nodes again, or set gpus_per_host to its GPUs"
    )


def _is_shared(node: _Node, capacity_gpus: tuple[float, str]) -> bool:
    """Whether the advertised GPUs are replicas: the renamed resource, or GFD's sharing labels."""
    product = node.labels.get(PRODUCT_LABEL, "")
    sharing = node.labels.get(SHARING_LABEL, "")
    return (
        capacity_gpus[1].endswith(_SHARED)
        or product.endswith("-SHARED")
        or sharing not in ("", "none")
        or bool(node.labels.get(GKE_SHARING_LABEL))
    )


def _mixed_gpus(
    node: _Node,
    model: str | None,
    capacity_gpus: tuple[float, str],
    in_place: Mapping[str, int],
    catalog: Catalog,
    add: Any,
    bad: Any,
) -> None:
    """Physical GPUs under the MIG mixed strategy without ``nvidia.com/gpu.count``: the
    ``nvidia.com/gpu`` resource counts only the GPUs with MIG off, so the GPUs in MIG mode are
    assumed the fewest that hold the advertised MIG devices."""
    whole = int(capacity_gpus[0])
    profiles = {} if model is None else {p.name: p for p in catalog.mig(model)}
    missing = sorted(set(in_place) - set(profiles))
    if model is None or missing:
        bad(
            capacity_gpus[1],
            f"{capacity_gpus[0]:g} GPUs without MIG are advertised beside MIG devices "
            f"({', '.join(f'{c} × {shown(p)}' for p, c in sorted(in_place.items()))}), and "
            + (
                "the node's GPU model is unknown"
                if model is None
                else f"MIG profile {', '.join(map(shown, missing))} is not in the catalog for "
                f"{model}"
            )
            + ", so the GPUs in MIG mode cannot be counted",
            "set gpus_per_host to the node's physical GPUs, or give the nvidia.com/gpu.count "
            "label GPU Feature Discovery writes",
        )
        return
    gpu = catalog.gpus[model]
    compute = sum(c * profiles[p].compute_slices for p, c in in_place.items())
    memory = sum(c * profiles[p].memory_slices for p, c in in_place.items())
    mig_gpus = max(
        math.ceil(compute / gpu.mig_compute_slices), math.ceil(memory / gpu.mig_memory_slices)
    )
    add(
        "gpus_per_host",
        whole + mig_gpus,
        capacity_gpus[1],
        "assumed",
        f"MIG mixed strategy without nvidia.com/gpu.count: {counted(whole, 'GPU')} with MIG off "
        f"(nvidia.com/gpu) and the fewest GPUs that hold the MIG devices, {mig_gpus} "
        "(set gpus_per_host to the node's physical GPUs)",
    )


def _cluster(
    labels: Mapping[str, str], cluster: str | None, add: Any, *, trace: bool = False
) -> None:
    """The node's cluster: the one given, its cluster label, its zone; else, for a node of
    Alibaba's GPU-sharing trace (``trace``), the trace's cluster, as its CSV node list has it;
    else ``kubernetes``."""
    if cluster:
        add("cluster", cluster, "", "read", "the cluster name given for the nodes")
        return
    for label in CLUSTER_LABELS:
        if labels.get(label):
            add(
                "cluster",
                labels[label],
                f"metadata.labels.{label}",
                "read",
                "the node's cluster label",
            )
            return
    if labels.get(_ZONE):
        add(
            "cluster",
            labels[_ZONE],
            f"metadata.labels.{_ZONE}",
            "derived",
            "no cluster label: the node's zone names its cluster",
        )
        return
    if trace:
        add(
            "cluster",
            alibaba_trace.CLUSTER,
            "",
            "assumed",
            "a node of Alibaba's GPU-sharing trace (labelled alibabacloud.com/gpu-card-model) "
            f"without a cluster label: assumed {quoted(alibaba_trace.CLUSTER)}, the trace's "
            "cluster, as its CSV node list has it (give the cluster name)",
        )
        return
    add(
        "cluster",
        "kubernetes",
        "",
        "assumed",
        "no cluster label or zone on the node: assumed 'kubernetes' (give the cluster name)",
    )


def _cpu_and_memory(node: _Node, add: Any, bad: Any) -> None:
    found = node.resource("cpu")
    if found is not None:
        try:
            add(
                "cpu_cores",
                parse_quantity(found[0]),
                found[1],
                "read",
                "cores the scheduler can give pods (allocatable; capacity if absent)",
            )
        except ValueError as error:
            bad(found[1], str(error), "give kubectl's output unchanged")
    found = node.resource("memory")
    if found is not None:
        try:
            add(
                "ram_gib",
                round(quantity_gib(found[0]), 3),
                found[1],
                "derived",
                "memory the scheduler can give pods, in GiB (allocatable; capacity if absent)",
            )
        except ValueError as error:
            bad(found[1], str(error), "give kubectl's output unchanged")


def _mig_single(
    node: _Node,
    profile: str,
    model: str | None,
    count_label: int | None,
    capacity_gpus: tuple[float, str] | None,
    catalog: Catalog,
    add: Any,
    bad: Any,
    layout: list[MigGpu],
    file: str,
) -> None:
    """Physical GPUs under the MIG single strategy, where the counts are of MIG devices."""
    add(
        "mig_enabled",
        "yes",
        f"metadata.labels.{_LABEL}gpu.product",
        "derived",
        f"the product label names a MIG {shown(profile)} device",
    )
    if count_label is not None:
        devices, locator = count_label, f"metadata.labels.{_LABEL}gpu.count"
    elif capacity_gpus is not None:
        devices, locator = int(capacity_gpus[0]), capacity_gpus[1]
    else:
        return
    if devices <= 0:
        counted_by = locator.removeprefix("metadata.labels.")
        add("gpus_per_host", 0, locator, "read", _none_counted(node, counted_by, capacity_gpus))
        return
    known = (
        None if model is None else next((p for p in catalog.mig(model) if p.name == profile), None)
    )
    if known is None:
        bad(
            locator,
            f"MIG profile {shown(profile)} is not in the catalog for this GPU, so the "
            f"{devices} MIG devices cannot be turned into GPUs",
            "set gpus_per_host to the node's physical GPUs",
        )
        return
    gpus = max(1, math.ceil(devices / known.max_per_gpu))
    config = node.labels.get(f"{_LABEL}mig.config", "")
    partition = node.labels.get(GKE_PARTITION_LABEL, "")
    uniform = config == f"all-{profile}" or partition == profile
    source: NoteSource = "derived" if uniform else "assumed"
    how = (
        f"mig.config {config}"
        if config == f"all-{profile}"
        else f"GKE splits every GPU of the node into {partition}"
        if partition == profile
        else "every GPU assumed split alike"
    )
    add(
        "gpus_per_host",
        gpus,
        locator,
        source,
        f"MIG single strategy: the count is of MIG devices; {devices} devices of "
        f"{profile} at {known.max_per_gpu} per GPU ({how})",
    )
    left = devices
    for index in range(gpus):
        here = min(known.max_per_gpu, left)
        left -= here
        layout.append(
            MigGpu(node.name, index, tuple(MigInstance(profile, None) for _ in range(here)), file)
        )


def _vgpu_vm(
    node: _Node,
    profile: str,
    model: str | None,
    count_label: int | None,
    capacity_gpus: tuple[float, str] | None,
    catalog: Catalog,
    add: Any,
    bad: Any,
) -> None:
    """A node that is a VM with vGPUs: one GPU per vGPU, rounded up to the model's boards, with a
    problem saying its physical host is not described. The node is kept, as the user's cluster
    holds it: its CPU, memory and cluster are real, and only its GPUs are a stand-in."""
    add(
        "mig_enabled",
        "no",
        f"metadata.labels.{_LABEL}vgpu.present",
        "derived",
        f"a vGPU VM ({shown(profile)}): MIG is not visible inside it",
    )
    if count_label is not None:
        vgpus, locator = count_label, f"metadata.labels.{_LABEL}gpu.count"
    elif capacity_gpus is not None:
        vgpus, locator = max(1, int(capacity_gpus[0])), capacity_gpus[1]
    else:
        return
    board = 1 if model is None else catalog.gpus[model].gpus_per_board
    gpus = max(board, math.ceil(vgpus / board) * board)
    _vgpu_problem(node, profile, model, vgpus, gpus, catalog, locator, bad)
    text = (
        f"the node is a VM with {counted(vgpus, 'vGPU')} of profile {shown(profile)}, not a "
        "physical host; its CPU and memory are the VM's"
    )
    if gpus != vgpus:
        add(
            "gpus_per_host",
            gpus,
            locator,
            "assumed",
            f"{text}; hosts of {model} hold whole boards of {board} GPUs, so one board is assumed "
            "(set the physical host's GPUs)",
        )
    else:
        add("gpus_per_host", gpus, locator, "derived", text)


class _HamiGpu:
    """One GPU HAMi's device plugin registered on a node."""

    def __init__(self, model: str, memory_mib: int | None, split: int | None) -> None:
        self.model = model
        """The GPU's name, as NVML gives it (``NVIDIA L40S``)."""
        self.memory_mib = memory_mib
        """The GPU's memory [MiB]."""
        self.split = split
        """vGPUs HAMi advertises for it (deviceSplitCount)."""


def _hami_gpus(node: _Node) -> list[_HamiGpu]:
    """The physical GPUs in HAMi's register annotation, in order; none without it."""
    gpus: list[_HamiGpu] = []
    for device in node.annotations.get(_HAMI_REGISTER, "").split(":"):
        fields = [f.strip() for f in device.split(",")]
        if len(fields) < 5 or not fields[4]:
            continue
        gpus.append(
            _HamiGpu(fields[4].removeprefix("NVIDIA-"), _whole(fields[2]), _whole(fields[1]))
        )
    return gpus


def registered_gpu(item: Mapping[str, Any]) -> tuple[str, int | None] | None:
    """The GPU name and memory [MiB] HAMi's register annotation lists first for a node (an
    object of ``kubectl get nodes``), as a node no label names the GPU of is read; None
    without the annotation."""
    hami = _hami_gpus(_Node.from_object(item, 0))
    return None if not hami else (hami[0].model, hami[0].memory_mib)


def _check_hami_vgpus(
    facts: list[Fact],
    node: _Node,
    hami: list[_HamiGpu],
    capacity_gpus: tuple[float, str] | None,
    bad: Any,
) -> None:
    """A problem when a node without HAMi's register annotation looks like one of HAMi's nodes
    advertising vGPUs: its label ``gpu=on`` and a count over a server's GPUs or a multiple of
    HAMi's default split (10). The count read is kept."""
    if hami or capacity_gpus is None or node.labels.get(_HAMI_LABEL[0]) != _HAMI_LABEL[1]:
        return
    advertised, resource = capacity_gpus
    taken = next((f.value for f in facts if f.field == "gpus_per_host"), None)
    if taken != advertised or (
        advertised <= MAX_GPUS_PER_NODE and (advertised <= 0 or advertised % _VOLCANO_SPLIT)
    ):
        return
    bad(
        resource,
        f"the node carries HAMi's label gpu=on and advertises {advertised:g} {_GPU}: HAMi's "
        "device plugin advertises each GPU deviceSplitCount times (10 by default), so these may "
        f"be vGPUs, not GPUs; the node's annotation {_HAMI_REGISTER}, which lists its GPUs, is "
        "not in the file",
        "give kubectl get nodes -o json unchanged (with the node's annotations), or set "
        "gpus_per_host to the node's physical GPUs",
    )


def _hami_product(hami: list[_HamiGpu], label: str, product: str) -> tuple[str, str]:
    """The label naming the node's GPU and the name: HAMi's register annotation where no label
    names it."""
    return (_HAMI_LOCATOR, hami[0].model) if hami and not product else (label, product)


def _hami_memory(hami: list[_HamiGpu], product_label: str) -> int | None:
    """The memory [MiB] of the GPU HAMi registered, where it names the node's GPU."""
    return hami[0].memory_mib if hami and product_label == _HAMI_LOCATOR else None


def _hami_count(
    hami: list[_HamiGpu],
    count_label: int | None,
    capacity_gpus: tuple[float, str] | None,
    add: Any,
    bad: Any,
) -> None:
    """A HAMi node's GPUs: those its register annotation lists; ``nvidia.com/gpu`` counts vGPUs."""
    gpus = len(hami)
    vgpus = (
        "" if capacity_gpus is None else f"; {capacity_gpus[1]} ({capacity_gpus[0]:g}) counts vGPUs"
    )
    splits = sorted({g.split for g in hami if g.split is not None})
    split = f", each split into {'/'.join(map(str, splits))} vGPUs" if splits else ""
    add(
        "gpus_per_host",
        gpus,
        _HAMI_LOCATOR,
        "read",
        f"{counted(gpus, 'GPU')} HAMi registered on the node{split}{vgpus}",
    )
    if count_label is not None and count_label != gpus:
        bad(
            f"metadata.labels.{_LABEL}gpu.count",
            f"{_LABEL}gpu.count says {count_label} GPUs but HAMi registered {gpus} "
            f"({_HAMI_REGISTER}): the {gpus} is taken",
            "check the node's GPUs (nvidia-smi on the node) and list the nodes again, or set "
            "gpus_per_host to the GPUs the node can use",
        )


def _vgpu_problem(
    node: _Node,
    profile: str,
    model: str | None,
    vgpus: int,
    gpus: int,
    catalog: Catalog,
    locator: str,
    bad: Any,
) -> None:
    """A vGPU VM's problem: its vGPUs are slices of GPUs on a hypervisor host the file does not
    describe (several VMs may share one GPU), so whole GPUs stand in for them."""
    memory_mib = _whole(node.labels.get(f"{_LABEL}gpu.memory", ""))
    frame = "" if memory_mib is None else f", {memory_mib / 1024:g} GiB frame buffer"
    share = ""
    if memory_mib is not None and model is not None and catalog.gpus[model].memory_gib > 0:
        share = (
            f", {memory_mib / 1024 / catalog.gpus[model].memory_gib:.0%} of the {model}'s "
            f"{catalog.gpus[model].memory_gib:g} GiB"
        )
    whole = f"{counted(gpus, 'whole GPU')}" + ("" if model is None else f" ({model})")
    bad(
        locator,
        f"the node is a VM with {counted(vgpus, 'vGPU')} (profile {shown(profile)}{frame}{share}): "
        "slices of GPUs on a hypervisor host this file does not describe, which other VMs may "
        f"share; it is kept with {whole} standing in, which can count one physical GPU several "
        "times",
        "give the physical hosts instead (an RVTools export of the ESXi hosts, or nvidia-smi run "
        "on each ESXi host) and leave these nodes out, or set gpus_per_host for the node",
    )


def _states(item: Mapping[str, Any]) -> tuple[str, ...]:
    """What keeps a node from taking pods: its Ready condition not True (``NotReady``, kubectl's
    word; ``Unknown`` when the kubelet stopped reporting) and ``spec.unschedulable`` (cordoned)."""
    states: list[str] = []
    conditions = as_mapping(item.get("status")).get("conditions")
    for condition in conditions if isinstance(conditions, list) else []:
        ready = as_mapping(condition)
        if as_text(ready.get("type")) == "Ready" and as_text(ready.get("status")) != "True":
            status = as_text(ready.get("status"))
            states.append(
                "NotReady" + (" (status Unknown: unreachable)" if status == "Unknown" else "")
            )
    if as_mapping(item.get("spec")).get("unschedulable") is True:
        states.append("cordoned (spec.unschedulable)")
    return tuple(states)


def _state_notes(node: _Node, file: str) -> list[ImportNote]:
    """A note naming what keeps a GPU node from taking pods. The node is kept: it is hardware the
    user owns, most often down or drained for a while (maintenance, a driver upgrade), and a plan
    of the estate counts it; the note lets the user leave it out."""
    if not node.states:
        return []
    return [
        ImportNote(
            file,
            None,
            "status.conditions" if node.states[0].startswith("NotReady") else "spec.unschedulable",
            node.name,
            "",
            " and ".join(node.states),
            "read",
            f"the node is {' and '.join(node.states)}: it takes no new pods now, but it is kept "
            "as capacity the cluster owns; leave it out of the file if it is being retired",
        )
    ]
