"""AppTest of the Inventory page: sample, good upload, partly bad upload, unusable upload."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui import session

TIMEOUT_S = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")
HEADER = "host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"


def _inventory_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page("ui/pages/inventory.py").run()


def _upload(at: AppTest, name: str, text: str) -> AppTest:
    return (
        at.file_uploader(key="inventory_upload").set_value((name, text.encode(), "text/csv")).run()
    )


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_shows_the_sample_inventory_with_a_summary() -> None:
    """Without an upload the page shows the sample's hosts, GPUs and memory, and the host table."""
    at = _inventory_page()
    assert not at.exception
    assert at.title[0].value == "Inventory"
    assert at.subheader[0].value == "In use: the bundled sample"
    sample = session.sample_inputs()
    from ui import planning

    inventory = planning.build_scenario(sample).scenario.inventory
    assert _metric(at, "Hosts") == f"{len(inventory.hosts):,}"
    assert _metric(at, "GPUs") == f"{inventory.gpu_count:,}"
    assert len(at.get_by_key("inventory_hosts").dataframe[0].value) == len(inventory.hosts)
    assert at.button(key="inventory_use_sample").disabled


def test_a_good_upload_replaces_the_sample() -> None:
    """An uploaded inventory is used at once: its hosts are counted and the sidebar names it."""
    at = _inventory_page()
    _upload(at, "my-hosts.csv", HEADER + "gpu,lab,L40S,4,64,512,100,yes,3\n")
    assert not at.exception
    assert at.subheader[0].value == "In use: my-hosts.csv"
    assert _metric(at, "Hosts") == "3"
    assert _metric(at, "GPUs") == "12"
    assert "my-hosts.csv: 3 hosts, 12 GPUs" in "\n".join(c.value for c in at.sidebar.caption)


def test_bad_rows_are_listed_with_row_column_and_fix_and_good_rows_load() -> None:
    """A row with an unknown GPU model is skipped and listed (row, column, fix); the rest load."""
    at = _inventory_page()
    _upload(
        at,
        "mixed.csv",
        HEADER + "good,lab,L40S,4,64,512,100,yes,1\nbad,lab,L40X,4,64,512,100,yes,1\n",
    )
    assert not at.exception
    assert _metric(at, "Hosts") == "1"
    assert any("row(s) were skipped" in w.value for w in at.warning)
    problems = at.dataframe[0].value
    assert list(problems.columns) == ["file", "row", "column", "problem", "fix"]
    assert problems.loc[0, "file"] == "mixed.csv"
    assert problems.loc[0, "row"] == 3
    assert problems.loc[0, "column"] == "gpu_model"
    assert "L40S" in problems.loc[0, "problem"] + problems.loc[0, "fix"]


def test_an_unusable_file_keeps_the_previous_inventory() -> None:
    """A file missing required columns is refused with the reason; the sample stays in use."""
    at = _inventory_page()
    _upload(at, "wrong.csv", "name,gpus\nx,4\n")
    assert not at.exception
    assert len(at.error) == 1
    assert "wrong.csv cannot be used" in at.error[0].value
    assert "sample inventory.csv" in at.error[0].value
    assert at.subheader[0].value == "In use: the bundled sample"


def test_use_the_sample_again_after_an_upload() -> None:
    """After an upload, 'Use the sample inventory' brings the sample back."""
    at = _inventory_page()
    _upload(at, "my-hosts.csv", HEADER + "gpu,lab,L40S,4,64,512,100,yes,3\n")
    at.button(key="inventory_use_sample").click().run()
    assert at.subheader[0].value == "In use: the bundled sample"


def test_the_template_can_be_downloaded() -> None:
    """The inventory template is offered as a download next to the uploader."""
    at = _inventory_page()
    keys = {button.key for button in at.get("download_button")}
    assert "inventory_template" in keys


def test_a_binary_file_is_refused_with_a_readable_message() -> None:
    """A file that is not UTF-8 text is refused with the fix, never a traceback."""
    at = _inventory_page()
    at.file_uploader(key="inventory_upload").set_value(("x.csv", b"\xff\xfe\x00\x01", "text/csv"))
    at.run()
    assert not at.exception
    assert "x.csv cannot be used" in at.error[0].value
    problems = at.dataframe[0].value
    assert "UTF-8" in problems.loc[0, "problem"] + problems.loc[0, "fix"]
