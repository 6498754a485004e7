"""GPU Share Planner dashboard: wires the pages; every page lives in ``ui/pages/``.

Run with ``make run`` (or ``streamlit run app.py``); it opens on the bundled sample scenario.
"""

from __future__ import annotations

import streamlit as st

st.set_page_config(
    page_title="GPU Share Planner",
    page_icon=":material/memory:",
    layout="wide",
    initial_sidebar_state="expanded",
)

PAGES: dict[str, list[st.Page]] = {
    "Plan": [
        st.Page(
            "ui/pages/compare.py", title="Compare methods", icon=":material/compare:", default=True
        ),
        st.Page("ui/pages/inside.py", title="Inside a plan", icon=":material/grid_view:"),
        st.Page("ui/pages/scenarios.py", title="Scenarios", icon=":material/bookmarks:"),
    ],
    "Inputs": [
        st.Page("ui/pages/inventory.py", title="Inventory", icon=":material/dns:"),
        st.Page("ui/pages/workloads.py", title="Workloads", icon=":material/work:"),
        st.Page("ui/pages/assumptions.py", title="Assumptions", icon=":material/tune:"),
    ],
    "Time of day": [
        st.Page("ui/pages/harvesting.py", title="Harvesting", icon=":material/nights_stay:")
    ],
}

page = st.navigation(PAGES)
# The navigation reaches the browser before the planner (pandas, SciPy) is imported, so the first
# paint does not wait for it; on a cold server the spinner says why the page is still empty (it
# shows only after its delay, so a warm server shows nothing).
with st.spinner("Loading the planner…"):
    from ui import components, scenarios

scenarios.follow_url()
components.scenario_sidebar()
scenarios.scenario_sidebar()
page.run()
