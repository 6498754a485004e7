"""The GPU catalog: models, their vGPU C-series profiles and MIG profiles, each with its source."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Catalog", "GpuModel", "MigProfile", "VgpuProfile"]


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
