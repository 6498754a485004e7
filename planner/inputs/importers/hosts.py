"""What one imported file says about GPU hosts: facts per host, each with its provenance."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.inputs.importers.provenance import ImportNote, NoteSource
from planner.inputs.problems import InputProblem

__all__ = [
    "HOST_FIELDS",
    "Fact",
    "HostFacts",
    "HostsRead",
    "MigGpu",
    "MigInstance",
    "OpenModel",
    "UnusedCell",
    "fact",
]

HOST_FIELDS = (
    "cluster",
    "gpu_model",
    "gpus_per_host",
    "cpu_cores",
    "ram_gib",
    "network_gbps",
    "rdma",
    "mig_enabled",
    "platform",
)
"""Inventory columns an importer may fill for a host (``host`` names it)."""


@dataclass(frozen=True)
class Fact:
    """One inventory cell for one host, as the inventory CSV would hold it, and how it was got."""

    field: str
    """One of ``HOST_FIELDS``."""
    value: str | int | float
    """As the CSV cell holds it: yes/no text for ``rdma`` and ``mig_enabled``, the platform's
    value, a catalog model name (or the tool's name when no model fits), numbers in the column's
    unit."""
    note: ImportNote

    @property
    def source(self) -> NoteSource:
        return self.note.source


def fact(
    field: str,
    value: str | int | float,
    *,
    file: str,
    line: int | None,
    locator: str,
    host: str,
    source: NoteSource,
    text: str,
) -> Fact:
    """A ``Fact`` with its note (the note's value is the fact's value as text)."""
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return Fact(field, value, ImportNote(file, line, locator, host, field, shown, source, text))


@dataclass(frozen=True)
class MigInstance:
    """One MIG GPU instance in place on a GPU."""

    profile: str
    """Profile name without ``MIG``: ``1g.10gb``, ``1g.10gb+me``."""
    start: int | None
    """Memory slice it starts at (``nvidia-smi mig -lgi`` placement); None when the output does
    not say (``nvidia-smi -L``, the plain table, Kubernetes labels)."""


@dataclass(frozen=True)
class MigGpu:
    """The MIG instances in place on one GPU of a host (or on a host, when the source counts per
    host), as one file shows them."""

    host: str
    gpu_index: int | None
    """GPU index as ``nvidia-smi`` numbers them; None when the source counts per host only
    (Kubernetes' mixed strategy)."""
    instances: tuple[MigInstance, ...]
    file: str


@dataclass(frozen=True)
class UnusedCell:
    """A cell that holds one of a host's values but could not be used (unreadable, empty, or a
    figure no host has): the import assumes the value instead, and its note names the cell."""

    field: str
    """One of ``HOST_FIELDS``."""
    file: str
    line: int | None
    """Row of the cell (header = row 1)."""
    locator: str
    """The cell's column as written."""
    said: str
    """Where the cell is and what is wrong with it, as the assumed value's note says it:
    ``row 5, # Memory: the memory cell holds the error value #DIV/0! (a formula that
    failed)``."""


@dataclass(frozen=True)
class OpenModel:
    """A host's GPU model that a file narrows to several catalog models without saying which
    (MIG profiles several models offer): none is guessed, and a host no other file gives the
    model of is left out naming them."""

    models: tuple[str, ...]
    """The catalog models that fit, in catalog order (two or more)."""
    line: int | None
    """Line of the file that shows what fits them."""
    locator: str
    """The column of that line, as the tool heads it."""
    shows: str
    """What the file shows that these models fit: ``MIG profiles 3g.20gb``."""


@dataclass(frozen=True)
class HostFacts:
    """What one file says about one host."""

    name: str
    """Host name as the file gives it."""
    file: str
    line: int | None
    """Where the host starts in the file (line or spreadsheet row); None when unknown."""
    facts: tuple[Fact, ...]
    mig_layout: tuple[MigGpu, ...] = ()
    name_note: ImportNote | None = None
    """How the host's name is known, when the file does not simply state it (a file name, a
    shell prompt, the name given)."""
    unused: tuple[UnusedCell, ...] = ()
    """Cells of the host's values that could not be used, each value assumed instead."""
    open_model: OpenModel | None = None
    """The catalog models the file narrows the GPU model to, when it gives no model for fitting
    several."""

    def get(self, name: str) -> Fact | None:
        """The fact for inventory column ``name``, if the file gives one."""
        return next((f for f in self.facts if f.field == name), None)


@dataclass(frozen=True)
class HostsRead:
    """Everything an inventory importer got from one file."""

    file: str
    tool: str
    """What produced the file, as a user would say it (``kubectl get nodes -o json``)."""
    hosts: tuple[HostFacts, ...]
    notes: tuple[ImportNote, ...] = ()
    """Notes about the file or rows left out, not about one host's values."""
    problems: tuple[InputProblem, ...] = field(default=())
    """What could not be used, each with where it is and the fix."""
