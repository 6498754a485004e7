"""Inside a plan: one method's placement map (hosts × GPUs), what was not placed and why."""

from __future__ import annotations

import streamlit as st

from planner.output.cells import csv_bytes
from planner.output.report import map_notes, not_placed_frame, placement_frame
from ui import charts, components, planning, session, tables
from ui import format as fmt

st.title("Inside a plan")
st.caption(
    "Where every instance lands under one sharing method: each bar is a GPU's memory, each block "
    "a slice, profile or share with the workload that holds it. Hover a block for details."
)

inputs = session.scenario_inputs()
asked = session.question()
built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the scenario")
components.stop_if_empty(built, need_inventory=asked.kind is session.QuestionKind.FIT)
with st.spinner("Packing every method…"):
    plan = planning.guarded(
        lambda: planning.scenario_plan(inputs, asked), doing="plan the scenario"
    )

labels = {result.name: result.label for result in plan.results}
method = st.segmented_control(
    "Plan",
    options=list(labels),
    format_func=labels.__getitem__,
    default=next(iter(labels)),
    key="inside_method",
    required=True,
)
result = next(r for r in plan.results if r.name == method)
placements = planning.guarded(lambda: placement_frame(result), doing="list the placements")
not_placed = planning.guarded(lambda: not_placed_frame(result), doing="list what was not placed")

components.method_summary(result)

hosts_in_use = sorted(set(placements["host"])) if not placements.empty else []
clusters = {host.name: host.cluster for host in result.plan.hosts or built.scenario.inventory.hosts}
cluster_names = sorted({clusters.get(h, "") for h in hosts_in_use})

st.subheader("Placement map")
if not hosts_in_use:
    st.info(
        "This method placed nothing. The list below says why each instance was left out.",
        icon=":material/info:",
    )
else:
    picked = st.selectbox(
        "Cluster",
        options=cluster_names,
        key="inside_cluster",
        help="One cluster at a time keeps the map readable; the tables below list everything.",
    )
    shown = placements[placements["host"].map(clusters).fillna("") == picked]
    layout = charts.placement_layout(
        shown,
        {name: model.memory_gib for name, model in built.scenario.catalog.gpus.items()},
        {name: model.mig_memory_slices for name, model in built.scenario.catalog.gpus.items()},
        with_role=result.plan.method is None,
    )
    for note in map_notes(result.plan):
        st.caption(note)
    # An explicit height: with "content" the map shrinks and GPU labels drop out.
    st.altair_chart(
        charts.placement_chart(
            layout, charts.workload_colours(w.name for w in built.scenario.workloads)
        ),
        width="stretch",
        height=charts.placement_chart_height_px(layout),
        key="inside_placement_chart",
    )

st.subheader(f"Not placed ({len(not_placed)})")
if not_placed.empty:
    st.success("Every instance was placed under this method.", icon=":material/check_circle:")
else:
    st.caption("Counted per workload and reason; the full list is below.")
    components.table(tables.not_placed_summary(not_placed), key="inside_not_placed")
    with st.expander(f"Every instance not placed ({fmt.counted(len(not_placed), 'row')})"):
        components.table(not_placed, key="inside_not_placed_all", max_rows=None)

with st.expander(f"All placements ({fmt.counted(len(placements), 'row')})"):
    components.table(placements, key="inside_placements", max_rows=None)

slug = str(method)
downloads = st.container(horizontal=True)
downloads.download_button(
    "Placements as CSV",
    data=csv_bytes(placements),
    file_name=f"placements-{slug}.csv",
    mime="text/csv",
    key="inside_download_placements",
    icon=":material/download:",
    on_click="ignore",
)
downloads.download_button(
    "Not placed as CSV",
    data=csv_bytes(not_placed),
    file_name=f"not-placed-{slug}.csv",
    mime="text/csv",
    key="inside_download_not_placed",
    icon=":material/download:",
    on_click="ignore",
)
