"""Tests of the workload mix combined from several imported files."""

from __future__ import annotations

import pytest
from importer_samples import CATALOG, REPO, container, european_csv, kube_list, pod

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
        "2 measured pods match no workload class (ml/zz\\u200b-0, ml/yy-0): not used"
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
        "7 measured pods match no workload class (ml/zz-0, ml/p-0, ml/p-1, ml/p-2, ml/p-3 "
        "and 2 more): not used"
    )


def test_a_class_named_again_by_pods_is_a_problem_of_the_pods_file() -> None:
    """A class of the pods' (Deployment chat-llm) named as a class of an earlier workload CSV is
    renamed, the problem naming the pods' file as given and the earlier file; it named the
    notes text ('pods.json: Deployment ml/chat-llm (1 pod(s))') as the file."""
    good = (REPO / "data" / "sample" / "workloads.csv").read_bytes()
    gpu = container(limits={"nvidia.com/gpu": "1"})
    replica_set = ("ReplicaSet", "chat-llm-7d9f8c6b5d")
    pods = kube_list(pod("chat-llm-7d9f8c6b5d-x2k4q", owner=replica_set, containers=[gpu]))
    imported = import_workloads([("workloads.csv", good), ("pods.json", pods)], CATALOG)
    (problem,) = [p for p in imported.problems if p.column == "name"]
    assert (problem.file, problem.row) == ("pods.json", None)
    assert problem.message == ("class 'chat-llm' is also in workloads.csv: renamed 'chat-llm-2'")
    assert sorted(imported.frame["name"])[:2] == ["chat-llm", "chat-llm-2"]


def test_a_class_named_in_two_workload_files_is_quoted_as_messages_quote_names() -> None:
    """A class name used in two workload CSVs is quoted as every message quotes a name
    (``tabular.quoted``: a long one cut, its length said), the earlier file named with its
    invisible character escaped, and the problem is the later file's; the name was written
    whole and the file given as 'from b.csv (the planner's workload CSV)'."""
    name = "x" * 100
    header, first = (REPO / "data" / "sample" / "workloads.csv").read_text().splitlines()[:2]
    table = f"{header}\n{name}{first[first.index(',') :]}\n".encode()
    imported = import_workloads([("team\u200ba.csv", table), ("b.csv", table)], CATALOG)
    (problem,) = imported.problems
    assert (problem.file, problem.column) == ("b.csv", "name")
    cut = "x" * 60 + "… (100 characters)"
    assert problem.message == (
        f"class '{cut}' is also in team\\u200ba.csv: renamed '{'x' * 60}… (102 characters)'"
    )
    assert list(imported.frame["name"]) == [name, f"{name}-2"]
