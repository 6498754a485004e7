"""Assumptions page: method options, network, prices and solver limits, applied on submit."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from planner.assumptions import (
    MAX_MPS_CLIENTS,
    Assumptions,
    MigStrategy,
    Network,
    VgpuMode,
    VgpuScheduler,
    VsphereVersion,
)
from planner.measure.performance import check_performance_constants, constants_frame
from ui import components, planning, session
from ui import format as fmt

_MODE_LABELS = {
    VgpuMode.EQUAL_SIZE: "Equal size per GPU (NVIDIA default)",
    VgpuMode.MIXED_SIZE: "Mixed sizes per GPU (vGPU 17+, vSphere 8.0 U3+)",
    VgpuMode.HOST_EQUAL: "One partial size per host (VMware 2020 guidance, conservative)",
}
_SCHEDULER_LABELS = {
    VgpuScheduler.BEST_EFFORT: "Best effort (idle time goes to busy vGPUs)",
    VgpuScheduler.EQUAL_SHARE: "Equal share",
    VgpuScheduler.FIXED_SHARE: "Fixed share",
}
_MIG_STRATEGY_LABELS = {
    MigStrategy.MIXED: "Mixed (any MIG layout per GPU)",
    MigStrategy.SINGLE: "Single (one MIG profile per node)",
}
_VSPHERE_LABELS = {
    VsphereVersion.V7: "vSphere 7 (≤ 4 vGPUs per VM, full profiles only)",
    VsphereVersion.V8: "vSphere 8 (≤ 8 vGPUs per VM, any C-series)",
}

st.title("Assumptions")
st.caption(
    "Everything a plan rests on that is not in your files. Each has a default; figures marked "
    "*default* are guesses you should replace with your own. Changes apply when you press "
    "**Apply assumptions**."
)

inputs = session.scenario_inputs()
built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the scenario")
cat = built.scenario.catalog
inventory = built.scenario.inventory
current = inputs.assumptions
defaults = Assumptions()

mig_capable_clusters = sorted(
    {h.cluster for h in inventory.hosts if cat.gpus[h.gpu_model].mig_capable}
)
mig_on_clusters = sorted(
    {h.cluster for h in inventory.hosts if h.mig_enabled and cat.gpus[h.gpu_model].mig_capable}
)
models_in_use = list(inventory.gpus_by_model())
prices = pd.DataFrame(
    [
        {
            "GPU model": model.name,
            "in inventory": model.name in models_in_use,
            "catalog price [USD]": model.price_usd,
            "your price [USD]": float(current.gpu_price_usd.get(model.name, model.price_usd)),
            "catalog price is": "a default, edit it" if model.price_is_default else "sourced",
        }
        for model in sorted(cat.gpus.values(), key=lambda m: (m.name not in models_in_use, m.name))
    ]
)

in_use = constants_frame(current)
performance = pd.DataFrame(
    {
        "constant": in_use["constant"],
        "figure is": ["a guess, edit it" if g else "sourced" for g in in_use["is_guess"]],
        "default": in_use["default"],
        "your value": in_use["value"],
        "unit": in_use["unit"],
        "meaning": in_use["meaning"],
        "source": in_use["source"],
    }
)

with st.form("assumptions_form"):
    vgpu_col, mig_col, pool_col = st.columns(3)
    with vgpu_col:
        st.markdown("**vGPU (time-sliced)**")
        vgpu_mode = st.selectbox(
            "Profile sizes",
            options=list(VgpuMode),
            index=list(VgpuMode).index(current.vgpu_mode),
            format_func=_MODE_LABELS.__getitem__,
            key="assumptions_vgpu_mode",
        )
        vsphere = st.selectbox(
            "vSphere version",
            options=list(VsphereVersion),
            index=list(VsphereVersion).index(current.vsphere_version),
            format_func=_VSPHERE_LABELS.__getitem__,
            key="assumptions_vsphere",
        )
        scheduler = st.selectbox(
            "vGPU scheduler",
            options=list(VgpuScheduler),
            index=list(VgpuScheduler).index(current.vgpu_scheduler),
            format_func=_SCHEDULER_LABELS.__getitem__,
            key="assumptions_vgpu_scheduler",
        )
        licence = st.number_input(
            "AI Enterprise licence [USD per GPU per year]",
            min_value=0.0,
            max_value=100_000.0,
            value=float(current.licence_usd_per_gpu_year),
            step=100.0,
            key="assumptions_licence",
            help=f"Public list price {fmt.usd(defaults.licence_usd_per_gpu_year)}; edit it.",
        )
    with mig_col:
        st.markdown("**MIG**")
        mig_clusters = st.multiselect(
            "Clusters with MIG enabled",
            options=mig_capable_clusters,
            default=mig_on_clusters,
            key="assumptions_mig_clusters",
            help="Only clusters of MIG-capable GPUs are listed. Changing MIG mode on Ampere under "
            "ESXi needs a host reboot.",
            placeholder="No cluster has MIG enabled",
        )
        mig_backed = st.checkbox(
            "MIG-backed vGPU (licence per GPU)",
            value=current.mig_backed_vgpu,
            key="assumptions_mig_backed_vgpu",
            help="Under vSphere, MIG instances are handed to VMs as MIG-backed vGPUs, which need "
            "an AI Enterprise licence per GPU.",
        )
        st.markdown("**Solver**")
        time_limit = st.number_input(
            "Time limit per method [s]",
            min_value=0.5,
            max_value=600.0,
            value=float(current.time_limit_s),
            step=1.0,
            key="assumptions_time_limit",
            help="Exact (MILP) solves stop here and return the best plan found so far.",
        )
    with pool_col:
        st.markdown("**Remote pool network**")
        latency = st.number_input(
            "Latency client to GPU server [µs]",
            min_value=0.0,
            max_value=100_000.0,
            value=float(current.network.latency_us),
            step=5.0,
            key="assumptions_latency_us",
            help="VMware recommends at most 50 µs; above it only latency-tolerant work qualifies.",
        )
        bandwidth = st.number_input(
            "Bandwidth per GPU server [Gbit/s]",
            min_value=1.0,
            max_value=3200.0,
            value=float(current.network.bandwidth_gbps),
            step=25.0,
            key="assumptions_bandwidth_gbps",
        )
        rdma = st.checkbox("RDMA / PVRDMA", value=current.network.rdma, key="assumptions_rdma")
        network_usd = st.number_input(
            "Network per GPU server [USD/year] (default)",
            min_value=0.0,
            max_value=1_000_000.0,
            value=float(current.network.usd_per_server_year),
            step=500.0,
            key="assumptions_network_usd",
        )

    st.markdown("**Kubernetes** (NVIDIA device plugin and GPU Operator)")
    k8s_cols = st.columns(4)
    time_slicing_replicas = k8s_cols[0].number_input(
        "Time-slicing replicas per GPU (default)",
        min_value=1,
        max_value=MAX_MPS_CLIENTS,
        value=int(current.time_slicing_replicas),
        step=1,
        key="assumptions_time_slicing_replicas",
        help="Pods one GPU serves under time-slicing; nothing isolates their memory.",
    )
    mps_replicas = k8s_cols[1].number_input(
        "MPS replicas per GPU (default)",
        min_value=1,
        max_value=MAX_MPS_CLIENTS,
        value=int(current.mps_replicas),
        step=1,
        key="assumptions_mps_replicas",
        help="Pods one GPU serves under MPS, each limited to 1/replicas of memory and compute.",
    )
    mig_strategy = k8s_cols[2].selectbox(
        "MIG strategy",
        options=list(MigStrategy),
        index=list(MigStrategy).index(current.kubernetes_mig_strategy),
        format_func=_MIG_STRATEGY_LABELS.__getitem__,
        key="assumptions_mig_strategy",
    )
    k8s_ai_enterprise = k8s_cols[3].checkbox(
        "AI Enterprise licence on Kubernetes",
        value=current.kubernetes_ai_enterprise,
        key="assumptions_k8s_ai_enterprise",
        help="Off: the device plugin and GPU Operator are open source, no licence is charged. "
        "On: the AI Enterprise licence above is charged per GPU in use on Kubernetes nodes.",
    )

    st.markdown("**Costs**")
    cost_cols = st.columns(5)
    power = cost_cols[0].number_input(
        "Power [USD/kWh] (default)",
        min_value=0.0,
        max_value=5.0,
        value=float(current.power_usd_per_kwh),
        step=0.01,
        format="%.3f",
        key="assumptions_power_usd_per_kwh",
    )
    pue = cost_cols[1].number_input(
        "PUE (default)",
        min_value=1.0,
        max_value=3.0,
        value=float(current.pue),
        step=0.05,
        key="assumptions_pue",
        help="Data-centre power usage effectiveness: facility power over IT power.",
    )
    years = cost_cols[2].number_input(
        "Amortisation [years]",
        min_value=1.0,
        max_value=15.0,
        value=float(current.amortisation_years),
        step=1.0,
        key="assumptions_years",
    )
    host_usd = cost_cols[3].number_input(
        "Server without GPUs [USD] (default)",
        min_value=0.0,
        max_value=1_000_000.0,
        value=float(current.host_usd),
        step=1000.0,
        key="assumptions_host_usd",
    )
    idle_share = cost_cols[4].number_input(
        "Idle power [share of TDP] (default)",
        min_value=0.0,
        max_value=1.0,
        value=float(current.idle_power_share),
        step=0.05,
        key="assumptions_idle_power_share",
    )
    st.markdown("**GPU prices** (street-price defaults from the catalog; edit *your price*)")
    edited_prices = st.data_editor(
        prices,
        key="assumptions_prices",
        hide_index=True,
        width="stretch",
        disabled=["GPU model", "in inventory", "catalog price [USD]", "catalog price is"],
        column_config={
            "your price [USD]": st.column_config.NumberColumn(
                min_value=0, max_value=1_000_000, step=100, format="$%d"
            ),
            "catalog price [USD]": st.column_config.NumberColumn(format="$%d"),
        },
    )
    with st.expander("Performance model", expanded=bool(current.performance_constants)):
        st.caption(
            "The constants behind each method's expected slowdown. Rows whose figure is "
            "*a guess* have no public measurement behind them: replace them with your own. "
            "Unless you set it, the pool's contention factor follows the training network "
            "overhead so that VMware's seed slide (three jobs, each ~17 % slower) still holds."
        )
        edited_performance = st.data_editor(
            performance,
            key="assumptions_performance_constants",
            hide_index=True,
            width="stretch",
            disabled=["constant", "figure is", "meaning", "unit", "default", "source"],
            column_config={
                "your value": st.column_config.NumberColumn(min_value=0.0, format="%.4g"),
                "default": st.column_config.NumberColumn(format="%.4g"),
            },
            # Every constant in view without scrolling (header row included).
            height=(len(performance) + 1) * components.ROW_PX + 3,
        )
    buttons = st.container(horizontal=True)
    applied = buttons.form_submit_button(
        "Apply assumptions", key="assumptions_apply", type="primary", icon=":material/check:"
    )
    restored = buttons.form_submit_button(
        "Restore defaults", key="assumptions_restore", icon=":material/restart_alt:"
    )


def _performance_overrides(edited: pd.DataFrame) -> dict[str, float]:
    """Overrides from the edited table: rows whose value differs from the default shown."""
    return {
        str(row["constant"]): float(row["your value"])
        for row in edited.to_dict("records")
        if pd.notna(row["your value"])
        and not math.isclose(float(row["your value"]), float(row["default"]), rel_tol=1e-9)
    }


performance_overrides = _performance_overrides(pd.DataFrame(edited_performance))
try:
    check_performance_constants(performance_overrides)
except ValueError as error:
    performance_problem: str | None = str(error)
else:
    performance_problem = None

if applied and performance_problem is not None:
    st.error(
        f"Nothing was applied: {performance_problem}. Fix the value in the Performance model "
        "table and press Apply assumptions again.",
        icon=":material/error:",
    )
elif applied:
    overrides = {
        str(row["GPU model"]): float(row["your price [USD]"])
        for row in pd.DataFrame(edited_prices).to_dict("records")
        if pd.notna(row["your price [USD]"])
        and float(row["your price [USD]"]) != float(row["catalog price [USD]"])
    }
    session.commit_assumptions(
        Assumptions(
            vgpu_mode=VgpuMode(vgpu_mode or current.vgpu_mode),
            vgpu_scheduler=VgpuScheduler(scheduler or current.vgpu_scheduler),
            vsphere_version=VsphereVersion(vsphere or current.vsphere_version),
            mig_backed_vgpu=bool(mig_backed),
            licence_usd_per_gpu_year=float(licence),
            power_usd_per_kwh=float(power),
            pue=float(pue),
            amortisation_years=float(years),
            host_usd=float(host_usd),
            idle_power_share=float(idle_share),
            gpu_price_usd=dict(sorted(overrides.items())),
            network=Network(
                latency_us=float(latency),
                bandwidth_gbps=float(bandwidth),
                rdma=bool(rdma),
                usd_per_server_year=float(network_usd),
            ),
            time_limit_s=float(time_limit),
            performance_constants=dict(sorted(performance_overrides.items())),
            time_slicing_replicas=int(time_slicing_replicas),
            mps_replicas=int(mps_replicas),
            kubernetes_mig_strategy=MigStrategy(mig_strategy or current.kubernetes_mig_strategy),
            kubernetes_ai_enterprise=bool(k8s_ai_enterprise),
        ),
        # An unchanged selection keeps following the inventory file.
        session.KEEP if sorted(mig_clusters) == mig_on_clusters else mig_clusters,
    )
if restored:
    session.commit_assumptions(Assumptions(), None)

if current.network.latency_us > 50 or not current.network.rdma:
    st.info(
        "The network is worse than VMware's recommendation (≤ 50 µs with RDMA): only "
        "latency-tolerant workloads can use the remote pool.",
        icon=":material/lan:",
    )

st.subheader("Effect on the plan")
components.stop_if_empty(built, need_inventory=session.question().kind is session.QuestionKind.FIT)
with st.spinner("Planning with these assumptions…"):
    plan = planning.guarded(
        lambda: planning.scenario_plan(inputs, session.question()), doing="plan the scenario"
    )
components.headline(plan)
