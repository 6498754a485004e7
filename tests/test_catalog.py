"""Tests for catalog: the shipped catalog files, lookups and the loader's error messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner.inputs.catalog import (
    CATALOG_DIR,
    Catalog,
    UnknownGpuModel,
    load_catalog,
    own_gpus_template,
)
from planner.inputs.problems import InputError

PRICE_GUESSED = (
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
    "B300-288GB-SXM",
    "GB200-186GB",
    "H20-96GB",
    "H20-141GB",
    "L20",
    "RTX-PRO-6000-96GB",
    "RTX-PRO-6000-Blackwell-Max-Q-96GB",
)
"""Models whose price no source gives: the catalog calls it a street-price guess in their source
and notes; some also have figures copied from a sibling model, flagged as assumed. Each has its
own tests below."""

CATALOG_MODELS = [
    "A100-40GB-PCIe",
    "A100-40GB-SXM",
    "A100-80GB-PCIe",
    "A100-80GB-SXM",
    "H100-80GB-SXM",
    "H100-80GB-PCIe",
    "H100-94GB-NVL",
    "H200-141GB-SXM",
    "H200-141GB-NVL",
    "L40S",
    "L40",
    "L4",
    "A10",
    "A16",
    "A30",
    "T4",
    *PRICE_GUESSED,
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _maxima(catalog: Catalog, model: str) -> dict[str, tuple[int, int]]:
    return {p.name: (p.max_equal, p.max_mixed) for p in catalog.vgpu(model)}


def _copy_catalog(tmp_path: Path) -> Path:
    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"test setup: {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def test_every_supported_model_is_a_catalog_row(catalog: Catalog) -> None:
    """Every model the planner supports is a catalog row, in ``CATALOG_MODELS`` order, and
    nothing else."""
    assert list(catalog.gpus) == CATALOG_MODELS


def test_every_catalog_row_loads(catalog: Catalog) -> None:
    """Every row of the three catalog files becomes a value (none is dropped silently)."""
    rows = {
        name: len((CATALOG_DIR / name).read_text().strip().splitlines()) - 1
        for name in ("gpus.csv", "vgpu_profiles.csv", "mig_profiles.csv")
    }
    assert len(catalog.gpus) == rows["gpus.csv"]
    assert sum(map(len, catalog.vgpu_profiles.values())) == rows["vgpu_profiles.csv"]
    assert sum(map(len, catalog.mig_profiles.values())) == rows["mig_profiles.csv"]


def test_gpu_figures_match_domain(catalog: Catalog) -> None:
    """Memory, TDP and FP16 figures are NVIDIA's datasheet figures; A16 is per GPU (250 W / 4
    per board)."""
    figures = {
        name: (m.memory_gib, m.tdp_w, m.fp16_tflops, m.gpus_per_board)
        for name, m in catalog.gpus.items()
    }
    assert figures["A100-40GB-PCIe"] == (40, 250, 312, 1)
    assert figures["A100-40GB-SXM"] == (40, 400, 312, 1)
    assert figures["A100-80GB-PCIe"] == (80, 300, 312, 1)
    assert figures["H100-80GB-SXM"] == (80, 700, 989, 1)
    assert figures["H100-80GB-PCIe"] == (80, 350, 756, 1)
    assert figures["H100-94GB-NVL"] == (94, 400, 835, 1)
    assert figures["H200-141GB-NVL"] == (141, 600, 989, 1)
    assert figures["L40"] == (48, 300, 181, 1)
    assert figures["L4"] == (24, 72, 121, 1)
    assert figures["A16"] == (16, 62.5, pytest.approx(35.9), 4)
    assert figures["A30"] == (24, 165, 165, 1)
    assert figures["T4"] == (16, 70, 65, 1)


def test_prices_are_marked_as_defaults(catalog: Catalog) -> None:
    """Street prices change monthly, so every shipped price is flagged as a default to edit."""
    assert all(m.price_is_default and m.price_usd > 0 for m in catalog.gpus.values())


def test_mig_capability_matches_domain(catalog: Catalog) -> None:
    """Only A30, A100, H100, H800, H200, H20, GH200, B200, B300, GB200 and the RTX PRO 6000 have
    MIG here; they have 8/7 slices, the A30 and RTX PRO 6000 4/4 (V100, A10G, A40, L20 and the
    141 GB H20, whose MIG profiles were not read, have none)."""
    mig = {n: (m.mig_memory_slices, m.mig_compute_slices) for n, m in catalog.gpus.items()}
    capable = {n for n, m in catalog.gpus.items() if m.mig_capable}
    hopper_on = ("A100", "H100", "H800", "H200", "H20-96GB", "GH200", "B200", "B300", "GB200")
    four_slices = ("A30", "RTX-PRO-6000-96GB", "RTX-PRO-6000-Blackwell-Max-Q-96GB")
    assert capable == {n for n in CATALOG_MODELS if n.startswith(hopper_on) or n in four_slices}
    assert mig["A30"] == (4, 4)
    assert mig["RTX-PRO-6000-96GB"] == (4, 4)
    assert mig["H200-141GB-SXM"] == (8, 7)
    assert mig["L40S"] == (0, 0)
    assert catalog.mig("L40S") == ()


def test_h100_vgpu_table_is_nvidias_not_memory_division(catalog: Catalog) -> None:
    """H100 16C allows 6 per GPU in equal-size mode (not floor(80/16) = 5) and 4 mixed."""
    for model in ("H100-80GB-SXM", "H100-80GB-PCIe"):
        maxima = _maxima(catalog, model)
        assert maxima["16C"] == (6, 4)
        assert maxima["5C"] == (16, 16)
        assert not any(p.derived for p in catalog.vgpu(model))


def test_a100_80gb_vgpu_table(catalog: Catalog) -> None:
    """A100-80GB 4C allows 20 per GPU equal-size and 16 mixed, on both variants."""
    for model in ("A100-80GB-PCIe", "A100-80GB-SXM"):
        assert _maxima(catalog, model)["4C"] == (20, 16)
        assert _maxima(catalog, model)["16C"] == (5, 4)


def test_a100_40gb_variants_share_the_pcie_table(catalog: Catalog) -> None:
    """Both A100-40GB variants use NVIDIA's A100 PCIe 40GB table (8C 5/4, 4C 10/8)."""
    expected = {"40C": (1, 1), "20C": (2, 2), "10C": (4, 4), "8C": (5, 4), "5C": (8, 8)}
    expected["4C"] = (10, 8)
    assert _maxima(catalog, "A100-40GB-PCIe") == expected
    assert _maxima(catalog, "A100-40GB-SXM") == expected


def test_h200_mixed_equals_equal(catalog: Catalog) -> None:
    """On H200 the mixed-size maxima equal the equal-size ones (4C allows 32)."""
    for model in ("H200-141GB-SXM", "H200-141GB-NVL"):
        profiles = catalog.vgpu(model)
        assert all(p.max_equal == p.max_mixed for p in profiles)
        assert _maxima(catalog, model)["4C"] == (32, 32)
        assert len(profiles) == 9


def test_l40s_and_a16_tables(catalog: Catalog) -> None:
    """L40S 16C is 3 equal / 2 mixed; A16 offers 16C, 8C and 4C per GPU."""
    assert _maxima(catalog, "L40S")["16C"] == (3, 2)
    assert _maxima(catalog, "L40") == _maxima(catalog, "L40S")
    assert _maxima(catalog, "A16") == {"4C": (4, 4), "8C": (2, 2), "16C": (1, 1)}


def test_a30_and_t4_maxima_are_marked_derived(catalog: Catalog) -> None:
    """A30 and T4 maxima are not NVIDIA-confirmed: derived from memory and flagged as such."""
    for model in ("A30", "T4"):
        profiles = catalog.vgpu(model)
        assert profiles
        assert all(p.derived for p in profiles)
        memory = catalog.gpus[model].memory_gib
        assert all(p.max_equal == memory // p.memory_gib == p.max_mixed for p in profiles)
    assert [p.name for p in catalog.vgpu("A30")] == ["4C", "6C", "8C", "12C", "24C"]


def test_profiles_are_ordered(catalog: Catalog) -> None:
    """vGPU profiles come memory ascending; MIG profiles by (compute slices, memory) ascending."""
    for model in catalog.gpus:
        vgpu = [p.memory_gib for p in catalog.vgpu(model)]
        assert vgpu == sorted(vgpu)
        mig = [(p.compute_slices, p.memory_gib) for p in catalog.mig(model)]
        assert mig == sorted(mig)


def test_a30_mig_placements(catalog: Catalog) -> None:
    """A30: 1g.6gb starts 0..3 (width 1), 2g.12gb at 0|2 (width 2), 4g.24gb at 0 (width 4)."""
    profiles = {p.name: p for p in catalog.mig("A30")}
    assert set(profiles) == {"1g.6gb", "2g.12gb", "4g.24gb"}
    assert (profiles["1g.6gb"].memory_slices, profiles["1g.6gb"].starts) == (1, (0, 1, 2, 3))
    assert (profiles["2g.12gb"].memory_slices, profiles["2g.12gb"].starts) == (2, (0, 2))
    assert (profiles["4g.24gb"].memory_slices, profiles["4g.24gb"].starts) == (4, (0,))
    assert [profiles[n].max_per_gpu for n in ("1g.6gb", "2g.12gb", "4g.24gb")] == [4, 2, 1]


def test_a100_80gb_mig_placements(catalog: Catalog) -> None:
    """A100/H100 80GB: 1g.10gb at 0-6, 1g.20gb at 0|2|4|6, 3g.40gb at 0|4, 7g.80gb at 0."""
    for model in ("A100-80GB-PCIe", "A100-80GB-SXM", "H100-80GB-SXM", "H100-80GB-PCIe"):
        profiles = {p.name: p for p in catalog.mig(model)}
        assert profiles["1g.10gb"].starts == tuple(range(7))
        assert profiles["1g.20gb"].starts == (0, 2, 4, 6)
        assert profiles["2g.20gb"].starts == (0, 2, 4)
        assert (profiles["3g.40gb"].memory_slices, profiles["3g.40gb"].starts) == (4, (0, 4))
        assert (profiles["7g.80gb"].compute_slices, profiles["7g.80gb"].memory_slices) == (7, 8)
        assert profiles["1g.10gb"].max_per_gpu == 7


def test_h100_nvl_is_its_own_model_with_nvidias_94gb_tables(catalog: Catalog) -> None:
    """The H100 NVL (94 GB, 400 W, 835 dense FP16 TFLOPS) has NVIDIA's H100 PCIe 94GB tables:
    vGPU 4C 23/16 up to 94C 1/1 (not floor(94/size)) and MIG 1g.12gb x7 up to 7g.94gb x1,
    placed as on every 8-slice Hopper GPU; its price is a guess flagged as such and each figure
    names its source."""
    nvl = catalog.gpu("H100-94GB-NVL")
    assert (nvl.mig_memory_slices, nvl.mig_compute_slices, nvl.gpus_per_board) == (8, 7, 1)
    assert nvl.price_is_default
    assert "guess" in nvl.notes
    assert "H100 datasheet" in nvl.source
    assert "1,671" in nvl.source
    assert _maxima(catalog, "H100-94GB-NVL") == {
        "4C": (23, 16),
        "6C": (15, 8),
        "11C": (8, 8),
        "15C": (6, 4),
        "23C": (4, 4),
        "47C": (2, 2),
        "94C": (1, 1),
    }
    assert all("H100 NVL" in p.source and not p.derived for p in catalog.vgpu("H100-94GB-NVL"))
    profiles = {p.name: p for p in catalog.mig("H100-94GB-NVL")}
    assert [(n, p.max_per_gpu) for n, p in profiles.items()] == [
        ("1g.12gb", 7),
        ("1g.24gb", 4),
        ("2g.24gb", 3),
        ("3g.47gb", 2),
        ("4g.47gb", 1),
        ("7g.94gb", 1),
    ]
    h100 = {p.name.split(".")[0] + str(p.memory_slices): p for p in catalog.mig("H100-80GB-PCIe")}
    for profile in profiles.values():
        like = h100[profile.name.split(".")[0] + str(profile.memory_slices)]
        assert (profile.compute_slices, profile.starts) == (like.compute_slices, like.starts)
        assert "H100 NVL" in profile.source


def test_h200_mig_profiles(catalog: Catalog) -> None:
    """H200 MIG profiles are 1g.18gb x7 up to 7g.141gb x1."""
    names = [(p.name, p.max_per_gpu) for p in catalog.mig("H200-141GB-NVL")]
    assert names == [
        ("1g.18gb", 7),
        ("1g.35gb", 4),
        ("2g.35gb", 3),
        ("3g.71gb", 2),
        ("4g.71gb", 1),
        ("7g.141gb", 1),
    ]


def test_default_directory_does_not_depend_on_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shipped catalog is found beside the package wherever the program starts."""
    monkeypatch.chdir(tmp_path)
    assert "L4" in load_catalog().gpus


def test_unknown_model_suggests_both_a100_80gb_variants(catalog: Catalog) -> None:
    """'a100 80gb' is unknown; the message suggests both A100-80GB variants first."""
    with pytest.raises(UnknownGpuModel) as raised:
        catalog.gpu("a100 80gb")
    assert set(raised.value.suggestions[:2]) == {"A100-80GB-PCIe", "A100-80GB-SXM"}
    assert "A100-80GB-PCIe" in str(raised.value)
    assert isinstance(raised.value, KeyError)


@pytest.mark.parametrize(
    ("typed", "shown", "named", "visible"),
    [
        (
            "H100\u200b-80GB-SXM",
            "H100\\u200b-80GB-SXM",
            "\\u200b, U+200B ZERO WIDTH SPACE",
            "H100-80GB-SXM",
        ),
        ("L4\u2060", "L4\\u2060", "\\u2060, U+2060 WORD JOINER", "L4"),
    ],
)
def test_an_invisible_character_in_a_model_name_is_shown_escaped(
    catalog: Catalog, typed: str, shown: str, named: str, visible: str
) -> None:
    """A model name holding an invisible character (pasted from a web page or a chat) is unknown;
    the message shows the character escaped and named, and the fix says to delete it and that
    what is left is a catalog name. It read "unknown GPU model 'H100-80GB-SXM'", the name
    looking exactly like the catalog's."""
    with pytest.raises(UnknownGpuModel) as raised:
        catalog.gpu(typed)
    assert raised.value.message == (
        f"unknown GPU model '{shown}' (it holds an invisible character: {named})"
    )
    assert raised.value.fix == (
        f"delete the invisible characters: what is left, '{visible}', is a catalog name"
    )


def test_an_invisible_character_in_a_name_not_in_the_catalog_keeps_the_suggestions(
    catalog: Catalog,
) -> None:
    """Without its invisible character a name that is still unknown ('L5') gets the deletion and
    the closest catalog names in its fix."""
    with pytest.raises(UnknownGpuModel) as raised:
        catalog.gpu("L5\ufeff")
    assert raised.value.fix.startswith("delete the invisible characters, leaving 'L5'; ")
    assert "did you mean 'L4'" in raised.value.fix


def test_lookup_ignores_case_spaces_and_dashes(catalog: Catalog) -> None:
    """'h100 80gb sxm' names H100-80GB-SXM: case, spaces and dashes do not matter."""
    assert catalog.gpu("h100 80gb sxm").name == "H100-80GB-SXM"
    assert catalog.resolve("l40s") == "L40S"
    assert catalog.resolve("L40") == "L40"
    assert catalog.vgpu("h100 80gb pcie") == catalog.vgpu("H100-80GB-PCIe")
    assert catalog.mig("a30") == catalog.mig("A30")


def test_closest_names_for_a_typo(catalog: Catalog) -> None:
    """A typo ('L40SS') suggests the model it was meant to be first; n limits the list."""
    assert catalog.closest_names("L40SS")[0] == "L40S"
    assert len(catalog.closest_names("A100", n=2)) == 2
    assert catalog.closest_names("zzzz") == []


def test_bad_max_gives_file_row_column_and_fix(tmp_path: Path) -> None:
    """A non-number in vgpu_profiles.csv raises naming the file, spreadsheet row and column."""
    folder = _copy_catalog(tmp_path)
    _edit(folder / "vgpu_profiles.csv", "H100-80GB-SXM,16C,16,6,4", "H100-80GB-SXM,16C,16,six,4")
    lines = (folder / "vgpu_profiles.csv").read_text().splitlines()
    row = next(i for i, line in enumerate(lines, start=1) if ",16C,16,six" in line)
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    (problem,) = raised.value.problems
    assert (problem.file, problem.row, problem.column) == ("vgpu_profiles.csv", row, "max_equal")
    assert "'six' is not a number" in problem.message
    assert "from 1 to 64" in problem.fix


def test_mixed_above_equal_is_rejected(tmp_path: Path) -> None:
    """max_mixed above max_equal breaks NVIDIA's rule and is reported on that column."""
    folder = _copy_catalog(tmp_path)
    _edit(folder / "vgpu_profiles.csv", "L4,8C,8,3,2", "L4,8C,8,3,5")
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    assert [p.column for p in raised.value.problems] == ["max_mixed"]


def test_mig_start_past_last_slice_is_rejected(tmp_path: Path) -> None:
    """A 3g instance (4 slices wide) may not start at slice 6 of 8: the fix gives the range."""
    folder = _copy_catalog(tmp_path)
    _edit(
        folder / "mig_profiles.csv",
        "A100-80GB-PCIe,3g.40gb,3,40,4,0|4",
        "A100-80GB-PCIe,3g.40gb,3,40,4,0|6",
    )
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    (problem,) = raised.value.problems
    assert problem.column == "starts"
    assert "from 0 to 4" in problem.fix


def test_profile_for_unknown_model_suggests_names(tmp_path: Path) -> None:
    """A profile row for a model missing from gpus.csv names the closest models."""
    folder = _copy_catalog(tmp_path)
    _edit(folder / "vgpu_profiles.csv", "L40S,4C", "L40-S,4C")
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    (problem,) = raised.value.problems
    assert problem.column == "gpu_model"
    assert "'L40S'" in problem.fix


def test_missing_column_is_fatal(tmp_path: Path) -> None:
    """gpus.csv without tdp_w cannot be used; the problem names the missing column."""
    folder = _copy_catalog(tmp_path)
    _edit(folder / "gpus.csv", "tdp_w", "power")
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    assert any("'tdp_w' is missing" in p.message for p in raised.value.problems)


def test_mig_capable_model_without_profiles_is_reported(tmp_path: Path) -> None:
    """A MIG-capable model with no MIG rows would silently lose MIG; the loader says so."""
    folder = _copy_catalog(tmp_path)
    path = folder / "mig_profiles.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if not line.startswith("A30,")) + "\n")
    with pytest.raises(InputError) as raised:
        load_catalog(folder)
    (problem,) = raised.value.problems
    assert (problem.file, problem.column) == ("gpus.csv", "mig_capable")
    assert "A30" in problem.message


def test_user_gpu_with_profiles_like_gets_the_tables() -> None:
    """A user model 'like' H100-80GB-PCIe shares its vGPU and MIG tables under its own name."""
    extra = (
        b"name,memory_gib,tdp_w,fp16_tflops,price_usd,profiles_like\n"
        b"H100-80GB-NVL-lab,80,400,835,27000,H100-80GB-PCIe\n"
        b"RTX-6000-Ada,48,300,364,6800,\n"
    )
    catalog = load_catalog(extra_gpus=extra)
    lab = catalog.gpu("H100-80GB-NVL-lab")
    assert lab.mig_capable
    assert not lab.price_is_default
    assert _maxima(catalog, "H100-80GB-NVL-lab")["16C"] == (6, 4)
    assert {p.gpu_model for p in catalog.mig("H100-80GB-NVL-lab")} == {"H100-80GB-NVL-lab"}
    ada = catalog.gpu("RTX-6000-Ada")
    assert (ada.memory_gib, ada.vgpu_capable, ada.mig_capable) == (48, False, False)
    assert ada.source == "user: my_gpus.csv"
    assert catalog.vgpu("RTX-6000-Ada") == ()


def test_user_gpu_problems_name_the_user_file() -> None:
    """A user file with a clash, a bad number and a memory mismatch lists all three problems."""
    extra = (
        b"name,memory_gib,tdp_w,fp16_tflops,price_usd,profiles_like\n"
        b"L4,24,72,121,2500,\n"
        b"Big,lots,300,100,1000,\n"
        b"Odd,40,300,100,1000,H100-80GB-PCIe\n"
    )
    with pytest.raises(InputError) as raised:
        load_catalog(extra_gpus=extra, extra_gpus_name="lab.csv")
    found = {(p.file, p.row, p.column) for p in raised.value.problems}
    assert found == {
        ("lab.csv", 2, "name"),
        ("lab.csv", 3, "memory_gib"),
        ("lab.csv", 4, "profiles_like"),
    }


def test_user_gpu_marked_vgpu_without_table_is_rejected() -> None:
    """vgpu_capable=yes without profiles_like would give a vGPU model with no profiles."""
    extra = b"name,memory_gib,tdp_w,fp16_tflops,price_usd,vgpu_capable\nX1,32,200,90,4000,yes\n"
    with pytest.raises(InputError) as raised:
        load_catalog(extra_gpus=extra)
    (problem,) = raised.value.problems
    assert problem.column == "vgpu_capable"
    assert "profiles_like" in problem.fix


def test_own_gpus_template_has_the_catalog_header_and_a_row_that_loads() -> None:
    """The own-GPU template is gpus.csv's header plus profiles_like, and its one example row is
    accepted by the loader as it is, with the borrowed profile tables."""
    lines = own_gpus_template().splitlines()
    catalog_header = (CATALOG_DIR / "gpus.csv").read_text().splitlines()[0]
    assert lines[0] == catalog_header + ",profiles_like"
    assert len(lines) == 2
    name = lines[1].split(",")[0]
    catalog = load_catalog(extra_gpus=own_gpus_template().encode(), extra_gpus_name="t.csv")
    assert name not in load_catalog().gpus
    # The template fills in its source, so the loader keeps it rather than naming the file.
    assert catalog.gpu(name).source != "user: t.csv"
    assert catalog.vgpu(name)
    assert catalog.mig(name)
    assert {p.gpu_model for p in catalog.vgpu(name)} == {name}


def test_user_gpu_cells_may_carry_their_columns_units() -> None:
    """An own GPU written ``48 GiB`` and ``300 W`` reads as 48 GiB and 300 W; ``0.3 kW`` is
    refused with the number of watts to write."""
    extra = b"name,memory_gib,tdp_w,fp16_tflops,price_usd\nX1,48 GiB,300 W,90,4000\n"
    catalog = load_catalog(extra_gpus=extra)
    assert (catalog.gpus["X1"].memory_gib, catalog.gpus["X1"].tdp_w) == (48, 300)
    with pytest.raises(InputError) as raised:
        load_catalog(extra_gpus=extra.replace(b"300 W", b"0.3 kW"), extra_gpus_name="lab.csv")
    (problem,) = raised.value.problems
    assert (problem.file, problem.row, problem.column) == ("lab.csv", 2, "tdp_w")
    assert problem.fix == "write 300 (0.3 kW in W)"


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
def test_models_of_guessed_price_carry_their_sourced_figures(
    catalog: Catalog, model: str, figures: tuple[float, float, float]
) -> None:
    """Memory [GiB], power [W] and dense FP16 [TFLOPS] are the figures the source column names:
    V100 PCIe 250 W / 112, SXM2 300 W / 125; A40 149.7 dense; B200 36 PFLOPS sparse per 8-GPU HGX
    board, halved and divided by 8; GH200 the whole module's 1000 W."""
    gpu = catalog.gpu(model)
    assert (gpu.memory_gib, gpu.tdp_w, gpu.fp16_tflops) == pytest.approx(figures)
    assert gpu.gpus_per_board == 1


@pytest.mark.parametrize("model", PRICE_GUESSED)
def test_guessed_prices_are_flagged_and_every_row_names_its_source(
    catalog: Catalog, model: str
) -> None:
    """Every guessed price is flagged as a street-price guess to edit, and its notes say so."""
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
def test_mig_models_of_guessed_price_have_the_eight_slice_profiles(
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


@pytest.mark.parametrize(
    ("model", "figures", "profiles"),
    [
        (
            "B300-288GB-SXM",
            (288, 1400, 2250, True),
            ("1g.34gb", "1g.67gb", "2g.67gb", "3g.135gb", "4g.135gb", "7g.269gb"),
        ),
        (
            "GB200-186GB",
            (186, 1200, 2500, True),
            ("1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb"),
        ),
        (
            "H20-96GB",
            (96, 400, 148, True),
            ("1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb"),
        ),
        ("L20", (48, 275, 119.5, False), ()),
        ("RTX-PRO-6000-96GB", (96, 600, 500, True), ("1g.24gb", "2g.48gb", "4g.96gb")),
        (
            "RTX-PRO-6000-Blackwell-Max-Q-96GB",
            (96, 300, 500, True),
            ("1g.24gb", "2g.48gb", "4g.96gb"),
        ),
    ],
)
def test_current_generation_gpus_are_catalog_rows_with_their_sources(
    catalog: Catalog, model: str, figures: tuple[float, float, float, bool], profiles: tuple[str]
) -> None:
    """B300, GB200, H20, L20 and the RTX PRO 6000 Blackwell are rows of their own (memory as
    NVIDIA's MIG user guide or the cited pages give it, the MIG profiles tools list), not an
    older GPU of similar memory; a figure no source gave is called a guess in the row."""
    gpu = catalog.gpus[model]
    assert (gpu.memory_gib, gpu.tdp_w, gpu.fp16_tflops, gpu.mig_capable) == figures
    assert tuple(p.name for p in catalog.mig(model)) == profiles
    assert all(p.memory_gib <= gpu.memory_gib for p in catalog.mig(model))
    assert "guess" in gpu.source.lower() or "guess" in gpu.notes.lower()


def test_the_rtx_pro_6000_max_q_is_a_300_w_row_with_its_source(catalog: Catalog) -> None:
    """The RTX PRO 6000 Blackwell Max-Q Workstation Edition is a row of its own at 300 W, half the
    Server Edition's 600 W, its source naming where the power comes from and its notes calling
    the figures copied from the Server Edition assumed or a guess."""
    max_q = catalog.gpus["RTX-PRO-6000-Blackwell-Max-Q-96GB"]
    server = catalog.gpus["RTX-PRO-6000-96GB"]
    assert (max_q.memory_gib, max_q.tdp_w, server.tdp_w) == (96, 300, 600)
    assert "300 W" in max_q.source
    assert "Max-Q" in max_q.source
    assert "guess" in max_q.notes
    assert "assumed" in max_q.notes
    assert all("assumed" in p.source for p in catalog.mig("RTX-PRO-6000-Blackwell-Max-Q-96GB"))


def test_h20_mig_profiles_are_nvidia_s_with_placements_marked_assumed(catalog: Catalog) -> None:
    """The H20's MIG profiles and maxima are those of NVIDIA's MIG-backed vGPU types for the H20
    SXM5 96GB (1g.12gb x7 up to 7g.96gb x1); every row cites that and mig-parted, and says its
    placements are assumed; the H20 row's notes give its 78 SMs (what tells its -lgip from a
    GH200's) and do not call its profiles unfound."""
    profiles = catalog.mig("H20-96GB")
    assert [(p.name, p.max_per_gpu) for p in profiles] == [
        ("1g.12gb", 7),
        ("1g.24gb", 4),
        ("2g.24gb", 3),
        ("3g.48gb", 2),
        ("4g.48gb", 1),
        ("7g.96gb", 1),
    ]
    for profile in profiles:
        assert "vGPU types reference" in profile.source
        assert "mig-parted" in profile.source
        assert "placements assumed" in profile.source
    gpu = catalog.gpu("H20-96GB")
    assert (gpu.mig_memory_slices, gpu.mig_compute_slices) == (8, 7)
    assert "not found" not in gpu.notes
    assert "78 SMs" in gpu.notes
