"""The workload mix: classes of identical instances (notebooks, training, inference, batch, VDI)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["HOURS_PER_DAY", "Instance", "WorkloadClass", "WorkloadKind"]

HOURS_PER_DAY = 24


class WorkloadKind(StrEnum):
    """What a workload does; sets its default schedule and overhead model."""

    TRAINING = "training"
    INFERENCE = "inference"
    NOTEBOOK = "notebook"
    BATCH = "batch"
    VDI = "vdi"


@dataclass(frozen=True)
class WorkloadClass:
    """A class of identical workload instances, one row of the workload CSV."""

    name: str
    kind: WorkloadKind
    instances: int
    """How many identical instances (VMs or pods) the class has."""
    gpus: float
    """GPUs per instance: a fraction of one GPU (0.25) or whole GPUs (1, 2, 8)."""
    memory_gib: float
    """GPU memory per instance [GiB] (total over all its GPUs)."""
    busy_fraction: float
    """Average share of its active time the instance keeps its GPU busy [0-1]."""
    daily_schedule: tuple[float, ...]
    """24 values, hour of day 0-23: share of the instances active in that hour [0-1]."""
    days_per_week: int
    """Days per week the schedule applies (1-7); other days the class is idle."""
    vcpus: float
    """vCPUs per instance [cores]."""
    ram_gib: float
    """Host RAM per instance [GiB]."""
    needs_live_migration: bool
    """The instance must be movable with vMotion (rules out passthrough)."""
    needs_isolation: bool
    """The instance needs hardware isolation (only passthrough and MIG give it)."""
    latency_tolerant: bool
    """The instance tolerates GPU access over the network (remote pool)."""
    priority: int = 2
    """1 = placed first; larger numbers are placed later when capacity is short."""
    gpu_models: tuple[str, ...] = ()
    """Catalog models the class may run on; empty means any."""

    @property
    def active_hours_per_day(self) -> float:
        """Instance-hours active per day per instance [h]."""
        return sum(self.daily_schedule)

    @property
    def peak_share(self) -> float:
        """Largest share of instances active in any hour [0-1]."""
        return max(self.daily_schedule)

    def instance_ids(self) -> list[str]:
        """Stable ids of the class's instances: ``name#1`` ... ``name#n``."""
        return [f"{self.name}#{i + 1}" for i in range(self.instances)]


@dataclass(frozen=True)
class Instance:
    """One VM or pod of a workload class."""

    id: str
    workload: WorkloadClass
