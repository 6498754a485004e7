"""``python -m planner``: the command line (see ``planner.cli``)."""

from planner.cli import main

raise SystemExit(main())
