"""Tests of kubectl output that is not a plain list of nodes or pods: an error kubectl answered
with, nodes and pods in one file."""

from __future__ import annotations

import json

import pytest
from importer_samples import kube_list, node, pod

from planner.inputs.importers.detect import Role, detect_format
from planner.inputs.problems import InputError

_FORBIDDEN = json.dumps(
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": 'nodes is forbidden: User "x" cannot list resource "nodes"',
        "reason": "Forbidden",
        "code": 403,
    }
).encode()


@pytest.mark.parametrize("role", ["inventory", "workloads"])
def test_a_kubectl_error_status_is_refused_with_kubectls_own_message(role: Role) -> None:
    """If kubectl answered with an error (a 403 Status), the problem quotes its message, reason
    and code and says how to check the user's rights, not 'objects of kind Status'."""
    with pytest.raises(InputError) as raised:
        detect_format("forbidden.json", _FORBIDDEN, role=role)
    problem = raised.value.problems[0]
    assert 'cannot list resource "nodes"' in problem.message
    assert "(Forbidden, code 403)" in problem.message
    assert "kubectl auth can-i" in problem.fix


@pytest.mark.parametrize("role", ["inventory", "workloads"])
def test_nodes_and_pods_in_one_file_are_refused_naming_both_commands(role: Role) -> None:
    """If one file holds nodes and pods (kubectl get nodes,pods), it is refused as holding both,
    with the two commands that list them apart, whichever role it was given for."""
    data = kube_list(node("gpu-1", extra={"nvidia.com/gpu": "8"}), pod("train-0"))
    with pytest.raises(InputError) as raised:
        detect_format("both.json", data, role=role)
    problem = raised.value.problems[0]
    assert "both nodes and pods" in problem.message
    assert "kubectl get nodes -o json" in problem.fix
    assert "kubectl get pods -A -o json" in problem.fix
