"""``python -m planner``: the command line (see ``planner.cli``)."""

from planner.cli import main, native_prints_hidden

with native_prints_hidden():
    code = main()
raise SystemExit(code)
