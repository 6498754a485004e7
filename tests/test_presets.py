"""Workload presets for first-time users (planner.inputs.presets)."""

from __future__ import annotations

import pytest

from planner.inputs.catalog import load_catalog
from planner.inputs.presets import PRESETS, WORKLOAD_COLUMNS, preset_frame
from planner.inputs.workloads import workloads_from_frame


@pytest.mark.parametrize("key", list(PRESETS))
def test_preset_frames_use_the_workload_csv_columns(key: str) -> None:
    """Each preset is a frame in the workload CSV's own columns, with unique class names."""
    frame = preset_frame(key)
    assert tuple(frame.columns) == WORKLOAD_COLUMNS
    assert len(frame) >= 3
    assert frame["name"].is_unique


def test_an_unknown_preset_names_the_known_ones() -> None:
    """Asking for a preset that does not exist names every preset that does."""
    with pytest.raises(KeyError, match="data-science"):
        preset_frame("gaming")


@pytest.mark.parametrize("key", list(PRESETS))
def test_presets_load_without_a_single_problem(key: str) -> None:
    """Every preset passes the workload loader's validation with zero problems, row for row."""
    loaded = workloads_from_frame(preset_frame(key), load_catalog(), file_name=f"{key}.csv")
    assert loaded.problems == ()
    assert [w.name for w in loaded.value] == list(preset_frame(key)["name"])
    assert (
        sum(w.instances for w in loaded.value) == preset_frame(key)["instances"].astype(int).sum()
    )
