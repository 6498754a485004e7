"""Tests of the workload mix combined from several imported files."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, REPO, european_csv

from planner.inputs.importers.mix import import_workloads
from planner.inputs.problems import InputError


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_semicolon_workload_file_with_decimal_commas_imports_as_the_comma_one(
    separator: str,
) -> None:
    """The sample workload mix saved by a European spreadsheet (semicolons or tabs, decimal
    commas such as 0,25 GPUs) imports to the same classes and values as the original."""
    original = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    saved = european_csv(original, separator)
    assert b"0,25" in saved
    european = import_workloads([("workloads.csv", saved)], CATALOG)
    plain = import_workloads([("workloads.csv", original)], CATALOG)
    assert european.problems == plain.problems == ()
    assert european.frame.equals(plain.frame)


def test_every_file_that_cannot_give_workloads_is_named_in_one_refusal() -> None:
    """An unreadable file and a host listing beside a good workload CSV: the refusal names
    both, the listing with where to give it instead."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    files = [
        ("notes.txt", b"hello there\nrandom words\n"),
        ("nvidia-smi.txt", b"GPU 0: NVIDIA L40S (UUID: GPU-0)\n"),
        ("workloads.csv", good),
    ]
    with pytest.raises(InputError) as caught:
        import_workloads(files, CATALOG)
    problems = caught.value.problems
    assert [p.file for p in problems] == ["notes.txt", "nvidia-smi.txt"]
    assert "describes hosts, not workloads" in problems[1].message
    assert "inventory" in problems[1].fix


def test_measured_pods_matching_no_class_are_listed_with_invisible_characters_escaped() -> None:
    """DCGM pods that match no workload class are listed in a note, each as namespace/pod
    with an invisible character escaped (a pod label holding a zero-width space is told from
    the pod it looks like); it was listed unseen."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    labels = 'gpu="0",UUID="GPU-1",modelName="NVIDIA L4",Hostname="n1",namespace="ml"'
    scrape = (
        f'DCGM_FI_DEV_GPU_UTIL{{{labels},pod="zz\u200b-0"}} 50\n'
        f'DCGM_FI_DEV_GPU_UTIL{{{labels},pod="yy-0"}} 40\n'
    ).encode()
    imported = import_workloads([("workloads.csv", good), ("l4.prom", scrape)], CATALOG)
    (note,) = [n for n in imported.notes if "match no workload class" in n.text]
    assert note.text == (
        "2 measured pod(s) match no workload class (ml/zz\\u200b-0, ml/yy-0): not used"
    )


def test_a_pod_measured_on_several_gpus_that_matches_no_class_is_counted_once() -> None:
    """An unmatched pod measured on three GPUs is one pod in the note, and pods past the fifth
    are counted, not dropped from the list unsaid; it said '3 measured pod(s)' and listed the
    pod three times."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    labels = 'modelName="NVIDIA L4",Hostname="n1",namespace="ml"'
    lines = [
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="{gpu}",UUID="GPU-{gpu}",{labels},pod="zz-0"}} 50'
        for gpu in range(3)
    ]
    lines += [
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="9",UUID="GPU-9",{labels},pod="p-{n}"}} 5' for n in range(6)
    ]
    scrape = ("\n".join(lines) + "\n").encode()
    imported = import_workloads([("workloads.csv", good), ("l4.prom", scrape)], CATALOG)
    (note,) = [n for n in imported.notes if "match no workload class" in n.text]
    assert note.value == "7"
    assert note.text == (
        "7 measured pod(s) match no workload class (ml/zz-0, ml/p-0, ml/p-1, ml/p-2, ml/p-3 "
        "and 2 more): not used"
    )
