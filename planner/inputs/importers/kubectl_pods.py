"""GPU workloads from ``kubectl get pods -A -o json`` (or ``-o yaml``): one row per pod, grouped
into classes.

Per pod the importer reads what the scheduler reserves: GPU, CPU and memory requests. A
container's request of a resource is its ``requests`` entry, else its ``limits`` entry (the
value Kubernetes defaults the request to). The GPU resources are extended resources, which
Kubernetes takes in whole numbers with the limit equal to the request when both are given: a
GPU limit beside a request that is unreadable, negative, not whole or another number is a
problem naming the pod, container and resource (the request is read). The pod's request
follows Kubernetes' rule: the larger of the regular containers' sum (plus sidecars, i.e. init
containers with ``restartPolicy: Always``) and each init container's own request (plus the
sidecars started before it).

GPU requests and what one pod gets [GPUs]:

- ``nvidia.com/gpu: n``: ``n`` whole GPUs.
- ``nvidia.com/gpu.shared: n`` (time-slicing with renamed resources): ``n`` replicas, each
  assumed a fixed share of a GPU (``WorkloadDefaults.shared_gpu_share``; the node's
  ``nvidia.com/gpu.replicas`` sets the real one).
- ``nvidia.com/gpu: n`` on a node the pod is pinned to (node selector, or required affinity
  with one value) that shares its GPUs: under the MIG single strategy (GFD's product
  ``<model>-MIG-<profile>``, GKE's ``cloud.google.com/gke-gpu-partition-size``) ``n`` MIG
  instances of that profile, as below; time-sliced or MPS-shared (GFD's ``-SHARED`` product or
  ``nvidia.com/gpu.sharing-strategy``, GKE's ``gke-gpu-sharing-strategy``) ``n`` replicas of
  1/replicas of a GPU each (``nvidia.com/gpu.replicas`` or GKE's
  ``gke-max-shared-clients-per-gpu`` in the selector, else ``WorkloadDefaults.shared_gpu_share``).
  A node given with the pods that advertises a whole multiple of its instance type's GPUs
  without those labels (``kubectl_nodes.instance_replicas``) shares them that many ways.
- ``nvidia.com/mig-<profile>: n``: ``n`` MIG instances: compute slices over the GPU's, memory
  the profile's; more than one GPU holds fill whole GPUs (``n`` over the most of the profile
  one GPU holds, rounded up), the figures of the GPU the pod is pinned to. A profile no catalog
  GPU has, or that only GPUs other than the pinned one have (``mig-1g.5gb``, an A100 40GB
  profile, on an H100), leaves its pod out, with a problem naming the pinned GPU's profiles.
- A container requesting more than one of these (two MIG profiles, a whole GPU and a MIG
  instance) leaves its pod out, with a problem, rather than counting one of them.
- HAMi (``nvidia.com/gpumem`` [MiB], ``nvidia.com/gpumem-percentage``, ``nvidia.com/gpucores``
  [%] beside ``nvidia.com/gpu: n`` virtual GPUs): the cores share (else the memory share, else
  gpumem over the memory of the GPU the node selector names, else of an assumed GPU) of one
  GPU, and for ``n`` over 1, each vGPU on a GPU of its own, ``n`` whole GPUs (assumed: shares
  of several GPUs are not one fraction); memory
  ``n`` × gpumem, or ``n`` × the memory share of the GPU the pod's node selector names (of an
  assumed GPU when none).
- Volcano's vGPU (``volcano.sh/vgpu-number: n``, ``volcano.sh/vgpu-memory`` [MiB],
  ``volcano.sh/vgpu-memory-percentage``, ``volcano.sh/vgpu-cores`` [%]): HAMi's rules.
- Alibaba Cloud's GPU sharing (``aliyun.com/gpu-mem`` [GiB], ``aliyun.com/gpu-core.percentage``
  [%], on the ``n`` GPUs of the pod label ``aliyun.com/gpu-count``, 1 when absent): gpu-mem is
  the pod's memory, split evenly over the ``n`` GPUs; GPUs as for HAMi.
- A share over 100 % of a GPU under any of these three leaves its pod out, with a problem.
- Memory asked of one GPU (HAMi's, Volcano's, Alibaba's, KAI's) above the memory of the
  catalog's largest GPU leaves its pod out, with a problem: no GPU holds it.
- A pod runs on one node: GPUs asked by one container (``nvidia.com/gpu``, HAMi's vGPUs,
  ``volcano.sh/vgpu-number``, the ``aliyun.com/gpu-count`` label, KAI's
  ``gpu-fraction-num-devices``) or by the pod in all above ``MAX_GPUS_PER_NODE`` (16, the
  largest GPU servers') leave it out, with a problem: it is never scheduled.
- Counts are Kubernetes quantities: a suffix multiplies (``1k`` = 1000, ``2Ki`` = 2048,
  ``2000m`` = 2). GPU resources are extended resources, which Kubernetes takes only whole: a
  part of one (``500m``) is a problem, read rounded up.
- Alibaba's GPU-sharing trace as its simulator reads it (the pods ``pod_csv_to_yaml.py`` of
  ``alibaba/clusterdata`` writes), by pod annotation: ``alibabacloud.com/gpu-milli`` [thousandths
  of each GPU, 1000 = a whole GPU] on ``alibabacloud.com/gpu-count`` GPUs, read as the trace's CSV
  pod list reads ``gpu_milli`` and ``num_gpu`` (``alibaba_trace``): gpu-milli/1000 of one GPU
  when gpu-count is 1, else gpu-count whole GPUs (gpu-milli must then be 1000); both 0, or both
  absent, is a pod without GPU. ``alibabacloud.com/gpu-card-model`` (``V100M16|V100M32``) names
  the models it may use, each the catalog's model of that name, else the catalog's models of the
  trace's family it names (``V100``: V100M16 and V100M32, said in a note), as the trace's CSV pod
  list reads them (the trace's models are there when its node list is the inventory); naming
  none the catalog has leaves the pod out, with a problem, as it could never be placed. Bare
  pods asking so are grouped by shape (GPUs, share, cores, memory, models), named and assumed as
  the trace's CSV pod list names and assumes its classes: training busy all day, a share taking
  that share of the GPU's memory too. With the trace's nodes given (``on_their_nodes``), a
  class's memory is of the smallest GPU of the nodes' models it may use, as the CSV pod list
  takes it on its node list; without them, of an assumed GPU.
- KAI Scheduler and Run:ai, which ask by pod annotation, not by resource: ``gpu-fraction: f``
  (the share of one GPU's memory, 0 < f ≤ 1) or ``gpu-memory: m`` [MiB], on
  ``gpu-fraction-num-devices: n`` GPUs (1 when absent): ``n`` × f GPUs, or ``n`` × m MiB of
  memory with the GPU share that memory is of the GPU the node selector names, else of an
  assumed GPU.
- A KubeVirt VM's GPU (its ``virt-launcher`` pod asks the GPU Operator's sandbox device
  plugin, ``kubectl_nodes.vm_gpu``): passthrough by the PCI device's name
  (``nvidia.com/GA102GL_A10: n``) is ``n`` whole GPUs of that model; a vGPU by its type
  (``nvidia.com/NVIDIA_A10-4Q: n``) is ``n`` × the profile's frame buffer over the model's
  memory (time-sliced vGPUs of one size share a GPU alike), memory ``n`` × the frame buffer;
  either way the pod runs on that model. One the catalog has no GPU for leaves its pod out,
  with a problem.
- A GPU resource of another vendor or sharing scheme (``amd.com/gpu``), or another
  ``nvidia.com/`` resource on a pod asking no GPU read here, leaves its pod out, with a problem
  naming the resource: what one unit of it is worth in GPUs is not read here.

Pods are grouped into classes by owner: a ReplicaSet's pods by their Deployment (the
ReplicaSet name without its pod-template hash), a Job's by its CronJob (the Job name without its
scheduled minute), StatefulSets, DaemonSets and custom owners as they are, a bare pod alone; or
by a label the user picks. A pod pinned by its node selector or required node affinity to a
node label of the GPU (GFD's ``nvidia.com/gpu.product``, GKE's
``cloud.google.com/gke-accelerator``, EKS's ``k8s.amazonaws.com/accelerator``, an EC2 GPU
instance type ``node.kubernetes.io/instance-type``) runs on that model, read as the nodes'
importer reads the label: its class may only use it, and its memory is that model's; without
such a pin, HAMi's annotation ``nvidia.com/use-gputype`` pins it alike to the catalog GPUs whose
name contains a type it lists (``A100``: every A100). With the
nodes given, a pod's memory not otherwise known is of the model its node's labels (else HAMi's
register annotation) name, and a share worked out of an assumed GPU's memory is of that model
(its class still free to use any model). Only ``Running`` and ``Pending`` pods count as instances,
except pods being deleted (``metadata.deletionTimestamp``, a rollout's old pods); those,
finished pods and pods without a GPU are kept in the pod table and left out of the classes,
with a note.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog
from planner.inputs.importers.detect import give_as
from planner.inputs.importers.gpu_names import GpuName, match_gpu_name
from planner.inputs.importers.kube import (
    KubeObject,
    as_mapping,
    as_text,
    kube_documents,
    kube_objects,
    object_kind,
    parse_quantity,
    quantity_text,
)
from planner.inputs.importers.kubectl_nodes import (
    GKE_CLIENTS_LABEL,
    GKE_PARTITION_LABEL,
    GKE_SHARING_LABEL,
    GPU_SELECTOR_LABELS,
    MAX_GPUS_PER_NODE,
    NODE_SIZE,
    PRODUCT_LABEL,
    REPLICAS_LABEL,
    SHARING_LABEL,
    instance_replicas,
    registered_gpu,
    selected_gpu,
    vm_gpu,
)
from planner.inputs.importers.provenance import ImportNote, NoteSource
from planner.inputs.problems import InputError, InputProblem, first_problems
from planner.inputs.tabular import quoted, shown
from planner.inputs.workloads import WORKLOAD_COLUMNS, WorkloadClass, WorkloadKind
from planner.words import counted

__all__ = [
    "COUNTED_PHASES",
    "MAX_GPUS_PER_NODE",
    "TOOL",
    "GpuRequest",
    "GroupedPods",
    "PodRequest",
    "PodsRead",
    "WorkloadDefaults",
    "group_pods",
    "label_keys",
    "last_states",
    "node_labels",
    "on_their_nodes",
    "owner_of",
    "pods_frame",
    "read_kubectl_pods",
    "workload_kind",
]

TOOL = "kubectl get pods -A -o json"
COUNTED_PHASES = frozenset({"Running", "Pending", ""})
"""Pod phases that hold (or wait for) a GPU; ``Succeeded`` and ``Failed`` pods hold none."""
_FINISHED_PHASES = frozenset({"Succeeded", "Failed"})
_NVIDIA = "nvidia.com/"
_GPU = "nvidia.com/gpu"
_SHARED = "nvidia.com/gpu.shared"
_MIG = "nvidia.com/mig-"
# KAI Scheduler's pod annotations (NVIDIA/KAI-Scheduler docs/gpu-sharing/README.md), the ones
# Run:ai reads: gpu-fraction is the share of one GPU's memory, gpu-memory is in MiB.
_KAI_FRACTION = "gpu-fraction"
_KAI_MEMORY = "gpu-memory"
_HAMI_GPU_TYPE = "nvidia.com/use-gputype"
"""HAMi's pod annotation naming the GPU types the pod may use, comma-separated; HAMi takes a
GPU whose type contains one of them (``A100`` any A100)."""
_KAI_DEVICES = "gpu-fraction-num-devices"
_KAI_ANNOTATIONS = (_KAI_FRACTION, _KAI_MEMORY)
# alibaba/clusterdata cluster-trace-gpu-v2023 pod_csv_to_yaml.py: the trace's pods ask by
# annotation, gpu-milli thousandths of each of gpu-count GPUs, gpu-card-model the models allowed.
_TRACE_MILLI = "alibabacloud.com/gpu-milli"
_TRACE_COUNT = "alibabacloud.com/gpu-count"
_TRACE_MODELS = "alibabacloud.com/gpu-card-model"
_TRACE_RESOURCE = f"{_TRACE_MILLI} (annotation)"
"""``GpuRequest.resource`` of a pod of Alibaba's trace."""
_MILLI = 1000
"""Thousandths of a GPU in one GPU (the trace's ``gpu-milli`` unit)."""
_TRACE_NODE_LIST = "openb_node_list_gpu_node.csv"
_TRACE_GIVES_NO = "Alibaba's trace gives no"
_TEMPLATE_HASH = re.compile(r"-[bcdfghjklmnpqrstvwxz2456789]{5,10}$")
"""The suffix Kubernetes adds to a ReplicaSet's name (its safe-encoding alphabet)."""
_CRON_SUFFIX = re.compile(r"^(?P<cronjob>.+)-\d{8,10}$")
"""A CronJob names its Jobs ``<cronjob>-<scheduled time in minutes since the epoch>``."""
_TRAINING_OWNERS = frozenset(
    {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "TrainJob"}
)
_BATCH_OWNERS = frozenset({"Job", "CronJob"})
_PROFILE_NAME = re.compile(r"^(?P<compute>\d+)g\.(?P<memory>\d+)gb")
# Node labels a pod's node selector can name a GPU share by: GFD's product under the MIG single
# strategy (``<model>-MIG-<profile>``) or time-slicing's renaming (``-SHARED``), GFD's sharing
# strategy and replicas, and GKE's partition size, sharing strategy and clients per GPU.
_SHARING_LABELS = (
    PRODUCT_LABEL,
    SHARING_LABEL,
    REPLICAS_LABEL,
    GKE_PARTITION_LABEL,
    GKE_SHARING_LABEL,
    GKE_CLIENTS_LABEL,
)


@dataclass(frozen=True)
class _ShareResources:
    """The resources by which one GPU-sharing scheme asks for part of a GPU's memory and cores."""

    scheme: str
    """The scheme's name in notes and the pod table."""
    devices: str
    """What counts the GPUs a container shares: a resource, or a pod label."""
    devices_by_label: bool
    memory: str
    memory_unit: str
    """``MiB`` or ``GiB``: the unit of one ``memory``."""
    memory_per_device: bool
    """``memory`` is held on each of the GPUs, not split across them."""
    memory_share: str | None
    """Percent of each GPU's memory [%]."""
    cores: str
    """Percent of each GPU's compute [%]."""

    @property
    def own(self) -> tuple[str, ...]:
        """The resources that say a container asks this scheme (``nvidia.com/gpu`` says none)."""
        named = (self.cores, self.memory_share, self.memory)
        extra = () if self.devices_by_label or self.devices == _GPU else (self.devices,)
        return tuple(n for n in named if n is not None) + extra


_HAMI = _ShareResources(
    "HAMi",
    _GPU,
    False,
    "nvidia.com/gpumem",
    "MiB",
    True,
    "nvidia.com/gpumem-percentage",
    "nvidia.com/gpucores",
)
# AliyunContainerService/gpushare-scheduler-extender docs/userguide.md: aliyun.com/gpu-mem is in
# GiB. ACK "Enable multi-GPU sharing": the pod label aliyun.com/gpu-count asks M GPUs and N GiB
# is N/M GiB on each. ACK's core_mem sharing: aliyun.com/gpu-core.percentage, % of one GPU.
_ALIBABA = _ShareResources(
    "Alibaba Cloud GPU sharing",
    "aliyun.com/gpu-count",
    True,
    "aliyun.com/gpu-mem",
    "GiB",
    False,
    None,
    "aliyun.com/gpu-core.percentage",
)
# Project-HAMi/volcano-vgpu-device-plugin README ("Running VGPU Jobs") and doc/config.md: HAMi's
# sharing under Volcano's names: vgpu-number GPUs (1 when absent, defaultGPUNum), vgpu-memory MiB
# and vgpu-cores % on each, vgpu-memory-percentage.
_VOLCANO = _ShareResources(
    "Volcano vGPU",
    "volcano.sh/vgpu-number",
    False,
    "volcano.sh/vgpu-memory",
    "MiB",
    True,
    "volcano.sh/vgpu-memory-percentage",
    "volcano.sh/vgpu-cores",
)
_SHARE_SCHEMES = (_HAMI, _VOLCANO, _ALIBABA)
"""Schemes asking for part of a GPU by resource, in the order a container's are looked for."""
_MIB_PER = {"MiB": 1.0, "GiB": 1024.0}
_MEMORY_FIX = {
    _HAMI.memory: f"write {_HAMI.memory} in MiB of one GPU (81920 for 80 GiB)",
    _VOLCANO.memory: f"write {_VOLCANO.memory} in MiB of one GPU (81920 for 80 GiB)",
    _ALIBABA.memory: f"{_ALIBABA.memory} counts GiB (16 = 16 GiB), as Alibaba's device plugin "
    "does by default; one run with --memory-unit=MiB counts MiB: divide the figure by 1024",
}
"""How to write each scheme's memory resource, for a request no GPU holds."""


@dataclass(frozen=True)
class WorkloadDefaults:
    """Figures assumed where Kubernetes does not say; each use is marked assumed in the notes."""

    busy_fraction: Mapping[WorkloadKind, float] = field(
        default_factory=lambda: {
            WorkloadKind.TRAINING: 0.7,
            WorkloadKind.INFERENCE: 0.3,
            WorkloadKind.NOTEBOOK: 0.1,
            WorkloadKind.BATCH: 0.8,
            WorkloadKind.VDI: 0.2,
        }
    )
    """Share of active time the GPU is busy, per kind [0-1]; DCGM metrics replace it."""
    gpu_memory_gib: float = 40.0
    """Memory of one whole GPU when a pod names no GPU model [GiB]."""
    shared_gpu_share: float = 0.25
    """Share of a GPU one time-sliced replica gets (4 replicas per GPU) [GPUs]."""
    batch_hours: str = "8"
    """``active_hours`` of a Job's or CronJob's class (hours a day, from 20:00)."""


@dataclass(frozen=True)
class GpuRequest:
    """What one pod asks of GPUs, in the planner's terms."""

    resource: str
    """The resource requested: ``nvidia.com/gpu``, ``nvidia.com/mig-1g.10gb`` and so on."""
    gpus: float
    """GPUs per pod: a fraction of one GPU, or whole GPUs."""
    gpus_source: NoteSource
    gpus_text: str
    memory_gib: float | None
    """GPU memory the request holds [GiB]; None when the request does not say (whole GPUs)."""
    memory_source: NoteSource
    memory_text: str
    mig_profile: str | None = None
    asked: GpuRequest | None = None
    assumed_gpu: str = ""
    """The figure worked out of an assumed GPU's memory (``WorkloadDefaults.gpu_memory_gib``),
    no GPU being named: ``gpus`` (memory asked over it), ``memory`` (a share of it) or none;
    the GPU of the node the pod runs on replaces it where known (``_on_its_node``)."""
    """The ``nvidia.com/gpu`` request as whole GPUs, when a node selector made it a share (the
    node's own labels, when given, say the share instead)."""


@dataclass(frozen=True)
class PodRequest:
    """One pod: its owner, labels and what it requests."""

    file: str
    namespace: str
    name: str
    node: str
    phase: str
    owner_kind: str
    """``Deployment``, ``StatefulSet``, ``CronJob``, ``Job``, ``DaemonSet``, a custom kind, or
    ``Pod`` for a pod without an owner."""
    owner_name: str
    owner_source: NoteSource
    """``read`` for the direct owner, ``derived`` for a Deployment or CronJob worked out from a
    ReplicaSet's or Job's name."""
    labels: Mapping[str, str]
    cpu_cores: float
    """CPU request [cores]."""
    ram_gib: float
    """Memory request [GiB]."""
    gpu: GpuRequest | None
    """None when the pod requests no GPU."""
    gpu_models: tuple[str, ...]
    """Catalog models the pod's node selector or affinity asks for by a node label of its GPU
    (``nvidia.com/gpu.product``, ``cloud.google.com/gke-accelerator``, the instance type)."""
    node_models: tuple[str, ...] = ()
    """Catalog models the labels of the node the pod runs on (``spec.nodeName``) name, where a
    ``kubectl get nodes`` file gives that node (``on_their_nodes``): the GPU its memory is of
    where neither the request nor a selector says; no constraint on where it is planned."""
    terminating: bool = False
    """``metadata.deletionTimestamp`` is set (kubectl's ``Terminating``): the pod is being
    deleted, and a rollout's new pod or a replacement takes its place."""
    nodes_models: tuple[str, ...] = ()
    """For a pod of Alibaba's trace, which names no node: the catalog models of the nodes given
    with the pods (their label ``alibabacloud.com/gpu-card-model``, ``on_their_nodes``), the
    GPU its memory is of, as the trace's CSV pod list takes it on its node list."""

    @property
    def counted(self) -> bool:
        """The pod holds or waits for its resources (``COUNTED_PHASES``) and is not being
        deleted: counting a rollout's old pods beside their replacements counts it twice."""
        return self.phase in COUNTED_PHASES and not self.terminating


@dataclass(frozen=True)
class PodsRead:
    """Every pod of one file, with notes and problems."""

    file: str
    pods: tuple[PodRequest, ...]
    notes: tuple[ImportNote, ...] = ()
    problems: tuple[InputProblem, ...] = ()


def owner_of(
    references: object, labels: Mapping[str, str], pod_name: str
) -> tuple[str, str, NoteSource]:
    """(kind, name, source) of the workload a pod belongs to; see the module docstring."""
    refs = [as_mapping(r) for r in references] if isinstance(references, list) else []
    refs = [r for r in refs if as_text(r.get("kind")) and as_text(r.get("name"))]
    if not refs:
        return "Pod", pod_name, "read"
    ref = next((r for r in refs if r.get("controller") is True), refs[0])
    kind, name = as_text(ref.get("kind")), as_text(ref.get("name"))
    if kind == "ReplicaSet":
        template_hash = labels.get("pod-template-hash", "")
        if template_hash and name.endswith(f"-{template_hash}"):
            return "Deployment", name[: -len(template_hash) - 1], "derived"
        if _TEMPLATE_HASH.search(name):
            return "Deployment", _TEMPLATE_HASH.sub("", name), "derived"
    if kind == "Job":
        cron = _CRON_SUFFIX.match(name)
        if cron:
            return "CronJob", cron.group("cronjob"), "derived"
    return kind, name, "read"


def workload_kind(owner_kind: str, name: str) -> tuple[WorkloadKind, str]:
    """The kind of a class from its owner and name, with the rule that decided it.

    In order: a name with ``notebook`` or ``jupyter`` (or a Kubeflow ``Notebook`` owner) is a
    notebook; a name with ``train`` or a Kubeflow training owner (``PyTorchJob``...) is training;
    a ``Job`` or ``CronJob`` is batch; anything else (Deployment, StatefulSet, DaemonSet, a bare
    pod) is inference.
    """
    lowered = name.lower()
    if "notebook" in lowered or "jupyter" in lowered or owner_kind == "Notebook":
        return WorkloadKind.NOTEBOOK, "its name or owner says notebook"
    if "train" in lowered or owner_kind in _TRAINING_OWNERS:
        return WorkloadKind.TRAINING, "its name or owner says training"
    if owner_kind in _BATCH_OWNERS:
        return WorkloadKind.BATCH, f"a {owner_kind} runs to completion: batch"
    return WorkloadKind.INFERENCE, f"a long-running {owner_kind} with a GPU: inference"


def _requested(container: Mapping[str, Any], resource: str) -> object | None:
    resources = as_mapping(container.get("resources"))
    requests = as_mapping(resources.get("requests"))
    limits = as_mapping(resources.get("limits"))
    found: object | None = requests.get(resource, limits.get(resource))
    return found


def _pod_total(
    containers: Sequence[Mapping[str, Any]],
    init_containers: Sequence[Mapping[str, Any]],
    value: Callable[[Mapping[str, Any]], float],
) -> float:
    """The pod's request of one quantity: max(init rule, regular sum + sidecars)."""
    sidecars = 0.0
    init_peak = 0.0
    for container in init_containers:
        amount = value(container)
        if container.get("restartPolicy") == "Always":
            sidecars += amount
            init_peak = max(init_peak, sidecars)
        else:
            init_peak = max(init_peak, amount + sidecars)
    regular = sum(value(c) for c in containers) + sidecars
    return max(init_peak, regular)


class _PodProblems:
    def __init__(self, file: str, namespace: str, pod: str, problems: list[InputProblem]) -> None:
        self.file = file
        self.where = f"pod {shown(namespace)}/{shown(pod)}"
        self.pod = f"{namespace}/{pod}"
        self.problems = problems

    def __call__(self, locator: str, message: str, fix: str, *, row_kept: bool = False) -> None:
        self.problems.append(
            InputProblem(
                self.file, None, f"{self.where}: {locator}", message, fix, row_kept=row_kept
            )
        )


def _at(container: Mapping[str, Any], resource: str) -> str:
    """A container's resource as a problem's column names it (``main nvidia.com/gpu``), each
    name cut as messages cut a value (``shown``): kubectl limits neither's length."""
    return f"{shown(as_text(container.get('name')))} {shown(resource)}"


def _quantity(container: Mapping[str, Any], resource: str, bad: _PodProblems) -> float:
    raw = _requested(container, resource)
    if raw is None:
        return 0.0
    try:
        value = parse_quantity(raw)
    except ValueError as error:
        bad(
            _at(container, resource),
            str(error),
            "give kubectl's output unchanged",
        )
        return 0.0
    if value < 0:
        bad(
            _at(container, resource),
            f"{quoted(str(raw))} is negative: taken as 0",
            "give kubectl's output unchanged (Kubernetes refuses negative requests)",
        )
        return 0.0
    return value


def _devices(container: Mapping[str, Any], resource: str, bad: _PodProblems) -> float:
    """A count of devices (``nvidia.com/gpu``, a MIG profile, shared GPUs): Kubernetes takes it
    whole and refuses a pod asking ``1.5``, so such output was edited or damaged; it is read
    rounded up, the devices the pod would need, with a problem."""
    count = _quantity(container, resource, bad)
    if count.is_integer():
        return count
    bad(
        _at(container, resource),
        f"{quoted(str(_requested(container, resource)))} is not a whole number ({count:g}): "
        f"Kubernetes takes extended resources such as {shown(resource)} only whole (2, 2000m, "
        f"2Ki) and refuses a pod asking part of one: read as {math.ceil(count)}",
        "give kubectl's output unchanged, or write the whole devices the pod asks for",
    )
    return float(math.ceil(count))


_NODE_SIZE_FIX = (
    f"if a node of yours holds more than {MAX_GPUS_PER_NODE} GPUs, describe this class in a "
    "workload CSV with its GPUs per instance"
)


def _gpus_on_a_node(container: Mapping[str, Any], resource: str, bad: _PodProblems) -> float:
    """The GPUs one container asks by ``resource`` (``_devices``). More than a node holds
    (``MAX_GPUS_PER_NODE``) leaves the pod out, with a problem: it is never scheduled."""
    count = _devices(container, resource, bad)
    if count <= MAX_GPUS_PER_NODE:
        return count
    raw = _requested(container, resource)
    bad(
        _at(container, resource),
        f"{quantity_text(raw, count)} GPUs in one container is more than any node holds "
        f"({NODE_SIZE}): a pod runs on one node, so it is never scheduled; pod left out",
        f"write {shown(resource)} as the GPUs the pod asks (a suffix multiplies: 1k = 1000, "
        f"2Ki = 2048); {_NODE_SIZE_FIX}",
    )
    raise _PodLeftOutError(resource)


def _largest_gpu(catalog: Catalog) -> tuple[str, float] | None:
    """The catalog model with the most memory, and its memory [GiB]; None without models."""
    if not catalog.gpus:
        return None
    model = max(catalog.gpus, key=lambda m: catalog.gpus[m].memory_gib)
    return model, catalog.gpus[model].memory_gib


def _refuse_memory_beyond_gpus(
    locator: str, asked: str, each_gib: float, fix: str, catalog: Catalog, bad: _PodProblems
) -> None:
    """Leave the pod out, with a problem, when it asks more memory of one GPU [GiB] than the
    largest GPU in the catalog has: no GPU holds it."""
    largest_gpu = _largest_gpu(catalog)
    if largest_gpu is None or each_gib <= largest_gpu[1]:
        return
    model, largest = largest_gpu
    bad(
        locator,
        f"{asked}: {each_gib:,.1f} GiB of one GPU's memory is more than the largest GPU in the "
        f"catalog has ({model}, {largest:g} GiB), so no GPU holds it: pod left out",
        f"{fix}; if the GPU has more memory, add it to the catalog",
    )
    raise _PodLeftOutError(locator)


class _PodLeftOutError(ValueError):
    """A pod the importer cannot read (a MIG profile no catalog GPU has, several GPU resources in
    one container); its problem is already added."""


def _is_gpu_resource(name: str) -> bool:
    """A GPU resource the importer reads: whole and shared GPUs, MIG instances, the sharing
    schemes' (``_SHARE_SCHEMES``)."""
    return (
        name in (_GPU, _SHARED)
        or name.startswith(_MIG)
        or any(name in s.own for s in _SHARE_SCHEMES)
    )


def _check_gpu_limits(container: Mapping[str, Any], bad: _PodProblems) -> None:
    """A problem for each GPU resource whose ``limits`` entry, beside a ``requests`` entry, is
    no whole number of at least 0 or not the request. GPU resources are extended resources:
    Kubernetes refuses a pod whose limit of one differs from its request or is not whole, so
    such output was edited or damaged; the request is what is read."""
    resources = as_mapping(container.get("resources"))
    requests = as_mapping(resources.get("requests"))
    limits = as_mapping(resources.get("limits"))
    for resource in sorted(set(requests) & set(limits)):
        if not _is_gpu_resource(resource):
            continue
        limit, request = limits[resource], requests[resource]
        request_shown = shown(str(request))
        where = f"{shown(as_text(container.get('name')))} limits {shown(resource)}"
        read = f"the request {request_shown} is read"
        try:
            value = parse_quantity(limit)
        except ValueError as error:
            bad(where, f"{error}: {read}", f"write the limit as the request, {request_shown}")
            continue
        if value < 0 or not value.is_integer():
            bad(
                where,
                f"{quoted(str(limit))} is not a whole number of at least 0, as Kubernetes takes "
                f"{shown(resource)}: {read}",
                f"write the limit as the request, {request_shown}, or give kubectl's output "
                "unchanged",
            )
            continue
        try:
            requested = parse_quantity(request)
        except ValueError:
            continue  # the request's own problem is reported where it is read
        if requested != value:
            bad(
                where,
                f"the limit {shown(str(limit))} is not the request {request_shown}: Kubernetes "
                "requires them equal "
                f"for an extended resource such as {shown(resource)}; {read}",
                "write one number for both, or give kubectl's output unchanged",
            )


def _requests_some(container: Mapping[str, Any], resource: str) -> bool:
    """Whether a container requests more than none of ``resource`` (unreadable counts as none:
    ``_quantity`` reports it)."""
    raw = _requested(container, resource)
    try:
        return raw is not None and parse_quantity(raw) > 0
    except ValueError:
        return False


def _profile_order(name: str) -> tuple[int, float, str]:
    """MIG profiles by compute slices, then memory (``1g.5gb`` before ``1g.10gb``)."""
    parsed = _PROFILE_NAME.match(name)
    if parsed is None:
        return (0, 0.0, name)
    return (int(parsed.group("compute")), float(parsed.group("memory")), name)


@dataclass(frozen=True)
class _ContainerGpu:
    gpus: float
    memory_gib: float | None
    resource: str
    gpus_source: NoteSource
    gpus_text: str
    memory_source: NoteSource
    memory_text: str
    mig_profile: str | None
    gpu_model: str | None = None
    """The catalog model the resource itself names (a KubeVirt VM's GPU); None when it names
    none."""
    assumed_gpu: str = ""
    """As ``GpuRequest.assumed_gpu``."""


_VGPU_SIZE = re.compile(r"-(?P<size>\d+)[ABCQ]$")
"""The frame buffer [GB] closing a vGPU profile's name (``A10-4Q``: 4)."""


def _vm_gpu(
    container: Mapping[str, Any],
    resource: str,
    gpu: GpuName,
    catalog: Catalog,
    bad: _PodProblems,
) -> _ContainerGpu | None:
    """What a KubeVirt VM's ``resource`` (``gpu``, as ``vm_gpu`` reads it) asks: whole GPUs
    passed through, or vGPUs, each the share of the model its frame buffer is (a MIG-backed
    vGPU, its GPU instance). A GPU the catalog lacks leaves the pod out, with a problem."""
    locator = _at(container, resource)
    size = None if gpu.vgpu_profile is None else _VGPU_SIZE.search(gpu.vgpu_profile)
    if gpu.model is None or (gpu.vgpu_profile is not None and size is None and not gpu.mig_backed):
        what = "vGPU" if gpu.vgpu_profile is not None else "GPU passed through"
        bad(
            locator,
            f"{shown(resource)} is a {what} for a KubeVirt VM (the GPU Operator's sandbox device "
            f"plugin) whose GPU is not known here ({gpu.reason}): pod left out",
            "describe this class in a workload CSV with its GPUs per instance, GPU memory and "
            f"gpu_models; or {gpu.fix}",
        )
        raise _PodLeftOutError(resource)
    count = _gpus_on_a_node(container, resource, bad)
    if count <= 0:
        return None
    model = catalog.gpus[gpu.model]
    if gpu.mig_backed and gpu.mig_profile is not None:
        mig = _mig_gpu(count, gpu.mig_profile, resource, locator, [gpu.model], catalog, bad)
        return replace(mig, gpu_model=gpu.model)
    if gpu.vgpu_profile is None:
        return _ContainerGpu(
            count,
            count * model.memory_gib,
            resource,
            "derived",
            f"{counted(int(count), 'GPU')} {gpu.model} passed through to a KubeVirt VM "
            f"({shown(resource)}: the PCI device's name)",
            "derived",
            f"{count:g} × the {gpu.model}'s {model.memory_gib:g} GiB",
            None,
            gpu.model,
        )
    assert size is not None
    frame_gib = float(size.group("size"))
    share = min(1.0, frame_gib / model.memory_gib)
    return _ContainerGpu(
        _rounded(count * share),
        count * frame_gib,
        resource,
        "derived",
        f"{count:g} × vGPU {gpu.vgpu_profile} for a KubeVirt VM: {frame_gib:g} GiB of the "
        f"{gpu.model}'s {model.memory_gib:g} GiB, the share of the GPU its vGPUs time-slice",
        "derived",
        f"{count:g} × the vGPU's {frame_gib:g} GiB frame buffer",
        None,
        gpu.model,
    )


def _container_gpu(
    container: Mapping[str, Any],
    labels: Mapping[str, str],
    pinned_models: Sequence[str],
    catalog: Catalog,
    defaults: WorkloadDefaults,
    bad: _PodProblems,
) -> _ContainerGpu | None:
    resources = as_mapping(container.get("resources"))
    names = set(as_mapping(resources.get("requests"))) | set(as_mapping(resources.get("limits")))
    gpu_resources = sorted(
        n
        for n in names
        if (n in (_GPU, _SHARED) or n.startswith(_MIG)) and _requests_some(container, n)
    )
    # HAMi's resources go beside nvidia.com/gpu; another scheme's are a GPU request of their own.
    others = [s for s in _SHARE_SCHEMES if s.devices != _GPU]
    asked = [n for s in others for n in s.own if _requests_some(container, n)]
    gpu_resources += [
        next(n for n in s.own if n in asked) for s in others if set(s.own) & set(asked)
    ]
    vms = {n: g for n in sorted(names) if (g := vm_gpu(n, catalog)) is not None}
    vms = {n: g for n, g in vms.items() if _requests_some(container, n)}
    gpu_resources += list(vms)
    if len(gpu_resources) > 1:
        bad(
            _at(container, "resources"),
            f"the container requests {' and '.join(map(shown, gpu_resources))}: one GPU "
            "resource per container is read, so the pod is left out rather than counted short",
            "describe this class in a workload CSV with its GPUs per instance",
        )
        raise _PodLeftOutError(", ".join(gpu_resources))
    if vms:
        resource, gpu = next(iter(vms.items()))
        return _vm_gpu(container, resource, gpu, catalog, bad)
    mig = sorted(n for n in names if n.startswith(_MIG))
    if mig:
        resource = mig[0]
        count = _devices(container, resource, bad)
        if count <= 0:
            return None
        return _mig_gpu(
            count,
            resource.removeprefix(_MIG),
            resource,
            _at(container, resource),
            pinned_models,
            catalog,
            bad,
        )
    count = _gpus_on_a_node(container, _GPU, bad) + _quantity(container, _SHARED, bad)
    scheme = (
        _HAMI
        if set(_HAMI.own) & names
        else next((s for s in others if set(s.own) & set(asked)), None)
    )
    if scheme is _HAMI:
        return _shared_gpu(container, _HAMI, count or 1.0, pinned_models, catalog, defaults, bad)
    if scheme is _VOLCANO:
        devices = _gpus_on_a_node(container, _VOLCANO.devices, bad) or 1.0
        return _shared_gpu(container, _VOLCANO, devices, pinned_models, catalog, defaults, bad)
    if scheme is _ALIBABA:
        devices = _labelled_devices(labels, _ALIBABA.devices, bad)
        return _shared_gpu(container, _ALIBABA, devices, pinned_models, catalog, defaults, bad)
    if count <= 0:
        return None
    if _quantity(container, _SHARED, bad) > 0:
        shared = _quantity(container, _SHARED, bad)
        gpus = _rounded(shared * defaults.shared_gpu_share)
        return _ContainerGpu(
            gpus,
            None,
            _SHARED,
            "assumed",
            f"{counted(int(shared), 'time-sliced replica')} at an assumed "
            f"{defaults.shared_gpu_share:g} GPU each (the node's nvidia.com/gpu.replicas sets it)",
            "assumed",
            "",
            None,
        )
    return _ContainerGpu(
        count,
        None,
        _GPU,
        "read",
        f"{counted(int(count), 'whole GPU')} (nvidia.com/gpu)",
        "assumed",
        "",
        None,
    )


def _mig_gpu(
    count: float,
    profile: str,
    resource: str,
    locator: str,
    gpu_models: Sequence[str],
    catalog: Catalog,
    bad: _PodProblems,
) -> _ContainerGpu:
    """``count`` MIG instances of ``profile``: compute slices over the GPU's, memory the
    profile's; more than one GPU holds fill whole GPUs. The figures are those of ``gpu_models``
    (the GPUs the resource or the pod's node selector names) when one has the profile. A profile
    no catalog GPU has, or none of ``gpu_models`` has, leaves the pod out, with a problem naming
    the profiles of ``gpu_models``, or the catalog's nearest."""
    models = [m for m in catalog.gpus if any(p.name == profile for p in catalog.mig(m))]
    pinned = list(dict.fromkeys(gpu_models))
    if models and pinned and not set(models) & set(pinned):
        # Another GPU's figures would plan the pod on a GPU its node never offers.
        _refuse_profile_of_another_gpu(profile, resource, locator, pinned, models, catalog, bad)
    models = [m for m in models if m in pinned] or models
    if models:
        known = next(p for p in catalog.mig(models[0]) if p.name == profile)
        slices = catalog.gpus[models[0]].mig_compute_slices
        gpus = min(1.0, count * known.compute_slices / slices)
        gpus_text = f"{count:g} × MIG {profile}: {known.compute_slices} of {slices} compute slices"
        # Instances beyond what one GPU holds fill whole GPUs, as many as the GPU that holds
        # the most of the profile needs.
        widest = max(
            (p for m in models for p in catalog.mig(m) if p.name == profile),
            key=lambda p: p.max_per_gpu,
        )
        if count > widest.max_per_gpu:
            gpus = float(math.ceil(count / widest.max_per_gpu))
            gpus_text = (
                f"{count:g} × MIG {profile}: at most {widest.max_per_gpu} on one GPU "
                f"({widest.gpu_model}), so {gpus:g} whole GPUs"
            )
        return _ContainerGpu(
            gpus,
            count * known.memory_gib,
            resource,
            "derived",
            gpus_text,
            "derived",
            f"{count:g} × MIG {profile}: {known.memory_gib:g} GiB each",
            profile,
        )
    bad(
        locator,
        f"MIG profile {shown(profile)} is no profile of any GPU in the catalog: pod left out",
        f"request {_profiles_meant(profile, gpu_models, catalog)}; or describe the class in a "
        f"workload CSV (every GPU's profiles: {_MIG_PROFILES_FILE})",
    )
    raise _PodLeftOutError(resource)


def _refuse_profile_of_another_gpu(
    profile: str,
    resource: str,
    locator: str,
    pinned: Sequence[str],
    holders: Sequence[str],
    catalog: Catalog,
    bad: _PodProblems,
) -> None:
    """Leave out, with a problem, a pod asking MIG ``profile`` that only GPUs other than the
    ``pinned`` ones have (``holders``): no node it may run on offers that resource."""
    whose = ", ".join(pinned)
    runs, it = ("runs", "it") if len(pinned) == 1 else ("run", "them")
    with_mig = [m for m in pinned if catalog.mig(m)]
    request = (
        f"request {_profiles_meant(profile, pinned, catalog)}"
        if with_mig
        else f"request nvidia.com/gpu if the {whose} {runs} without MIG (the catalog lists no MIG "
        f"profiles for {it})"
    )
    named = ", ".join(holders[:_HOLDERS_SHOWN])
    more = len(holders) - _HOLDERS_SHOWN
    if more > 0:
        named += f" and {counted(more, 'GPU', between='more')}"
    bad(
        locator,
        f"MIG profile {shown(profile)} is no profile of the GPU the pod is pinned to ({whose}) "
        f"by its node selector or node affinity; it is a profile of {named}: pod left out "
        "rather than read with another GPU's figures",
        f"{request}; or remove the pin if the pod runs on a GPU with {shown(profile)}; or "
        f"describe the class in a workload CSV (every GPU's profiles: {_MIG_PROFILES_FILE})",
    )
    raise _PodLeftOutError(resource)


_PROFILES_SHOWN = 8
"""MIG profiles a fix names at most: the few a user could mean, not every GPU's."""
_HOLDERS_SHOWN = 3
"""GPUs a problem names as having a profile, at most."""
_MIG_PROFILES_FILE = "data/catalog/mig_profiles.csv"
_PROFILE_COMPUTE = re.compile(r"^(\d+)g")
_PROFILE_MEMORY = re.compile(r"(\d+)gb")


def _profiles_meant(profile: str, gpu_models: Sequence[str], catalog: Catalog) -> str:
    """The MIG profiles a pod asking the unknown ``profile`` could mean, as its fix names them:
    those of ``gpu_models`` (the GPUs its resource or node selector names) when they have some,
    else the catalog's; at most ``_PROFILES_SHOWN``, taken by turns nearest in compute slices and
    nearest in memory [GiB] to what ``profile`` asks, listed in catalog order."""
    named = [m for m in dict.fromkeys(gpu_models) if catalog.mig(m)]
    models = named or [m for m in catalog.gpus if catalog.mig(m)]
    # The first GPU's profile of each name stands for it: the name gives slices and memory.
    known = {p.name: p for m in models for p in catalog.mig(m)}
    compute = _PROFILE_COMPUTE.match(profile)
    memory = _PROFILE_MEMORY.search(profile)
    if len(known) > _PROFILES_SHOWN and compute is None and memory is None:
        # Nothing to be near: one GPU's profiles show how a profile is named.
        models = models[:1]
        known = {p.name: p for p in catalog.mig(models[0])}
    slices = 0 if compute is None else int(compute.group(1))
    gib = 0.0 if memory is None else float(memory.group(1))
    by_slices = sorted(
        known.values(),
        key=lambda p: (abs(p.compute_slices - slices) if compute else 0, abs(p.memory_gib - gib)),
    )
    by_memory = sorted(
        known.values(),
        key=lambda p: (abs(p.memory_gib - gib) if memory else 0, abs(p.compute_slices - slices)),
    )
    chosen: dict[str, None] = {}
    for pair in zip(by_slices, by_memory, strict=True):
        for each in pair:
            if len(chosen) < _PROFILES_SHOWN:
                chosen.setdefault(each.name)
    listed = ", ".join(sorted(chosen, key=_profile_order))
    if not known:
        return f"a profile {_MIG_PROFILES_FILE} lists (it lists none)"
    if named:
        some = "one" if len(chosen) == len(known) else "one of the nearest"
        whose = "its GPU's" if len(named) == 1 else "its GPUs'"
        return f"{some} of {whose} profiles ({', '.join(named)}): {listed}"
    if compute is None and memory is None:
        return f"a profile named <slices>g.<memory>gb, such as the {models[0]}'s: {listed}"
    return f"a profile the catalog has, such as the nearest: {listed}"


def _shared_gpu(
    container: Mapping[str, Any],
    scheme: _ShareResources,
    devices: float,
    gpu_models: Sequence[str],
    catalog: Catalog,
    defaults: WorkloadDefaults,
    bad: _PodProblems,
) -> _ContainerGpu:
    """A container's part of ``devices`` GPUs under a sharing scheme: ``devices`` × the cores
    share, else × the memory share, else × the memory over an assumed GPU's
    (``defaults.gpu_memory_gib``), else ``devices`` whole virtual GPUs; a share of each of
    several GPUs is ``devices`` whole GPUs (assumed); memory as asked, a
    memory share of the GPU the pod's node selector names (``gpu_models``, the smallest of
    them), else of an assumed GPU."""
    resources = as_mapping(container.get("resources"))
    names = set(as_mapping(resources.get("requests"))) | set(as_mapping(resources.get("limits")))
    asked = [n for n in (scheme.cores, scheme.memory_share, scheme.memory) if n in names]
    cores = _percent(container, scheme.cores, bad) if scheme.cores in names else None
    share = (
        _percent(container, scheme.memory_share, bad)
        if scheme.memory_share is not None and scheme.memory_share in names
        else None
    )
    amount = _quantity(container, scheme.memory, bad) if scheme.memory in names else None
    unit = scheme.memory_unit
    # Memory asked on each GPU [unit].
    each = None if amount is None else (amount if scheme.memory_per_device else amount / devices)
    memory = None if each is None else devices * each * _MIB_PER[unit] / 1024
    if amount is not None and each is not None:
        over = "" if scheme.memory_per_device or devices == 1 else f" over {devices:g} GPUs"
        _refuse_memory_beyond_gpus(
            _at(container, scheme.memory),
            f"{quantity_text(_requested(container, scheme.memory), amount)} {unit}{over}",
            each * _MIB_PER[unit] / 1024,
            _MEMORY_FIX[scheme.memory],
            catalog,
            bad,
        )
    memory_text = ""
    spread = ""
    if amount is not None and scheme.memory_per_device:
        memory_text = f"{devices:g} × {amount:g} {unit} ({scheme.memory})"
    elif amount is not None:
        memory_text = f"{amount:g} {unit} ({scheme.memory})"
        if devices > 1:
            spread = f" ({amount:g} {unit} spread over {devices:g} GPUs, {scheme.devices})"
            memory_text += spread
    # The GPU a memory figure is a share of: the selected one, else an assumed one.
    selected = _smallest_gpu(gpu_models, catalog)
    gpu_gib = defaults.gpu_memory_gib if selected is None else selected[1]
    of_gpu: NoteSource = "assumed" if selected is None else "derived"
    whose = (
        f"an assumed {gpu_gib:g} GiB GPU"
        if selected is None
        else f"the selected {selected[0]}'s {gpu_gib:g} GiB"
    )
    source: NoteSource
    if cores:
        gpus, source = devices * cores / 100, "read"
        text = f"{devices:g} × {cores:g} % of a GPU's cores ({scheme.cores})"
    elif share:
        gpus, source = devices * share / 100, "derived"
        text = (
            f"{devices:g} × {share:g} % of a GPU's memory ({scheme.memory_share}), "
            "compute taken alike"
        )
    elif each:
        gpus, source = devices * min(1.0, each * _MIB_PER[unit] / 1024 / gpu_gib), of_gpu
        text = (
            f"{devices:g} × {each:g} {unit} ({scheme.memory}) of {whose}, compute taken "
            f"alike{spread}"
        )
    else:
        gpus, source = devices, "read"
        text = f"{counted(int(devices), scheme.scheme + ' virtual GPU')} without limits"
    if devices > 1 and gpus < devices:
        # Each vGPU is on a GPU of its own (the pod sees that many devices): shares of several
        # GPUs cannot be placed as one fraction, so whole GPUs are held, as for KAI's.
        gpus, source = devices, "assumed"
        text += f": a share of each of {devices:g} GPUs, counted as {devices:g} whole GPUs"
    memory_source: NoteSource = "read" if amount is not None else "assumed"
    if share and memory is None:
        memory, memory_source = devices * share / 100 * gpu_gib, of_gpu
        memory_text = f"{devices:g} × {share:g} % of {whose}"
    # The figure an assumed GPU's memory made, for the GPU of the pod's node to replace.
    assumed_gpu = "gpus" if source == "assumed" and devices == 1 else ""
    if share and memory_source == "assumed":
        assumed_gpu = "memory"
    return _ContainerGpu(
        _rounded(gpus),
        memory,
        f"{scheme.scheme} " + ", ".join(asked or [scheme.devices]),
        source,
        text,
        memory_source,
        memory_text,
        None,
        assumed_gpu=assumed_gpu,
    )


def _smallest_gpu(gpu_models: Sequence[str], catalog: Catalog) -> tuple[str, float] | None:
    """The model of ``gpu_models`` (those a pod is pinned to) with the least memory and that
    memory [GiB], as a class's memory is taken of it (``_class_memory``); None for none."""
    known = [(m, catalog.gpus[m].memory_gib) for m in gpu_models if m in catalog.gpus]
    return min(known, key=lambda m: m[1]) if known else None


def _percent(container: Mapping[str, Any], resource: str, bad: _PodProblems) -> float:
    """A share of each GPU [%]. Over 100 no GPU holds it, and what was meant is not known: the
    pod is left out, with a problem."""
    value = _quantity(container, resource, bad)
    if value > 100:
        bad(
            _at(container, resource),
            f"{quoted(str(_requested(container, resource)))} is over 100 % of a GPU, which no GPU "
            "holds: the pod's GPU share is not known, pod left out",
            f"write {shown(resource)} as a percentage of one GPU (1 to 100), or give kubectl's "
            "output unchanged",
        )
        raise _PodLeftOutError(resource)
    return value


def _labelled_devices(labels: Mapping[str, str], label: str, bad: _PodProblems) -> float:
    """The GPUs a pod spreads its share over by its ``label`` (``aliyun.com/gpu-count``), 1
    without it. A label that is no whole number from 1 to ``MAX_GPUS_PER_NODE`` leaves the pod
    out, with a problem."""
    text = labels.get(label)
    if text is None:
        return 1.0
    try:
        devices = float(text)
    except ValueError:
        devices = math.nan
    if not (math.isfinite(devices) and devices.is_integer() and 1 <= devices <= MAX_GPUS_PER_NODE):
        bad(
            f"metadata.labels.{label}",
            f"{quoted(text)} is not a whole number of GPUs of at least 1 and at most "
            f"{MAX_GPUS_PER_NODE} (the most one node holds): how the pod's GPU memory is spread "
            "is not known, pod left out",
            f"write {label} as the GPUs the pod shares (2), or give kubectl's output unchanged",
        )
        raise _PodLeftOutError(label)
    return devices


def _rounded(gpus: float) -> float:
    """A GPU count the planner accepts: at most 1 as it is, above 1 up to whole GPUs."""
    return gpus if gpus <= 1 else float(math.ceil(gpus - 1e-9))


def _selected_models(
    spec: Mapping[str, Any], catalog: Catalog, bad: _PodProblems | None
) -> tuple[str, ...]:
    """Catalog models the pod's node selector or required node affinity (``In``) names by a node
    label of its GPU (``GPU_SELECTOR_LABELS``: GFD's product, GKE's or EKS's accelerator, an EC2
    instance type), read as the nodes' importer reads the label. A GPU named that no catalog
    model is gets a problem through ``bad`` (None for a pod without a GPU), the pod kept."""
    chosen = [
        (label, value, locator)
        for label, values, locator in _node_choices(spec)
        if label in GPU_SELECTOR_LABELS
        for value in values
    ]
    models = []
    for label, value, locator in chosen:
        gpu = selected_gpu(label, value)
        if gpu is None:
            continue
        model = match_gpu_name(gpu[0], catalog, memory_mib=gpu[1]).model
        models.append(model)
        if model is None and bad is not None:
            bad(
                locator,
                f"the pod is pinned to {label}={quoted(value)}, whose GPU ({shown(gpu[0])}) is "
                "no model in the catalog: its class may be planned on any model, its GPU memory "
                "assumed",
                f"add the {shown(gpu[0])} to the catalog (own GPUs) and import again, or set the "
                "class's gpu_models",
                row_kept=True,
            )
    return tuple(dict.fromkeys(m for m in models if m is not None))


def read_kubectl_pods(
    data: bytes, file: str, catalog: Catalog, *, defaults: WorkloadDefaults | None = None
) -> PodsRead:
    """Every pod of ``kubectl get pods -A -o json`` or ``-o yaml`` (a list, ``kube.list_items``,
    or one ``Pod``; what a pod is, ``kube.object_kind``) with its owner, labels and requests.
    Raises ``InputError`` when the file is neither JSON nor YAML, or holds no pod."""
    defaults = defaults or WorkloadDefaults()
    read = kube_documents(data, file)
    objects = kube_objects(read.documents)
    pods: list[PodRequest] = []
    problems: list[InputProblem] = []
    families: dict[str, tuple[tuple[str, ...], list[str]]] = {}
    left_out = 0
    for position, item in enumerate(objects, start=1):
        kind = as_text(item.get("kind"))
        spec = as_mapping(item.get("spec"))
        what = object_kind(item, read.form)
        if what is KubeObject.NODE:
            raise InputError(
                [
                    InputProblem(
                        file,
                        None,
                        None,
                        "this is kubectl get nodes output (inventory), not pods",
                        give_as("inventory"),
                    )
                ]
            )
        if what is not KubeObject.POD or not isinstance(spec.get("containers"), list):
            wrong = (
                "has no spec.containers list"
                if kind == "Pod"
                else f"is not a pod (kind {kind or 'missing'})"
            )
            problems.append(
                InputProblem(
                    file,
                    None,
                    f"object {position}",
                    f"object {position} {wrong}: ignored",
                    "give the output of kubectl get pods -A -o json",
                )
            )
            continue
        try:
            pods.append(_pod(item, spec, file, catalog, defaults, problems, families))
        except _PodLeftOutError:
            left_out += 1
    if not pods:
        raise InputError(
            [
                *first_problems(problems, 5),
                InputProblem(
                    file,
                    None,
                    None,
                    f"every pod in the file was left out ({left_out})"
                    if left_out
                    else "no pod in the file",
                    "give the output of kubectl get pods -A -o json",
                ),
            ]
        )
    unique, repeated = last_states(pods)
    notes = [*_family_notes(families, file), *([] if repeated is None else [repeated])]
    return PodsRead(file, unique, tuple(notes), tuple(problems))


def _family_notes(
    families: Mapping[str, tuple[tuple[str, ...], list[str]]], file: str
) -> list[ImportNote]:
    """One note per model family a trace pod's ``alibabacloud.com/gpu-card-model`` named
    (``V100``), read as the trace's models of it (``families``: the models and the pods, by
    the name written)."""
    notes = []
    for written, (models, pods) in families.items():
        named = ", ".join(shown(p) for p in pods[:5])
        more = f" and {len(pods) - 5} more" if len(pods) > 5 else ""
        notes.append(
            ImportNote(
                file,
                None,
                f"metadata.annotations.{_TRACE_MODELS}",
                "",
                "",
                "|".join(models),
                "derived",
                f"GPU model {quoted(written)} ({counted(len(pods), 'pod')}: {named}{more}) is "
                f"read as {'|'.join(models)}: the trace's models of that family, any of them, as "
                "the trace's CSV pod list reads such a gpu_spec; to allow one only, write its name",
            )
        )
    return notes


def last_states(pods: Sequence[PodRequest]) -> tuple[tuple[PodRequest, ...], ImportNote | None]:
    """Each pod (namespace and name) once, in its last state: a pod listed again (a
    ``kubectl get pods -w`` stream, the same output given twice) is one pod, not more instances.
    Returns the pods in order of first sight, and a note naming the repeats (None without)."""
    last: dict[tuple[str, str], PodRequest] = {}
    seen: dict[tuple[str, str], int] = {}
    for pod in pods:
        key = (pod.namespace, pod.name)
        last[key] = pod
        seen[key] = seen.get(key, 0) + 1
    repeated = [key for key, times in seen.items() if times > 1]
    if not repeated:
        return tuple(pods), None
    files = ", ".join(dict.fromkeys(p.file for p in pods))
    named = ", ".join(
        f"{shown(namespace)}/{shown(name)} ({seen[(namespace, name)]}×)"
        for namespace, name in repeated[:5]
    )
    more = f" and {len(repeated) - 5} more" if len(repeated) > 5 else ""
    note = ImportNote(
        files,
        None,
        "metadata.name",
        "",
        "",
        str(len(repeated)),
        "read",
        f"{counted(len(repeated), 'pod')} listed more than once, each counted once in its last "
        f"state (a kubectl get pods -w stream, or the same pods given twice): {named}{more}",
    )
    return tuple(last.values()), note


def _pod(
    item: Mapping[str, Any],
    spec: Mapping[str, Any],
    file: str,
    catalog: Catalog,
    defaults: WorkloadDefaults,
    problems: list[InputProblem],
    families: dict[str, tuple[tuple[str, ...], list[str]]],
) -> PodRequest:
    """One pod as read; a model family its trace annotation names is recorded in
    ``families`` (``_card_models``)."""
    metadata = as_mapping(item.get("metadata"))
    name = as_text(metadata.get("name")) or "unnamed"
    namespace = as_text(metadata.get("namespace")) or "default"
    labels = {str(k): as_text(v) for k, v in as_mapping(metadata.get("labels")).items()}
    bad = _PodProblems(file, namespace, name, problems)
    containers = [as_mapping(c) for c in spec.get("containers") or []]
    inits_raw = spec.get("initContainers")
    inits = [as_mapping(c) for c in inits_raw] if isinstance(inits_raw, list) else []
    cpu = _pod_total(containers, inits, lambda c: _quantity(c, "cpu", bad))
    memory_bytes = _pod_total(containers, inits, lambda c: _quantity(c, "memory", bad))
    for each in [*containers, *inits]:
        _check_gpu_limits(each, bad)
    annotations = {str(k): as_text(v) for k, v in as_mapping(metadata.get("annotations")).items()}
    pinned_models = _selected_models(spec, catalog, None) or _typed_models(
        annotations, catalog, None
    )
    gpu_parts = {
        id(c): _container_gpu(c, labels, pinned_models, catalog, defaults, bad)
        for c in [*containers, *inits]
    }
    gpu = None
    if any(p is not None for p in gpu_parts.values()):
        gpus = _pod_total(containers, inits, lambda c: _gpus_of(gpu_parts[id(c)]))
        if _rounded(gpus) > MAX_GPUS_PER_NODE:
            asking = [c for c in [*containers, *inits] if _gpus_of(gpu_parts[id(c)]) > 0]
            bad(
                "spec.containers[].resources",
                f"the pod asks {_rounded(gpus):g} GPUs in all (containers "
                f"{', '.join(shown(as_text(c.get('name'))) for c in asking)}), more than any "
                f"node holds ({NODE_SIZE}): a pod runs on one node, so it is never scheduled; "
                "pod left out",
                f"give kubectl's output unchanged; {_NODE_SIZE_FIX}",
            )
            raise _PodLeftOutError("spec.containers[].resources")
        memories = [p.memory_gib for p in gpu_parts.values() if p is not None]
        known_memory = (
            None
            if any(m is None for m in memories)
            else _pod_total(containers, inits, lambda c: _memory_of(gpu_parts[id(c)]))
        )
        first = next(p for p in gpu_parts.values() if p is not None)
        # Regular containers' requests add up: each one's is named.
        summed = [p for c in containers if (p := gpu_parts[id(c)]) is not None]
        added = len(summed) > 1 and all(gpu_parts[id(c)] is None for c in inits)
        gpu = GpuRequest(
            first.resource,
            _rounded(gpus),
            first.gpus_source,
            " + ".join(p.gpus_text for p in summed) if added else first.gpus_text,
            known_memory,
            first.memory_source,
            " + ".join(p.memory_text for p in summed) if added else first.memory_text,
            first.mig_profile,
            assumed_gpu=first.assumed_gpu if len(memories) == 1 else "",
        )
    _refuse_unread_gpu(annotations, [*containers, *inits], gpu is not None, bad)
    trace = _trace_gpu(annotations, bad)
    if trace is not None and (gpu is not None or set(_KAI_ANNOTATIONS) & set(annotations)):
        bad(
            f"metadata.annotations.{_TRACE_MILLI}",
            "the pod asks for GPUs both by Alibaba's trace annotations (gpu-milli, gpu-count) "
            f"and by {'a GPU resource' if gpu is not None else 'a KAI Scheduler annotation'}: "
            "which one it holds is not known, so the pod is left out rather than counted twice",
            "describe this class in a workload CSV with its GPUs per instance",
        )
        raise _PodLeftOutError(_TRACE_MILLI)
    if gpu is None:
        gpu = trace or _annotated_gpu(annotations, pinned_models, catalog, defaults, bad)
    if gpu is None:
        _refuse_claimed_devices(spec, bad)
    else:
        gpu = _shared_whole_gpus(gpu, _pinned_labels(spec), catalog, defaults, bad)
    kind, owner, source = owner_of(metadata.get("ownerReferences"), labels, name)
    selected = _selected_models(spec, catalog, None if gpu is None else bad)
    return PodRequest(
        file=file,
        namespace=namespace,
        name=name,
        node=as_text(spec.get("nodeName")),
        phase=as_text(as_mapping(item.get("status")).get("phase")),
        terminating=bool(metadata.get("deletionTimestamp")),
        owner_kind=kind,
        owner_name=owner,
        owner_source=source,
        labels=labels,
        cpu_cores=cpu,
        ram_gib=memory_bytes / 2.0**30,
        gpu=gpu,
        gpu_models=tuple(
            dict.fromkeys(
                [
                    *(p.gpu_model for p in gpu_parts.values() if p is not None and p.gpu_model),
                    *(
                        selected
                        or _typed_models(annotations, catalog, bad if gpu else None)
                        or (
                            _card_models(annotations, catalog, bad, families)
                            if trace is not None
                            else ()
                        )
                    ),
                ]
            )
        ),
    )


def _typed_models(
    annotations: Mapping[str, str], catalog: Catalog, bad: _PodProblems | None
) -> tuple[str, ...]:
    """Catalog models HAMi's annotation ``nvidia.com/use-gputype`` lets the pod use: those whose
    name contains a type it lists (as HAMi matches a GPU's type), else the model the type is
    read as. A type naming no catalog model gets a problem through ``bad`` (None: none), the
    pod kept."""
    models: list[str] = []
    for written in annotations.get(_HAMI_GPU_TYPE, "").split(","):
        kind = written.strip()
        if not kind:
            continue
        found = [m for m in catalog.gpus if kind.upper() in m.upper()]
        model = match_gpu_name(kind, catalog).model if not found else None
        models.extend(found or ([model] if model else []))
        if not found and model is None and bad is not None:
            bad(
                f"metadata.annotations.{_HAMI_GPU_TYPE}",
                f"the GPU type {quoted(kind)} HAMi's annotation names is part of no catalog "
                "GPU's name: its class may be planned on any model, its GPU memory assumed",
                "write the type as HAMi registers it (A100, L40S), or add the GPU to the catalog "
                "(own GPUs) and import again",
                row_kept=True,
            )
    return tuple(dict.fromkeys(models))


def _node_choices(spec: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...], str]]:
    """The node labels the pod's node selector and its required node affinity (``In``) accept:
    (label, the values accepted, where the pod says it), the selector's first."""
    choices: list[tuple[str, tuple[str, ...], str]] = [
        (str(key), (as_text(value),), f"spec.nodeSelector.{shown(str(key))}")
        for key, value in as_mapping(spec.get("nodeSelector")).items()
    ]
    affinity = as_mapping(as_mapping(spec.get("affinity")).get("nodeAffinity"))
    required = as_mapping(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = required.get("nodeSelectorTerms")
    for term in terms if isinstance(terms, list) else []:
        expressions = as_mapping(term).get("matchExpressions")
        for expression in expressions if isinstance(expressions, list) else []:
            expression = as_mapping(expression)
            key, values = as_text(expression.get("key")), expression.get("values")
            if as_text(expression.get("operator")) == "In" and isinstance(values, list):
                accepted = tuple(as_text(v) for v in values)
                choices.append((key, accepted, f"spec.affinity.nodeAffinity ({key})"))
    return choices


def _pinned_labels(spec: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Node labels the pod's node selector, or its required node affinity with one value
    (``In``), pins it to: (value, where the pod says it) by label."""
    pinned: dict[str, tuple[str, str]] = {}
    for label, values, locator in _node_choices(spec):
        if len(values) == 1:
            pinned.setdefault(label, (values[0], locator))
    return pinned


def _labelled_models(pinned: Mapping[str, tuple[str, str]], catalog: Catalog) -> tuple[str, ...]:
    """Catalog models the GPU labels (``GPU_SELECTOR_LABELS``) among ``pinned`` name."""
    named = (selected_gpu(label, value) for label, (value, _) in pinned.items())
    models = (match_gpu_name(g[0], catalog, memory_mib=g[1]).model for g in named if g)
    return tuple(dict.fromkeys(m for m in models if m is not None))


def _shared_whole_gpus(
    gpu: GpuRequest,
    pinned: Mapping[str, tuple[str, str]],
    catalog: Catalog,
    defaults: WorkloadDefaults,
    bad: _PodProblems,
) -> GpuRequest:
    """A pod's ``nvidia.com/gpu`` as the node it is pinned to advertises it: a MIG instance
    under the MIG single strategy (GFD's product ``<model>-MIG-<profile>``, GKE's partition
    size), a replica of a time-sliced or MPS-shared GPU (GFD's ``-SHARED`` product or sharing
    strategy, GKE's sharing strategy), which gets 1/replicas of a GPU (``nvidia.com/gpu.replicas``
    or GKE's clients per GPU, else ``defaults.shared_gpu_share``). Else the request as read."""
    if gpu.resource != _GPU or gpu.gpus_source != "read" or not set(pinned) & set(_SHARING_LABELS):
        return gpu
    asked = gpu
    count = gpu.gpus
    product, product_at = pinned.get(PRODUCT_LABEL, ("", ""))
    mig = match_gpu_name(product.removesuffix("-SHARED"), catalog).mig_profile if product else None
    profile, profile_at = (mig, product_at) if mig else pinned.get(GKE_PARTITION_LABEL, ("", ""))
    if profile:
        part = _mig_gpu(
            count, profile, _GPU, profile_at, _labelled_models(pinned, catalog), catalog, bad
        )
        gpu = GpuRequest(
            _GPU,
            part.gpus,
            part.gpus_source,
            f"{part.gpus_text} (nvidia.com/gpu on a node of MIG {profile}, {profile_at})",
            part.memory_gib,
            part.memory_source,
            part.memory_text,
            profile,
            asked,
        )
    strategy = next(
        (
            (value, at)
            for label in (SHARING_LABEL, GKE_SHARING_LABEL)
            for value, at in [pinned.get(label, ("", ""))]
            if value and value.lower() != "none"
        ),
        None,
    )
    replicas_text, replicas_at = pinned.get(REPLICAS_LABEL, pinned.get(GKE_CLIENTS_LABEL, ("", "")))
    try:
        replicas = float(replicas_text)
    except ValueError:
        replicas = math.nan
    known = math.isfinite(replicas) and replicas.is_integer() and replicas >= 1
    if strategy is None and product.endswith("-SHARED"):
        strategy = ("time-slicing", product_at)
    if strategy is None and known and replicas > 1:
        # GFD without renaming labels a time-sliced node by its replicas only.
        strategy = ("time-slicing", replicas_at)
    if strategy is None:
        return gpu
    source: NoteSource
    if known:
        share, source = 1 / replicas, "derived"
        each = f"1/{replicas:g} of a GPU each ({replicas_at})"
    else:
        share, source = defaults.shared_gpu_share, "assumed"
        each = (
            f"an assumed {share:g} GPU each (the node's {REPLICAS_LABEL} sets it: pin the pods "
            "by it or describe the class in a workload CSV)"
        )
    return GpuRequest(
        gpu.resource,
        _rounded(gpu.gpus * share),
        source,
        f"{counted(int(count), 'replica')} of a GPU shared by {shown(strategy[0])} "
        f"({strategy[1]}): {each}"
        + ("" if gpu.mig_profile is None else f"; of MIG {gpu.mig_profile}"),
        gpu.memory_gib,
        gpu.memory_source,
        gpu.memory_text,
        gpu.mig_profile,
        asked,
    )


_INSTANCE_REPLICAS = "(replicas over the instance type's GPUs)"
"""Key under which ``node_labels`` gives the replicas a node's instance type implies
(``kubectl_nodes.instance_replicas``); no node label can be named so (a label has no space)."""
_REGISTERED_GPU = "(GPU HAMi registered)"
_REGISTERED_MIB = "(memory [MiB] of the GPU HAMi registered)"
"""Keys under which ``node_labels`` gives the GPU HAMi's register annotation lists
(``kubectl_nodes.registered_gpu``)."""


def node_labels(data: bytes, file: str) -> dict[str, Mapping[str, str]]:
    """The labels of each node of ``kubectl get nodes -o json`` (or ``-o yaml``), by node name,
    and, where the node advertises a whole multiple of its instance type's GPUs without GFD's
    labels, those replicas per GPU under ``_INSTANCE_REPLICAS``; what the pods on a node are
    given of its GPUs (``on_their_nodes``). Raises ``InputError`` as ``kube.kube_documents``
    does."""
    read = kube_documents(data, file)
    labels: dict[str, Mapping[str, str]] = {}
    for item in kube_objects(read.documents):
        if object_kind(item, read.form) is not KubeObject.NODE:
            continue
        metadata = as_mapping(item.get("metadata"))
        name = as_text(metadata.get("name"))
        if name:
            found = {str(k): as_text(v) for k, v in as_mapping(metadata.get("labels")).items()}
            replicas = instance_replicas(item)
            if replicas is not None:
                found[_INSTANCE_REPLICAS] = str(replicas)
            registered = registered_gpu(item)
            if registered is not None:
                found[_REGISTERED_GPU] = registered[0]
                found[_REGISTERED_MIB] = "" if registered[1] is None else str(registered[1])
            labels[name] = found
    return labels


def on_their_nodes(
    pods: Sequence[PodRequest],
    nodes: Mapping[str, Mapping[str, str]],
    catalog: Catalog,
    *,
    defaults: WorkloadDefaults | None = None,
) -> tuple[tuple[PodRequest, ...], tuple[InputProblem, ...]]:
    """Pods as the node each runs on (``spec.nodeName``) advertises ``nvidia.com/gpu``: on a
    node whose GPUs are time-sliced or MPS-shared ``n`` replicas of 1/replicas of a GPU each,
    under the MIG single strategy ``n`` MIG instances of the node's profile (the rules of a pod
    pinned to those labels, module docstring). Pods asking otherwise, pinned by their own
    selector, or on a node not given are as read. Returns the pods and the problems of a MIG
    profile no catalog GPU has (such a pod is left out). A pod of Alibaba's trace, which names
    no node, is given the models of the nodes Alibaba's label names (``nodes_models``); one
    whose ``alibabacloud.com/gpu-card-model`` allows none of them is left out, with a problem,
    as the trace's CSV pod list leaves it out: it could never be placed."""
    defaults = defaults or WorkloadDefaults()
    problems: list[InputProblem] = []
    placed: list[PodRequest] = []
    trace_models = _trace_nodes_models(nodes, catalog)
    for each in pods:
        labels = nodes.get(each.node)
        if trace_models and each.gpu is not None and each.gpu.resource == _TRACE_RESOURCE:
            if each.gpu_models and set(each.gpu_models).isdisjoint(trace_models):
                problems.append(_on_no_node(each, trace_models))
            else:
                placed.append(replace(each, nodes_models=trace_models))
            continue
        if labels is None or each.gpu is None:
            placed.append(each)
            continue
        pinned = {
            key: (value, f"node {shown(each.node)} label {key}") for key, value in labels.items()
        }
        pod = replace(each, node_models=_node_models(pinned, catalog))
        asked = each.gpu.asked or each.gpu
        if asked.gpus_source != "read":
            placed.append(pod)
            continue
        implied = pinned.pop(_INSTANCE_REPLICAS, None)
        if implied is not None:
            pinned[REPLICAS_LABEL] = (
                implied[0],
                f"node {shown(pod.node)} advertises {implied[0]} per GPU of its instance type",
            )
        bad = _PodProblems(pod.file, pod.namespace, pod.name, problems)
        try:
            gpu = _shared_whole_gpus(asked, pinned, catalog, defaults, bad)
        except _PodLeftOutError:
            continue
        placed.append(pod if gpu == asked else replace(pod, gpu=gpu))
    return tuple(placed), tuple(problems)


def _on_no_node(pod: PodRequest, nodes_models: Sequence[str]) -> InputProblem:
    """The problem of a trace pod allowed only GPU models no node given has."""
    return InputProblem(
        pod.file,
        None,
        f"pod {shown(pod.namespace)}/{shown(pod.name)}: metadata.annotations.{_TRACE_MODELS}",
        f"the pod may only use {' or '.join(map(quoted, pod.gpu_models))}, which no node has "
        f"(the nodes have {', '.join(nodes_models)}): pod left out, as it could never be placed",
        f"give the nodes that hold these models, or name one of the nodes' models in "
        f"{_TRACE_MODELS}",
    )


def _trace_nodes_models(
    nodes: Mapping[str, Mapping[str, str]], catalog: Catalog
) -> tuple[str, ...]:
    """Catalog models the nodes' label ``alibabacloud.com/gpu-card-model`` (Alibaba's trace)
    names, first seen first; what a trace pod may land on."""
    named = (labels.get(_TRACE_MODELS, "") for labels in nodes.values())
    models = (
        catalog.resolve(alibaba_trace.trace_model(written) or written)
        for written in named
        if written
    )
    return tuple(dict.fromkeys(m for m in models if m is not None))


def _node_models(pinned: dict[str, tuple[str, str]], catalog: Catalog) -> tuple[str, ...]:
    """Catalog models a node's labels name (``_labelled_models``), else the GPU HAMi registered
    on it; the keys ``node_labels`` adds for HAMi's GPU are taken out of ``pinned``."""
    name = pinned.pop(_REGISTERED_GPU, ("", ""))[0]
    mib = pinned.pop(_REGISTERED_MIB, ("", ""))[0]
    labelled = _labelled_models(pinned, catalog)
    if labelled or not name:
        return labelled
    model = match_gpu_name(name, catalog, memory_mib=int(mib) if mib.isdigit() else None).model
    return () if model is None else (model,)


def _refuse_claimed_devices(spec: Mapping[str, Any], bad: _PodProblems) -> None:
    """Leave out, with a problem, a pod that asks no GPU resource but claims devices through
    dynamic resource allocation (``spec.resourceClaims``, resource.k8s.io): its claims name a
    ResourceClaim or template, not in the pods' output, whose device class (NVIDIA's
    ``gpu.nvidia.com``) and count say what it holds."""
    claims = spec.get("resourceClaims")
    if not isinstance(claims, list) or not claims:
        return
    named = [
        f"{shown(as_text(c.get('name')))} ("
        + (
            f"template {shown(as_text(c.get('resourceClaimTemplateName')))}"
            if c.get("resourceClaimTemplateName")
            else f"claim {shown(as_text(c.get('resourceClaimName')))}"
        )
        + ")"
        for c in map(as_mapping, claims)
    ]
    bad(
        "spec.resourceClaims",
        f"the pod claims devices through dynamic resource allocation ({', '.join(named)}), "
        "which the importer does not read (the claims' device class and count are in the "
        "ResourceClaims, not the pods): pod left out rather than counted as asking no GPU",
        "describe this class in a workload CSV with its GPUs per instance and GPU memory "
        "(kubectl get resourceclaimtemplates,resourceclaims -A -o yaml shows each claim's "
        "device class, gpu.nvidia.com for NVIDIA's GPUs, and count)",
    )
    raise _PodLeftOutError("spec.resourceClaims")


def _refuse_unread_gpu(
    annotations: Mapping[str, str],
    containers: Sequence[Mapping[str, Any]],
    resource_read: bool,
    bad: _PodProblems,
) -> None:
    """Leave a pod out, with a problem, when it asks for GPUs in a way not read: another
    vendor's or scheme's GPU resource (``amd.com/gpu``), an annotation named like KAI's but not
    one of them (``runai-gpu-fraction``), or KAI's annotations beside a GPU resource (two
    requests)."""
    for each in containers:
        resources = as_mapping(each.get("resources"))
        names = set(as_mapping(resources.get("requests"))) | set(
            as_mapping(resources.get("limits"))
        )
        # Another nvidia.com/ resource may be a GPU of a device plugin not read here (as the
        # sandbox plugin's were): on a pod asking no GPU read, it is not taken as none.
        unread = sorted(
            n
            for n in names
            if ("gpu" in n.lower() or (n.startswith(_NVIDIA) and not resource_read))
            and not _is_gpu_resource(n)
            and _requests_some(each, n)
        )
        if unread:
            bad(
                _at(each, unread[0]),
                f"{', '.join(map(shown, unread))} "
                + ("is a GPU resource" if len(unread) == 1 else "are GPU resources")
                + " the importer does not read (what one unit is worth in GPUs is not known "
                "here): pod left out",
                "describe this class in a workload CSV with its GPUs per instance and GPU memory",
            )
            raise _PodLeftOutError(unread[0])
    kai = [a for a in _KAI_ANNOTATIONS if a in annotations]
    alike = sorted(
        k
        for k in annotations
        if k.rsplit("/", 1)[-1].endswith(_KAI_ANNOTATIONS) and k not in _KAI_ANNOTATIONS
    )
    if alike and not kai:
        bad(
            f"metadata.annotations.{shown(alike[0])}",
            f"the annotation {shown(alike[0])} is not one KAI Scheduler or Run:ai reads "
            f"({_KAI_FRACTION}, {_KAI_MEMORY}), so what the pod asks of GPUs is not known: "
            "pod left out",
            f"give the pods as kubectl lists them (KAI's annotation is {_KAI_FRACTION}), or "
            "describe the class in a workload CSV",
        )
        raise _PodLeftOutError(alike[0])
    if kai and resource_read:
        bad(
            f"metadata.annotations.{kai[0]}",
            f"the pod asks for GPUs both by the annotation {kai[0]} and by a GPU resource: "
            "which one it holds is not known, so the pod is left out rather than counted twice",
            "describe this class in a workload CSV with its GPUs per instance",
        )
        raise _PodLeftOutError(kai[0])


def _annotated_gpu(
    annotations: Mapping[str, str],
    gpu_models: Sequence[str],
    catalog: Catalog,
    defaults: WorkloadDefaults,
    bad: _PodProblems,
) -> GpuRequest | None:
    """A KAI Scheduler or Run:ai GPU share from the pod's annotations (module docstring), memory
    asked of the GPU its node selector names (``gpu_models``, the smallest), else of an assumed
    GPU; None without them. An unreadable value leaves the pod out, with a problem."""
    fraction_text = annotations.get(_KAI_FRACTION)
    memory_text = annotations.get(_KAI_MEMORY)
    if fraction_text is None and memory_text is None:
        return None

    def number(key: str, text: str, rule: str, valid: Callable[[float], bool]) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not valid(value):
            bad(
                f"metadata.annotations.{key}",
                f"{quoted(text)} is not {rule}: the pod's GPU share is not known, pod left out",
                f"write {key} as KAI Scheduler takes it ({rule}), or give kubectl's output "
                "unchanged",
            )
            raise _PodLeftOutError(key)
        return value

    devices = number(
        _KAI_DEVICES,
        annotations.get(_KAI_DEVICES, "1"),
        f"a whole number of GPUs of at least 1 and at most {MAX_GPUS_PER_NODE}, the most one "
        "node holds",
        lambda v: math.isfinite(v) and v.is_integer() and 1 <= v <= MAX_GPUS_PER_NODE,
    )
    fraction = (
        None
        if fraction_text is None
        else number(
            _KAI_FRACTION,
            fraction_text,
            "a share of a GPU over 0 and at most 1",
            lambda v: 0 < v <= 1,
        )
    )
    mib = (
        None
        if memory_text is None
        else number(_KAI_MEMORY, memory_text, "MiB over 0", lambda v: math.isfinite(v) and v > 0)
    )
    if mib is not None and memory_text is not None:
        _refuse_memory_beyond_gpus(
            f"metadata.annotations.{_KAI_MEMORY}",
            f"{quoted(memory_text)} MiB",
            mib / 1024,
            f"write {_KAI_MEMORY} in MiB of one GPU (81920 for 80 GiB)",
            catalog,
            bad,
        )
    on = "" if devices == 1 else f" on each of {devices:g} GPUs ({_KAI_DEVICES})"
    memory_gib = None if mib is None else devices * mib / 1024
    shown_memory = "" if mib is None else f"{mib:g} MiB of GPU memory ({_KAI_MEMORY}){on}"
    source: NoteSource
    if fraction is not None:
        share, source = fraction, "read"
        text = f"{fraction:g} of a GPU's memory ({_KAI_FRACTION}){on}, compute taken alike"
    elif (selected := _smallest_gpu(gpu_models, catalog)) is not None:
        share, source = min(1.0, (mib or 0.0) / 1024 / selected[1]), "derived"
        text = (
            f"{shown_memory} of the selected {selected[0]}'s {selected[1]:g} GiB, compute taken "
            "alike"
        )
    else:
        assumed = defaults.gpu_memory_gib
        share, source = min(1.0, (mib or 0.0) / 1024 / assumed), "assumed"
        text = f"{shown_memory} of an assumed {assumed:g} GiB GPU, compute taken alike"
    if devices > 1:
        # A share of each of several GPUs cannot be placed as one fraction: whole GPUs are held.
        gpus, source = devices, "assumed"
        text += f": counted as {devices:g} GPUs"
    else:
        gpus = share
    return GpuRequest(
        f"{_KAI_FRACTION} (annotation)" if fraction is not None else f"{_KAI_MEMORY} (annotation)",
        _rounded(gpus),
        source,
        text,
        memory_gib,
        "read" if mib is not None else "assumed",
        shown_memory,
        assumed_gpu="gpus" if source == "assumed" and devices == 1 else "",
    )


def _trace_gpu(annotations: Mapping[str, str], bad: _PodProblems) -> GpuRequest | None:
    """What a pod of Alibaba's trace asks by its annotations ``alibabacloud.com/gpu-milli`` and
    ``gpu-count``, read as the trace's CSV pod list reads ``gpu_milli`` and ``num_gpu``: a share
    of one GPU (gpu-count 1), else whole GPUs (gpu-milli 1000); None without them or when both
    are 0 (a pod without GPU). A value that is no whole number in range, or a pair the trace
    never writes, leaves the pod out, with a problem."""
    milli_text = annotations.get(_TRACE_MILLI)
    count_text = annotations.get(_TRACE_COUNT)
    if milli_text is None and count_text is None:
        return None

    def whole(key: str, text: str, highest: int, unit: str) -> int:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value.is_integer() and 0 <= value <= highest):
            bad(
                f"metadata.annotations.{key}",
                f"{quoted(text)} is not a whole number of {unit} from 0 to {highest}: the pod's "
                "GPU request is not known, pod left out",
                f"write {key} as the trace writes it (whole {unit}), or give the pods as "
                "pod_csv_to_yaml.py wrote them",
            )
            raise _PodLeftOutError(key)
        return int(value)

    count = 1 if count_text is None else whole(_TRACE_COUNT, count_text, MAX_GPUS_PER_NODE, "GPUs")
    milli = (
        _MILLI
        if milli_text is None
        else whole(_TRACE_MILLI, milli_text, _MILLI, "thousandths of a GPU")
    )
    if count == 0 and milli == 0:
        return None
    # The pairs the trace never writes, as its CSV pod list refuses them.
    wrong = (
        (
            f"gpu-count 0 beside {milli} thousandths of a GPU",
            f"set {_TRACE_MILLI} to 0, or {_TRACE_COUNT} to 1",
        )
        if count == 0
        else (
            f"{counted(count, 'GPU')} of 0 thousandths each",
            f"set {_TRACE_MILLI} (1-1000), or {_TRACE_COUNT} to 0",
        )
        if milli == 0
        else (
            f"{count} GPUs of {milli} thousandths each",
            f"set {_TRACE_MILLI} to 1000 (a share is of one GPU only), or {_TRACE_COUNT} to 1",
        )
        if count > 1 and milli != _MILLI
        else None
    )
    if wrong is not None:
        bad(
            f"metadata.annotations.{_TRACE_MILLI}",
            f"the pod asks for {wrong[0]}, which the trace never writes: pod left out",
            wrong[1],
        )
        raise _PodLeftOutError(_TRACE_MILLI)
    absent = "" if count_text is not None else f" ({_TRACE_COUNT} absent: 1 GPU)"
    if count == 1 and milli < _MILLI:
        gpus = milli / _MILLI
        text = f"{milli} thousandths of one GPU ({_TRACE_MILLI}){absent}"
    else:
        gpus = float(count)
        text = f"{counted(count, 'whole GPU')} ({_TRACE_COUNT}, {_TRACE_MILLI} {milli}){absent}"
    return GpuRequest(
        _TRACE_RESOURCE,
        gpus,
        "read" if count_text is not None else "assumed",
        text,
        None,
        "derived",
        "",
    )


def _card_models(
    annotations: Mapping[str, str],
    catalog: Catalog,
    bad: _PodProblems,
    families: dict[str, tuple[tuple[str, ...], list[str]]],
) -> tuple[str, ...]:
    """Catalog models the trace's annotation ``alibabacloud.com/gpu-card-model`` lets the pod use
    (``V100M16|V100M32``, the trace's ``|``-separated models), each the catalog's model of that
    name (case, spaces and dashes aside), else the catalog's models of the trace's family it
    names (``V100``: V100M16 and V100M32, recorded in ``families`` with the pod, by the name
    written), sorted as the trace's CSV pod list sorts them. A model the catalog lacks is a
    problem; when it lacks every one, the pod is left out, as it could never be placed."""
    written = [m.strip() for m in annotations.get(_TRACE_MODELS, "").split("|") if m.strip()]
    known: dict[str, tuple[str, ...]] = {}
    for name in written:
        model = catalog.resolve(name)
        family = tuple(
            found
            for m in alibaba_trace.trace_family(name)
            if (found := catalog.resolve(m)) is not None
        )
        known[name] = (model,) if model is not None else family
        if model is None and family:
            families.setdefault(name, (family, []))[1].append(bad.pod)
    lacked = [m for m, models in known.items() if not models]
    models = tuple(sorted({m for found in known.values() for m in found}))
    if lacked:
        where = f"metadata.annotations.{_TRACE_MODELS}"
        names = " or ".join(quoted(m) for m in lacked)
        fix = (
            f"give the trace's node list ({_TRACE_NODE_LIST}) as the inventory, which adds the "
            "trace's GPU models, or add them as your own GPU models"
        )
        if not models:
            bad(
                where,
                f"the pod may only use {names}, which the catalog has no model of, so no node "
                "offers it: pod left out",
                fix,
            )
            raise _PodLeftOutError(_TRACE_MODELS)
        bad(
            where,
            f"{names} is no model in the catalog: the pod may use {', '.join(models)} only",
            fix,
            row_kept=True,
        )
    return models


def _gpus_of(part: _ContainerGpu | None) -> float:
    return 0.0 if part is None else part.gpus


def _memory_of(part: _ContainerGpu | None) -> float:
    return 0.0 if part is None or part.memory_gib is None else part.memory_gib


def pods_frame(pods: Iterable[PodRequest]) -> pd.DataFrame:
    """One row per pod: namespace, pod, node, phase, owner_kind, owner, gpu_resource, gpus,
    gpu_memory_gib [GiB], cpu_cores [cores], ram_gib [GiB], gpu_models, labels
    (``key=value`` pairs separated by ``; ``), file."""
    rows = [
        {
            "namespace": p.namespace,
            "pod": p.name,
            "node": p.node,
            "phase": p.phase,
            "owner_kind": p.owner_kind,
            "owner": p.owner_name,
            "gpu_resource": "" if p.gpu is None else p.gpu.resource,
            "gpus": 0.0 if p.gpu is None else p.gpu.gpus,
            "gpu_memory_gib": None if p.gpu is None else p.gpu.memory_gib,
            "cpu_cores": p.cpu_cores,
            "ram_gib": p.ram_gib,
            "gpu_models": "|".join(p.gpu_models),
            "labels": "; ".join(f"{k}={v}" for k, v in sorted(p.labels.items())),
            "file": p.file,
        }
        for p in pods
    ]
    columns = [
        "namespace",
        "pod",
        "node",
        "phase",
        "owner_kind",
        "owner",
        "gpu_resource",
        "gpus",
        "gpu_memory_gib",
        "cpu_cores",
        "ram_gib",
        "gpu_models",
        "labels",
        "file",
    ]
    return pd.DataFrame(rows, columns=columns)


def label_keys(pods: Iterable[PodRequest]) -> list[str]:
    """Label keys on at least one GPU pod, most common first: the keys pods can be grouped by."""
    counts: dict[str, int] = {}
    for pod in pods:
        if pod.gpu is not None:
            for key in pod.labels:
                counts[key] = counts.get(key, 0) + 1
    return sorted(counts, key=lambda k: (-counts[k], k))


@dataclass(frozen=True)
class GroupedPods:
    """Workload classes made from pods."""

    frame: pd.DataFrame
    """``WORKLOAD_COLUMNS`` and ``notes`` (where each class came from), one row per class."""
    notes: tuple[ImportNote, ...]
    problems: tuple[InputProblem, ...]
    class_of: Mapping[tuple[str, str], str]
    """Class name of each counted GPU pod, by (namespace, pod)."""
    owners: Mapping[str, str]
    """Class name by owner name (``chat-llm``), for matching measurements that name no pod."""
    cpu_only: tuple[WorkloadClass, ...] = ()
    """Classes of the pods of Alibaba's trace that use no GPU (``_trace_cpu_only``): they take
    node cores and RAM, as the trace's CSV pod list's ``cpu_only`` classes do."""


@dataclass
class _Class:
    key: tuple[str, ...]
    name: str
    namespace: str
    owner_kind: str
    pods: list[PodRequest]


def _class_name(name: str) -> str:
    cleaned = name.replace("#", "-").strip()
    return cleaned or "unnamed"


def group_pods(
    pods: Sequence[PodRequest],
    catalog: Catalog,
    *,
    group_by: str | None = None,
    defaults: WorkloadDefaults | None = None,
) -> GroupedPods:
    """Workload classes from pods: one class per owner (or per value of the label ``group_by``),
    counting the pods that hold a GPU. Every figure carries a note: read from the pods, derived,
    or assumed (kind, busy fraction, schedule, isolation, latency tolerance, priority); see
    ``workload_kind`` and ``WorkloadDefaults``."""
    defaults = defaults or WorkloadDefaults()
    notes: list[ImportNote] = []
    problems: list[InputProblem] = []
    files = list(dict.fromkeys(p.file for p in pods))
    file = ", ".join(files) if files else "pods"
    notes.extend(_uncounted_notes(pods, file))
    classes: dict[tuple[str, ...], _Class] = {}
    missing_label = 0
    for pod in pods:
        if pod.gpu is None or not pod.counted:
            continue
        value = pod.labels.get(group_by, "") if group_by else ""
        if group_by and not value:
            missing_label += 1
        trace_class = _trace_class(pod)
        if value:
            key: tuple[str, ...] = ("label", value)
            name = value
        elif trace_class is not None:
            key = ("trace", trace_class)
            name = trace_class
        else:
            key = ("owner", pod.namespace, pod.owner_kind, pod.owner_name)
            name = pod.owner_name
        entry = classes.setdefault(key, _Class(key, name, pod.namespace, pod.owner_kind, []))
        entry.pods.append(pod)
    if group_by and missing_label:
        notes.append(
            ImportNote(
                file,
                None,
                f"metadata.labels.{group_by}",
                "",
                "",
                str(missing_label),
                "read",
                f"{counted(missing_label, 'GPU pod')} "
                + ("lacks" if missing_label == 1 else "lack")
                + f" label {group_by}: grouped by owner",
            )
        )
    if pods and not classes:
        without_gpu, finished, deleted, unknown = _uncounted(pods)
        problems.append(
            InputProblem(
                file,
                None,
                None,
                f"none of the {counted(len(pods), 'pod')} holds or waits for a GPU "
                f"({len(without_gpu)} request none, {len(finished)} have finished"
                + (f", {len(deleted)} are being deleted" if deleted else "")
                + (f", {len(unknown)} in another phase" if unknown else "")
                + ")",
                "give the pods of the GPU workloads (kubectl get pods -A -o json while they "
                "run); a GPU request is nvidia.com/gpu, nvidia.com/mig-<profile>, "
                "nvidia.com/gpu.shared, volcano.sh/vgpu-number or aliyun.com/gpu-mem, KAI "
                "Scheduler's gpu-fraction or gpu-memory annotation, or Alibaba's trace's "
                f"{_TRACE_MILLI} and {_TRACE_COUNT} annotations",
            )
        )
    names = _unique_names(list(classes.values()))
    rows = []
    class_of: dict[tuple[str, str], str] = {}
    owners: dict[str, str] = {}
    for entry in classes.values():
        name = names[entry.key]
        for pod in entry.pods:
            class_of[(pod.namespace, pod.name)] = name
            owners.setdefault(pod.owner_name, name)
        rows.append(_class_row(entry, name, file, catalog, defaults, notes))
    notes.extend(_trace_memory_note(classes.values(), file))
    frame = pd.DataFrame(rows, columns=[*WORKLOAD_COLUMNS, "notes"])
    return GroupedPods(
        frame, tuple(notes), tuple(problems), class_of, owners, _trace_cpu_only(pods)
    )


def _trace_memory_note(classes: Iterable[_Class], file: str) -> list[ImportNote]:
    """One note on the GPU memory of the trace's classes planned on the trace's nodes
    (``_trace_class_memory``), as the trace's CSV pod list says it; none without them."""
    models = tuple(
        dict.fromkeys(
            m for c in classes if c.key[0] == "trace" for p in c.pods for m in p.nodes_models
        )
    )
    if not models:
        return []
    return [
        ImportNote(
            file,
            None,
            "",
            "",
            "",
            "",
            "derived",
            "memory_gib: a class of Alibaba's trace holds its GPUs × the memory of the smallest "
            f"GPU it may use among the nodes' ({', '.join(models)}), a share that share of it, "
            "as the trace's CSV pod list takes it",
        )
    ]


def _trace_cpu_only(pods: Sequence[PodRequest]) -> tuple[WorkloadClass, ...]:
    """Classes of the pods of Alibaba's trace that ask no GPU, one per shape (cores, memory),
    named and made as the trace's CSV pod list makes its ``cpu_only`` classes: the bare pods
    without GPU of a file whose GPU pods ask by the trace's annotations (``pod_csv_to_yaml.py``
    writes none on a pod of ``num_gpu`` 0)."""
    trace_files = {p.file for p in pods if p.gpu is not None and p.gpu.resource == _TRACE_RESOURCE}
    counts: dict[tuple[int, int], int] = {}
    for pod in pods:
        if pod.gpu is None and pod.counted and pod.owner_kind == "Pod" and pod.file in trace_files:
            shape = (round(pod.cpu_cores * _MILLI), round(pod.ram_gib * alibaba_trace.MIB_PER_GIB))
            counts[shape] = counts.get(shape, 0) + 1
    return tuple(alibaba_trace.cpu_only_class(cpu, mib, n) for (cpu, mib), n in counts.items())


def _trace_class(pod: PodRequest) -> str | None:
    """The class of a bare pod asking by Alibaba's trace annotations, named as the trace's CSV
    pod list names the class of pods of one shape:
    ``gpu<GPUs>x<thousandths of each>-cpu<milli-cores>-mem<MiB>[-<models joined by +>]``; None
    for another pod."""
    gpu = pod.gpu
    if gpu is None or gpu.resource != _TRACE_RESOURCE or pod.owner_kind != "Pod":
        return None
    share = gpu.gpus < 1
    count = 1 if share else round(gpu.gpus)
    milli = round(gpu.gpus * _MILLI) if share else _MILLI
    return alibaba_trace.class_name(
        count,
        milli,
        round(pod.cpu_cores * _MILLI),
        round(pod.ram_gib * alibaba_trace.MIB_PER_GIB),
        pod.gpu_models,
    )


def _uncounted(
    pods: Sequence[PodRequest],
) -> tuple[list[PodRequest], list[PodRequest], list[PodRequest], list[PodRequest]]:
    """The pods no class counts: without a GPU, finished, being deleted, in another phase."""
    without_gpu = [p for p in pods if p.gpu is None]
    stopped = [p for p in pods if p.gpu is not None and not p.counted]
    finished = [p for p in stopped if p.phase in _FINISHED_PHASES]
    deleted = [p for p in stopped if p.terminating and p.phase not in _FINISHED_PHASES]
    unknown = [p for p in stopped if not p.terminating and p.phase not in _FINISHED_PHASES]
    return without_gpu, finished, deleted, unknown


def _uncounted_notes(pods: Sequence[PodRequest], file: str) -> list[ImportNote]:
    """Notes on the pods no class counts: without a GPU, finished, being deleted, in another
    phase."""

    def note(column: str, count: int, text: str) -> ImportNote:
        return ImportNote(file, None, column, "", "", str(count), "read", text)

    notes: list[ImportNote] = []
    without_gpu, finished, deleted, unknown = _uncounted(pods)
    if without_gpu:
        asks = "requests" if len(without_gpu) == 1 else "request"
        notes.append(
            note(
                "",
                len(without_gpu),
                f"{counted(len(without_gpu), 'pod')} {asks} no GPU: listed in the pod table, "
                "not in the workload classes",
            )
        )
    if finished:
        have = "has" if len(finished) == 1 else "have"
        notes.append(
            note(
                "status.phase",
                len(finished),
                f"{counted(len(finished), 'GPU pod')} {have} finished (Succeeded or Failed) and "
                "hold no GPU: not counted",
            )
        )
    if deleted:
        named = ", ".join(f"{shown(p.namespace)}/{shown(p.name)}" for p in deleted[:5])
        more = f" and {len(deleted) - 5} more" if len(deleted) > 5 else ""
        are = "is" if len(deleted) == 1 else "are"
        notes.append(
            note(
                "metadata.deletionTimestamp",
                len(deleted),
                f"{counted(len(deleted), 'GPU pod')} {are} being deleted (Terminating: "
                f"{named}{more}): not counted, as the pods replacing them (a rollout's new ones) "
                "are; listed in the pod table",
            )
        )
    for phase in sorted({p.phase for p in unknown}):
        count = sum(p.phase == phase for p in unknown)
        why = (
            " (their node stopped reporting them, so whether they hold a GPU is not known)"
            if phase == "Unknown"
            else ""
        )
        notes.append(
            note(
                "status.phase",
                count,
                f"{counted(count, 'GPU pod')} in phase {shown(phase)}{why}: not counted; list "
                "the pods again once their node reports them",
            )
        )
    return notes


def _unique_names(classes: Sequence[_Class]) -> dict[tuple[str, ...], str]:
    """Class names: the owner's (or label value's) name, with its namespace when two clash."""
    counts: dict[str, int] = {}
    for entry in classes:
        counts[entry.name] = counts.get(entry.name, 0) + 1
    names: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for entry in classes:
        name = entry.name if counts[entry.name] == 1 else f"{entry.namespace}/{entry.name}"
        name = _class_name(name)
        base, suffix = name, 2
        while name in used:
            name, suffix = f"{base}-{suffix}", suffix + 1
        used.add(name)
        names[entry.key] = name
    return names


def _class_row(
    entry: _Class,
    name: str,
    file: str,
    catalog: Catalog,
    defaults: WorkloadDefaults,
    notes: list[ImportNote],
) -> dict[str, Any]:
    pods = entry.pods
    first = pods[0]
    pods_file = first.file

    def note(field: str, value: object, source: NoteSource, text: str, locator: str = "") -> None:
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        notes.append(ImportNote(pods_file, None, locator, name, field, shown, source, text))

    owner_kinds = [p.owner_kind for p in pods]
    owner_kind = max(set(owner_kinds), key=owner_kinds.count)
    trace = entry.key[0] == "trace"
    kind, why = (
        (WorkloadKind.TRAINING, f"{_TRACE_GIVES_NO} kind, so its pods are training work")
        if trace
        else workload_kind(owner_kind, entry.name)
    )
    note("kind", kind.value, "assumed", why if trace else f"kind from the owner and name: {why}")
    note("instances", len(pods), "read", "pods of the class that hold or wait for GPUs")
    requests = [_on_its_node(p, catalog, defaults) for p in pods if p.gpu is not None]
    gpus = max(r.gpus for r in requests)
    widest = next(r for r in requests if r.gpus == gpus)
    note(
        "gpus",
        gpus,
        widest.gpus_source,
        widest.gpus_text
        + ("" if len({r.gpus for r in requests}) == 1 else " (the largest of the class's pods)"),
        "spec.containers[].resources",
    )
    models = tuple(dict.fromkeys(m for p in pods for m in p.gpu_models))
    node_models = tuple(dict.fromkeys(m for p in pods for m in p.node_models))
    nodes_models = tuple(dict.fromkeys(m for p in pods for m in p.nodes_models))
    memory, memory_source, memory_text = (
        _trace_class_memory(gpus, models, nodes_models, catalog)
        if trace and nodes_models
        else _class_memory(requests, gpus, models, node_models, catalog, defaults)
    )
    note("memory_gib", memory, memory_source, memory_text)
    busy = 1.0 if trace else defaults.busy_fraction.get(kind, 0.5)
    note(
        "busy_fraction",
        busy,
        "assumed",
        f"{_TRACE_GIVES_NO} busy time: its pods are busy all day"
        if trace
        else f"a typical {kind.value} figure: DCGM exporter metrics replace it with the measured "
        "one",
    )
    share = gpus if trace and gpus < 1 else None
    if share is not None:
        note(
            "memory_share",
            share,
            "assumed",
            f"a share of a GPU ({_TRACE_MILLI}) is that share of its memory too, whatever the "
            "GPU it lands on, as the trace's CSV pod list reads gpu_milli",
        )
    long_running = owner_kind not in _BATCH_OWNERS
    hours = "24x7" if long_running else defaults.batch_hours
    note(
        "active_hours",
        hours,
        "assumed",
        "a long-running owner holds its GPUs all day"
        if long_running
        else "a Job runs part of the day: hours assumed (set them)",
    )
    note("days_per_week", 7, "assumed", "every day of the week")
    cpu = max(p.cpu_cores for p in pods)
    # The trace's MiB kept whole, as its CSV pod list keeps them (30517 MiB: 30.517578125 GiB).
    ram = max(p.ram_gib for p in pods) if trace else round(max(p.ram_gib for p in pods), 3)
    note(
        "vcpus",
        cpu,
        "read",
        "CPU request of a pod (the largest of the class)",
        "spec.containers[].resources.requests.cpu",
    )
    note(
        "ram_gib",
        ram,
        "derived",
        "memory request of a pod in GiB (the largest)",
        "spec.containers[].resources.requests.memory",
    )
    note(
        "live_migration",
        "no",
        "derived",
        "Kubernetes restarts a pod elsewhere: no class needs live migration there",
    )
    note("isolation", "no", "assumed", "no isolation need is recorded in Kubernetes (set it)")
    note("latency_tolerant", "no", "assumed", "not known: assumed not to tolerate remote GPUs")
    note("priority", 2, "assumed", "the planner's default priority")
    if models:
        note(
            "gpu_models",
            "|".join(models),
            "derived",
            f"the pods' annotation {_TRACE_MODELS} names the models they may use"
            if trace
            else "the pods' node selector or affinity names the GPU (nvidia.com/gpu.product, a "
            "cloud's accelerator label or a GPU instance type), or HAMi's annotation "
            "nvidia.com/use-gputype",
            f"metadata.annotations.{_TRACE_MODELS}" if trace else "spec.nodeSelector / affinity",
        )
    where = (
        f"{owner_kind} {entry.namespace}/{entry.name}"
        if entry.key[0] == "owner"
        else "pods of one shape of Alibaba's trace"
        if trace
        else (f"label value {entry.name}")
    )
    return {
        "name": name,
        "kind": kind.value,
        "instances": len(pods),
        "gpus": gpus,
        "memory_gib": memory,
        "busy_fraction": busy,
        "active_hours": hours,
        "days_per_week": 7,
        "vcpus": cpu,
        "ram_gib": ram,
        "live_migration": "no",
        "isolation": "no",
        "latency_tolerant": "no",
        "priority": 2,
        "gpu_models": "|".join(models),
        "max_slowdown": "",
        "memory_share": "" if share is None else share,
        "notes": f"{file}: {where} ({counted(len(pods), 'pod')})",
    }


def _on_its_node(pod: PodRequest, catalog: Catalog, defaults: WorkloadDefaults) -> GpuRequest:
    """A pod's GPU request with a figure worked out of an assumed GPU (``assumed_gpu``) taken of
    the GPU its node carries (``node_models``, the smallest) instead, where no selector names
    one: memory asked over that GPU's memory, or a share of it."""
    gpu = pod.gpu
    assert gpu is not None  # only pods asking GPUs are classed
    on_node = _smallest_gpu(pod.node_models, catalog)
    if on_node is None or pod.gpu_models or not gpu.assumed_gpu:
        return gpu
    model, model_gib = on_node
    assumed = defaults.gpu_memory_gib
    was, now = (
        f"an assumed {assumed:g} GiB GPU",
        f"the {model}'s {model_gib:g} GiB its node carries",
    )
    if gpu.assumed_gpu == "gpus" and gpu.memory_gib is not None:
        gpus = min(1.0, gpu.memory_gib / model_gib)
        return replace(
            gpu, gpus=gpus, gpus_source="derived", gpus_text=gpu.gpus_text.replace(was, now)
        )
    if gpu.assumed_gpu == "memory" and gpu.memory_gib is not None:
        return replace(
            gpu,
            memory_gib=gpu.memory_gib * model_gib / assumed,
            memory_source="derived",
            memory_text=gpu.memory_text.replace(was, now),
        )
    return gpu


def _trace_class_memory(
    gpus: float, models: Sequence[str], nodes_models: Sequence[str], catalog: Catalog
) -> tuple[float, NoteSource, str]:
    """GPU memory per instance [GiB] of a class of Alibaba's trace planned on nodes of
    ``nodes_models``: ``gpus`` × the memory of the smallest of them the pods may use (``models``,
    all when none), as the trace's CSV pod list takes it, so every GPU it may land on holds it."""
    allowed = [m for m in nodes_models if not models or m in models] or list(nodes_models)
    smallest = min(allowed, key=lambda m: catalog.gpus[m].memory_gib)
    gpu_memory = catalog.gpus[smallest].memory_gib
    return (
        round(gpus * gpu_memory, 3),
        "derived",
        f"{gpus:g} GPU × {gpu_memory:g} GiB of the {smallest}, the smallest GPU the pods may use "
        f"among the nodes' ({', '.join(nodes_models)}), as the trace's CSV pod list takes it",
    )


def _class_memory(
    requests: Sequence[GpuRequest],
    gpus: float,
    models: Sequence[str],
    node_models: Sequence[str],
    catalog: Catalog,
    defaults: WorkloadDefaults,
) -> tuple[float, NoteSource, str]:
    """GPU memory per instance [GiB]: the request's own figure when it has one, else the GPU
    share × the selected model's memory, else × the memory of the model the pods' nodes carry
    (``node_models``), else × ``defaults.gpu_memory_gib``; the smallest of several models'."""
    known = [r for r in requests if r.memory_gib is not None]
    if known and len(known) == len(requests):
        widest = max(known, key=lambda r: r.memory_gib or 0.0)
        if widest.memory_gib:
            return round(widest.memory_gib, 3), widest.memory_source, widest.memory_text
    if models:
        gpu_memory = min(catalog.gpus[m].memory_gib for m in models)
        return (
            round(gpus * gpu_memory, 3),
            "derived",
            f"{gpus:g} GPU × {gpu_memory:g} GiB of the selected {models[0]}",
        )
    on_nodes = _smallest_gpu(node_models, catalog)
    if on_nodes is not None:
        return (
            round(gpus * on_nodes[1], 3),
            "derived",
            f"{gpus:g} GPU × {on_nodes[1]:g} GiB of the {on_nodes[0]} the pods run on (their "
            "nodes' labels, in the kubectl get nodes file given)",
        )
    return (
        round(gpus * defaults.gpu_memory_gib, 3),
        "assumed",
        f"{gpus:g} GPU × an assumed {defaults.gpu_memory_gib:g} GiB (no GPU model named): DCGM "
        "metrics give the memory used",
    )
