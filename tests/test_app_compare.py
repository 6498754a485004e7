"""AppTest of the entry script and the Compare page: sample first, size question, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from planner.inputs.inventory import ServerType
from planner.methods.registry import Method
from planner.output.report import plan_scenario, size_cluster
from ui import components, definitions, planning, session
from ui import tables as ui_tables

TIMEOUT_S = 180
APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture
def _fresh_caches() -> Iterator[None]:
    """No cached plans before or after, so a patched planner call is really made and its failure
    is never served to another test. (Plans of unpatched inputs are deterministic, so the other
    tests share the cache.)"""
    st.cache_data.clear()
    yield
    st.cache_data.clear()


def _app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=TIMEOUT_S)


def _markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def _key_figure_tables(at: AppTest) -> list[Any]:
    """The key-figure tables on the page, VMs' methods first (each a dataframe element)."""
    keys = ["compare_key_figures", "compare_key_figures_pods"]
    return [at.get_by_key(key).dataframe[0] for key in keys if at.get_by_key(key) is not None]


def _key_figures(at: AppTest) -> pd.DataFrame:
    """Every plan's key figures, one column per plan, indexed by figure."""
    frames = [t.value.set_index("figure") for t in _key_figure_tables(at)]
    joined = pd.concat(frames, axis=1)
    return joined.loc[:, ~joined.columns.duplicated()]


def test_opens_on_the_sample_comparison_of_all_four_methods() -> None:
    """A newcomer lands on a full comparison of the sample scenario without uploading anything."""
    at = _app().run()
    assert not at.exception
    assert at.title[0].value == "Compare sharing methods"
    text = _markdown(at)
    for method in Method:
        assert f"**{method.label}**" in text
    figures = _key_figures(at)
    assert list(figures.columns) == ["Recommended plan", *(m.label for m in Method)]
    assert "Annual cost" in figures.index
    assert "GPUs used / lower bound" in figures.index
    assert len(at.get("vega_lite_chart")) == 4
    assert at.button(key="compare_plan") is not None
    assert "sample inventory.csv" in "\n".join(c.value for c in at.sidebar.caption)


def test_key_figures_show_every_name_and_figure_in_full() -> None:
    """The key figures' columns are set wide enough for their longest text, the names pinned:
    the grid sizes a column by its first rows only, and cut 'Cost per placed instance' and the
    last row's solve times ('heuristic · 4.') at 1,280 px. The plans come in two tables, VMs'
    methods and Kubernetes pods', each within the page's 820 px: one table of all nine scrolled
    sideways; each plan's heading fits its column, its tooltip the plan's whole label."""
    at = _app().run()
    tables = _key_figure_tables(at)
    assert len(tables) == 2
    for table in tables:
        columns = json.loads(table.proto.columns)
        assert columns["figure"]["pinned"] is True
        figures = table.value.set_index("figure")
        assert sum(columns[name]["width"] for name in table.value.columns) <= 820
        # About 6 px per character of the grid's font (measured at 1,280 px), and 16 px of padding.
        longest_name = max(len(str(name)) for name in figures.index)
        assert longest_name * 6 + 16 <= columns["figure"]["width"]
        for name in figures.columns:
            longest_figure = max(len(str(value)) for value in figures[name])
            assert longest_figure * 6 + 16 <= columns[name]["width"], name
            heading = columns[name].get("label", name)
            assert len(heading) * 6 + 16 <= columns[name]["width"], heading
            assert columns[name].get("help", name) == name


def test_each_key_figure_table_is_keyed_by_the_methods_it_shows() -> None:
    """The key figures of the VMs' and GPU servers' methods are under ``compare_key_figures``
    and those of the Kubernetes pods' methods under ``compare_key_figures_pods``, each with the
    recommended plan first, as the planner's plan groups them."""
    at = _app().run()
    plan = planning.scenario_plan(session.sample_inputs(), session.Question())
    groups = dict(ui_tables.key_figure_groups(plan))
    for key, group in (
        ("compare_key_figures", ui_tables.VMS),
        ("compare_key_figures_pods", ui_tables.PODS),
    ):
        shown = at.get_by_key(key).dataframe[0].value
        assert list(shown.columns) == ["figure", *groups[group]], key
        assert shown.columns[1] == "Recommended plan"


def test_each_class_s_reason_is_shown_whole() -> None:
    """The recommended plan's Why column is given what the other columns leave of the table at
    1,280 px, and its rows grow until the longest reason fits: it was cut after 'Remote pool is
    the cheapest method within its 1.50…' and had to be scrolled to."""
    at = _app().run()
    table = at.get_by_key("compare_decisions").dataframe[0]
    columns = json.loads(table.proto.columns)
    widths = [columns[name]["width"] for name in table.value.columns]
    # The table is 820 px wide beside the sidebar at 1,280 px; about 7 px per character.
    assert sum(widths) <= 820
    longest = max(len(str(reason)) for reason in table.value["Why"])
    lines = table.proto.row_height // 21
    assert longest <= lines * (columns["Why"]["width"] // 7)


def test_key_figures_match_the_planner_figures() -> None:
    """The GPUs shown per method are the planner's own figures for the sample, not other numbers."""
    at = _app().run()
    inputs = session.sample_inputs()
    plan = planning.scenario_plan(inputs, session.Question())
    figures = _key_figures(at)
    for result in plan.results:
        shown = figures.loc["GPUs used", result.plan.label]
        assert shown.startswith(f"{result.metrics.gpus_used:,} of ")


@pytest.mark.parametrize("kind", [session.QuestionKind.FIT, session.QuestionKind.SIZE])
def test_plans_made_method_by_method_are_the_plans_made_at_once(
    kind: session.QuestionKind,
) -> None:
    """The single-method plans the headline shows one by one, put together, are the plans the
    planner makes for every method at once: each method in registry order, same placements,
    same figures and costs."""
    inputs = session.sample_inputs()
    server = ServerType(gpu_model="H100-80GB-SXM", gpus=8, cpu_cores=112, ram_gib=2048)
    asked = session.Question(
        kind=kind, server=server if kind is session.QuestionKind.SIZE else None
    )
    scenario = planning.build_scenario(inputs).scenario
    at_once = (
        plan_scenario(scenario, recommended=False)
        if kind is session.QuestionKind.FIT
        else size_cluster(scenario, server, recommended=False)
    )
    together = planning.single_plans(inputs, asked)
    assert planning.by_method(asked)
    assert together.methods == tuple(Method)
    assert (together.question, together.server) == (at_once.question, at_once.server)
    for shown, made in zip(together.results, at_once.results, strict=True):
        assert shown.plan.placements == made.plan.placements
        assert shown.plan.not_placed == made.plan.not_placed
        assert shown.metrics == made.metrics
        assert shown.cost == made.cost


def test_the_recommended_plan_leads_with_its_savings_and_each_class_decision() -> None:
    """The page opens on the recommended plan: its headline against today, then one row per
    workload class naming the method that serves it and why, as the planner decided."""
    at = _app().run()
    plan = planning.scenario_plan(session.sample_inputs(), session.Question())
    assert plan.recommended is not None
    assert at.success[0].value == plan.recommended.headline()
    assert "fewer GPUs than today" in at.success[0].value
    decisions = at.get_by_key("compare_decisions").dataframe[0].value.set_index("Workload class")
    built = planning.build_scenario(session.sample_inputs())
    assert list(decisions.index) == [w.name for w in built.scenario.workloads]
    for d in plan.recommended.decisions:
        assert decisions.loc[d.workload, "Method"] == (d.method.label if d.method else "")
        assert decisions.loc[d.workload, "Why"] == d.reason


def test_sizing_a_cluster_plans_on_servers_of_the_chosen_type() -> None:
    """Asking to size a cluster plans on new servers of the chosen model, not on the inventory."""
    at = _app().run()
    at.radio(key="compare_question").set_value(session.QuestionKind.SIZE)
    at.selectbox(key="compare_server_model").set_value("A100-80GB-PCIe")
    at.number_input(key="compare_server_gpus").set_value(4)
    at.button(key="compare_plan").click().run()
    assert not at.exception
    assert not at.error
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "Sizing a cluster of 4× A100-80GB-PCIe servers" in sidebar
    asked = at.session_state[session._QUESTION_KEY]
    assert asked.server.gpu_model == "A100-80GB-PCIe"
    plan = planning.scenario_plan(session.sample_inputs(), asked)
    figures = _key_figures(at)
    for result in plan.results:
        assert {h.gpu_model for h in result.plan.hosts} <= {"A100-80GB-PCIe"}
        shown = figures.loc["Hosts used", result.plan.label]
        assert shown == f"{result.metrics.hosts_used:,}"


def test_sizing_among_catalog_server_types_says_what_to_buy() -> None:
    """Sizing among the catalog's server types: the recommended plan leads with the servers to
    buy, counted from the servers it opens."""
    at = _app().run()
    at.radio(key="compare_question").set_value(session.QuestionKind.SIZE)
    options = at.multiselect(key="compare_catalog_servers").options
    picked = [o for o in options if o.startswith(("l40s-4", "hgx-h100-8"))]
    assert len(picked) == 2
    at.multiselect(key="compare_catalog_servers").set_value(picked)
    at.button(key="compare_plan").click().run()
    assert not at.exception
    assert not at.error
    asked = at.session_state[session._QUESTION_KEY]
    assert {t.name for t in asked.catalog_servers} == {"l40s-4", "hgx-h100-8"}
    # The sidebar names the types sized, not the typed server the catalog's choice replaces.
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "Sizing a cluster of hgx-h100-8 (8× H100-80GB-SXM) or l40s-4 (4× L40S)" in sidebar
    plan = planning.scenario_plan(session.sample_inputs(), asked)
    assert plan.recommended is not None
    headline = plan.recommended.headline()
    assert headline.startswith("Buy ")
    assert any(headline in s.value for s in at.success)
    bought = sum(p.count for p in plan.recommended.purchase)
    assert bought == len(plan.recommended.result.plan.hosts)


@pytest.mark.usefixtures("_fresh_caches")
def test_an_unexpected_planner_failure_is_a_readable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the planner raises, the page shows what failed and a way forward, never a traceback."""

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero in a packer")

    monkeypatch.setattr(planning, "plan_scenario", broken)
    at = _app().run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert "Could not plan the scenario" in message
    assert "ZeroDivisionError: division by zero in a packer" in message
    assert "sample scenario" in message
    assert not at.dataframe  # nothing half-rendered after the error


@pytest.mark.usefixtures("_fresh_caches")
def test_the_answer_shows_before_its_bounds_are_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recommended plan's one-sentence answer needs no bound, so it is on screen while the
    bounds are proven: here proving fails, and the answer drafted before it is still shown."""

    def unproven(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("while proving the bounds")

    monkeypatch.setattr(planning, "with_recommended", unproven)
    at = _app().run()
    assert not at.exception
    draft = planning.recommended_draft(session.sample_inputs(), session.Question())
    assert draft is not None
    assert [s.value for s in at.success] == [draft.recommended.headline()]
    assert "while proving the bounds" in at.error[0].value


def test_an_inventory_without_usable_hosts_says_what_to_do() -> None:
    """With no usable host the page says which row failed and how to fix it, and plans nothing."""
    at = _app()
    header = b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
    bad_row = b"h1,c1,NoSuchGPU,8,64,512,100,yes\n"
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.InputFile("hosts.csv", header + bad_row),
        workloads=session.sample_inputs().workloads,
    )
    at.run()
    assert not at.exception
    assert "Could not read the scenario: a file could not be used" in at.error[0].value
    problems = at.dataframe[0].value
    assert list(problems["column"]) == ["gpu_model", ""]
    assert "NoSuchGPU" in problems.loc[0, "problem"]
    assert not at.get("vega_lite_chart")


def test_an_all_infeasible_mix_lists_what_was_not_placed() -> None:
    """A mix nothing can hold shows every method placing 0 and no method recommended, no crash."""
    at = _app()
    workloads = (
        b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
        b"ram_gib,live_migration,isolation,latency_tolerant\n"
        b"giant,training,2,8,640,0.9,24x7,7,4096,65536,yes,yes,no\n"
    )
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.sample_inputs().inventory,
        workloads=session.InputFile("giant.csv", workloads),
    )
    at.run()
    assert not at.exception
    plans = _key_figures(at)
    assert set(plans.loc["Instances placed"]) == {"0"}
    assert set(plans.loc["Not placed"]) == {"2"}
    decisions = at.get_by_key("compare_decisions").dataframe[0].value.set_index("Workload class")
    assert decisions.loc["giant", "Method"] == ""
    assert decisions.loc["giant", "Why"].startswith("No method can serve it")


def test_the_workbook_download_is_offered() -> None:
    """The plan workbook and the key figures CSV can be downloaded from the Compare page."""
    at = _app().run()
    keys = {button.key for button in at.get("download_button")}
    assert {"compare_download_workbook", "compare_download_csv"} <= keys


def test_back_to_the_sample_forgets_every_change() -> None:
    """'Back to the sample scenario' restores the sample files, default assumptions and question."""
    at = _app()
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.sample_inputs().inventory,
        workloads=session.InputFile("mine.csv", session.sample_inputs().workloads.content),
    )
    at.run()
    assert not at.button(key="sidebar_reset").disabled
    at.button(key="sidebar_reset").click().run()
    assert at.session_state[session._INPUTS_KEY] == session.sample_inputs()
    assert at.button(key="sidebar_reset").disabled


_ONE_HOST = (
    b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma\n"
    b"h1,prod,L40S,2,64,512,100,yes\n"
)
_FIVE_JOBS = (
    b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
    b"ram_gib,live_migration,isolation,latency_tolerant,priority\n"
    b"tune,training,5,1,40,70%,24x7,7,8,64,no,no,yes,2\n"
)


def test_adding_to_my_inventory_with_headroom_says_what_to_buy_on_top() -> None:
    """ "Add to my inventory" with one host failure tolerated: on one 2-GPU host and five
    whole-GPU jobs, the owned host is its cluster's failover host, so the plan buys 4-GPU
    servers for all five and one more kept idle; the headline and the purchase table say so."""
    at = _app()
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.InputFile(name="inventory.csv", content=_ONE_HOST),
        workloads=session.InputFile(name="workloads.csv", content=_FIVE_JOBS),
    )
    at.run()
    at.radio(key="compare_question").set_value(session.QuestionKind.ADD)
    picked = list(at.multiselect(key="compare_catalog_servers").options)
    at.multiselect(key="compare_catalog_servers").set_value(
        [o for o in picked if o.startswith("l40s-4")]
    )
    at.number_input(key="compare_headroom").set_value(1)
    at.button(key="compare_plan").click().run()
    assert not at.exception
    assert not at.error
    asked = at.session_state[session._QUESTION_KEY]
    assert asked.kind is session.QuestionKind.ADD
    assert asked.headroom == 1
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "Sizing what to buy on top of this inventory" in sidebar
    headline = at.success[0].value
    # Whole-GPU jobs need no vSphere: the servers bought may run Kubernetes, as they do here.
    bought = "l40s-4 (4× L40S, Kubernetes)"
    assert headline.startswith(f"Buy 3 × {bought}")
    assert "on top of your 1 host: serves all 5 instances" in headline
    assert "any 1 host per cluster can fail" in headline
    facts = at.get_by_key("compare_purchase").dataframe[0].value.set_index("figure")
    assert facts.loc[f"buy {bought}", "value"].startswith("3 at $")
    assert "1 of them kept idle for failover" in facts.loc[f"buy {bought}", "value"]


def test_every_key_figure_says_what_it_means() -> None:
    """Each figure on a plan card carries its definition as help, and each figure of the key
    figures tables is listed with its definition under 'What each figure means'."""
    at = _app().run()
    assert not at.exception
    assert len(at.metric) >= 2 * len(Method)
    for metric in at.metric:
        # Labels may name more than the figure they start with.
        figure = next((f for f in definitions.FIGURES if metric.label.startswith(f)), None)
        assert figure is not None, f"no definition for {metric.label!r}"
        assert metric.proto.help.startswith(definitions.FIGURES[figure]), metric.label
    listed = at.get_by_key("compare_key_figure_definitions").markdown[0].value
    for figure in _key_figures(at).index:
        meaning = definitions.FIGURES[figure]
        assert f"- **{figure}**: {meaning}" in listed
        assert len(meaning) > 20


_FIRST_PAINT_PROBE = """
import sys
import streamlit as st
from streamlit.testing.v1 import AppTest

navigate = st.navigation


def record(*args, **kwargs):
    loaded = sorted(m for m in sys.modules if m == "planner" or m.startswith(("planner.", "ui.")))
    print("LOADED-AT-NAVIGATION", len(loaded), ",".join(loaded[:5]))
    raise SystemExit(0)


st.navigation = record
AppTest.from_file(sys.argv[1], default_timeout=60).run()
"""


def test_the_navigation_is_sent_before_the_planner_is_imported(tmp_path: Path) -> None:
    """Cold start: the entry script shows its pages before importing the planner (pandas, SciPy,
    Altair take seconds on a cold server), so the browser paints the app at once."""
    probe = tmp_path / "probe.py"
    probe.write_text(_FIRST_PAINT_PROBE)
    done = subprocess.run(
        [sys.executable, str(probe), APP],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(APP).parent,
        check=False,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("LOADED-AT-NAVIGATION")), None)
    assert line is not None, done.stdout + done.stderr
    assert line.split()[1] == "0", f"imported before the navigation: {line}"


def test_the_lowest_cost_mark_goes_to_the_cheapest_plan_that_serves_the_most() -> None:
    """On the sample the remote pool costs least but leaves instances out; the mark goes to the
    recommended plan, which serves them all, and it is shown once, as text that wraps."""
    at = _app().run()
    assert not at.exception
    plan = planning.scenario_plan(session.sample_inputs(), session.Question())
    cheapest = min(plan.results, key=lambda r: r.cost.total_usd_per_year)
    assert cheapest.metrics.instances_not_placed > 0
    assert components._lowest_cost_for_most_work(plan) == {"recommended"}
    marks = [m.value for m in at.markdown if components.LOWEST_COST in m.value]
    assert len(marks) == 1


# A Kubernetes node of 2 cores (as `kubectl get nodes -o json` of an A16 vGPU node reads): every
# sample class needs more cores than it has, so no plan serves anything.
_TWO_CORE_NODE = (
    b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,mig_enabled,"
    b"platform,notes\n"
    b"nori,kubernetes,A16,4,2.0,15.609,25.0,no,no,kubernetes,from kubectl get nodes -o json\n"
)


def _serving_nothing() -> AppTest:
    at = _app()
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.InputFile(name="nodes.csv", content=_TWO_CORE_NODE),
        workloads=session.sample_inputs().workloads,
    )
    return at.run()


def test_a_plan_serving_nothing_reaches_its_final_cards() -> None:
    """When the recommended plan serves nothing its final card has no lowest-cost mark, one line
    fewer than the drafted card: the drafted card's 'Proving how close…' line must not stay
    under it, as if the bounds were still being proven."""
    at = _serving_nothing()
    assert not at.exception
    assert at.get_by_key("headline_recommended") is not None
    assert not [c.value for c in at.caption if "Proving how close" in c.value]


def test_a_plan_serving_nothing_is_a_warning_and_claims_no_saving() -> None:
    """A recommended plan that serves none of the instances is no success: its answer is a
    warning, and 'Against one method' claims no '$0 less' and no '+0 instances served'."""
    at = _serving_nothing()
    assert not at.exception
    assert not [s.value for s in at.success if "Serves none" in s.value]
    assert [w.value for w in at.warning if w.value.startswith("Serves none of the 308")]
    against = next(m for m in at.metric if m.label == "Against one method")
    assert against.value == "–"
    assert not against.proto.delta


def test_an_unserved_class_shows_a_dash_for_its_slowdown() -> None:
    """A class the recommended plan does not serve has no slowdown: its cell reads '–', not the
    grid's literal 'None'."""
    at = _serving_nothing()
    decisions = at.get_by_key("compare_decisions").dataframe[0]
    assert decisions.value["Slowdown [× bare metal]"].isna().all()
    assert decisions.proto.placeholder == "–"


def test_every_cost_key_figure_says_it_is_a_year() -> None:
    """'Annual cost' and 'Cost per placed instance' both read '… /yr' in the key figures (the
    cost per instance read '$1,874', a year left unsaid); a plan serving none shows a dash."""
    figures = _key_figures(_app().run())
    for figure in ("Annual cost", "Cost per placed instance"):
        assert all(str(v).endswith(" /yr") for v in figures.loc[figure]), figure
    nothing = _key_figures(_serving_nothing())
    assert set(nothing.loc["Cost per placed instance"]) == {"–"}
