"""AppTest of the Inside-a-plan page: placement map per method, not-placed list, downloads."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from planner.methods.registry import Method
from ui import planning, session

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _inside_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page("ui/pages/inside.py").run()


def _chart_rows(at: AppTest) -> pd.DataFrame:
    """The data behind the placement map, as Streamlit sent it to the browser."""
    chart = next(c for c in at.get("vega_lite_chart"))
    frames = [
        pa.ipc.open_stream(io.BytesIO(dataset.data.data)).read_all().to_pandas()
        for dataset in chart.proto.datasets
    ]
    return next(f for f in frames if "instance" in f.columns)


def _sample_result(method: Method) -> object:
    plan = planning.scenario_plan(session.sample_inputs(), session.Question())
    return next(r for r in plan.results if r.plan.method == method)


@pytest.mark.parametrize("method", list(Method))
def test_each_method_shows_its_placements_and_not_placed(method: Method) -> None:
    """Per method: the not-placed count and the placement table match the planner's plan."""
    at = _inside_page()
    at.button_group(key="inside_method").set_value(method).run()
    assert not at.exception
    result = _sample_result(method)
    not_placed = len(result.plan.not_placed)  # type: ignore[attr-defined]
    assert any(s.value == f"Not placed ({not_placed})" for s in at.subheader)
    placements = at.get_by_key("inside_placements").dataframe[0].value
    assert len(placements) == len(result.plan.placements)  # type: ignore[attr-defined]
    if not_placed:
        summary = at.get_by_key("inside_not_placed").dataframe[0].value
        assert summary["instances"].sum() == not_placed
        assert summary["reason"].str.len().min() > 0
        every = at.get_by_key("inside_not_placed_all").dataframe[0].value
        assert len(every) == not_placed


def test_the_placement_map_shows_one_cluster_of_gpus_with_their_slots() -> None:
    """The map of the chosen cluster holds only that cluster's hosts, each slot with a workload."""
    at = _inside_page()
    at.button_group(key="inside_method").set_value(Method.VGPU).run()
    cluster = at.selectbox(key="inside_cluster").value
    rows = _chart_rows(at)
    built = planning.build_scenario(session.sample_inputs())
    hosts = {h.name for h in built.scenario.inventory.hosts if h.cluster == cluster}
    assert set(rows["host"]) <= hosts
    assert (rows["end_gib"] > rows["start_gib"]).all()
    assert rows["workload"].notna().all()


def test_placement_csv_downloads_are_offered() -> None:
    """Placements and not-placed lists can be downloaded as CSV for the chosen method."""
    at = _inside_page()
    keys = {button.key for button in at.get("download_button")}
    assert {"inside_download_placements", "inside_download_not_placed"} <= keys


def test_the_recommended_plan_opens_first_and_names_each_gpus_role() -> None:
    """The page opens on the recommended plan; each GPU row of its map names the method that
    sets the GPU up, as the planner's plan has it."""
    at = _inside_page()
    assert at.button_group(key="inside_method").value == "recommended"
    plan = planning.scenario_plan(session.sample_inputs(), session.Question())
    recommended = plan.results[0].plan
    rows = _chart_rows(at)
    labels = {m.value: m.label for m in Method}
    for _, row in rows.drop_duplicates("gpu").iterrows():
        role = recommended.role((row["host"], int(row["gpu_index"])))
        assert row["gpu"].endswith(f" · {labels[role.value]}")


def _workload_colours(at: AppTest) -> dict[str, str]:
    """Workload class -> colour, as the placement map's colour scale sets it."""
    spec = json.loads(next(c for c in at.get("vega_lite_chart")).proto.spec)
    scales = [
        layer["encoding"]["color"]["scale"]
        for layer in spec["layer"]
        if layer.get("encoding", {}).get("color", {}).get("field") == "workload"
    ]
    assert len(scales) == 1
    return dict(zip(scales[0]["domain"], scales[0]["range"], strict=True))


def test_a_workload_keeps_its_colour_on_every_placement_map() -> None:
    """Each class has one colour, the same on every method's map, and no two of the sample's
    classes share one, whichever classes a map happens to hold."""
    at = _inside_page()
    classes = sorted(
        w.name for w in planning.build_scenario(session.sample_inputs()).scenario.workloads
    )
    seen = []
    for method in (Method.VGPU, Method.REMOTE_POOL, Method.PASSTHROUGH):
        at.button_group(key="inside_method").set_value(method).run()
        assert not at.exception
        colours = _workload_colours(at)
        assert sorted(colours) == classes
        assert len(set(colours.values())) == len(classes)
        seen.append(colours)
    assert seen[0] == seen[1] == seen[2]
