"""Kubernetes nodes' GPUs from ``kubectl get resourceslices -o json`` (or ``-o yaml``) of
NVIDIA's DRA driver.

With Dynamic Resource Allocation (DRA, GA in Kubernetes 1.34) NVIDIA's DRA driver publishes a
node's GPUs as ResourceSlices of driver ``gpu.nvidia.com``, not as the ``nvidia.com/gpu``
extended resource, and GPU Feature Discovery may not run: the nodes then show no GPU.

Readings and their rules (NVIDIA/k8s-dra-driver-gpu, ``cmd/gpu-kubelet-plugin/deviceinfo.go``):

- Host: ``spec.nodeName`` (else ``spec.pool.name``); a node's slices are combined. Only the
  highest ``spec.pool.generation`` of a pool is read, as the scheduler does. CPU, memory and
  cluster are not in a slice: the node's ``kubectl get nodes -o json`` gives them, combined by
  name.
- Devices: ``type`` ``gpu`` is a whole GPU with MIG off; ``mig`` a MIG device of the GPU its
  ``parentUUID`` names, its ``profile`` (``1g.10gb``); ``vfio`` a GPU for passthrough, the same
  GPU as the ``gpu`` device of its ``pcieBusID``. The GPUs are the ``gpu`` devices, the MIG
  devices' parents and the ``vfio`` devices of no ``gpu`` device.
- GPU model: the ``productName`` attribute (``NVIDIA H100 80GB HBM3``), its size picked by the
  ``memory`` capacity of a ``gpu`` device [bytes, a Kubernetes quantity].
- A device that consumes a counter (``consumesCounters``: partitionable devices, a MIG layout
  the driver may create) is not in place, so it counts no GPU and no MIG device.
- Slices of other drivers (``compute-domain.nvidia.com``, another vendor's) are listed in one
  problem, not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.inputs.catalog import Catalog
from planner.inputs.importers.gpu_names import match_gpu_name
from planner.inputs.importers.hosts import Fact, HostFacts, HostsRead, MigGpu, MigInstance, fact
from planner.inputs.importers.kube import (
    as_mapping,
    as_text,
    kube_documents,
    kube_objects,
    quantity_gib,
)
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import quoted, shown
from planner.words import counted

__all__ = ["DRIVER", "KIND", "TOOL", "is_resource_slices", "read_resource_slices"]

KIND = "ResourceSlice"
DRIVER = "gpu.nvidia.com"
"""The driver name of NVIDIA's DRA driver's GPUs."""
TOOL = "kubectl get resourceslices -o json"
_TOOLS = {"JSON": TOOL, "YAML": "kubectl get resourceslices -o yaml"}
_MIB = 1024 * 1024
"""Bytes per MiB."""


def is_resource_slices(data: bytes, file: str) -> bool:
    """Whether the file is kubectl's output of ResourceSlices only (any driver's)."""
    try:
        objects = kube_objects(kube_documents(data, file).documents)
    except InputError:
        return False
    return bool(objects) and all(as_text(o.get("kind")) == KIND for o in objects)


@dataclass
class _Gpu:
    """One physical GPU of a node, as its devices show it."""

    product: str
    memory_mib: float | None = None
    """Its memory [MiB], from a ``gpu`` device; None when only its MIG devices are listed."""
    mig: list[str] = field(default_factory=list)
    """Profiles of its MIG devices in place."""


def read_resource_slices(data: bytes, file: str, catalog: Catalog) -> HostsRead:
    """The GPUs of each node of NVIDIA's DRA driver's ResourceSlices.

    Raises ``InputError`` when the file holds no ResourceSlice of ``gpu.nvidia.com``.
    """
    read = kube_documents(data, file)
    objects = [o for o in kube_objects(read.documents) if as_text(o.get("kind")) == KIND]
    problems: list[InputProblem] = []
    others = sorted({as_text(as_mapping(o.get("spec")).get("driver")) for o in objects} - {DRIVER})
    ours = [o for o in objects if as_text(as_mapping(o.get("spec")).get("driver")) == DRIVER]
    if not ours:
        raise InputError(
            [
                InputProblem(
                    file,
                    None,
                    "spec.driver",
                    "Kubernetes ResourceSlices (DRA) of "
                    + (", ".join(map(shown, others)) or "no driver")
                    + f", none of NVIDIA's DRA driver ({DRIVER}): no GPU is read",
                    f"give the ResourceSlices of {DRIVER} (kubectl get resourceslices -o json "
                    f"--field-selector spec.driver={DRIVER}), kubectl get nodes -o json with GPU "
                    "Feature Discovery's labels, or nvidia-smi of each node",
                )
            ]
        )
    if others:
        problems.append(
            InputProblem(
                file,
                None,
                "spec.driver",
                f"ResourceSlices of {', '.join(map(shown, others))} are not read: only NVIDIA's "
                f"GPUs ({DRIVER}) are",
                "give those nodes' GPUs in an inventory CSV if they are GPUs to plan on",
                row_kept=True,
            )
        )
    nodes: dict[str, dict[str, _Gpu]] = {}
    for item in _latest(ours):
        spec = as_mapping(item.get("spec"))
        node = as_text(spec.get("nodeName")) or as_text(as_mapping(spec.get("pool")).get("name"))
        if not node:
            continue
        gpus = nodes.setdefault(node, {})
        devices = spec.get("devices")
        _add_devices(gpus, devices if isinstance(devices, list) else [])
    hosts = [_host(node, gpus, file, catalog, problems) for node, gpus in nodes.items() if gpus]
    return HostsRead(file, _TOOLS[read.form], tuple(hosts), (), tuple(problems))


def _latest(slices: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The slices of each pool's highest generation: older ones are being replaced."""
    newest: dict[str, int] = {}
    for item in slices:
        pool = as_mapping(as_mapping(item.get("spec")).get("pool"))
        name, generation = as_text(pool.get("name")), _int(pool.get("generation"))
        newest[name] = max(newest.get(name, generation), generation)
    return [
        item
        for item in slices
        if _int(as_mapping(as_mapping(item.get("spec")).get("pool")).get("generation"))
        == newest[as_text(as_mapping(as_mapping(item.get("spec")).get("pool")).get("name"))]
    ]


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _attribute(device: Mapping[str, Any], name: str) -> str:
    """An attribute's value as text, whatever its type (``{"string": ...}``, ``{"int": 0}``)."""
    value = as_mapping(as_mapping(device.get("attributes")).get(name))
    return next((as_text(v) for v in value.values()), "")


def _memory_mib(device: Mapping[str, Any]) -> float | None:
    """The device's ``memory`` capacity [MiB]: ``{"value": "81559Mi"}`` (v1beta1 and later) or
    the quantity itself (v1alpha3)."""
    capacity = as_mapping(device.get("capacity")).get("memory")
    raw = as_mapping(capacity).get("value") if isinstance(capacity, dict) else capacity
    try:
        return quantity_gib(raw) * 1024
    except ValueError:
        return None


def _add_devices(gpus: dict[str, _Gpu], devices: list[Any]) -> None:
    """The node's GPUs its slice's devices show, by UUID (or PCI bus for passthrough)."""
    vfio: list[Mapping[str, Any]] = []
    for entry in devices:
        # resource.k8s.io/v1beta1 wraps a device's attributes in "basic".
        device = as_mapping(as_mapping(entry).get("basic")) or as_mapping(entry)
        if device.get("consumesCounters"):
            continue
        kind = _attribute(device, "type")
        product = _attribute(device, "productName")
        if kind == "gpu":
            key = _attribute(device, "uuid") or as_text(as_mapping(entry).get("name"))
            gpu = gpus.setdefault(key, _Gpu(product))
            gpu.memory_mib = _memory_mib(device)
            gpu.product = product or gpu.product
            bus = _attribute(device, "pcieBusID")
            if bus:
                gpus.setdefault(f"bus {bus.lower()}", gpu)
        elif kind == "mig":
            parent = _attribute(device, "parentUUID") or as_text(as_mapping(entry).get("name"))
            gpus.setdefault(parent, _Gpu(product)).mig.append(_attribute(device, "profile"))
        elif kind == "vfio":
            vfio.append(device)
    for device in vfio:
        bus = _attribute(device, "pcieBusID").lower()
        gpus.setdefault(f"bus {bus}", _Gpu(_attribute(device, "productName")))


def _host(
    node: str, gpus: Mapping[str, _Gpu], file: str, catalog: Catalog, problems: list[InputProblem]
) -> HostFacts:
    facts: list[Fact] = []
    located = f"spec.devices of node {node}"

    def add(name: str, value: str | int, source: Any, text: str) -> None:
        facts.append(
            fact(
                name,
                value,
                file=file,
                line=None,
                locator=located,
                host=node,
                source=source,
                text=text,
            )
        )

    # One GPU may be listed by its UUID and by its PCI bus: each counts once.
    physical = list({id(g): g for g in gpus.values()}.values())
    add("platform", Platform.KUBERNETES.value, "read", "a Kubernetes node with DRA")
    products = sorted({g.product for g in physical if g.product})
    sizes = [g.memory_mib for g in physical if g.memory_mib is not None]
    if len(products) > 1:
        problems.append(
            InputProblem(
                file,
                None,
                f"node {shown(node)}: productName",
                f"the node's GPUs are of {len(products)} models "
                f"({', '.join(map(quoted, products))}): the inventory holds one GPU model per "
                f"host, so {quoted(products[0])} is read",
                "give the node in an inventory CSV, one row per GPU model",
                row_kept=True,
            )
        )
    name = None
    if products:
        name = match_gpu_name(products[0], catalog, memory_mib=max(sizes) if sizes else None)
        add("gpu_model", name.model or products[0], name.source, name.reason)
        if name.model is None:
            problems.append(
                InputProblem(file, None, f"node {shown(node)}: productName", name.reason, name.fix)
            )
    add(
        "gpus_per_host",
        len(physical),
        "read",
        f"{counted(len(physical), 'GPU')} NVIDIA's DRA driver publishes for the node",
    )
    migs = [g for g in physical if g.mig]
    layout = tuple(
        MigGpu(node, None, tuple(MigInstance(p, None) for p in g.mig), file) for g in migs
    )
    if migs:
        add("mig_enabled", "yes", "derived", "MIG devices are published (type mig)")
        if len(migs) < len(physical):
            problems.append(
                InputProblem(
                    file,
                    None,
                    f"node {shown(node)}: spec.devices",
                    f"{counted(len(physical) - len(migs), 'GPU')} with MIG off beside "
                    f"{counted(len(migs), 'GPU')} with MIG devices; the inventory holds one MIG "
                    "mode per host, so all are planned as MIG-enabled",
                    "set the same MIG mode on every GPU of the node, or give the host in an "
                    "inventory CSV as two rows, one per MIG mode",
                    row_kept=True,
                )
            )
    elif name is not None and name.model is not None and catalog.gpus[name.model].mig_capable:
        add("mig_enabled", "no", "derived", "no MIG device is published (type gpu only)")
    return HostFacts(node, file, None, tuple(facts), layout)
