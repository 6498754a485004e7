"""Where the shared real tool outputs are, and small builders of kubectl JSON for importer tests.

The samples live in ``shared/samples`` beside the repository (``../shared/samples`` from a
clone; further up from a worktree), never copied into the project. ``PLANNER_SAMPLES`` names
the folder explicitly. Tests that need a sample skip with a message when it is absent.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers import sheets

REPO = Path(__file__).resolve().parent.parent
CATALOG: Catalog = load_catalog()


def samples_dir() -> Path | None:
    """``$PLANNER_SAMPLES``, else the first ``shared/samples`` beside the repository or above it."""
    given = os.environ.get("PLANNER_SAMPLES")
    if given:
        return Path(given) if Path(given).is_dir() else None
    for folder in (REPO, *REPO.parents):
        candidate = folder / "shared" / "samples"
        if candidate.is_dir():
            return candidate
    return None


def sample(relative: str) -> tuple[str, bytes]:
    """(file name, bytes) of a shared sample; the test is skipped when samples are absent."""
    folder = samples_dir()
    if folder is None:
        pytest.skip("shared/samples not found beside the repository (set PLANNER_SAMPLES)")
    path = folder / relative
    if not path.is_file():
        pytest.skip(f"sample {relative} not found in {folder}")
    return path.name, path.read_bytes()


def sample_path(relative: str) -> Path:
    """The path of a shared sample (skipping as ``sample`` does)."""
    folder = samples_dir()
    if folder is None:
        pytest.skip("shared/samples not found beside the repository (set PLANNER_SAMPLES)")
    path = folder / relative
    if not path.is_file():
        pytest.skip(f"sample {relative} not found in {folder}")
    return path


RVTOOLS = (
    "rvtools/rvtools-export_rvtools4x-vcenter8_anonymized_kubev2v-migration-planner_example1.xlsx"
)
KUBECTL_NODES = "kubectl/get-nodes-json_rke2-vgpu-a16-4q_edgexr.json"
NVIDIA_SMI_QUERY = "nvidia-smi/query-gpu_l40s_595.80_load.csv"
NVIDIA_SMI_LIST = "nvidia-smi/L_8x-h100-80gb-hbm3-mig-7x1g.10gb.txt"
NVIDIA_SMI_TABLE = "nvidia-smi/table_h200-mig_590.48.01_load.txt"
MIG_LGI = "mig/lgi_a30-4x1g.6gb_summer-lo.txt"
MIG_LGIP = "mig/lgip_gh200-480gb_kf-cuanschutz.txt"
DCGM = "dcgm/dcgm-exporter_metrics_l4_kops-aws.prom"
ALL_SAMPLES = (
    RVTOOLS,
    KUBECTL_NODES,
    NVIDIA_SMI_QUERY,
    NVIDIA_SMI_LIST,
    NVIDIA_SMI_TABLE,
    MIG_LGI,
    MIG_LGIP,
    DCGM,
)


def node(
    name: str,
    labels: dict[str, str] | None = None,
    *,
    cpu: str = "64",
    memory: str = "512Gi",
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Node object as ``kubectl get nodes -o json`` lists it."""
    resources = {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "status": {"capacity": resources, "allocatable": resources},
    }


def container(
    name: str = "main",
    *,
    requests: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    restart_policy: str | None = None,
) -> dict[str, Any]:
    """A container spec with its resources."""
    found: dict[str, Any] = {"name": name, "image": "example/image:1", "resources": {}}
    if requests:
        found["resources"]["requests"] = requests
    if limits:
        found["resources"]["limits"] = limits
    if restart_policy:
        found["restartPolicy"] = restart_policy
    return found


def pod(
    name: str,
    *,
    namespace: str = "ml",
    owner: tuple[str, str] | None = None,
    labels: dict[str, str] | None = None,
    containers: list[dict[str, Any]] | None = None,
    init_containers: list[dict[str, Any]] | None = None,
    phase: str = "Running",
    node_selector: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Pod object as ``kubectl get pods -A -o json`` lists it."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels or {}}
    if owner is not None:
        metadata["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "controller": True}
        ]
    spec: dict[str, Any] = {"containers": containers or [container()], "nodeName": "gpu-1"}
    if init_containers:
        spec["initContainers"] = init_containers
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": phase},
    }


def kube_list(*items: dict[str, Any]) -> bytes:
    """A ``kind: List`` of ``items`` as kubectl writes it."""
    return json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": list(items), "metadata": {}}, indent=4
    ).encode()


def as_kubectl_yaml(data: bytes) -> bytes:
    """kubectl's JSON output as ``-o yaml`` writes the same objects: each document as YAML in
    block style, keys sorted, text that would read as another type quoted, ``---`` between
    documents."""
    text = data.decode()
    decoder, documents, position = json.JSONDecoder(), [], 0
    while position < len(text.rstrip()):
        document, position = decoder.raw_decode(text, position)
        documents.append(document)
        position += len(text[position:]) - len(text[position:].lstrip())
    return yaml.safe_dump_all(documents, sort_keys=True, allow_unicode=True).encode()


def european_csv(data: bytes, separator: str = ";") -> bytes:
    """A comma-separated planner CSV as a European spreadsheet saves it: ``separator`` between
    columns and a comma as the decimal mark (``0.25`` -> ``0,25``)."""
    rows = csv.reader(io.StringIO(data.decode("utf-8-sig")))
    out = io.StringIO()
    writer = csv.writer(out, delimiter=separator, lineterminator="\n")
    for row in rows:
        writer.writerow([re.sub(r"^(\d+)\.(\d+)$", r"\1,\2", cell) for cell in row])
    return out.getvalue().encode()


def count_workbook_opens(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list counting each time a workbook is opened (openpyxl) from now on."""
    opened = [0]
    load: Callable[..., Any] = sheets.load_workbook

    def counted(*args: Any, **kwargs: Any) -> Any:
        opened[0] += 1
        return load(*args, **kwargs)

    monkeypatch.setattr(sheets, "load_workbook", counted)
    return opened
