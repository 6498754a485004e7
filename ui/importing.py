"""The import panel of the Inventory and Workloads pages: drop tool outputs, see what each file
gave and what was assumed, fix the table, then apply it, or keep the inputs in use.

An upload replaces the inputs in use at once only when nothing is lost: the inputs in use are
the bundled sample and every row of the upload is used with no value assumed. Otherwise the
panel shows the change (rows kept, rows skipped with reasons, GPUs before and after) and waits
for **Apply**; the inputs replaced stay one **Undo** away. A plan workbook can restore the whole
plan (inventory, workloads, own GPU models, assumptions, and the question: a fit or a sizing).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import pandas as pd
import streamlit as st

from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.importers import (
    PLAN_INPUTS_SHEET,
    Format,
    ImportNote,
    PlanInputs,
    import_inventory,
    import_workloads,
    label_keys,
    read_plan_inputs,
    summarise_notes,
)
from planner.inputs.importers.change import InputChange, inventory_change, workloads_change
from planner.inputs.importers.detect import detect_file
from planner.inputs.importers.estate import parse_cluster_gpus
from planner.inputs.importers.provenance import traced_problems
from planner.inputs.importers.workbook import own_gpus_csv, plan_inputs_of
from planner.inputs.inventory import INVENTORY_COLUMNS, inventory_from_frame
from planner.inputs.limits import MAX_UPLOAD_MB
from planner.inputs.problems import InputError, InputProblem, rows_skipped
from planner.inputs.tabular import is_workbook
from planner.inputs.workloads import workloads_from_frame
from planner.methods.registry import Method
from planner.scenario import GivenCluster
from ui import components, planning, session, trace
from ui import format as fmt
from ui.workload_editor import editor_row, rows_renumbered

__all__ = ["Role", "import_panel"]

Role = Literal["inventory", "workloads"]
# Every extension the README's commands write (`nvidia-smi -q -x > gpu-07.xml`, `kubectl ... -o
# yaml`); the content, not the name, says which tool wrote a file.
_TYPES = ["csv", "json", "yaml", "yml", "xml", "txt", "log", "out", "prom", "xlsx"]
_PLANNER_CSV = {"inventory": Format.INVENTORY_CSV, "workloads": Format.WORKLOADS_CSV}
_SUBJECT: dict[Role, tuple[str, str]] = {
    "inventory": ("host", "host"),
    "workloads": ("name", "class"),
}
"""(column naming a row, the word for it) of the review's table."""
_REVIEW_TABLE = "table to fix"
"""How a problem names the review's table editor; its rows are numbered as the editor shows them
(1 = first row)."""


@dataclass(frozen=True)
class ImportPreview:
    """What the uploaded files describe, before it is used."""

    name: str
    """The name the inputs take once applied (the file name, or the files joined)."""
    frame: pd.DataFrame
    """The inventory or workload CSV columns, one row per host or class, to fix before use."""
    files: tuple[tuple[str, str], ...]
    """(file, the tool it was read as)."""
    summary: tuple[str, ...]
    """What each file gave and what was assumed, one line per group of notes."""
    notes: pd.DataFrame
    """Every value with its source: read, derived or assumed, and where from."""
    problems: tuple[InputProblem, ...]
    """What the import could not use (file, line or cell, fix)."""
    workbooks: tuple[str, ...]
    """Uploaded plan workbooks, which can restore the whole plan."""
    labels: tuple[str, ...] = ()
    """Label keys of the GPU pods read, most common first: what classes can be grouped by."""
    given: tuple[ImportNote, ...] = ()
    """The notes of ``notes``, which trace a value of ``frame`` to its file and line."""
    as_given: session.InputFile | None = None
    """The file used as it is, read by its own loader (a trace list): ``frame`` shows what it
    gives and cannot be edited. None: ``frame``, as fixed, is what is applied."""
    context: str | None = None
    """What the file's reading depends on that the user should know (a pod list planned on an
    inventory that is not its node list); None when nothing."""
    cluster: GivenCluster | None = None
    """The cluster the node list ``as_given`` is planned in, as the plan workbook keeping it
    says; None: the trace's own cluster."""
    added_models: tuple[GpuModel, ...] = ()
    """GPU models the files name that the catalog lacked and the import added (those of
    Alibaba's GPU-sharing trace its node YAML labels, each noted with its figures), which
    ``frame``'s hosts are planned with, as the command line plans them."""

    @property
    def assumed(self) -> int:
        return int((self.notes["source"] == "assumed").sum()) if len(self.notes) else 0


@dataclass(frozen=True)
class ImportOptions:
    """What the user tells the importers that the files do not say."""

    host_name: str | None = None
    """Host of single-host outputs (nvidia-smi, MIG listings) that do not name theirs."""
    cluster: str | None = None
    """Cluster of hosts no file gives one for."""
    gpus_by_cluster: tuple[tuple[str, tuple[str, int]], ...] = ()
    """(cluster, (model, GPUs per host)) for hosts no file gives GPUs for (RVTools)."""
    group_by: str | None = None
    """Pod label to group pods into classes by; None groups by owner."""


def _notes_frame(notes: Sequence[ImportNote]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "file": [n.file for n in notes],
            "line": pd.array([n.line for n in notes], dtype="Int64"),
            "where": [n.locator for n in notes],
            "host or class": [n.subject for n in notes],
            "field": [n.field for n in notes],
            "value": [n.value for n in notes],
            "source": [n.source for n in notes],
            "why": [n.text for n in notes],
        }
    )


@dataclass(frozen=True)
class _Reading:
    """What reading uploaded files gave: their preview, or why they cannot be used at all. A
    refusal is a value here so that a rerun shows it again without reading the files again."""

    shown: ImportPreview | None
    """The preview; None when the files cannot be used (``problems``), or, for
    ``_as_given``, when they are not a file used as given."""
    problems: tuple[InputProblem, ...] = ()
    """Why the files cannot be used at all (the reading's ``InputError``); empty when they can."""


def preview(
    role: Role,
    files: tuple[session.InputFile, ...],
    own_gpus: session.InputFile | None,
    options: ImportOptions = ImportOptions(),
    nodes: tuple[session.InputFile, ...] = (),
) -> ImportPreview:
    """The uploaded ``files`` read by the importers as the inventory or the workload mix (cached
    on the bytes, the catalog's own GPU file and the options, a refusal too); a workload mix's
    pods on the kubectl nodes among ``nodes`` ask the share of a GPU their node gives.

    Raises ``InputError`` when a file cannot be read at all.
    """
    read = _imported(role, files, own_gpus, options, nodes)
    if read.shown is None:
        raise InputError(read.problems)
    return read.shown


@st.cache_data(show_spinner=False, max_entries=16)
def _imported(
    role: Role,
    files: tuple[session.InputFile, ...],
    own_gpus: session.InputFile | None,
    options: ImportOptions,
    nodes: tuple[session.InputFile, ...] = (),
) -> _Reading:
    try:
        return _Reading(_import_preview(role, files, own_gpus, options, nodes))
    except InputError as error:
        return _Reading(None, error.problems)


def _import_preview(
    role: Role,
    files: tuple[session.InputFile, ...],
    own_gpus: session.InputFile | None,
    options: ImportOptions,
    nodes: tuple[session.InputFile, ...] = (),
) -> ImportPreview:
    cat = planning.catalog(own_gpus)
    pairs = [(f.name, f.content) for f in files]
    name = files[0].name if len(files) == 1 else " + ".join(f.name for f in files)
    labels: tuple[str, ...] = ()
    added: tuple[GpuModel, ...] = ()
    if role == "inventory":
        imported = import_inventory(
            pairs,
            cat,
            host_name=options.host_name,
            cluster=options.cluster,
            gpus_by_cluster=dict(options.gpus_by_cluster),
        )
        frame, notes, problems, used, workbooks = (
            imported.frame,
            imported.notes,
            imported.problems,
            imported.files,
            imported.plan_workbooks,
        )
        added = imported.added_models
    else:
        mix = import_workloads(
            pairs, cat, group_by=options.group_by, nodes=[(f.name, f.content) for f in nodes]
        )
        frame, notes, problems, used = mix.frame, mix.notes, mix.problems, mix.files
        workbooks = mix.plan_workbooks
        labels = tuple(label_keys(mix.pods))
    return ImportPreview(
        name=name,
        frame=frame.reset_index(drop=True),
        files=used,
        summary=tuple(summarise_notes(notes)),
        notes=_notes_frame(notes),
        problems=problems,
        workbooks=workbooks,
        labels=labels,
        given=tuple(notes),
        added_models=added,
    )


def _replaced(
    inputs: session.ScenarioInputs,
    role: Role,
    file: session.InputFile,
    cluster: GivenCluster | None = None,
) -> session.ScenarioInputs:
    """``inputs`` with ``file`` as the inventory (MIG choices from the file again, a trace node
    list's nodes in ``cluster``) or the mix."""
    if role == "inventory":
        return replace(inputs, inventory=file, mig_clusters=None, cluster=cluster)
    return replace(inputs, workloads=file)


def _trace_preview(
    role: Role,
    file: session.InputFile,
    inventory: session.InputFile,
    own_gpus: session.InputFile | None,
    cluster: GivenCluster | None = None,
) -> ImportPreview:
    """A trace list read as the planner will read it once applied (a node list's nodes in the
    ``cluster`` given, a pod list on the ``inventory`` in use); ``InputError`` when it cannot
    be used."""
    if role == "inventory":
        hosts = planning.read_inventory(file, own_gpus, cluster)
        frame = planning.inventory_table(hosts.inventory)
        tool, notes, problems, context = trace.NODE_LIST, hosts.notes, hosts.problems, None
    else:
        mix = planning.read_workloads(file, inventory, own_gpus)
        frame = planning.workload_table((*mix.workloads, *mix.cpu_only))
        tool, notes, problems = trace.POD_LIST, mix.notes, mix.problems
        context = trace.pods_without_nodes(inventory)
    return ImportPreview(
        name=file.name,
        frame=frame,
        files=((file.name, tool),),
        summary=tuple(summarise_notes(notes)),
        notes=_notes_frame(notes),
        problems=problems,
        workbooks=(),
        given=notes,
        as_given=file,
        context=context,
        cluster=cluster,
    )


def _kept_trace_list(
    role: Role, files: tuple[session.InputFile, ...]
) -> tuple[session.InputFile, GivenCluster | None] | None:
    """The trace list a lone plan workbook keeps as this page's input (a plan of the trace keeps
    its node and pod lists as given), named as restoring the whole plan names it, with the
    cluster the workbook keeps for a node list; None when the files are not such a workbook."""
    # Only a workbook can be a plan workbook: another file is left to the importers' detection
    # alone, so a lone text file is detected once.
    if len(files) != 1 or not is_workbook(files[0].content):
        return None
    detected = detect_file(files[0].name, files[0].content, role=role)
    if detected.format is not Format.PLAN_WORKBOOK:
        return None
    restored = plan_inputs_of(detected.workbook, file_name=files[0].name)
    data = restored.inventory_csv if role == "inventory" else restored.workloads_csv
    kept = session.InputFile(f"{files[0].name} {role}", data)
    if trace.role_of(kept) != role:
        return None
    return kept, restored.given_cluster(files[0].name) if role == "inventory" else None


def _as_imported(role: Role, row: pd.Series, column: str, shown: ImportPreview) -> bool:
    """Whether the cell ``column`` of an edited ``row`` holds what the files gave for its host
    or class (not typed over, nor in a row the user added)."""
    subject = _SUBJECT[role][0]
    if column not in row.index or column not in shown.frame.columns:
        return False
    read = shown.frame[shown.frame[subject] == row[subject]]
    if len(read) != 1:
        return False
    before, now = read[column].iloc[0], row[column]
    if pd.isna(before) or pd.isna(now):
        return bool(pd.isna(before) and pd.isna(now))
    return bool(before == now) or str(before) == str(now)


def _in_review_terms(
    role: Role,
    problems: Sequence[InputProblem],
    edited: pd.DataFrame,
    shown: ImportPreview,
) -> tuple[InputProblem, ...]:
    """Problems found validating the review's ``edited`` table (as the editor returned it, empty
    rows included), each named where the user fixes it: a cell still holding what a file gave at
    that file, line and field; an edited cell, a row or the edited table at the table to fix, its
    rows (also those its text names) numbered as the editor shows them."""
    table = edited.dropna(how="all")
    positions = {label: position for position, label in enumerate(edited.index)}
    files = [file for file, _ in shown.files]
    unedited = table.reset_index(drop=True).equals(shown.frame)
    subject = _SUBJECT[role][0]
    named = []
    for problem in problems:
        if problem.file != _REVIEW_TABLE:
            named.append(problem)
            continue
        # A whole-table problem is the files' while the table is as read; a cell's names its
        # host or class, and its file only while it holds what the file gave.
        notes: Sequence[ImportNote] = shown.given
        if problem.row is None:
            traceable = unedited
        else:
            cells = table.iloc[problem.row - 2]
            traceable = problem.column is not None and pd.notna(cells[subject])
            if traceable and not _as_imported(role, cells, str(problem.column), shown):
                notes = ()
        if traceable:
            (problem,) = traced_problems(
                [problem],
                table,
                notes,
                validated_as=_REVIEW_TABLE,
                subject=_SUBJECT[role],
                files=files,
            )
        if problem.file == _REVIEW_TABLE:
            row = None if problem.row is None else editor_row(problem.row, table, positions)
            message = rows_renumbered(problem.message, table, positions)
            fix = rows_renumbered(problem.fix, table, positions)
            problem = InputProblem(_REVIEW_TABLE, row, problem.column, message, fix)
        named.append(problem)
    return tuple(named)


def _change(role: Role, edited: pd.DataFrame, cat: Catalog, shown: ImportPreview) -> InputChange:
    """The change applying the review's ``edited`` table (or the file used as given) would
    make, its problems after the import's; ``InputError`` when no row of it is usable."""
    inputs = session.scenario_inputs()
    built = planning.build_scenario(inputs).scenario
    if shown.as_given is not None:
        if role == "inventory":
            hosts = planning.read_inventory(shown.as_given, inputs.own_gpus, shown.cluster)
            return inventory_change(built.inventory, hosts.inventory, hosts.problems)
        mix = planning.read_workloads(shown.as_given, inputs.inventory, inputs.own_gpus)
        # Classes of pods that use a GPU, as the Workloads page counts its workload classes.
        return workloads_change(built.workloads, mix.workloads, mix.problems)
    table = edited.dropna(how="all")
    try:
        if role == "inventory":
            planned_with = cat.with_models(shown.added_models)
            inventory = inventory_from_frame(table, planned_with, file_name=_REVIEW_TABLE)
            found = _in_review_terms(role, inventory.problems, edited, shown)
            return inventory_change(built.inventory, inventory.value, (*shown.problems, *found))
        workloads = workloads_from_frame(table, cat, file_name=_REVIEW_TABLE)
        found = _in_review_terms(role, workloads.problems, edited, shown)
        return workloads_change(built.workloads, workloads.value, (*shown.problems, *found))
    except InputError as error:
        found = _in_review_terms(role, error.problems, edited, shown)
        raise InputError([*shown.problems, *found]) from None


_INVENTORY_SOURCES = "_inventory_sources"
"""The inventory applied from an import, with the files it was read from: the workloads'
import reads the kubectl nodes among them while that inventory is in use."""


def _apply(
    role: Role,
    name: str,
    content: bytes,
    sources: tuple[session.InputFile, ...],
    cluster: GivenCluster | None = None,
    added: Sequence[GpuModel] = (),
) -> None:
    """``content`` in use as the inventory or the mix; the GPU models the import ``added``
    join the user's own, which the applied hosts name."""
    if role == "inventory":
        st.session_state[_INVENTORY_SOURCES] = (content, sources)
    inputs = session.scenario_inputs()
    file = session.InputFile(name=name, content=content)
    changed = _replaced(inputs, role, file, cluster)
    if added:
        changed = replace(changed, own_gpus=_own_gpus_adding(inputs.own_gpus, added, name))
    session.commit_replacing(changed, f"the import of {name}")


def _own_gpus_adding(
    own_gpus: session.InputFile | None, added: Sequence[GpuModel], name: str
) -> session.InputFile:
    """The user's ``own_gpus`` (None: none) with the models the import of ``name`` added. An
    applied table is a planner CSV, which has no column for a model's figures, so they are kept
    as own GPU models, as the command line's plan workbook keeps them (its my_gpus.csv)."""
    extended = planning.catalog(own_gpus).with_models(added)
    text = own_gpus_csv(extended, planning.catalog()) or ""
    named = f"{name} GPU models"
    return session.InputFile(
        named if own_gpus is None else f"{own_gpus.name} + {named}", text.encode()
    )


@dataclass(frozen=True)
class _Restoring:
    """What restoring the whole plan of a plan workbook would plan with."""

    inputs: session.ScenarioInputs | None
    """Inventory, workloads, own GPU models and assumptions; None when a part of them cannot
    be used (``problems`` say why), so nothing is restored."""
    problems: tuple[InputProblem, ...] = ()
    """Why it cannot be restored, or the values of the workbook it would not use (each such
    assumption keeps its default, each such server type is not sized with, methods chosen with
    ``--methods`` leave every method planned)."""
    asked: session.Question = field(default_factory=session.Question)
    """The question the plan answered: the sizing the workbook keeps, else the fit."""
    keeps_no_host: bool = False
    """The workbook is a new cluster's sizing asked with no host: the inventory in use is kept
    (a new cluster's sizing plans on none of it)."""


def _inventory_sources(inputs: session.ScenarioInputs) -> tuple[session.InputFile, ...]:
    """The files the inventory in use was imported from; none when it came otherwise (the
    sample, a planner CSV edited, an undo)."""
    stored = st.session_state.get(_INVENTORY_SOURCES)
    if isinstance(stored, tuple) and stored[0] == inputs.inventory.content:
        sources: tuple[session.InputFile, ...] = stored[1]
        return sources
    return ()


@st.cache_data(show_spinner=False, max_entries=4)
def _restoring(workbook: session.InputFile, in_use: session.ScenarioInputs) -> _Restoring:
    """The plan of ``workbook`` and its question, checked as every page reads them (cached on
    the bytes); a new cluster's sizing kept with no host keeps the inventory of ``in_use``."""
    try:
        restored = read_plan_inputs(workbook.content, file_name=workbook.name)
        keeps_no_host = _keeps_no_host(restored)
        if keeps_no_host and not restored.sizes_new_cluster:
            raise InputError([_no_host(restored, workbook.name)])
        own = restored.own_gpus_csv
        inputs = session.ScenarioInputs(
            inventory=in_use.inventory
            if keeps_no_host
            else session.InputFile(f"{workbook.name} inventory", restored.inventory_csv),
            workloads=session.InputFile(f"{workbook.name} workloads", restored.workloads_csv),
            assumptions=restored.assumptions,
            own_gpus=None if own is None else session.InputFile(f"{workbook.name} GPU models", own),
            cluster=in_use.cluster if keeps_no_host else restored.given_cluster(workbook.name),
            mig_clusters=in_use.mig_clusters if keeps_no_host else None,
        )
        # A part no page could read would leave every page on an error: refused here instead.
        planning.build_scenario(inputs)
        servers = restored.server_types(planning.catalog(inputs.own_gpus), file_name=workbook.name)
    except InputError as error:
        return _Restoring(None, tuple(error.problems))
    asked = session.sizing_question(
        servers.value, add_to_inventory=restored.add_to_inventory, headroom=restored.headroom
    )
    problems = (
        *restored.problems,
        *servers.problems,
        *_methods_not_chosen(restored, workbook.name),
    )
    return _Restoring(inputs, problems, asked, keeps_no_host)


def _methods_not_chosen(restored: PlanInputs, file_name: str) -> tuple[InputProblem, ...]:
    """Why the dashboard plans every method for a workbook planned with some only (``plan
    --methods``): it has no choice of methods."""
    if set(restored.methods) == set(Method):
        return ()
    chosen = ", ".join(m.label for m in restored.methods)
    return (
        InputProblem(
            f"{file_name} [{PLAN_INPUTS_SHEET}]",
            None,
            "value",
            f"the plan was made with {chosen} only; the dashboard plans every sharing method, "
            "so it shows them all",
            f"to plan those alone: python -m planner plan --from-workbook {file_name}",
            row_kept=True,
        ),
    )


def _kept_no_host(role: Role, files: tuple[session.InputFile, ...]) -> tuple[InputProblem, ...]:
    """Why a lone plan workbook gives no host, when it is a sizing kept with none: the page's
    own problem says only that no host row is usable."""
    if role != "inventory" or len(files) != 1 or not is_workbook(files[0].content):
        return ()
    return _no_host_kept(files[0])


@st.cache_data(show_spinner=False, max_entries=4)
def _no_host_kept(workbook: session.InputFile) -> tuple[InputProblem, ...]:
    """``_no_host`` of ``workbook`` when it is a plan workbook keeping no host, else none
    (cached on the bytes: a rerun opens no workbook)."""
    try:
        restored = read_plan_inputs(workbook.content, file_name=workbook.name)
    except InputError:
        return ()
    if not _keeps_no_host(restored) or restored.sizes_new_cluster:
        return ()  # a new cluster's sizing is offered to restore (``_restore_offer``)
    return (_no_host(restored, workbook.name),)


def _sizes_no_host(role: Role, files: tuple[session.InputFile, ...]) -> bool:
    """A lone plan workbook uploaded as the inventory that is a new cluster's sizing asked with
    no host: its hosts cannot be read, and its plan can be restored."""
    if role != "inventory" or len(files) != 1 or not is_workbook(files[0].content):
        return False
    return _restoring(files[0], session.scenario_inputs()).keeps_no_host


def _keeps_no_host(restored: PlanInputs) -> bool:
    """Whether the workbook's inventory is an inventory's header alone (text that is no
    inventory is refused by the inventory's own problems)."""
    if not restored.holds_no_host:
        return False
    text = restored.inventory_csv.decode("utf-8", errors="replace")
    header = {c.strip() for c in next(csv.reader(io.StringIO(text)), [])}
    return set(INVENTORY_COLUMNS) <= header


def _no_host(restored: PlanInputs, file_name: str) -> InputProblem:
    """Why a workbook keeping no host (a new cluster's sizing asked with none) is not restored
    here, and what to do instead."""
    types = ", ".join(text for _, text in restored.server_rows)
    sized = (
        f"a sizing of a new cluster of {types}"
        if types
        else "a sizing of a new cluster saved by an older planner, which kept neither the "
        "inventory it was asked with nor the server types it sized with"
    )
    return InputProblem(
        f"{file_name} [{PLAN_INPUTS_SHEET}]",
        None,
        None,
        f"the workbook keeps no host: it is {sized}, and the dashboard plans on an inventory of "
        "at least one host, so its plan is not restored",
        f"plan it with python -m planner plan --from-workbook {file_name}"
        + ("" if types else " --size TYPE")
        + ", or here: apply its workloads alone (this upload on the Workloads page), then on "
        "the Compare page ask to size a new cluster"
        + (f" of {types}" if types else " and choose the server type"),
    )


def _restore_offer(workbook: session.InputFile, key: str, ids: tuple[str, ...]) -> None:
    """The button restoring the whole plan of ``workbook`` (inventory, workloads, own GPU
    models, assumptions), with the values of it that would not be used listed first; or why
    its plan cannot be restored."""
    restoring = _restoring(workbook, session.scenario_inputs())
    name = fmt.markdown_literal(workbook.name)
    if restoring.inputs is None:
        st.warning(
            f"The whole plan of {name} cannot be restored: a part of it cannot be used (below). "
            "Its part for this page is shown as read.",
            icon=":material/warning:",
        )
        planning.show_problems(restoring.problems, key=f"{key}_restore_problems")
        return
    if restoring.problems:
        st.warning(
            f"Restoring the whole plan of {name} would not use "
            f"{fmt.counted(len(restoring.problems), 'value')} of it, listed below, each with "
            "what is used instead.",
            icon=":material/warning:",
        )
        planning.show_problems(restoring.problems, key=f"{key}_restore_problems")
    if st.button(
        f"Restore the whole plan of {name}",
        key=f"{key}_restore",
        icon=":material/settings_backup_restore:",
        help=(
            "Workloads, your GPU models, every assumption and the question ("
            + _question_said(restoring.asked)
            + "), as planned then; the workbook keeps no host, so the inventory in use stays "
            "(a new cluster's sizing plans on none of it)."
        )
        if restoring.keeps_no_host
        else "Inventory, workloads, your GPU models, every assumption and the question ("
        + _question_said(restoring.asked)
        + "), as planned then"
        + _in_cluster(restoring.inputs.cluster),
    ):
        st.session_state[f"_{key}_done"] = ids
        session.commit_replacing(
            restoring.inputs, f"the plan restored from {workbook.name}", restoring.asked
        )


def _question_said(asked: session.Question) -> str:
    """The question a restore answers, in words."""
    if asked.kind is session.QuestionKind.FIT:
        return "fit the mix to the inventory"
    types = " or ".join(fmt.markdown_literal(s.label) for s in asked.servers)
    headroom = f", N+{asked.headroom}" if asked.headroom else ""
    if asked.kind is session.QuestionKind.ADD:
        return f"add {types} servers to the inventory{headroom}"
    return f"size a new cluster of {types} servers{headroom}"


def _in_cluster(cluster: GivenCluster | None) -> str:
    """The end of a sentence saying which cluster a trace node list's nodes are planned in."""
    if cluster is None:
        return "."
    return f", the node list's nodes in cluster {fmt.markdown_literal(cluster.name)}."


def _undo_offer(role: Role, key: str) -> None:
    """Undo of the last import, on the page of the inputs it replaced only."""
    last = session.replaced()
    if last is None or _in_use(last[1], role) == _in_use(session.scenario_inputs(), role):
        return
    if st.button(
        f"Undo {last[0]}",
        key=f"{key}_undo",
        icon=":material/undo:",
        help="Plan with the inputs that were in use before it again.",
    ):
        session.undo_replacement()


def _without_gpu(role: Role, shown: ImportPreview) -> str | None:
    """The classes of pods without GPU a trace pod list adds beyond those its figures count, in
    words; None when it has none."""
    if role != "workloads" or shown.as_given is None:
        return None
    inputs = session.scenario_inputs()
    mix = planning.read_workloads(shown.as_given, inputs.inventory, inputs.own_gpus)
    if not mix.cpu_only:
        return None
    return (
        f"Not counted: the file's {trace.without_gpu(mix.cpu_only)}, planned too, on node cores "
        "and RAM."
    )


def _change_figures(change: InputChange, role: Role, apart: str | None = None) -> None:
    """Rows kept, rows skipped and GPUs after applying, each with its change from the inputs in
    use and a tooltip saying what it counts; ``apart``: what the counts leave out."""
    if role == "inventory":
        kept, row, rows, gpus = "Hosts kept", "host", "hosts", "GPUs after"
        counted = "Hosts applying it plans on, as the Inventory page counts them"
    else:
        kept, row, rows, gpus = "Classes kept", "class", "classes", "GPUs requested after"
        counted = "Workload classes applying it plans, as the Workloads page counts them"
    in_use = f"{counted}; {fmt.count(change.rows_before)} in use now."
    figures = st.columns(3)
    figures[0].metric(
        kept,
        fmt.count(change.rows_after),
        delta=fmt.counted_change(change.rows_after - change.rows_before, row, rows),
        border=True,
        help=in_use if apart is None else f"{in_use} {apart}",
    )
    figures[1].metric(
        "Rows skipped",
        fmt.count(len(rows_skipped(change.skipped))),
        border=True,
        help="Rows a problem leaves out; every problem is listed below, those of rows still "
        "used too.",
    )
    difference = change.gpus_after - change.gpus_before
    figures[2].metric(
        gpus,
        _gpus(change.gpus_after),
        delta=None
        if abs(difference) < 0.05
        else f"{'+' if difference > 0 else ''}{_gpus(difference)} GPUs",
        border=True,
        help=f"{gpus.replace(' after', '')} after applying; {_gpus(change.gpus_before)} in use "
        "now.",
    )


def _gpus(value: float) -> str:
    """GPUs with thousands separators and fractions to 0.1, a whole number without its ``.0``
    (``6,212``, ``230.5``)."""
    return f"{value:,.1f}".rstrip("0").rstrip(".")


def _review(
    role: Role,
    shown: ImportPreview,
    cat: Catalog,
    key: str,
    ids: tuple[str, ...],
    original: bytes | None,
    start: pd.DataFrame,
    sources: tuple[session.InputFile, ...],
) -> pd.DataFrame:
    """What the files gave (``sources``), the table to fix (its editor starting from
    ``start``), the change, and Apply or Keep. Returns the table as edited."""
    st.markdown("**What each file gave**")
    for file, tool in shown.files:
        st.caption(f":material/description: {fmt.markdown_literal(file)}: read as {tool}")
    st.markdown(
        "\n".join(f"- {fmt.markdown_literal(line)}" for line in shown.summary) or "_no values_"
    )
    if len(shown.notes):
        only_assumed = st.toggle(
            f"Only the {fmt.counted(shown.assumed, 'assumed value')}",
            key=f"{key}_only_assumed",
            value=shown.assumed > 0,
        )
        notes = shown.notes[shown.notes["source"] == "assumed"] if only_assumed else shown.notes
        st.dataframe(notes, hide_index=True, width="stretch", key=f"{key}_notes", placeholder="–")
    for file in _unmatched_measurements(shown):
        st.warning(
            f"{fmt.markdown_literal(file)} matched to no workload: none of its measurements "
            "fills a class's busy fraction or memory, so the mix is used without them. "
            "Measure the pods of these classes (the exporter names pods only on Kubernetes), "
            "or apply the mix as it is.",
            icon=":material/warning:",
        )
    if shown.context is not None:
        st.warning(shown.context, icon=":material/link:")
    _models_added(shown)
    if shown.as_given is None:
        st.markdown("**Fix the table, then apply it**")
        rows = pd.DataFrame(
            st.data_editor(
                start, key=f"{key}_editor", hide_index=True, width="stretch", num_rows="dynamic"
            )
        )
    else:
        st.markdown("**What applying it plans with**")
        st.caption(
            f"{fmt.markdown_literal(shown.as_given.name)} is used as the file gives it, read by "
            "the planner's own loader for it (as the command line reads it), so this table "
            "cannot be edited: to change a row, fix the file and upload it again."
        )
        rows = shown.frame
        with st.container(key=f"{key}_as_given"):
            st.dataframe(rows, hide_index=True, width="stretch", height=300)
    edited = rows.dropna(how="all")
    try:
        change = _change(role, rows, cat, shown)
    except InputError as error:
        st.error(
            "No row of this import can be used, so the inputs in use stay. Fix the table or "
            "the files.",
            icon=":material/error:",
        )
        planning.show_problems(error.problems)
        return edited
    _change_figures(change, role, _without_gpu(role, shown))
    if change.skipped:
        st.warning(
            f"{fmt.counted(len(change.skipped), 'problem')}: these rows or values would not "
            "be used.",
            icon=":material/warning:",
        )
        planning.show_problems(change.skipped, key=f"{key}_skipped")
    apply_col, keep_col = st.columns(2)
    if apply_col.button(
        "Apply", key=f"{key}_apply", type="primary", icon=":material/check:", width="stretch"
    ):
        st.session_state[f"_{key}_done"] = ids
        content = edited.to_csv(index=False).encode()
        if original is not None and edited.equals(shown.frame):
            content = original
        if shown.as_given is not None:
            content = shown.as_given.content
        _apply(role, shown.name, content, sources, shown.cluster, shown.added_models)
    if keep_col.button(
        "Keep the inputs in use", key=f"{key}_keep", icon=":material/close:", width="stretch"
    ):
        st.session_state[f"_{key}_done"] = ids
        st.rerun()
    return edited


def _models_added(shown: ImportPreview) -> None:
    """What applying adds to the user's own GPU models: the models the import added."""
    if not shown.added_models:
        return
    models = ", ".join(fmt.markdown_literal(m.name) for m in shown.added_models)
    st.info(
        f"Applying it also adds {models} to your own GPU models (Add your own GPU models, "
        "below), with the figures noted above: the table's hosts are planned with them, as the "
        "command line plans them. Undo takes them away again.",
        icon=":material/memory:",
    )


def _measurements(shown: ImportPreview) -> tuple[str, ...]:
    """The uploaded DCGM exporter files, which measure the workloads the other files name."""
    return tuple(file for file, tool in shown.files if tool == Format.DCGM.label)


def _unmatched_measurements(shown: ImportPreview) -> tuple[str, ...]:
    """The DCGM files of which no figure fills a workload class's value."""
    notes = shown.notes
    if not len(notes):
        return _measurements(shown)
    filling = notes[notes["field"] != ""]
    return tuple(
        file
        for file in _measurements(shown)
        if not filling["file"].map(lambda files, f=file: f in str(files).split(", ")).any()
    )


def _applies_at_once(role: Role, shown: ImportPreview, cat: Catalog) -> bool:
    """Nothing to lose: the sample is in use and every row and value of the upload is used (a
    plan workbook waits: the user chooses this page's part or the whole plan)."""
    inputs = session.scenario_inputs()
    in_use = inputs.inventory if role == "inventory" else inputs.workloads
    if shown.as_given is not None:
        return False
    if not in_use.is_sample or shown.problems or shown.assumed or shown.workbooks:
        return False
    if _measurements(shown):
        # What the measurements matched, or did not, is read in the review before use.
        return False
    try:
        change = _change(role, shown.frame, cat, shown)
    except InputError:
        return False
    return not change.skipped


@dataclass
class _Pending:
    """An import waiting for Apply or Keep. Leaving the page empties the uploader and the table
    editor; this keeps the files, the table as fixed and the options typed, so coming back shows
    the same review."""

    ids: tuple[str, ...]
    """``file_id`` of each uploaded file."""
    files: tuple[session.InputFile, ...]
    edited: pd.DataFrame | None = None
    """The review's table as last edited; None before the first review."""
    start: pd.DataFrame | None = None
    """The table the review's editor starts from on this visit of the page; None: as read."""
    widgets: tuple[tuple[str, str], ...] = ()
    """(widget key, value) of the options typed (host, cluster, GPUs per cluster, grouping)."""


def _pending_key(key: str) -> str:
    return f"_{key}_pending"


def _in_use(inputs: session.ScenarioInputs, role: Role) -> session.InputFile:
    return inputs.inventory if role == "inventory" else inputs.workloads


def _forget_pending(key: str) -> None:
    """The user changed the files in the uploader: what was pending is not wanted any more."""
    st.session_state.pop(_pending_key(key), None)


def _option_keys(key: str) -> tuple[str, ...]:
    return tuple(f"{key}_{name}" for name in ("host_name", "cluster", "cluster_gpus", "group_by"))


def _inventory_options(key: str) -> ImportOptions:
    """Host, cluster and GPUs per cluster the user gives; a bad GPUs entry is shown, not used."""
    with st.expander("What the files do not say", icon=":material/edit:"):
        host = st.text_input("Host of nvidia-smi and MIG outputs", key=f"{key}_host_name")
        cluster = st.text_input("Cluster of hosts no file names one for", key=f"{key}_cluster")
        gpus = st.text_input(
            "GPUs of hosts no file gives GPUs for (RVTools) or only assumes (MIG -lgi): "
            "CLUSTER=MODEL:GPUS, …",
            key=f"{key}_cluster_gpus",
            placeholder="prod=L40S:4, vdi=A16:8",
        )
    try:
        by_cluster = tuple(parse_cluster_gpus(gpus).items())
    except InputError as error:
        st.error(str(error), icon=":material/error:")
        by_cluster = ()
    return ImportOptions(
        host_name=host.strip() or None, cluster=cluster.strip() or None, gpus_by_cluster=by_cluster
    )


def _group_by(shown: ImportPreview, key: str) -> str | None:
    """The pod label classes are grouped by (None: by owner), offered once pods were read."""
    if not shown.labels:
        return None
    chosen = st.selectbox(
        "Group pods into classes by",
        options=["owner", *shown.labels],
        key=f"{key}_group_by",
        help="By owner (Deployment, StatefulSet, Job), or by the value of a pod label.",
    )
    return None if chosen == "owner" else chosen


@st.cache_data(show_spinner=False, max_entries=16)
def _as_given(
    role: Role,
    files: tuple[session.InputFile, ...],
    inventory: session.InputFile,
    own_gpus: session.InputFile | None,
) -> _Reading:
    """The ``files`` read as a file the planner uses as given: a trace list alone, or the one a
    lone plan workbook keeps (a pod list planned on ``inventory``); no preview when they are
    not, and a refusal when a trace list is misplaced or a file cannot be read at all. Cached
    on the bytes, so a rerun opens no workbook again."""
    try:
        misplaced = trace.misplaced(role, files)
        if misplaced:
            return _Reading(None, misplaced)
        if len(files) == 1 and trace.role_of(files[0]) == role:
            # A trace list is read by its own loader, which no option of the importers changes.
            return _Reading(_trace_preview(role, files[0], inventory, own_gpus))
        kept = _kept_trace_list(role, files)
        if kept is None:
            return _Reading(None)
        file, cluster = kept
        shown = _trace_preview(role, file, inventory, own_gpus, cluster)
        return _Reading(replace(shown, workbooks=(files[0].name,)))
    except InputError as error:
        return _Reading(None, error.problems)


def _read(
    role: Role, files: tuple[session.InputFile, ...], inputs: session.ScenarioInputs, key: str
) -> ImportPreview:
    """The ``files`` read as ``role``, with the options the user gives drawn where they apply;
    ``InputError`` when they cannot be used."""
    given = _as_given(role, files, inputs.inventory, inputs.own_gpus)
    if given.problems:
        raise InputError(given.problems)
    if given.shown is not None:
        return given.shown
    options = _inventory_options(key) if role == "inventory" else ImportOptions()
    nodes = _inventory_sources(inputs) if role == "workloads" else ()
    shown = preview(role, files, inputs.own_gpus, options, nodes)
    group_by = _group_by(shown, key)
    if group_by is not None:
        shown = preview(role, files, inputs.own_gpus, ImportOptions(group_by=group_by), nodes)
    return shown


def _names(files: Sequence[session.InputFile]) -> str:
    return ", ".join(f.name for f in files)


_UPLOAD_LABELS = {
    "inventory": "Import hosts: planner CSV, kubectl, nvidia-smi, MIG listings, RVTools, DCGM, a "
    "plan workbook (one or several files) or an Alibaba GPU-sharing trace node list (alone)",
    "workloads": "Import workloads: planner CSV, kubectl pods, DCGM, a plan workbook (one or "
    "several files) or an Alibaba GPU-sharing trace pod list (alone)",
}
"""The uploader's label by role: the formats that give its hosts or workloads."""


def import_panel(role: Role, *, key: str) -> None:
    """The panel: an uploader for one or several files of any supported format, then the review
    (or, when nothing is lost, the upload in use at once), and an undo of the last import."""
    inputs = session.scenario_inputs()
    cat = planning.catalog(inputs.own_gpus)
    uploaded = st.file_uploader(
        _UPLOAD_LABELS["inventory" if role == "inventory" else "workloads"],
        type=_TYPES,
        accept_multiple_files=True,
        key=key,
        max_upload_size=MAX_UPLOAD_MB,
        on_change=_forget_pending,
        args=(key,),
    )
    _undo_offer(role, key)
    pending = st.session_state.get(_pending_key(key))
    # The review's editor has no state when the page was left since it was last drawn.
    fresh_visit = f"{key}_editor" not in st.session_state
    if uploaded:
        ids = tuple(u.file_id for u in uploaded)
        if not (isinstance(pending, _Pending) and pending.ids == ids):
            files = tuple(session.InputFile(name=u.name, content=u.getvalue()) for u in uploaded)
            pending = _Pending(ids, files)
    elif not isinstance(pending, _Pending):
        return
    if st.session_state.get(f"_{key}_done") == pending.ids:
        _forget_pending(key)
        return
    if not uploaded:
        st.info(
            f"{fmt.markdown_literal(_names(pending.files))} waits for Apply, as you left it: "
            "apply it, keep the inputs in use, or upload other files.",
            icon=":material/pending_actions:",
        )
        for widget, value in pending.widgets:
            st.session_state.setdefault(widget, value)
    if fresh_visit and pending.edited is not None:
        pending.start = pending.edited
    st.session_state[_pending_key(key)] = pending
    ids, files = pending.ids, pending.files
    try:
        shown = _read(role, files, inputs, key)
    except InputError as error:
        # Nothing of it can be used, so nothing waits for Apply.
        _forget_pending(key)
        in_use = inputs.inventory.name if role == "inventory" else inputs.workloads.name
        if _sizes_no_host(role, files):
            st.info(
                f"{fmt.markdown_literal(files[0].name)} keeps no host: it sizes a new cluster, "
                "which plans on none of an inventory. Its whole plan can be restored (its "
                f"workloads, GPU models, assumptions and question); {fmt.markdown_literal(in_use)} "
                "stays in use as the inventory.",
                icon=":material/info:",
            )
            _restore_offer(files[0], key, ids)
            return
        problems = (*error.problems, *_kept_no_host(role, files))
        st.error(components.unusable_upload(files, problems, in_use), icon=":material/error:")
        planning.show_problems(problems)
        return
    if shown.workbooks:
        _restore_offer(next(f for f in files if f.name == shown.workbooks[0]), key, ids)
    # A planner CSV is used as the user wrote it (its skipped rows stay listed on the page);
    # tool outputs as the table read from them.
    single = len(files) == 1 and shown.files[0][1] == _PLANNER_CSV[role].label
    original = files[0].content if single else None
    if _applies_at_once(role, shown, cat):
        st.session_state[f"_{key}_done"] = ids
        content = original or shown.frame.to_csv(index=False).encode()
        _apply(role, shown.name, content, files, added=shown.added_models)
    with st.container(border=True, key=f"{key}_review"):
        start = shown.frame if pending.start is None else pending.start
        pending.edited = _review(role, shown, cat, key, ids, original, start, files)
    pending.widgets = tuple(
        (widget, str(st.session_state[widget]))
        for widget in _option_keys(key)
        if widget in st.session_state
    )
