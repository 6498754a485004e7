"""Tests of the catalog's streaming-multiprocessor counts (``sms``, ``mig_full_sms``) and of the
``nvidia-smi mig -lgip`` import that reads them."""

from __future__ import annotations

import dataclasses

import pytest

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers.mig import read_mig_profiles
from planner.inputs.problems import InputError

CATALOG = load_catalog()

OWN_HEADER = (
    b"name,memory_gib,tdp_w,fp16_tflops,price_usd,mig_capable,profiles_like,sms,mig_full_sms"
)


def _lgip(rows: list[tuple[str, int, str, str, int]]) -> bytes:
    """An ``nvidia-smi mig -lgip`` table of GPU 0 with (profile, id, free/total, GiB, SMs) rows."""
    rule = "+" + "-" * 77 + "+"
    lines = [
        rule,
        "| GPU instance profiles:" + " " * 54 + "|",
        "| GPU   Name             ID    Instances   Memory     P2P    SM    DEC   ENC  |",
        "|                              Free/Total   GiB              CE    JPEG  OFA  |",
        "|" + "=" * 77 + "|",
    ]
    for profile, profile_id, counts, gib, sms in rows:
        lines.append(
            f"|   0  MIG {profile:<12}{profile_id:>4}     {counts:<9}{gib:>7}      No  "
            f"{sms:>5}     1     0   |"
        )
        lines.append("|" + " " * 61 + "1     1     0   |")
        lines.append(rule)
    return ("\n".join(lines) + "\n").encode()


H20_SHAPED_LGIP = _lgip([("1g.12gb", 19, "7/7", "11.00", 10), ("7g.96gb", 0, "1/1", "93.00", 78)])
"""The GH200's profile names, its 7g.96gb listing 78 SMs, not the GH200's 132."""


def test_the_sm_counts_that_tell_the_gh200_from_the_h20_are_catalog_figures_with_a_source() -> None:
    """The GH200's 132 SMs (whole GPU and its 7g.96gb) and the H20's 78 are gpus.csv cells, each
    row's source saying where they come from; a model whose SMs were not read has none."""
    gh200, h20 = CATALOG.gpus["GH200-96GB"], CATALOG.gpus["H20-96GB"]
    assert (gh200.sms, gh200.mig_full_sms) == (132, 132)
    assert (h20.sms, h20.mig_full_sms) == (78, None)
    assert "132 SMs" in gh200.source
    assert "78 SMs" in h20.source
    assert (CATALOG.gpus["L40S"].sms, CATALOG.gpus["L40S"].mig_full_sms) == (None, None)


def test_the_lgip_import_reads_the_sms_from_the_catalog_it_is_given() -> None:
    """With the GH200's SM counts emptied in the catalog (as a user's edited copy may have them),
    an -lgip whose 7g.96gb lists 78 SMs no longer rules the GH200 out: both models stay open and
    none is guessed. With them, the H20 is read, as before."""
    assert {
        f.field: f.value
        for f in read_mig_profiles(H20_SHAPED_LGIP, "h.txt", CATALOG).hosts[0].facts
    }["gpu_model"] == "H20-96GB"
    unknown = dataclasses.replace(CATALOG.gpus["GH200-96GB"], sms=None, mig_full_sms=None)
    edited = Catalog(
        {**CATALOG.gpus, "GH200-96GB": unknown}, CATALOG.vgpu_profiles, CATALOG.mig_profiles
    )
    (host,) = read_mig_profiles(H20_SHAPED_LGIP, "h.txt", edited).hosts
    assert host.get("gpu_model") is None
    assert host.open_model is not None
    assert host.open_model.models == ("GH200-96GB", "H20-96GB")


def test_an_h20_with_more_sms_in_the_catalog_is_read_by_its_new_count() -> None:
    """The whole-GPU count is the catalog's: an -lgip whose 7g.96gb lists 80 SMs is no H20 of 78
    (the fact names the count), but is one when the catalog says the H20 has 80."""
    lgip = H20_SHAPED_LGIP.replace(b"   78     1", b"   80     1")
    read = read_mig_profiles(lgip, "h.txt", CATALOG)
    assert read.hosts[0].get("gpu_model") is None
    assert "more than a whole H20-96GB's 78" in read.problems[0].message
    more = dataclasses.replace(CATALOG.gpus["H20-96GB"], sms=80)
    edited = Catalog(
        {**CATALOG.gpus, "H20-96GB": more}, CATALOG.vgpu_profiles, CATALOG.mig_profiles
    )
    (model,) = (
        f for f in read_mig_profiles(lgip, "h.txt", edited).hosts[0].facts if f.field == "gpu_model"
    )
    assert model.value == "H20-96GB"


def test_own_gpu_sm_cells_may_be_empty_and_are_read_when_given() -> None:
    """In one's own GPU file the SM columns are optional: empty is not known, a count is read."""
    extra = OWN_HEADER + b"\nX1,96,400,148,9000,no,,,\nX2,96,400,148,9000,no,H20-96GB,78,70\n"
    catalog = load_catalog(extra_gpus=extra, extra_gpus_name="mine.csv")
    assert (catalog.gpus["X1"].sms, catalog.gpus["X1"].mig_full_sms) == (None, None)
    assert (catalog.gpus["X2"].sms, catalog.gpus["X2"].mig_full_sms) == (78, 70)


@pytest.mark.parametrize(
    ("row", "column", "message", "fix"),
    [
        (b"X1,96,400,148,9000,no,,many,", "sms", "many", "leave it empty if not known"),
        (b"X1,96,400,148,9000,no,,0,", "sms", "0", "leave it empty if not known"),
        (b"X1,96,400,148,9000,no,,78.5,", "sms", "78.5", "whole number"),
        (
            b"X1,96,400,148,9000,no,H20-96GB,78,80",
            "mig_full_sms",
            "80 SMs in the full MIG profile are more than the 78 of the whole GPU",
            "enter at most 78",
        ),
    ],
)
def test_a_bad_sm_cell_is_a_problem_naming_file_row_column_and_fix(
    row: bytes, column: str, message: str, fix: str
) -> None:
    """A count that is no whole number of at least 1, or a full MIG profile with more SMs than the
    GPU, is refused with file, row, column and the fix; no traceback."""
    with pytest.raises(InputError) as refused:
        load_catalog(extra_gpus=OWN_HEADER + b"\n" + row + b"\n", extra_gpus_name="mine.csv")
    (problem,) = refused.value.problems
    assert (problem.file, problem.row, problem.column) == ("mine.csv", 2, column)
    assert message in problem.message
    assert fix in problem.fix
