"""MIG as ``nvidia-smi mig -lgi`` (GPU instances in place) and ``-lgip`` (profiles offered) show it.

``-lgi`` gives each GPU instance's profile and placement (``start:size`` in memory slices): the
layout in place. ``-lgip`` lists the profiles each MIG-enabled GPU offers with ``Free/Total``
counts and memory [GiB]; profile ids differ between GPU models, so profiles are keyed on their
names. Neither names the GPU model: when the file also holds ``nvidia-smi -L``'s line of a GPU
listed (``GPU 0: NVIDIA H20 (UUID: ...)``), the model is that name's; else it is the catalog model
whose MIG profiles include every profile listed, when exactly one has them. ``-lgip`` also lists
each profile's SMs, which rule out a model whose SM counts the catalog gives (``sms`` and
``mig_full_sms`` of gpus.csv) and do not fit them (the H20 and the GH200 offer the same profile
names; the H20 has 78 SMs, the GH200 132). When several
models remain (the SXM and PCIe parts of one GPU offer the same profiles and SMs) none is guessed:
the host records them (``OpenModel``) for the estate to name when no other file gives the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from planner.inputs.catalog import Catalog
from planner.inputs.importers.gpu_names import OWN_GPU_FIX, match_gpu_name
from planner.inputs.importers.hosts import (
    Fact,
    HostFacts,
    HostsRead,
    MigGpu,
    MigInstance,
    OpenModel,
    fact,
)
from planner.inputs.importers.nvidia_smi import GPU_LINE
from planner.inputs.importers.provenance import ImportNote, NoteSource
from planner.inputs.importers.text import COUNT, ToolText, name_host, tool_text
from planner.inputs.problems import InputError, InputProblem, first_problems
from planner.inputs.tabular import quoted

__all__ = [
    "INSTANCES_TOOL",
    "PROFILES_TOOL",
    "GpuInstance",
    "OfferedProfile",
    "gpu_instances",
    "offered_profiles",
    "read_mig_instances",
    "read_mig_profiles",
]

INSTANCES_TOOL = "nvidia-smi mig -lgi"
PROFILES_TOOL = "nvidia-smi mig -lgip"

_INSTANCE_ROW = re.compile(
    rf"^(?P<gpu>{COUNT})\s+(?:MIG\s+)?(?P<profile>\d+g\.\d+gb\S*)\s+(?P<profile_id>{COUNT})\s+"
    rf"(?P<instance_id>{COUNT})\s+(?P<start>{COUNT}):(?P<size>{COUNT})$"
)
_PROFILE_ROW = re.compile(
    rf"^(?P<gpu>{COUNT})\s+(?:MIG\s+)?(?P<profile>\d+g\.\d+gb\S*)\s+(?P<profile_id>{COUNT})\s+"
    rf"(?P<free>{COUNT})/(?P<total>{COUNT})\s+(?P<memory>\d+(?:\.\d+)?)\s+\S+\s+(?P<sms>{COUNT})\b"
)
"""A row of ``-lgi`` and of ``-lgip``: its counts and ids are ``COUNT``'s (digits 0-9), or the
row is not read and is a problem."""


@dataclass(frozen=True)
class _NamedGpu:
    """A GPU the file names on an ``nvidia-smi -L`` line, and its catalog model."""

    gpu: int
    written: str
    model: str
    source: NoteSource
    line: int


def _named_gpus(text: ToolText, gpus: set[int], catalog: Catalog) -> list[_NamedGpu]:
    """The GPUs of ``gpus`` that an ``nvidia-smi -L`` line of the file names as a catalog
    model."""
    named = []
    for number, line in text.lines:
        # An nvidia-smi -L line given in the same file as the MIG table.
        match = GPU_LINE.match(line.strip())
        if match is None or not match.group("uuid") or int(match.group("index")) not in gpus:
            continue
        found = match_gpu_name(match.group("name"), catalog)
        if found.model is not None:
            index = int(match.group("index"))
            named.append(_NamedGpu(index, found.written, found.model, found.source, number))
    return named


@dataclass(frozen=True)
class GpuInstance:
    """One row of ``nvidia-smi mig -lgi``."""

    gpu: int
    profile: str
    """Profile name without ``MIG``: ``1g.6gb``."""
    profile_id: int
    instance_id: int
    start: int
    """First memory slice [slices]."""
    size: int
    """Width in memory slices [slices]."""
    line: int


@dataclass(frozen=True)
class OfferedProfile:
    """One profile of one GPU in ``nvidia-smi mig -lgip``."""

    gpu: int
    profile: str
    """Profile name without ``MIG``: ``1g.12gb+me`` keeps its ``+me``."""
    profile_id: int
    free: int
    total: int
    memory_gib: float
    """Memory of one instance [GiB]."""
    sms: int
    """Streaming multiprocessors of one instance."""
    line: int


def _rows(text: ToolText, title: str) -> list[tuple[int, str]]:
    """The data rows (cell text, with line numbers) of the table whose title cell is ``title``."""
    rows: list[tuple[int, str]] = []
    inside = False
    header_done = False
    for number, line in text.lines:
        cell = line.strip().strip("|").strip()
        if cell.startswith(title):
            inside, header_done = True, False
            continue
        if not inside:
            continue
        if "===" in line:
            header_done = True
            continue
        if header_done and line.strip().startswith("|"):
            rows.append((number, cell))
    return rows


def gpu_instances(text: ToolText) -> tuple[list[GpuInstance], list[InputProblem]]:
    """The rows of ``nvidia-smi mig -lgi``, and a problem per row that is not one."""
    found: list[GpuInstance] = []
    problems: list[InputProblem] = []
    for number, cell in _rows(text, "GPU instances:"):
        match = _INSTANCE_ROW.match(cell)
        if match is None:
            if cell and not cell.startswith("No "):
                problems.append(
                    InputProblem(
                        text.file,
                        number,
                        None,
                        f"{quoted(cell)} is not a GPU instance row: ignored",
                        "give the output of nvidia-smi mig -lgi unchanged",
                    )
                )
            continue
        found.append(
            GpuInstance(
                int(match.group("gpu")),
                match.group("profile"),
                int(match.group("profile_id")),
                int(match.group("instance_id")),
                int(match.group("start")),
                int(match.group("size")),
                number,
            )
        )
    return found, problems


def offered_profiles(text: ToolText) -> tuple[list[OfferedProfile], list[InputProblem]]:
    """The profile rows of ``nvidia-smi mig -lgip`` (the second line of each profile, with
    CE/JPEG/OFA counts, is not a row), and a problem per row that is not one."""
    found: list[OfferedProfile] = []
    problems: list[InputProblem] = []
    for number, cell in _rows(text, "GPU instance profiles:"):
        match = _PROFILE_ROW.match(cell)
        if match is None:
            if cell and not re.fullmatch(r"[\d\s]+", cell):
                problems.append(
                    InputProblem(
                        text.file,
                        number,
                        None,
                        f"{quoted(cell)} is not a GPU instance profile row: ignored",
                        "give the output of nvidia-smi mig -lgip unchanged",
                    )
                )
            continue
        found.append(
            OfferedProfile(
                int(match.group("gpu")),
                match.group("profile"),
                int(match.group("profile_id")),
                int(match.group("free")),
                int(match.group("total")),
                float(match.group("memory")),
                int(match.group("sms")),
                number,
            )
        )
    return found, problems


def _models_with(profiles: Sequence[str], catalog: Catalog) -> list[str]:
    """Catalog models whose MIG profiles include every name (``+me`` variants count as their
    base profile)."""
    wanted = {p.split("+")[0] for p in profiles}
    return [
        model for model in catalog.gpus if wanted and wanted <= {p.name for p in catalog.mig(model)}
    ]


def _sms_misfit(model: str, offered: Sequence[OfferedProfile], catalog: Catalog) -> str | None:
    """Why the SMs ``-lgip`` lists rule the model out; None when they fit it or the catalog does
    not give its SMs (``sms``, ``mig_full_sms``)."""
    gpu = catalog.gpus[model]
    if gpu.sms is not None:
        for p in offered:
            if p.sms > gpu.sms:
                return f"{p.profile} has {p.sms} SMs, more than a whole {model}'s {gpu.sms}"
    every_slice = f"{gpu.mig_compute_slices}g."
    if gpu.mig_full_sms is not None:
        for p in offered:
            if p.profile.startswith(every_slice) and p.sms != gpu.mig_full_sms:
                return f"{p.profile} has {p.sms} SMs, where a {model}'s has {gpu.mig_full_sms}"
    return None


def _model_fact(
    profiles: Sequence[str],
    catalog: Catalog,
    add: _Adder,
    line: int,
    problems: list[InputProblem],
    file: str,
    memory_note: str,
    offered: Sequence[OfferedProfile] = (),
    named: Sequence[_NamedGpu] = (),
) -> OpenModel | None:
    """Add the GPU model the file's ``nvidia-smi -L`` lines name, when they name one; else the
    model the profiles (and the SMs ``offered`` lists) fit when one catalog model does; the
    models when several do (none is guessed); a problem when none does."""
    models = _models_with(profiles, catalog)
    misfits = {m: why for m in models if (why := _sms_misfit(m, offered, catalog)) is not None}
    fitting = [m for m in models if m not in misfits]
    names = ", ".join(dict.fromkeys(profiles))
    fix = (
        f"{OWN_GPU_FIX}; it offers these MIG profiles only through profiles_like, "
        "naming a catalog model of the same memory"
    )
    if len({n.model for n in named}) == 1:
        first = named[0]
        add(
            "gpu_model",
            first.model,
            first.line,
            "GPU name",
            first.source,
            f"nvidia-smi -L in the file names GPU {first.gpu} {quoted(first.written)}",
        )
        if first.model not in fitting:
            offered_by = ", ".join(fitting) if fitting else "no catalog model"
            problems.append(
                InputProblem(
                    file,
                    first.line,
                    "Name",
                    f"GPU {first.gpu} is named {quoted(first.written)} ({first.model}), but "
                    f"MIG profiles {names}{memory_note} are offered by {offered_by}, not by "
                    f"{first.model}"
                    + (f": {misfits[first.model]}" if first.model in misfits else "")
                    + f"; {first.model} is kept",
                    "check that the nvidia-smi -L and nvidia-smi mig outputs are of one host; if "
                    f"they are, this GPU's MIG profiles are not the catalog's {first.model}'s: "
                    f"{fix}",
                )
            )
        return None
    if len(fitting) == 1:
        ruled_out = f" with these SMs ({'; '.join(misfits.values())})" if misfits else ""
        add(
            "gpu_model",
            fitting[0],
            line,
            "profile names",
            "derived",
            f"only {fitting[0]} offers MIG profiles {names}{ruled_out}",
        )
    elif fitting:
        return OpenModel(tuple(fitting), line, "Name", f"MIG profiles {names}{memory_note}")
    elif models:
        problems.append(
            InputProblem(
                file,
                line,
                "Name",
                f"MIG profiles {names}{memory_note} are offered by {', '.join(models)}, but "
                f"not with these SMs ({'; '.join(misfits.values())}): no catalog GPU model fits",
                fix,
            )
        )
    else:
        problems.append(
            InputProblem(
                file,
                line,
                "Name",
                f"MIG profiles {names}{memory_note} match no catalog GPU model",
                fix,
            )
        )
    return None


class _Adder:
    """Collects the facts of one host."""

    def __init__(self, host: str, file: str) -> None:
        self.host = host
        self.file = file
        self.facts: list[Fact] = []

    def __call__(
        self,
        field: str,
        value: str | int | float,
        line: int,
        locator: str,
        source: NoteSource,
        text: str,
    ) -> None:
        self.facts.append(
            fact(
                field,
                value,
                file=self.file,
                line=line,
                locator=locator,
                host=self.host,
                source=source,
                text=text,
            )
        )


def read_mig_instances(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """A host's MIG layout from ``nvidia-smi mig -lgi``: per GPU, each instance's profile and
    start slice. MIG mode is on (instances exist); the GPU count is at least the highest GPU
    index listed plus one (GPUs without instances are not listed), so it is marked assumed."""
    text = tool_text(data, file)
    instances, problems = gpu_instances(text)
    if not instances:
        raise InputError(
            [
                *first_problems(problems, 5),
                InputProblem(
                    file,
                    None,
                    None,
                    "no GPU instance row",
                    "give the output of nvidia-smi mig -lgi (with GPU instances)",
                ),
            ]
        )
    host, source, reason = name_host(text, host_name)
    add = _Adder(host, file)
    first = instances[0].line
    add("mig_enabled", "yes", first, "GPU instances", "derived", "GPU instances are in place")
    add(
        "gpus_per_host",
        max(i.gpu for i in instances) + 1,
        first,
        "GPU",
        "assumed",
        "GPUs up to the highest index with MIG instances (GPUs without any are not listed)",
    )
    named = _named_gpus(text, {i.gpu for i in instances}, catalog)
    open_model = _model_fact(
        [i.profile for i in instances], catalog, add, first, problems, file, "", named=named
    )
    layout = []
    for gpu in sorted({i.gpu for i in instances}):
        on_gpu = sorted((i for i in instances if i.gpu == gpu), key=lambda i: i.start)
        layout.append(
            MigGpu(host, gpu, tuple(MigInstance(i.profile, i.start) for i in on_gpu), file)
        )
    name_note = ImportNote(file, first, "", host, "host", host, source, reason)
    hosts = (
        HostFacts(
            host, file, first, tuple(add.facts), tuple(layout), name_note, open_model=open_model
        ),
    )
    return HostsRead(file, INSTANCES_TOOL, hosts, (), tuple(problems))


def read_mig_profiles(
    data: bytes, file: str, catalog: Catalog, *, host_name: str | None = None
) -> HostsRead:
    """What ``nvidia-smi mig -lgip`` tells of a host: its MIG-enabled GPUs (it lists profiles
    only for GPUs in MIG mode) and their model, from the profile names and their SMs. The
    profiles offered, with free and total counts, are returned as notes."""
    text = tool_text(data, file)
    profiles, problems = offered_profiles(text)
    if not profiles:
        raise InputError(
            [
                *first_problems(problems, 5),
                InputProblem(
                    file,
                    None,
                    None,
                    "no GPU instance profile row",
                    "give the output of nvidia-smi mig -lgip",
                ),
            ]
        )
    host, source, reason = name_host(text, host_name)
    add = _Adder(host, file)
    first = profiles[0].line
    gpus = sorted({p.gpu for p in profiles})
    add(
        "mig_enabled",
        "yes",
        first,
        "GPU",
        "derived",
        "nvidia-smi mig -lgip lists profiles only for GPUs in MIG mode",
    )
    add(
        "gpus_per_host",
        len(gpus),
        first,
        "GPU",
        "assumed",
        "the GPUs listed with MIG profiles (GPUs with MIG off are not listed)",
    )
    largest = max(profiles, key=lambda p: p.memory_gib)
    open_model = _model_fact(
        [p.profile for p in profiles],
        catalog,
        add,
        first,
        problems,
        file,
        f" ({largest.profile} has {largest.memory_gib:g} GiB)",
        profiles,
        _named_gpus(text, set(gpus), catalog),
    )
    notes = tuple(
        ImportNote(
            file,
            p.line,
            "Instances Free/Total",
            host,
            "",
            p.profile,
            "read",
            f"GPU {p.gpu} offers {p.profile}: {p.free} of {p.total} free, "
            f"{p.memory_gib:g} GiB, {p.sms} SMs",
        )
        for p in profiles
    )
    name_note = ImportNote(file, first, "", host, "host", host, source, reason)
    hosts = (HostFacts(host, file, first, tuple(add.facts), (), name_note, open_model=open_model),)
    return HostsRead(file, PROFILES_TOOL, hosts, notes, tuple(problems))
