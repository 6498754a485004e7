"""GPU names as tools print them (``NVIDIA H100 80GB HBM3``, ``GRID A100-10C``) as catalog models.

A name is split into a family (``h100``), a memory size written in it (``80gb``) and a form
factor (``SXM``/``HBM3`` → SXM, ``PCIe``, ``NVL``); catalog names are split the same way, and the
model whose parts agree is the answer. Memory the tool reports (``memory.total``,
``nvidia.com/gpu.memory``) picks between sizes the name leaves open (A100 40 GB or 80 GB, the
H20 96 GB or 141 GB that nvidia-smi calls plainly ``NVIDIA H20``). A MIG device's name
(``NVIDIA-H100-PCIe-MIG-1g.10gb``), a vGPU profile (``GRID A100-10C``, ``NVIDIA-A16-4Q``) and a
MIG-backed vGPU profile (``H100XM-1-10C``: one vGPU on a 1g.10gb GPU instance) map to the
physical model they are part of. A name no model fits is quoted in its
problem with invisible characters (a zero-width space pasted with it) shown escaped, and with
the exact name a model of one's own GPU file needs to be read for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.inputs.catalog import Catalog, invisible_fix
from planner.inputs.importers.provenance import NoteSource
from planner.inputs.tabular import quoted, without_invisible

__all__ = ["OWN_GPU_FIX", "GpuName", "gpu_family", "match_gpu_name"]

OWN_GPU_FIX = (
    "add the model with your own GPU file (--catalog-extra, or the Inventory page's "
    "'your own GPU models')"
)
"""How to use a GPU the catalog lacks."""

_BRAND_WORDS = frozenset({"nvidia", "tesla", "grid", "geforce", "quadro", "generation", "gpu"})
"""Words no model's name is told apart by; ``gpu`` as some tools lead a name (``GPU-H20``)."""
_FORMS = {
    "sxm": "sxm",
    "sxm2": "sxm",
    "sxm3": "sxm",
    "sxm4": "sxm",
    "sxm5": "sxm",
    "sxm6": "sxm",
    "hbm3": "sxm",
    "hbm3e": "sxm",
    "hgx": "sxm",
    "pcie": "pcie",
    "pci": "pcie",
    # Full height, half length: a PCIe card's size (Tesla V100-FHHL-16GB, the 150 W V100).
    "fhhl": "pcie",
    "nvl": "nvl",
}
"""Form-factor words; HBM3 marks the H100 SXM5 part (the PCIe part has HBM2e)."""
_MEMORY = re.compile(r"^(\d+(?:\.\d+)?)gb$")
_MIG_SUFFIX = re.compile(r"[-\s_]+mig[-\s_]+(\d+g\.\d+gb(?:\+me)?)$")
_SHARED_SUFFIX = re.compile(r"[-\s_]+shared$")
_VGPU = re.compile(r"^(?P<board>[a-z]*\d+[a-z]*)-(?P<size>\d+)(?P<series>[abcq])$")
_MIG_VGPU = re.compile(r"^(?P<board>[a-z]*\d+[a-z]*)-(?P<slices>[1-8])-(?P<size>\d+)c(?P<me>me)?$")
"""A MIG-backed vGPU profile, ``<board>-<compute slices>-<memory GB>C``, ``ME`` when the GPU
instance has the media extensions: ``H100XM-1-10C`` is one vGPU on a 1g.10gb instance."""
_VGPU_BOARDS: dict[tuple[str, str], tuple[float | None, str | None]] = {
    ("a100", ""): (40.0, None),
    ("a100", "d"): (80.0, None),
    ("a100", "dx"): (80.0, "pcie"),
    ("v100", ""): (16.0, "pcie"),
    ("v100", "x"): (16.0, "sxm"),
    ("v100", "d"): (32.0, "pcie"),
    ("v100", "dx"): (32.0, "sxm"),
    ("h100", ""): (80.0, "pcie"),
    ("h100", "xm"): (80.0, "sxm"),
    ("h100", "xl"): (94.0, "sxm"),
    ("h100", "xs"): (64.0, "sxm"),
    ("h100", "l"): (94.0, "nvl"),
    ("h800", ""): (80.0, "pcie"),
    ("h800", "xm"): (80.0, "sxm"),
    ("h800", "l"): (94.0, "nvl"),
    ("h200", ""): (141.0, "nvl"),
    ("h200", "x"): (141.0, "sxm"),
}
"""(family, letters NVIDIA adds to the board) in vGPU profile names -> (memory [GB], form) of the
board. The letters mean different boards in different families: A100DX is the 80 GB A100 PCIe,
V100DX the 32 GB V100 SXM2; H100 alone is the H100 PCIe 80GB, H100XM the SXM5 80GB, H100XL the
SXM5 94GB, H100L the NVL; H200 alone is the NVL, H200X the SXM5 (NVIDIA vGPU user guide and vGPU
types reference, profile tables). A100 profiles without letters are the 40 GB boards', SXM or
PCIe."""
_SUPERCHIP_FAMILIES = frozenset({"gh200"})
"""Families whose product name gives the superchip's memory, CPU's and GPU's together, not the
GPU's: nvidia-smi calls a GH200 with 480 GB of LPDDR5X and a 96 GB GPU 'NVIDIA GH200 480GB'."""
_MEMORY_TOLERANCE = 0.12
"""A reported memory size matches a catalog model within 12 % (drivers reserve some: an H100
80 GB reports 81,559 MiB, an L4 24 GB 23,034 MiB)."""


@dataclass(frozen=True)
class _Parts:
    family: str
    memory_gb: float | None
    form: str | None
    words: tuple[str, ...] = ()
    """The family's words in order (``rtx``, ``pro``, ``6000``, ``blackwell``)."""


def _parts(name: str) -> _Parts:
    truncated = name.rstrip().endswith(("...", "…"))
    tokens = [t.strip(".…") for t in re.split(r"[\s\-_/]+", name.lower())]
    if truncated and tokens and not (_MEMORY.match(tokens[-1]) or tokens[-1] in _FORMS):
        tokens.pop()  # an old table cuts long names: "H100 80GB HBM..." keeps H100 80GB
    family: list[str] = []
    memory = None
    form = None
    for token in tokens:
        if not token or token in _BRAND_WORDS:
            continue
        size = _MEMORY.match(token)
        if size:
            memory = float(size.group(1))
        elif token in _FORMS:
            form = _FORMS[token]
        else:
            family.append(token)
    return _Parts("".join(family), memory, form, tuple(family))


def gpu_family(model: str) -> str:
    """The family of a catalog model or printed name: ``H100-80GB-SXM`` → ``h100``."""
    return _parts(model).family


@dataclass(frozen=True)
class GpuName:
    """What a GPU name printed by a tool means in the catalog."""

    written: str
    """The name as the tool printed it."""
    model: str | None
    """The catalog model; None when no catalog model fits."""
    source: NoteSource
    """``read`` when the name is a catalog name, ``derived`` when mapped by rule, ``assumed`` when
    several models fit and one was picked."""
    reason: str
    """How the name was mapped, or why it could not be."""
    vgpu_profile: str | None = None
    """The vGPU profile the name is (``A16-4Q``, ``H100XM-1-10C``); the model is its physical
    GPU."""
    mig_profile: str | None = None
    """The MIG profile of a MIG device's name, or the GPU instance under a MIG-backed vGPU
    (``1g.10gb``); the model is its physical GPU."""

    @property
    def mig_backed(self) -> bool:
        """The name is a MIG-backed vGPU: a vGPU profile owning one GPU instance, whose slices and
        memory ``mig_profile`` names."""
        return self.vgpu_profile is not None and self.mig_profile is not None

    suggestions: tuple[str, ...] = ()
    """Catalog models of the name's family that do not fit it (another size or form factor),
    when no model fits; models of another family are never offered: a GB200 is not a GH200."""
    own_name: str = ""
    """The name a model of one's own GPU file needs to be read for this name, when no model
    fits (``B300-SXM6-AC`` for ``NVIDIA B300 SXM6 AC``)."""

    @property
    def fix(self) -> str:
        """What to do when ``model`` is None: delete invisible characters the name holds, then
        add one's own model under the name it needs. A tool's output has no model column to
        edit, so no catalog model is offered in its place."""
        delete = invisible_fix(self.written)
        own = (
            f"add a model named {quoted(self.own_name)} to your own GPU file (--catalog-extra, "
            "or the Inventory page's 'your own GPU models')"
        )
        if delete:
            own = f"if it still fits no model, {own}"
        if self.suggestions:
            close = ", ".join(f"'{s}'" for s in self.suggestions)
            own += f"; the catalog's models of its family ({close}) do not fit the name"
        return f"{delete}{own}"


def _nearest_by_memory(candidates: list[str], catalog: Catalog, memory_gib: float) -> list[str]:
    fitting = [
        m
        for m in candidates
        if abs(catalog.gpus[m].memory_gib - memory_gib)
        <= _MEMORY_TOLERANCE * catalog.gpus[m].memory_gib
    ]
    if not fitting:
        return []
    best = min(abs(catalog.gpus[m].memory_gib - memory_gib) for m in fitting)
    return [m for m in fitting if abs(catalog.gpus[m].memory_gib - memory_gib) == best]


def match_gpu_name(name: str, catalog: Catalog, *, memory_mib: float | None = None) -> GpuName:
    """The catalog model a tool's GPU name refers to.

    Parameters
    ----------
    name
        As printed: ``NVIDIA A100-SXM4-80GB``, ``Tesla T4``, ``NVIDIA-H100-PCIe-MIG-1g.10gb``
        (a GPU Feature Discovery product label), ``GRID A100-10C`` (a vGPU VM's GPU),
        ``GRID A100-4-20C`` (a MIG-backed vGPU VM's GPU: a 4g.20gb instance).
    catalog
        Models to choose from (the user's own models included).
    memory_mib
        Memory of one GPU as the tool reports it [MiB]; picks between sizes the name leaves open.
        Ignored for MIG devices and vGPU profiles (it is then the slice's memory, not the GPU's).

    Rules, in order: a catalog name (case, spaces, dashes ignored) is itself; else the family must
    match a catalog model's; a MIG-backed vGPU's GPU instance profile must be one the model offers
    (``+me`` ignored); a size in the name (``80GB``) must match, except a superchip's (GH200
    480GB), which counts its CPU's memory; else the reported memory picks the nearest size
    within 12 % (when none is, the name's models are kept, marked assumed); a form factor in the
    name must match, and a name without one is the SXM part where the family has one (NVIDIA
    names the PCIe and NVL parts, not SXM), and PCIe where only an NVL model fits is that NVL
    board (a PCIe card: ``H100 PCIe 94GB``); several fits left: the first in catalog order,
    marked assumed.
    """
    written = name.strip()
    bare, mig_profile = _bare_name(written)
    if mig_profile is None:
        exact = _exact_model(written, bare, catalog)
        if exact is not None:
            return GpuName(written, exact, "read", f"'{written}' is the catalog model {exact}")
    parts = _parts(bare)
    vgpu = None if mig_profile is not None else _vgpu_name(bare, catalog)
    vgpu_profile = None if vgpu is None else vgpu.profile
    if vgpu is not None:
        parts = vgpu.parts
        mig_profile = vgpu.mig_profile
    how: list[str] = []
    candidates = [m for m in catalog.gpus if gpu_family(m) == parts.family and parts.family]
    extra_words: tuple[str, ...] = ()
    if not candidates and vgpu is None:
        candidates, extra_words = _by_leading_words(parts, catalog)
    if extra_words:
        left_over = " ".join(extra_words)
        how.append(f"read by its first words ('{left_over}' is not in the model's name)")
    family_models = candidates
    candidates = _fitting_profiles(candidates, catalog, vgpu, mig_profile, how)
    if vgpu is not None and vgpu.mig_profile is not None and family_models and not candidates:
        return _unknown_gpu(
            written,
            parts,
            catalog,
            vgpu_profile,
            mig_profile,
            f"no {parts.family.upper()} model of the catalog offers the GPU instance "
            f"{mig_profile} this MIG-backed vGPU profile names",
        )
    parts = _without_superchip_memory(parts, candidates, catalog, how)
    if parts.memory_gb is not None:
        candidates = [
            m for m in candidates if abs(catalog.gpus[m].memory_gib - parts.memory_gb) <= 2
        ]
        how.append(f"{parts.memory_gb:g} GB")
    memory_misfit = False
    if (
        parts.memory_gb is None
        and memory_mib is not None
        and mig_profile is None
        and vgpu_profile is None
        and candidates
    ):
        by_memory = _nearest_by_memory(candidates, catalog, memory_mib / 1024)
        if by_memory:
            candidates = by_memory
            how.append(f"{memory_mib:g} MiB reported")
        else:
            # Kept by name, but not said to be derived: the size the tool reports is none of
            # theirs (a model the catalog lacks, such as a larger-memory part of the family).
            memory_misfit = True
            how.append(f"{memory_mib:g} MiB reported fits no catalog size of it")
    candidates, assumed = _fitting_form(candidates, parts, vgpu_profile, _cut_off(written), how)
    assumed = assumed or memory_misfit
    if not candidates:
        return _unknown_gpu(written, parts, catalog, vgpu_profile, mig_profile)
    model = candidates[0]
    assumed = assumed or bool(extra_words)
    if len(candidates) > 1:
        assumed = True
        others = ", ".join(candidates[1:])
        how.append(f"first of the fitting models (also {others})")
    detail = f": {'; '.join(how)}" if how else ""
    return GpuName(
        written,
        model,
        "assumed" if assumed else "derived",
        f"'{written}' is {model}{_kind(model, vgpu_profile, mig_profile)}{detail}",
        vgpu_profile,
        mig_profile,
    )


def _by_leading_words(parts: _Parts, catalog: Catalog) -> tuple[list[str], tuple[str, ...]]:
    """The models whose family words are the name's first words, the longest such families
    only, and the name's words after them: ``NVIDIA B300 SXM6 AC`` is a ``B300-288GB`` with
    ``ac`` left over. Whole words only, so an H20 is never an H200, nor an L40 an L40S; and
    words left over hold no digit, as a number there names another part (``GH200 144G``)."""
    best: list[str] = []
    longest = 0
    for model in catalog.gpus:
        words = _parts(model).words
        if (
            not words
            or len(words) >= len(parts.words)
            or parts.words[: len(words)] != words
            or any(c.isdigit() for w in parts.words[len(words) :] for c in w)
        ):
            continue
        if len(words) > longest:
            best, longest = [], len(words)
        if len(words) == longest:
            best.append(model)
    return best, parts.words[longest:] if best else ()


def _kind(model: str, vgpu_profile: str | None, mig_profile: str | None) -> str:
    """What part of ``model`` a name is, as a reason says it; empty for the whole GPU."""
    if vgpu_profile is not None and mig_profile is not None:
        return (
            f" (MIG-backed vGPU profile {vgpu_profile} on a {mig_profile} GPU instance of a "
            f"physical {model})"
        )
    if vgpu_profile is not None:
        return f" (vGPU profile {vgpu_profile} on a physical {model})"
    if mig_profile is not None:
        return f" (a MIG {mig_profile} device of a {model})"
    return ""


def _without_superchip_memory(
    parts: _Parts, candidates: list[str], catalog: Catalog, how: list[str]
) -> _Parts:
    """The name's parts without its size when the size is a superchip's (CPU memory included)
    that no candidate's GPU has: 'NVIDIA GH200 480GB' names a 96 GB GPU."""
    if (
        parts.memory_gb is None
        or parts.family not in _SUPERCHIP_FAMILIES
        or any(abs(catalog.gpus[m].memory_gib - parts.memory_gb) <= 2 for m in candidates)
    ):
        return parts
    how.append(f"{parts.memory_gb:g} GB in the name is the superchip's, CPU memory included")
    return _Parts(parts.family, None, parts.form)


def _bare_name(written: str) -> tuple[str, str | None]:
    """A GPU name without brand words, sharing suffix and MIG suffix, words joined by dashes;
    and the MIG profile the name ends with, if any."""
    lowered = written.lower()
    mig_profile = None
    mig = _MIG_SUFFIX.search(lowered)
    if mig:
        mig_profile = mig.group(1)
        lowered = lowered[: mig.start()]
    lowered = _SHARED_SUFFIX.sub("", lowered)
    words = [w for w in re.split(r"[\s_\-]+", lowered) if w and w not in _BRAND_WORDS]
    return "-".join(words), mig_profile


def _exact_model(written: str, bare: str, catalog: Catalog) -> str | None:
    """The catalog model the name (as written, or bare) is itself, if any."""
    for candidate in (written, bare):
        exact = catalog.resolve(candidate) if candidate else None
        if exact is not None:
            return exact
    return None


@dataclass(frozen=True)
class _VgpuName:
    """A vGPU profile name (``A100-10C``, ``A100-4-20C``): the physical board's parts and the
    profile."""

    parts: _Parts
    profile: str
    size_gb: float
    series: str
    mig_profile: str | None = None
    """The GPU instance profile under a MIG-backed vGPU (``4g.20gb``); None when time-sliced."""


def _vgpu_name(bare: str, catalog: Catalog) -> _VgpuName | None:
    """The vGPU profile a bare name is (time-sliced or MIG-backed), or None; the board's size
    and form come from the letters NVIDIA adds to the board (``_VGPU_BOARDS``)."""
    known = {gpu_family(m) for m in catalog.gpus}
    backed = _MIG_VGPU.match(bare)
    if backed:
        board, size, slices = backed.group("board"), backed.group("size"), backed.group("slices")
        me = backed.group("me") is not None
        return _VgpuName(
            _vgpu_board(board, known),
            f"{board.upper()}-{slices}-{size}C{'ME' if me else ''}",
            float(size),
            "C",
            f"{slices}g.{size}gb{'+me' if me else ''}",
        )
    vgpu = _VGPU.match(bare)
    if not vgpu:
        return None
    board = vgpu.group("board")
    series = vgpu.group("series").upper()
    profile = f"{board.upper()}-{vgpu.group('size')}{series}"
    return _VgpuName(_vgpu_board(board, known), profile, float(vgpu.group("size")), series)


def _vgpu_board(board: str, known: set[str]) -> _Parts:
    """The parts of the board a vGPU profile names (``h100xm`` -> H100, 80 GB, SXM): a catalog
    family and the letters after it, looked up in ``_VGPU_BOARDS``; a board that is a family
    without an entry there is that family, size and form open."""
    for family in sorted(known, key=len, reverse=True):
        letters = board[len(family) :]
        if board.startswith(family) and (family, letters) in _VGPU_BOARDS:
            memory, form = _VGPU_BOARDS[(family, letters)]
            return _Parts(family, memory, form)
    return _Parts(board, None, None)


def _fitting_profiles(
    candidates: list[str],
    catalog: Catalog,
    vgpu: _VgpuName | None,
    mig_profile: str | None,
    how: list[str],
) -> list[str]:
    """The candidates that can hold the vGPU profile or offer the MIG profile, when the name
    gives one. A MIG profile matches without its media extensions (``1g.10gb+me`` is offered
    where ``1g.10gb`` is). A MIG device's profile no candidate offers filters nothing; a
    MIG-backed vGPU's leaves no candidate (the profile name claims a GPU instance)."""
    if vgpu is not None:
        candidates = [m for m in candidates if catalog.gpus[m].memory_gib >= vgpu.size_gb]
        if vgpu.series == "C" and vgpu.mig_profile is None:
            with_profile = [
                m
                for m in candidates
                if any(p.name == f"{vgpu.size_gb:g}C" for p in catalog.vgpu(m))
            ]
            candidates = with_profile or candidates
    if mig_profile is not None:
        instance = mig_profile.removesuffix("+me")
        with_profile = [m for m in candidates if any(p.name == instance for p in catalog.mig(m))]
        if with_profile:
            media = "" if instance == mig_profile else " (+me adds media engines, not slices)"
            how.append(f"MIG {instance} exists on it{media}")
        if with_profile or (vgpu is not None and vgpu.mig_profile is not None):
            candidates = with_profile
    return candidates


def _cut_off(written: str) -> bool:
    """Whether a name ends cut off, as the plain nvidia-smi table cuts names longer than its
    column (``NVIDIA A100 80G...``): what the cut part said, a form factor among it, is unknown."""
    return written.endswith(("...", "\u2026"))


def _fitting_form(
    candidates: list[str],
    parts: _Parts,
    vgpu_profile: str | None,
    cut_off: bool,
    how: list[str],
) -> tuple[list[str], bool]:
    """The candidates of the name's form factor (SXM when it names none and the family has one),
    and whether that form was assumed: a vGPU profile and a name ``cut_off`` before any form
    factor do not tell it."""
    forms = {m: _parts(m).form for m in candidates}
    if parts.form is not None:
        how.append({"sxm": "SXM", "pcie": "PCIe", "nvl": "NVL"}[parts.form])
        fitting = [m for m in candidates if forms[m] in (parts.form, None)]
        if not fitting and parts.form == "pcie":
            # An NVL board is a PCIe card: NVIDIA lists the H100 NVL as "H100 PCIe 94GB" and the
            # H200 NVL as "H200 PCIe 141GB".
            fitting = [m for m in candidates if forms[m] == "nvl"]
            how.append("the NVL board, a PCIe card")
        return fitting, False
    if len(candidates) > 1 and any(forms[m] == "sxm" for m in candidates):
        if vgpu_profile is not None:
            how.append("the vGPU profile does not name the form factor: SXM assumed")
        elif cut_off:
            how.append("the name is cut off before any form factor ('...'): SXM assumed")
        else:
            how.append("no PCIe or NVL in the name: the SXM part")
        sxm = [m for m in candidates if forms[m] in ("sxm", None)]
        return sxm, vgpu_profile is not None or cut_off
    return candidates, False


def _unknown_gpu(
    written: str,
    parts: _Parts,
    catalog: Catalog,
    vgpu_profile: str | None,
    mig_profile: str | None,
    why: str = "",
) -> GpuName:
    """A name the catalog has no model for, with the closest catalog names; ``why`` says what
    ruled out the models of its family, if any did."""
    query = "-".join(
        p
        for p in (
            parts.family,
            None if parts.memory_gb is None else f"{parts.memory_gb:g}gb",
            parts.form,
        )
        if p
    )
    family = [m for m in catalog.gpus if parts.family and gpu_family(m) == parts.family]
    close = tuple(m for m in catalog.closest_names(query or written) if m in family)
    if family and not close:
        close = tuple(family[:3])
    return GpuName(
        written,
        None,
        "read",
        f"the catalog has no model for GPU {quoted(written)}" + (f": {why}" if why else ""),
        vgpu_profile,
        mig_profile,
        close,
        _own_name(written, parts, vgpu_profile, mig_profile),
    )


def _own_name(
    written: str, parts: _Parts, vgpu_profile: str | None, mig_profile: str | None
) -> str:
    """The name a model of one's own GPU file needs to match ``written``: its words as written
    without brand words, joined by dashes (``B300-SXM6-AC``); for a vGPU profile or a MIG device,
    its physical GPU's (``X100``, memory open, so any size of it is read)."""
    if vgpu_profile is not None:
        return parts.family.upper()
    words = [w for w in re.split(r"[\s_\-]+", without_invisible(written)) if w]
    if mig_profile is not None:
        lowered = [w.lower() for w in words]
        if "mig" in lowered:
            words = words[: len(lowered) - 1 - lowered[::-1].index("mig")]
    if words and words[-1].lower() == "shared":
        words.pop()
    return "-".join(w for w in words if w.lower() not in _BRAND_WORDS) or written
