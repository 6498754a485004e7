"""AppTest of the Inventory page: sample, good upload, partly bad upload, unusable upload."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from planner.solve.feasibility import check_plan
from ui import planning, session

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
    """A row with an unknown GPU model would be skipped: the upload waits for Apply, listing it
    (row, column, fix); applied, the other rows are in use and the skipped row stays listed."""
    at = _inventory_page()
    _upload(
        at,
        "mixed.csv",
        HEADER + "good,lab,L40S,4,64,512,100,yes,1\nbad,lab,L40X,4,64,512,100,yes,1\n",
    )
    assert not at.exception
    assert at.subheader[0].value == "In use: the bundled sample"
    assert _metric(at, "Rows skipped") == "1"
    problems = next(df.value for df in at.dataframe if "fix" in df.value.columns)
    assert list(problems.columns) == ["file", "row", "column", "problem", "fix"]
    assert problems.loc[0, "file"] == "mixed.csv"
    assert problems.loc[0, "row"] == 3
    assert problems.loc[0, "column"] == "gpu_model"
    assert "L40S" in problems.loc[0, "problem"] + problems.loc[0, "fix"]
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    assert at.subheader[0].value == "In use: mixed.csv"
    assert _metric(at, "Hosts") == "1"
    assert any("1 row was skipped" in w.value for w in at.warning)


def test_a_bad_row_after_a_good_inventory_does_not_silently_replace_it() -> None:
    """With the user's own inventory in use, a file with a bad row shows what would change (rows
    kept and skipped, GPUs before and after) and waits; Keep leaves the inventory in use, Apply
    replaces it and Undo brings it back."""
    at = _inventory_page()
    _upload(at, "good.csv", HEADER + "gpu,lab,L40S,4,64,512,100,yes,3\n")
    assert at.subheader[0].value == "In use: good.csv"
    _upload(
        at,
        "worse.csv",
        HEADER + "a,lab,L40S,4,64,512,100,yes,1\nb,lab,L40X,4,64,512,100,yes,1\n",
    )
    assert not at.exception
    assert at.subheader[0].value == "In use: good.csv"
    assert _metric(at, "Hosts") == "3"
    assert _metric(at, "Hosts kept") == "1"
    assert _metric(at, "Rows skipped") == "1"
    assert _metric(at, "GPUs after") == "4"
    at.button(key="inventory_upload_keep").click().run()
    assert at.subheader[0].value == "In use: good.csv"
    assert not [b for b in at.button if b.key == "inventory_upload_apply"]
    _upload(
        at,
        "worse.csv",
        HEADER + "a,lab,L40S,4,64,512,100,yes,1\nb,lab,L40X,4,64,512,100,yes,1\n",
    )
    at.button(key="inventory_upload_apply").click().run()
    assert at.subheader[0].value == "In use: worse.csv"
    assert _metric(at, "GPUs") == "4"
    at.button(key="inventory_upload_undo").click().run()
    assert at.subheader[0].value == "In use: good.csv"
    assert _metric(at, "GPUs") == "12"


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
    """After an upload, 'Use the sample' brings the sample inventory back."""
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
    """A file that is no text any tool writes is refused with the formats it may be, never a
    traceback."""
    at = _inventory_page()
    at.file_uploader(key="inventory_upload").set_value(("x.csv", b"\xff\xfe\x00\x01", "text/csv"))
    at.run()
    assert not at.exception
    assert "x.csv cannot be used" in at.error[0].value
    problems = at.dataframe[0].value
    assert "cannot tell" in problems.loc[0, "problem"]
    assert "inventory CSV" in problems.loc[0, "fix"]


def test_a_refused_files_fix_wraps_inside_the_import_panel() -> None:
    """The problems table of a refused file wraps its text and fits the import panel's column
    (about 620 px at 1,280 px), so the fix is read on screen rather than cut after a few words or
    pushed past the table's edge; a whole-file problem shows no row number."""
    at = _inventory_page()
    _upload(at, "bars.csv", HEADER.replace(",", "|") + "a|b|L40S|4|64|768|100|yes|1\n")
    assert not at.exception
    table = at.dataframe[0]
    assert "bars.csv cannot be used" in at.error[0].value
    assert table.proto.row_height > 64  # Streamlit wraps a cell's text only above 64 px
    columns = json.loads(table.proto.columns)
    widths = [columns[name]["width"] for name in ("file", "row", "column", "problem", "fix")]
    assert sum(widths) <= 620
    assert table.proto.placeholder == "–"


# Own GPU models: a lab H100 variant that borrows H100 PCIe's profile tables, and a card without
# vGPU or MIG. The inventory below names the lab model, which the bundled catalog does not know.
OWN_GPUS = (
    "name,memory_gib,tdp_w,fp16_tflops,price_usd,profiles_like\n"
    "H100-80GB-lab,80,400,835,27000,H100-80GB-PCIe\n"
    "RTX-6000-Ada,48,300,364,6800,\n"
)
LAB_INVENTORY = HEADER + "lab,lab,H100-80GB-lab,4,64,1024,100,yes,2\n"


def _upload_own_gpus(at: AppTest, name: str, text: str) -> AppTest:
    return (
        at.file_uploader(key="own_gpus_upload").set_value((name, text.encode(), "text/csv")).run()
    )


def _sidebar(at: AppTest) -> str:
    return "\n".join(c.value for c in at.sidebar.caption)


def test_own_gpu_models_let_an_inventory_naming_them_load_and_plan() -> None:
    """After uploading own GPU models, an inventory naming one loads, every method plans on it
    (each plan passes the shared feasibility checker), the Assumptions price table lists the new
    models and the sidebar says the catalog is extended."""
    at = _inventory_page()
    _upload_own_gpus(at, "my_gpus.csv", OWN_GPUS)
    assert not at.exception
    assert not at.error
    assert "Catalog extended by my_gpus.csv: H100-80GB-lab, RTX-6000-Ada" in _sidebar(at)
    assert any("my_gpus.csv adds 2 models" in s.value for s in at.success)
    _upload(at, "lab-hosts.csv", LAB_INVENTORY)
    assert not at.exception
    assert at.subheader[0].value == "In use: lab-hosts.csv"
    assert _metric(at, "Hosts") == "2"
    assert _metric(at, "GPUs") == "8"
    by_model = at.get_by_key("inventory_by_model").dataframe[0].value
    assert list(by_model["GPU model"]) == ["H100-80GB-lab"]
    assert list(by_model["memory per GPU [GiB]"]) == [80]

    inputs = at.session_state[session._INPUTS_KEY]
    assert inputs.own_gpus.name == "my_gpus.csv"
    plan = planning.scenario_plan(inputs, session.Question())
    placed = 0
    for result in plan.results:
        assert check_plan(result.plan, plan.scenario) == []
        assert {h.gpu_model for h in plan.scenario.inventory.hosts} == {"H100-80GB-lab"}
        placed += result.metrics.instances_placed
    assert placed > 0

    at.switch_page("ui/pages/compare.py").run()
    assert not at.exception
    assert not at.error
    assert at.get_by_key("compare_key_figures").dataframe[0].value is not None

    at.switch_page("ui/pages/assumptions.py").run()
    assert not at.exception
    prices = next(
        frame.value for frame in at.dataframe if str(frame.key).startswith("assumptions_prices_")
    )
    rows = prices.set_index("GPU model")
    assert rows.loc["H100-80GB-lab", "catalog price [USD]"] == 27000
    assert rows.loc["RTX-6000-Ada", "catalog price [USD]"] == 6800
    assert bool(rows.loc["H100-80GB-lab", "in inventory"])


def test_a_bad_own_gpu_file_is_refused_with_row_column_and_fix_and_the_catalog_is_kept() -> None:
    """A bad own-GPU file is refused naming file, row, column and fix; the catalog extended by the
    previous file stays in use, so the inventory naming its model still loads."""
    at = _inventory_page()
    _upload_own_gpus(at, "my_gpus.csv", OWN_GPUS)
    _upload(at, "lab-hosts.csv", LAB_INVENTORY)
    bad = (
        "name,memory_gib,tdp_w,fp16_tflops,price_usd\n"
        "H100-80GB-lab,80,400,835,27000\n"
        "B,lots,1,1,1\n"
    )
    _upload_own_gpus(at, "broken.csv", bad)
    assert not at.exception
    assert len(at.error) == 1
    assert "broken.csv cannot be used" in at.error[0].value
    assert "the catalog with my_gpus.csv" in at.error[0].value
    problems = at.dataframe[0].value
    assert list(problems.columns) == ["file", "row", "column", "problem", "fix"]
    assert set(problems["file"]) == {"broken.csv"}
    assert list(problems["row"]) == [3]
    assert list(problems["column"]) == ["memory_gib"]
    assert problems.loc[0, "fix"]
    assert at.session_state[session._INPUTS_KEY].own_gpus.name == "my_gpus.csv"
    assert "Catalog extended by my_gpus.csv" in _sidebar(at)
    assert _metric(at, "Hosts") == "2"


def test_a_bad_first_own_gpu_file_keeps_the_bundled_catalog() -> None:
    """With no own models yet, a refused file leaves the bundled catalog alone (nothing added)."""
    at = _inventory_page()
    _upload_own_gpus(
        at, "clash.csv", "name,memory_gib,tdp_w,fp16_tflops,price_usd\nL4,24,72,121,1\n"
    )
    assert not at.exception
    assert "the planner still uses the bundled catalog" in at.error[0].value
    problems = at.dataframe[0].value
    assert (problems.loc[0, "row"], problems.loc[0, "column"]) == (2, "name")
    assert "new name" in problems.loc[0, "fix"]
    assert at.session_state[session._INPUTS_KEY].own_gpus is None
    assert "Catalog extended" not in _sidebar(at)


def test_dropping_own_gpu_models_plans_with_the_bundled_catalog_again() -> None:
    """The sidebar's drop button removes the extension: the sidebar no longer mentions it and
    inventory rows naming the dropped model are skipped with an unknown-model problem."""
    at = _inventory_page()
    _upload_own_gpus(at, "my_gpus.csv", OWN_GPUS)
    _upload(at, "lab-hosts.csv", LAB_INVENTORY + "std,lab,L40S,4,64,512,100,yes,1\n")
    assert _metric(at, "Hosts") == "3"
    at.sidebar.button(key="sidebar_drop_own_gpus").click().run()
    assert not at.exception
    assert at.session_state[session._INPUTS_KEY].own_gpus is None
    assert "Catalog extended" not in _sidebar(at)
    assert _metric(at, "Hosts") == "1"
    problems = at.dataframe[0].value
    assert list(problems["column"]) == ["gpu_model"]
    assert "H100-80GB-lab" in problems.loc[0, "problem"]
    assert at.button(key="own_gpus_drop").disabled
    # The file is still in the uploader, so it can be used again without uploading it again.
    at.button(key="own_gpus_use_again").click().run()
    assert _metric(at, "Hosts") == "3"


def test_the_own_gpu_template_is_offered() -> None:
    """The own-GPU section offers its template download and the drop button is off without a
    file in use."""
    at = _inventory_page()
    keys = {button.key for button in at.get("download_button")}
    assert "own_gpus_template" in keys
    assert at.button(key="own_gpus_drop").disabled


def test_a_comment_or_total_row_in_the_import_review_is_no_host() -> None:
    """In the import review's table, a host typed as '# node-b' (a comment) and a row added
    with Total and empty cells are no hosts, as in an inventory CSV: each is listed at its row
    with the CSV loader's words and fix, and applying plans the other host only (the comment
    row was planned as a host named '# node-b')."""
    rows = [
        f"{index}, NVIDIA L40S, 4, 46068 MiB, {host}"
        for host in ("node-a", "node-b")
        for index in range(4)
    ]
    data = "\n".join(["index, name, count, memory.total [MiB], hostname", *rows, ""]).encode()
    at = _inventory_page()
    at.file_uploader(key="inventory_upload").set_value(("gpus.csv", data, "text/csv")).run()
    at.session_state["inventory_upload_editor"] = {
        "edited_rows": {"1": {"host": "# node-b"}},
        "added_rows": [{"host": "Total", "gpus_per_host": 8}],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    problems = next(df.value for df in at.dataframe if "fix" in df.value.columns)
    listed = problems[problems["file"] == "table to fix"].to_dict("records")
    assert [(p["row"], p["problem"], p["fix"]) for p in listed] == [
        (
            2,
            "the row starts with # and is read as a comment: it is not planned",
            "delete the # to plan the row, or delete the row",
        ),
        (
            3,
            "'Total' and empty cells: a spreadsheet's total row, not a row of the inventory",
            "delete the row (the planner adds up the rows itself)",
        ),
    ]
    at.button(key="inventory_upload_apply").click().run()
    assert not at.exception
    hosts = next(df.value for df in at.get_by_key("inventory_hosts").dataframe)
    assert list(hosts["host"]) == ["node-a"]
