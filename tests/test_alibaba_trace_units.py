"""Alibaba openb trace lists written in the wrong unit: cores and GiB where milli-cores and MiB
go, a share of a GPU where thousandths go. Each is a problem naming file, row, column and the
number to write, never a number read silently."""

from __future__ import annotations

import pytest

from planner.inputs.alibaba_trace import load_node_list, load_pod_list
from planner.inputs.catalog import Catalog, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_a_node_written_in_cores_and_gib_is_left_out_naming_the_number_to_write(
    catalog: Catalog,
) -> None:
    """A node of 64 in cpu_milli and 256 in memory_mib would be a host of 0.064 cores and
    0.25 GiB: each cell is a problem saying the column is in milli-cores (or MiB) and the
    number to write, and the node is left out; a node of one core and one GiB is read."""
    nodes = (
        "sn,cpu_milli,memory_mib,gpu,model\n"
        "n1,64000,262144,2,T4\n"
        "n2,64,256,8,G2\n"
        "n3,1000,1024,1,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    assert [(h.name, h.cpu_cores, h.ram_gib) for h in loaded.value.inventory.hosts] == [
        ("n1", 64.0, 256.0),
        ("n3", 1.0, 1.0),
    ]
    found = [(p.file, p.row, p.column, p.message, p.fix, p.row_kept) for p in loaded.problems]
    assert found == [
        (
            "nodes.csv",
            3,
            "cpu_milli",
            "64 milli-cores is 0.064 cores, less than one: node left out; the column is in "
            "milli-cores, not cores",
            "write 64000 for 64 cores (cores × 1000)",
            False,
        ),
        (
            "nodes.csv",
            3,
            "memory_mib",
            "256 MiB is 0.25 GiB, less than one: node left out; the column is in MiB, not GiB",
            "write 262144 for 256 GiB (GiB × 1024)",
            False,
        ),
    ]


def test_a_gpu_pod_under_one_core_and_one_gib_is_read_as_written_with_a_problem(
    catalog: Catalog,
) -> None:
    """A pod with a GPU asking for 12 milli-cores and 16 MiB is a pod written in cores and GiB:
    it is planned as written (Kubernetes allows so small a request) with a problem on each
    cell naming the number to write; a GPU pod under one core only, and a pod without GPU of
    0.1 core and 128 MiB, are ordinary requests with no problem."""
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        "p1,12000,16384,1,1000\n"
        "p2,12,16,1,1000\n"
        "p3,500,8192,1,500\n"
        "p4,100,128,0,0\n"
    )
    loaded = load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["T4"])
    vcpus = sorted(w.vcpus for w in (*loaded.value.workloads, *loaded.value.cpu_only))
    assert vcpus == [0.012, 0.1, 0.5, 12.0]
    found = [(p.row, p.column, p.fix, p.row_kept) for p in loaded.problems]
    assert found == [
        (3, "cpu_milli", "write 12000 for 12 cores (cores × 1000)", True),
        (3, "memory_mib", "write 16384 for 16 GiB (GiB × 1024)", True),
    ]
    assert loaded.problems[0].message == (
        "12 milli-cores is 0.012 cores, in a pod with a GPU that asks for under one core and "
        "one GiB: read as written; the column is in milli-cores, not cores"
    )


def test_gpu_milli_written_as_a_share_of_a_gpu_is_refused_naming_the_thousandths(
    catalog: Catalog,
) -> None:
    """gpu_milli divided by 1000 (a whole GPU written 1.0, a share 0.46) would read 1.0 as one
    thousandth of a GPU: every such pod is left out with a problem naming the thousandths to
    write (1000, 460), on one GPU or several; 460 and 1000 are read as ever."""
    pods = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        "p1,12000,16384,1,1.0\n"
        "p2,6000,12288,1,0.46\n"
        "p3,6000,12288,1,1\n"
        "p4,96000,65536,8,1.0\n"
        "p5,6000,12288,1,460\n"
        "p6,12000,16384,1,1000\n"
    )
    loaded = load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=["T4"])
    assert sorted(w.gpus for w in loaded.value.workloads) == [0.46, 1.0]
    found = [(p.row, p.column, p.message, p.fix, p.row_kept) for p in loaded.problems]
    whole = "write 1000 if whole GPUs are meant (a share of 0.46 GPU is 460)"
    assert found == [
        (
            2,
            "gpu_milli",
            "1.0 is one thousandth of a GPU: gpu_milli is in thousandths, a whole GPU is 1000",
            whole,
            False,
        ),
        (
            3,
            "gpu_milli",
            "0.46 is a share of a GPU, written where thousandths of a GPU go",
            "write 460 for 0.46 of a GPU: gpu_milli is the share × 1000, and 1000 for a whole GPU",
            False,
        ),
        (
            4,
            "gpu_milli",
            "1 is one thousandth of a GPU: gpu_milli is in thousandths, a whole GPU is 1000",
            whole,
            False,
        ),
        (
            5,
            "gpu_milli",
            "1.0 is one thousandth of a GPU: gpu_milli is in thousandths, a whole GPU is 1000",
            whole,
            False,
        ),
    ]
