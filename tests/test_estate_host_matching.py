"""Tests of how the inventory import finds the host a file's name belongs to, among many hosts:
by what the name shows, case aside, with or without a domain, the first host named alike
taking it; and with work that grows with the hosts, not with their pairs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from importer_samples import CATALOG, kube_list, node

from planner.inputs.importers import estate
from planner.inputs.importers.estate import import_inventory

_L4 = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"}


def _l4_node(
    name: str, labels: dict[str, str] | None = None, uid: str | None = None
) -> dict[str, Any]:
    found = node(name, {**_L4, **(labels or {})}, extra={"nvidia.com/gpu": "2"})
    if uid is not None:
        found["metadata"]["uid"] = uid
    return found


def _query(*hosts: str) -> bytes:
    rows = "".join(f"{host}, NVIDIA L4, 23034 MiB\n" * 2 for host in hosts)
    return f"hostname, name, memory.total [MiB]\n{rows}".encode()


def _l4_list(uuid: str) -> bytes:
    return f"GPU 0: NVIDIA L4 (UUID: GPU-{uuid}0)\nGPU 1: NVIDIA L4 (UUID: GPU-{uuid}1)\n".encode()


def test_names_among_many_hosts_match_case_and_one_domain_aside_never_two_domains() -> None:
    """Among 60 nodes, an nvidia-smi query naming 'GPU-07' joins node gpu-07, 'gpu-12.lab.corp'
    joins node gpu-12, 'gpu-30' joins node gpu-30.lab.corp (one of the two has a domain), each
    with a note naming the other spelling; 'gpu-45.dc2.corp' is not node gpu-45.dc1.corp (two
    domains) and is a host of its own after the nodes."""
    names = [f"gpu-{i:02d}" for i in range(60)]
    names[30] = "gpu-30.lab.corp"
    names[45] = "gpu-45.dc1.corp"
    files = [
        ("nodes.json", kube_list(*(_l4_node(name) for name in names))),
        ("gpus.csv", _query("GPU-07", "gpu-12.lab.corp", "gpu-30", "gpu-45.dc2.corp")),
    ]
    imported = import_inventory(files, CATALOG)
    assert list(imported.frame["host"]) == [*names, "gpu-45.dc2.corp"]
    otherwise = [(n.subject, n.value) for n in imported.notes if n.text == estate._NAMED_OTHERWISE]
    assert otherwise == [
        ("gpu-07", "GPU-07"),
        ("gpu-12", "gpu-12.lab.corp"),
        ("gpu-30.lab.corp", "gpu-30"),
    ]
    joined = imported.frame.set_index("host")["notes"]
    assert [host for host in joined.index if "gpus.csv" in joined[host]] == [
        "gpu-07",
        "gpu-12",
        "gpu-30.lab.corp",
        "gpu-45.dc2.corp",
    ]
    assert not imported.problems


def test_a_name_repeated_in_one_file_among_many_nodes_is_left_out_each_time() -> None:
    """In a file of 50 nodes, 'GPU-10' after 'gpu-10' and 'gpu-20.lab.corp' after 'gpu-20' are
    the same host named twice: each left out with a problem naming the first spelling."""
    names = [f"gpu-{i:02d}" for i in range(50)]
    data = kube_list(*(_l4_node(n) for n in [*names, "GPU-10", "gpu-20.lab.corp"]))
    imported = import_inventory([("nodes.json", data)], CATALOG)
    assert list(imported.frame["host"]) == names
    assert [p.message for p in imported.problems] == [
        "host 'GPU-10' is named a second time in this file (first as 'gpu-10'): left out",
        "host 'gpu-20.lab.corp' is named a second time in this file (first as 'gpu-20'): left out",
    ]


def test_two_clusters_many_nodes_of_one_name_are_told_apart_and_a_tool_joins_the_first() -> None:
    """Two clusters of 40 nodes named worker-0 .. worker-39 (other uids) are 80 hosts, the
    second cluster's named dev/worker-N; a third file of the dev cluster again (same uids) adds
    nothing; nvidia-smi -L of worker-7 joins the first cluster's worker-7."""
    prod = [_l4_node(f"worker-{i}", {"cluster-name": "prod"}, f"p{i}") for i in range(40)]
    dev = [_l4_node(f"worker-{i}", {"cluster-name": "dev"}, f"d{i}") for i in range(40)]
    files = [
        ("prod.json", kube_list(*prod)),
        ("dev.json", kube_list(*dev)),
        ("dev-again.json", kube_list(*dev)),
        ("worker-7.txt", _l4_list("w")),
    ]
    imported = import_inventory(files, CATALOG)
    hosts = list(imported.frame["host"])
    assert hosts == [f"worker-{i}" for i in range(40)] + [f"dev/worker-{i}" for i in range(40)]
    notes = imported.frame.set_index("host")["notes"]
    assert "worker-7.txt" in notes["worker-7"]
    assert "dev-again.json" in notes["dev/worker-7"]
    assert not any("worker-7.txt" in notes[h] for h in hosts if h != "worker-7")
    assert not imported.problems


def test_a_file_numbered_apart_skips_a_number_another_host_already_has() -> None:
    """Two nvidia-smi outputs under one file name, nvidia-smi.txt, beside a host nvidia-smi-2
    (from nvidia-smi-2.txt): the second output becomes host nvidia-smi-3, not a part of the
    existing nvidia-smi-2."""
    files = [
        ("nvidia-smi-2.txt", _l4_list("a")),
        ("nvidia-smi.txt", _l4_list("b")),
        ("nvidia-smi.txt", _l4_list("c")),
    ]
    imported = import_inventory(files, CATALOG)
    assert list(imported.frame["host"]) == ["nvidia-smi-2", "nvidia-smi", "nvidia-smi-3"]
    (problem,) = imported.problems
    assert "as host 'nvidia-smi-3'" in problem.message


@pytest.mark.parametrize("nodes", [100, 400])
def test_matching_names_takes_a_few_looks_at_each_name_not_one_per_pair_of_hosts(
    monkeypatch: pytest.MonkeyPatch, nodes: int
) -> None:
    """Finding each node's host normalises its name (``host_key``) a bounded number of times,
    at most 20 a node whatever their number: the work grows with the nodes, not with their pairs
    as it would comparing each name with every host named before it."""
    calls = [0]
    host_key: Callable[[str], str] = estate.host_key

    def counted(name: str) -> str:
        calls[0] += 1
        return host_key(name)

    monkeypatch.setattr(estate, "host_key", counted)
    data = kube_list(*(_l4_node(f"gpu-{i:04d}.lab.corp") for i in range(nodes)))
    imported = import_inventory([("nodes.json", data)], CATALOG)
    assert len(imported.frame) == nodes
    assert calls[0] <= 20 * nodes
