"""AppTest of the dashboard on an estate of one host, one GPU and one workload class of one
instance: every count agrees with its noun ('1 host', never '1 hosts' or 'host(s)')."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import session

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")
ONE_HOST = (
    b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"
    b"solo,lab,L40S,1,64,512,100,yes,1\n"
)
ONE_CLASS = (
    b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,ram_gib,"
    b"live_migration,isolation,latency_tolerant\n"
    b"api,inference,1,1,20,50%,24x7,7,8,64,no,no,yes\n"
)
SOLO = session.ScenarioInputs(
    inventory=session.InputFile("solo.csv", ONE_HOST),
    workloads=session.InputFile("api.csv", ONE_CLASS),
)


def _page(script: str, inputs: session.ScenarioInputs = SOLO) -> AppTest:
    """The dashboard planning ``inputs`` (the one-host scenario), opened on page ``script``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state[session._INPUTS_KEY] = inputs
    return at.switch_page(script).run()


def _texts(at: AppTest) -> str:
    """Every caption, Markdown text and metric delta on the page, sidebar included."""
    parts = [c.value for c in at.caption] + [m.value for m in at.markdown]
    parts += [str(m.delta) for m in at.metric]
    return "\n".join(parts)


def test_the_sidebar_counts_one_host_one_gpu_one_class_one_instance() -> None:
    """Uploaded, a one-host inventory and a one-class mix read '1 host, 1 GPU' and '1 class,
    1 instance' in the sidebar (it read '1 hosts, 1 GPUs' and '1 classes, 1 instances')."""
    two = session.ScenarioInputs(
        inventory=session.InputFile("two.csv", ONE_HOST.replace(b"yes,1", b"yes,2")),
        workloads=session.InputFile(
            "mix.csv", ONE_CLASS.replace(b"api,inference,1", b"api,inference,2")
        ),
    )
    at = _page("ui/pages/inventory.py", two)
    at.file_uploader(key="inventory_upload").set_value(("solo.csv", ONE_HOST, "text/csv")).run()
    # Another inventory than the sample's is replaced only on Apply.
    at.button(key="inventory_upload_apply").click().run()
    at = at.switch_page("ui/pages/workloads.py").run()
    at.file_uploader(key="workloads_upload").set_value(("api.csv", ONE_CLASS, "text/csv")).run()
    at.button(key="workloads_upload_apply").click().run()
    assert not at.exception
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "solo.csv: 1 host, 1 GPU" in sidebar
    assert "api.csv: 1 class, 1 instance" in sidebar


def test_the_compare_page_says_one_host() -> None:
    """Each plan card's caption and the recommended plan's GPUs figure say 'on 1 host' and
    '1 host', never '1 hosts'."""
    at = _page("ui/pages/compare.py")
    assert not at.exception
    shown = _texts(at)
    assert "on 1 host ·" in shown
    assert "\n1 host\n" in f"\n{shown}\n"
    assert "1 hosts" not in shown
    assert "1 GPUs" not in shown


def test_the_inside_page_says_one_gpu_on_one_host_and_one_row() -> None:
    """The plan's summary reads '1 GPU on 1 host' and the placements list '(1 row)'."""
    at = _page("ui/pages/inside.py")
    assert not at.exception
    summary = next(m.value for m in at.markdown if " placed, " in m.value)
    assert ": 1 GPU on 1 host ·" in summary
    assert "lower bound 1 GPU (" in summary
    assert "All placements (1 row)" in [e.label for e in at.expander]


def test_plans_that_serve_nothing_show_no_utilisation_and_no_cost_per_instance() -> None:
    """On one L40S host MIG uses no GPU: its key figures read '–' for memory and compute
    utilisation (they read '0 %', as if its GPUs stood idle) and its card says it serves none
    (it read '– a year per instance served')."""
    at = _page("ui/pages/compare.py")
    assert not at.exception
    figures = at.get_by_key("compare_key_figures").dataframe[0].value.set_index("figure")
    assert figures.loc["GPUs used", "MIG"] == "0 of 1"
    assert figures.loc["Memory utilisation", "MIG"] == "–"
    assert figures.loc["Compute utilisation", "MIG"] == "–"
    assert figures.loc["Memory utilisation", "Passthrough"] != "–"
    card = "\n".join(c.value for c in at.get_by_key("headline_mig").caption)
    assert card == "on 0 hosts · serves none"


def test_a_recommended_plan_as_good_as_one_method_claims_no_saving_and_no_gain() -> None:
    """When the recommended plan is Passthrough's own, 'Against one method' reads 'the same
    cost' with no change of instances (it read '$0 less' and '+0 instances served')."""
    at = _page("ui/pages/compare.py")
    against = next(m for m in at.metric if m.label == "Against one method")
    assert against.value == "the same cost"
    assert not against.delta
