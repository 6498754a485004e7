"""What replacing the inputs in use with new ones would change: rows kept and skipped, GPUs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.inputs.inventory import Inventory
from planner.inputs.problems import InputProblem
from planner.inputs.workloads import WorkloadClass

__all__ = ["InputChange", "inventory_change", "workloads_change"]


@dataclass(frozen=True)
class InputChange:
    """The inputs in use against a candidate, in the figures a user checks before switching."""

    rows_before: int
    """Hosts (inventory) or workload classes in use."""
    rows_after: int
    """Hosts or classes the candidate would put in use."""
    skipped: tuple[InputProblem, ...]
    """Why rows of the candidate would not be used (file, row, column, fix)."""
    gpus_before: float
    """GPUs in use (inventory), or GPUs requested by the mix in use [GPUs]."""
    gpus_after: float
    """The same for the candidate [GPUs]."""

    @property
    def loses_something(self) -> bool:
        """True when switching would skip rows or leave fewer rows or GPUs than are in use:
        such a switch must be confirmed, never made silently."""
        return (
            bool(self.skipped)
            or self.rows_after < self.rows_before
            or self.gpus_after < self.gpus_before
        )


def inventory_change(
    before: Inventory, after: Inventory, skipped: Sequence[InputProblem]
) -> InputChange:
    """The change from the inventory in use to ``after`` (whose skipped rows are ``skipped``)."""
    return InputChange(
        len(before.hosts),
        len(after.hosts),
        tuple(skipped),
        float(before.gpu_count),
        float(after.gpu_count),
    )


def _gpus_requested(workloads: Sequence[WorkloadClass]) -> float:
    return sum(w.instances * w.gpus for w in workloads)


def workloads_change(
    before: Sequence[WorkloadClass],
    after: Sequence[WorkloadClass],
    skipped: Sequence[InputProblem],
) -> InputChange:
    """The change from the mix in use to ``after``; GPUs are those requested (instances × GPUs)."""
    return InputChange(
        len(before),
        len(after),
        tuple(skipped),
        _gpus_requested(before),
        _gpus_requested(after),
    )
