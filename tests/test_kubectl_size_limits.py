"""Size limits of kubectl output: JSON has its own, larger limit; YAML and planner CSVs keep the
limit of every file; the dashboard takes the largest."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.importers.mix import import_workloads
from planner.inputs.limits import MAX_FILE_MB, MAX_KUBECTL_JSON_MB, MAX_UPLOAD_MB
from planner.inputs.problems import InputError
from planner.inputs.workloads import load_workloads

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog()
_PAD = "x" * 3000
"""A pod's last-applied copy of itself, most of a large cluster's kubectl output."""


def _pod(number: int) -> dict[str, object]:
    """A running pod of Deployment ``train`` asking for one GPU, with a 3 KB annotation."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"train-5d9c7-{number:05d}",
            "namespace": "ml",
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": _PAD},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "train-5d9c7", "controller": True}],
        },
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        },
        "status": {"phase": "Running"},
    }


def _pods_json(megabytes: int) -> tuple[bytes, int]:
    """``kubectl get pods -A -o json`` of just over ``megabytes`` MB, and its pod count."""
    count = megabytes * 1024 * 1024 // len(json.dumps(_pod(0))) + 1
    items = [_pod(n) for n in range(count)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode(), count


def test_kubectl_json_over_the_file_limit_is_read_with_every_pod() -> None:
    """A 25 MB kubectl pods JSON, over the 20 MB of every file, is read: its pods are one class
    with an instance each."""
    data, count = _pods_json(25)
    assert len(data) > MAX_FILE_MB * 1024 * 1024
    imported = import_workloads([("pods.json", data)], CATALOG)
    assert imported.problems == ()
    assert len(imported.pods) == count
    assert imported.frame["instances"].sum() == count


def test_kubectl_json_over_its_own_limit_is_refused_with_the_kubectl_fix() -> None:
    """kubectl JSON over its own limit is refused naming its size and that limit, with the fix
    that fits kubectl output: the jq command leaving out the last-applied copies, or a part per
    file."""
    data = b'{"apiVersion": "v1", "kind": "List", "items": [' + b" " * (101 << 20) + b"]}"
    with pytest.raises(InputError) as caught:
        import_workloads([("pods.json", data)], CATALOG)
    (problem,) = caught.value.problems
    assert problem.file == "pods.json"
    assert problem.message == f"the file is 101.0 MB, over the limit of {MAX_KUBECTL_JSON_MB} MB"
    assert "kubectl get pods -A -o json | jq" in problem.fix
    assert "last-applied-configuration" in problem.fix
    assert "-n NAMESPACE" in problem.fix


def test_kubectl_yaml_over_the_file_limit_is_refused_saying_json_is_read_larger() -> None:
    """kubectl's YAML keeps the 20 MB limit (it is read several times slower than JSON): its
    refusal says to give JSON, which jq's command writes."""
    data = b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n" + b"#" * (
        21 << 20
    )
    with pytest.raises(InputError) as caught:
        import_workloads([("pods.yaml", data)], CATALOG)
    (problem,) = caught.value.problems
    assert problem.message == f"the file is 21.0 MB, over the limit of {MAX_FILE_MB} MB"
    assert f"as JSON, which jq writes and is read up to {MAX_KUBECTL_JSON_MB} MB" in problem.fix


def test_a_planner_csv_keeps_the_file_limit_and_its_fix() -> None:
    """A 25 MB workload CSV is still refused at 20 MB, with the CSV's fix (the instances
    column), not kubectl's."""
    data = b"name,instances\n" + b"a,1\n" * ((25 << 20) // 4)
    with pytest.raises(InputError) as caught:
        import_workloads([("workloads.csv", data)], CATALOG)
    (problem,) = caught.value.problems
    assert problem.message == f"the file is 25.0 MB, over the limit of {MAX_FILE_MB} MB"
    assert "'instances' column" in problem.fix
    with pytest.raises(InputError, match=f"over the limit of {MAX_FILE_MB} MB"):
        load_workloads(data, CATALOG, file_name="workloads.csv")


def test_the_dashboard_upload_limit_lets_kubectl_json_through() -> None:
    """Streamlit's server refuses uploads over server.maxUploadSize before the planner sees
    them, so it is the largest limit, kubectl JSON's; each reader refuses its own."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_UPLOAD_MB == MAX_KUBECTL_JSON_MB
