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
