"""Tests of the 141 GB H20: its catalog row, and the memory a tool reports telling it from the
96 GB H20 when the tool names both plainly ``NVIDIA H20``."""

from __future__ import annotations

import pytest
from importer_samples import kube_list, node

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers.gpu_names import match_gpu_name
from planner.inputs.importers.hosts import HostsRead
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from planner.inputs.importers.nvidia_smi import read_nvidia_smi_query, read_nvidia_smi_report

CATALOG = load_catalog()

H20_141GB_MIB = 143771
"""memory.total of a 141 GB part as a driver reports it, some MiB reserved (the H200's figure)."""
H20_96GB_MIB = 97871


def _model(read: HostsRead) -> tuple[object, str]:
    """The host's gpu_model fact: its value and source."""
    (host,) = read.hosts
    (fact,) = (f for f in host.facts if f.field == "gpu_model")
    return fact.value, fact.note.source


def test_the_141_gb_h20_is_a_catalog_row_with_its_source_and_its_assumptions() -> None:
    """H20-141GB: 141 GiB from the page its source names, power and FP16 copied from the 96 GB
    H20 and called assumed, no MIG or vGPU profiles claimed, a guessed price flagged."""
    gpu = CATALOG.gpus["H20-141GB"]
    assert (gpu.memory_gib, gpu.tdp_w, gpu.fp16_tflops) == (141, 400, 148)
    assert (gpu.mig_capable, gpu.vgpu_capable) == (False, False)
    assert "141 GB" in gpu.source
    assert "assumed" in gpu.source
    assert "confirm" in gpu.notes
    assert gpu.price_is_default
    assert "guess" in gpu.notes


@pytest.mark.parametrize(
    ("mib", "model"), [(H20_141GB_MIB, "H20-141GB"), (H20_96GB_MIB, "H20-96GB")]
)
def test_nvidia_smi_query_of_a_plain_h20_is_read_by_its_memory_total(mib: int, model: str) -> None:
    """nvidia-smi --query-gpu=name,memory.total calls both H20s 'NVIDIA H20': the memory total
    picks the 141 GB or the 96 GB row, derived."""
    data = f"name, memory.total [MiB]\nNVIDIA H20, {mib} MiB\nNVIDIA H20, {mib} MiB\n".encode()
    assert _model(read_nvidia_smi_query(data, "h20.csv", CATALOG)) == (model, "derived")


def test_nvidia_smi_q_of_a_plain_h20_is_read_by_its_fb_memory_total() -> None:
    """nvidia-smi -q: Product Name 'NVIDIA H20' with FB Memory Usage > Total 143771 MiB is the
    141 GB H20."""
    data = f"""\
==============NVSMI LOG==============

Driver Version                            : 570.124.06
Attached GPUs                             : 1
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H20
    MIG Mode
        Current                           : Disabled
    FB Memory Usage
        Total                             : {H20_141GB_MIB} MiB
        Used                              : 0 MiB
""".encode()
    assert _model(read_nvidia_smi_report(data, "h20-q.txt", CATALOG))[0] == "H20-141GB"


def test_a_gpu_feature_discovery_node_of_a_plain_h20_is_read_by_its_gpu_memory_label() -> None:
    """A node labelled nvidia.com/gpu.product NVIDIA-H20 and gpu.memory 143771 is the 141 GB H20."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H20",
        "nvidia.com/gpu.count": "8",
        "nvidia.com/gpu.memory": str(H20_141GB_MIB),
    }
    read = read_kubectl_nodes(
        kube_list(node("h20-1", labels, extra={"nvidia.com/gpu": "8"})), "n.json", CATALOG
    )
    assert _model(read)[0] == "H20-141GB"


def test_a_plain_h20_without_memory_is_the_96_gb_one_marked_assumed() -> None:
    """Without a memory figure 'NVIDIA H20' fits both rows: the 96 GB H20 is taken, marked
    assumed, its reason naming the 141 GB row it may be."""
    name = match_gpu_name("NVIDIA H20", CATALOG)
    assert (name.model, name.source) == ("H20-96GB", "assumed")
    assert "H20-141GB" in name.reason


def test_a_reported_memory_no_catalog_size_fits_is_said_and_the_model_marked_assumed() -> None:
    """With the 141 GB row gone (an older or edited catalog), a plain H20 reporting 143771 MiB is
    still read as the H20 its name gives, but marked assumed and its reason says the memory fits
    no catalog size of it, not that it is derived."""
    without = Catalog(
        {n: m for n, m in CATALOG.gpus.items() if n != "H20-141GB"},
        CATALOG.vgpu_profiles,
        CATALOG.mig_profiles,
    )
    name = match_gpu_name("NVIDIA H20", without, memory_mib=H20_141GB_MIB)
    assert (name.model, name.source) == ("H20-96GB", "assumed")
    assert f"{H20_141GB_MIB} MiB reported fits no catalog size of it" in name.reason
