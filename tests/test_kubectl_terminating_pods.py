"""Tests of pods being deleted (``metadata.deletionTimestamp``, kubectl's Terminating)."""

from __future__ import annotations

from typing import Any

from importer_samples import CATALOG, container, kube_list, pod

from planner.inputs.importers.kubectl_pods import group_pods, read_kubectl_pods


def _web(replica_set: str, index: int, *, deleting: bool) -> dict[str, Any]:
    found = pod(
        f"web-{replica_set}-{index}",
        owner=("ReplicaSet", f"web-{replica_set}"),
        labels={"pod-template-hash": replica_set},
        containers=[container(limits={"nvidia.com/gpu": "1"}, requests={"cpu": "2"})],
    )
    if deleting:
        found["metadata"]["deletionTimestamp"] = "2026-11-28T07:59:30Z"
        found["metadata"]["deletionGracePeriodSeconds"] = 30
    return found


def test_pods_being_deleted_in_a_rollout_are_not_counted_and_are_named() -> None:
    """If a Deployment of 2 replicas is listed mid-rollout (2 Running pods of the new ReplicaSet,
    2 of the old one with a deletionTimestamp), its class counts 2 instances, not 4; a note names
    the 2 pods being deleted, and every pod stays in the pod table."""
    pods = kube_list(
        _web("5d9f8b7c6", 0, deleting=False),
        _web("5d9f8b7c6", 1, deleting=False),
        _web("7c4b9d8f5", 0, deleting=True),
        _web("7c4b9d8f5", 1, deleting=True),
    )
    read = read_kubectl_pods(pods, "pods.json", CATALOG)
    assert len(read.pods) == 4
    grouped = group_pods(read.pods, CATALOG)
    assert list(grouped.frame["name"]) == ["web"]
    assert list(grouped.frame["instances"]) == [2]
    (note,) = [n for n in grouped.notes if n.locator == "metadata.deletionTimestamp"]
    assert note.value == "2"
    assert "2 GPU pods are being deleted" in note.text
    assert "ml/web-7c4b9d8f5-0, ml/web-7c4b9d8f5-1" in note.text
    assert "not counted" in note.text
    assert not any("in phase 'Running'" in n.text for n in grouped.notes)
