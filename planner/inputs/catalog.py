"""The GPU catalog: models, their vGPU C-series profiles and MIG profiles, each with its source."""

from __future__ import annotations

import csv
import difflib
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from planner.inputs.cell_units import GIB, WATTS
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.tabular import (
    CellError,
    Table,
    long_name,
    parse_bool,
    parse_cells,
    parse_float,
    parse_int,
    parse_text,
    quoted,
    read_csv_table,
    source_name,
    without_invisible,
)

__all__ = [
    "CATALOG_DIR",
    "Catalog",
    "GpuModel",
    "MigProfile",
    "UnknownGpuModel",
    "VgpuProfile",
    "invisible_fix",
    "load_catalog",
    "normalise_model_name",
    "own_gpus_template",
]

CATALOG_DIR = Path(__file__).resolve().parents[2] / "data" / "catalog"
"""The shipped catalog: ``data/catalog`` beside the ``planner`` package."""


@dataclass(frozen=True)
class GpuModel:
    """One GPU model as sold, with the figures the planner needs."""

    name: str
    """Catalog name, e.g. ``A100-80GB-PCIe``; inventories refer to it."""
    memory_gib: float
    """Frame buffer per GPU [GiB]."""
    tdp_w: float
    """Board power per GPU [W] (for A16, per GPU = board / 4)."""
    fp16_tflops: float
    """Dense FP16/BF16 tensor throughput [TFLOPS]."""
    price_usd: float
    """Purchase price per GPU [USD]; a street-price default unless the source says otherwise."""
    price_is_default: bool
    """True when ``price_usd`` is a guess the user should replace."""
    mig_capable: bool
    """The model supports Multi-Instance GPU."""
    vgpu_capable: bool
    """NVIDIA AI Enterprise C-series vGPU profiles exist for the model."""
    gpus_per_board: int
    """Physical GPUs on one board (A16: 4); licences are per GPU."""
    mig_memory_slices: int
    """MIG memory slices per GPU (8 on A100/H100/H200, 4 on A30, 0 without MIG)."""
    mig_compute_slices: int
    """MIG compute slices per GPU (7 on A100/H100/H200, 4 on A30, 0 without MIG)."""
    source: str
    """Where the figures come from."""
    notes: str = ""
    """Caveats: which figures are derived or need confirming."""
    sms: int | None = None
    """Streaming multiprocessors of the whole GPU; None when not known. Tells apart models that
    offer the same MIG profile names (``nvidia-smi mig -lgip`` lists each profile's SMs)."""
    mig_full_sms: int | None = None
    """SMs ``nvidia-smi mig -lgip`` lists for the profile of every compute slice (``7g`` on an
    8-slice GPU); None when not read. It may be fewer than ``sms``: MIG can leave SMs unused."""


@dataclass(frozen=True)
class VgpuProfile:
    """An NVIDIA C-series time-sliced vGPU profile on one GPU model."""

    gpu_model: str
    name: str
    """Profile name as NVIDIA prints it, e.g. ``A100-80-16C`` is given here as ``16C``."""
    memory_gib: float
    """Frame buffer of one vGPU [GiB]."""
    max_equal: int
    """Max vGPUs of this profile per GPU in equal-size mode."""
    max_mixed: int
    """Max vGPUs of this profile per GPU in mixed-size mode."""
    derived: bool
    """True when the maxima are derived, not read from NVIDIA's table."""
    source: str

    @property
    def is_full(self) -> bool:
        """A full-frame-buffer profile: one vGPU owns the whole GPU."""
        return self.max_equal == 1


@dataclass(frozen=True)
class MigProfile:
    """A MIG GPU-instance profile on one GPU model, with its valid placements."""

    gpu_model: str
    name: str
    """Profile name, e.g. ``3g.40gb``."""
    compute_slices: int
    """Compute slices the instance takes (the ``g`` in ``3g``)."""
    memory_gib: float
    """Memory of the instance [GiB]."""
    memory_slices: int
    """Width of the instance in memory slices (a 3g.40gb on an 8-slice GPU is 4 wide)."""
    starts: tuple[int, ...]
    """Memory slices at which the instance may start (NVIDIA's placement table)."""
    max_per_gpu: int
    """Max instances of this profile on one GPU."""
    source: str


@dataclass(frozen=True)
class Catalog:
    """All known GPU models with their vGPU and MIG profiles, looked up by model name."""

    gpus: Mapping[str, GpuModel]
    vgpu_profiles: Mapping[str, tuple[VgpuProfile, ...]]
    """Per model, ordered by memory ascending."""
    mig_profiles: Mapping[str, tuple[MigProfile, ...]]
    """Per model, ordered by (compute slices, memory) ascending."""

    def with_models(self, models: Sequence[GpuModel]) -> Catalog:
        """The catalog with ``models`` it lacks added (a model it has keeps its own figures)."""
        lacked = {m.name: m for m in models if self.resolve(m.name) is None}
        return replace(self, gpus={**self.gpus, **lacked}) if lacked else self

    def resolve(self, name: str) -> str | None:
        """The catalog name ``name`` refers to (exactly, or ignoring case, spaces, dashes)."""
        if name in self.gpus:
            return name
        wanted = normalise_model_name(name)
        matches = [known for known in self.gpus if normalise_model_name(known) == wanted]
        return matches[0] if len(matches) == 1 else None

    def gpu(self, name: str) -> GpuModel:
        """The model called ``name`` (exactly, or ignoring case, spaces and dashes).

        Raises ``UnknownGpuModel`` (a ``KeyError``) whose message lists the closest known names.
        """
        canonical = self.resolve(name)
        if canonical is None:
            # Suggest from what the user sees: a name with an invisible character matches its
            # catalog name only by similarity.
            raise UnknownGpuModel(name, self.closest_names(without_invisible(name)))
        return self.gpus[canonical]

    def closest_names(self, name: str, n: int = 3) -> list[str]:
        """Up to ``n`` known model names closest to ``name``, best first.

        Names are compared normalised (case, spaces, dashes ignored). A known name that contains
        the whole query (``a100 80gb`` is in ``A100-80GB-PCIe`` and ``A100-80GB-SXM``) ranks first;
        the rest rank by difflib similarity, and names below 0.5 similarity are left out.
        """
        wanted = normalise_model_name(name)
        scored = []
        for order, known in enumerate(self.gpus):
            candidate = normalise_model_name(known)
            contains = bool(wanted) and wanted in candidate
            ratio = difflib.SequenceMatcher(None, wanted, candidate).ratio()
            if contains or ratio >= 0.5:
                scored.append((not contains, -ratio, order, known))
        return [known for *_, known in sorted(scored)[:n]]

    def vgpu(self, model: str) -> tuple[VgpuProfile, ...]:
        """The model's C-series vGPU profiles, memory ascending (empty when it has none)."""
        return self.vgpu_profiles.get(self.resolve(model) or model, ())

    def mig(self, model: str) -> tuple[MigProfile, ...]:
        """The model's MIG profiles, (compute slices, memory) ascending (empty when none)."""
        return self.mig_profiles.get(self.resolve(model) or model, ())

    def mig_families(self) -> tuple[str, ...]:
        """The families of the MIG-capable models, in catalog order: each name up to its memory
        size (``H100-80GB-SXM`` is ``H100``, ``A30`` itself); a family that extends another
        (``RTX-PRO-6000-Blackwell-Max-Q``) is left to the shorter one (``RTX-PRO-6000``)."""
        families = dict.fromkeys(
            _family(name) for name, model in self.gpus.items() if model.mig_capable
        )
        return tuple(
            family
            for family in families
            if not any(family.startswith(f"{other}-") for other in families)
        )


class UnknownGpuModel(KeyError):  # noqa: N818 (a failed lookup by name, not an error kind)
    """A GPU model name that is not in the catalog; the message lists the closest known names.

    A ``KeyError`` (a lookup by name failed), so ``except KeyError`` catches it; loaders turn
    it into an ``InputProblem`` naming the file, row and column.
    """

    def __init__(self, name: str, suggestions: Sequence[str]) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        super().__init__(name)

    @property
    def message(self) -> str:
        """What is wrong, without the fix; invisible characters in the name shown escaped."""
        return f"unknown GPU model {quoted(self.name)}"

    @property
    def fix(self) -> str:
        """Deleting the name's invisible characters, if any; then the closest known names, or
        where to find the list of names."""
        delete = invisible_fix(self.name)
        visible = without_invisible(self.name)
        if (
            delete
            and visible
            and normalise_model_name(visible) in map(normalise_model_name, self.suggestions)
        ):
            return f"delete the invisible characters: what is left, '{visible}', is a catalog name"
        if self.suggestions:
            quoted = [f"'{s}'" for s in self.suggestions]
            options = (
                quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
            )
            return f"{delete}use a catalog name: did you mean {options}?"
        return f"{delete}use a name from data/catalog/gpus.csv, or add the model as your own GPU"

    def __str__(self) -> str:
        return f"{self.message}; {self.fix}"


def invisible_fix(name: str) -> str:
    """The start of a fix for a ``name`` holding invisible characters (text pasted from a web
    page, a chat or a mail brings them): delete them. Empty when it has none."""
    if without_invisible(name) == name:
        return ""
    return f"delete the invisible characters, leaving '{without_invisible(name)}'; "


def _family(name: str) -> str:
    """A catalog name's words before its memory size (``80GB``); the whole name without one."""
    size = re.search(r"[\s_\-]\d+(?:\.\d+)?GB(?=$|[\s_\-])", name, flags=re.IGNORECASE)
    return name if size is None else name[: size.start()]


def normalise_model_name(name: str) -> str:
    """Model name as compared: case, spaces, dashes and underscores ignored (``a100 80gb``)."""
    return re.sub(r"[\s\-_]+", "", name).lower()


_GPU_REQUIRED = ("name", "memory_gib", "tdp_w", "fp16_tflops", "price_usd")
_GPU_FLAGS = (
    "price_is_default",
    "mig_capable",
    "vgpu_capable",
    "gpus_per_board",
    "mig_memory_slices",
    "mig_compute_slices",
)
_GPU_SMS = ("sms", "mig_full_sms")
"""Optional in every file: an empty cell is an SM count not known."""
_VGPU_COLUMNS = (
    "gpu_model",
    "profile",
    "memory_gib",
    "max_equal",
    "max_mixed",
    "derived",
    "source",
)
_MIG_COLUMNS = (
    "gpu_model",
    "profile",
    "compute_slices",
    "memory_gib",
    "memory_slices",
    "starts",
    "max_per_gpu",
    "source",
)


# One example row of the own-GPU template: a lab H100 variant that borrows the H100 PCIe profile
# tables (same 80 GiB), so the row shows every optional column filled in consistently; its SM
# counts are left empty, as not known.
_OWN_GPU_EXAMPLE = {
    "name": "H100-80GB-lab",
    "memory_gib": "80",
    "tdp_w": "400",
    "fp16_tflops": "835",
    "price_usd": "27000",
    "price_is_default": "no",
    "mig_capable": "yes",
    "vgpu_capable": "yes",
    "gpus_per_board": "1",
    "mig_memory_slices": "8",
    "mig_compute_slices": "7",
    "sms": "",
    "mig_full_sms": "",
    "source": "your quote and the vendor datasheet",
    "notes": "example row: replace it with your model (profiles_like lends H100 PCIe's tables)",
    "profiles_like": "H100-80GB-PCIe",
}


def own_gpus_template() -> str:
    """CSV text for the user's own GPU models: the ``gpus.csv`` header, ``profiles_like``, and one
    example row that ``load_catalog(extra_gpus=...)`` accepts as it is.

    Only ``name``, ``memory_gib``, ``tdp_w``, ``fp16_tflops`` and ``price_usd`` are required; the
    template lists every column so users see what they may fill in.
    """
    columns = [*_GPU_REQUIRED, *_GPU_FLAGS, *_GPU_SMS, "source", "notes", "profiles_like"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerow([_OWN_GPU_EXAMPLE[column] for column in columns])
    return out.getvalue()


def load_catalog(
    directory: Path | None = None,
    *,
    extra_gpus: Path | str | bytes | None = None,
    extra_gpus_name: str = "my_gpus.csv",
) -> Catalog:
    """Read ``gpus.csv``, ``vgpu_profiles.csv`` and ``mig_profiles.csv`` into a ``Catalog``.

    Parameters
    ----------
    directory
        Folder holding the three files; default ``data/catalog`` beside the package
        (``CATALOG_DIR``), wherever the program is started from.
    extra_gpus
        The user's own models: a path, or the bytes of an uploaded CSV, with the columns of
        ``gpus.csv``. Only ``name``, ``memory_gib``, ``tdp_w``, ``fp16_tflops`` and ``price_usd``
        are required. An optional ``profiles_like`` column names a catalog model of the same
        memory whose vGPU and MIG tables the new model shares.
    extra_gpus_name
        File name shown in problems when ``extra_gpus`` is bytes.

    Raises
    ------
    InputError
        Any malformed file, listing every problem with file, row, column and the fix. The
        catalog is all or nothing: a half-read catalog would give wrong plans silently.
    """
    folder = CATALOG_DIR if directory is None else Path(directory)
    problems: list[InputProblem] = []
    gpus_table = read_csv_table(folder / "gpus.csv", "gpus.csv")
    problems += gpus_table.require_columns(
        [*_GPU_REQUIRED, *_GPU_FLAGS, "source"], [*_GPU_SMS, "notes"], all_or_nothing=True
    )
    gpus = _read_gpus(gpus_table, problems, user_file=False)
    vgpu_table = read_csv_table(folder / "vgpu_profiles.csv", "vgpu_profiles.csv")
    problems += vgpu_table.require_columns(_VGPU_COLUMNS, ["notes"], all_or_nothing=True)
    vgpu = _read_vgpu_profiles(vgpu_table, gpus, problems)
    mig_table = read_csv_table(folder / "mig_profiles.csv", "mig_profiles.csv")
    problems += mig_table.require_columns(_MIG_COLUMNS, ["notes"], all_or_nothing=True)
    mig = _read_mig_profiles(mig_table, gpus, problems)
    problems += _check_tables(gpus, vgpu, mig, gpus_table)
    if extra_gpus is not None:
        name = source_name(extra_gpus, None, extra_gpus_name)
        extra_table = read_csv_table(extra_gpus, name)
        problems += extra_table.require_columns(
            _GPU_REQUIRED,
            [*_GPU_FLAGS, *_GPU_SMS, "source", "notes", "profiles_like"],
            all_or_nothing=True,
        )
        _add_user_gpus(extra_table, gpus, vgpu, mig, problems)
        if not extra_table.rows:
            # A file that adds nothing is a mistake (the template saved before filling it in).
            problems.append(
                InputProblem(
                    name,
                    None,
                    None,
                    "the file has no model row below its header",
                    "add one row per GPU model (see the template), or drop the file",
                )
            )
    if problems:
        raise InputError(problems)
    return Catalog(
        gpus=gpus,
        vgpu_profiles={m: tuple(sorted(vgpu.get(m, []), key=lambda p: p.memory_gib)) for m in gpus},
        mig_profiles={
            m: tuple(sorted(mig.get(m, []), key=lambda p: (p.compute_slices, p.memory_gib)))
            for m in gpus
        },
    )


def _model_name(text: str) -> str:
    """A GPU model name: not empty, and without ``|``, which separates models in a workload's
    ``gpu_models`` (a model named with it could never be asked for)."""
    name = parse_text(text, what="a model name")
    if "|" in name:
        raise CellError(f"'{name}' contains |", "remove the | from the model name")
    too_long = long_name(name, "model name")
    if too_long is not None:
        raise CellError(*too_long)
    return name


def _read_gpus(
    table: Table, problems: list[InputProblem], *, user_file: bool
) -> dict[str, GpuModel]:
    """One ``GpuModel`` per good row; bad cells become problems."""
    gpus: dict[str, GpuModel] = {}
    first_row: dict[str, int] = {}
    for row in table.rows:
        values = parse_cells(
            table,
            row,
            {
                "name": _model_name,
                "memory_gib": lambda t: parse_float(
                    t, unit="GiB", minimum=0, minimum_inclusive=False, maximum=1024
                ),
                "tdp_w": lambda t: parse_float(
                    t, unit="W", minimum=0, minimum_inclusive=False, maximum=5000
                ),
                "fp16_tflops": lambda t: parse_float(
                    t, unit="TFLOPS", minimum=0, minimum_inclusive=False
                ),
                "price_usd": lambda t: parse_float(t, unit="USD", minimum=0),
                # In the user's own file the price is theirs unless they flag it as a guess.
                "price_is_default": lambda t: parse_bool(t, default=False if user_file else None),
                "mig_capable": lambda t: parse_bool(t, default=False if user_file else None),
                "vgpu_capable": lambda t: parse_bool(t, default=False if user_file else None),
                "gpus_per_board": lambda t: parse_int(
                    t, minimum=1, maximum=16, default=1 if user_file else None
                ),
                "mig_memory_slices": lambda t: parse_int(
                    t, minimum=0, maximum=8, default=0 if user_file else None
                ),
                "mig_compute_slices": lambda t: parse_int(
                    t, minimum=0, maximum=8, default=0 if user_file else None
                ),
                "source": (lambda t: t or f"user: {table.file}")
                if user_file
                else (lambda t: parse_text(t, what="the source of the figures")),
                "notes": lambda t: t,
                "sms": _sm_count,
                "mig_full_sms": _sm_count,
            },
            problems,
            units={"memory_gib": GIB.number_text, "tdp_w": WATTS.number_text},
        )
        if values is None:
            continue
        name = values["name"]
        if name in first_row:
            problems.append(
                table.problem(
                    row,
                    "name",
                    f"model '{name}' is already defined on row {first_row[name]}",
                    "give each model one row with a unique name",
                )
            )
            continue
        has_slices = values["mig_memory_slices"] > 0 and values["mig_compute_slices"] > 0
        no_slices = values["mig_memory_slices"] == 0 and values["mig_compute_slices"] == 0
        if not (has_slices if values["mig_capable"] else no_slices):
            problems.append(
                table.problem(
                    row,
                    "mig_capable",
                    "mig_capable disagrees with mig_memory_slices and mig_compute_slices",
                    "a MIG-capable model has both slice counts above 0; others have 0 and 0",
                )
            )
            continue
        sms_problem = _sms_problem(values)
        if sms_problem is not None:
            problems.append(table.problem(row, "mig_full_sms", *sms_problem))
            continue
        first_row[name] = row.number
        gpus[name] = GpuModel(**values)
    return gpus


def _sm_count(text: str) -> int | None:
    """A count of streaming multiprocessors; None for an empty cell (not known)."""
    if not text.strip():
        return None
    try:
        return parse_int(text, minimum=1, maximum=1024)
    except CellError as error:
        raise CellError(error.message, f"{error.fix}, or leave it empty if not known") from None


def _sms_problem(values: Mapping[str, Any]) -> tuple[str, str] | None:
    """Why a row's ``mig_full_sms`` cannot be, as (message, fix); None when it can."""
    full, whole = values["mig_full_sms"], values["sms"]
    if full is not None and whole is not None and full > whole:
        return (
            f"{full} SMs in the full MIG profile are more than the {whole} of the whole GPU (sms)",
            f"enter at most {whole}, or correct sms",
        )
    return None


def _read_vgpu_profiles(
    table: Table, gpus: Mapping[str, GpuModel], problems: list[InputProblem]
) -> dict[str, list[VgpuProfile]]:
    return _read_profiles(
        table,
        gpus,
        problems,
        {
            "gpu_model": lambda t: _known_model(t, gpus),
            "profile": lambda t: parse_text(t, what="a profile name such as 16C"),
            "memory_gib": lambda t: parse_float(t, unit="GiB", minimum=0, minimum_inclusive=False),
            "max_equal": lambda t: parse_int(t, minimum=1, maximum=64),
            "max_mixed": lambda t: parse_int(t, minimum=1, maximum=64),
            "derived": lambda t: parse_bool(t),
            "source": lambda t: parse_text(t, what="the source of the maxima"),
        },
        _vgpu_row_problem,
        lambda model, values: VgpuProfile(
            gpu_model=model.name,
            name=values["profile"],
            memory_gib=values["memory_gib"],
            max_equal=values["max_equal"],
            max_mixed=values["max_mixed"],
            derived=values["derived"],
            source=values["source"],
        ),
    )


def _vgpu_row_problem(model: GpuModel, values: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The first rule a vGPU profile row breaks for its model, as (column, message, fix)."""
    if values["memory_gib"] > model.memory_gib:
        return (
            "memory_gib",
            f"{values['memory_gib']:g} GiB is more than the {model.name}'s "
            f"{model.memory_gib:g} GiB",
            f"enter at most {model.memory_gib:g}",
        )
    if values["max_mixed"] > values["max_equal"]:
        return (
            "max_mixed",
            "max_mixed is above max_equal (mixed-size mode never allows more)",
            f"enter at most {values['max_equal']} (NVIDIA's mixed-size table)",
        )
    return None


def _read_mig_profiles(
    table: Table, gpus: Mapping[str, GpuModel], problems: list[InputProblem]
) -> dict[str, list[MigProfile]]:
    return _read_profiles(
        table,
        gpus,
        problems,
        {
            "gpu_model": lambda t: _known_model(t, gpus),
            "profile": lambda t: parse_text(t, what="a profile name such as 3g.40gb"),
            "compute_slices": lambda t: parse_int(t, minimum=1, maximum=8),
            "memory_gib": lambda t: parse_float(t, unit="GiB", minimum=0, minimum_inclusive=False),
            "memory_slices": lambda t: parse_int(t, minimum=1, maximum=8),
            "starts": _parse_starts,
            "max_per_gpu": lambda t: parse_int(t, minimum=1, maximum=8),
            "source": lambda t: parse_text(t, what="the source of the profile"),
        },
        _mig_row_problem,
        lambda model, values: MigProfile(
            gpu_model=model.name,
            name=values["profile"],
            compute_slices=values["compute_slices"],
            memory_gib=values["memory_gib"],
            memory_slices=values["memory_slices"],
            starts=values["starts"],
            max_per_gpu=values["max_per_gpu"],
            source=values["source"],
        ),
    )


_Profile = TypeVar("_Profile", VgpuProfile, MigProfile)


def _read_profiles(
    table: Table,
    gpus: Mapping[str, GpuModel],
    problems: list[InputProblem],
    parsers: Mapping[str, Callable[[str], Any]],
    row_problem: Callable[[GpuModel, Mapping[str, Any]], tuple[str, str, str] | None],
    build: Callable[[GpuModel, Mapping[str, Any]], _Profile],
) -> dict[str, list[_Profile]]:
    """Profiles per model name, one per good row of a profile table.

    Each row is parsed by ``parsers`` (``gpu_model`` and ``profile`` among them), checked
    against its model by ``row_problem`` and then for a repeated (model, profile) pair, and
    made into a profile by ``build``; a bad row adds one problem per bad cell, or its first
    broken rule, and is skipped.
    """
    profiles: dict[str, list[_Profile]] = {}
    for row in table.rows:
        values = parse_cells(table, row, parsers, problems)
        if values is None:
            continue
        model = gpus[values["gpu_model"]]
        problem = row_problem(model, values)
        if problem is None and any(
            p.name == values["profile"] for p in profiles.get(model.name, [])
        ):
            problem = (
                "profile",
                f"profile {values['profile']} of {model.name} is listed twice",
                "keep one row per (gpu_model, profile)",
            )
        if problem is not None:
            problems.append(table.problem(row, *problem))
            continue
        profiles.setdefault(model.name, []).append(build(model, values))
    return profiles


def _mig_row_problem(model: GpuModel, values: Mapping[str, object]) -> tuple[str, str, str] | None:
    """The first rule a MIG profile row breaks for its model, as (column, message, fix)."""
    compute = values["compute_slices"]
    width = values["memory_slices"]
    starts = values["starts"]
    memory = values["memory_gib"]
    assert isinstance(compute, int)
    assert isinstance(width, int)
    assert isinstance(starts, tuple)
    assert isinstance(memory, float)
    if not model.mig_capable:
        return (
            "gpu_model",
            f"{model.name} is not MIG-capable in gpus.csv",
            "delete the row, or mark the model mig_capable with its slice counts",
        )
    if compute > model.mig_compute_slices:
        return (
            "compute_slices",
            f"{compute} is more than the {model.mig_compute_slices} compute slices of {model.name}",
            f"enter at most {model.mig_compute_slices}",
        )
    if width > model.mig_memory_slices:
        return (
            "memory_slices",
            f"{width} is more than the {model.mig_memory_slices} memory slices of {model.name}",
            f"enter at most {model.mig_memory_slices}",
        )
    too_late = [s for s in starts if s + width > model.mig_memory_slices]
    if too_late:
        return (
            "starts",
            f"a {width}-slice instance starting at {too_late[0]} runs past memory slice "
            f"{model.mig_memory_slices - 1}",
            f"use starts from 0 to {model.mig_memory_slices - width}",
        )
    if memory > model.memory_gib:
        return (
            "memory_gib",
            f"{memory:g} GiB is more than the {model.name}'s {model.memory_gib:g} GiB",
            f"enter at most {model.memory_gib:g}",
        )
    return None


def _parse_starts(text: str) -> tuple[int, ...]:
    """Valid start slices, ``|``-separated (``0|2|4``), ascending and distinct."""
    fix = "list the start memory slices separated by |, e.g. 0|2|4"
    if not text:
        raise CellError("no start slices", fix)
    try:
        starts = tuple(int(part) for part in text.split("|"))
    except ValueError:
        raise CellError(f"'{text}' is not a |-separated list of whole numbers", fix) from None
    if any(s < 0 for s in starts) or list(starts) != sorted(set(starts)):
        raise CellError(f"'{text}' must be distinct slices from 0 upwards, ascending", fix)
    return starts


def _known_model(text: str, gpus: Mapping[str, GpuModel]) -> str:
    """A model named in a profile table must be a row of gpus.csv (exact name)."""
    if text in gpus:
        return text
    suggestions = Catalog(gpus, {}, {}).closest_names(text)
    error = UnknownGpuModel(text, suggestions)
    raise CellError(error.message + " (not in gpus.csv)", error.fix)


def _check_tables(
    gpus: Mapping[str, GpuModel],
    vgpu: Mapping[str, list[VgpuProfile]],
    mig: Mapping[str, list[MigProfile]],
    gpus_table: Table,
) -> list[InputProblem]:
    """Every vGPU-capable model has vGPU profiles and every MIG-capable model MIG profiles."""
    rows = {row.get("name"): row for row in gpus_table.rows}
    problems = []
    for model in gpus.values():
        if model.vgpu_capable and not vgpu.get(model.name):
            problems.append(
                gpus_table.problem(
                    rows.get(model.name),
                    "vgpu_capable",
                    f"{model.name} is vGPU-capable but vgpu_profiles.csv has no profile for it",
                    "add its profiles to vgpu_profiles.csv, or set vgpu_capable to no",
                )
            )
        if model.mig_capable and not mig.get(model.name):
            problems.append(
                gpus_table.problem(
                    rows.get(model.name),
                    "mig_capable",
                    f"{model.name} is MIG-capable but mig_profiles.csv has no profile for it",
                    "add its profiles to mig_profiles.csv, or set mig_capable to no",
                )
            )
    return problems


def _add_user_gpus(
    table: Table,
    gpus: dict[str, GpuModel],
    vgpu: dict[str, list[VgpuProfile]],
    mig: dict[str, list[MigProfile]],
    problems: list[InputProblem],
) -> None:
    """Add the user's own models; ``profiles_like`` lends them a catalog model's tables."""
    shipped = dict(gpus)
    own = _read_gpus(table, problems, user_file=True)
    rows = {row.get("name"): row for row in table.rows}
    for name, model in own.items():
        row = rows[name]
        if shipped.get(name) is not None or Catalog(shipped, {}, {}).resolve(name) is not None:
            problems.append(
                table.problem(
                    row,
                    "name",
                    f"'{name}' is already a catalog model",
                    "give your model a new name (change prices in the assumptions instead)",
                )
            )
            continue
        like_text = row.get("profiles_like")
        if like_text:
            like = Catalog(shipped, {}, {}).resolve(like_text)
            if like is None:
                close = Catalog(shipped, {}, {}).closest_names(like_text)
                error = UnknownGpuModel(like_text, close)
                problems.append(table.problem(row, "profiles_like", error.message, error.fix))
                continue
            template = shipped[like]
            if template.memory_gib != model.memory_gib:
                problems.append(
                    table.problem(
                        row,
                        "profiles_like",
                        f"{like} has {template.memory_gib:g} GiB but {name} has "
                        f"{model.memory_gib:g} GiB, so its profile tables do not apply",
                        "name a catalog model with the same memory, or leave profiles_like empty",
                    )
                )
                continue
            model = replace(
                model,
                mig_capable=template.mig_capable,
                vgpu_capable=template.vgpu_capable,
                mig_memory_slices=template.mig_memory_slices,
                mig_compute_slices=template.mig_compute_slices,
                notes=f"{model.notes} Profile tables as {like}.".strip(),
            )
            vgpu[name] = [_renamed(p, name) for p in vgpu.get(like, [])]
            mig[name] = [_renamed(p, name) for p in mig.get(like, [])]
        elif model.vgpu_capable or model.mig_capable:
            problems.append(
                table.problem(
                    row,
                    "vgpu_capable" if model.vgpu_capable else "mig_capable",
                    f"{name} is marked vGPU- or MIG-capable but has no profile table",
                    "set profiles_like to a catalog model with the same profiles, "
                    "or set vgpu_capable and mig_capable to no",
                )
            )
            continue
        gpus[name] = model


def _renamed(profile: _Profile, model: str) -> _Profile:
    """The same profile, listed under another model name."""
    return replace(profile, gpu_model=model)
