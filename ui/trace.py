"""Alibaba's GPU-sharing trace (its node and pod lists) as the dashboard's inputs.

A node list is an inventory and a pod list a workload mix; each is used as the file gives it and
read by ``planner.inputs.alibaba_trace``, the loader the command line uses. What the trace does
not give is said as import notes (``assumed``), the loader's own (``TraceCluster.notes``,
``TracePods.notes``, read as ``LoadedHosts.notes`` and ``LoadedMix.notes``), so the dashboard
says what the command line says.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.inputs import alibaba_trace
from planner.inputs.importers.detect import Role, trace_list_problem
from planner.inputs.problems import InputProblem
from planner.inputs.workloads import WorkloadClass
from ui import format as fmt
from ui.session import InputFile

__all__ = [
    "NODE_LIST",
    "OWN_GPUS_AT",
    "POD_LIST",
    "misplaced",
    "pods_without_nodes",
    "role_of",
    "without_gpu",
]

NODE_LIST = "Alibaba GPU-sharing trace node list"
"""The tool a node list is read as, in the import panel's words."""
POD_LIST = "Alibaba GPU-sharing trace pod list"
"""The tool a pod list is read as."""
OWN_GPUS_AT = "Inventory page: Add your own GPU models"
"""Where the dashboard takes the user's own GPU models (the Inventory page's section), as a node
list's notes name it."""


def role_of(file: InputFile) -> str | None:
    """``inventory`` for a trace node list, ``workloads`` for a pod list, else None."""
    if alibaba_trace.is_node_list(file.content):
        return "inventory"
    if alibaba_trace.is_pod_list(file.content):
        return "workloads"
    return None


def misplaced(role: Role, files: Sequence[InputFile]) -> tuple[InputProblem, ...]:
    """Why trace lists among ``files`` cannot be imported as ``role`` (the other page's list, or
    a list among other files); empty when they can."""
    found = (
        trace_list_problem(f.name, f.content, role, among_others=len(files) > 1) for f in files
    )
    return tuple(p for p in found if p is not None)


def pods_without_nodes(inventory: InputFile) -> str | None:
    """Why a pod list planned on ``inventory`` (not a trace node list) may not be planned as the
    trace ran; None when ``inventory`` is a node list."""
    if role_of(inventory) == "inventory":
        return None
    in_use = "the bundled sample" if inventory.is_sample else fmt.markdown_literal(inventory.name)
    return (
        "A trace pod list is planned on the trace's own nodes: upload its node list "
        "(openb_node_list_gpu_node.csv) on the Inventory page. With the inventory in use now, "
        f"{in_use}, a share's GPU memory comes from its GPUs and pods that may only use models "
        "it lacks (gpu_spec) are left out."
    )


def without_gpu(cpu_only: Sequence[WorkloadClass]) -> str:
    """``2 classes of pods without GPU (5 pods)``: what a pod list adds beyond the classes its
    GPU figures count."""
    pods = sum(w.instances for w in cpu_only)
    classes = fmt.counted(len(cpu_only), "class", "classes")
    return f"{classes} of pods without GPU ({fmt.counted(pods, 'pod')})"
