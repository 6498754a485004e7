"""Property tests: every importer, fed arbitrary bytes or a mutated real file, either reads it or
raises the project's ``InputError``; nothing else escapes (no KeyError, IndexError, zip error)."""

from __future__ import annotations

import functools
import io
import itertools
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from importer_samples import ALL_SAMPLES, CATALOG, REPO, samples_dir
from openpyxl import Workbook, load_workbook

from planner.inputs.importers import import_inventory, import_workloads, read_plan_inputs
from planner.inputs.importers.dcgm import read_dcgm_samples
from planner.inputs.importers.detect import detect_format
from planner.inputs.importers.kubectl_nodes import read_kubectl_nodes
from planner.inputs.importers.kubectl_pods import read_kubectl_pods
from planner.inputs.importers.mig import read_mig_instances, read_mig_profiles
from planner.inputs.importers.nvidia_smi import (
    read_nvidia_smi_list,
    read_nvidia_smi_query,
    read_nvidia_smi_table,
)
from planner.inputs.importers.rvtools import read_rvtools
from planner.inputs.importers.workbook import write_inputs_sheet
from planner.inputs.inventory import load_inventory
from planner.inputs.problems import InputError
from planner.inputs.workloads import load_workloads
from planner.scenario import Scenario

Importer = Callable[[bytes, str], object]


def _inventory(data: bytes, file: str) -> object:
    imported = import_inventory([(file, data)], CATALOG)
    return imported.inventory(CATALOG)


def _workloads(data: bytes, file: str) -> object:
    return import_workloads([(file, data)], CATALOG).workloads(CATALOG)


IMPORTERS: dict[str, Importer] = {
    "detect": lambda data, file: detect_format(file, data),
    "kubectl nodes": lambda data, file: read_kubectl_nodes(data, file, CATALOG),
    "kubectl pods": lambda data, file: read_kubectl_pods(data, file, CATALOG),
    "nvidia-smi query": lambda data, file: read_nvidia_smi_query(data, file, CATALOG),
    "nvidia-smi -L": lambda data, file: read_nvidia_smi_list(data, file, CATALOG),
    "nvidia-smi table": lambda data, file: read_nvidia_smi_table(data, file, CATALOG),
    "mig -lgi": lambda data, file: read_mig_instances(data, file, CATALOG),
    "mig -lgip": lambda data, file: read_mig_profiles(data, file, CATALOG),
    "rvtools": read_rvtools,
    "dcgm": read_dcgm_samples,
    "plan workbook": lambda data, file: read_plan_inputs(data, file_name=file),
    "inventory": _inventory,
    "workloads": _workloads,
}


def _samples() -> dict[str, bytes]:
    folder = samples_dir()
    if folder is None:
        return {}
    return {r: (folder / r).read_bytes() for r in ALL_SAMPLES if (folder / r).is_file()}


SAMPLES = _samples()
_TEXT_SAMPLES = sorted(r for r in SAMPLES if not r.endswith(".xlsx"))
# A failing example is reported as found: shrinking a workbook edit can take minutes.
_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
_FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    phases=_NO_SHRINK,
)


def _reads_or_refuses(importer: Importer, data: bytes, file: str) -> None:
    """The rule under test: the importer returns, or raises InputError naming the file."""
    refused: InputError | None = None
    try:
        importer(data, file)
    except InputError as error:
        refused = error
    if refused is not None:
        assert refused.problems, "an InputError must say what is wrong"
        assert all(p.message and p.fix for p in refused.problems)


@pytest.mark.parametrize("name", list(IMPORTERS))
@_FAST
@given(data=st.binary(max_size=2_000))
def test_arbitrary_bytes_raise_only_input_errors(name: str, data: bytes) -> None:
    """Any bytes at all: read, or refused with an InputError that says what and how to fix."""
    _reads_or_refuses(IMPORTERS[name], data, "upload.bin")


@pytest.mark.parametrize("name", list(IMPORTERS))
@_FAST
@given(
    text=st.text(
        alphabet=st.sampled_from(list('{}[]":,.\n\t |+-=#%0123456789abcGiMNVIDA[N/A]')),
        max_size=400,
    )
)
def test_arbitrary_tool_like_text_raises_only_input_errors(name: str, text: str) -> None:
    """Text made of the characters tool output is made of (braces, pipes, units, N/A)."""
    _reads_or_refuses(IMPORTERS[name], text.encode(), "upload.txt")


@st.composite
def _mutated(draw: st.DrawFn, original: bytes) -> bytes:
    """``original`` with a few edits: bytes cut, inserted, replaced, lines dropped or repeated."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        edit = draw(st.sampled_from(["cut", "insert", "replace", "drop line", "repeat line"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if edit == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif edit == "replace" and data:
            data[at] = draw(st.integers(0, 255))
        else:
            lines = bytes(data).split(b"\n")
            line = draw(st.integers(0, len(lines) - 1))
            if edit == "drop line":
                del lines[line]
            else:
                lines.insert(line, lines[line])
            data = bytearray(b"\n".join(lines))
    return bytes(data)


@pytest.mark.skipif(not _TEXT_SAMPLES, reason="shared/samples not found beside the repository")
@pytest.mark.parametrize("name", list(IMPORTERS))
@_FAST
@given(choice=st.data())
def test_mutated_real_outputs_raise_only_input_errors(name: str, choice: st.DataObject) -> None:
    """Every real text sample, cut, spliced and garbled, fed to every importer."""
    relative = choice.draw(st.sampled_from(_TEXT_SAMPLES))
    data = choice.draw(_mutated(SAMPLES[relative]))
    _reads_or_refuses(IMPORTERS[name], data, relative.rsplit("/", 1)[-1])


Sheets = dict[str, list[list[object]]]

_CELL_VALUES = st.one_of(
    st.none(),
    st.text(st.characters(codec="utf-8", min_codepoint=32), max_size=12),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
)


def _book(sheets: Sheets) -> bytes:
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _rows(data: bytes, *, keep: int) -> Sheets:
    """The first ``keep`` rows of every sheet: the real layout, small enough to rewrite often."""
    book = load_workbook(io.BytesIO(data), read_only=True)
    return {
        sheet.title: [list(r) for r in itertools.islice(sheet.iter_rows(values_only=True), keep)]
        for sheet in book.worksheets
    }


def _plan_sheets() -> Sheets:
    """The Planner inputs sheet of the bundled sample scenario, as the planner writes it."""
    sample = REPO / "data" / "sample"
    scenario = Scenario(
        CATALOG,
        load_inventory((sample / "inventory.csv").read_bytes(), CATALOG).value,
        load_workloads((sample / "workloads.csv").read_bytes(), CATALOG).value,
    )
    book = Workbook()
    write_inputs_sheet(book, scenario)
    out = io.BytesIO()
    book.save(out)
    return _rows(out.getvalue(), keep=10_000)


@functools.cache
def _workbooks() -> dict[str, Sheets]:
    """Read once, on the first test that needs them (the RVTools sample takes seconds)."""
    books = {"plan.xlsx": _plan_sheets()}
    for relative, data in SAMPLES.items():
        if relative.endswith(".xlsx"):
            books[relative.rsplit("/", 1)[-1]] = {
                title: rows
                for title, rows in _rows(data, keep=12).items()
                if title in ("vInfo", "vHost")
            }
    return books


def _edited(sheets: Sheets, edits: list[tuple[int, int, int, object]]) -> bytes:
    copy = {title: [list(row) for row in rows] for title, rows in sheets.items()}
    titles = sorted(copy)
    for sheet, row, column, value in edits:
        rows = copy[titles[sheet % len(titles)]]
        if rows:
            cells = rows[row % len(rows)]
            if cells:
                cells[column % len(cells)] = value
    return _book(copy)


@settings(_FAST, max_examples=30)
@given(
    choice=st.data(),
    edits=st.lists(
        st.tuples(st.integers(0, 9), st.integers(0, 10**4), st.integers(0, 99), _CELL_VALUES),
        min_size=1,
        max_size=6,
    ),
)
def test_workbooks_with_edited_cells_raise_only_input_errors(
    choice: st.DataObject, edits: list[tuple[int, int, int, object]]
) -> None:
    """An RVTools export (its first rows) or a plan workbook with cells overwritten by text,
    numbers, NaN or nothing: every workbook reader reads it (problems listed) or refuses it with
    an InputError."""
    books = _workbooks()
    file = choice.draw(st.sampled_from(sorted(books)))
    data = _edited(books[file], edits)
    for name in ("detect", "rvtools", "plan workbook", "inventory", "workloads"):
        _reads_or_refuses(IMPORTERS[name], data, file)
