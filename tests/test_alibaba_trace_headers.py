"""An Alibaba openb node list missing its node names (sn) is still recognised as the trace's,
and refused naming that column, not taken for an inventory CSV missing all of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli import main
from planner.inputs.alibaba_trace import is_node_list, is_pod_list

NODES_WITHOUT_SN = "cpu_milli,memory_mib,gpu,model\n32000,262144,0,\n64000,262144,2,P100\n"


def test_a_node_list_without_sn_is_the_traces_and_no_pod_list() -> None:
    """A header of the node list's other four columns is a node list; a pod list's header,
    which shares cpu_milli and memory_mib, stays a pod list only."""
    assert is_node_list(NODES_WITHOUT_SN.encode())
    assert not is_pod_list(NODES_WITHOUT_SN.encode())
    pods = b"name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,500\n"
    assert (is_node_list(pods), is_pod_list(pods)) == (False, True)
    assert not is_node_list(b"cpu_milli,memory_mib,gpu,num_gpu\n1000,1024,1,1\n")


def test_a_node_list_without_sn_is_refused_naming_sn_and_what_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """plan --inventory on a node list whose sn column was dropped exits 2 with one problem:
    the column sn is missing, to be added with a name per node; not the inventory CSV's
    required host, cluster and gpu_model columns."""
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(NODES_WITHOUT_SN)
    assert main(["plan", "--inventory", str(nodes)]) == 2
    err = capsys.readouterr().err
    assert (
        "nodes.csv: required column 'sn' is missing (found: cpu_milli, memory_mib, gpu, "
        "model). Fix: add a column named 'sn' to the header row, holding a unique name for "
        "each node (the trace's are openb-node-0000, openb-node-0001, ...)"
    ) in err
    assert "'host'" not in err
    assert "inventory table" not in err
