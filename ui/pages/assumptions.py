"""Assumptions page: method options, network, prices and solver limits, applied on Apply.

What the user types is kept across page changes until it is applied or restored."""

from __future__ import annotations

import math
from enum import Enum

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from planner.assumptions import (
    Assumptions,
    Fact,
    VgpuMode,
    VgpuScheduler,
    VsphereVersion,
    facts,
)
from planner.measure.performance import check_performance_constants, constants_frame
from planner.methods.registry import METHODS, declared_settings
from planner.methods.remote_pool import MAX_LATENCY_US
from ui import components, planning, session

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
_VSPHERE_LABELS = {
    VsphereVersion.V7: "vSphere 7 (≤ 4 vGPUs per VM, full profiles only)",
    VsphereVersion.V8: "vSphere 8 (≤ 8 vGPUs per VM, any C-series)",
}

# Session key of the committed inputs the form's widgets were made from, and their key prefix.
FORM_MADE_FROM = "_assumptions_form_made_from"
WIDGET_PREFIX = "assumptions_"
# Session key of how many times the form was made anew: its table editors' keys end with it.
FORM_GENERATION = "_assumptions_form_generation"
# Session key prefix of a table's values as typed (``prices``: GPU model to price [USD]). A table
# editor's own state goes when the user leaves the page; these stay until Apply or Restore.
TABLE_DRAFT_PREFIX = "_assumptions_draft_"

# How the page marks a default with no public source behind it, wherever it shows one.
GUESS = "a guess, edit it"
# Widget step per numeric assumption, in its unit (presentation only; the rest is its Fact).
_STEPS = {
    "licence_usd_per_gpu_year": 100.0,
    "network.latency_us": 5.0,
    "network.bandwidth_gbps": 25.0,
    "network.usd_per_server_year": 500.0,
    "power_usd_per_kwh": 0.01,
    "pue": 0.05,
    "amortisation_years": 1.0,
    "host_usd": 1000.0,
    "idle_power_share": 0.05,
    "max_slowdown": 0.1,
    "time_limit_s": 10.0,
}


def fact_label(about: Fact) -> str:
    """Widget label of an assumption: its label and unit, flagged when the default is a guess."""
    guess = f" ({GUESS})" if about.is_guess else ""
    return f"{about.label} [{about.unit}]{guess}"


def fact_help(about: Fact) -> str:
    """Widget help of an assumption: its meaning and range."""
    return f"{about.meaning[:1].upper()}{about.meaning[1:]}. Range {about.range_text}."


def fact_key(name: str) -> str:
    """Widget key of an assumption (``network.latency_us``: ``assumptions_network_latency_us``)."""
    return WIDGET_PREFIX + name.replace(".", "_")


def table_key(name: str) -> str:
    """Key of the form's table editor ``name`` (``prices``). A table editor cannot be set to a
    value, and the browser keeps its edits while its key stays: each form made anew gives it a
    new key, so it shows the values in force and an Apply never brings back edits dropped."""
    return f"{WIDGET_PREFIX}{name}_{st.session_state[FORM_GENERATION]}"


def table_draft(name: str) -> dict[str, float]:
    """The values typed into the form's table ``name`` (row name to value); empty until one is
    typed."""
    draft = st.session_state.get(TABLE_DRAFT_PREFIX + name)
    return draft if isinstance(draft, dict) else {}


def keep_table_draft(name: str, values: dict[str, float]) -> None:
    """Keep the values the form's table ``name`` shows, as typed, for a return to the page."""
    st.session_state[TABLE_DRAFT_PREFIX + name] = values


def number_fact(where: DeltaGenerator, name: str) -> float:
    """A number input made from the assumption's Fact, showing the value in force."""
    about, _ = FACTS[name]
    return float(
        where.number_input(
            fact_label(about),
            min_value=about.minimum,
            max_value=about.maximum,
            step=_STEPS.get(name),
            format="%.3f" if name == "power_usd_per_kwh" else None,
            key=fact_key(name),
            help=fact_help(about),
            persist_state="session",
        )
    )


def _choice_label(choice: Enum) -> str:
    """A choice as people read it: its ``label`` when it has one, else its value."""
    label = getattr(choice, "label", None)
    return label if isinstance(label, str) else str(choice.value)


def _used_by(name: str) -> str:
    """The methods that declare the setting ``name``, for its help text."""
    return ", ".join(
        rules.label for rules in METHODS.values() if name in {s.name for s in rules.own_settings}
    )


def setting_widget(where: DeltaGenerator, name: str) -> object:
    """A widget made from a sharing method's setting (its Fact and its kind: yes/no, choice,
    whole number or number), showing the value in force."""
    about, value = FACTS[name]
    label = fact_label(about).removesuffix(f" [{about.unit}]")
    meaning = (
        fact_help(about) if about.range_text else f"{about.meaning[:1].upper()}{about.meaning[1:]}."
    )
    helped = f"{meaning} Used by {_used_by(name)}."
    if isinstance(value, bool):
        return where.checkbox(label, key=fact_key(name), help=helped, persist_state="session")
    if isinstance(value, Enum):
        options = list(type(value))
        chosen = where.selectbox(
            label,
            options=options,
            format_func=_choice_label,
            key=fact_key(name),
            help=helped,
            persist_state="session",
        )
        return value if chosen is None else chosen
    if about.whole:
        return int(
            where.number_input(
                fact_label(about),
                min_value=None if about.minimum is None else int(about.minimum),
                max_value=None if about.maximum is None else int(about.maximum),
                step=1,
                key=fact_key(name),
                help=helped,
                persist_state="session",
            )
        )
    return number_fact(where, name)


st.title("Assumptions")
st.caption(
    "Everything a plan rests on that is not in your files. Each has a default; those marked "
    f"*{GUESS}* have no public source behind them: replace them with your own. Changes apply "
    "when you press **Apply assumptions**."
)

inputs = session.scenario_inputs()
built = planning.guarded(lambda: planning.build_scenario(inputs), doing="read the scenario")
cat = built.scenario.catalog
inventory = built.scenario.inventory
current = inputs.assumptions
FACTS = {name: (about, value) for name, about, value in facts(current)}
_SETTINGS = tuple(declared_settings())

mig_capable_clusters = sorted(
    {h.cluster for h in inventory.hosts if cat.gpus[h.gpu_model].mig_capable}
)
mig_on_clusters = sorted(
    {h.cluster for h in inventory.hosts if h.mig_enabled and cat.gpus[h.gpu_model].mig_capable}
)


def _widget_value(about: Fact, value: bool | Enum | float) -> bool | Enum | float:
    """An assumption's value as its widget holds it (a whole number, a float, a choice)."""
    if isinstance(value, (bool, Enum)):
        return value
    return int(value) if about.whole else float(value)


# A keyed widget keeps what was typed, on this page and after a visit to another, whatever value
# it is given, and the browser keeps showing it: when the inputs the form shows change under it
# (an Apply, Restore defaults, the sidebar's reset, a scenario opened, another inventory), each
# widget is set to the value in force, so the form never shows figures the plan does not use and
# an Apply never brings back ones restored away. A new workload mix leaves what was typed.
made_from = (inputs.assumptions, inputs.mig_clusters, inputs.inventory, inputs.own_gpus)
if st.session_state.get(FORM_MADE_FROM) != made_from:
    for widget in [
        k for k in st.session_state if str(k).startswith((WIDGET_PREFIX, TABLE_DRAFT_PREFIX))
    ]:
        del st.session_state[widget]
    st.session_state[FORM_MADE_FROM] = made_from
    st.session_state[FORM_GENERATION] = st.session_state.get(FORM_GENERATION, 0) + 1
# Each widget gets the value in force through its key only (given as its default as well,
# Streamlit warns), whenever it holds none: when the form is made anew.
for name, (about, value) in FACTS.items():
    if isinstance(value, (bool, Enum, int, float)):
        st.session_state.setdefault(fact_key(name), _widget_value(about, value))
st.session_state.setdefault(fact_key("vsphere"), current.vsphere_version)
st.session_state.setdefault(fact_key("mig_clusters"), mig_on_clusters)
models_in_use = list(inventory.gpus_by_model())
prices = pd.DataFrame(
    [
        {
            "GPU model": model.name,
            "in inventory": model.name in models_in_use,
            "catalog price [USD]": model.price_usd,
            "your price [USD]": table_draft("prices").get(
                model.name, float(current.gpu_price_usd.get(model.name, model.price_usd))
            ),
            "catalog price is": GUESS if model.price_is_default else "sourced",
        }
        for model in sorted(cat.gpus.values(), key=lambda m: (m.name not in models_in_use, m.name))
    ]
)

in_use = constants_frame(current)
performance = pd.DataFrame(
    {
        "constant": in_use["constant"],
        "figure is": [GUESS if g else "sourced" for g in in_use["is_guess"]],
        "default": in_use["default"],
        "your value": [
            table_draft("performance_constants").get(str(name), float(value))
            for name, value in zip(in_use["constant"], in_use["value"], strict=True)
        ],
        "unit": in_use["unit"],
        "meaning": in_use["meaning"],
        "source": in_use["source"],
    }
)

# Not a form: a form sends what was typed only on a press, and leaving the page first lost it.
# An edit reruns this page (cached plans); the plan changes only on Apply.
with st.container(border=True, key="assumptions_form"):
    vgpu_col, mig_col, pool_col = st.columns(3)
    with vgpu_col:
        st.markdown("**vGPU (time-sliced)**")
        vgpu_mode = st.selectbox(
            "Profile sizes",
            options=list(VgpuMode),
            format_func=_MODE_LABELS.__getitem__,
            key="assumptions_vgpu_mode",
            persist_state="session",
        )
        vsphere = st.selectbox(
            "vSphere version",
            options=list(VsphereVersion),
            format_func=_VSPHERE_LABELS.__getitem__,
            key="assumptions_vsphere",
            persist_state="session",
        )
        scheduler = st.selectbox(
            "vGPU scheduler",
            options=list(VgpuScheduler),
            format_func=_SCHEDULER_LABELS.__getitem__,
            key="assumptions_vgpu_scheduler",
            persist_state="session",
        )
        numbers = {"licence_usd_per_gpu_year": number_fact(vgpu_col, "licence_usd_per_gpu_year")}
    with mig_col:
        st.markdown("**MIG**")
        mig_clusters = st.multiselect(
            "Clusters with MIG enabled",
            options=mig_capable_clusters,
            key="assumptions_mig_clusters",
            help="Only clusters of MIG-capable GPUs are listed. Changing MIG mode on Ampere under "
            "ESXi needs a host reboot.",
            placeholder="No cluster has MIG enabled",
            persist_state="session",
        )
        mig_backed = st.checkbox(
            "MIG-backed vGPU",
            key="assumptions_mig_backed_vgpu",
            help="Under vSphere, MIG instances are handed to VMs as MIG-backed vGPUs, which need "
            "an AI Enterprise licence per GPU.",
            persist_state="session",
        )
        st.markdown("**Solver and limits**")
        for name in ("max_slowdown", "time_limit_s"):
            numbers[name] = number_fact(mig_col, name)
    with pool_col:
        st.markdown("**Remote pool network**")
        for name in ("network.latency_us", "network.bandwidth_gbps"):
            numbers[name] = number_fact(pool_col, name)
        rdma = st.checkbox(
            fact_label(FACTS["network.rdma"][0]).removesuffix(" [yes/no]"),
            key=fact_key("network.rdma"),
            help=FACTS["network.rdma"][0].meaning,
            persist_state="session",
        )
        numbers["network.usd_per_server_year"] = number_fact(
            pool_col, "network.usd_per_server_year"
        )
    st.markdown("**Sharing method settings** (each method's own)")
    method_settings: dict[str, object] = {}
    # Yes/no settings each take a row: a checkbox's label is cut, not wrapped, in a column.
    switches = [name for name in _SETTINGS if isinstance(FACTS[name][1], bool)]
    valued = [name for name in _SETTINGS if name not in switches]
    for row in range(0, len(valued), 4):
        names = valued[row : row + 4]
        for column, name in zip(st.columns(4), names, strict=False):
            method_settings[name] = setting_widget(column, name)
    for name in switches:
        method_settings[name] = setting_widget(st.container(), name)
    st.markdown("**Costs**")
    cost_names = ("power_usd_per_kwh", "pue", "amortisation_years", "host_usd", "idle_power_share")
    for column, name in zip(st.columns(len(cost_names)), cost_names, strict=True):
        numbers[name] = number_fact(column, name)
    # Numeric assumptions without a place above still get a widget, made from their Fact.
    more = [
        name
        for name, (about, value) in FACTS.items()
        if isinstance(value, float)
        and about.minimum is not None
        and name not in numbers
        and name not in method_settings
    ]
    if more:
        st.markdown("**More assumptions**")
        for column, name in zip(st.columns(len(more)), more, strict=True):
            numbers[name] = number_fact(column, name)
    st.markdown("**GPU prices** (street-price defaults from the catalog; edit *your price*)")
    edited_prices = st.data_editor(
        prices,
        key=table_key("prices"),
        hide_index=True,
        width="stretch",
        disabled=["GPU model", "in inventory", "catalog price [USD]", "catalog price is"],
        column_config={
            "your price [USD]": st.column_config.NumberColumn(
                min_value=0, max_value=1_000_000, step=100, format="dollar"
            ),
            "catalog price [USD]": st.column_config.NumberColumn(format="dollar"),
        },
    )
    with st.expander("Performance model", expanded=bool(current.performance_constants)):
        st.caption(
            "The constants behind each method's expected slowdown. Rows whose figure is "
            "*a guess* have no public measurement behind them: replace them with your own. "
            "Unless you set it, the pool's contention factor follows the training network "
            "overhead so that VMware's seed slide (three jobs, each ~30 % busy, each ~17 % slower) "
            "still holds. Whatever the constants, a GPU never does more than one GPU of work."
        )
        edited_performance = st.data_editor(
            performance,
            key=table_key("performance_constants"),
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
    applied = buttons.button(
        "Apply assumptions", key="assumptions_apply", type="primary", icon=":material/check:"
    )
    restored = buttons.button(
        "Restore defaults", key="assumptions_restore", icon=":material/restart_alt:"
    )
    unapplied_note = st.empty()


def _performance_overrides(edited: pd.DataFrame) -> dict[str, float]:
    """Overrides from the edited table: rows whose value differs from the default shown."""
    return {
        str(row["constant"]): float(row["your value"])
        for row in edited.to_dict("records")
        if pd.notna(row["your value"])
        and not math.isclose(float(row["your value"]), float(row["default"]), rel_tol=1e-9)
    }


# Only the cells holding a value are kept for a return to the page.
edited_price_rows = pd.DataFrame(edited_prices).to_dict("records")
keep_table_draft(
    "prices",
    {
        str(row["GPU model"]): float(row["your price [USD]"])
        for row in edited_price_rows
        if pd.notna(row["your price [USD]"])
    },
)
keep_table_draft(
    "performance_constants",
    {
        str(row["constant"]): float(row["your value"])
        for row in pd.DataFrame(edited_performance).to_dict("records")
        if pd.notna(row["your value"])
    },
)
performance_overrides = _performance_overrides(pd.DataFrame(edited_performance))
try:
    check_performance_constants(performance_overrides)
except ValueError as error:
    performance_problem: str | None = str(error)
else:
    performance_problem = None

price_overrides = {
    str(row["GPU model"]): float(row["your price [USD]"])
    for row in edited_price_rows
    if pd.notna(row["your price [USD]"])
    and float(row["your price [USD]"]) != float(row["catalog price [USD]"])
}
typed = current.with_facts(
    {
        **numbers,
        "vgpu_mode": VgpuMode(vgpu_mode or current.vgpu_mode),
        "vgpu_scheduler": VgpuScheduler(scheduler or current.vgpu_scheduler),
        "vsphere_version": VsphereVersion(vsphere or current.vsphere_version),
        "mig_backed_vgpu": bool(mig_backed),
        "network.rdma": bool(rdma),
        **method_settings,
        "gpu_price_usd": dict(sorted(price_overrides.items())),
        # Checked on Apply, where a constant out of range is refused with its rule.
        "performance_constants": current.performance_constants
        if performance_problem
        else dict(sorted(performance_overrides.items())),
    }
)
mig_unchanged = sorted(mig_clusters) == mig_on_clusters

if applied and performance_problem is not None:
    st.error(
        f"Nothing was applied: {performance_problem}. Fix the value in the Performance model "
        "table and press Apply assumptions again.",
        icon=":material/error:",
    )
elif applied:
    # An unchanged selection keeps following the inventory file.
    session.commit_assumptions(typed, session.KEEP if mig_unchanged else mig_clusters)
elif typed != current or not mig_unchanged or performance_problem is not None:
    unapplied_note.info(
        "The form has values the plan does not use yet: press **Apply assumptions** to plan "
        "with them. They stay here while you visit other pages.",
        icon=":material/edit_note:",
    )
if restored:
    # The form is made anew even when the defaults are in force already: edits not applied go.
    st.session_state.pop(FORM_MADE_FROM, None)
    session.commit_assumptions(Assumptions(), None)

if current.network.latency_us > MAX_LATENCY_US or not current.network.rdma:
    st.info(
        f"The network is worse than VMware's recommendation (at most {MAX_LATENCY_US:g} µs, "
        f"with RDMA). {FACTS['network.latency_us'][0].meaning[:1].upper()}"
        f"{FACTS['network.latency_us'][0].meaning[1:]}: see the remote pool's slowdown below.",
        icon=":material/lan:",
    )

st.subheader("Effect on the plan")
components.stop_if_empty(built, need_inventory=session.question().kind is session.QuestionKind.FIT)
components.plan_with_headline(inputs, session.question(), mixing_slot=st.container())
