"""The Streamlit dashboard over ``planner``: pages, components, charts and formatting.

Conventions every page follows (the harvesting page included):

- A page is a script ``ui/pages/<name>.py`` registered in ``app.py``'s ``PAGES`` list. It reads
  top to bottom like a storyboard: title and one-line purpose, inputs, **one** ``planner`` call per
  user intent through ``ui.planning``, then tables and charts, or an empty state that says what
  to do next. No planning logic in a page: if a number needs computing, it belongs in ``planner``.
- The scenario being planned (inventory, workload mix, assumptions, question) is the *committed*
  input held by ``ui.session``: read it with ``ui.session.scenario_inputs()`` and build the
  ``planner.scenario.Scenario`` with ``ui.planning.build_scenario(inputs)``. Pages change it only on
  intent (a form submit or a button) through the ``ui.session.commit_*`` functions. No page reads
  or writes ``st.session_state`` keys of another module.
- Derived results (plans, frames, charts) are never stored in session state; they come from
  cached pure functions in ``ui.planning`` (``st.cache_data``) keyed by the committed inputs, so a
  rerun with unchanged inputs costs nothing and a changed input can never show a stale result.
- Every planner call goes through ``ui.planning.guarded(...)``: an ``InputError`` shows its
  problems (file, row, column, fix), any other exception becomes a readable ``st.error`` and the
  page stops cleanly. Never a traceback on screen.
- A page script holds no bare string literal outside its module docstring: Streamlit's "magic"
  would print it on the page. Use comments.
- Widgets have explicit ``key=`` names prefixed with the page name (``compare_question``,
  ``inventory_upload``) so AppTest and the browser tests find them.
- Formatting (USD, %, GiB) lives in ``ui.format``; Altair chart builders in ``ui.charts`` are pure
  functions from frames to charts, testable without Streamlit.
"""
