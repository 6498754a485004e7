"""Workloads page: edit the workload mix in place, start from a preset, or upload a workload CSV."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from planner.inputs.presets import PRESETS
from ui import components, importing, planning, session, trace, workload_editor
from ui import format as fmt

# A page script must not hold bare strings (Streamlit would print them), so these are comments.
# The file name problems in the in-place editor are reported against:
EDITED_NAME = "edited workload table"
# The table as the user left it, with the mix in use it edits: (mix in use, edited table).
DRAFT_KEY = "_workloads_draft"
# The table the editor started from on this visit, with the mix in use then.
START_KEY = "_workloads_editor_start"

_KINDS = ["training", "inference", "notebook", "batch", "vdi"]
_YES_NO = ["yes", "no"]
COLUMN_CONFIG = {
    "name": st.column_config.TextColumn("name", help="Unique name of the class", required=True),
    "kind": st.column_config.SelectboxColumn("kind", options=_KINDS, required=True),
    "instances": st.column_config.NumberColumn(
        "instances", help="Identical VMs or pods in the class (a whole number)", min_value=0
    ),
    "gpus": st.column_config.NumberColumn(
        "gpus", help="GPUs per instance: a fraction (0.25) or whole GPUs (1, 2, 8)", min_value=0
    ),
    "memory_gib": st.column_config.NumberColumn(
        "memory [GiB]", help="GPU memory per instance, over all its GPUs [GiB]", min_value=0
    ),
    "busy_fraction": st.column_config.NumberColumn(
        "busy", help="Share of its active time the GPU is busy [0-1]", min_value=0, max_value=1
    ),
    "active_hours": st.column_config.TextColumn(
        "active hours", help="Hours per day (8, 2.5) or a schedule (9-17, 22-6, 24x7)"
    ),
    "days_per_week": st.column_config.NumberColumn(
        "days/week", help="Days per week the schedule applies (1-7)", min_value=1, max_value=7
    ),
    "vcpus": st.column_config.NumberColumn("vCPUs", min_value=0),
    "ram_gib": st.column_config.NumberColumn(
        "RAM [GiB]", help="Host RAM per instance", min_value=0
    ),
    "live_migration": st.column_config.SelectboxColumn(
        "vMotion", help="Must be live-migratable (rules out passthrough)", options=_YES_NO
    ),
    "isolation": st.column_config.SelectboxColumn(
        "isolation", help="Needs hardware isolation (passthrough or MIG only)", options=_YES_NO
    ),
    "latency_tolerant": st.column_config.SelectboxColumn(
        "remote OK", help="Tolerates GPU access over the network (remote pool)", options=_YES_NO
    ),
    "priority": st.column_config.NumberColumn(
        "priority", help="1 is placed first when capacity is short (a whole number)", min_value=1
    ),
    "gpu_models": st.column_config.TextColumn(
        "GPU models", help="Allowed catalog models, separated by |; empty means any"
    ),
}

st.title("Workloads")
st.caption(
    "The workload mix: one row per class of identical VMs or pods. Edit the table in place and "
    "press **Use this mix**, start from a preset, or import files."
)

inputs = session.scenario_inputs()

preset_col, upload_col = st.columns(2)
with preset_col.form("workloads_preset_form", border=True):
    preset_key = st.selectbox(
        "Start from a typical mix",
        options=list(PRESETS),
        format_func=lambda key: PRESETS[key].title,
        key="workloads_preset",
        help="\n\n".join(f"**{p.title}**: {p.description}" for p in PRESETS.values()),
    )
    if st.form_submit_button(
        "Load this preset", key="workloads_load_preset", icon=":material/bolt:"
    ):
        preset = PRESETS[preset_key]
        session.commit_workloads(
            session.InputFile(name=f"preset {preset.title}", content=preset.csv.encode())
        )
with upload_col:
    st.markdown(
        "Import a workload CSV, `kubectl get pods -A -o json` output (GPU pods grouped into "
        "classes by owner) or DCGM exporter metrics (measured busy fraction and memory) below."
    )
    buttons = st.container(horizontal=True)
    buttons.download_button(
        "Download the template",
        data=(session.TEMPLATE_DIR / "workloads_template.csv").read_bytes,
        file_name="workloads_template.csv",
        mime="text/csv",
        key="workloads_template",
        icon=":material/download:",
        on_click="ignore",
    )
    if buttons.button(
        "Use the sample mix",
        key="workloads_use_sample",
        icon=":material/restart_alt:",
        disabled=inputs.workloads.is_sample,
    ):
        session.commit_workloads(session.sample_inputs().workloads)

importing.import_panel("workloads", key="workloads_upload")

built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the workload mix")
workloads = built.scenario.workloads
cpu_only = built.scenario.cpu_only
# The catalog the mix is planned with: a trace node list in use adds its GPU models to it.
cat = built.scenario.catalog

st.subheader(f"In use: {fmt.markdown_literal(inputs.workloads.name)}")
# A trace pod list is used as its file gives it: its classes are shown, not edited, since the
# edited table would be a planner CSV without the pods that use no GPU.
pod_list = trace.role_of(inputs.workloads) == "workloads"
pods_context = trace.pods_without_nodes(inputs.inventory) if pod_list else None
if pods_context is not None:
    st.warning(pods_context, icon=":material/link:")
components.reading_notes(
    built.workload_notes, what=inputs.workloads.name, key="workloads_reading_notes"
)
in_use = workload_editor.editor_table(workloads)
if pod_list:
    st.caption(
        f"{fmt.markdown_literal(inputs.workloads.name)} is used as the file gives it: to change "
        "the mix, load a preset, upload another file, or fix the file and upload it again."
    )
    components.table(
        planning.workload_table((*workloads, *cpu_only)),
        key="workloads_pod_classes",
        column_config=COLUMN_CONFIG,
    )
else:
    # Not in a form: an edit reruns only this page (cached reads, no planning), and the mix
    # reaches the planner only when the user presses "Use this mix". The editor forgets its
    # edits when the page is left, so they are kept as a draft of the mix in use; on coming back
    # the editor starts from that draft.
    draft = st.session_state.get(DRAFT_KEY)
    if draft is not None and not draft[0].equals(in_use):
        draft = None  # a draft of a mix no longer in use
    start = st.session_state.get(START_KEY)
    if "workloads_editor" not in st.session_state or start is None or not start[0].equals(in_use):
        start = (in_use, in_use if draft is None else draft[1])
        st.session_state[START_KEY] = start
    edited = pd.DataFrame(
        st.data_editor(
            start[1],
            key="workloads_editor",
            num_rows="dynamic",
            hide_index=True,
            width="stretch",
            column_config=COLUMN_CONFIG,
            # Every row visible up to 20 classes (one more for adding a row), then the grid scrolls.
            height=(min(len(in_use), 20) + 2) * components.ROW_PX + 3,
        )
    )
    st.session_state[DRAFT_KEY] = (in_use, edited)
    applied = st.button(
        "Use this mix", key="workloads_apply", type="primary", icon=":material/check:"
    )
    if not applied and not edited.equals(in_use):
        st.info(
            "The table has changes the plan does not use yet: press **Use this mix** to plan "
            "with them. They stay in the table if you leave the page.",
            icon=":material/edit_note:",
        )
    if applied:
        # The edited table goes through the rules of a workload file; it is used only whole.
        labels = {key: str(config["label"]) for key, config in COLUMN_CONFIG.items()}
        checked = workload_editor.check_edits(edited, cat, labels)
        if checked.problems:
            with st.container(key="workloads_editor_problems"):
                st.error(
                    f"{fmt.counted(len(checked.problems), 'cell')} "
                    f"{'needs' if len(checked.problems) == 1 else 'need'} a change, so the planner "
                    "keeps the mix "
                    "in use and nothing was dropped: your rows stay in the table above as you "
                    "typed them. Change the marked cells, then press **Use this mix** again.\n\n"
                    + "\n".join(
                        f"- {fmt.markdown_literal(p.sentence())}" for p in checked.problems
                    ),
                    icon=":material/error:",
                )
                if any(p.row is not None for p in checked.problems):
                    st.dataframe(workload_editor.marked_rows(checked, labels), width="stretch")
        else:
            session.commit_workloads(session.InputFile(name=EDITED_NAME, content=checked.csv()))

components.problems_notice(built.workload_problems, what=inputs.workloads.name)

if not workloads:
    st.warning(
        "The mix has no usable workload class: "
        + (
            "none of its pods asks for a GPU. Upload a pod list with GPU pods, or load a preset."
            if pod_list
            else "add rows above and press Use this mix, or load a preset."
        ),
        icon=":material/warning:",
    )
    st.stop()

instances = sum(w.instances for w in workloads)
gpu_demand = sum(w.instances * w.gpus for w in workloads)
memory_demand = sum(w.instances * w.memory_gib for w in workloads)
without_gpu = (
    f" Not counted: {trace.without_gpu(cpu_only)}, planned on node cores and RAM."
    if cpu_only
    else ""
)
figures = st.columns(4)
figures[0].metric(
    "Workload classes",
    fmt.count(len(workloads)),
    border=True,
    help=f"Classes of identical instances that use a GPU.{without_gpu}",
)
figures[1].metric(
    "Instances",
    fmt.count(instances),
    border=True,
    help=f"Instances of those classes.{without_gpu}",
)
figures[2].metric(
    "GPUs requested", f"{gpu_demand:,.1f}", border=True, help="Σ instances × GPUs per instance"
)
figures[3].metric("GPU memory requested", fmt.gib(memory_demand), border=True)
