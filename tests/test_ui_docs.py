"""The sample scenario's figures quoted in README.md and data/sample/README.md match its files."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample"


def _figures() -> tuple[int, int, int, int, int]:
    """GPUs, hosts, clusters, workload instances and classes of the bundled sample."""
    hosts = pd.read_csv(SAMPLE / "inventory.csv")
    mix = pd.read_csv(SAMPLE / "workloads.csv")
    return (
        int((hosts["gpus_per_host"] * hosts["count"]).sum()),
        int(hosts["count"].sum()),
        hosts["cluster"].nunique(),
        int(mix["instances"].sum()),
        len(mix),
    )


def test_the_sample_readme_quotes_the_sample_as_it_is() -> None:
    """data/sample/README.md gives the sample's GPUs, hosts, clusters, instances and classes as
    the CSVs hold them (it said 200 GPUs, 36 hosts, 252 instances in 13 classes)."""
    gpus, hosts, clusters, instances, classes = _figures()
    text = (SAMPLE / "README.md").read_text(encoding="utf-8")
    assert f"**{gpus} GPUs in {hosts} hosts**" in text
    assert f"({instances} instances in {classes} classes)" in text.replace("`workloads.csv`, ", "")
    table_clusters = re.findall(r"^\| `([\w-]+)` \|", text, flags=re.MULTILINE)
    assert len(table_clusters) == clusters


def test_the_readme_quotes_the_sample_as_it_is() -> None:
    """README.md's dashboard section names the sample's GPUs and instances as the CSVs hold them."""
    gpus, _, _, instances, _ = _figures()
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"(a {gpus}-GPU enterprise, {instances} workload instances)" in text
