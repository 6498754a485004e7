"""Inventory page: upload the hosts you own (or keep the sample); see what loaded and what not."""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from planner.catalog import own_gpus_template
from planner.problems import InputError
from ui import components, planning, session
from ui import format as fmt

# A page script must not hold bare strings (Streamlit would print them), so these are comments.
# file_id of the last upload this page acted on, so a file is committed once, on upload:
_SEEN_UPLOAD = "_inventory_seen_upload"
# The same for the own-GPU models upload:
_SEEN_OWN_UPLOAD = "_inventory_seen_own_gpus_upload"
_OWN_UPLOAD = "own_gpus_upload"

st.title("Inventory")
st.caption(
    "The GPU servers you own: one CSV row per host or group of identical hosts. "
    "Rows with problems are skipped and listed with the fix; the other rows are used."
)

inputs = session.scenario_inputs()
upload_col, actions_col = st.columns([3, 1], vertical_alignment="center")
uploaded = upload_col.file_uploader(
    "Upload an inventory CSV", type=["csv"], key="inventory_upload", max_upload_size=20
)
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
if actions_col.button(
    "Use the sample inventory",
    key="inventory_use_sample",
    icon=":material/restart_alt:",
    disabled=inputs.inventory.is_sample,
    width="stretch",
):
    session.commit_inventory(session.sample_inputs().inventory)

if uploaded is not None:
    file = session.InputFile(name=uploaded.name, content=uploaded.getvalue())
    if uploaded.file_id != st.session_state.get(_SEEN_UPLOAD):
        # A new upload is the user's intent to plan with it; an unusable one is reported below.
        st.session_state[_SEEN_UPLOAD] = uploaded.file_id
        try:
            planning.load_inventory_file(file, inputs.own_gpus)
        except InputError:
            pass
        else:
            session.commit_inventory(file)
    if file != inputs.inventory:
        try:
            planning.load_inventory_file(file, inputs.own_gpus)
        except InputError as error:
            st.error(
                f"{file.name} cannot be used, so the planner still uses {inputs.inventory.name}. "
                "Fix the problems below and upload the file again.",
                icon=":material/error:",
            )
            st.dataframe(planning.problems_frame(error.problems), hide_index=True, width="stretch")

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

    if own_uploaded is not None:
        own_file = session.InputFile(name=own_uploaded.name, content=own_uploaded.getvalue())
        if own_uploaded.file_id != st.session_state.get(_SEEN_OWN_UPLOAD):
            # A new upload is the intent to plan with it; an unusable one is reported below and
            # the catalog in use stays as it was (the catalog is all or nothing).
            st.session_state[_SEEN_OWN_UPLOAD] = own_uploaded.file_id
            if not planning.guarded(
                lambda: planning.own_gpus_problems(own_file), doing="read your GPU models"
            ):
                session.commit_own_gpus(own_file)
        if own_file != inputs.own_gpus:
            own_problems = planning.guarded(
                lambda: planning.own_gpus_problems(own_file), doing="read your GPU models"
            )
            if own_problems:
                in_use = (
                    "the bundled catalog"
                    if inputs.own_gpus is None
                    else f"the catalog with {inputs.own_gpus.name}"
                )
                st.error(
                    f"{own_file.name} cannot be used, so the planner still uses {in_use}. "
                    "Fix the problems below and upload the file again.",
                    icon=":material/error:",
                )
                st.dataframe(
                    planning.problems_frame(own_problems), hide_index=True, width="stretch"
                )
            elif st.button(
                f"Use {own_file.name} again",
                key="own_gpus_use_again",
                icon=":material/replay:",
                help="The file is in the uploader but not in use since you dropped it.",
            ):
                session.commit_own_gpus(own_file)

    own_gpus = inputs.own_gpus
    if own_gpus is not None:
        own_in_use = planning.guarded(
            partial(planning.own_models, own_gpus), doing="read your GPU models"
        )
        st.success(
            f"In use: {own_gpus.name} adds {fmt.count(len(own_in_use))} model(s) to the "
            f"catalog: {', '.join(own_in_use)}. Every page plans with them.",
            icon=":material/check_circle:",
        )

built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the inventory")
inventory = built.scenario.inventory
cat = built.scenario.catalog
source = "the bundled sample" if inputs.inventory.is_sample else inputs.inventory.name
st.subheader(f"In use: {source}")
components.problems_notice(built.inventory_problems, what=inputs.inventory.name)

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
