"""Variants of the Alibaba openb trace (alibaba/clusterdata cluster-trace-gpu-v2023): every
published list loads, and the trace's own spellings (``nan`` for no value, vendor model names)
are read as the trace means them."""

from __future__ import annotations

import pytest

from planner.inputs.alibaba_trace import load_node_list, load_pod_list
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.limits import MAX_GPUS, MAX_TRACE_PODS
from planner.inputs.problems import InputError

POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model\n"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _pods(count: int) -> bytes:
    """A pod list of ``count`` half-GPU pods, named as the trace names them."""
    rows = "".join(f"openb-pod-{i:05d},4000,8192,1,500,\n" for i in range(count))
    return (POD_HEADER + rows).encode()


def test_a_pod_list_as_long_as_the_longest_published_one_loads_whole(catalog: Catalog) -> None:
    """openb_pod_list_cpu300.csv, the longest published list, has 10,094 pods, over the
    planner CSV's 10,000 rows: a pod list of that many is read whole."""
    loaded = load_pod_list(_pods(10_094), catalog, file_name="openb_pod_list_cpu300.csv")
    assert loaded.problems == ()
    assert sum(w.instances for w in loaded.value.workloads) == 10_094


def test_a_pod_list_over_its_limit_is_refused_with_a_fix_for_a_pod_list(
    catalog: Catalog,
) -> None:
    """A pod list of more pods than the limit is refused naming the limit, with a fix that
    applies to a trace (split the pod list), not the planner CSV's 'count' column."""
    with pytest.raises(InputError) as raised:
        load_pod_list(_pods(MAX_TRACE_PODS + 1), catalog, file_name="pods.csv")
    (problem,) = raised.value.problems
    assert problem.file == "pods.csv"
    assert problem.message == (
        f"the table has more than {MAX_TRACE_PODS:,} rows below the header, the limit"
    )
    assert problem.fix == (
        f"split the pod list into lists of at most {MAX_TRACE_PODS:,} pods and plan each on the "
        "node list"
    )
    assert "count" not in problem.fix


def test_a_node_list_over_the_gpu_limit_is_refused_as_an_inventory_is(catalog: Catalog) -> None:
    """A node list of more GPUs than an inventory may hold (80,000) is refused naming the GPUs
    and the limit, as the planner's inventory CSV is; one within it is read."""
    nodes = MAX_GPUS // 16 + 1
    rows = "".join(f"n{i},96000,393216,16,G2\n" for i in range(nodes))
    with pytest.raises(InputError) as raised:
        load_node_list((NODE_HEADER + rows).encode(), catalog, file_name="nodes.csv")
    (problem,) = raised.value.problems
    assert (problem.file, problem.row) == ("nodes.csv", None)
    assert problem.message == (
        f"the node list has {nodes * 16:,} GPUs, over the limit of {MAX_GPUS:,} GPUs"
    )
    assert problem.fix == "plan one cluster or site at a time (one node list each)"
    within = "".join(f"n{i},96000,393216,16,G2\n" for i in range(nodes - 1))
    loaded = load_node_list((NODE_HEADER + within).encode(), catalog)
    assert loaded.value.inventory.gpu_count == (nodes - 1) * 16
