"""Alibaba's GPU-sharing trace in its Kubernetes YAML forms, as its simulator writes them
(``pod_csv_to_yaml.py``, ``node_yaml/``), for the tests of the kubectl importers."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["gpu_ask", "trace_node", "trace_pod", "yaml_stream"]


def trace_pod(name: str, cpu_milli: int, memory_mib: int, annotations: Mapping[str, str]) -> str:
    """One pod as ``pod_csv_to_yaml.py`` writes it (``yaml.dump``: keys sorted)."""
    shown = "".join(f"    {key}: {value}\n" for key, value in sorted(annotations.items()))
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n"
        + (f"  annotations:\n{shown}" if annotations else "")
        + f"  name: {name}\n  namespace: paib-gpu\nspec:\n  containers:\n"
        "  - image: tensorflow:latest\n    imagePullPolicy: Always\n    name: main\n"
        "    resources:\n"
        f"      limits:\n        cpu: {cpu_milli}m\n        memory: {memory_mib}Mi\n"
        f"      requests:\n        cpu: {cpu_milli}m\n        memory: {memory_mib}Mi\n"
        "  dnsPolicy: Default\n  restartPolicy: OnFailure\n"
    )


def gpu_ask(milli: int | str, count: int | str, models: str = "") -> dict[str, str]:
    """The GPU annotations of one pod, as the trace writes them (quoted numbers)."""
    asked = {"alibabacloud.com/gpu-milli": f"'{milli}'", "alibabacloud.com/gpu-count": f"'{count}'"}
    if models:
        asked["alibabacloud.com/gpu-card-model"] = models
    return asked


def trace_node(
    name: str, model: str, gpus: int, cpu_milli: int = 64000, memory_mib: int = 262144
) -> str:
    """One node as the trace's node YAML writes it."""
    resources = (
        f"    alibabacloud.com/gpu-count: '{gpus}'\n"
        f"    alibabacloud.com/gpu-milli: '{gpus * 1000}'\n"
        f"    cpu: {cpu_milli}m\n    memory: {memory_mib}Mi\n    pods: '1001'\n"
    )
    return (
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels:\n"
        f"    alibabacloud.com/gpu-card-model: {model}\n"
        "    beta.kubernetes.io/os: linux\n"
        f"    kubernetes.io/hostname: {name}\n    kubernetes.io/os: linux\n"
        f"  name: {name}\nstatus:\n  allocatable:\n{resources}  capacity:\n{resources}"
    )


def yaml_stream(*documents: str) -> bytes:
    """Documents as one YAML stream, as the trace's files separate them."""
    return "\n---\n\n".join(documents).encode()
