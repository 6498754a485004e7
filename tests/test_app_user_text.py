"""AppTest of text the user wrote (file, host, cluster and class names) on every page: it is
shown as written, never read as Markdown, and an upload that cannot be used names its bad file."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui import session

TIMEOUT_S = 300
APP = str(Path(__file__).resolve().parent.parent / "app.py")
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"
MARKDOWN = "**bold** [a](b)"
"""A name that Markdown would show as a bold word and a link."""
RENDERED = ("**bold**", "[a](b)")
"""What a Markdown element holds when the name reaches it unescaped."""
PAGES = [
    "ui/pages/compare.py",
    "ui/pages/inside.py",
    "ui/pages/workloads.py",
    "ui/pages/inventory.py",
    "ui/pages/harvesting.py",
    "ui/pages/scenarios.py",
]
MARKDOWN_ELEMENTS = [
    "markdown",
    "caption",
    "success",
    "info",
    "warning",
    "error",
    "subheader",
    "header",
    "title",
    "expander",
]
"""Element kinds whose text Streamlit renders as Markdown."""


def _with_markdown_names(name: str, columns: list[str]) -> bytes:
    """The sample CSV ``name`` with every other row's ``columns`` prefixed by ``MARKDOWN``."""
    rows = list(csv.reader(io.StringIO((SAMPLE / name).read_text())))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(rows[0])
    for number, row in enumerate(rows[1:]):
        if number % 2 == 0:
            for column in columns:
                at = rows[0].index(column)
                row[at] = f"{MARKDOWN} {row[at]}"
        writer.writerow(row)
    return out.getvalue().encode()


def _markdown_texts(at: AppTest) -> list[str]:
    texts = []
    for kind in MARKDOWN_ELEMENTS:
        for element in at.get(kind):
            texts.append(str(getattr(element, "value", "") or element.proto.label))
    for metric in at.get("metric"):
        texts += [metric.proto.label, metric.proto.help]
    return texts


@pytest.mark.parametrize("page", PAGES)
def test_names_holding_markdown_are_shown_as_written(page: str) -> None:
    """File, host, cluster and class names holding ``**bold** [a](b)`` reach no Markdown element
    unescaped on any page (the sidebar, headings, per-class reasons and plan notes included);
    the names are there, escaped."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.InputFile(
            f"{MARKDOWN}.csv", _with_markdown_names("inventory.csv", ["host", "cluster"])
        ),
        workloads=session.InputFile(
            f"{MARKDOWN} mix.csv", _with_markdown_names("workloads.csv", ["name"])
        ),
    )
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    assert not at.exception
    texts = _markdown_texts(at)
    unescaped = [t for t in texts if any(r in t for r in RENDERED)]
    assert unescaped == []
    assert any(r"\*\*bold\*\* \[a\](b)" in t for t in texts)


def test_a_pod_list_s_name_and_its_inventory_s_are_shown_as_written() -> None:
    """A trace pod list in use, with a refused row, on an inventory file: the caption saying the
    list is used as given, the warning naming the inventory it is planned on and the skipped
    rows' notice show both names escaped."""
    pods = (
        b"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
        b"pod-0,8000,16384,1,500,\npod-1,4000,8192,2,300,\n"
    )
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state[session._INPUTS_KEY] = session.ScenarioInputs(
        inventory=session.InputFile(f"{MARKDOWN}.csv", (SAMPLE / "inventory.csv").read_bytes()),
        workloads=session.InputFile(f"{MARKDOWN} pods.csv", pods),
    )
    at.run()
    at.switch_page("ui/pages/workloads.py").run()
    assert not at.exception
    texts = _markdown_texts(at)
    assert [t for t in texts if any(r in t for r in RENDERED)] == []
    escaped = r"\*\*bold\*\* \[a\](b)"
    assert any(f"{escaped} pods.csv is used as the file gives it" in t for t in texts)
    assert any(f" in {escaped} pods.csv; " in t and "skipped" in t for t in texts)
    assert any(f"{escaped}.csv" in t and "trace pod list" in t for t in texts)


@pytest.mark.parametrize(
    ("key", "in_use"),
    [("inventory_upload", "sample inventory.csv"), ("own_gpus_upload", "the bundled catalog")],
)
def test_a_lone_unusable_file_is_refused_in_the_same_words_by_every_uploader(
    key: str, in_use: str
) -> None:
    """The import panel and the own-GPU uploader refuse a lone file alike: the file, what the
    planner still uses, and to fix it and upload it again."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page("ui/pages/inventory.py").run()
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    at.file_uploader(key=key).set_value(("image.csv", png, "text/csv")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"image.csv cannot be used, so the planner still uses {in_use}. Fix the problems "
        "below and upload the file again."
    ]


def test_a_mixed_upload_names_the_file_that_stops_it() -> None:
    """One unreadable file among good ones: the error names that file as the one that cannot
    be used, says the good one is not imported either, and how to go on."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page("ui/pages/workloads.py").run()
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    good = (SAMPLE / "workloads.csv").read_bytes()
    at.file_uploader(key="workloads_upload").set_value(
        [("image.csv", png, "text/csv"), ("mix.csv", good, "text/csv")]
    ).run()
    assert not at.exception
    message = at.error[0].value
    assert message.startswith("image.csv cannot be used")
    assert "(mix.csv neither)" in message
    assert "remove image.csv from the upload" in message
    assert at.session_state[session._INPUTS_KEY].workloads.is_sample


@pytest.mark.parametrize(
    ("page", "key", "good"),
    [
        ("ui/pages/inventory.py", "inventory_upload", "inventory.csv"),
        ("ui/pages/workloads.py", "workloads_upload", "workloads.csv"),
    ],
)
def test_every_bad_file_of_an_upload_is_reported_at_once(page: str, key: str, good: str) -> None:
    """Two unreadable files among a good one: the error names both as the files that cannot be
    used and the good one as not imported either, and the problem table lists a problem of
    each, so the second is not found only after the first is removed."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page(page).run()
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    at.file_uploader(key=key).set_value(
        [
            ("notes.txt", b"hello there\nrandom words\n", "text/plain"),
            ("image.csv", png, "text/csv"),
            (good, (SAMPLE / good).read_bytes(), "text/csv"),
        ]
    ).run()
    assert not at.exception
    message = at.error[0].value
    assert message.startswith("notes.txt, image.csv cannot be used")
    assert f"({good} neither)" in message
    assert "remove notes.txt, image.csv from the upload" in message
    problems = next(df.value for df in at.dataframe if "problem" in df.value.columns)
    assert list(problems["file"]) == ["notes.txt", "image.csv"]
