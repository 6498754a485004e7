"""Tests of the inventory combined from several imported files."""

from __future__ import annotations

import io

import pytest
from importer_samples import (
    CATALOG,
    KUBECTL_NODES,
    MIG_LGI,
    NVIDIA_SMI_LIST,
    REPO,
    RVTOOLS,
    european_csv,
    kube_list,
    node,
    sample,
)
from openpyxl import Workbook

from planner.inputs.importers.estate import ImportDefaults, import_inventory, parse_cluster_gpus
from planner.inputs.platform import Platform
from planner.inputs.problems import InputError


def _vhost(*rows: tuple[object, ...]) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "vHost"
    sheet.append(["Host", "Cluster", "# Cores", "# Memory"])
    for row in rows:
        sheet.append(list(row))
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _row(frame: object, host: str) -> dict[str, object]:
    rows = frame[frame["host"] == host]  # type: ignore[index]
    assert len(rows) == 1
    return dict(rows.iloc[0])


def test_nvidia_smi_per_host_combined_with_rvtools_by_host_name() -> None:
    """nvidia-smi files named after short host names join RVTools' FQDN hosts: GPUs from
    nvidia-smi, cluster, cores and memory from RVTools, platform vSphere; a host without GPU
    output is left out with a problem naming its cluster and the --cluster-gpus fix."""
    rvtools = _vhost(
        ("gpu-01.lab.example", "ai", 64, 1048576),
        ("gpu-02.lab.example", "ai", 64, 1048576),
        ("web-01.lab.example", "web", 16, 65536),
    )
    files = [
        ("export.xlsx", rvtools),
        ("GPU-01.txt", b"GPU 0: NVIDIA L40S (UUID: a)\nGPU 1: NVIDIA L40S (UUID: b)\n"),
        ("gpu-02.txt", b"GPU 0: NVIDIA L40S (UUID: c)\n"),
    ]
    imported = import_inventory(files, CATALOG)
    row = _row(imported.frame, "gpu-01.lab.example")
    assert (
        row["gpu_model"],
        row["gpus_per_host"],
        row["cluster"],
        row["cpu_cores"],
        row["ram_gib"],
        row["platform"],
    ) == ("L40S", 2, "ai", 64.0, 1024.0, "vsphere")
    assert _row(imported.frame, "gpu-02.lab.example")["gpus_per_host"] == 1
    (problem,) = imported.problems
    assert "cluster web" in problem.message
    assert "web-01.lab.example" in problem.message
    assert "--cluster-gpus 'web=MODEL:GPUS'" in problem.fix
    inventory = imported.inventory(CATALOG).value
    assert [h.name for h in inventory.hosts] == ["gpu-01.lab.example", "gpu-02.lab.example"]


def test_rvtools_sample_with_gpus_given_per_cluster() -> None:
    """RVTools has no GPUs: the GPUs given for its cluster (case ignored) complete its 7 hosts,
    marked as given by the user."""
    imported = import_inventory(
        [sample(RVTOOLS)], CATALOG, gpus_by_cluster={"CLUSTER": ("l40s", 4)}
    )
    assert len(imported.frame) == 7
    assert set(imported.frame["gpu_model"]) == {"L40S"}
    assert set(imported.frame["gpus_per_host"]) == {4}
    given = [n for n in imported.notes if n.field == "gpus_per_host"]
    assert all(n.file == "user" and n.source == "read" for n in given)
    assert len(imported.inventory(CATALOG).value.hosts) == 7


def test_unknown_cluster_and_model_given_are_problems() -> None:
    """GPUs given for a cluster no host is in, or of an unknown model, are problems."""
    rvtools = _vhost(("esx1", "ai", 8, 8192))
    with pytest.raises(InputError) as caught:
        import_inventory(
            [("x.xlsx", rvtools)], CATALOG, gpus_by_cluster={"ai": ("B200", 8), "nope": ("L4", 1)}
        )
    messages = " ".join(p.message for p in caught.value.problems)
    assert "unknown GPU model 'B200'" in messages
    assert "no imported host is in cluster 'nope'" in messages


def test_kubectl_nodes_alone_make_a_plannable_inventory() -> None:
    """The kubectl sample alone is an inventory the validator accepts: one Kubernetes host."""
    imported = import_inventory([sample(KUBECTL_NODES)], CATALOG)
    (host,) = imported.inventory(CATALOG).value.hosts
    assert (host.name, host.gpu_model, host.platform) == ("nori", "A16", Platform.KUBERNETES)


def test_list_and_lgi_of_one_host_combine_under_the_given_host_name() -> None:
    """``-L`` and ``mig -lgi`` of one host, given one host name, are one host: GPUs from -L
    (read beats the lgi's assumed count), the layout with placements from -lgi."""
    gpu_list = b"GPU 0: NVIDIA A30 (UUID: a)\nGPU 1: NVIDIA A30 (UUID: b)\n"
    imported = import_inventory([("l.txt", gpu_list), sample(MIG_LGI)], CATALOG, host_name="ana-01")
    row = _row(imported.frame, "ana-01")
    assert (row["gpu_model"], row["gpus_per_host"], row["mig_enabled"]) == ("A30", 2, "yes")
    (layout,) = imported.mig_layouts
    assert (layout.host, [i.start for i in layout.instances]) == ("ana-01", [0, 1, 2, 3])


def test_missing_columns_take_defaults_marked_assumed() -> None:
    """Columns no file gives take ``ImportDefaults`` (here chosen), each with an assumed note
    naming the tool that lacked it; the cluster given fills a host no file places."""
    defaults = ImportDefaults(cpu_cores=96, ram_gib=768, network_gbps=100, rdma=True)
    imported = import_inventory(
        [sample(NVIDIA_SMI_LIST)], CATALOG, defaults=defaults, cluster="hgx", host_name="hgx-01"
    )
    row = _row(imported.frame, "hgx-01")
    assert (row["cpu_cores"], row["ram_gib"], row["network_gbps"], row["rdma"], row["cluster"]) == (
        96.0,
        768.0,
        100.0,
        "yes",
        "hgx",
    )
    cores = next(n for n in imported.notes if n.field == "cpu_cores")
    assert cores.source == "assumed"
    assert "nvidia-smi -L" in cores.text
    assert [len(g.instances) for g in imported.mig_layouts] == [7] * 8


def test_disagreeing_gpu_counts_are_a_problem_first_file_kept() -> None:
    """Two files reading different GPU counts for one host: the first is kept, the other a
    problem naming both."""
    one = b"GPU 0: NVIDIA L4 (UUID: a)\n"
    two = b"GPU 0: NVIDIA L4 (UUID: a)\nGPU 1: NVIDIA L4 (UUID: b)\n"
    imported = import_inventory([("h.txt", one), ("h.log", two)], CATALOG)
    assert _row(imported.frame, "h")["gpus_per_host"] == 1
    (problem,) = imported.problems
    assert problem.file == "h.log"
    assert "1 is kept" in problem.message


def test_unknown_gpu_host_is_left_out_with_its_problem() -> None:
    """A host whose only GPU is unknown (P100) is left out; the problem is the importer's, with
    the own-GPU fix, and a note says the host was left out."""
    files = [
        ("old.txt", b"GPU 0: Tesla P100-PCIE-16GB (UUID: a)\n"),
        ("new.txt", b"GPU 0: NVIDIA L4 (UUID: b)\n"),
    ]
    imported = import_inventory(files, CATALOG)
    assert list(imported.frame["host"]) == ["new"]
    assert "your own GPU" in imported.problems[0].fix
    assert any(n.subject == "old" and "left out" in n.text for n in imported.notes)


def test_planner_csv_combines_with_tool_output() -> None:
    """The planner's own inventory CSV is one more source: its rows are read as they are."""
    csv = (
        b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
        b"a,c,L4,2,32,256,25,no\n"
    )
    imported = import_inventory(
        [
            ("hosts.csv", csv),
            (
                "nodes.json",
                kube_list(
                    node("b", {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "1"})
                ),
            ),
        ],
        CATALOG,
    )
    assert list(imported.frame["host"]) == ["a", "b"]


def test_no_host_with_gpus_is_refused() -> None:
    """Files that give no host with GPUs are refused, saying which files to add."""
    with pytest.raises(InputError, match="no host with GPUs"):
        import_inventory([("x.xlsx", _vhost(("esx1", "ai", 8, 8192)))], CATALOG)


def test_a_semicolon_inventory_with_decimal_commas_imports_as_the_comma_one() -> None:
    """The sample inventory saved by a European spreadsheet (semicolons, decimal commas)
    imports to the same hosts and values as the comma-separated original."""
    original = (REPO / "data" / "sample" / "inventory.csv").read_bytes()
    european = import_inventory([("inventory.csv", european_csv(original))], CATALOG)
    plain = import_inventory([("inventory.csv", original)], CATALOG)
    assert european.problems == plain.problems == ()
    assert european.frame.equals(plain.frame)


def test_workload_file_given_as_inventory_is_refused() -> None:
    """Pods output among inventory files is refused, pointing to the Workloads page's import
    and to --workloads: the same words reach the dashboard, which has no flags."""
    with pytest.raises(InputError, match="--workloads") as caught:
        import_inventory([("pods.json", b'{"kind": "Pod", "spec": {"containers": []}}')], CATALOG)
    (problem,) = caught.value.problems
    assert problem.fix == (
        "give it as a workload file (the Workloads page's import, or --workloads on the command "
        "line)"
    )


def test_a_value_the_inventory_refuses_is_traced_to_its_file() -> None:
    """A node whose GPU count label the inventory refuses is reported at the nodes file and the
    label it came from, naming the host, not at a row of the 'imported inventory' the user never
    saw."""
    labels = {"nvidia.com/gpu.product": "NVIDIA-L40S", "nvidia.com/gpu.count": "100"}
    data = kube_list(node("gpu-1", labels), node("gpu-2", {**labels, "nvidia.com/gpu.count": "4"}))
    imported = import_inventory([("nodes.json", data)], CATALOG)
    loaded = imported.inventory(CATALOG)
    assert [h.name for h in loaded.value.hosts] == ["gpu-2"]
    (problem,) = loaded.problems
    assert problem.file == "nodes.json"
    assert problem.column == "metadata.labels.nvidia.com/gpu.count"
    assert problem.message.startswith("host gpu-1: gpus_per_host 100 is out of range")
    assert "from 1 to 64" in problem.fix


def test_a_host_named_twice_in_one_file_is_listed_not_merged() -> None:
    """Two vHost rows (or two nodes) of one name are two hosts the inventory cannot tell apart:
    the second is left out with a problem naming its row, not merged into the first in silence."""
    data = _vhost(("esx-01", "prod", 32, 262144), ("esx-02", "prod", 32, 262144))
    data_twice = _vhost(("esx-01", "prod", 32, 262144), ("ESX-01", "prod", 64, 524288))
    imported = import_inventory(
        [("twice.xlsx", data_twice)], CATALOG, gpus_by_cluster={"prod": ("L40S", 4)}
    )
    assert list(imported.frame["host"]) == ["esx-01"]
    (problem,) = imported.problems
    assert (problem.file, problem.row) == ("twice.xlsx [vHost]", 3)
    assert problem.message == (
        "host 'ESX-01' is named a second time in this file (first as 'esx-01' on row 2): left out"
    )
    both = import_inventory([("rv.xlsx", data)], CATALOG, gpus_by_cluster={"prod": ("L40S", 4)})
    assert list(both.frame["host"]) == ["esx-01", "esx-02"]
    assert both.problems == ()


def test_every_unreadable_file_is_named_in_one_refusal() -> None:
    """Two unreadable files beside a good one: the refusal names both, each with its own
    problem, so the user fixes them in one go rather than finding the second once the first is
    removed."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    files = [
        ("notes.txt", b"hello there\nrandom words\n"),
        ("picture.txt", png),
        sample(NVIDIA_SMI_LIST),
    ]
    with pytest.raises(InputError) as caught:
        import_inventory(files, CATALOG)
    named = [(p.file, p.message) for p in caught.value.problems]
    assert named == [
        ("notes.txt", "cannot tell which tool wrote this file"),
        ("picture.txt", "this is a PNG image, not the text a tool prints"),
    ]


_L4_NODE = {"nvidia.com/gpu.product": "NVIDIA-L4", "nvidia.com/gpu.count": "2"}
_ZWSP = "(it holds an invisible character: \\u200b, U+200B ZERO WIDTH SPACE)"


def test_a_host_named_twice_is_quoted_with_its_invisible_character_escaped() -> None:
    """A node named twice in one file whose name holds a zero-width space is quoted with the
    character escaped and named, so it can be told from a name that shows alike; it was
    written into the message unseen."""
    data = kube_list(node("gpu\u200b-1", _L4_NODE), node("gpu\u200b-1", _L4_NODE))
    imported = import_inventory([("nodes.json", data)], CATALOG)
    (problem,) = imported.problems
    assert problem.message == (
        f"host 'gpu\\u200b-1' {_ZWSP} is named a second time in this file: left out"
    )


def test_files_disagreeing_on_a_host_name_it_with_its_invisible_character_escaped() -> None:
    """Two files giving one host (its name holding a zero-width space) different GPU counts:
    the problem names the host with the character escaped."""
    files = [
        ("nodes.json", kube_list(node("gpu\u200b-1", _L4_NODE))),
        ("gpu\u200b-1.txt", b"GPU 0: NVIDIA L4 (UUID: a)\n"),
    ]
    imported = import_inventory(files, CATALOG)
    (problem,) = imported.problems
    assert problem.message == (
        "host gpu\\u200b-1: gpus_per_host is 1 here but 2 in nodes.json; 2 is kept"
    )


def test_a_value_the_inventory_refuses_names_its_host_escaped() -> None:
    """A value the inventory refuses, traced to the file it came from, names its host with an
    invisible character escaped."""
    labels = {**_L4_NODE, "nvidia.com/gpu.count": "100"}
    data = kube_list(node("gpu\u200b-1", labels), node("gpu-2", _L4_NODE))
    loaded = import_inventory([("nodes.json", data)], CATALOG).inventory(CATALOG)
    (problem,) = loaded.problems
    assert problem.message.startswith("host gpu\\u200b-1: gpus_per_host 100 is out of range")


def test_a_cluster_typed_for_its_gpus_matches_by_what_it_shows_and_is_quoted_escaped() -> None:
    """A cluster name typed for its GPUs matches the files' cluster by what it shows, as names
    across files do ('ai\u200b' is cluster 'ai'; it never matched); problems write typed names
    with their invisible characters escaped (the column too): an unknown model's, and a
    cluster typed twice, whose first entry is used."""
    rvtools = _vhost(("esx1", "ai", 8, 8192))
    imported = import_inventory(
        [("x.xlsx", rvtools)], CATALOG, gpus_by_cluster={"ai\u200b": ("L4", 1)}
    )
    (host,) = imported.inventory(CATALOG).value.hosts
    assert (host.gpu_model, host.gpus) == ("L4", 1)
    with pytest.raises(InputError) as caught:
        import_inventory([("x.xlsx", rvtools)], CATALOG, gpus_by_cluster={"AI\u00a0": ("B200", 8)})
    problems = {p.column: p.message for p in caught.value.problems}
    assert "unknown GPU model 'B200'" in problems["gpus_by_cluster[AI\\u00a0]"]
    twice = import_inventory(
        [("x.xlsx", rvtools)], CATALOG, gpus_by_cluster={"ai": ("L4", 1), "AI\u200b": ("L4", 2)}
    )
    (problem,) = twice.problems
    assert problem.column == "gpus_by_cluster[AI\\u200b]"
    assert problem.message.startswith("cluster 'AI\\u200b' ")
    assert "given GPUs twice (also as 'ai'): the first is used" in problem.message
    assert twice.inventory(CATALOG).value.hosts[0].gpus == 1


def test_a_file_named_in_a_disagreement_shows_its_invisible_character_escaped() -> None:
    """Files disagreeing on a host's GPU count: the file whose value is kept is named in the
    problem with its invisible character escaped, as host names are; it was written unseen."""
    files = [
        ("nodes\u200b.json", kube_list(node("gpu-1", _L4_NODE))),
        ("gpu-1.txt", b"GPU 0: NVIDIA L4 (UUID: a)\n"),
    ]
    (problem,) = import_inventory(files, CATALOG).problems
    assert problem.message == (
        "host gpu-1: gpus_per_host is 1 here but 2 in nodes\\u200b.json; 2 is kept"
    )


def test_a_cluster_gpus_entry_that_cannot_be_read_is_quoted() -> None:
    """An entry of the GPUs per cluster that is not CLUSTER=MODEL:GPUS is quoted with its
    invisible character escaped and named."""
    with pytest.raises(InputError) as caught:
        parse_cluster_gpus("prod\u200b=L40S")
    (problem,) = caught.value.problems
    assert problem.message == f"'prod\\u200b=L40S' {_ZWSP} is not CLUSTER=MODEL:GPUS"


def test_a_cluster_typed_twice_in_the_gpus_per_cluster_is_refused_naming_both() -> None:
    """'prod=L40S:4, PROD=L4:1' names one cluster twice (case and invisible characters
    ignored, as in matching): refused naming both as typed; the later replaced the first."""
    with pytest.raises(InputError) as caught:
        parse_cluster_gpus("prod=L40S:4\nPROD\u200b=L4:1")
    (problem,) = caught.value.problems
    assert problem.message.startswith("cluster 'PROD\\u200b' ")
    assert "is given GPUs twice (also as 'prod')" in problem.message
    assert parse_cluster_gpus("prod=L40S:4, dev=L4:1") == {"prod": ("L40S", 4), "dev": ("L4", 1)}


_LGI_ONE_GPU = b"""\
+----------------------------------------------------+
| GPU instances:                                     |
| GPU   Name          Profile  Instance   Placement  |
|                       ID       ID       Start:Size |
|====================================================|
|   0  MIG 1g.6gb       14        3          0:1     |
+----------------------------------------------------+
"""


def test_a_gpu_count_typed_for_the_cluster_beats_the_count_lgi_assumes() -> None:
    """-lgi only assumes a host's GPUs (up to the highest index with instances: 1 here); the
    4 typed for its cluster are used, marked read from the user, and the assumed count is
    noted as not used."""
    imported = import_inventory(
        [("ana-01.txt", _LGI_ONE_GPU)], CATALOG, gpus_by_cluster={"imported": ("A30", 4)}
    )
    assert _row(imported.frame, "ana-01")["gpus_per_host"] == 4
    assert imported.problems == ()
    counts = [n for n in imported.notes if n.field == "gpus_per_host"]
    assert [(n.file, n.value, n.source) for n in counts] == [
        ("ana-01.txt", "1", "assumed"),
        ("user", "4", "read"),
    ]
    assert counts[0].text == "not used: the GPUs given for cluster imported give 4"


def test_a_gpu_count_a_file_reads_is_kept_against_the_typed_one_with_a_problem() -> None:
    """A count read from the host (-L lists 2 GPUs) is kept against the 4 typed for its whole
    cluster, and the conflict is a problem on the typed entry; the same count typed is
    none."""
    gpu_list = b"GPU 0: NVIDIA L4 (UUID: a)\nGPU 1: NVIDIA L4 (UUID: b)\n"
    imported = import_inventory(
        [("h.txt", gpu_list)], CATALOG, gpus_by_cluster={"imported": ("L4", 4)}
    )
    assert _row(imported.frame, "h")["gpus_per_host"] == 2
    (problem,) = imported.problems
    assert (problem.file, problem.column) == ("user", "gpus_by_cluster[imported]")
    assert problem.message == (
        "host h: gpus_per_host is 4 as given for cluster 'imported' but 2 in h.txt; 2 is kept"
    )
    agreeing = import_inventory(
        [("h.txt", gpu_list)], CATALOG, gpus_by_cluster={"imported": ("l4", 2)}
    )
    assert agreeing.problems == ()


def test_a_model_a_file_gives_is_kept_against_the_typed_one_with_a_problem() -> None:
    """The model read from the host (L4) against another typed for its cluster (L40S): the
    file's is kept, the conflict a problem on the typed entry."""
    imported = import_inventory(
        [("h.txt", b"GPU 0: NVIDIA L4 (UUID: a)\n")],
        CATALOG,
        gpus_by_cluster={"imported": ("L40S", 1)},
    )
    assert _row(imported.frame, "h")["gpu_model"] == "L4"
    (problem,) = imported.problems
    assert problem.message.startswith("host h: gpu_model is L40S as given for cluster 'imported'")


def test_an_unknown_model_typed_for_a_cluster_is_one_problem_for_all_its_hosts() -> None:
    """A model the catalog lacks, typed for a cluster of three hosts, is one problem naming
    the typed entry, not one per host."""
    rvtools = _vhost(("esx1", "ai", 8, 8192), ("esx2", "ai", 8, 8192), ("esx3", "ai", 8, 8192))
    with pytest.raises(InputError) as caught:
        import_inventory([("x.xlsx", rvtools)], CATALOG, gpus_by_cluster={"ai": ("B200", 8)})
    unknown = [p for p in caught.value.problems if "unknown GPU model 'B200'" in p.message]
    assert [p.column for p in unknown] == ["gpus_by_cluster[ai]"]


@pytest.mark.parametrize("gpus", ["\u00b2", "9" * 5000, "\u0663", "-1", "4.5"])
def test_gpus_per_cluster_not_in_digits_0_to_9_are_refused_naming_the_entry(gpus: str) -> None:
    """GPUs per cluster must be a whole number in digits 0-9: ``²`` and 5,000 digits (which
    ``int`` refuses), another script's digit, a sign or a point are refused naming the entry,
    cut when long, never a ValueError."""
    with pytest.raises(InputError) as caught:
        parse_cluster_gpus(f"prod=L40S:{gpus}")
    (problem,) = caught.value.problems
    assert problem.file == "GPUs per cluster"
    assert problem.message.startswith("'prod=L40S:")
    assert "digits 0-9" in problem.message
    assert len(problem.message) < 300


def test_a_node_named_as_another_but_for_case_or_an_invisible_character_is_left_out() -> None:
    """Host names are matched by what they show, case aside, in one file as across files: a node
    'n1' + zero-width space, or 'N1', after 'n1' in one file is the same name twice, so it is
    left out with a problem naming the nodes file and the first spelling, as an exact repeat
    is; the import is not refused, and no problem names the 'imported inventory'."""
    nodes = [node(name, _L4_NODE) for name in ("n1", "n1\u200b", "N1", "n2")]
    imported = import_inventory([("nodes.json", kube_list(*nodes))], CATALOG)
    assert list(imported.frame["host"]) == ["n1", "n2"]
    assert [(p.file, p.message) for p in imported.problems] == [
        (
            "nodes.json",
            f"host 'n1\\u200b' {_ZWSP} is named a second time in this file (first as 'n1'): "
            "left out",
        ),
        ("nodes.json", "host 'N1' is named a second time in this file (first as 'n1'): left out"),
    ]
    loaded = imported.inventory(CATALOG)
    assert [h.name for h in loaded.value.hosts] == ["n1", "n2"]
    assert loaded.problems == imported.problems


def test_one_host_named_otherwise_in_another_file_is_noted_with_each_spelling() -> None:
    """One host named 'gpu-1' in the nodes file and 'GPU-1' in an nvidia-smi query is one host
    (names match case aside); the other spelling is named in a note on the file that uses it,
    not merged in silence."""
    query = b"hostname, name, memory.total [MiB]\nGPU-1, NVIDIA L4, 23034 MiB\n"
    files = [
        ("nodes.json", kube_list(node("gpu-1", {**_L4_NODE, "nvidia.com/gpu.count": "1"}))),
        ("gpus.csv", query),
    ]
    imported = import_inventory(files, CATALOG)
    assert list(imported.frame["host"]) == ["gpu-1"]
    named = [
        (n.file, n.line, n.subject, n.value, n.text) for n in imported.notes if n.field == "host"
    ]
    assert named == [
        (
            "gpus.csv",
            2,
            "gpu-1",
            "GPU-1",
            "the host named otherwise in another file (names match by "
            "what they show, case and a domain aside)",
        ),
        ("gpus.csv", 2, "gpu-1", "GPU-1", "the hostname column"),
    ]


def test_a_host_name_the_inventory_refuses_is_traced_to_the_hosts_file() -> None:
    """A host name the inventory validation finds fault with (an invisible character, over 253
    characters), with no note of its own, is reported at the file that named the host, not at
    a row of the 'imported inventory' the user never saw, and worded once ('host x: the host
    name ...')."""
    data = kube_list(node("n2\u200b", _L4_NODE), node("n" * 300, _L4_NODE), node("n3", _L4_NODE))
    loaded = import_inventory([("nodes.json", data)], CATALOG).inventory(CATALOG)
    assert [h.name for h in loaded.value.hosts] == ["n2", "n3"]
    assert [(p.file, p.row, p.column) for p in loaded.problems] == [
        ("nodes.json", None, "host")
    ] * 2
    first, second = (p.message for p in loaded.problems)
    assert first.startswith(f"host n2\\u200b: the host name 'n2\\u200b' {_ZWSP}: the invisible")
    assert second.startswith("host nnnnn")
    assert ": the host name is 300 characters, over the limit of 253" in second


def _l40s_list(gpus: int, uuid: str) -> bytes:
    return "".join(f"GPU {i}: NVIDIA L40S (UUID: GPU-{uuid}{i})\n" for i in range(gpus)).encode()


def test_two_outputs_sharing_a_file_name_and_naming_no_host_are_two_hosts_with_a_problem() -> None:
    """Two nvidia-smi outputs saved under one file name (hostA/nvidia-smi.txt and
    hostB/nvidia-smi.txt reach the planner as nvidia-smi.txt twice) cannot be told apart: each
    is a host of its own, the second numbered, with a problem saying how to name them; no GPU
    is lost by merging them. The same file given twice is still one host."""
    first, second = _l40s_list(8, "a"), _l40s_list(8, "b")
    imported = import_inventory([("nvidia-smi.txt", first), ("nvidia-smi.txt", second)], CATALOG)
    assert list(imported.frame["host"]) == ["nvidia-smi", "nvidia-smi-2"]
    assert list(imported.frame["gpus_per_host"]) == [8, 8]
    (problem,) = imported.problems
    assert problem.file == "nvidia-smi.txt"
    assert problem.row_kept
    assert "cannot be told apart" in problem.message
    assert "'nvidia-smi-2'" in problem.message
    assert "name each file after its host" in problem.fix
    loaded = imported.inventory(CATALOG)
    assert sum(h.gpus for h in loaded.value.hosts) == 16
    again = import_inventory([("nvidia-smi.txt", first), ("nvidia-smi.txt", first)], CATALOG)
    assert list(again.frame["host"]) == ["nvidia-smi"]
    assert not again.problems


def test_a_short_host_name_two_full_names_share_is_left_out_naming_both() -> None:
    """An nvidia-smi file named esx01.txt beside RVTools hosts esx01.site1.corp and
    esx01.site2.corp could be either: it is left out with a problem naming both candidates and
    how to name the file, never given to the first at random."""
    rvtools = _vhost(
        ("esx01.site1.corp", "gpu1", 32, 262144), ("esx01.site2.corp", "gpu2", 32, 262144)
    )
    files = [("export.xlsx", rvtools), ("esx01.txt", _l40s_list(4, "e"))]
    with pytest.raises(InputError) as refused:
        import_inventory(files, CATALOG)
    ambiguous = refused.value.problems[0]
    assert ambiguous.file == "esx01.txt"
    assert "'esx01.site1.corp', 'esx01.site2.corp'" in ambiguous.message
    assert "left out with its 4 GPUs" in ambiguous.message
    assert "esx01.site1.corp.txt" in ambiguous.fix
    named = import_inventory([*files, ("esx01.site2.corp.txt", _l40s_list(2, "f"))], CATALOG)
    assert list(named.frame["host"]) == ["esx01.site2.corp"]


def test_a_node_counting_its_gpus_without_a_model_names_what_is_missing() -> None:
    """An AKS node of a VM size the importer does not know (Standard_NC6, a K80) advertises
    1 GPU: its own model is what is missing, said on the host with a fix per host, beside a
    node whose model is read (it said 'no file gives the GPUs of 1 host' and offered only the
    cluster-wide --cluster-gpus)."""
    nodes = kube_list(
        node(
            "aks-a10-0",
            {"node.kubernetes.io/instance-type": "Standard_NC6"},
            extra={"nvidia.com/gpu": "1"},
        ),
        node("aks-t4-0", {"nvidia.com/gpu.product": "Tesla-T4"}, extra={"nvidia.com/gpu": "1"}),
    )
    imported = import_inventory([("nodes.json", nodes)], CATALOG)
    assert list(imported.frame["host"]) == ["aks-t4-0"]
    (problem,) = [p for p in imported.problems if "aks-a10-0" in p.message]
    assert problem.message == "host aks-a10-0: its files give 1 GPU but not their model; left out"
    assert "inventory CSV with its gpu_model" in problem.fix
    assert not any("no file gives the GPUs" in p.message for p in imported.problems)


def _uid_node(name: str, uid: str | None, labels: dict[str, str], gpus: int) -> dict[str, object]:
    found = node(name, labels, extra={"nvidia.com/gpu": str(gpus)})
    if uid is not None:
        found["metadata"]["uid"] = uid
    return found


_H100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}
_L40S = {"nvidia.com/gpu.product": "NVIDIA-L40S", "nvidia.com/gpu.count": "4"}


def test_two_clusters_nodes_of_one_name_stay_two_hosts_named_after_their_cluster() -> None:
    """worker-0 of cluster prod (8 H100) and worker-0 of cluster dev (4 L40S), in two kubectl
    get nodes files, are two machines: two hosts, the second named dev/worker-0 with a note, no
    GPU lost (they were merged into one host of 8 L40S)."""
    prod = kube_list(_uid_node("worker-0", None, {"cluster-name": "prod", **_H100}, 8))
    dev = kube_list(_uid_node("worker-0", None, {"cluster-name": "dev", **_L40S}, 4))
    imported = import_inventory([("prod.json", prod), ("dev.json", dev)], CATALOG)
    assert list(imported.frame["host"]) == ["worker-0", "dev/worker-0"]
    assert _row(imported.frame, "worker-0")["gpu_model"] == "H100-80GB-SXM"
    assert _row(imported.frame, "dev/worker-0")["gpus_per_host"] == 4
    assert not imported.problems
    (named,) = [n for n in imported.notes if n.field == "host" and n.subject == "dev/worker-0"]
    assert "another machine" in named.text
    assert "'prod.json'" in named.text


def test_nodes_of_one_name_and_other_uids_stay_apart_the_same_uid_merges() -> None:
    """Nodes named alike in two files of one cluster label are told apart by metadata.uid: other
    uids are two hosts (the second named after its file), the same uid is the node given
    twice, one host; and an nvidia-smi output of worker-0 still joins the node by name."""
    first = kube_list(_uid_node("worker-0", "uid-a", _H100, 8))
    other = kube_list(_uid_node("worker-0", "uid-b", _H100, 8))
    apart = import_inventory([("site1.json", first), ("site2.json", other)], CATALOG)
    assert list(apart.frame["host"]) == ["worker-0", "site2/worker-0"]
    assert apart.inventory(CATALOG).value.hosts[1].gpus == 8
    h100_list = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-h{i})\n" for i in range(8))
    again = import_inventory(
        [("nodes.json", first), ("copy.json", first), ("worker-0.txt", h100_list.encode())],
        CATALOG,
    )
    assert list(again.frame["host"]) == ["worker-0"]
    assert again.frame["notes"][0].count(".json") == 2
    assert "worker-0.txt" in again.frame["notes"][0]
    assert not again.problems


def test_nodes_of_one_name_nothing_tells_apart_are_one_host_with_a_problem() -> None:
    """Two files naming a node alike with no metadata.uid and one cluster may be one cluster's
    or two: the node is read once, with a problem naming both files and how to tell them apart
    (the second cluster's GPUs were lost without a word)."""
    same = kube_list(_uid_node("worker-0", None, _H100, 8))
    imported = import_inventory([("a.json", same), ("b.json", same)], CATALOG)
    assert list(imported.frame["host"]) == ["worker-0"]
    (problem,) = imported.problems
    assert problem.file == "b.json"
    assert problem.row_kept
    assert "'worker-0'" in problem.message
    assert "'a.json'" in problem.message
    assert "metadata.uid" in problem.fix
    assert "cluster-name" in problem.fix


def test_a_node_named_after_its_cluster_says_which_clusters_in_its_note() -> None:
    """The note of a node renamed after its cluster names both clusters in plain words."""
    prod = kube_list(_uid_node("worker-0", None, {"cluster-name": "prod", **_H100}, 8))
    dev = kube_list(_uid_node("worker-0", None, {"cluster-name": "dev", **_L40S}, 4))
    imported = import_inventory([("prod.json", prod), ("dev.json", dev)], CATALOG)
    (named,) = [n for n in imported.notes if n.field == "host" and n.subject == "dev/worker-0"]
    assert "(their clusters differ: prod and dev)" in named.text


def test_two_clusters_node_files_of_one_name_keep_their_nodes_apart() -> None:
    """Two clusters' nodes saved under one file name (prod/nodes.json and dev/nodes.json reach
    the planner as nodes.json twice) with nodes of one name and other uids are two hosts; the
    same file given twice is one."""
    prod = kube_list(_uid_node("worker-0", "uid-a", {"cluster-name": "prod", **_H100}, 8))
    dev = kube_list(_uid_node("worker-0", "uid-b", {"cluster-name": "dev", **_L40S}, 4))
    imported = import_inventory([("nodes.json", prod), ("nodes.json", dev)], CATALOG)
    assert list(imported.frame["host"]) == ["worker-0", "dev/worker-0"]
    again = import_inventory([("nodes.json", prod), ("nodes.json", prod)], CATALOG)
    assert list(again.frame["host"]) == ["worker-0"]
    assert not again.problems


_L_A30 = (
    "GPU 0: NVIDIA A30 (UUID: GPU-11111111-2222-3333-4444-555555555555)\n"
    "  MIG 1g.6gb      Device  0: (UUID: MIG-a)\n"
    "  MIG 1g.6gb      Device  1: (UUID: MIG-b)\n"
    "GPU 1: NVIDIA A30 (UUID: GPU-21111111-2222-3333-4444-555555555555)\n"
    "  MIG 2g.12gb     Device  0: (UUID: MIG-c)\n"
)
_LGI_A30 = (
    "+-------------------------------------------------------+\n"
    "| GPU instances:                                        |\n"
    "| GPU   Name             Profile  Instance   Placement  |\n"
    "|                          ID       ID       Start:Size |\n"
    "|=======================================================|\n"
    "|   0  MIG 1g.6gb          14        3          0:1     |\n"
    "+-------------------------------------------------------+\n"
    "|   0  MIG 1g.6gb          14        4          1:1     |\n"
    "+-------------------------------------------------------+\n"
)


def test_one_hosts_files_named_as_readme_names_them_are_one_host() -> None:
    """nvidia-smi -L > gpu-07.txt and nvidia-smi mig -lgi > gpu-07-mig.txt (README's names)
    are one host, gpu-07, with 2 GPUs and GPU 0's layout; the -lgi file made a second host,
    gpu-07-mig, with a GPU of its own."""
    files = [("gpu-07.txt", _L_A30.encode()), ("gpu-07-mig.txt", _LGI_A30.encode())]
    imported = import_inventory(files, CATALOG)
    assert imported.frame["host"].tolist() == ["gpu-07"]
    assert imported.frame["gpus_per_host"].tolist() == [2]
    assert ("gpu-07", 0, "gpu-07-mig.txt") in {
        (g.host, g.gpu_index, g.file) for g in imported.mig_layouts
    }
    assert {g.host for g in imported.mig_layouts} == {"gpu-07"}
    (note,) = [n for n in imported.notes if n.field == "host" and "-mig" in n.text]
    assert "names the output" in note.text
