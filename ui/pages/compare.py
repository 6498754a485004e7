"""Compare page: every sharing method side by side for the committed scenario and question."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from planner.inputs.inventory import ServerType, server_type
from planner.inputs.problems import InputError, skipped_summary
from planner.output.cells import csv_bytes
from planner.output.report import comparison_frame
from planner.solve.headroom import MAX_HEADROOM
from planner.solve.milp import DEFAULT_LIMITS
from ui import components, planning, session, tables

SERVER_FIELDS = {
    "gpu_model": "GPU model",
    "gpus_per_host": "GPUs per server",
    "cpu_cores": "Cores per server",
    "ram_gib": "RAM per server [GiB]",
}

st.title("Compare sharing methods")
st.caption(
    "How many GPUs and hosts each way of sharing needs for your workload mix, what it costs per "
    "year, what does not fit, and how close each plan is to the best possible."
)

inputs = session.scenario_inputs()
asked = session.question()
cat = planning.catalog(inputs.own_gpus)
models = sorted(cat.gpus)


@dataclass(frozen=True)
class ServerFields:
    """The server type the form asks for, as typed: checked like an inventory row on submit."""

    model: str
    gpus: int
    cores: int
    ram_gib: int
    picked: tuple[ServerType, ...]  # catalog server types the plan may choose among instead
    headroom: int


def server_fields(box: DeltaGenerator) -> ServerFields:
    """The server type's fields, in ``box``; called once per run."""
    server = asked.server or ServerType(
        gpu_model="H100-80GB-SXM", gpus=8, cpu_cores=112, ram_gib=2048
    )
    with box:
        # The model's name needs the width of two fields (H200-141GB-NVL); the figures share a row.
        named, sized = st.columns([2, 1])
        cores_column, ram_column = st.columns(2)
        model = named.selectbox(
            "GPU model",
            options=models,
            index=models.index(server.gpu_model) if server.gpu_model in models else 0,
            key="compare_server_model",
        )
        gpus = sized.number_input(
            "GPUs per server", 1, 16, int(server.gpus), key="compare_server_gpus"
        )
        cores = cores_column.number_input(
            "Cores per server", 1, 1024, int(server.cpu_cores), key="compare_server_cores"
        )
        ram = ram_column.number_input(
            "RAM per server [GiB]",
            16,
            16384,
            int(server.ram_gib),
            step=64,
            key="compare_server_ram",
        )
        offered = planning.server_types(inputs.own_gpus)
        by_label = {t.label: t for t in offered}
        picked = st.multiselect(
            "Or let the plan choose among the catalog's server types",
            options=list(by_label),
            default=[t.label for t in asked.catalog_servers if t.label in by_label],
            help="Typical configurations from data/catalog/servers.csv; the recommended plan "
            "may buy a mix of them. Their notes say which figures are guesses.",
            key="compare_catalog_servers",
        )
        headroom = st.number_input(
            "Host failures each cluster tolerates (N+k)",
            min_value=0,
            max_value=MAX_HEADROOM,
            value=asked.headroom,
            help="When sizing: the k largest hosts of each cluster (per GPU model) stay idle "
            "for failover and each new cluster gets k more servers, so any k hosts of a cluster "
            "can fail and their GPUs restart on the others (checked host by host).",
            key="compare_headroom",
        )
    return ServerFields(
        str(model),
        int(gpus),
        int(cores),
        int(ram),
        tuple(by_label[label] for label in picked),
        int(headroom),
    )


with st.form("compare_question_form"):
    kind_col, server_col = st.columns([1, 2])
    kind = kind_col.radio(
        "Question",
        options=list(session.QuestionKind),
        index=list(session.QuestionKind).index(asked.kind),
        format_func={
            session.QuestionKind.FIT: "Fit the mix to my inventory",
            session.QuestionKind.SIZE: "Size a new cluster",
            session.QuestionKind.ADD: "Add to my inventory",
        }.__getitem__,
        help="Add to my inventory keeps every host you own as it is and sizes only the servers "
        "to buy on top of it, so that everything any sharing method can serve is served.",
        key="compare_question",
    )
    server_box = server_col.expander(
        "Server type to size with", expanded=kind is not session.QuestionKind.FIT
    )
    submitted = st.form_submit_button(
        "Plan", key="compare_plan", type="primary", icon=":material/play_arrow:"
    )


# The server type's fields come once the first plans are on screen (or when the page stops
# before them): a cold browser loads each widget's code on first use, the figures' first.
@cache
def typed_server() -> ServerFields:
    """The server type's fields, drawn in the form's expander once per run."""
    return server_fields(server_box)


if submitted:
    fields = typed_server()
    chosen = session.QuestionKind(kind or session.QuestionKind.FIT)
    try:
        # The same rules as an inventory row: 6 A16 GPUs in a server are refused here too.
        sized = server_type(
            fields.model,
            str(fields.gpus),
            str(fields.cores),
            str(fields.ram_gib),
            cat,
            source="Server type",
            columns=SERVER_FIELDS,
        )
    except InputError as error:
        st.error(
            "This server type cannot be used; the plan below is unchanged.", icon=":material/error:"
        )
        planning.show_problems(error.problems)
    else:
        sizing = chosen is not session.QuestionKind.FIT
        session.commit_question(
            session.Question(
                kind=chosen,
                server=sized if sizing else None,
                catalog_servers=fields.picked if sizing else (),
                headroom=fields.headroom if sizing else 0,
            )
        )

try:
    built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the scenario")
    components.stop_if_empty(built, need_inventory=asked.kind is session.QuestionKind.FIT)
    skipped = skipped_summary((*built.inventory_problems, *built.workload_problems))
    if skipped is not None:
        st.warning(
            f"{skipped}: the plan leaves them out. The Inventory and Workloads pages list each "
            "with its fix, and so does the workbook's Input problems sheet.",
            icon=":material/warning:",
        )
    # The recommended plan leads the page, but it is solved last: the single methods' cards below
    # show first, since the mix takes several seconds more.
    recommended_slot = st.container()
    st.subheader("Every plan side by side")
    nodes, limit = DEFAULT_LIMITS.max_nodes, inputs.assumptions.time_limit_s
    st.caption(
        f"Exact solves stop at a work limit sized to each model (at most {nodes:,} search nodes), "
        f"with a {limit:g} s backstop; the Solve row below says which plans are proven optimal."
    )
    plan = components.plan_with_headline(
        inputs, asked, mixing_slot=recommended_slot, then=typed_server
    )
finally:
    typed_server()
# Altair, slow to import on a cold server, is loaded once the headline is on screen.
from ui import charts  # noqa: E402

comparison = planning.guarded(lambda: comparison_frame(plan), doing="compare the methods")
if plan.recommended is not None:
    with recommended_slot:
        st.subheader("Recommended plan")
        components.recommended_section(plan.recommended)
        purchase = plan.recommended.purchase_facts()
        if purchase:
            st.markdown("**What to buy**")
            components.table(
                pd.DataFrame(purchase, columns=["figure", "value"]),
                key="compare_purchase",
                max_rows=None,
            )
        served = tables.methods_by_class(plan.recommended)
        # An explicit height: with "content" the bars of many classes squeeze into each other.
        st.altair_chart(
            charts.methods_by_class_chart(served),
            width="stretch",
            height=charts.methods_by_class_height_px(served),
            key="compare_methods_by_class_chart",
        )

st.subheader("Key figures")
# Width of the key figures' name column [px]: 'Cost per placed instance' and 'GPUs used /
# lower bound' in full.
KEY_FIGURE_NAME_PX = 170
# Width of a plan's column of key figures [px]: 'heuristic · 4.3 s', '$1.22M /yr' in full.
KEY_FIGURE_PX = 130
key_figures = tables.key_figures(plan, comparison).set_index("figure")
# Widths set, not measured: the grid sizes a column by its first rows only, which cut the last
# rows' figure names ('Cost per placed instan…') and solve times at 1,280 px. The plans come in
# two tables of at most five columns (820 px at 1,280 px), so none scrolls sideways.
figure_column = st.column_config.TextColumn("figure", width=KEY_FIGURE_NAME_PX, pinned=True)
# Each table keyed by the methods it shows, whichever tables the plan has.
KEY_FIGURE_TABLES = {tables.VMS: "compare_key_figures", tables.PODS: "compare_key_figures_pods"}
for group, labels in tables.key_figure_groups(plan):
    st.markdown(f"**{group}**")
    components.table(
        key_figures[list(labels)].reset_index(),
        key=KEY_FIGURE_TABLES[group],
        max_rows=None,
        column_config={
            "figure": figure_column,
            **{
                label: st.column_config.TextColumn(
                    tables.short_plan_label(label, group), width=KEY_FIGURE_PX, help=label
                )
                for label in labels
            },
        },
    )
# A list, not a table: a grid row is one line high and would cut the longer definitions.
with (
    st.expander("What each figure means", icon=":material/help:"),
    st.container(key="compare_key_figure_definitions"),
):
    st.markdown(
        "\n".join(
            f"- **{figure}**: {meaning}" for figure, meaning in key_figures["definition"].items()
        )
    )
components.feasibility_notice(plan)

# An explicit height: with "content" the charts shrink to a sliver inside narrow columns. The
# cost chart takes the page's width: in a third of it the plans' names would leave its bars a
# quarter and crowd each other.
chart_height = charts.comparison_chart_height_px(len(plan.results))
st.altair_chart(
    charts.cost_chart(tables.cost_long(plan)),
    width="stretch",
    height=chart_height,
    key="compare_cost_chart",
)
chart_cols = st.columns(2)
chart_cols[0].altair_chart(
    charts.utilisation_chart(tables.utilisation_long(plan)),
    width="stretch",
    height=chart_height,
    key="compare_utilisation_chart",
)
chart_cols[1].altair_chart(
    charts.gpus_vs_bound_chart(tables.bound_frame(plan)),
    width="stretch",
    height=chart_height,
    key="compare_bound_chart",
)

st.subheader("Take the plan with you")
st.caption(
    "The workbook opens on a one-page overview with charts, then holds a summary, one "
    "placement sheet per method, what was not placed and why, "
    "costs, the inputs and every assumption, so it documents the plan on its own."
)
exports = st.container(horizontal=True)
# Read now: the workbook is built on click, outside this run, with the harvest the page showed.
harvested = session.harvest_choice()
exports.download_button(
    "Download the plan workbook",
    data=lambda: planning.workbook(inputs, asked, harvested),
    file_name="gpu-share-plan.xlsx",
    mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    key="compare_download_workbook",
    icon=":material/table_view:",
    type="primary",
    on_click="ignore",
)
exports.download_button(
    "Key figures as CSV",
    data=csv_bytes(comparison),
    file_name="gpu-share-comparison.csv",
    mime="text/csv",
    key="compare_download_csv",
    icon=":material/download:",
    on_click="ignore",
)
