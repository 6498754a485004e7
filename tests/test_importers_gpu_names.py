"""Tests of GPU names as tools print them mapped to catalog models."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG

from planner.inputs.catalog import load_catalog
from planner.inputs.importers.gpu_names import gpu_family, match_gpu_name


@pytest.mark.parametrize(
    ("printed", "model"),
    [
        ("NVIDIA A100-SXM4-80GB", "A100-80GB-SXM"),
        ("NVIDIA A100-PCIE-40GB", "A100-40GB-PCIe"),
        ("NVIDIA A100 80GB PCIe", "A100-80GB-PCIe"),
        ("NVIDIA H100 80GB HBM3", "H100-80GB-SXM"),
        ("NVIDIA H100 PCIe", "H100-80GB-PCIe"),
        ("NVIDIA H200", "H200-141GB-SXM"),
        ("NVIDIA H200 NVL", "H200-141GB-NVL"),
        ("NVIDIA H100 NVL", "H100-94GB-NVL"),
        ("NVIDIA-H100-NVL", "H100-94GB-NVL"),
        ("NVIDIA L40S", "L40S"),
        ("NVIDIA L40", "L40"),
        ("NVIDIA L4", "L4"),
        ("NVIDIA A10", "A10"),
        ("Tesla T4", "T4"),
        ("NVIDIA A16", "A16"),
        ("NVIDIA A30", "A30"),
        ("NVIDIA-H100-80GB-HBM3", "H100-80GB-SXM"),
        ("NVIDIA-A100-SXM4-80GB-SHARED", "A100-80GB-SXM"),
        ("h100 80gb sxm", "H100-80GB-SXM"),
    ],
)
def test_printed_names_map_to_catalog_models(printed: str, model: str) -> None:
    """Names as nvidia-smi, DCGM and GPU Feature Discovery print them map to one catalog model:
    HBM3 and names without PCIe or NVL are the SXM parts, a size in the name picks 40 or 80 GB."""
    assert match_gpu_name(printed, CATALOG).model == model


def test_reported_memory_picks_the_size_the_name_leaves_open() -> None:
    """A truncated old-table name without its size takes the size nearest the memory reported."""
    assert match_gpu_name("NVIDIA A100-SXM...", CATALOG, memory_mib=40537).model == "A100-40GB-SXM"
    assert match_gpu_name("NVIDIA A100 PCIe", CATALOG, memory_mib=81920).model == "A100-80GB-PCIe"
    truncated = match_gpu_name("NVIDIA H100 80GB HBM...", CATALOG)
    assert truncated.model == "H100-80GB-SXM"


def test_a_name_cut_off_before_its_form_factor_is_the_sxm_part_assumed() -> None:
    """The 79-column table of drivers to 515 cuts 'NVIDIA A100 80GB PCIe' to 'NVIDIA A100
    80G...' (with 81920 MiB, in many public pastes of a PCIe card): the form factor may be in the
    part cut off, so the SXM part is assumed and the reason says why, not derived from 'no PCIe
    in the name'."""
    cut = match_gpu_name("NVIDIA A100 80G...", CATALOG, memory_mib=81920)
    assert (cut.model, cut.source) == ("A100-80GB-SXM", "assumed")
    assert "cut off" in cut.reason
    whole = match_gpu_name("NVIDIA A100 80GB", CATALOG, memory_mib=81920)
    assert (whole.model, whole.source) == ("A100-80GB-SXM", "derived")


def test_mig_device_names_map_to_their_physical_gpu() -> None:
    """A MIG device's product label (``-MIG-<profile>``) is its physical model, profile kept."""
    found = match_gpu_name("NVIDIA-H100-PCIe-MIG-1g.10gb", CATALOG)
    assert (found.model, found.mig_profile) == ("H100-80GB-PCIe", "1g.10gb")
    old = match_gpu_name("A100-SXM4-40GB-MIG-1g.5gb", CATALOG, memory_mib=4864)
    assert (old.model, old.mig_profile) == ("A100-40GB-SXM", "1g.5gb")


def test_vgpu_profiles_map_to_their_physical_gpu() -> None:
    """A vGPU profile (``NVIDIA-A16-4Q``, ``GRID A100-10C``) is a slice of its board's model; the
    A100D prefix is the 80 GB A100, plain A100 profiles the 40 GB; the form factor is assumed."""
    a16 = match_gpu_name("NVIDIA-A16-4Q", CATALOG, memory_mib=4096)
    assert (a16.model, a16.vgpu_profile, a16.source) == ("A16", "A16-4Q", "derived")
    grid = match_gpu_name("GRID A100-10C", CATALOG)
    assert grid.model is not None
    assert grid.model.startswith("A100-40GB")
    assert grid.source == "assumed"
    assert match_gpu_name("GRID A100D-20C", CATALOG).model == "A100-80GB-SXM"


@pytest.mark.parametrize(
    ("printed", "own_name"),
    [
        ("Tesla P100-PCIE-16GB", "P100-PCIE-16GB"),
        ("Tesla V100S-PCIE-32GB", "V100S-PCIE-32GB"),
        ("NVIDIA A800 80GB PCIe", "A800-80GB-PCIe"),
        ("NVIDIA GH200 144G HBM3e", "GH200-144G-HBM3e"),
    ],
)
def test_unknown_gpus_offer_no_other_gpu_and_name_the_own_model_they_need(
    printed: str, own_name: str
) -> None:
    """A GPU the catalog lacks maps to no model; no GPU of another family is offered in its place
    (a V100S is not a V100, a GH200 144G not the 96 GB GH200), no gpu_model column is asked for
    (a tool's output has none), and the fix names the exact model name one's own GPU file needs."""
    found = match_gpu_name(printed, CATALOG)
    assert found.model is None
    assert found.suggestions == ()
    assert "gpu_model" not in found.fix
    assert f"add a model named '{own_name}' to your own GPU file (--catalog-extra" in found.fix


def test_catalog_name_is_read_as_is() -> None:
    """A name that already is a catalog name is read, not derived."""
    found = match_gpu_name("NVIDIA L40S", CATALOG)
    assert (found.model, found.source) == ("L40S", "read")


def test_family_of_catalog_names() -> None:
    """The family drops size and form factor: H100-80GB-SXM and H100 PCIe are both h100."""
    assert gpu_family("H100-80GB-SXM") == gpu_family("NVIDIA H100 PCIe") == "h100"
    assert gpu_family("L40S") != gpu_family("L40") != gpu_family("L4")


@pytest.mark.parametrize(
    ("printed", "memory_mib", "profile"),
    [
        ("NVIDIA H100 NVL", 95830, None),
        ("NVIDIA-H100-NVL-MIG-1g.12gb", None, "1g.12gb"),
        ("NVIDIA H100 NVL MIG 1g.24gb", None, "1g.24gb"),
        ("GRID H100L-47C", None, None),
        ("H100-PCIE-94GB", None, None),
        ("NVIDIA H100 PCIe", 95830, None),
    ],
)
def test_every_name_of_the_h100_nvl_is_its_94gb_model(
    printed: str, memory_mib: int | None, profile: str | None
) -> None:
    """nvidia-smi's and DCGM's 'NVIDIA H100 NVL', GPU Feature Discovery's 'NVIDIA-H100-NVL'
    labels (MIG devices too), its vGPU profiles (H100L) and NVIDIA's other name for the board,
    'H100 PCIe 94GB' (an NVL board is a PCIe card), are the H100-94GB-NVL: it was refused,
    the message suggesting the H200-141GB-NVL, another GPU."""
    found = match_gpu_name(printed, CATALOG, memory_mib=memory_mib)
    assert (found.model, found.mig_profile, found.source) == ("H100-94GB-NVL", profile, "derived")


def test_a_plain_pcie_name_is_still_the_80gb_h100_pcie() -> None:
    """'NVIDIA H100 PCIe' without a size is the H100 PCIe (80 GB) card, and the H200, which has
    no PCIe model but the NVL, maps to it."""
    assert match_gpu_name("NVIDIA H100 PCIe", CATALOG).model == "H100-80GB-PCIe"
    assert match_gpu_name("NVIDIA H200 PCIe", CATALOG).model == "H200-141GB-NVL"


def test_an_invisible_character_in_a_name_is_shown_escaped_with_the_fix_to_delete_it() -> None:
    """A zero-width space pasted into a GPU name after 'H100' fits no model; the problem quotes
    the name with the character escaped and named, and the fix says to delete it: it quoted the
    name as it looks, the same as the name that fits."""
    found = match_gpu_name("NVIDIA H100\u200b 80GB HBM3", CATALOG)
    assert found.model is None
    assert "'NVIDIA H100\\u200b 80GB HBM3'" in found.reason
    assert "U+200B ZERO WIDTH SPACE" in found.reason
    assert "\u200b" not in found.reason
    assert found.fix.startswith(
        "delete the invisible characters, leaving 'NVIDIA H100 80GB HBM3'; if it still fits no "
        "model, add a model named 'H100-80GB-HBM3'"
    )


@pytest.mark.parametrize(
    ("printed", "memory_mib", "model"),
    [
        ("Tesla V100-SXM2-16GB", None, "V100-16GB-SXM"),
        ("Tesla V100-PCIE-16GB", None, "V100-16GB-PCIe"),
        ("Tesla V100-SXM2-32GB", None, "V100-32GB-SXM"),
        ("Tesla V100-PCIE-32GB", None, "V100-32GB-PCIe"),
        # FHHL (full height, half length) is a PCIe card, not the 300 W SXM2 part.
        ("Tesla V100-FHHL-16GB", None, "V100-16GB-PCIe"),
        ("Tesla-V100-SXM2-16GB", None, "V100-16GB-SXM"),
        ("NVIDIA A10G", None, "A10G"),
        ("NVIDIA A40", None, "A40"),
        ("NVIDIA H800", None, "H800-80GB-SXM"),
        ("NVIDIA H800 PCIe", None, "H800-80GB-PCIe"),
        ("NVIDIA B200", None, "B200-180GB-SXM"),
        ("NVIDIA GH200 480GB", None, "GH200-96GB"),
        ("NVIDIA-GH200-480GB", 97871, "GH200-96GB"),
        ("NVIDIA H100 SXM5 94GB", None, "H100-94GB-SXM"),
        ("NVIDIA H100 80GB HBM3", 81559, "H100-80GB-SXM"),
    ],
)
def test_the_added_models_are_found_by_their_printed_names(
    printed: str, memory_mib: int | None, model: str
) -> None:
    """The V100s, A10G, A40, H800s, B200, GH200 and the 94 GB H100 SXM5 are found by the names
    nvidia-smi and GPU Feature Discovery print; GH200's 480GB is the superchip's memory (its
    Grace CPU's LPDDR5X included), not its GPU's 96 GB, and the 80 GB H100 is still itself."""
    assert match_gpu_name(printed, CATALOG, memory_mib=memory_mib).model == model


def test_a_gh200_mig_device_is_its_96gb_model() -> None:
    """A GH200 MIG device's label names the superchip's 480GB and a profile the GH200 offers."""
    found = match_gpu_name("NVIDIA-GH200-480GB-MIG-1g.12gb", CATALOG)
    assert (found.model, found.mig_profile) == ("GH200-96GB", "1g.12gb")
    assert "superchip" in found.reason


@pytest.mark.parametrize(
    ("printed", "model", "mig_profile"),
    [
        ("H100L-1-12C", "H100-94GB-NVL", "1g.12gb"),
        ("GRID H100L-7-94C", "H100-94GB-NVL", "7g.94gb"),
        ("NVIDIA H100XM-1-10C", "H100-80GB-SXM", "1g.10gb"),
        ("H100XM-1-10CME", "H100-80GB-SXM", "1g.10gb+me"),
        ("H100-3-40C", "H100-80GB-PCIe", "3g.40gb"),
        ("H100XL-2-24C", "H100-94GB-SXM", "2g.24gb"),
        ("A30-2-12C", "A30", "2g.12gb"),
        ("GRID A30-1-6C", "A30", "1g.6gb"),
        ("GRID A100DX-7-80C", "A100-80GB-PCIe", "7g.80gb"),
        ("H200X-3-71C", "H200-141GB-SXM", "3g.71gb"),
        ("H200-1-18C", "H200-141GB-NVL", "1g.18gb"),
        ("H800XM-4-40C", "H800-80GB-SXM", "4g.40gb"),
        ("H800-1-20C", "H800-80GB-PCIe", "1g.20gb"),
    ],
)
def test_mig_backed_vgpu_profiles_map_to_their_gpu_and_instance(
    printed: str, model: str, mig_profile: str
) -> None:
    """A MIG-backed vGPU profile (<board>-<slices>-<GB>C) is one vGPU on a GPU instance: it maps
    to the physical model its board letters name (H100XM the SXM5 80GB, H100XL the SXM5 94GB,
    H100L the NVL, H100 alone the PCIe 80GB), and keeps both the vGPU profile and the instance's
    MIG profile; it matched no model."""
    found = match_gpu_name(printed, CATALOG, memory_mib=10240)
    assert (found.model, found.mig_profile, found.source) == (model, mig_profile, "derived")
    assert found.mig_backed
    assert found.vgpu_profile == printed.split()[-1].upper()
    assert "MIG-backed vGPU profile" in found.reason


def test_a_mig_backed_a100_profile_is_the_40gb_a100_with_its_form_assumed() -> None:
    """A100-4-20C is a 4g.20gb instance: only the 40 GB A100 has it; NVIDIA's A100 names do not
    give the form factor, so the SXM part is assumed."""
    found = match_gpu_name("GRID A100-4-20C", CATALOG)
    assert (found.model, found.mig_profile, found.source) == ("A100-40GB-SXM", "4g.20gb", "assumed")
    assert found.mig_backed


def test_time_sliced_vgpu_profiles_are_not_mig_backed() -> None:
    """A time-sliced profile keeps no MIG profile; its board letters pick the model: V100DX is
    the 32 GB V100 SXM2 (where A100DX is the 80 GB A100 PCIe), H100XL the 94 GB H100 SXM5."""
    v100 = match_gpu_name("GRID V100DX-32C", CATALOG)
    assert (v100.model, v100.mig_profile, v100.mig_backed) == ("V100-32GB-SXM", None, False)
    assert match_gpu_name("GRID V100X-16C", CATALOG).model == "V100-16GB-SXM"
    assert match_gpu_name("GRID V100D-8C", CATALOG).model == "V100-32GB-PCIe"
    assert match_gpu_name("GRID H100XL-15C", CATALOG).model == "H100-94GB-SXM"
    assert match_gpu_name("GRID A40-8C", CATALOG).model == "A40"


@pytest.mark.parametrize(
    "printed",
    [
        "A100-3-30C",
        "H100XM-7-94C",
        "L40S-1-12C",
        "H100XS-1-8C",
        "H100-9-20C",
        "A100-4-20C; DROP TABLE gpus",
        "../../etc/passwd-1-10C",
        "X" * 500 + "-1-10C",
        "",
    ],
)
def test_a_mig_backed_name_no_model_offers_is_refused_with_the_own_gpu_fix(printed: str) -> None:
    """A MIG-backed name whose GPU instance no model of its family offers (a 3g.30gb A100, a
    7g.94gb on the 80 GB SXM5, MIG on an L40S, the 64 GB H100 the catalog lacks), or a name that
    is no GPU at all, maps to no model; the fix says how to add one's own GPU."""
    found = match_gpu_name(printed, CATALOG)
    assert found.model is None
    assert "the catalog has no model for GPU" in found.reason
    assert "your own GPU" in found.fix


def test_a_refused_mig_backed_name_says_which_instance_no_model_offers() -> None:
    """The problem names the family and the GPU instance it could not find."""
    found = match_gpu_name("A100-3-30C", CATALOG)
    assert "no A100 model of the catalog offers the GPU instance 3g.30gb" in found.reason
    assert found.suggestions


_OWN_GPUS = b"""name,memory_gib,tdp_w,fp16_tflops,price_usd
X300-288GB,288,1100,2250,50000
RTX-PRO-9000,96,600,500,9000
"""
"""Own models named as a user writes them: family and memory, or the product's first words."""


@pytest.mark.parametrize(
    ("printed", "model", "left_over"),
    [
        ("NVIDIA X300 SXM6 AC", "X300-288GB", "'ac'"),
        ("NVIDIA-X300-SXM6-AC", "X300-288GB", "'ac'"),
        (
            "NVIDIA RTX PRO 9000 Blackwell Server Edition",
            "RTX-PRO-9000",
            "'blackwell server edition'",
        ),
    ],
)
def test_an_own_model_is_read_for_a_name_that_starts_with_its_words(
    printed: str, model: str, left_over: str
) -> None:
    """An own model named by its family (``X300-288GB``) is read for the longer name the tool
    prints (``NVIDIA X300 SXM6 AC``), as catalog models are, the words left over said in the
    reason and the match marked assumed; it was refused as if the user had given no model."""
    catalog = load_catalog(extra_gpus=_OWN_GPUS)
    found = match_gpu_name(printed, catalog)
    assert (found.model, found.source) == (model, "assumed")
    assert f"{left_over} is not in the model's name" in found.reason


@pytest.mark.parametrize(
    "printed", ["NVIDIA X3000", "NVIDIA X300 144G", "NVIDIA RTX PRO 90000", "NVIDIA RTX PRO"]
)
def test_a_name_is_not_read_as_a_model_of_other_words_or_numbers(printed: str) -> None:
    """Only whole words and words without digits are passed over: X3000 is not an X300, an
    X300 144G is not the 288 GB X300 (the number names another part), and a name shorter than
    the model's is not that model."""
    catalog = load_catalog(extra_gpus=_OWN_GPUS)
    assert match_gpu_name(printed, catalog).model is None


def test_the_own_model_name_a_refusal_asks_for_is_read() -> None:
    """The name a refusal asks one's own GPU file to hold is the name read for that GPU."""
    printed = "NVIDIA Y100 Blackwell Server Edition"
    wanted = match_gpu_name(printed, CATALOG).own_name
    assert wanted == "Y100-Blackwell-Server-Edition"
    own = f"name,memory_gib,tdp_w,fp16_tflops,price_usd\n{wanted},96,600,500,9000\n".encode()
    found = match_gpu_name(printed, load_catalog(extra_gpus=own))
    assert (found.model, found.source) == (wanted, "read")


def test_a_vgpu_or_mig_device_of_an_unknown_gpu_asks_for_its_physical_gpu() -> None:
    """A MIG device's or a vGPU's name asks for its physical GPU as one's own model, not for the
    slice: its model is the GPU the slice is part of."""
    mig = match_gpu_name("NVIDIA-Y100-SXM6-MIG-1g.24gb", CATALOG)
    assert (mig.model, mig.own_name) == (None, "Y100-SXM6")
    vgpu = match_gpu_name("GRID Y100-10C", CATALOG)
    assert (vgpu.model, vgpu.own_name) == (None, "Y100")


@pytest.mark.parametrize(
    ("printed", "model"),
    [
        ("NVIDIA B300 SXM6 AC", "B300-288GB-SXM"),
        ("NVIDIA GB200", "GB200-186GB"),
        ("NVIDIA-GB200", "GB200-186GB"),
        ("gb200", "GB200-186GB"),
        ("NVIDIA H20", "H20-96GB"),
        ("NVIDIA-L20", "L20"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000-96GB"),
        ("rtx-pro-6000", "RTX-PRO-6000-96GB"),
        ("NVIDIA-GB200-MIG-1g.23gb", "GB200-186GB"),
    ],
)
def test_current_generation_names_map_to_their_own_catalog_rows(printed: str, model: str) -> None:
    """nvidia-smi's, GPU Feature Discovery's, GKE's and ACK's names of the B300, GB200, H20, L20
    and RTX PRO 6000 Blackwell are read as those GPUs; they were refused (or, with the old fix,
    planned as a B200, GH200, H200 or L40)."""
    assert match_gpu_name(printed, CATALOG).model == model


@pytest.mark.parametrize(
    ("printed", "model"),
    [
        ("GPU-H20", "H20-96GB"),
        ("gpu-h20", "H20-96GB"),
        ("NVIDIA-H20", "H20-96GB"),
        ("NVIDIA H20", "H20-96GB"),
        ("H20", "H20-96GB"),
        ("NVIDIA-H20-MIG-1g.12gb", "H20-96GB"),
        ("GPU-H200", "H200-141GB-SXM"),
        ("NVIDIA-H200", "H200-141GB-SXM"),
        ("NVIDIA H200 NVL", "H200-141GB-NVL"),
        ("GPU-H200-NVL", "H200-141GB-NVL"),
        ("GPU-H20-141GB", "H20-141GB"),
        ("NVIDIA H20-3e", None),
        ("GPU-3f2a9c1e-7b4d-11ee-8c90-0242ac120002", None),
    ],
)
def test_the_h20_is_read_by_every_name_tools_give_it_and_its_neighbours_are_not(
    printed: str, model: str | None
) -> None:
    """The H20 96GB is read from 'GPU-H20' (a leading 'GPU' is no part of the model's name) as
    from GPU Feature Discovery's 'NVIDIA-H20' and nvidia-smi's 'NVIDIA H20'; an H200 and H200 NVL
    stay themselves, a name giving the H20's 141 GB is the 141 GB row ('H20-3e' is no catalog
    name), and a GPU UUID names no model."""
    assert match_gpu_name(printed, CATALOG).model == model


@pytest.mark.parametrize(
    ("printed", "model", "tdp_w"),
    [
        (
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            "RTX-PRO-6000-Blackwell-Max-Q-96GB",
            300,
        ),
        (
            "NVIDIA-RTX-PRO-6000-Blackwell-Max-Q-Workstation-Edition",
            "RTX-PRO-6000-Blackwell-Max-Q-96GB",
            300,
        ),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX-PRO-6000-96GB", 600),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000-96GB", 600),
        ("rtx-pro-6000", "RTX-PRO-6000-96GB", 600),
    ],
)
def test_the_rtx_pro_6000_max_q_is_read_as_its_300_w_model_and_the_other_editions_at_600_w(
    printed: str, model: str, tdp_w: float
) -> None:
    """nvidia-smi's and GPU Feature Discovery's name of the RTX PRO 6000 Blackwell Max-Q
    Workstation Edition is the 300 W Max-Q row, not the Server Edition's 600 W; the Workstation
    and Server Editions, both 600 W, stay the RTX-PRO-6000-96GB."""
    found = match_gpu_name(printed, CATALOG)
    assert found.model == model
    assert CATALOG.gpus[model].tdp_w == tdp_w
