"""AppTest of the Assumptions page: applied on Apply, typed values kept across pages."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from planner.assumptions import Assumptions, VgpuMode, VgpuScheduler, facts
from planner.measure.performance import CONSTANTS
from planner.methods import k8s_mps, k8s_time_slicing
from planner.methods.k8s_mig import STRATEGY, MigStrategy
from planner.methods.kubernetes import AI_ENTERPRISE
from planner.methods.registry import Method
from planner.output.report import comparison_frame
from ui import format as fmt
from ui import planning, session

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")


def _assumptions_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page("ui/pages/assumptions.py").run()


def _key_figure(at: AppTest, figure: str, method: Method = Method.VGPU) -> str:
    figures = at.get_by_key("compare_key_figures").dataframe[0].value.set_index("figure")
    return str(figures.loc[figure, method.label])


def _committed(at: AppTest) -> session.ScenarioInputs:
    inputs = at.session_state[session._INPUTS_KEY]
    assert isinstance(inputs, session.ScenarioInputs)
    return inputs


def test_defaults_are_shown_and_the_effect_is_planned() -> None:
    """The page opens on the default assumptions and shows each method's headline figures."""
    at = _assumptions_page()
    assert not at.exception
    assert at.selectbox(key="assumptions_vgpu_mode").value == VgpuMode.EQUAL_SIZE
    assert at.number_input(key="assumptions_pue").value == Assumptions().pue
    assert "GPUs used" in [m.label for m in at.metric]


def test_nothing_changes_until_apply() -> None:
    """Changing a widget alone does not change the plan's inputs; Apply does."""
    at = _assumptions_page()
    at.selectbox(key="assumptions_vgpu_mode").set_value(VgpuMode.MIXED_SIZE).run()
    assert _committed(at).assumptions.vgpu_mode is VgpuMode.EQUAL_SIZE
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    assert _committed(at).assumptions.vgpu_mode is VgpuMode.MIXED_SIZE


def test_a_licence_price_change_changes_the_vgpu_cost() -> None:
    """A higher AI Enterprise licence price raises the vGPU plan's annual cost on screen."""
    at = _assumptions_page()
    before = planning.scenario_plan(_committed(at), session.Question())
    at.number_input(key="assumptions_licence_usd_per_gpu_year").set_value(9000.0)
    at.button(key="assumptions_apply").click().run()
    after = planning.scenario_plan(_committed(at), session.Question())
    vgpu_before = next(r for r in before.results if r.plan.method == "vgpu")
    vgpu_after = next(r for r in after.results if r.plan.method == "vgpu")
    assert vgpu_after.cost.licences_usd_per_year == pytest.approx(
        2 * vgpu_before.cost.licences_usd_per_year
    )
    assert _committed(at).assumptions.licence_usd_per_gpu_year == 9000.0


def test_switching_mig_off_everywhere_leaves_mig_nothing() -> None:
    """With MIG enabled on no cluster, the MIG plan uses no GPU."""
    at = _assumptions_page()
    at.multiselect(key="assumptions_mig_clusters").set_value([])
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    assert _committed(at).mig_clusters == ()
    plan = planning.scenario_plan(_committed(at), session.Question())
    mig = next(r for r in plan.results if r.plan.method == "mig")
    assert mig.metrics.gpus_used == 0


def test_restore_defaults_undoes_changes() -> None:
    """'Restore defaults' brings back every default assumption and the file's MIG settings."""
    at = _assumptions_page()
    at.number_input(key="assumptions_pue").set_value(2.0)
    at.button(key="assumptions_apply").click().run()
    assert _committed(at).assumptions.pue == 2.0
    at.button(key="assumptions_restore").click().run()
    assert _committed(at).assumptions == Assumptions()
    assert _committed(at).mig_clusters is None


def test_after_restore_defaults_the_form_shows_the_defaults_and_apply_keeps_them() -> None:
    """'Restore defaults' starts the form again from the defaults: it never shows the values
    just restored away, and a later Apply does not bring them back."""
    at = _assumptions_page()
    at.number_input(key="assumptions_pue").set_value(2.0)
    _edit_constant(at, "no_rdma_factor", 3.0)
    at.button(key="assumptions_apply").click().run()
    at.button(key="assumptions_restore").click().run()
    assert at.number_input(key="assumptions_pue").value == Assumptions().pue
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    assert _committed(at).assumptions == Assumptions()


def test_a_worse_network_is_explained() -> None:
    """Latency above VMware's 50 µs is explained with what the planner does with it (the
    remote pool's slowdown), never a rule it does not apply (only latency-tolerant work)."""
    at = _assumptions_page()
    at.number_input(key="assumptions_network_latency_us").set_value(200.0)
    at.button(key="assumptions_apply").click().run()
    (note,) = [i.value for i in at.info if "worse than VMware's recommendation" in i.value]
    assert "slowdown" in note
    assert "latency-tolerant" not in note


def test_every_number_widget_is_made_from_its_assumption_s_metadata() -> None:
    """Label, unit, range, guess flag and meaning of each numeric assumption on the page are the
    ones its Fact holds, so the page cannot tell users something the planner does not do."""
    at = _assumptions_page()
    numbers = {
        name: (about, value)
        for name, about, value in facts(Assumptions())
        if isinstance(value, float) and about.minimum is not None
    }
    assert len(numbers) >= 10
    for name, (about, value) in numbers.items():
        widget = at.number_input(key="assumptions_" + name.replace(".", "_"))
        assert widget.label.startswith(f"{about.label} [{about.unit}]")
        assert ("a guess" in widget.label) == about.is_guess
        assert widget.min == about.minimum
        assert widget.max == about.maximum
        assert widget.value == value
        assert widget.help is not None
        assert about.meaning.lower() in widget.help.lower()
        assert about.range_text in widget.help


def _performance_key(at: AppTest) -> str:
    """Key of the Performance model table editor (it ends with the form's generation)."""
    return next(
        str(f.key)
        for f in at.dataframe
        if str(f.key).startswith("assumptions_performance_constants_")
    )


def _performance_table(at: AppTest) -> pd.DataFrame:
    frame = next(f.value for f in at.dataframe if f.key == _performance_key(at))
    assert isinstance(frame, pd.DataFrame)
    return frame.set_index("constant")


def _edit_constant(at: AppTest, name: str, value: float) -> None:
    """Type ``value`` into the *your value* cell of constant ``name`` (as the browser would send
    it: the editor's state holds the edited cells by row position)."""
    row = list(_performance_table(at).index).index(name)
    at.session_state[_performance_key(at)] = {
        "edited_rows": {str(row): {"your value": value}},
        "added_rows": [],
        "deleted_rows": [],
    }


def _prices_key(at: AppTest) -> str:
    """Key of the GPU prices table editor (it ends with the form's generation)."""
    return next(str(f.key) for f in at.dataframe if str(f.key).startswith("assumptions_prices_"))


def _prices_table(at: AppTest) -> pd.DataFrame:
    frame = next(f.value for f in at.dataframe if f.key == _prices_key(at))
    assert isinstance(frame, pd.DataFrame)
    return frame


def _edit_price(at: AppTest, row: int, price: float) -> None:
    """Type ``price`` into the *your price* cell of row ``row`` of the GPU prices table."""
    at.session_state[_prices_key(at)] = {
        "edited_rows": {str(row): {"your price [USD]": price}},
        "added_rows": [],
        "deleted_rows": [],
    }


def _vgpu_mean_slowdown(inputs: session.ScenarioInputs) -> float:
    plan = planning.scenario_plan(inputs, session.Question())
    comparison = comparison_frame(plan).set_index("method")
    return float(comparison.loc[Method.VGPU.value, "mean_slowdown"])


def test_performance_constants_are_listed_with_guesses_marked() -> None:
    """The Performance model table lists every constant with its default and value in use, and
    says which figures are guesses."""
    at = _assumptions_page()
    table = _performance_table(at)
    assert list(table.index) == list(CONSTANTS)
    assert table.loc["no_rdma_factor", "figure is"] == "a guess, edit it"
    assert table.loc["vgpu_overhead", "figure is"] == "sourced"
    assert (table["your value"] == table["default"]).all()


def test_a_performance_constant_change_changes_the_compare_slowdown() -> None:
    """A higher uncontended vGPU overhead, applied, multiplies every vGPU instance's slowdown by
    the same factor: the vGPU mean slowdown on the Compare page rises by 1.2 × 0.972."""
    at = _assumptions_page()
    before = _vgpu_mean_slowdown(_committed(at))
    compare = at.switch_page("ui/pages/compare.py").run()
    shown_before = _key_figure(compare, "Mean slowdown")
    at = compare.switch_page("ui/pages/assumptions.py").run()
    _edit_constant(at, "vgpu_overhead", 1.2)
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    assert _committed(at).assumptions.performance_constants == {"vgpu_overhead": 1.2}
    after = _vgpu_mean_slowdown(_committed(at))
    assert after == pytest.approx(before * 1.2 * 0.972)
    assert _performance_table(at).loc["vgpu_overhead", "your value"] == 1.2
    compare = at.switch_page("ui/pages/compare.py").run()
    shown_after = _key_figure(compare, "Mean slowdown")
    assert shown_after == fmt.slowdown(after)
    assert shown_after != shown_before


def test_an_out_of_range_constant_is_refused_with_the_rule() -> None:
    """A contention factor above 1 is not applied; the page says which constant and the rule."""
    at = _assumptions_page()
    _edit_constant(at, "remote_interference", 1.5)
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    assert _committed(at).assumptions.performance_constants == {}
    message = "\n".join(e.value for e in at.error)
    assert "Nothing was applied" in message
    assert "'remote_interference' must be at least 0 and at most 1" in message


def test_restore_defaults_forgets_performance_overrides() -> None:
    """After 'Restore defaults' the table shows the defaults again and no override is in use."""
    at = _assumptions_page()
    _edit_constant(at, "no_rdma_factor", 3.0)
    at.button(key="assumptions_apply").click().run()
    assert _committed(at).assumptions.performance_constants == {"no_rdma_factor": 3.0}
    at.button(key="assumptions_restore").click().run()
    assert _committed(at).assumptions.performance_constants == {}
    assert _performance_table(at).loc["no_rdma_factor", "your value"] == 2.0


def test_kubernetes_settings_are_applied_and_the_licence_charged() -> None:
    """The Kubernetes settings reach the plan's inputs on Apply; with AI Enterprise on, the
    time-slicing plan pays the licence per GPU in use (none by default)."""
    at = _assumptions_page()
    before = planning.scenario_plan(_committed(at), session.Question())
    sliced = next(r for r in before.results if r.plan.method == Method.K8S_TIME_SLICING)
    assert sliced.cost.licences_usd_per_year == 0.0
    at.number_input(key="assumptions_time_slicing_replicas").set_value(8)
    at.number_input(key="assumptions_mps_replicas").set_value(2)
    at.selectbox(key="assumptions_kubernetes_mig_strategy").set_value(MigStrategy.SINGLE)
    at.checkbox(key="assumptions_kubernetes_ai_enterprise").check()
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    given = _committed(at).assumptions
    assert (k8s_time_slicing.REPLICAS.of(given), k8s_mps.REPLICAS.of(given)) == (8, 2)
    assert STRATEGY.of(given) is MigStrategy.SINGLE
    assert AI_ENTERPRISE.of(given)
    after = planning.scenario_plan(_committed(at), session.Question())
    sliced = next(r for r in after.results if r.plan.method == Method.K8S_TIME_SLICING)
    gpus = len(sliced.plan.gpu_configs)
    assert gpus > 0
    assert sliced.cost.licences_usd_per_year == pytest.approx(gpus * given.licence_usd_per_gpu_year)


def test_an_applied_change_shows_on_each_card_against_the_assumptions_before() -> None:
    """After Apply, each plan's card shows how its GPUs and annual cost changed against the
    assumptions applied before: the planner's own difference, with its sign and unit."""
    at = _assumptions_page()
    before = planning.scenario_plan(_committed(at), session.Question())
    at.number_input(key="assumptions_power_usd_per_kwh").set_value(0.25)
    at.button(key="assumptions_apply").click().run()
    assert not at.exception
    after = planning.scenario_plan(_committed(at), session.Question())
    assert len(after.results) == len(before.results)
    for old, new in zip(before.results, after.results, strict=True):
        card = at.get_by_key(f"headline_{new.plan.name}")
        cost = next(m for m in card.metric if m.label == "Annual cost")
        saving = new.cost.total_usd_per_year - old.cost.total_usd_per_year
        # AppTest reads a metric without a delta as "".
        assert (cost.delta or None) == fmt.usd_change(saving, per="year")
        assert str(cost.delta).startswith("+$")
        gpus = next(m for m in card.metric if m.label == "GPUs used")
        used = new.metrics.gpus_used - old.metrics.gpus_used
        assert (gpus.delta or None) == fmt.change(used, unit="GPUs")


def test_before_any_apply_the_cards_show_no_change() -> None:
    """Opening the page shows figures only: there is nothing to compare them with yet."""
    at = _assumptions_page()
    plan = planning.scenario_plan(_committed(at), session.Question())
    for result in plan.results:
        card = at.get_by_key(f"headline_{result.plan.name}")
        assert [m.label for m in card.metric] == ["GPUs used", "Annual cost"]
        assert [m.delta for m in card.metric] == ["", ""]


def test_a_typed_value_stays_after_a_visit_to_another_page_and_is_not_applied() -> None:
    """A PUE, a vGPU scheduler and a GPU price typed but not applied are still in the form after the
    user opens another page and comes back (they were dropped, with a caption warning of it);
    the plan keeps the values in force and the page says the typed ones are not used yet."""
    at = _assumptions_page()
    assert not [i for i in at.info if "does not use yet" in i.value]
    at.number_input(key="assumptions_pue").set_value(2.0).run()
    at.selectbox(key="assumptions_vgpu_scheduler").set_value(VgpuScheduler.EQUAL_SHARE).run()
    _edit_price(at, 0, 1234.0)
    at.run()
    compare = at.switch_page("ui/pages/compare.py").run()
    assert not compare.exception
    at = compare.switch_page("ui/pages/assumptions.py").run()
    assert not at.exception
    assert at.number_input(key="assumptions_pue").value == 2.0
    assert at.selectbox(key="assumptions_vgpu_scheduler").value == VgpuScheduler.EQUAL_SHARE
    assert _prices_table(at)["your price [USD]"].iloc[0] == 1234.0
    assert _committed(at).assumptions == Assumptions()
    assert [i for i in at.info if "does not use yet" in i.value]
    assert not [c for c in at.caption if "leaving this page" in c.value]
    at.button(key="assumptions_apply").click().run()
    applied = _committed(at).assumptions
    assert (applied.pue, applied.vgpu_scheduler) == (2.0, VgpuScheduler.EQUAL_SHARE)
    assert list(applied.gpu_price_usd.values()) == [1234.0]
    assert not [i for i in at.info if "does not use yet" in i.value]


def test_a_typed_performance_constant_stays_after_a_visit_to_another_page() -> None:
    """A performance constant typed but not applied is still in its table back on the page,
    and is applied only on Apply."""
    at = _assumptions_page()
    _edit_constant(at, "no_rdma_factor", 3.0)
    at.run()
    at = at.switch_page("ui/pages/inventory.py").run()
    at = at.switch_page("ui/pages/assumptions.py").run()
    assert _performance_table(at).loc["no_rdma_factor", "your value"] == 3.0
    assert _committed(at).assumptions.performance_constants == {}
    at.button(key="assumptions_apply").click().run()
    assert _committed(at).assumptions.performance_constants == {"no_rdma_factor": 3.0}


def test_no_widget_gets_both_a_default_and_a_session_state_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each widget takes the value in force through its key only: Streamlit logs a warning
    (on the server, as the vSphere version's selectbox did) for a widget given both."""
    from streamlit.elements.lib import policies

    doubled: list[str] = []
    # AppTest runs without a runtime, where Streamlit skips this check.
    monkeypatch.setattr(policies.runtime, "exists", lambda: True)
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(policies._LOGGER, "warning", lambda _m, key, **_: doubled.append(key))
    at = _assumptions_page()
    assert not at.exception
    assert doubled == []
    assert at.selectbox(key="assumptions_vsphere").value == Assumptions().vsphere_version
    assert at.number_input(key="assumptions_pue").value == Assumptions().pue


def test_guesses_are_marked_with_one_wording_everywhere() -> None:
    """A default with no public source reads 'a guess, edit it' in the page's caption, in the
    widgets' labels and in both tables (it read '*default*', '(a guess, edit it)' and 'a
    default, edit it')."""
    at = _assumptions_page()
    assert "*a guess, edit it*" in at.caption[0].value
    assert "(a guess, edit it)" in at.number_input(key="assumptions_pue").label
    prices = next(d.value for d in at.dataframe if "catalog price is" in d.value.columns)
    assert set(prices["catalog price is"]) <= {"a guess, edit it", "sourced"}
    assert "a guess, edit it" in set(prices["catalog price is"])


_LAB = session.ScenarioInputs(
    inventory=session.InputFile(
        "lab.csv",
        b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"
        b"lab,lab,L40S,2,64,512,100,yes,1\n",
    ),
    workloads=session.InputFile(
        "mix.csv",
        b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
        b"ram_gib,live_migration,isolation,latency_tolerant\n"
        b"api,inference,1,1,20,50%,24x7,7,8,64,no,no,yes\n",
    ),
)


def test_a_typed_value_stays_through_a_new_mix_and_goes_with_a_new_inventory() -> None:
    """A PUE typed but not applied stays when another workload mix is put in use (the form
    shows no figure of the mix), and the form shows the values in force again when another
    inventory is (its clusters and GPU models are what the form lists)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state[session._INPUTS_KEY] = _LAB
    at.switch_page("ui/pages/assumptions.py").run()
    at.number_input(key="assumptions_pue").set_value(2.0).run()
    more = _LAB.workloads.content.replace(b"api,inference,1,", b"api,inference,2,")
    at.session_state[session._INPUTS_KEY] = dataclasses.replace(
        _LAB, workloads=session.InputFile("more.csv", more)
    )
    at.run()
    assert not at.exception
    assert at.number_input(key="assumptions_pue").value == 2.0
    bigger = _LAB.inventory.content.replace(b"yes,1\n", b"yes,2\n")
    at.session_state[session._INPUTS_KEY] = dataclasses.replace(
        _LAB, inventory=session.InputFile("bigger.csv", bigger)
    )
    at.run()
    assert not at.exception
    assert at.number_input(key="assumptions_pue").value == Assumptions().pue
