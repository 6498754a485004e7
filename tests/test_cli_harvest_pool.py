"""``harvest --pool-gpus N`` simulates a pool of N desktop GPUs following the curve, as the
dashboard's Harvesting page does with a given pool: on any estate, Kubernetes only too."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from planner.cli import main
from planner.time.harvesting import HarvestSettings, harvest_given_pool, harvest_summary
from tests.importer_samples import kube_list, node


def _kubernetes_nodes(tmp_path: Path) -> Path:
    """A ``kubectl get nodes -o json`` of two 8-GPU H100 nodes: an estate with no vSphere host."""
    labels = {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.count": "8",
        "nvidia.com/gpu.memory": "81559",
    }
    nodes = tmp_path / "nodes.json"
    nodes.write_bytes(
        kube_list(
            node("gpu-0", labels, extra={"nvidia.com/gpu": "8"}),
            node("gpu-1", labels, extra={"nvidia.com/gpu": "8"}),
        )
    )
    return nodes


def test_a_given_pool_on_a_kubernetes_estate_is_harvested_as_the_dashboard_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``harvest --inventory nodes.json --pool-gpus 4`` on Kubernetes nodes alone prints and
    writes the harvest of 4 GPUs busy as the vdi-office curve says, the figures the
    dashboard's given pool shows; it stopped with 'this inventory has none (2 hosts run
    Kubernetes)'."""
    book = tmp_path / "harvest.xlsx"
    argv = ["harvest", "--inventory", str(_kubernetes_nodes(tmp_path)), "--pool-gpus", "4"]
    assert main([*argv, "--workbook", str(book)]) == 0
    out = capsys.readouterr().out
    assert "Note: VDI pool: 4 GPUs, given, desktops busy as the vdi-office curve says" in out
    sheet = openpyxl.load_workbook(book)["Harvest summary"]
    written = {row[0]: row[1] for row in sheet.iter_rows(min_row=2, values_only=True)}
    shown = harvest_summary(harvest_given_pool(4, HarvestSettings()))
    expected = dict(zip(shown["figure"], shown["value"], strict=True))
    assert written["VDI pool"] == 4
    assert written["Harvested"] == pytest.approx(expected["Harvested"])
    assert written["Backlog growth"] == pytest.approx(expected["Backlog growth"])
    assert written["Harvested"] > 0


@pytest.mark.parametrize("pool", ["0", "-3"])
def test_a_pool_of_no_gpu_is_refused_naming_the_option(
    pool: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--pool-gpus 0`` is no pool: the command stops saying to give 1 or more GPUs."""
    assert main(["harvest", "--pool-gpus", pool]) == 2
    err = capsys.readouterr().err
    assert f"harvest: --pool-gpus {pool} is no pool of GPUs; give 1 or more" in err
