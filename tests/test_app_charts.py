"""The placement map's geometry and the comparison charts (ui.charts), without Streamlit."""

from __future__ import annotations

import pandas as pd
import pytest

from ui import charts

MEMORY = {"A100-80GB-PCIe": 80.0, "L40S": 48.0}
SLICES = {"A100-80GB-PCIe": 8, "L40S": 0}


def _placements(rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame["start_slice"] = frame["start_slice"].astype("Int64")
    frame["gpu_config"] = "cfg"
    frame["compute_share"] = 0.5
    frame["profile"] = frame.get("profile", "p")
    return frame


def test_mig_slots_sit_at_their_memory_slice() -> None:
    """A MIG instance starting at slice 4 of an 8-slice 80 GiB GPU starts at 40 GiB on the map."""
    layout = charts.placement_layout(
        _placements(
            [
                {
                    "instance": "a#1",
                    "workload": "a",
                    "host": "h1",
                    "gpu_index": 0,
                    "gpu_model": "A100-80GB-PCIe",
                    "memory_gib": 40.0,
                    "start_slice": 4,
                },
                {
                    "instance": "b#1",
                    "workload": "b",
                    "host": "h1",
                    "gpu_index": 0,
                    "gpu_model": "A100-80GB-PCIe",
                    "memory_gib": 10.0,
                    "start_slice": 0,
                },
            ]
        ),
        MEMORY,
        SLICES,
    )
    by_instance = layout.set_index("instance")
    assert by_instance.loc["a#1", "start_gib"] == pytest.approx(40.0)
    assert by_instance.loc["a#1", "end_gib"] == pytest.approx(80.0)
    assert by_instance.loc["b#1", "start_gib"] == pytest.approx(0.0)
    assert set(layout["capacity_gib"]) == {80.0}


def test_shared_slots_are_laid_end_to_end_per_gpu() -> None:
    """Without MIG slices, slots of one GPU follow each other; each GPU starts again at 0 GiB."""
    layout = charts.placement_layout(
        _placements(
            [
                {
                    "instance": f"v#{i}",
                    "workload": "v",
                    "host": "h2",
                    "gpu_index": i // 2,
                    "gpu_model": "L40S",
                    "memory_gib": 12.0,
                    "start_slice": None,
                }
                for i in range(4)
            ]
        ),
        MEMORY,
        SLICES,
    )
    assert list(layout["start_gib"]) == [0.0, 12.0, 0.0, 12.0]
    assert list(layout["end_gib"]) == [12.0, 24.0, 12.0, 24.0]
    assert list(layout["gpu"]) == ["h2 · GPU 0"] * 2 + ["h2 · GPU 1"] * 2


def test_empty_placements_give_an_empty_layout() -> None:
    """A method that placed nothing gives an empty layout with the map's columns, not an error."""
    empty = pd.DataFrame(
        columns=[
            "instance",
            "workload",
            "host",
            "gpu_index",
            "gpu_model",
            "gpu_config",
            "profile",
            "memory_gib",
            "compute_share",
            "start_slice",
        ]
    )
    layout = charts.placement_layout(empty, MEMORY, SLICES)
    assert layout.empty
    assert {"gpu", "start_gib", "end_gib", "capacity_gib"} <= set(layout.columns)


def test_placement_chart_has_one_row_per_gpu() -> None:
    """The map's height grows with the GPUs shown and its GPU axis lists each GPU once, in order."""
    layout = charts.placement_layout(
        _placements(
            [
                {
                    "instance": f"v#{i}",
                    "workload": "v",
                    "host": "h",
                    "gpu_index": i,
                    "gpu_model": "L40S",
                    "memory_gib": 24.0,
                    "start_slice": None,
                }
                for i in range(10)
            ]
        ),
        MEMORY,
        SLICES,
    )
    spec = charts.placement_chart(layout, charts.workload_colours(["v"])).to_dict()
    assert spec["height"] == charts.GPU_ROW_PX * 10
    assert spec["layer"][0]["encoding"]["y"]["sort"] == [f"h · GPU {i}" for i in range(10)]


def test_cost_chart_stacks_components_per_method() -> None:
    """The cost chart sums usd_per_year by method and colours it by component."""
    costs = pd.DataFrame(
        {"method": ["MIG", "MIG"], "component": ["hardware", "licences"], "usd_per_year": [1, 2]}
    )
    spec = charts.cost_chart(costs).to_dict()
    assert spec["encoding"]["x"]["aggregate"] == "sum"
    assert spec["encoding"]["color"]["field"] == "component"
    assert spec["encoding"]["y"]["sort"] == charts.METHOD_ORDER


def test_the_bound_chart_names_its_grey_tick() -> None:
    """The grey tick of 'GPUs used against the lower bound' has no legend entry: the chart's
    subtitle says what it is."""
    frame = pd.DataFrame(
        {"method": ["Passthrough", "MIG"], "gpus_used": [8, 5], "lower_bound_gpus": [4, 4]}
    )
    # Each layer carries the chart's title.
    title = charts.gpus_vs_bound_chart(frame).to_dict()["layer"][0]["title"]
    assert title["text"] == "GPUs used against the lower bound"
    assert "Grey tick: the lower bound" in title["subtitle"]


def test_count_axes_tick_whole_numbers() -> None:
    """The instances and GPUs axes tick whole numbers only: one instance read as ticks 0.00,
    0.05 ... 1.00 of an instance."""
    served = pd.DataFrame([{"workload": "api", "method": "Passthrough", "instances": 1}])
    bound = pd.DataFrame([{"method": "Passthrough", "gpus_used": 1, "lower_bound_gpus": 1}])
    by_class = charts.methods_by_class_chart(served).to_dict()
    layers = charts.gpus_vs_bound_chart(bound).to_dict()["layer"]
    for axis in (by_class["encoding"]["x"]["axis"], layers[0]["encoding"]["x"]["axis"]):
        assert axis["tickMinStep"] == 1
        assert axis["format"] == ",d"


def test_one_class_leaves_its_bar_room_in_the_methods_by_class_chart() -> None:
    """Streamlit fits the whole chart into the height given: for one class served by one
    method it leaves room for the bar beyond the title, axis and legend (164 px squeezed the
    bar to nothing)."""
    served = pd.DataFrame([{"workload": "api", "method": "Passthrough", "instances": 1}])
    assert charts.methods_by_class_height_px(served) >= charts.CLASS_ROW_PX + 180


def test_a_passthrough_instance_holds_its_whole_gpu_on_the_map() -> None:
    """A passthrough VM using 20 GiB of a 48 GiB L40S holds the whole GPU: its block shows its
    20 GiB, and the other 28 GiB are drawn as held by it, up to the GPU's full width."""
    layout = charts.placement_layout(
        _placements(
            [
                {
                    "instance": "vm#1",
                    "workload": "vm",
                    "host": "h",
                    "gpu_index": 0,
                    "gpu_model": "L40S",
                    "memory_gib": 20.0,
                    "start_slice": None,
                    "profile": "whole GPU",
                },
                {
                    "instance": "v#1",
                    "workload": "v",
                    "host": "h",
                    "gpu_index": 1,
                    "gpu_model": "L40S",
                    "memory_gib": 20.0,
                    "start_slice": None,
                },
            ]
        ),
        MEMORY,
        SLICES,
    )
    by_instance = layout.set_index("instance")
    assert by_instance.loc["vm#1", "end_gib"] == pytest.approx(20.0)
    assert by_instance.loc["vm#1", "held_end_gib"] == pytest.approx(48.0)
    assert by_instance.loc["v#1", "held_end_gib"] == pytest.approx(20.0)  # shared: holds no more
    spec = charts.placement_chart(layout, charts.workload_colours(["vm", "v"])).to_dict()
    held = [
        layer
        for layer in spec["layer"]
        if layer.get("encoding", {}).get("x2", {}).get("field") == "held_end_gib"
    ]
    assert len(held) == 1
