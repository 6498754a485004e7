"""AppTest of saved scenarios: save, open from the URL, copy, rename, delete, compare, sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from planner.inputs.presets import PRESETS
from planner.store import DB_ENV, ScenarioStore

TIMEOUT_S = 90
APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGE = "ui/pages/scenarios.py"
PRESET = next(iter(PRESETS))


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh scenario database for the test, named by GPU_PLANNER_DB as a deployment would."""
    path = tmp_path / "scenarios.sqlite"
    monkeypatch.setenv(DB_ENV, str(path))
    return path


def _app(scenario: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    if scenario is not None:
        at.query_params["scenario"] = scenario
    return at.run()


def _page(at: AppTest, page: str = PAGE) -> AppTest:
    return at.switch_page(page).run()


def _save_as(at: AppTest, name: str, *, replace: bool = False) -> AppTest:
    _page(at)
    at.text_input(key="scenarios_save_name").set_value(name)
    at.checkbox(key="scenarios_save_replace").set_value(replace)
    return at.button(key="scenarios_save_as").click().run()


def _load_preset(at: AppTest) -> AppTest:
    _page(at, "ui/pages/workloads.py")
    at.selectbox(key="workloads_preset").set_value(PRESET)
    return at.button(key="workloads_load_preset").click().run()


def _workloads_in_use(at: AppTest) -> str:
    return str(_page(at, "ui/pages/workloads.py").subheader[0].value)


def _sidebar_text(at: AppTest) -> str:
    return " ".join(str(c.value) for c in at.sidebar.caption)


def test_saving_puts_the_scenario_in_the_store_and_the_url(db: Path) -> None:
    """'Save as' stores the session's inputs, names the scenario in the URL and the sidebar."""
    at = _load_preset(_app())
    _save_as(at, "Q3 budget")
    assert not at.exception
    assert not at.error
    assert at.query_params["scenario"] == "Q3 budget"
    assert "Q3 budget" in _sidebar_text(at)
    saved = ScenarioStore(db).open("Q3 budget")
    assert saved.workloads.name == f"preset {PRESETS[PRESET].title}"


def test_a_link_with_the_scenario_restores_it(db: Path) -> None:
    """A new session (a reload, a shared link) with ?scenario=NAME plans with the saved inputs."""
    _save_as(_load_preset(_app()), "shared")
    fresh = _app(scenario="shared")
    assert not fresh.exception
    assert _workloads_in_use(fresh) == f"In use: preset {PRESETS[PRESET].title}"
    assert fresh.query_params["scenario"] == "shared"
    plain = _app()
    assert _workloads_in_use(plain) == "In use: sample workloads.csv"


def test_the_store_outlives_the_server(db: Path) -> None:
    """With every cache cleared (as a restarted server has), a link still opens the scenario."""
    _save_as(_load_preset(_app()), "kept")
    st.cache_resource.clear()
    st.cache_data.clear()
    assert _workloads_in_use(_app(scenario="kept")).endswith(PRESETS[PRESET].title)


def test_two_sessions_see_only_their_own_unsaved_changes(db: Path) -> None:
    """One session's unsaved edit of a scenario is not seen by another session that opens it."""
    first = _save_as(_app(), "base")
    second = _app(scenario="base")
    _load_preset(first)
    assert _workloads_in_use(first).endswith(PRESETS[PRESET].title)
    assert "unsaved changes" in _sidebar_text(first)
    assert _workloads_in_use(second) == "In use: sample workloads.csv"
    assert "unsaved changes" not in _sidebar_text(second)
    assert ScenarioStore(db).open("base").workloads.name == "sample workloads.csv"
    # Saving the changes makes them the scenario for everyone who opens it afterwards.
    _page(first).button(key="scenarios_save_changes").click().run()
    assert "unsaved changes" not in _sidebar_text(first)
    assert _workloads_in_use(_app(scenario="base")).endswith(PRESETS[PRESET].title)


def test_a_taken_name_needs_replace(db: Path) -> None:
    """Saving over a saved scenario is refused with the reason unless Replace is ticked."""
    at = _save_as(_app(), "taken")
    _load_preset(at)
    _save_as(at, "taken")
    assert any("already saved" in e.value for e in at.error)
    assert ScenarioStore(db).open("taken").workloads.name == "sample workloads.csv"
    _save_as(at, "taken", replace=True)
    assert not at.error
    assert ScenarioStore(db).open("taken").workloads.name.startswith("preset")


def test_open_copy_rename_delete(db: Path) -> None:
    """Each action on the chosen scenario changes the store; renaming the open one moves the URL."""
    at = _save_as(_app(), "alpha")
    at.text_input(key="scenarios_new_name").set_value("beta")
    at.button(key="scenarios_duplicate").click().run()
    assert ScenarioStore(db).names() == ("alpha", "beta")
    at.text_input(key="scenarios_new_name").set_value("gamma")
    at.selectbox(key="scenarios_chosen").set_value("alpha")
    at.button(key="scenarios_rename").click().run()
    assert ScenarioStore(db).names() == ("beta", "gamma")
    assert at.query_params["scenario"] == "gamma"
    at.selectbox(key="scenarios_chosen").set_value("beta")
    at.button(key="scenarios_open").click().run()
    assert at.query_params["scenario"] == "beta"
    at.button(key="scenarios_delete").click().run()
    assert ScenarioStore(db).names() == ("gamma",)
    assert "scenario" not in at.query_params
    assert "Not saved as a scenario" in _sidebar_text(at)


def test_a_link_to_a_missing_scenario_says_so(db: Path) -> None:
    """A link naming a deleted scenario keeps the session's inputs and tells the user why."""
    at = _app(scenario="gone")
    assert not at.exception
    assert any("not saved" in t.value for t in at.toast)
    assert "scenario" not in at.query_params
    assert _workloads_in_use(at) == "In use: sample workloads.csv"


def test_a_hostile_name_is_only_text(db: Path) -> None:
    """A name full of Markdown, HTML and URL characters is saved, shown and linked literally."""
    name = "**bold** <b>x</b> & ?a=1#frag :smile:"
    at = _save_as(_app(), name)
    assert ScenarioStore(db).names() == (name,)
    assert at.query_params["scenario"] == name
    reopened = _app(scenario=name)
    assert not reopened.exception
    assert "\\*\\*bold\\*\\*" in _sidebar_text(reopened)


def test_a_hostile_name_in_a_toast_is_only_text(db: Path) -> None:
    """The toasts that name a scenario (saved, or a link naming one that is not saved) show the
    name literally: a shared link cannot put a live Markdown link on someone's screen."""
    at = _save_as(_app(), "**bold**")
    assert [t.value for t in at.toast] == ["Saved \\*\\*bold\\*\\*"]
    linked = _app(scenario="[click](http://example.com)")
    (toast,) = linked.toast
    assert "\\[click\\](http" in toast.value
    assert "[click](http" not in toast.value


def test_comparing_two_scenarios_shows_figures_and_changes(db: Path) -> None:
    """Side by side: each plan's key figures for both scenarios and the change between them."""
    at = _save_as(_app(), "sample")
    _save_as(_load_preset(at), "preset")
    _page(at)
    at.selectbox(key="scenarios_first").set_value("sample")
    at.selectbox(key="scenarios_second").set_value("preset")
    at.button(key="scenarios_compare").click().run()
    assert not at.exception
    frame = next(
        df.value for df in at.dataframe if "Change" in df.value.columns and "Plan" in df.value
    )
    plans = list(dict.fromkeys(frame["Plan"]))
    assert plans[0] == "Recommended plan"
    assert len(plans) >= 2
    gpus = frame[frame["Figure"] == "GPUs used"]
    assert (gpus["Change"] != "no change").any()
    assert [m.label for m in at.metric] == [
        "GPUs used",
        "Hosts used",
        "Instances placed",
        "Instances not placed",
        "Annual cost",
        "Cost per placed instance",
    ]


def test_a_saved_sizing_reopens_as_the_question_asked() -> None:
    """One unnamed server type reopens as a custom shape; named catalog types as the catalog
    choice; none as fitting the inventory."""
    from planner.inputs.inventory import ServerType
    from planner.store import SavedFile, SavedScenario
    from ui.scenarios import session_from_saved
    from ui.session import QuestionKind

    shape = ServerType(gpu_model="L40S", gpus=4, cpu_cores=64, ram_gib=768)
    named = ServerType(gpu_model="L40S", gpus=4, cpu_cores=64, ram_gib=768, name="l40s-4")
    files = SavedFile("i.csv", b""), SavedFile("w.csv", b"")
    fit = session_from_saved(SavedScenario(*files))[1]
    custom = session_from_saved(SavedScenario(*files, servers=(shape,)))[1]
    catalog = session_from_saved(SavedScenario(*files, servers=(named, shape)))[1]
    assert fit.kind is QuestionKind.FIT
    assert (custom.kind, custom.server, custom.catalog_servers) == (QuestionKind.SIZE, shape, ())
    assert (catalog.kind, catalog.catalog_servers) == (QuestionKind.SIZE, (named, shape))
    added = session_from_saved(
        SavedScenario(*files, servers=(named,), add_to_inventory=True, headroom=2)
    )[1]
    assert (added.kind, added.catalog_servers, added.headroom) == (QuestionKind.ADD, (named,), 2)


HARVESTING = "ui/pages/harvesting.py"


def _harvest_form(at: AppTest) -> tuple[object, ...]:
    """What the Harvesting page's form shows: backlog, submit hour, days, checkpointing, curve."""
    return (
        at.number_input(key="harvest_backlog").value,
        at.number_input(key="harvest_submit_hour").value,
        tuple(at.multiselect(key="harvest_days").value),
        at.checkbox(key="harvest_checkpointing").value,
        at.selectbox(key="harvest_curve").value,
        at.text_area(key="harvest_curve_text").value,
    )


def test_harvest_settings_are_saved_and_reopened_with_the_scenario(db: Path) -> None:
    """The Harvesting page's settings, as simulated, are saved with the scenario; a link to it
    brings them back on the page, and a session without it keeps the page's defaults."""
    from planner.time.harvesting import HarvestSettings

    at = _page(_app(), HARVESTING)
    defaults = _harvest_form(at)
    values = ",".join(["0.5"] * 24)
    at.number_input(key="harvest_backlog").set_value(250.0)
    at.number_input(key="harvest_submit_hour").set_value(20)
    at.multiselect(key="harvest_days").set_value([0, 2, 4])
    at.checkbox(key="harvest_checkpointing").set_value(False)
    at.selectbox(key="harvest_curve").set_value("paste")
    at.text_area(key="harvest_curve_text").set_value(values)
    at.button(key="harvest_simulate").click().run()
    assert not at.exception
    assert not at.error
    edited = _harvest_form(at)
    assert edited == (250.0, 20, (0, 2, 4), False, "paste", values)
    assert edited != defaults
    _save_as(at, "night shift")
    saved = ScenarioStore(db).open("night shift").harvest
    assert saved is not None
    assert saved.settings.backlog_gpu_hours_per_day == 250.0
    assert saved.settings.submit_days == (0, 2, 4)
    assert not saved.settings.checkpointing
    assert (saved.curve, saved.curve_values) == ("paste", values)

    reopened = _page(_app(scenario="night shift"), HARVESTING)
    assert not reopened.exception
    assert _harvest_form(reopened) == edited
    plain = _page(_app(), HARVESTING)
    assert _harvest_form(plain) == defaults
    assert defaults[0] == HarvestSettings().backlog_gpu_hours_per_day
