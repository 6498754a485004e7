"""Hostile CSV files through every reader of CSV: the planner's tables, the trace lists, tool
output (nvidia-smi's query CSV, RVTools' vHost tab) and demand curves read through
``tabular.csv_records``, so a quote left open is refused by each of them alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planner.inputs.alibaba_trace import load_node_list
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers.nvidia_smi import read_nvidia_smi_query
from planner.inputs.importers.rvtools import read_rvtools
from planner.inputs.inventory import load_inventory
from planner.inputs.problems import InputError, InputProblem
from planner.inputs.workloads import load_workloads
from planner.time.demand import parse_curve

CATALOG: Catalog = load_catalog()

_INVENTORY = (
    "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,notes\n"
    'gpu-01,prod,L40S,4,64,512,100,yes,"moved from rack 12 (TBD\n'
    "gpu-02,prod,L40S,4,64,512,100,yes,\n"
    "gpu-03,prod,L40S,4,64,512,100,yes,\n"
    "gpu-04,prod,L40S,4,64,512,100,yes,\n"
)
_WORKLOADS = (
    "name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,ram_gib,"
    "live_migration,isolation,latency_tolerant,notes\n"
    'nb,notebook,4,0.25,10,10%,9-17,5,4,32,no,no,yes,"team A\n'
    "train,training,2,1,40,70%,24x7,7,16,128,no,no,no,\n"
    "infer,inference,3,1,20,50%,24x7,7,8,64,no,no,no,\n"
)
_NODE_LIST = (
    'sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,"P100\n'
    "n2,64000,262144,2,P100\nn3,64000,262144,2,P100\n"
)
_QUERY = (
    "name, memory.total [MiB], vbios_version\n"
    'NVIDIA L4, 23034 MiB, "95.04\nNVIDIA L4, 23034 MiB, 95.04\nNVIDIA L4, 23034 MiB, 95.04\n'
)
_VHOST = (
    "Host,Cluster,Config status,# CPU,Cores per CPU,# Cores,# Memory\n"
    'esx1.lab,"gpu,green,2,32,64,1048576\n'
    "esx2.lab,gpu,green,2,32,64,1048576\n"
    "esx3.lab,gpu,green,2,32,64,1048576\n"
)
_CURVE = 'hour,share\n0,"0.5\n' + "".join(f"{h},0.5\n" for h in range(1, 24))


_NEVER_CLOSED = 'the quote (") opening this cell is never closed: '
_RUNS_OVER_ROWS = (
    "the quoted text of this cell runs over lines 3-4, which look like rows of the table (3 "
    "cells, as the header has)"
)


def _refusal(read: Callable[[], object]) -> InputProblem:
    """The one problem ``read`` refuses its file with."""
    with pytest.raises(InputError) as caught:
        read()
    (problem,) = caught.value.problems
    return problem


@pytest.mark.parametrize(
    ("read", "file", "row", "column", "said"),
    [
        (
            lambda: load_inventory(_INVENTORY.encode(), CATALOG, file_name="inventory.csv"),
            "inventory.csv",
            2,
            "notes",
            _NEVER_CLOSED + "lines 3-5",
        ),
        (
            lambda: load_workloads(_WORKLOADS.encode(), CATALOG, file_name="workloads.csv"),
            "workloads.csv",
            2,
            "notes",
            _NEVER_CLOSED + "lines 3-4",
        ),
        (
            lambda: load_node_list(_NODE_LIST.encode(), CATALOG, file_name="nodes.csv"),
            "nodes.csv",
            2,
            "model",
            _NEVER_CLOSED + "lines 3-4",
        ),
        (
            lambda: read_nvidia_smi_query(_QUERY.encode(), "gpu-01.csv", CATALOG),
            "gpu-01.csv",
            2,
            "vbios_version",
            _RUNS_OVER_ROWS,
        ),
        (
            lambda: read_rvtools(_VHOST.encode(), "RVTools_tabvHost.csv"),
            "RVTools_tabvHost.csv [vHost]",
            2,
            "Cluster",
            _NEVER_CLOSED + "lines 3-4",
        ),
        (
            lambda: parse_curve(_CURVE, source="curve.csv"),
            "curve.csv",
            2,
            "share",
            _NEVER_CLOSED + "lines 3-25",
        ),
    ],
    ids=["inventory", "workloads", "trace-node-list", "nvidia-smi-query", "rvtools-vhost", "curve"],
)
def test_every_csv_reader_refuses_a_quote_never_closed_naming_where_it_opened(
    read: Callable[[], object], file: str, row: int, column: str, said: str
) -> None:
    """A quote opened in a cell and never closed takes the rest of the file into that cell:
    the hosts, classes, nodes, GPUs and curve steps on those lines were lost without a word
    (or one host's GPU model became the text of three rows). Every reader refuses the file
    on the row and column where the quote opened, naming the lines taken. A tool's output is
    read without its last line end, so there the lines taken are told by looking like rows."""
    problem = _refusal(read)
    assert (problem.file, problem.row, problem.column) == (file, row, column)
    assert problem.message.startswith(said)
    assert problem.fix.startswith("close the quote (\") where the cell's text ends")


def test_the_alibaba_node_list_read_from_its_path_refuses_a_quote_never_closed(
    tmp_path: Path,
) -> None:
    """The trace's node list, given as a path as the command line gives it, is refused as its
    bytes are: the node list's file name, row 2, column 'model'."""
    path = tmp_path / "openb_node_list_gpu_node.csv"
    path.write_text(_NODE_LIST)
    problem = _refusal(lambda: load_node_list(path, CATALOG))
    assert (problem.file, problem.row, problem.column) == (path.name, 2, "model")
