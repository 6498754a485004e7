"""Tests of the catalog's V100, A10G, A40, H800, H100 SXM5 94GB, GH200 and B200 rows and their
vGPU and MIG tables."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import Catalog, load_catalog

ADDED = (
    "A10G",
    "V100-16GB-PCIe",
    "V100-16GB-SXM",
    "V100-32GB-PCIe",
    "V100-32GB-SXM",
    "A40",
    "H800-80GB-SXM",
    "H800-80GB-PCIe",
    "H100-94GB-SXM",
    "GH200-96GB",
    "B200-180GB-SXM",
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _maxima(catalog: Catalog, model: str) -> dict[str, tuple[int, int]]:
    return {p.name: (p.max_equal, p.max_mixed) for p in catalog.vgpu(model)}


def _mig(catalog: Catalog, model: str) -> dict[str, tuple[int, int, int]]:
    return {p.name: (p.compute_slices, p.memory_slices, p.max_per_gpu) for p in catalog.mig(model)}


@pytest.mark.parametrize(
    ("model", "figures"),
    [
        ("V100-16GB-PCIe", (16, 250, 112)),
        ("V100-16GB-SXM", (16, 300, 125)),
        ("V100-32GB-PCIe", (32, 250, 112)),
        ("V100-32GB-SXM", (32, 300, 125)),
        ("A40", (48, 300, 149.7)),
        ("A10G", (24, 300, 125)),
        ("H800-80GB-SXM", (80, 700, 989)),
        ("H800-80GB-PCIe", (80, 350, 756)),
        ("H100-94GB-SXM", (94, 700, 989)),
        ("GH200-96GB", (96, 1000, 989)),
        ("B200-180GB-SXM", (180, 1000, 2250)),
    ],
)
def test_added_models_carry_their_sourced_figures(
    catalog: Catalog, model: str, figures: tuple[float, float, float]
) -> None:
    """Memory [GiB], power [W] and dense FP16 [TFLOPS] are the figures the source column names:
    V100 PCIe 250 W / 112, SXM2 300 W / 125; A40 149.7 dense; B200 36 PFLOPS sparse per 8-GPU HGX
    board, halved and divided by 8; GH200 the whole module's 1000 W."""
    gpu = catalog.gpu(model)
    assert (gpu.memory_gib, gpu.tdp_w, gpu.fp16_tflops) == pytest.approx(figures)
    assert gpu.gpus_per_board == 1


@pytest.mark.parametrize("model", ADDED)
def test_added_prices_are_guesses_and_every_row_names_its_source(
    catalog: Catalog, model: str
) -> None:
    """Every added price is a street-price guess flagged to edit, and its notes say so."""
    gpu = catalog.gpu(model)
    assert gpu.price_is_default
    assert gpu.price_usd > 0
    assert "guess" in gpu.source
    assert "guess" in gpu.notes


@pytest.mark.parametrize(
    ("model", "assumed"),
    [
        ("A10G", "FP16"),
        ("H800-80GB-SXM", "TDP and FP16"),
        ("H800-80GB-PCIe", "TDP and FP16"),
        ("H100-94GB-SXM", "TDP and FP16"),
    ],
)
def test_assumed_figures_are_flagged_in_the_notes(
    catalog: Catalog, model: str, assumed: str
) -> None:
    """A figure copied from a sibling model rather than read is named in the notes as assumed."""
    notes = catalog.gpu(model).notes
    assert assumed in notes
    assert "assumed" in notes


@pytest.mark.parametrize("model", ["A10G", "V100-16GB-PCIe", "V100-32GB-SXM", "A40"])
def test_gpus_without_mig_offer_no_mig_profile(catalog: Catalog, model: str) -> None:
    """V100 (Volta), A10G and A40 (GA102) have no MIG: no slices, no profiles."""
    gpu = catalog.gpu(model)
    assert not gpu.mig_capable
    assert (gpu.mig_memory_slices, gpu.mig_compute_slices) == (0, 0)
    assert catalog.mig(model) == ()


@pytest.mark.parametrize("model", ["A10G", "GH200-96GB", "B200-180GB-SXM"])
def test_models_without_a_read_vgpu_table_offer_no_vgpu_profile(
    catalog: Catalog, model: str
) -> None:
    """NVIDIA lists no vGPU profiles for the A10G or GH200, and the B200's table was not read:
    none is vGPU-capable, so no vGPU plan is offered on them."""
    assert not catalog.gpu(model).vgpu_capable
    assert catalog.vgpu(model) == ()


def test_h800_vgpu_table_is_nvidias_not_the_h100s(catalog: Catalog) -> None:
    """NVIDIA's H800 80GB table allows 5 16C vGPUs per GPU, where the H100's allows 6."""
    for model in ("H800-80GB-SXM", "H800-80GB-PCIe"):
        assert _maxima(catalog, model) == {
            "4C": (20, 16),
            "5C": (16, 16),
            "8C": (10, 8),
            "10C": (8, 8),
            "16C": (5, 4),
            "20C": (4, 4),
            "40C": (2, 2),
            "80C": (1, 1),
        }
        assert not any(p.derived for p in catalog.vgpu(model))
    assert _maxima(catalog, "H100-80GB-SXM")["16C"] == (6, 4)


def test_h100_sxm5_94gb_shares_the_nvl_tables(catalog: Catalog) -> None:
    """The H100 SXM5 94GB (H100XL profiles) has the same vGPU maxima and MIG profiles as the
    H100 NVL (H100L), both 94 GB; only power and form differ."""
    assert _maxima(catalog, "H100-94GB-SXM") == _maxima(catalog, "H100-94GB-NVL")
    assert _mig(catalog, "H100-94GB-SXM") == _mig(catalog, "H100-94GB-NVL")
    assert _maxima(catalog, "H100-94GB-SXM")["4C"] == (23, 16)


def test_v100_and_a40_maxima_are_marked_derived(catalog: Catalog) -> None:
    """V100 and A40 maxima were not read from NVIDIA's tables: flagged derived, and no profile
    allows more vGPUs than the frame buffer holds."""
    for model in ("V100-16GB-PCIe", "V100-16GB-SXM", "V100-32GB-PCIe", "V100-32GB-SXM", "A40"):
        profiles = catalog.vgpu(model)
        assert profiles
        assert all(p.derived for p in profiles)
        memory = catalog.gpu(model).memory_gib
        assert all(p.max_equal * p.memory_gib <= memory for p in profiles)
        assert all(p.max_mixed <= p.max_equal for p in profiles)
    assert _maxima(catalog, "V100-32GB-SXM") == {
        "4C": (8, 8),
        "8C": (4, 4),
        "16C": (2, 2),
        "32C": (1, 1),
    }
    assert _maxima(catalog, "A40")["16C"] == (3, 2)


@pytest.mark.parametrize(
    ("model", "profiles"),
    [
        ("H800-80GB-SXM", ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
        ("H800-80GB-PCIe", ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")),
        ("H100-94GB-SXM", ("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb")),
        ("GH200-96GB", ("1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb")),
        ("B200-180GB-SXM", ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb")),
    ],
)
def test_added_mig_models_have_the_eight_slice_profiles(
    catalog: Catalog, model: str, profiles: tuple[str, ...]
) -> None:
    """Each added MIG model has 8 memory and 7 compute slices and its six GPU instance profiles
    with the Hopper maxima: 1g ×7, double-memory 1g ×4, 2g ×3, 3g ×2, 4g ×1, 7g ×1."""
    gpu = catalog.gpu(model)
    assert gpu.mig_capable
    assert (gpu.mig_memory_slices, gpu.mig_compute_slices) == (8, 7)
    assert _mig(catalog, model) == dict(
        zip(
            profiles,
            [(1, 1, 7), (1, 2, 4), (2, 2, 3), (3, 4, 2), (4, 4, 1), (7, 8, 1)],
            strict=True,
        )
    )
    assert all(p.memory_gib <= gpu.memory_gib for p in catalog.mig(model))


def test_b200_mig_maxima_are_said_to_be_assumed(catalog: Catalog) -> None:
    """The B200's profile names are read but its maxima and placements are assumed as Hopper's:
    the source says so and asks for confirmation."""
    assert all(
        "assumed" in p.source and "confirm" in p.source for p in catalog.mig("B200-180GB-SXM")
    )


def test_the_gh200_power_is_the_whole_modules(catalog: Catalog) -> None:
    """The GH200's 1000 W is the superchip module's, Grace CPU included, and the notes say so."""
    assert "Grace CPU" in catalog.gpu("GH200-96GB").notes
