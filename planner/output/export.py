"""The plan as an Excel workbook that documents itself: results, inputs and every assumption.

Text from a user's file never becomes a formula: any string that a spreadsheet would read as one
(``planner.output.cells``) is stored as a plain string.
"""

from __future__ import annotations

import dataclasses
import errno
import io
import os
import secrets
import stat
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, BinaryIO
from zipfile import ZipFile

import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.worksheet._writer import WorksheetWriter

from planner.assumptions import Assumptions, Fact, facts
from planner.inputs.importers.workbook import write_inputs_sheet
from planner.inputs.limits import EXCEL_MAX_ROWS
from planner.inputs.problems import InputProblem, problems_frame
from planner.measure.performance import constants_frame
from planner.output.cells import FORMULA_PREFIXES
from planner.output.headers import header
from planner.output.overview import (
    OVERVIEW_SHEET,
    write_overview,
)
from planner.output.recommendations import DECISION_COLUMNS, RecommendedPlan, decisions_frame
from planner.output.report import (
    COMPARISON_COLUMNS,
    ScenarioPlan,
    comparison_frame,
    placement_frame,
    slowdown_frame,
    utilisation_frame,
)
from planner.output.xlsx import cell_value, fit_columns, write_cell, write_table

__all__ = [
    "FORMULA_PREFIXES",
    "INPUT_PROBLEMS_SHEET",
    "OVERVIEW_SHEET",
    "WITHOUT_GPU_NOTE",
    "question_text",
    "sheet_name",
    "sheet_parts",
    "sheets_bytes",
    "workbook_bytes",
    "write_file_whole",
    "write_sheets",
    "write_workbook",
]


INPUT_PROBLEMS_SHEET = "Input problems"
"""The sheet listing every input row the plan skipped, with file, row, column, reason and fix."""

WITHOUT_GPU_NOTE = (
    "without GPU: planned on node cores and RAM only, by the methods that place pods on "
    "Kubernetes nodes; not counted in the GPU figures"
)
"""The Workloads sheet's note on a class of pods that use no GPU (a trace pod list's)."""

_FORBIDDEN_IN_SHEET_NAMES = str.maketrans(dict.fromkeys("[]:*?/\\", " "))

_SHOWN_INPUTS = ("Inventory", "Workloads")
"""The sheets that show the inputs to the reader; the restore names an edit made in one."""

_INVENTORY_HEADERS = {"name": "Host", "gpus": "GPUs per host", "cpu_cores": "CPU cores per host"}
_WORKLOAD_HEADERS = {
    "name": "Workload",
    "gpus": "GPUs per instance",
    "memory_gib": "GPU memory per instance [GiB]",
    "ram_gib": "RAM per instance [GiB]",
}
_PLACEMENT_HEADERS = {"memory_gib": "GPU memory of the instance [GiB]"}
_UTILISATION_HEADERS = {"memory_gib": "GPU memory [GiB]", "instances": "Instances on the GPU"}
_DECISION_HEADERS = {
    "gpus": "GPUs occupied [GPUs]",
    "method": "Method",
    "usd_per_instance_year": "Cost per served instance [$/year]",
}


def sheet_name(text: str) -> str:
    """A valid, at most 31-character Excel sheet name from ``text``."""
    return text.translate(_FORBIDDEN_IN_SHEET_NAMES).strip()[:31]


def sheet_parts(
    title: str, frame: pd.DataFrame, *, max_rows: int | None = None
) -> list[tuple[str, pd.DataFrame]]:
    """``frame`` as sheets of at most ``max_rows`` rows, header included (Excel's limit).

    A frame that fits is one sheet named ``title``; a longer one continues on sheets named
    ``title (2)``, ``title (3)`` ..., each with the header, so no row is lost.
    """
    per_sheet = (EXCEL_MAX_ROWS if max_rows is None else max_rows) - 1
    if len(frame) <= per_sheet:
        return [(sheet_name(title), frame)]
    parts = []
    for index, start in enumerate(range(0, len(frame), per_sheet)):
        suffix = "" if index == 0 else f" ({index + 1})"
        name = sheet_name(title)[: 31 - len(suffix)] + suffix
        parts.append((name, frame.iloc[start : start + per_sheet]))
    return parts


def _table_sheet(
    book: Workbook,
    title: str,
    frame: pd.DataFrame,
    *,
    freeze: str = "A2",
    overrides: Mapping[str, str] | None = None,
    exact: bool = False,
) -> None:
    for name, part in sheet_parts(title, frame):
        sheet = book.create_sheet(name)
        write_table(sheet, part, overrides=overrides, exact=exact)
        sheet.freeze_panes = freeze
        fit_columns(sheet)


def _title(sheet: Any, row: int, text: str) -> None:
    write_cell(sheet, row, 1, text).font = Font(bold=True, size=12)


def _meanings(
    columns: Mapping[str, str], overrides: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """What each column of a table means, the column named by its header."""
    rows = [(header(name, overrides), meaning) for name, meaning in columns.items()]
    return pd.DataFrame(rows, columns=["column", "meaning"])


def question_text(plan: ScenarioPlan) -> str:
    """The question the plan answers, in words."""
    if plan.question == "fit":
        return "fit the workloads into the inventory"
    start = "add to the inventory " if plan.question == "add" else "size a cluster of "
    return start + " or ".join(
        f"{s.label} servers ({s.cpu_cores:g} cores, {s.ram_gib:g} GiB RAM)"
        for s in (plan.servers or ((plan.server,) if plan.server else ()))
    )


def _summary_sheet(book: Workbook, plan: ScenarioPlan) -> None:
    sheet = book.create_sheet("Summary")
    row = 1
    if plan.recommended is not None:
        _title(sheet, row, "Recommended plan")
        write_cell(sheet, row + 1, 1, plan.recommended.headline())
        row += 3
    row = write_table(sheet, comparison_frame(plan), start_row=row)
    row += 1
    notes = [
        (r.label, note)
        for r in plan.results
        for note in (*r.plan.notes, *r.cost.notes, *r.feasibility_violations)
    ]
    if notes:
        _title(sheet, row, "Notes")
        row = write_table(sheet, pd.DataFrame(notes, columns=["label", "note"]), start_row=row + 1)
        row += 1
    _title(sheet, row, "Columns")
    row = write_table(sheet, _meanings(COMPARISON_COLUMNS), start_row=row + 1) + 1
    write_cell(sheet, row, 1, "Question")
    write_cell(sheet, row, 2, question_text(plan))
    sheet.freeze_panes = "B2"
    fit_columns(sheet, skip=2)


def _recommended_facts(recommended: RecommendedPlan) -> pd.DataFrame:
    """The recommended plan's figures with their units (a figure table)."""
    result = recommended.result
    proven = recommended.ratio_to_bound is not None
    facts = [
        ("Found as", recommended.source, ""),
        ("Annual cost", result.cost.total_usd_per_year, "USD/year"),
        (
            "Lower bound on that cost",
            recommended.cost_lower_bound_usd if proven else "none above $0 could be proven",
            "USD/year",
        ),
        ("Cost over its bound", recommended.ratio_to_bound if proven else "—", "-"),
        ("GPUs used", result.metrics.gpus_used, "GPUs"),
        (
            "No plan serving the same instances uses fewer GPUs than",
            result.metrics.lower_bound_gpus,
            "GPUs",
        ),
        ("Solver status", result.plan.status.value, ""),
        *(
            (figure[:1].upper() + figure[1:], words, "")
            for figure, words in recommended.purchase_facts()
        ),
    ]
    for name, reference in (
        ("today's sharing", recommended.today),
        ("the best single method", recommended.best_single),
    ):
        if reference is not None:
            facts.append(
                (
                    f"Against {name} ({reference.label})",
                    f"{reference.metrics.instances_placed} served on "
                    f"{reference.metrics.gpus_used} "
                    f"{'GPU' if reference.metrics.gpus_used == 1 else 'GPUs'} for "
                    f"${reference.cost.total_usd_per_year:,.0f}/year",
                    "",
                )
            )
    frame = pd.DataFrame(facts, columns=["figure", "value", "unit"])
    frame["value"] = frame["value"].astype(object)
    return frame


def _recommended_sheet(book: Workbook, recommended: RecommendedPlan) -> None:
    """The recommended plan: the answer, savings, each class's decision, every placement with
    its GPU's role."""
    sheet = book.create_sheet("Recommended plan")
    write_cell(sheet, 1, 1, recommended.headline()).font = Font(bold=True, size=12)
    row = write_table(sheet, _recommended_facts(recommended), start_row=3) + 1
    _title(sheet, row, "Each class's method, and why")
    frame = decisions_frame(recommended)
    row = write_table(sheet, frame, start_row=row + 1, overrides=_DECISION_HEADERS) + 1
    _title(sheet, row, "Columns")
    meanings = _meanings(DECISION_COLUMNS, _DECISION_HEADERS)
    row = write_table(sheet, meanings, start_row=row + 1) + 1
    _title(sheet, row, "Placements, each GPU with its role")
    write_table(
        sheet, placement_frame(recommended.result), start_row=row + 1, overrides=_PLACEMENT_HEADERS
    )
    fit_columns(sheet, skip=1)


def _not_placed(plan: ScenarioPlan) -> pd.DataFrame:
    rows = [
        (r.name, r.label, n.instance, n.workload, n.reason)
        for r in plan.results
        for n in r.plan.not_placed
    ]
    return pd.DataFrame(rows, columns=["method", "label", "instance", "workload", "reason"])


def _costs(plan: ScenarioPlan) -> pd.DataFrame:
    rows = [
        {
            "method": r.name,
            "label": r.label,
            "hardware_usd_per_year": r.cost.hardware_usd_per_year,
            "licences_usd_per_year": r.cost.licences_usd_per_year,
            "power_usd_per_year": r.cost.power_usd_per_year,
            "network_usd_per_year": r.cost.network_usd_per_year,
            "total_usd_per_year": r.cost.total_usd_per_year,
            "usd_per_instance_year": r.cost.usd_per_instance_year,
            "instances_placed": r.cost.instances_placed,
            "notes": " ".join(r.cost.notes),
        }
        for r in plan.results
    ]
    return pd.DataFrame(rows)


def _records(values: Sequence[Any]) -> pd.DataFrame:
    """One row per dataclass instance, one column per field."""
    return pd.DataFrame(
        [{f.name: getattr(v, f.name) for f in dataclasses.fields(v)} for v in values]
    )


def _workloads(plan: ScenarioPlan) -> pd.DataFrame:
    """The Workloads sheet: the classes that use a GPU, then the classes of pods without GPU
    (``gpus`` 0), each of those marked in a ``note`` column (only when there are any)."""
    scenario = plan.scenario
    frame = _records((*scenario.workloads, *scenario.cpu_only))
    if scenario.cpu_only:
        frame["note"] = [None] * len(scenario.workloads) + [WITHOUT_GPU_NOTE] * len(
            scenario.cpu_only
        )
    return frame


def _meaning(about: Fact) -> str:
    """An assumption's meaning with its range and, for a guess, a note to replace it."""
    extra = [f"range {about.range_text}"] if about.range_text else []
    if about.is_guess:
        extra.append("a guess: replace it with your figure")
    return f"{about.meaning} ({'; '.join(extra)})" if extra else about.meaning


def _assumptions(plan: ScenarioPlan) -> pd.DataFrame:
    given = plan.scenario.assumptions
    defaults = {name: value for name, _, value in facts(Assumptions())}
    rows = [
        (name, cell_value(value), about.unit, value == defaults[name], _meaning(about))
        for name, about, value in facts(given)
    ]
    models = sorted({p.gpu_model for r in plan.results for p in r.plan.placements})
    for model in models:
        gpu = plan.scenario.catalog.gpus[model]
        override = given.gpu_price_usd.get(model)
        price = override if override is not None else gpu.price_usd
        source = "user override" if override is not None else f"catalog: {gpu.source}"
        rows.append(
            (
                f"gpu_price_usd[{model}]",
                price,
                "USD/GPU",
                override is None and gpu.price_is_default,
                f"purchase price per GPU ({source})",
            )
        )
    # Only the overrides here; the Performance model sheet lists every constant.
    performance = constants_frame(given)
    for constant in performance[performance["is_overridden"]].to_dict("records"):
        rows.append(
            (
                f"performance_constants[{constant['constant']}]",
                constant["value"],
                constant["unit"],
                False,
                f"{constant['meaning']} (user override; model default {constant['default']:g})",
            )
        )
    return pd.DataFrame(rows, columns=["assumption", "value", "unit", "is_default", "meaning"])


def write_workbook(
    plan: ScenarioPlan,
    target: Path | str | BinaryIO,
    *,
    extra_sheets: Mapping[str, pd.DataFrame] | None = None,
    input_problems: Sequence[InputProblem] = (),
    given: Mapping[str, bytes] | None = None,
) -> None:
    """Write the plan to an .xlsx file (all or nothing: ``write_file_whole``) or binary stream.

    Sheets: Overview (one printed page: the recommendation in words, its key figures with unit
    and definition, every plan's cost, GPUs and utilisation with three native charts over them;
    ``planner.output.overview``), Summary (comparison, recommendations, notes, column meanings),
    Recommended plan, Input problems (every input row that was skipped and every other problem
    of ``input_problems``: file, row, column, problem, fix; its header alone when nothing was
    skipped), one Placement sheet per method, Not placed (with reasons), Costs, Utilisation (per
    GPU), Slowdown, Inventory and Workloads (the inputs as used; a pod list's classes without GPU
    listed too, with 0 GPUs and ``WITHOUT_GPU_NOTE``), Assumptions (value, unit,
    whether it is a default; performance constants the user overrode), Performance model (every
    constant: value in use, default, whether overridden, whether a guess, unit, meaning,
    source), then ``extra_sheets`` in order, and last ``Planner inputs``, which the planner
    reads back to restore the scenario and the question asked (a sizing's server types, whether
    they are added to the inventory, its headroom, and the inventory it was asked with; the
    sharing methods planned, when not every one;
    ``planner.inputs.importers.workbook``; ``given``: the input files as the user gave them, by
    ``inventory.csv`` and ``workloads.csv``, which it keeps when they are lists of Alibaba's
    GPU-sharing trace).

    Every header is words with a unit (``planner.output.headers``); shares carry a percent
    format, money a dollar format.
    """
    book = Workbook()
    write_overview(book.active, plan, question_text(plan))
    _summary_sheet(book, plan)
    if plan.recommended is not None:
        _recommended_sheet(book, plan.recommended)
    # Before the placements, so a reader sees at once whether the plan left any input out.
    _table_sheet(book, INPUT_PROBLEMS_SHEET, problems_frame(input_problems))
    for result in plan.results:
        _table_sheet(
            book,
            f"Placement {result.label}",
            placement_frame(result),
            freeze="B2",
            overrides=_PLACEMENT_HEADERS,
        )
    _table_sheet(book, "Not placed", _not_placed(plan))
    _table_sheet(book, "Costs", _costs(plan), freeze="C2")
    _table_sheet(
        book, "Utilisation", utilisation_frame(plan), freeze="C2", overrides=_UTILISATION_HEADERS
    )
    _table_sheet(book, "Slowdown", slowdown_frame(plan))
    hosts = plan.scenario.inventory.hosts
    if plan.question == "size":
        # Sizing opens hosts of one type; show those the plans could use, not the inventory.
        hosts = tuple({h.name: h for r in plan.results for h in r.plan.hosts}.values())
    # The input sheets show every digit given: saved as CSV, they plan the same inputs.
    _table_sheet(
        book, "Inventory", _records(hosts), freeze="B2", overrides=_INVENTORY_HEADERS, exact=True
    )
    _table_sheet(
        book, "Workloads", _workloads(plan), freeze="B2", overrides=_WORKLOAD_HEADERS, exact=True
    )
    _table_sheet(book, "Assumptions", _assumptions(plan), freeze="B2")
    _table_sheet(book, "Performance model", constants_frame(plan.scenario.assumptions), freeze="B2")
    for title, frame in (extra_sheets or {}).items():
        _table_sheet(book, title, frame)
    write_inputs_sheet(
        book,
        plan.given_scenario,
        given,
        shown_sheets=_SHOWN_INPUTS,
        servers=plan.servers,
        add_to_inventory=plan.question == "add",
        headroom=plan.headroom,
        methods=plan.methods,
    )
    _save(book, target)


def write_sheets(frames: Mapping[str, pd.DataFrame], target: Path | str | BinaryIO) -> None:
    """Write frames alone, one sheet each, with the plan workbook's formats and text safety;
    to a file all or nothing (``write_file_whole``)."""
    book = Workbook()
    book.remove(book.active)
    for title, frame in frames.items():
        _table_sheet(book, title, frame)
    _save(book, target)


def _save(book: Workbook, target: Path | str | BinaryIO) -> None:
    """Save ``book`` to a stream, or to a file path by ``write_file_whole``."""
    if not isinstance(target, (Path, str)):
        book.save(target)
        return
    # Zipped in memory, so the target is written by ``write_file_whole`` alone.
    buffer = io.BytesIO()
    try:
        book.save(buffer)
    except OSError as error:
        _close_unfinished_writers(error)
        raise
    write_file_whole(Path(target), buffer.getvalue())


def _close_unfinished_writers(error: OSError) -> None:
    """Close what a failed save left open: its sheet writers (openpyxl writes each sheet to a
    temporary file first, which a full disk or a quota stops) and its zip archive, so none
    prints a traceback of its own when it is collected. The temporary files go when the
    process exits."""
    trace = error.__traceback__
    while trace is not None:
        for value in tuple(trace.tb_frame.f_locals.values()):
            # Closing a sheet writer flushes its file again, which fails as the save did.
            if isinstance(value, (WorksheetWriter, ZipFile)):
                with suppress(OSError, ValueError):
                    value.close()
        trace = trace.tb_next


def write_file_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all.

    A regular file is written beside the target under a hidden name, then renamed over it once
    complete, keeping the earlier file's permissions: when the disk or a quota fills up, the file
    already at ``path`` stays as it was and no partial file is left. A symbolic link is followed
    (the file it points to is replaced, the link kept). A device or pipe (``/dev/stdout``) is
    written directly, since it cannot be renamed over. Raises ``OSError`` (its ``strerror`` says
    why) when the file cannot be written.
    """
    target = Path(os.path.realpath(path))
    try:
        earlier: os.stat_result | None = target.stat()
    except FileNotFoundError:
        earlier = None
    if earlier is not None and not stat.S_ISREG(earlier.st_mode):
        with target.open("wb") as stream:
            stream.write(data)
        return
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
    # Created as any new file is (the umask applies), and never over an existing file.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(partial, flags, 0o666)
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        raise _folder_not_writable(error, target, kept=earlier is not None) from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if earlier is not None:
            os.chmod(partial, stat.S_IMODE(earlier.st_mode))
        os.replace(partial, target)
    except BaseException:
        with suppress(OSError):
            partial.unlink()
        raise


def _folder_not_writable(error: OSError, target: Path, *, kept: bool) -> OSError:
    """``error`` of creating the hidden file beside ``target``, its ``strerror`` saying that the
    folder is not writable, that a file already at ``target`` (``kept``) was left untouched,
    and the fix; the file itself may be writable, so the bare 'Permission denied' misleads."""
    left = f"; the {target.name} already there was left untouched" if kept else ""
    said = (
        f"its folder {target.parent} is not writable (the file is written beside it under a "
        f"hidden name, then renamed over it, so a full disk never leaves half a file){left}. "
        "Choose a path in a folder you can write to, or make the folder writable"
    )
    return type(error)(error.errno, said, str(target.parent))


def sheets_bytes(frames: Mapping[str, pd.DataFrame]) -> bytes:
    """The workbook of ``write_sheets`` as bytes, for a download button."""
    buffer = io.BytesIO()
    write_sheets(frames, buffer)
    return buffer.getvalue()


def workbook_bytes(
    plan: ScenarioPlan,
    *,
    extra_sheets: Mapping[str, pd.DataFrame] | None = None,
    input_problems: Sequence[InputProblem] = (),
    given: Mapping[str, bytes] | None = None,
) -> bytes:
    """The workbook of ``write_workbook`` as bytes, for a download button."""
    buffer = io.BytesIO()
    write_workbook(
        plan, buffer, extra_sheets=extra_sheets, input_problems=input_problems, given=given
    )
    return buffer.getvalue()
