"""Tests of the MIG-capable model families the catalog lists, and of the inventory's fix that
names them."""

from __future__ import annotations

import dataclasses

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.inventory import load_inventory

CATALOG = load_catalog()

HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,mig_enabled"


def test_the_mig_families_are_those_of_every_mig_capable_model_in_catalog_order() -> None:
    """Each MIG-capable model's name up to its memory size, once, in catalog order; the Max-Q RTX
    PRO 6000 is of the RTX PRO 6000's family; no model without MIG (L40S, L20, A10G) is listed."""
    families = CATALOG.mig_families()
    assert families == (
        "A100",
        "H100",
        "H200",
        "A30",
        "H800",
        "GH200",
        "B200",
        "B300",
        "GB200",
        "H20",
        "RTX-PRO-6000",
    )
    for name, model in CATALOG.gpus.items():
        if model.mig_capable:
            assert any(name == f or name.startswith(f"{f}-") for f in families), name
    assert not {"L40S", "L20", "A10G", "T4", "V100", "A40"} & set(families)


def test_mig_on_a_model_without_mig_names_every_mig_family_of_the_catalog() -> None:
    """mig_enabled yes on an L40S is a problem whose fix names the catalog's MIG families, the
    H20, GH200, B200 and RTX PRO 6000 among them, not four models of an older list."""
    data = f"{HEADER}\na,x,L40S,4,32,256,25,no,yes\nb,x,L4,4,32,256,25,no,no\n".encode()
    loaded = load_inventory(data, CATALOG, file_name="inv.csv")
    (problem,) = loaded.problems
    assert (problem.file, problem.row, problem.column) == ("inv.csv", 2, "mig_enabled")
    assert problem.fix == (
        "write no (or leave it empty); MIG needs a GPU of the A100, H100, H200, A30, H800, GH200, "
        "B200, B300, GB200, H20 or RTX-PRO-6000 family"
    )


def test_the_fix_follows_the_catalog_it_is_given() -> None:
    """A catalog whose only MIG model is one's own (X9-80GB, lent the H100's tables) names that
    family alone; a catalog without MIG models says none runs MIG."""
    own = (
        b"name,memory_gib,tdp_w,fp16_tflops,price_usd,profiles_like\n"
        b"X9-80GB,80,400,800,1,H100-80GB-PCIe\n"
    )
    extended = load_catalog(extra_gpus=own, extra_gpus_name="mine.csv")
    only_own = Catalog(
        {
            name: model if name == "X9-80GB" else dataclasses.replace(model, mig_capable=False)
            for name, model in extended.gpus.items()
        },
        extended.vgpu_profiles,
        extended.mig_profiles,
    )
    assert only_own.mig_families() == ("X9",)
    data = f"{HEADER}\na,x,L40S,4,32,256,25,no,yes\nb,x,L4,4,32,256,25,no,no\n".encode()
    (problem,) = load_inventory(data, only_own, file_name="inv.csv").problems
    assert problem.fix.endswith("MIG needs a GPU of the X9 family")
    none = Catalog({n: m for n, m in CATALOG.gpus.items() if not m.mig_capable}, {}, {})
    (problem,) = load_inventory(data, none, file_name="inv.csv").problems
    assert problem.fix.endswith("no model of the catalog runs MIG")


def test_an_own_model_named_with_spaces_is_listed_by_the_words_before_its_size() -> None:
    """One's own MIG model written 'Lab X9 80GB v2' (spaces, not dashes) is of the 'Lab X9'
    family, as 'X9-80GB' is of 'X9'."""
    own = (
        b"name,memory_gib,tdp_w,fp16_tflops,price_usd,profiles_like\n"
        b"Lab X9 80GB v2,80,400,800,1,H100-80GB-PCIe\n"
    )
    catalog = load_catalog(extra_gpus=own, extra_gpus_name="mine.csv")
    assert catalog.mig_families()[-1] == "Lab X9"
