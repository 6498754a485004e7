"""AppTest of the Harvesting page: the simulation's figures on screen, empty and error states."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from planner.inputs.presets import PRESETS
from planner.time.demand import HOURS_PER_WEEK
from planner.time.harvesting import HarvestSettings, harvest_scenario
from ui import charts, planning, session
from ui import format as fmt

PAGE = str(Path(__file__).resolve().parent.parent / "ui" / "pages" / "harvesting.py")
TIMEOUT_S = 60
INVENTORY = (
    b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"
    b"vdi,vdi,L40S,4,64,1024,100,yes,8\n"
)
WEEK_CHART = "What the pool's GPUs do"
NOTEBOOKS_ONLY = PRESETS["data-science"].csv.encode()
VDI_MIX = PRESETS["vdi-ml"].csv.encode()


def inputs(workloads: bytes) -> session.ScenarioInputs:
    return session.ScenarioInputs(
        inventory=session.InputFile("inventory.csv", INVENTORY),
        workloads=session.InputFile("workloads.csv", workloads),
    )


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    st.cache_data.clear()
    yield
    st.cache_data.clear()


def page(monkeypatch: pytest.MonkeyPatch, workloads: bytes = VDI_MIX) -> AppTest:
    """The page on a scenario of 32 L40S GPUs and the given workload CSV."""
    monkeypatch.setattr(session, "scenario_inputs", lambda: inputs(workloads))
    return AppTest.from_file(PAGE, default_timeout=TIMEOUT_S)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label))


def delta(at: AppTest, label: str) -> str:
    return next(str(m.delta) for m in at.metric if m.label.startswith(label))


def chart_data(at: AppTest, title: str) -> list[dict[str, object]]:
    """The rows behind the chart titled ``title`` (AppTest does not expose chart keys)."""
    chart = next(
        c for c in at.get("vega_lite_chart") if json.loads(c.proto.spec).get("title") == title
    )
    table = pa.ipc.open_stream(io.BytesIO(chart.proto.datasets[0].data.data)).read_all()
    return table.to_pylist()


def simulate(at: AppTest) -> AppTest:
    return at.button(key="harvest_simulate").click().run()


def test_shows_the_planners_figures_for_the_scenarios_desktops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With VDI desktops in the mix, the page shows harvest_scenario's own figures."""
    at = page(monkeypatch).run()
    assert not at.exception
    assert at.title[0].value == "Harvesting"
    expected = harvest_scenario(
        planning.build_scenario(inputs(VDI_MIX)).scenario, HarvestSettings()
    )
    assert metric(at, "Harvested [GPU-h/week]") == (fmt.count(expected.useful_gpu_hours_per_week))
    assert metric(at, "Pool utilisation") == fmt.pct(expected.utilisation_after)
    assert delta(at, "Pool utilisation") == (
        f"from {fmt.pct(expected.utilisation_before)} without harvesting"
    )
    assert metric(at, "Dedicated GPUs replaced") == fmt.count(expected.dedicated_gpus)
    assert metric(at, "Their annual cost") == fmt.usd(expected.dedicated_usd_per_year)
    assert len(at.get("vega_lite_chart")) == 4


def test_the_week_chart_fills_the_pool_every_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    """Desktops, harvested ML and idle GPUs stack up to the pool in every hour of the week."""
    at = page(monkeypatch).run()
    rows = chart_data(at, WEEK_CHART)
    totals: dict[float, float] = {}
    for row in rows:
        if float(row["x"]) < HOURS_PER_WEEK:  # the row at 168 h only closes the last step
            totals[float(row["x"])] = totals.get(float(row["x"]), 0.0) + float(row["gpus"])
    assert len(totals) == HOURS_PER_WEEK
    pool = harvest_scenario(
        planning.build_scenario(inputs(VDI_MIX)).scenario, HarvestSettings()
    ).pool_gpus
    assert all(total == pytest.approx(pool) for total in totals.values())
    assert {row["use"] for row in rows} == {"VDI desktops", "Harvested ML", "Idle"}


def test_fifteen_minutes_draws_four_steps_an_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 15-minute resolution the week chart has 672 steps."""
    at = page(monkeypatch).run()
    at.radio(key="harvest_resolution").set_value(15)
    at = simulate(at)
    assert not at.exception
    steps = {row["x"] for row in chart_data(at, WEEK_CHART) if row["x"] < HOURS_PER_WEEK}
    assert len(steps) == 4 * HOURS_PER_WEEK


def test_no_backlog_harvests_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backlog of 0 GPU-hours shows 0 harvested and no GPUs replaced."""
    at = page(monkeypatch).run()
    at.number_input(key="harvest_backlog").set_value(0.0)
    at = simulate(at)
    assert not at.exception
    assert metric(at, "Harvested [GPU-h/week]") == "0"
    assert metric(at, "Dedicated GPUs replaced") == "0"


def test_a_bad_pasted_curve_names_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pasted values that do not parse show the problem with its position, never a traceback."""
    at = page(monkeypatch).run()
    at.selectbox(key="harvest_curve").set_value("paste")
    at.text_area(key="harvest_curve_text").set_value("0.1 0.2 lots")
    at = simulate(at)
    assert not at.exception
    assert "could not be read" in at.error[0].value
    problems = at.dataframe[0].value
    assert "value 3" in list(problems["column"])
    assert any("'lots' is not a number" in text for text in problems["problem"])


def test_a_pasted_curve_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flat 100 % curve keeps every desktop GPU busy all week: nothing is harvested."""
    at = page(monkeypatch).run()
    at.selectbox(key="harvest_curve").set_value("paste")
    at.text_area(key="harvest_curve_text").set_value(" ".join(["100"] * 24))
    at = simulate(at)
    assert not at.exception
    assert metric(at, "Harvested [GPU-h/week]") == "0"
    assert at.warning, "a backlog that cannot run must be flagged"
    assert "cannot keep up" in at.warning[0].value


def test_without_desktops_the_page_says_what_to_add(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mix without VDI opens on a given pool; choosing the scenario's desktops explains why
    there is nothing to harvest and how to add desktops."""
    at = page(monkeypatch, NOTEBOOKS_ONLY).run()
    assert not at.exception
    assert at.radio(key="harvest_pool_source").value == "given"
    assert metric(at, "Harvested [GPU-h/week]").replace(",", "").isdigit()
    at.radio(key="harvest_pool_source").set_value("scenario")
    at = simulate(at)
    assert not at.exception
    assert "no VDI workload" in at.info[0].value
    assert "kind 'vdi'" in at.info[0].value


def test_a_given_pool_follows_the_chosen_preset(monkeypatch: pytest.MonkeyPatch) -> None:
    """A given pool of 10 GPUs on the vdi-office curve has 10 GPUs in every hour of the chart."""
    at = page(monkeypatch, NOTEBOOKS_ONLY).run()
    at.number_input(key="harvest_pool_gpus").set_value(10)
    at = simulate(at)
    rows = chart_data(at, WEEK_CHART)
    monday_10 = [row for row in rows if row["x"] == 10.0]
    assert sum(float(row["gpus"]) for row in monday_10) == pytest.approx(10)
    desktops = next(row for row in monday_10 if row["use"] == "VDI desktops")
    assert float(desktops["gpus"]) == pytest.approx(10)  # 100 % of desktops at 10:00


def test_pool_versus_static_shows_the_planner_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """The combined peak shown is at most the sum of peaks, and both are the planner's."""
    from planner.time.demand import pool_vs_static

    at = page(monkeypatch).run()
    expected = pool_vs_static(planning.build_scenario(inputs(VDI_MIX)).scenario)
    assert metric(at, "Peak of the combined demand") == (f"{expected.combined_peak_gpus:,.1f} GPUs")
    assert metric(at, "Sum of each class's peak") == f"{expected.sum_of_peaks_gpus:,.1f} GPUs"
    assert expected.combined_peak_gpus <= expected.sum_of_peaks_gpus


def test_the_average_day_view_spans_24_hours(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switching to the average day draws 24 hours whose GPUs still add up to the pool."""
    at = page(monkeypatch).run()
    at.button_group(key="harvest_view").set_value("Average day").run()
    assert not at.exception
    rows = [row for row in chart_data(at, WEEK_CHART) if float(row["x"]) < 24]
    hours = {float(row["x"]) for row in rows}
    assert hours == {float(h) for h in range(24)}
    pool = harvest_scenario(
        planning.build_scenario(inputs(VDI_MIX)).scenario, HarvestSettings()
    ).pool_gpus
    at_ten = sum(float(row["gpus"]) for row in rows if row["x"] == 10.0)
    assert at_ten == pytest.approx(pool)


def test_an_uploaded_curve_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """An uploaded week with no desktop ever active: the pool starts at 0 % utilisation and
    every GPU-hour submitted is harvested."""
    at = page(monkeypatch).run()
    at.selectbox(key="harvest_curve").set_value("upload")
    at.file_uploader(key="harvest_curve_file").set_value(
        ("idle.csv", ("0\n" * HOURS_PER_WEEK).encode(), "text/csv")
    )
    at = simulate(at)
    assert not at.exception
    assert delta(at, "Pool utilisation") == "from 0 % without harvesting"
    assert metric(at, "Harvested [GPU-h/week]") == fmt.count(
        HarvestSettings().submitted_gpu_hours_per_week
    )


def test_an_uploaded_curve_saved_as_utf16_is_read_as_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file of values saved as Excel's "Unicode Text" (UTF-16 with its byte-order mark,
    Windows line ends) is read as the same idle week as its UTF-8 text."""
    at = page(monkeypatch).run()
    at.selectbox(key="harvest_curve").set_value("upload")
    at.file_uploader(key="harvest_curve_file").set_value(
        ("idle.txt", ("0\r\n" * HOURS_PER_WEEK).encode("utf-16"), "text/plain")
    )
    at = simulate(at)
    assert not at.exception
    assert not at.error
    assert delta(at, "Pool utilisation") == "from 0 % without harvesting"


def test_an_uploaded_curve_in_another_encoding_says_how_to_save_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Windows-1252 file (its 'ä' the byte E4) is refused naming the file, the line and the
    byte, and how to save it as UTF-8, rather than read with the byte replaced."""
    at = page(monkeypatch).run()
    at.selectbox(key="harvest_curve").set_value("upload")
    week = "Auslastung März\n" + "0\n" * HOURS_PER_WEEK
    at.file_uploader(key="harvest_curve_file").set_value(
        ("maerz.csv", week.encode("cp1252"), "text/csv")
    )
    at = simulate(at)
    assert not at.exception
    assert "could not be read" in at.error[0].value
    problems = at.dataframe[0].value
    assert list(problems["file"]) == ["maerz.csv"]
    assert list(problems["row"]) == [1]
    assert "not UTF-8 text: byte E4 cannot be decoded" in problems.loc[0, "problem"]
    assert "CSV UTF-8" in problems.loc[0, "fix"]


def test_restarts_show_the_work_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs that cannot checkpoint lose work when desktops return; the page shows the planner's
    lost GPU-hours."""
    at = page(monkeypatch).run()
    at.number_input(key="harvest_backlog").set_value(400.0)
    at.checkbox(key="harvest_checkpointing").uncheck()
    at = simulate(at)
    assert not at.exception
    settings = HarvestSettings(backlog_gpu_hours_per_day=400.0, checkpointing=False)
    expected = harvest_scenario(planning.build_scenario(inputs(VDI_MIX)).scenario, settings)
    assert expected.lost_gpu_hours_per_week > 0, "the case must really interrupt jobs"
    lost = next(m for m in at.metric if m.label.startswith("Harvested [GPU-h/week]")).delta
    assert lost == f"{fmt.count(expected.lost_gpu_hours_per_week)} GPU-h lost to restarts"


def _spec(at: AppTest, title: str) -> dict[str, Any]:
    chart = next(
        c for c in at.get("vega_lite_chart") if json.loads(c.proto.spec).get("title") == title
    )
    spec: dict[str, Any] = json.loads(chart.proto.spec)
    return spec


def test_the_backlog_chart_draws_its_peaks_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backlog axis reaches beyond the highest backlog of the week, so no peak is cut."""
    at = page(monkeypatch).run()
    title = "ML backlog waiting or running"
    peak = max(float(row["backlog_gpu_hours"]) for row in chart_data(at, title))
    assert peak > 0
    low, high = _spec(at, title)["encoding"]["y"]["scale"]["domain"]
    assert low == 0
    assert high >= peak * 1.05


def test_each_workload_class_has_its_own_colour_on_the_demand_chart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sample's 15 classes get 15 different colours, the same as on the placement maps."""
    monkeypatch.setattr(session, "scenario_inputs", session.sample_inputs)
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT_S).run()
    assert not at.exception
    scale = _spec(at, "GPU demand per workload class over the week")["encoding"]["color"]["scale"]
    classes = sorted(
        w.name for w in planning.build_scenario(session.sample_inputs()).scenario.workloads
    )
    assert len(classes) == 15
    assert scale["domain"] == classes
    assert len(set(scale["range"])) == len(classes)
    assert scale == charts.workload_colours(classes).to_dict()


def test_a_backlog_of_too_many_jobs_is_refused_against_the_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A backlog in more jobs a day than the simulation holds is refused naming the two fields
    to change, not as a planner failure sending the user to the Inventory and Workloads pages."""
    at = page(monkeypatch).run()
    at.number_input(key="harvest_backlog").set_value(10_000_000.0)
    at.number_input(key="harvest_job_gpu_hours").set_value(0.25)
    at = simulate(at)
    assert not at.exception
    (error,) = at.error
    assert "over the limit of 50,000 jobs a day" in error.value
    assert "**ML backlog** or **Work per job**" in error.value
    assert "the planner stopped" not in error.value
    assert not at.metric


def test_jobs_wider_than_the_pool_are_said_to_never_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs of more GPUs than the pool holds never run: the warning says so and what to change,
    not only that the backlog grows."""
    at = page(monkeypatch).run()
    at.radio(key="harvest_pool_source").set_value("given")
    at.number_input(key="harvest_pool_gpus").set_value(1)
    at.number_input(key="harvest_job_gpus").set_value(8)
    at = simulate(at)
    assert not at.exception
    (warning,) = at.warning
    assert "A job takes 8 GPUs and the pool has 1, so no job can ever run" in warning.value
    assert metric(at, "Harvested [GPU-h/week]") == "0"


def test_desktops_on_kubernetes_hosts_are_said_to_need_vsphere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An inventory of Kubernetes nodes gives VDI desktops no vGPU host: the page says so and
    offers a given pool, not the planner-failure error."""
    on_kubernetes = INVENTORY.replace(b",count\n", b",count,platform\n").replace(
        b",8\n", b",8,kubernetes\n"
    )
    monkeypatch.setattr(
        session,
        "scenario_inputs",
        lambda: session.ScenarioInputs(
            inventory=session.InputFile("inventory.csv", on_kubernetes),
            workloads=session.InputFile("workloads.csv", VDI_MIX),
        ),
    )
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT_S).run()
    assert not at.exception
    assert not at.error
    (said,) = [i.value for i in at.info if "Nothing to harvest" in i.value]
    assert "vSphere hosts" in said
    assert "8 hosts run Kubernetes" in said
    assert "A pool of GPUs I give" in said
    at.radio(key="harvest_pool_source").set_value("given")
    at = simulate(at)
    assert not at.error
    assert metric(at, "Harvested")
