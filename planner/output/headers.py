"""Column headers for people: the planner's column code names as words with their unit.

Frames keep their code names (``gpus_used``) for CSV and API users; the workbook writes
``header(name)`` (``GPUs used [GPUs]``) above each column. A sheet whose column means something
narrower passes its own words in ``overrides``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from planner.output.figures import KEY_FIGURES

__all__ = ["HEADERS", "header", "headers"]

_OWN: dict[str, str] = {
    # Who and where
    "method": "Method",
    "label": "Plan",
    "instance": "Instance",
    "workload": "Workload",
    "host": "Host",
    "name": "Name",
    "cluster": "Cluster",
    "kind": "Kind",
    "platform": "Platform",
    "gpu_index": "GPU index",
    "gpu_model": "GPU model",
    "gpu_models": "GPU models allowed",
    "role": "Set up by",
    "gpu_config": "GPU configuration",
    "profile": "Profile",
    "start_slice": "First MIG slice",
    "status": "Solver status",
    "step": "Time of week",
    # Words
    "note": "Note",
    "notes": "Notes",
    "reason": "Reason",
    "column": "Column",
    "meaning": "Meaning",
    "figure": "Figure",
    "value": "Value",
    "unit": "Unit",
    "definition": "Definition",
    "file": "File",
    "row": "Row",
    "problem": "Problem",
    "fix": "How to fix it",
    "source": "Source",
    "assumption": "Assumption",
    "constant": "Constant",
    "default": "Default value",
    "is_default": "Default?",
    "is_overridden": "Changed by you?",
    "is_guess": "A guess?",
    "decided_by": "Decided by",
    "alternatives": "Other methods",
    # Counts and sizes
    "gpus": "GPUs",
    "gpus_available": "GPUs available [GPUs]",
    "instances": "Instances",
    "instances_placed": "Instances served [instances]",
    "served": "Instances served per method",
    "not_served": "Instances not served [instances]",
    "violations": "Rules broken [count]",
    "solve_seconds": "Solve time [s]",
    "cpu_cores": "CPU cores",
    "vcpus": "vCPUs per instance",
    "ram_gib": "RAM [GiB]",
    "network_gbps": "Network [Gbit/s]",
    "rdma": "RDMA",
    "mig_enabled": "MIG enabled",
    "memory_gib": "GPU memory [GiB]",
    "memory_reserved_gib": "GPU memory reserved [GiB]",
    "memory_used_gib": "GPU memory used [GiB]",
    "memory_share": "GPU memory share [%]",
    "compute_share": "Compute share [%]",
    "busy_fraction": "Busy [%]",
    "daily_schedule": "Share active by hour [0-1, 00:00 first]",
    "days_per_week": "Days active per week",
    "needs_live_migration": "Needs live migration",
    "needs_isolation": "Needs isolation",
    "latency_tolerant": "Tolerates network latency",
    "priority": "Priority [1 = first]",
    "max_slowdown": "Slowdown limit [x bare metal]",
    "slowdown": "Mean slowdown [x bare metal]",
    "worst_slowdown": "Worst slowdown [x bare metal]",
    "limit": "Slowdown limit [x bare metal]",
    # Money
    "hardware_usd_per_year": "Hardware [$/year]",
    "licences_usd_per_year": "Licences [$/year]",
    "power_usd_per_year": "Power [$/year]",
    "network_usd_per_year": "Network [$/year]",
    "total_usd_per_year": "Total [$/year]",
    # Harvesting, per step
    "vdi_demand_gpus": "VDI demand [GPUs]",
    "vdi_gpus": "GPUs serving desktops [GPUs]",
    "ml_gpus": "GPUs running ML [GPUs]",
    "idle_gpus": "Idle GPUs [GPUs]",
    "harvested_gpu_hours": "Harvested [GPU-hours]",
    "lost_gpu_hours": "Lost to restarts [GPU-hours]",
    "backlog_gpu_hours": "ML backlog [GPU-hours]",
    "interruptions": "Interruptions [stops]",
    "utilisation_before": "Utilisation before harvesting [%]",
    "utilisation_after": "Utilisation after harvesting [%]",
}

HEADERS: Mapping[str, str] = MappingProxyType(
    {**_OWN, **{name: figure.header for name, figure in KEY_FIGURES.items()}}
)
"""Header of every column the planner writes, by code name; key figures use ``KEY_FIGURES``."""

_WORDS = {
    "gpu": "GPU",
    "gpus": "GPUs",
    "cpu": "CPU",
    "ram": "RAM",
    "vdi": "VDI",
    "ml": "ML",
    "mig": "MIG",
    "rdma": "RDMA",
    "vgpu": "vGPU",
    "usd": "$",
}
_UNITS = (
    ("_usd_per_year", "$/year"),
    ("_gpu_hours", "GPU-hours"),
    ("_seconds", "s"),
    ("_gib", "GiB"),
    ("_gbps", "Gbit/s"),
    ("_usd", "$"),
    ("_w", "W"),
)


def _spelled(name: str) -> str:
    """A code name no table declares, in words: ``spare_gib`` -> ``Spare [GiB]``."""
    unit = ""
    for suffix, symbol in _UNITS:
        if name.endswith(suffix) and name != suffix.lstrip("_"):
            name, unit = name.removesuffix(suffix), f" [{symbol}]"
            break
    words = [_WORDS.get(word, word) for word in name.split("_") if word]
    if not words:
        return name
    first = words[0]
    words[0] = first if first in _WORDS.values() else first.capitalize()
    return " ".join(words) + unit


def header(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """The header for a column named ``name``: ``overrides`` first, then ``HEADERS``, else the
    name spelled out in words."""
    if overrides and name in overrides:
        return overrides[name]
    return HEADERS.get(name) or _spelled(name)


def headers(names: Iterable[str], overrides: Mapping[str, str] | None = None) -> list[str]:
    """``header`` of each name, in order."""
    return [header(name, overrides) for name in names]
