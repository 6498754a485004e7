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


def test_a_node_model_written_as_pandas_writes_an_empty_cell_is_no_model(
    catalog: Catalog,
) -> None:
    """'nan', 'NaN', 'None', 'N/A' in model are an empty cell as pandas or Python wrote it (the
    published README shows a CPU-only node's model as nan): a node with GPUs and such a model
    is left out with a problem naming row and column, not planned with a guessed GPU; a node
    without GPUs is a CPU-only host, said in a note."""
    nodes = (
        NODE_HEADER + "g0,32000,262144,8,nan\n"
        "g1,32000,262144,8,NaN\n"
        "g2,32000,262144,8,None\n"
        "g3,32000,262144,8,N/A\n"
        "c0,32000,262144,0,nan\n"
        "c1,32000,262144,0,\n"
        "t0,64000,262144,2,T4\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    hosts = loaded.value.inventory.hosts
    assert [(h.name, h.gpus, h.gpu_model) for h in hosts] == [
        ("c0", 0, ""),
        ("c1", 0, ""),
        ("t0", 2, "T4"),
    ]
    assert set(loaded.value.catalog.gpus) == set(catalog.gpus)
    assert [(p.row, p.column, p.message) for p in loaded.problems] == [
        (
            row,
            "model",
            f"a node with GPUs names no GPU model ('{text}' stands for an empty cell): node "
            "left out",
        )
        for row, text in ((2, "nan"), (3, "NaN"), (4, "None"), (5, "N/A"))
    ]
    assert "2 nodes have no GPU (gpu 0): CPU-only hosts, for pods without GPU" in [
        n.text for n in loaded.value.notes
    ]


def test_vendor_and_trace_model_names_are_read_as_the_models_they_name(
    catalog: Catalog,
) -> None:
    """A model written as nvidia-smi names it ('NVIDIA A100-SXM4-80GB', 'Tesla-T4') is the
    catalog's model (A100-80GB-SXM, T4), said in a note, not a new model with guessed figures;
    the trace's V100M32 written 'v100m32' first is V100M32 on both rows, with its datasheet's
    32 GiB, 250 W and 112 TFLOPS, and the note on it names the other spelling."""
    nodes = (
        NODE_HEADER + "a,64000,262144,8,NVIDIA A100-SXM4-80GB\n"
        "b,64000,262144,2,Tesla-T4\n"
        "c,64000,262144,8,v100m32\n"
        "d,64000,262144,8,V100M32\n"
    )
    loaded = load_node_list(nodes.encode(), catalog, file_name="nodes.csv")
    assert loaded.problems == ()
    cluster = loaded.value
    assert [h.gpu_model for h in cluster.inventory.hosts] == [
        "A100-80GB-SXM",
        "T4",
        "V100M32",
        "V100M32",
    ]
    assert set(cluster.catalog.gpus) - set(catalog.gpus) == {"V100M32"}
    v100 = cluster.catalog.gpus["V100M32"]
    assert (v100.memory_gib, v100.tdp_w, v100.fp16_tflops) == (32.0, 250.0, 112.0)
    texts = [n.text for n in cluster.notes if n.locator == "model"]
    assert texts[0].startswith(
        "GPU model 'V100M32' (2 nodes, first on row 4) is not in the catalog: taken as a GPU "
        "of 32 GiB, 250 W and 112 TFLOPS FP16 (from its datasheet)"
    )
    assert texts[0].endswith(
        "also written 'v100m32' (row 4): one model, case, spaces and dashes aside"
    )
    assert texts[1:] == [
        "GPU model 'NVIDIA A100-SXM4-80GB' (1 node, first on row 2) is read as the catalog "
        "model A100-80GB-SXM: 'NVIDIA A100-SXM4-80GB' is A100-80GB-SXM: 80 GB; SXM",
        "GPU model 'Tesla-T4' (1 node, first on row 3) is read as the catalog model T4: "
        "'Tesla-T4' is the catalog model T4",
    ]


def test_gpu_spec_nan_is_no_constraint_and_commas_or_semicolons_separate_models(
    catalog: Catalog,
) -> None:
    """The trace's README documents gpu_spec 'nan' as no constraint: such pods (and 'None',
    empty) may use any model, none left out. Models separated by ',' or ';' are read as the
    trace's '|' separates them, said in a note naming the pods; a vendor name ('Tesla-T4') is
    the catalog model the nodes have."""
    cluster = load_node_list(
        (NODE_HEADER + "t,64000,262144,4,T4\nv,64000,262144,8,V100M16\n").encode(), catalog
    ).value
    pods = (
        POD_HEADER + "p0,1000,1024,1,500,nan\n"
        "p1,1000,1024,1,500,None\n"
        "p2,1000,1024,1,500,\n"
        'p3,1000,1024,1,1000,"V100M16,T4"\n'
        "p4,1000,1024,1,1000,V100M16;T4\n"
        "p5,1000,1024,1,1000,Tesla-T4\n"
    )
    loaded = load_pod_list(
        pods.encode(), cluster.catalog, file_name="pods.csv", gpu_models=("T4", "V100M16")
    )
    assert loaded.problems == ()
    classes = {w.gpu_models: w.instances for w in loaded.value.workloads}
    assert classes == {(): 3, ("T4", "V100M16"): 2, ("T4",): 1}
    texts = [n.text for n in loaded.value.notes if n.locator == "gpu_spec"]
    assert texts == [
        "GPU model 'Tesla-T4' (1 pod, first on row 7) is read as the catalog model T4: "
        "'Tesla-T4' is the catalog model T4",
        "2 pods, first on row 5, separate models by ',' or ';': read as separated by '|', as "
        "the trace writes them",
    ]
