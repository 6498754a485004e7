"""Inventory page: upload the hosts you own (or keep the sample); see what loaded and what not."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from planner.inputs.catalog import own_gpus_template
from ui import components, importing, planning, session
from ui import format as fmt

# A page script must not hold bare strings (Streamlit would print them), so these are comments.
# file_id of the last own-GPU models upload this page acted on, so it is committed once:
_SEEN_OWN_UPLOAD = "_inventory_seen_own_gpus_upload"
_OWN_UPLOAD = "own_gpus_upload"

st.title("Inventory")
st.caption(
    "The GPU servers you own: one CSV row per host or group of identical hosts, or the output "
    "of the tools you already run (kubectl, nvidia-smi, RVTools). Rows with problems are "
    "skipped and listed with the fix; the other rows are used."
)

inputs = session.scenario_inputs()
upload_col, actions_col = st.columns([3, 1], vertical_alignment="top")
with upload_col:
    importing.import_panel("inventory", key="inventory_upload")
actions_col.download_button(
    "Download the template",
    data=(session.TEMPLATE_DIR / "inventory_template.csv").read_bytes,
    file_name="inventory_template.csv",
    mime="text/csv",
    key="inventory_template",
    icon=":material/download:",
    on_click="ignore",
    width="stretch",
)
# A short label: "Use the sample inventory" does not fit this quarter-width column at 1,280 px.
if actions_col.button(
    "Use the sample",
    key="inventory_use_sample",
    help="Plan with the bundled sample inventory again.",
    icon=":material/restart_alt:",
    disabled=inputs.inventory.is_sample,
    width="stretch",
):
    session.commit_inventory(session.sample_inputs().inventory)

# Your own GPU models extend the catalog every page plans with. The section stays open while a
# file is in use or waiting in the uploader, so its status or its problems are never hidden.
with st.expander(
    "Add your own GPU models",
    expanded=inputs.own_gpus is not None or st.session_state.get(_OWN_UPLOAD) is not None,
    icon=":material/add_circle:",
    key="inventory_own_gpus",
):
    st.caption(
        "A GPU the catalog does not know (a new SKU, a lab variant) can be added with a CSV "
        "with the columns of the catalog's gpus.csv. Required: name, memory_gib [GiB], tdp_w [W], "
        "fp16_tflops [TFLOPS] and price_usd [USD per GPU]. To give your model vGPU and MIG "
        "profiles, name a catalog model with the same memory in profiles_like; without it your "
        "model has none, so vgpu_capable and mig_capable must be no. Inventories and workloads "
        "can then name your model."
    )
    own_upload_col, own_actions_col = st.columns([3, 1], vertical_alignment="center")
    own_uploaded = own_upload_col.file_uploader(
        "Upload your GPU models (CSV)", type=["csv"], key=_OWN_UPLOAD, max_upload_size=5
    )
    own_actions_col.download_button(
        "Download the template",
        data=own_gpus_template().encode(),
        file_name="my_gpus_template.csv",
        mime="text/csv",
        key="own_gpus_template",
        icon=":material/download:",
        on_click="ignore",
        width="stretch",
    )
    if own_actions_col.button(
        "Drop my GPU models",
        key="own_gpus_drop",
        icon=":material/remove_circle_outline:",
        disabled=inputs.own_gpus is None,
        width="stretch",
    ):
        session.commit_own_gpus(None)

    # The catalog is all or nothing: an unusable file leaves the catalog in use as it was.
    dropped = components.accept_upload(
        own_uploaded,
        seen_key=_SEEN_OWN_UPLOAD,
        in_use=inputs.own_gpus,
        in_use_name=(
            "the bundled catalog"
            if inputs.own_gpus is None
            else f"the catalog with {inputs.own_gpus.name}"
        ),
        problems=lambda file: planning.guarded(
            lambda: planning.own_gpus_problems(file), doing="read your GPU models"
        ),
        commit=session.commit_own_gpus,
    )
    if dropped is not None and st.button(
        f"Use {fmt.markdown_literal(dropped.name)} again",
        key="own_gpus_use_again",
        icon=":material/replay:",
        help="The file is in the uploader but not in use since you dropped it.",
    ):
        session.commit_own_gpus(dropped)

    own_gpus = inputs.own_gpus
    if own_gpus is not None:
        own_in_use = planning.guarded(
            partial(planning.own_models, own_gpus), doing="read your GPU models"
        )
        st.success(
            f"In use: {fmt.markdown_literal(own_gpus.name)} adds "
            f"{fmt.counted(len(own_in_use), 'model')} to the catalog: "
            f"{fmt.markdown_literal(', '.join(own_in_use))}. Every page plans with "
            f"{'it' if len(own_in_use) == 1 else 'them'}.",
            icon=":material/check_circle:",
        )

built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the inventory")
inventory = built.scenario.inventory
cat = built.scenario.catalog
source = "the bundled sample" if inputs.inventory.is_sample else inputs.inventory.name
st.subheader(f"In use: {fmt.markdown_literal(source)}")
components.problems_notice(built.inventory_problems, what=inputs.inventory.name)
components.reading_notes(
    built.inventory_notes, what=inputs.inventory.name, key="inventory_reading_notes"
)

if not inventory.hosts:
    st.warning(
        "No host could be read from this file. Fix the rows above or download the template, "
        "fill it in and upload it.",
        icon=":material/warning:",
    )
    st.stop()

memory_gib = sum(h.gpus * cat.gpus[h.gpu_model].memory_gib for h in inventory.hosts)
clusters = sorted({h.cluster for h in inventory.hosts})
mig_hosts = sum(1 for h in inventory.hosts if h.mig_enabled)
figures = st.columns(5)
figures[0].metric("Hosts", fmt.count(len(inventory.hosts)), border=True)
figures[1].metric("GPUs", fmt.count(inventory.gpu_count), border=True)
figures[2].metric("GPU memory", fmt.gib(memory_gib), border=True)
figures[3].metric("Clusters", fmt.count(len(clusters)), border=True)
figures[4].metric("Hosts with MIG on", fmt.count(mig_hosts), border=True)

by_model = pd.DataFrame(
    [
        {
            "GPU model": model,
            "hosts": sum(1 for h in inventory.hosts if h.gpu_model == model),
            "GPUs": gpus,
            "memory per GPU [GiB]": cat.gpus[model].memory_gib,
            "memory [GiB]": gpus * cat.gpus[model].memory_gib,
            "vGPU": cat.gpus[model].vgpu_capable,
            "MIG capable": cat.gpus[model].mig_capable,
        }
        for model, gpus in inventory.gpus_by_model().items()
    ]
)
by_cluster = pd.DataFrame(
    [
        {
            "cluster": cluster,
            "hosts": len(members),
            "GPU models": ", ".join(sorted({h.gpu_model for h in members})),
            "GPUs": sum(h.gpus for h in members),
            "cores": sum(h.cpu_cores for h in members),
            "RAM [GiB]": sum(h.ram_gib for h in members),
            "MIG on (hosts)": sum(1 for h in members if h.mig_enabled),
            "RDMA (hosts)": sum(1 for h in members if h.rdma),
        }
        for cluster in clusters
        for members in [[h for h in inventory.hosts if h.cluster == cluster]]
    ]
)
left, right = st.columns(2)
left.markdown("**GPUs by model**")
with left:
    components.table(by_model, key="inventory_by_model")
right.markdown("**Clusters**")
with right:
    components.table(by_cluster, key="inventory_by_cluster")
if inputs.mig_clusters is not None:
    st.info(
        "MIG is switched on or off per cluster on the Assumptions page, so the MIG column may "
        "differ from the file.",
        icon=":material/tune:",
    )

st.markdown("**Hosts**")
components.table(planning.inventory_table(inventory), key="inventory_hosts")
