"""Typical workload mixes a first-time user can start from, as workload-CSV frames.

Each preset is a small, plausible mix in the vocabulary of the workload CSV (see
``docs/input-formats.md``), so it goes through the same validation as a user's file
(``planner.inputs.workloads.workloads_from_frame``). The figures are illustrative defaults chosen to
exercise each sharing method, not measurements of any real estate.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd

from planner.inputs.workloads import WORKLOAD_COLUMNS

__all__ = ["PRESETS", "WORKLOAD_COLUMNS", "Preset", "preset_frame"]


@dataclass(frozen=True)
class Preset:
    """A named workload mix."""

    title: str
    """What the user picks from, e.g. ``Data-science team``."""
    description: str
    """One sentence on who runs this mix and what it stresses."""
    csv: str
    """The mix as workload-CSV rows (header: ``WORKLOAD_COLUMNS``), exactly as a user would write
    them: memory_gib is GPU memory per instance over all its GPUs [GiB], ram_gib host RAM [GiB]."""


_HEADER = ",".join(WORKLOAD_COLUMNS)

_DATA_SCIENCE = Preset(
    title="Data-science team",
    description=(
        "Forty data scientists with notebooks in office hours, fine-tuning on single GPUs, "
        "two large training runs and nightly batch scoring."
    ),
    csv=f"""{_HEADER}
notebooks,notebook,40,0.25,12,0.10,9-18,5,8,32,yes,no,yes,3,
fine-tuning,training,8,1,48,0.70,24x7,7,16,128,no,no,yes,2,
llm-pretrain,training,2,8,640,0.90,24x7,7,96,1024,no,no,no,1,
nightly-scoring,batch,6,0.5,20,0.80,20-6,5,8,64,no,no,yes,3,
""",
)

_INFERENCE = Preset(
    title="Inference platform",
    description=(
        "Always-on model serving: a few large language models that need isolation, many small "
        "services that share GPUs well, and a nightly batch of offline scoring."
    ),
    csv=f"""{_HEADER}
llm-serving,inference,6,1,70,0.55,24x7,7,16,128,yes,yes,no,1,
embeddings,inference,16,0.25,10,0.30,24x7,7,4,32,yes,no,no,2,
vision-api,inference,24,0.125,5,0.20,24x7,7,4,16,yes,no,yes,2,
offline-scoring,batch,8,1,40,0.85,22-6,7,16,64,no,no,yes,3,
""",
)

_VDI_ML = Preset(
    title="VDI plus ML",
    description=(
        "Office desktops and CAD workstations by day on small vGPU profiles, with data-science "
        "notebooks and overnight training that could run on the same GPUs at night."
    ),
    csv=f"""{_HEADER}
office-desktops,vdi,120,0.0625,2,0.15,8-18,5,4,16,yes,no,no,1,
cad-workstations,vdi,20,0.25,8,0.35,8-18,5,8,32,yes,no,no,1,
notebooks,notebook,16,0.25,12,0.10,9-18,5,8,32,yes,no,yes,2,
overnight-training,training,6,1,40,0.80,20-6,7,16,64,no,no,yes,3,
""",
)

PRESETS: Mapping[str, Preset] = MappingProxyType(
    {
        "data-science": _DATA_SCIENCE,
        "inference": _INFERENCE,
        "vdi-ml": _VDI_ML,
    }
)
"""Presets by key, in the order the dashboard offers them."""


def preset_frame(key: str) -> pd.DataFrame:
    """The preset ``key`` as a workload-CSV frame (one row per workload class).

    Raises ``KeyError`` naming the known keys when ``key`` is not a preset.
    """
    try:
        preset = PRESETS[key]
    except KeyError:
        known = ", ".join(PRESETS)
        raise KeyError(f"no workload preset named {key!r}; known presets: {known}") from None
    # Every cell is read as text, as the CSV loader reads a user's file; empty cells stay empty.
    return pd.read_csv(io.StringIO(preset.csv), dtype=str, keep_default_na=False)
