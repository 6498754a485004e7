"""AppTest of hostile uploads on every page that takes files: the Inventory and Workloads import
panels (plan workbooks among them), the Inventory page's own GPU models and the Harvesting
page's file of curve values.

Each file is one a user could give by mistake or on purpose: empty, a header only, binary data
or an image named as a table, a zip that is no workbook, a workbook of formulas or with its table
on another sheet, other encodings, 50 MB, 100,000 rows, 300 columns, a 1 MB cell, formula
injection, Markdown and HTML in names, numbers that are none, repeated names, and every tool
output of ``shared/samples`` on the wrong page. For each: no exception and no traceback on the
page, a message naming the file and what to do, rows that cannot be used listed, and the inputs
in use unchanged unless the file is used as the user wrote it.
"""

from __future__ import annotations

import csv
import io
import re
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import openpyxl
import pandas as pd
import pytest
from importer_samples import (
    DCGM,
    KUBECTL_NODES,
    MIG_LGI,
    MIG_LGIP,
    NVIDIA_SMI_LIST,
    NVIDIA_SMI_QUERY,
    NVIDIA_SMI_TABLE,
    RVTOOLS,
    sample,
)
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from planner.output.cells import FORMULA_PREFIXES
from ui import planning, session

TIMEOUT_S = 120
REPO = Path(__file__).resolve().parent.parent
APP = str(REPO / "app.py")
INVENTORY = (REPO / "data" / "sample" / "inventory.csv").read_text()
WORKLOADS = (REPO / "data" / "sample" / "workloads.csv").read_text()
OWN_GPUS = (
    "name,memory_gib,tdp_w,fp16_tflops,price_usd,vgpu_capable,mig_capable\n"
    "Lab-48,48,300,180,9000,no,no\n"
    "Lab-24,24,150,90,4000,no,no\n"
)
CURVE = "\n".join(f"{0.1 + 0.03 * hour:.2f}" for hour in range(24)) + "\n"
INJECTIONS = ("=cmd|' /C calc'!A0", "+1+1", "@SUM(1)")
"""Cells a spreadsheet would run (OWASP CSV injection)."""
MARKUP = ("<script>alert(1)</script>", "**bold** [link](http://x)")
"""Names that HTML or Markdown would render."""
IN_USE = {"inventory": "In use: the bundled sample", "workloads": "In use: sample workloads.csv"}
"""The Inventory and Workloads pages' heading while the sample is in use."""
PAGES = {"inventory": "ui/pages/inventory.py", "workloads": "ui/pages/workloads.py"}
NUMBER_COLUMN = {"inventory": "gpus_per_host", "workloads": "instances"}


# --- Files -------------------------------------------------------------------------------------


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _with_cell(text: str, column: str, value: str) -> bytes:
    """The CSV ``text`` with its first data row's ``column`` set to ``value``."""
    rows = _rows(text)
    rows[1][rows[0].index(column)] = value
    return _csv(rows)


def _first_column(text: str) -> str:
    return _rows(text)[0][0]


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        checksum = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + checksum

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def _zip_of_zeros() -> bytes:
    """A valid zip that is no workbook: one member of 5 MB of zeros (it packs to a few KB)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.txt", b"0" * 5_000_000)
    return out.getvalue()


def _workbook(sheets: dict[str, list[list[Any]]]) -> bytes:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _formulas(text: str) -> bytes:
    """The table typed in Excel with formulas for its numbers (saved without their values)."""
    rows = _rows(text)
    return _workbook(
        {
            "Sheet1": [
                rows[0],
                *[[f"={v}" if v.replace(".", "", 1).isdigit() else v for v in r] for r in rows[1:]],
            ]
        }
    )


def _large(text: str, megabytes: int) -> bytes:
    """The CSV ``text`` with its rows repeated (each name made unique) to ``megabytes`` MB."""
    header, *rows = text.splitlines()
    lines, size, number = [header], len(header), 0
    while size < megabytes * 1024 * 1024:
        for row in rows:
            number += 1
            first, rest = row.split(",", 1)
            lines.append(f"{first}-{number},{rest}")
            size += len(lines[-1]) + 1
    return ("\n".join(lines) + "\n").encode()


def _many_rows(text: str, count: int) -> bytes:
    header, *rows = text.splitlines()
    lines = [header]
    for number in range(count):
        first, rest = rows[number % len(rows)].split(",", 1)
        lines.append(f"{first}-{number},{rest}")
    return ("\n".join(lines) + "\n").encode()


def _wide(text: str, extra: int = 300) -> bytes:
    rows = _rows(text)
    rows[0] += [f"extra{i}" for i in range(extra)]
    for row in rows[1:]:
        row += ["x"] * extra
    return _csv(rows)


def _repeated_first_row(text: str) -> bytes:
    rows = _rows(text)
    return _csv([rows[0], rows[1], *rows[1:]])


def _table_files(text: str, number_column: str) -> dict[str, bytes]:
    """Hostile variants of the planner CSV ``text`` (inventory, workloads or GPU models)."""
    name = _first_column(text)
    return {
        "empty.csv": b"",
        "header-only.csv": (text.splitlines()[0] + "\n").encode(),
        "binary.csv": bytes(range(256)) * 40,
        "utf16.csv": text.encode("utf-16"),
        "bom.csv": b"\xef\xbb\xbf" + text.encode(),
        "cp1252.csv": _with_cell(text, name, "café").decode().encode("cp1252"),
        "fifty-mb.csv": _large(text, 50),
        "hundred-k.csv": _many_rows(text, 100_000),
        "wide.csv": _wide(text),
        "megabyte-cell.csv": _with_cell(text, name, "x" * 1_000_000),
        "long-name.csv": _with_cell(text, name, "h" * 100_000),
        **{f"injection-{i}.csv": _with_cell(text, name, v) for i, v in enumerate(INJECTIONS)},
        **{f"markup-{i}.csv": _with_cell(text, name, v) for i, v in enumerate(MARKUP)},
        "negative.csv": _with_cell(text, number_column, "-4"),
        "nan.csv": _with_cell(text, number_column, "nan"),
        "inf.csv": _with_cell(text, number_column, "inf"),
        "duplicate.csv": _repeated_first_row(text),
    }


# --- Checks ------------------------------------------------------------------------------------

_TEXT_ELEMENTS = ("error", "warning", "info", "success", "markdown", "caption", "exception")
_MARKDOWN_ELEMENTS = ("error", "warning", "info", "success", "markdown", "caption", "subheader")


def _texts(at: AppTest, kinds: tuple[str, ...] = _TEXT_ELEMENTS) -> list[str]:
    return [str(getattr(e, "value", "")) for kind in kinds for e in at.get(kind)]


def _assert_clean(at: AppTest) -> None:
    """No exception box, no traceback and no planner failure (the catch-all message) shown, and
    no name reaches a Markdown element as HTML."""
    assert not at.exception, [e.value for e in at.exception]
    for text in _texts(at):
        assert "Traceback" not in text, text[:500]
        assert "the planner stopped with" not in text, text[:500]
    for text in _texts(at, _MARKDOWN_ELEMENTS):
        for rendered in ("<script>", "**bold**", "[link]("):
            assert rendered not in text, text[:500]


def _problems(at: AppTest) -> pd.DataFrame:
    """Every problem table on the page, one after the other."""
    frames = [df.value for df in at.dataframe if {"problem", "fix"} <= set(df.value.columns)]
    assert frames, "no problem is listed"
    return pd.concat(frames, ignore_index=True)


def _said(problems: pd.DataFrame) -> str:
    return "\n".join(problems["problem"].astype(str) + " | " + problems["fix"].astype(str))


def _inputs(at: AppTest) -> session.ScenarioInputs:
    inputs = at.session_state[session._INPUTS_KEY]
    assert isinstance(inputs, session.ScenarioInputs)
    return inputs


def _page(path: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    return at.switch_page(path).run()


def _import(role: str, name: str, data: bytes) -> AppTest:
    at = _page(PAGES[role])
    key = f"{role}_upload"
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream")).run()
    _assert_clean(at)
    return at


# --- The import panels -------------------------------------------------------------------------

Expect = tuple[str, str]
"""(what the page does, a fragment its message holds): ``refused`` (the file cannot be used),
``review`` (rows or values listed as not used, the file waits for Apply), ``read`` (a tool output
read, waiting for Apply; the fragment names the tool) or ``applied`` (used as written)."""

_TABLE_EXPECTED: dict[str, Expect] = {
    "empty.csv": ("refused", "the file is empty"),
    "header-only.csv": ("refused", "no usable"),
    "binary.csv": ("refused", "binary data"),
    "utf16.csv": ("applied", ""),
    "bom.csv": ("applied", ""),
    "cp1252.csv": ("refused", "byte E9 cannot be decoded"),
    "fifty-mb.csv": ("refused", "the file is 50.0 MB, over the limit of 20 MB"),
    "hundred-k.csv": ("refused", "more than 10,000 rows"),
    "wide.csv": ("review", "unknown column 'extra299'"),
    "megabyte-cell.csv": ("refused", "longer than 131,072 characters"),
    "long-name.csv": ("review", "100,000 characters, over the limit of 253 characters"),
    **{f"injection-{i}.csv": ("applied", "") for i in range(len(INJECTIONS))},
    **{f"markup-{i}.csv": ("applied", "") for i in range(len(MARKUP))},
    "negative.csv": ("review", "-4 is out of range"),
    "nan.csv": ("review", "'nan' is not a finite number"),
    "inf.csv": ("review", "'inf' is not a finite number"),
    "duplicate.csv": ("refused", "already"),
}
_OTHER_FILES: dict[str, Callable[[str], bytes]] = {
    "picture.xlsx": lambda text: _png(),
    "archive.xlsx": lambda text: _zip_of_zeros(),
    "formulas.xlsx": _formulas,
    "second-sheet.xlsx": lambda text: _workbook(
        {"Notes": [["see the next sheet"]], "Data": _rows(text)}
    ),
    "fifty-mb.txt": lambda text: sample(NVIDIA_SMI_LIST)[1] * (50 * 1024 * 1024 // 4992 + 1),
}
_OTHER_EXPECTED: dict[str, Expect] = {
    "picture.xlsx": ("refused", "this is a PNG image"),
    "archive.xlsx": ("refused", "not a readable Excel workbook (.xlsx)"),
    "formulas.xlsx": ("refused", "File > Save As > CSV UTF-8"),
    "second-sheet.xlsx": ("refused", "its sheets: 'Notes', 'Data'"),
    "fifty-mb.txt": ("refused", "over the limit of 20 MB"),
}
_SAMPLES: dict[str, dict[str, Expect]] = {
    "inventory": {
        KUBECTL_NODES: ("read", "kubectl get nodes -o json"),
        NVIDIA_SMI_QUERY: ("read", "nvidia-smi --query-gpu"),
        NVIDIA_SMI_LIST: ("read", "nvidia-smi -L"),
        NVIDIA_SMI_TABLE: ("read", "nvidia-smi"),
        MIG_LGI: ("read", "nvidia-smi mig -lgi"),
        MIG_LGIP: ("read", "nvidia-smi mig -lgip"),
        DCGM: ("refused", "which describes workloads, not hosts"),
        RVTOOLS: ("refused", "no file gives the GPUs"),
    },
    "workloads": {
        KUBECTL_NODES: ("refused", "which describes hosts, not workloads"),
        NVIDIA_SMI_QUERY: ("refused", "which describes hosts, not workloads"),
        NVIDIA_SMI_LIST: ("refused", "which describes hosts, not workloads"),
        NVIDIA_SMI_TABLE: ("refused", "which describes hosts, not workloads"),
        MIG_LGI: ("refused", "which describes hosts, not workloads"),
        MIG_LGIP: ("refused", "which describes hosts, not workloads"),
        DCGM: ("refused", "DCGM metrics measure them but do not list them"),
        RVTOOLS: ("refused", "which describes hosts, not workloads"),
    },
}


def _text_of(role: str) -> str:
    return INVENTORY if role == "inventory" else WORKLOADS


def _check_import(at: AppTest, role: str, name: str, data: bytes, expect: Expect) -> None:
    outcome, fragment = expect
    if outcome == "applied":
        assert at.subheader[0].value == f"In use: {name}"
        in_use = _inputs(at).inventory if role == "inventory" else _inputs(at).workloads
        # The planner CSV is used as the user wrote it, byte for byte.
        assert in_use.content == data
        return
    # Nothing replaces the inputs in use before the user says so.
    assert at.subheader[0].value == IN_USE[role]
    assert _inputs(at) == session.sample_inputs()
    if outcome == "read":
        assert any(f"read as {fragment}" in c.value for c in at.caption), _texts(at)
        assert at.button(key=f"{role}_upload_apply")
        return
    problems = _problems(at)
    assert fragment in _said(problems), _said(problems)[:2000]
    assert problems["file"].astype(str).str.startswith(name).any()
    if outcome == "refused":
        assert any(f"{name} cannot be used" in e.value for e in at.error), _texts(at)
        assert not [b for b in at.button if b.key == f"{role}_upload_apply"]
    else:
        assert any("would not be used" in w.value for w in at.warning), _texts(at)
        assert at.button(key=f"{role}_upload_apply")


@pytest.mark.parametrize("role", ["inventory", "workloads"])
@pytest.mark.parametrize("case", sorted(_TABLE_EXPECTED))
def test_a_hostile_planner_csv_is_refused_listed_or_used_as_written(role: str, case: str) -> None:
    """Each hostile variant of the planner CSV is refused with the reason and the fix (the
    sample stays in use), waits for Apply with every row or value it would not use listed
    (file, row, column, fix), or, when every row reads, is used byte for byte as written; never
    an exception or a traceback."""
    data = _table_files(_text_of(role), NUMBER_COLUMN[role])[case]
    at = _import(role, case, data)
    _check_import(at, role, case, data, _TABLE_EXPECTED[case])


@pytest.mark.parametrize("role", ["inventory", "workloads"])
def test_every_unknown_column_of_a_wide_file_is_listed(role: str) -> None:
    """A file with 300 columns the planner does not know lists each of them: none is dropped
    without a word."""
    at = _import(role, "wide.csv", _wide(_text_of(role)))
    unknown = _problems(at)["column"].astype(str).str.startswith("extra")
    assert unknown.sum() == 300


@pytest.mark.parametrize("role", ["inventory", "workloads"])
@pytest.mark.parametrize("case", sorted(_OTHER_EXPECTED))
def test_a_file_of_another_kind_is_refused_as_what_it_is(role: str, case: str) -> None:
    """An image or a zip named .xlsx, a workbook of formulas or with its table on a second
    sheet, and a 50 MB tool output are refused, naming what the file is and what to give."""
    data = _OTHER_FILES[case](_text_of(role))
    at = _import(role, case, data)
    _check_import(at, role, case, data, _OTHER_EXPECTED[case])


def test_a_50_mb_upload_is_refused_in_seconds() -> None:
    """The size limit is checked before the file is read: a 50 MB tool output is refused by
    its size alone (the check that runs before decoding), with no problem from its rows."""
    data = _OTHER_FILES["fifty-mb.txt"]("")
    at = _import("inventory", "fifty-mb.txt", data)
    problems = _problems(at)
    assert list(problems["problem"]) == ["the file is 50.0 MB, over the limit of 20 MB"]


@pytest.mark.parametrize("role", ["inventory", "workloads"])
@pytest.mark.parametrize("relative", sorted(_SAMPLES["inventory"]))
def test_a_tool_output_on_either_page_is_read_or_refused_naming_its_page(
    role: str, relative: str
) -> None:
    """Every shared tool output is read on the page it belongs to, and refused on the other
    naming the tool and the page to give it on."""
    name, data = sample(relative)
    at = _import(role, name, data)
    _check_import(at, role, name, data, _SAMPLES[role][relative])


@pytest.mark.parametrize("value", [*INJECTIONS, *MARKUP])
def test_a_hostile_host_name_is_shown_as_written(value: str) -> None:
    """A host named as a formula or in HTML or Markdown is used and shown as written in the
    host table (each host of its row numbered after it), never rendered."""
    data = _with_cell(INVENTORY, "host", value)
    at = _import("inventory", "hosts.csv", data)
    hosts = at.get_by_key("inventory_hosts").dataframe[0].value
    assert hosts.iloc[:, 0].astype(str).str.startswith(value).any()


# --- Plan workbooks ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plan_workbook() -> bytes:
    return planning.workbook(session.sample_inputs(), session.Question())


def _edited(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """The plan workbook ``data`` with its 'Planner inputs' sheet edited by ``edit``."""
    book = openpyxl.load_workbook(io.BytesIO(data))
    edit(book["Planner inputs"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _set_value(item: str, value: Any) -> Callable[[Any], None]:
    def edit(sheet: Any) -> None:
        for row in sheet.iter_rows(min_row=3):
            if row[1].value == item:
                row[2].value = value

    return edit


def _drop(item: str) -> Callable[[Any], None]:
    def edit(sheet: Any) -> None:
        for row in sheet.iter_rows(min_row=3):
            if row[1].value == item:
                for cell in row:
                    cell.value = None

    return edit


def test_a_plan_workbook_restores_its_whole_plan(plan_workbook: bytes) -> None:
    """The planner's own workbook offers its whole plan, which Restore puts in use."""
    at = _import("inventory", "plan.xlsx", plan_workbook)
    at.button(key="inventory_upload_restore").click().run()
    _assert_clean(at)
    assert at.subheader[0].value == "In use: plan.xlsx inventory"


@pytest.mark.parametrize("role", ["inventory", "workloads"])
def test_a_formula_saved_without_its_value_is_named_not_read_as_empty(
    role: str, plan_workbook: bytes
) -> None:
    """A formula a program saved without calculating it, in a file cell, refuses the workbook
    naming its sheet, row and column; it was read as an empty file."""
    data = _edited(plan_workbook, _set_value("inventory.csv", '=HYPERLINK("http://x","y")'))
    at = _import(role, "formula.xlsx", data)
    problems = _problems(at)
    assert problems.loc[0, "file"] == "formula.xlsx [Planner inputs]"
    assert problems.loc[0, "row"] == 4
    assert problems.loc[0, "column"] == "value"
    said = str(problems.loc[0, "problem"])
    assert 'the formula =HYPERLINK("http://x","y") with no value saved' in said
    assert _inputs(at) == session.sample_inputs()


def test_assumptions_a_plan_workbook_cannot_use_are_listed_before_restoring(
    plan_workbook: bytes,
) -> None:
    """A formula or a 30,000-digit number as an assumption's value is listed (row, name, the
    value cut to its start and length) before Restore, which then keeps those defaults; they
    were dropped in silence."""
    data = _edited(
        _edited(plan_workbook, _set_value("pue", "=1+0.5")),
        _set_value("power_usd_per_kwh", "9" * 30_000),
    )
    at = _import("inventory", "edited.xlsx", data)
    assert any("would not use 2 values" in w.value for w in at.warning), _texts(at)
    said = _said(_problems(at))
    assert "pue: an empty cell (its value deleted, or a formula whose value was not saved)" in said
    assert "(30,000 characters)" in said
    assert len(said) < 2_000
    at.button(key="inventory_upload_restore").click().run()
    _assert_clean(at)
    assert _inputs(at).assumptions.pue == session.sample_inputs().assumptions.pue


def test_a_plan_whose_part_cannot_be_used_is_not_restored(plan_workbook: bytes) -> None:
    """A plan workbook whose inventory text is no inventory offers no Restore on the Workloads
    page (its workloads are fine) and says why: restored, every page showed an error."""
    data = _edited(plan_workbook, _set_value("inventory.csv", "hello"))
    at = _import("workloads", "broken.xlsx", data)
    assert any("cannot be restored" in w.value for w in at.warning), _texts(at)
    assert not [b for b in at.button if b.key == "workloads_upload_restore"]
    assert set(_problems(at)["file"]) == {"broken.xlsx inventory"}


def test_a_plan_workbook_without_its_inventory_is_refused(plan_workbook: bytes) -> None:
    at = _import("inventory", "no-inventory.xlsx", _edited(plan_workbook, _drop("inventory.csv")))
    assert "the sheet holds no inventory.csv" in _said(_problems(at))


# --- Own GPU models (Inventory page) -------------------------------------------------------------

_OWN_EXPECTED: dict[str, Expect] = {
    "empty.csv": ("refused", "the file is empty"),
    "header-only.csv": ("refused", "the file has no model row below its header"),
    "binary.csv": ("refused", "binary data"),
    "utf16.csv": ("applied", ""),
    "bom.csv": ("applied", ""),
    "cp1252.csv": ("refused", "byte E9 cannot be decoded"),
    "fifty-mb.csv": ("refused", "over the limit of 20 MB"),
    "hundred-k.csv": ("refused", "more than 10,000 rows"),
    "wide.csv": ("refused", "unknown column 'extra0' (known:"),
    "megabyte-cell.csv": ("refused", "longer than 131,072 characters"),
    "long-name.csv": ("applied", ""),
    "injection-0.csv": ("refused", "contains |"),
    "injection-1.csv": ("applied", ""),
    "injection-2.csv": ("applied", ""),
    "markup-0.csv": ("applied", ""),
    "markup-1.csv": ("applied", ""),
    "negative.csv": ("refused", "-4 is out of range"),
    "nan.csv": ("refused", "'nan' is not a finite number"),
    "inf.csv": ("refused", "'inf' is not a finite number"),
    "duplicate.csv": ("refused", "already defined on row 2"),
}


def _own_files() -> dict[str, bytes]:
    files = _table_files(OWN_GPUS, "memory_gib")
    # The uploader takes .csv only (the browser refuses other names), so these are named .csv.
    files["long-name.csv"] = _with_cell(OWN_GPUS, "name", "G" * 200)
    files["picture.csv"] = _png()
    files["workbook.csv"] = _workbook({"Sheet1": _rows(OWN_GPUS)})
    files["catalog-name.csv"] = _with_cell(OWN_GPUS, "name", "L40S")
    files["query-gpu.csv"] = sample(NVIDIA_SMI_QUERY)[1]
    return files


_OWN_EXPECTED |= {
    "picture.csv": ("refused", "this is a PNG image"),
    "workbook.csv": ("refused", "this is an Excel workbook (.xlsx), not a CSV file"),
    "catalog-name.csv": ("refused", "'L40S' is already a catalog model"),
    "query-gpu.csv": ("refused", "required column 'memory_gib' is missing"),
}


@pytest.mark.parametrize("case", sorted(_OWN_EXPECTED))
def test_own_gpu_models_are_used_whole_or_refused_with_the_reason(case: str) -> None:
    """The catalog is all or nothing: a file of own GPU models is used as written, or refused
    naming its problems while the bundled catalog stays in use; never an exception."""
    data = _own_files()[case]
    at = _page(PAGES["inventory"])
    at.file_uploader(key="own_gpus_upload").set_value((case, data, "text/csv")).run()
    _assert_clean(at)
    outcome, fragment = _OWN_EXPECTED[case]
    own = _inputs(at).own_gpus
    if outcome == "applied":
        assert own is not None
        assert own.content == data
        assert any(s.value.startswith(f"In use: {case} adds 2 models") for s in at.success)
        return
    assert own is None
    assert any(f"{case} cannot be used" in e.value for e in at.error), _texts(at)
    assert fragment in _said(_problems(at)), _said(_problems(at))[:2000]


# --- Curve values (Harvesting page) -------------------------------------------------------------

_CURVE_EXPECTED: dict[str, str] = {
    "empty.csv": "no values found",
    "binary.csv": "binary data",
    "picture.csv": "this is a PNG image",
    "cp1252.csv": "byte E9 cannot be decoded",
    "fifty-mb.csv": "the file is 50.0 MB, over the limit of 1 MB",
    "negative.csv": "'-4' is outside",
    "nan.csv": "'nan' is not a number",
    "inf.csv": "'inf' is not a number",
    **{f"injection-{i}.csv": "is not a number" for i in range(len(INJECTIONS))},
    "markup.csv": "is not a number",
    "smi.txt": "is not a number",
    "query-gpu.csv": "a table of",
}


def _curve_files() -> dict[str, bytes]:
    values = CURVE.splitlines()
    return {
        "empty.csv": b"",
        "binary.csv": bytes(range(256)) * 40,
        "picture.csv": _png(),
        "cp1252.csv": ("café\n" + CURVE).encode("cp1252"),
        "fifty-mb.csv": CURVE.encode() * (50 * 1024 * 1024 // len(CURVE) + 1),
        "table.csv": "".join(
            ["hour,share\n", *(f"{h},{v}\n" for h, v in enumerate(values))]
        ).encode(),
        "negative.csv": ("-4\n" + "\n".join(values[1:])).encode(),
        "nan.csv": ("nan\n" + "\n".join(values[1:])).encode(),
        "inf.csv": ("inf\n" + "\n".join(values[1:])).encode(),
        **{
            f"injection-{i}.csv": f"{v}\n{CURVE}".encode()
            for i, v in enumerate(("=1+1", "+1+1", "@SUM(1)"))
        },
        "markup.csv": ("<script>alert(1)</script>\n" + CURVE).encode(),
        "smi.txt": sample(NVIDIA_SMI_TABLE)[1],
        "query-gpu.csv": sample(NVIDIA_SMI_QUERY)[1],
    }


def _simulate_with_file(name: str, data: bytes) -> AppTest:
    at = _page("ui/pages/harvesting.py")
    at.selectbox(key="harvest_curve").set_value("upload")
    at.file_uploader(key="harvest_curve_file").set_value((name, data, "text/csv"))
    at.button(key="harvest_simulate").click().run()
    _assert_clean(at)
    return at


@pytest.mark.parametrize("case", sorted(_CURVE_EXPECTED))
def test_a_hostile_curve_file_is_refused_naming_the_value(case: str) -> None:
    """A file of curve values that is not one (empty, binary, an image, another encoding, a
    table of a tool's many columns, values out of range, formulas, HTML, a tool's output) is refused
    naming the file, the value and the fix; a 50 MB file by its size."""
    at = _simulate_with_file(case, _curve_files()[case])
    assert any("The demand curve could not be read" in e.value for e in at.error), _texts(at)
    problems = _problems(at)
    assert (problems["file"] == case).all()
    assert _CURVE_EXPECTED[case] in _said(problems), _said(problems)[:2000]


@pytest.mark.parametrize("case", ["curve.csv", "table.csv"])
def test_a_good_curve_file_is_simulated(case: str) -> None:
    """24 values, one per line, or a spreadsheet's table of them with a header (``hour,share``),
    are read and simulated: no error."""
    at = _simulate_with_file(case, _curve_files().get(case, CURVE.encode()))
    assert not at.error, _texts(at)
    assert at.metric


# --- Exports ------------------------------------------------------------------------------------


class _KeptMedia(MemoryMediaFileStorage):
    """The AppTest media store, kept after the run so downloads can be opened."""

    stores: ClassVar[list[MemoryMediaFileStorage]] = []

    def __init__(self, endpoint: str) -> None:
        super().__init__(endpoint)
        _KeptMedia.stores.append(self)


def _download(url: str) -> bytes:
    name = url.rsplit("/", 1)[-1]
    for store in reversed(_KeptMedia.stores):
        try:
            return bytes(store.get_file(name).content)
        except MediaFileStorageError:
            continue  # the file lives in the store of the run that made it
    raise AssertionError(f"download {url} not found")


def _hostile_inputs() -> session.ScenarioInputs:
    """The sample with hosts, clusters and an own GPU model named as formulas."""
    rows = _rows(INVENTORY)
    header = rows[0]
    for number, row in enumerate(rows[1:]):
        row[header.index("host")] = f"{INJECTIONS[number % 3]}{number}"
        row[header.index("cluster")] = INJECTIONS[(number + 1) % 3]
    rows[1][header.index("gpu_model")] = "@GPU(1)"
    rows[1][header.index("mig_enabled")] = "no"
    own = "name,memory_gib,tdp_w,fp16_tflops,price_usd\n@GPU(1),80,700,990,30000\n"
    return session.ScenarioInputs(
        inventory=session.InputFile("hostile.csv", _csv(rows)),
        workloads=session.sample_inputs().workloads,
        own_gpus=session.InputFile("gpus.csv", own.encode()),
    )


def test_formula_names_reach_the_workbook_as_text() -> None:
    """Host, cluster and own GPU model names that are formulas are stored in the plan workbook
    as text cells holding the names as written, never as formulas."""
    inputs = _hostile_inputs()
    data = planning.workbook(inputs, session.Question())
    book = openpyxl.load_workbook(io.BytesIO(data))
    found: set[str] = set()
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", f"formula in {sheet.title}!{cell.coordinate}"
                if isinstance(cell.value, str) and cell.value.startswith(FORMULA_PREFIXES):
                    found.add(cell.value)
    assert {"@GPU(1)", *INJECTIONS} <= found
    assert any(value.startswith("=cmd|' /C calc'!A0") for value in found)


def test_formula_names_are_neutralised_in_every_csv_download(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Inside page's CSV downloads hold the formula names behind a leading quote: no cell
    starts a formula."""
    _KeptMedia.stores = []
    monkeypatch.setattr("streamlit.testing.v1.app_test.MemoryMediaFileStorage", _KeptMedia)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    at.session_state[session._INPUTS_KEY] = _hostile_inputs()
    at.run()
    at.switch_page("ui/pages/inside.py").run()
    _assert_clean(at)
    quoted = 0
    for button in at.get("download_button"):
        url: Any = button.proto.url
        data = _download(url) if url else b""
        if not data or data[:2] == b"PK":
            continue
        cells = [cell for row in csv.reader(io.StringIO(data.decode())) for cell in row]
        assert not [c for c in cells if c.startswith(FORMULA_PREFIXES)], button.key
        quoted += sum(c.startswith(("'=cmd", "'+1+1", "'@SUM(1)", "'@GPU(1)")) for c in cells)
    assert quoted > 0


HOSTILE_FILE_NAME = "<img src=x onerror=alert(1)> **bold** [link](http://x).csv"


@pytest.mark.parametrize("good", [True, False], ids=["used", "refused"])
@pytest.mark.parametrize(
    ("page", "key", "content"),
    [
        (PAGES["inventory"], "inventory_upload", INVENTORY),
        (PAGES["workloads"], "workloads_upload", WORKLOADS),
        (PAGES["inventory"], "own_gpus_upload", OWN_GPUS),
    ],
    ids=["inventory", "workloads", "own-gpus"],
)
def test_a_file_name_holding_html_and_markdown_is_shown_as_written(
    page: str, key: str, content: str, good: bool
) -> None:
    """A file named with HTML and Markdown, used or refused, is named in headings, the sidebar
    and messages as written: never rendered."""
    at = _page(page)
    data = content.encode() if good else b""
    at.file_uploader(key=key).set_value((HOSTILE_FILE_NAME, data, "text/csv")).run()
    _assert_clean(at)
    shown = "\n".join(_texts(at, (*_MARKDOWN_ELEMENTS, "exception")))
    assert "onerror" in shown
    # Escaped (\<img ... \>), Markdown shows the tag as text.
    assert re.search(r"(?<!\\)<img", shown) is None, shown[:500]
