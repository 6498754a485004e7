"""Pieces several pages share: the scenario sidebar, problem lists, headline figures."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.uploaded_file_manager import UploadedFile

from planner.inputs.importers import ImportNote, summarise_notes
from planner.inputs.problems import InputError, InputProblem, rows_skipped
from planner.measure.result import MethodResult
from planner.methods.registry import METHODS
from planner.output.recommendations import RecommendedPlan, decisions_frame
from planner.output.report import ScenarioPlan
from ui import definitions, planning, session
from ui import format as fmt

_LOG = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = [
    "accept_upload",
    "feasibility_notice",
    "headline",
    "method_summary",
    "plan_with_headline",
    "problems_notice",
    "reading_notes",
    "recommended_section",
    "scenario_sidebar",
    "stop_if_empty",
    "table",
    "unusable_upload",
]


def accept_upload(
    uploaded: UploadedFile | None,
    *,
    seen_key: str,
    in_use: session.InputFile | None,
    in_use_name: str,
    problems: Callable[[session.InputFile], Sequence[InputProblem]],
    commit: Callable[[session.InputFile], object],
) -> session.InputFile | None:
    """Take a file from an uploader: a new upload that ``problems`` accepts is committed once
    (the user's intent to plan with it); while an unusable one sits in the uploader, say why and
    that ``in_use_name`` stays in use.

    Returns the uploaded file when it is usable but not the one in use (the user dropped it or
    chose another since), so the page may offer it again; None otherwise.
    """
    if uploaded is None:
        return None
    file = session.InputFile(name=uploaded.name, content=uploaded.getvalue())
    if uploaded.file_id != st.session_state.get(seen_key):
        st.session_state[seen_key] = uploaded.file_id
        if not problems(file):
            commit(file)
    if file == in_use:
        return None
    found = problems(file)
    if not found:
        return file
    st.error(unusable_upload([file], found, in_use_name), icon=":material/error:")
    planning.show_problems(found)
    return None


def unusable_upload(
    files: Sequence[session.InputFile], problems: Sequence[InputProblem], in_use: str
) -> str:
    """Why nothing of an upload of ``files`` is used, as every uploader says it (Markdown): the
    files the problems name and that ``in_use`` stays in use, and, when others were dropped with
    them, that those are left out too until the upload is fixed."""
    named = {p.file for p in problems}
    bad = ", ".join(f.name for f in files if f.name in named)
    fine = ", ".join(f.name for f in files if f.name not in named)
    if not bad or not fine:
        return (
            f"{fmt.markdown_literal(', '.join(f.name for f in files))} cannot be used, so the "
            f"planner still uses {fmt.markdown_literal(in_use)}. Fix the problems below and "
            "upload the file again."
        )
    return (
        f"{fmt.markdown_literal(bad)} cannot be used, so nothing of this upload is imported "
        f"({fmt.markdown_literal(fine)} neither) and the planner still uses "
        f"{fmt.markdown_literal(in_use)}. Fix the problems below, or remove "
        f"{fmt.markdown_literal(bad)} from the upload."
    )


def scenario_sidebar() -> None:
    """The sidebar: what is being planned right now, and a way back to the sample scenario."""
    inputs = session.scenario_inputs()
    inventory_name = fmt.markdown_literal(inputs.inventory.name)
    workloads_name = fmt.markdown_literal(inputs.workloads.name)
    with st.sidebar:
        st.markdown("**Planning with**")
        try:
            built = planning.build_scenario(inputs)
        except Exception:
            # The page itself shows the problems; the sidebar only names the files.
            st.caption(f"{inventory_name} · {workloads_name}")
        else:
            inventory = built.scenario.inventory
            workloads = built.scenario.workloads
            instances = sum(w.instances for w in workloads)
            st.caption(
                f":material/dns: {inventory_name}: {fmt.counted(len(inventory.hosts), 'host')}, "
                f"{fmt.counted(inventory.gpu_count, 'GPU')}  \n"
                f":material/work: {workloads_name}: "
                f"{fmt.counted(len(workloads), 'class', 'classes')}, "
                f"{fmt.counted(instances, 'instance')}"
            )
        if inputs.own_gpus is not None:
            _own_gpus_sidebar(inputs.own_gpus)
        asked = session.question()
        if asked.kind is session.QuestionKind.ADD:
            st.caption(":material/add_box: Sizing what to buy on top of this inventory")
        elif asked.kind is session.QuestionKind.SIZE and asked.servers:
            # The catalog's types, when chosen, are the ones sized, not the typed server.
            types = " or ".join(s.label for s in asked.servers)
            st.caption(f":material/add_box: Sizing a cluster of {types} servers")
        else:
            st.caption(":material/check_box: Fitting the mix to this inventory")
        changed = inputs != session.sample_inputs() or asked != session.Question()
        if st.button(
            "Back to the sample scenario",
            key="sidebar_reset",
            icon=":material/restart_alt:",
            disabled=not changed,
            help="Forget uploads, edits and assumption changes.",
        ):
            session.reset_to_sample()
            st.rerun()


def _own_gpus_sidebar(own_gpus: session.InputFile) -> None:
    """Say the catalog is extended by the user's models, and offer to plan without them."""
    try:
        models = planning.own_models(own_gpus)
    except InputError:
        # Only a file the catalog accepted is committed, so this is not expected; name the file.
        models = ()
    added = f": {', '.join(models)}" if models else ""
    st.caption(
        f":material/memory: Catalog extended by {fmt.markdown_literal(own_gpus.name)}"
        f"{fmt.markdown_literal(added)}"
    )
    if st.button(
        "Drop my GPU models",
        key="sidebar_drop_own_gpus",
        icon=":material/remove_circle_outline:",
        help="Plan with the bundled catalog alone; inventory rows naming your models are then "
        "skipped and listed on the Inventory page.",
    ):
        session.commit_own_gpus(None)


ROW_PX = 35
"""Height of one table row in Streamlit's grid [px]."""
DECISION_CHARS_PER_LINE = 40
"""Characters of a class's reason that fit one line of the recommended plan's Why column at
1,280 px."""
DECISION_MAX_LINES = 5
"""Most lines a class's row grows to; a longer reason is cut (its tooltip shows it whole)."""


def table(
    frame: pd.DataFrame,
    *,
    key: str,
    hide_index: bool = True,
    max_rows: int | None = 12,
    column_config: Mapping[str, Any] | None = None,
) -> None:
    """A full-width read-only table inside a container named ``key`` (found by that key in tests;
    a plain ``st.dataframe`` does not keep its key). Up to ``max_rows`` rows show without
    scrolling (None: all); ``column_config`` as ``st.dataframe`` takes it."""
    shown = len(frame) if max_rows is None else min(len(frame), max_rows)
    with st.container(key=key):
        st.dataframe(
            frame,
            hide_index=hide_index,
            width="stretch",
            height=(shown + 1) * ROW_PX + 3,
            column_config=column_config,
        )


def problems_notice(problems: Sequence[InputProblem], *, what: str) -> None:
    """A warning listing the problems of ``what``, each with row, column and fix, counting the
    rows they skipped; a row still used with a value its problem names is not counted."""
    if not problems:
        return
    skipped = len(rows_skipped(problems))
    verdict = (
        f"{fmt.counted(skipped, 'row')} {'was' if skipped == 1 else 'were'} skipped, the other "
        "rows are in use. Fix them in the file and upload it again."
        if skipped
        else "no row was skipped: the rows named are in use, read as each problem says."
    )
    st.warning(
        f"{fmt.counted(len(problems), 'problem')} in {fmt.markdown_literal(what)}; {verdict}",
        icon=":material/warning:",
    )
    planning.show_problems(problems)


def reading_notes(notes: Sequence[ImportNote], *, what: str, key: str) -> None:
    """What reading ``what`` gave and assumed, one line per group of notes, with every note in a
    table below; nothing when the file gives every value itself (a planner CSV)."""
    if not notes:
        return
    assumed = sum(1 for n in notes if n.source == "assumed")
    lines = "\n".join(f"- {fmt.markdown_literal(line)}" for line in summarise_notes(notes))
    st.info(
        f"What {fmt.markdown_literal(what)} gave, and {fmt.counted(assumed, 'value')} it does "
        f"not give that the planner assumed:\n\n{lines}",
        icon=":material/info:",
    )
    frame = pd.DataFrame(
        {
            "field": [n.field for n in notes],
            "value": [n.value for n in notes],
            "source": [n.source for n in notes],
            "why": [n.text for n in notes],
        }
    )
    with st.expander("Every value read or assumed", icon=":material/list:"):
        table(frame, key=key, max_rows=None)


def stop_if_empty(built: planning.BuiltScenario, *, need_inventory: bool = True) -> None:
    """Stop the page with a way forward when there is no host or no workload to plan.

    ``need_inventory`` is False when sizing a new cluster, which needs no host of the user's.
    """
    if need_inventory and not built.scenario.inventory.hosts:
        st.warning(
            "The inventory has no usable host, so there is nothing to plan on. Fix the rows listed "
            "on the Inventory page, upload another file, or ask the planner to size a new cluster.",
            icon=":material/warning:",
        )
        st.page_link("ui/pages/inventory.py", label="Go to the inventory", icon=":material/dns:")
        st.stop()
    if not built.scenario.workloads:
        st.warning(
            "The workload mix is empty, so there is nothing to place. Add rows on the Workloads "
            "page or load one of the presets there.",
            icon=":material/warning:",
        )
        st.page_link("ui/pages/workloads.py", label="Go to the workloads", icon=":material/work:")
        st.stop()


def headline(
    plan: ScenarioPlan,
    *,
    previous: ScenarioPlan | None = None,
) -> None:
    """One card per plan (container key ``headline_<plan>``), the recommended plan first: GPUs
    and hosts used, annual cost and cost per placed instance, what was not placed.

    ``previous`` is the same question planned with the assumptions applied before: each card
    then shows the change (``-4 GPUs``, ``+$12.0k/year``). The lowest annual cost is marked among
    the plans that serve the most instances only, so a plan never wins the badge by leaving work
    out.
    """
    before = _results_by_name(previous)
    best = _lowest_cost_for_most_work(plan)
    for card, result in zip(_card_grid(len(plan.results)), plan.results, strict=True):
        with card.container(border=True, key=f"headline_{result.plan.name}"):
            _plan_card(result, before.get(result.plan.name), lowest_cost=result.plan.name in best)


def plan_with_headline(
    inputs: session.ScenarioInputs,
    asked: session.Question,
    *,
    mixing_slot: DeltaGenerator,
    then: Callable[[], object] = lambda: None,
) -> ScenarioPlan:
    """Plan ``inputs`` and show the headline cards as the plans come: each single method's card
    as soon as its plan is made, then the recommended plan's figures and its one-sentence answer
    once it is chosen, then every card again once its bounds are proven (the mix and its bounds
    take longest).
    The spinner of the mix shows in ``mixing_slot``; ``then`` is called once the single methods'
    cards are on screen, before the mix. After an Apply on the Assumptions page the cards show
    the change against the assumptions applied before."""
    before = session.before_last_apply()
    cards = st.empty()
    if not planning.by_method(asked):
        # Adding to the inventory solves what to buy with its single plans: the plan is whole.
        with cards.container(), st.spinner("Packing each method…"):
            whole = planning.guarded(
                lambda: planning.single_plans(inputs, asked), doing="plan the scenario"
            )
            whole_before = _plan_before(planning.single_plans, before, asked)
        with cards.container():
            headline(whole, previous=whole_before)
        then()
        return whole
    singles_before = _plan_before(planning.single_plans, before, asked)
    with cards.container():
        recommended_card = _headline_as_planned(inputs, asked, previous=singles_before)
    then()
    with mixing_slot, st.spinner("Mixing the methods into the recommended plan…"):
        draft = planning.guarded(
            lambda: planning.recommended_draft(inputs, asked), doing="plan the scenario"
        )
        draft_before = _plan_before(planning.recommended_draft, before, asked)
    # The answer's sentence needs no bound: it shows while the bounds are proven.
    answer = mixing_slot.empty()
    if draft is not None:
        # Its lines in one inner block: a card drawn later in the same place keeps the lines
        # of the card before past its own last one, so the final card, with no badge when it
        # serves nothing, would keep 'Proving…' under its figures.
        with (
            recommended_card.container(border=True, key="drafted_headline_recommended"),
            st.container(),
        ):
            previous = None if draft_before is None else draft_before.recommended.result
            _plan_card(draft.recommended.result, previous, lowest_cost=False)
            st.caption(":material/hourglass_top: Proving how close it is to the best possible.")
        with answer.container():
            _answer(draft.recommended)
    with mixing_slot, st.spinner("Proving how close the recommended plan is to the best possible…"):
        plan = planning.guarded(
            lambda: planning.scenario_plan(inputs, asked), doing="plan the scenario"
        )
        plan_before = _plan_before(planning.scenario_plan, before, asked)
    answer.empty()
    with cards.container():
        headline(plan, previous=plan_before)
    return plan


def _headline_as_planned(
    inputs: session.ScenarioInputs, asked: session.Question, *, previous: ScenarioPlan | None
) -> DeltaGenerator:
    """The headline while the recommended mix is solved: its card says so, and each method's card
    (container key ``early_headline_<plan>``) fills in as soon as that method's plan is made. No
    lowest-cost badge yet: the mix may beat every single method. Returns the recommended plan's
    card, to be filled once its figures are known."""
    before = _results_by_name(previous)
    grid = _card_grid(len(METHODS) + 1)
    recommended_card = grid[0].empty()
    with recommended_card.container(border=True, key="early_headline_recommended"):
        st.markdown("**Recommended plan**")
        st.caption(
            ":material/hourglass_top: Mixing the methods class by class; its figures follow "
            "in a few seconds."
        )
    slots = [cell.empty() for cell in grid[1:]]
    for slot, method in zip(slots, METHODS, strict=True):
        with slot.container(border=True):
            st.markdown(f"**{method.label}**")
            st.caption(":material/hourglass_top: Packing…")
    for slot, method in zip(slots, METHODS, strict=True):
        part = planning.guarded(
            partial(planning.method_plan, inputs, asked, method), doing="plan the scenario"
        )
        (result,) = part.results
        with slot.container(border=True, key=f"early_headline_{result.plan.name}"):
            _plan_card(result, before.get(result.plan.name), lowest_cost=False)
    return recommended_card


def _results_by_name(plan: ScenarioPlan | None) -> dict[str, MethodResult]:
    return {} if plan is None else {r.plan.name: r for r in plan.results}


def _plan_before(
    plan: Callable[[session.ScenarioInputs, session.Question], T],
    before: session.ScenarioInputs | None,
    asked: session.Question,
) -> T | None:
    """The plan under the assumptions applied before, or None (no earlier Apply, or it cannot
    be planned any more: the cards then show no change rather than stop the page)."""
    if before is None:
        return None
    try:
        return plan(before, asked)
    except Exception:
        _LOG.warning("the plan before the last Apply could not be made", exc_info=True)
        return None


CARDS_PER_ROW = 5
"""Plan cards side by side at most; more and a card's figures are cut short at 1,280 px."""


def _card_grid(cards: int) -> list[DeltaGenerator]:
    """``cards`` equal columns, in rows of at most ``CARDS_PER_ROW``, in reading order."""
    grid: list[DeltaGenerator] = []
    for first in range(0, cards, CARDS_PER_ROW):
        grid.extend(st.columns(CARDS_PER_ROW)[: min(CARDS_PER_ROW, cards - first)])
    return grid


LOWEST_COST = "lowest cost for the most work"
"""What a plan card says of the cheapest plan among those that place the most instances."""


def _lowest_cost_for_most_work(plan: ScenarioPlan) -> set[str]:
    """Names of the cheapest plans among those that place the most instances (none when no
    plan places any)."""
    most = max((r.metrics.instances_placed for r in plan.results), default=0)
    serving = [r for r in plan.results if r.metrics.instances_placed == most]
    if not most:
        return set()
    cheapest = min(r.cost.total_usd_per_year for r in serving)
    return {r.plan.name for r in serving if r.cost.total_usd_per_year == cheapest}


def _plan_card(result: MethodResult, before: MethodResult | None, *, lowest_cost: bool) -> None:
    """One plan's card; ``before`` is the same plan under the previous assumptions."""
    m, cost = result.metrics, result.cost
    st.markdown(f"**{result.plan.label}**")
    gpus_change = None if before is None else m.gpus_used - before.metrics.gpus_used
    st.metric(
        "GPUs used",
        fmt.count(m.gpus_used),
        delta=fmt.counted_change(gpus_change, "GPU"),
        delta_color="inverse",
        help=definitions.define("GPUs used"),
    )
    cost_change = (
        None if before is None else cost.total_usd_per_year - before.cost.total_usd_per_year
    )
    st.metric(
        "Annual cost",
        fmt.usd(cost.total_usd_per_year),
        delta=fmt.usd_change(cost_change, per="year"),
        delta_color="inverse",
        help=definitions.define("Annual cost"),
    )
    # A plan serving nothing has no cost per instance to give.
    per_instance = (
        f"{fmt.usd(cost.usd_per_instance_year)} a year per instance served"
        if m.instances_placed
        else "serves none"
    )
    st.caption(f"on {fmt.counted(m.hosts_used, 'host')} · {per_instance}")
    placed = f"{fmt.count(m.instances_placed)} placed"
    if m.instances_not_placed:
        st.markdown(f":orange[{placed}, **{fmt.count(m.instances_not_placed)} not placed**]")
    else:
        st.markdown(f":green[{placed}, none left out]")
    if lowest_cost:
        # Text that wraps: a badge is cut to "lowest cost fo…" in a card at 1,280 px.
        st.markdown(f":green[:material/savings: {LOWEST_COST}]")


def method_summary(result: MethodResult) -> None:
    """A one-line summary of one method's plan, with its notes."""
    m = result.metrics
    st.markdown(
        f"**{result.plan.label}**: {fmt.counted(m.gpus_used, 'GPU')} on "
        f"{fmt.counted(m.hosts_used, 'host')} · {fmt.count(m.instances_placed)} placed, "
        f"{fmt.count(m.instances_not_placed)} not placed · memory {fmt.pct(m.memory_utilisation)}, "
        f"compute {fmt.pct(m.compute_utilisation)} · {fmt.usd(result.cost.total_usd_per_year)} "
        f"per year · lower bound {fmt.counted(m.lower_bound_gpus, 'GPU')} ({result.plan.status})"
    )
    notes = [*result.plan.notes, *result.cost.notes]
    if notes:
        with st.expander("Notes on this plan"):
            for note in notes:
                st.markdown(f"- {fmt.markdown_literal(note)}")


def feasibility_notice(plan: ScenarioPlan) -> None:
    """A loud error when any plan breaks a sharing rule (the shared checker found violations)."""
    for result in plan.results:
        if result.feasibility_violations:
            st.error(
                f"The {result.plan.label} plan breaks "
                f"{fmt.counted(len(result.feasibility_violations), 'rule')}; treat its figures "
                "with care and report this: " + "; ".join(result.feasibility_violations[:3]),
                icon=":material/report:",
            )


def _answer(recommended: RecommendedPlan) -> None:
    """The recommended plan's one-sentence answer: a success when it serves work, a warning when
    it serves none (every class says why in the table below)."""
    if recommended.result.metrics.instances_placed:
        st.success(recommended.headline(), icon=":material/recommend:")
    else:
        st.warning(recommended.headline(), icon=":material/warning:")


def recommended_section(recommended: RecommendedPlan) -> None:
    """The answer first: what the recommended plan serves on what, against today and the best
    single method, how close it is to the best possible, and each class's method and why."""
    result = recommended.result
    m = result.metrics
    _answer(recommended)
    cols = st.columns(4)
    cols[0].metric(
        "GPUs used",
        fmt.count(m.gpus_used),
        delta=fmt.counted(m.hosts_used, "host"),
        delta_color="off",
        delta_arrow="off",
        help=definitions.define("GPUs used"),
    )
    cols[1].metric(
        "Annual cost",
        fmt.usd(result.cost.total_usd_per_year),
        help=definitions.define("Annual cost"),
    )
    ratio = recommended.ratio_to_bound
    said = recommended.bound_said()
    cols[2].metric(
        "Cost over its lower bound",
        "–" if ratio is None else f"{ratio:.3f}×",
        help=f"{definitions.define('Cost over its lower bound')} "
        + fmt.markdown_literal(f"{said[:1].upper()}{said[1:]}."),
    )
    best = recommended.best_single
    if best is not None and not m.instances_placed:
        # Nothing served costs nothing: no saving or gain to claim against a method.
        cols[3].metric(
            "Against one method",
            "–",
            help=f"{definitions.define('Against one method')} Here: {best.label}, which "
            "serves none either.",
        )
    elif best is not None:
        saved = best.cost.total_usd_per_year - result.cost.total_usd_per_year
        more = m.instances_placed - best.metrics.instances_placed
        # The method's name goes in the caption: in the label it would be cut at 1,280 px. A
        # plan that is the method's own, or as good, claims no '$0 less' and no '+0' rise.
        cols[3].metric(
            "Against one method",
            "the same cost"
            if fmt.usd(abs(saved)) == "$0"
            else f"{fmt.usd(abs(saved))} {'less' if saved >= 0 else 'more'}",
            delta=f"{more:+,d} {fmt.noun_of(more, 'instance')} served" if more else None,
            delta_color="normal" if more >= 0 else "inverse",
            help=f"{definitions.define('Against one method')} Here: {best.label}.",
        )
    against = "" if best is None else f"; against one method: {best.label}"
    st.caption(f"Found as {recommended.source}; status: {result.plan.status}{against}.")
    frame = decisions_frame(recommended)
    if not frame.empty:
        shown = frame[
            ["workload", "method", "served", "not_served", "gpus", "slowdown", "reason"]
        ].rename(
            columns={
                "workload": "Workload class",
                "method": "Method",
                "served": "Served",
                "not_served": "Left out",
                "gpus": "GPUs",
                "slowdown": "Slowdown [× bare metal]",
                "reason": "Why",
            }
        )
        # Why is the decision's reason: its rows grow (Streamlit wraps only rows over 64 px)
        # so that it is read whole beside narrow, wrapping name columns, not cut at 1,280 px.
        row_px = (
            planning.wrapped_row_px(
                [str(r) for r in shown["Why"]],
                chars_per_line=DECISION_CHARS_PER_LINE,
                max_lines=DECISION_MAX_LINES,
            )
            or ROW_PX
        )
        # In a named container: a plain st.dataframe does not keep its key for tests.
        with st.container(key="compare_decisions"):
            st.dataframe(
                shown,
                hide_index=True,
                width="stretch",
                placeholder="–",
                row_height=row_px,
                height=len(shown) * row_px + ROW_PX + 3,
                column_config={
                    "Workload class": st.column_config.TextColumn(width=110),
                    "Method": st.column_config.TextColumn(width=100),
                    "Served": st.column_config.TextColumn(width=115),
                    "Left out": st.column_config.NumberColumn(width=55),
                    "GPUs": st.column_config.NumberColumn(format="%.1f", width=50),
                    "Slowdown [× bare metal]": st.column_config.NumberColumn(
                        "Slowdown", help="× bare metal", format="%.2f", width=75
                    ),
                    # What the columns before leave of the table's 820 px at 1,280 px.
                    "Why": st.column_config.TextColumn(width=300),
                },
            )
        with st.expander("Every other method, per class: its estimate, or why it cannot serve"):
            for d in recommended.decisions:
                st.markdown(
                    f"**{fmt.markdown_literal(d.workload)}**: "
                    + fmt.markdown_literal("; ".join(d.alternatives))
                )
