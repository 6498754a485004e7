"""The ``scenarios`` command and ``plan --scenario``: the scenario store from the command line.

``python -m planner scenarios save NAME --inventory hosts.csv ...`` saves the files and assumptions
given (the same options as ``plan``); ``list``, ``duplicate``, ``rename`` and ``delete`` edit the
store; ``python -m planner plan --scenario NAME`` plans a saved scenario. ``--db`` (or
``$GPU_PLANNER_DB``) names the database file.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planner.inputs import alibaba_trace
from planner.inputs.inventory import ServerType
from planner.inputs.problems import InputError
from planner.scenario import GivenCluster
from planner.store import (
    DB_ENV,
    SavedFile,
    SavedScenario,
    ScenarioStore,
    StoreError,
    StoreWriteError,
)

__all__ = [
    "add_db_argument",
    "add_scenarios_command",
    "saved_from_args",
    "saved_purchase",
]

# As ``planner.cli.EXIT_POLICY``: the database is this command's output.
EXIT_OK = 0
EXIT_WRITE_FAILED = 1
EXIT_BAD_INPUT = 2


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """``--db PATH``: the scenario database (default ``$GPU_PLANNER_DB`` or the data directory)."""
    parser.add_argument(
        "--db",
        type=Path,
        help=f"scenario database file (default: ${DB_ENV}, else "
        "~/.local/share/gpu-share-planner/scenarios.sqlite)",
    )


def _store(args: argparse.Namespace) -> ScenarioStore:
    return ScenarioStore(args.db)


def saved_from_args(args: argparse.Namespace) -> SavedScenario:
    """The scenario ``--scenario`` names, from the store ``--db`` names.

    Raises ``StoreError`` when it is not saved, or when file or assumption options are given too
    (the saved scenario carries its own; they would be ignored).
    """
    # Imported here: planner.cli imports this module to register its commands.
    from planner.cli import given_scenario_options

    given = list(given_scenario_options(args).values())
    if given:
        raise StoreError(
            f"--scenario plans the saved files and assumptions, so {', '.join(given)} would be "
            "ignored: drop them, or save a scenario with them (python -m planner scenarios save)"
        )
    return _store(args).open(args.scenario)


def saved_purchase(args: argparse.Namespace) -> tuple[tuple[ServerType, ...], bool, int]:
    """What the scenario ``--scenario`` names was saved to buy: its server types (none when it
    fits the inventory, or no scenario is named), whether they go on top of the inventory, and
    the host failures each cluster tolerates."""
    if getattr(args, "scenario", None) is None:
        return (), False, 0
    saved = _store(args).open(args.scenario)
    return saved.servers, saved.add_to_inventory, saved.headroom


def _read(given: Path | Sequence[Path]) -> SavedFile:
    """The one file given for an input (``--inventory`` and ``--workloads`` are repeatable)."""
    from planner.cli import _read as read_bytes

    paths = [given] if isinstance(given, Path) else list(given)
    if len(paths) != 1:
        raise StoreError(
            f"a scenario saves one file per input, got {len(paths)} "
            f"({', '.join(p.name for p in paths)}); plan them with --out and save the workbook's "
            "inputs, or combine them into one planner CSV"
        )
    return SavedFile(paths[0].name, read_bytes(paths[0], paths[0].name))


_NOT_KEPT = {
    "from_workbook": "--from-workbook",
    "host_name": "--host-name",
    "cluster_gpus": "--cluster-gpus",
    "group_by": "--group-by",
}
"""Options of ``plan`` a saved scenario has no place for, by namespace attribute: it keeps one
file per input as given, read as a planner CSV or trace list, the assumptions, and the cluster
of a trace node list (``--cluster``, kept only for one)."""


def _not_kept(flags: Sequence[str]) -> StoreError:
    return StoreError(
        f"a scenario keeps its input files as given and its assumptions, so "
        f"{', '.join(flags)} would be lost: leave them out (a planner CSV names its hosts, "
        "clusters and GPUs), or plan with them and keep the plan workbook "
        "(python -m planner plan ... --out plan.xlsx)"
    )


def _trace_cluster(args: argparse.Namespace, inventory: SavedFile) -> GivenCluster | None:
    """The cluster ``--cluster`` gives a trace node list's nodes (the list has no column for
    one); None without it. Raises ``StoreError`` for another inventory file, whose rows name
    each host's cluster, so the option would be lost."""
    name = (args.cluster or "").strip()
    if not name:
        return None
    if not alibaba_trace.is_node_list(inventory.content):
        raise _not_kept(["--cluster"])
    return GivenCluster.by_user(name)


def _run_save(args: argparse.Namespace) -> int:
    """Check the scenario plans (files usable), then save it under its name; with ``--strict``,
    nothing is saved when an input row is skipped."""
    from planner.cli import (
        PURCHASE_NEEDS_SIZE,
        SAMPLE_INVENTORY,
        SAMPLE_WORKLOADS,
        _assumptions,
        report_input_problems,
        server_types,
    )

    not_kept = [flag for name, flag in _NOT_KEPT.items() if getattr(args, name, None)]
    if not_kept:
        raise _not_kept(not_kept)
    try:
        inventory = _read(args.inventory or SAMPLE_INVENTORY)
        saved = SavedScenario(
            inventory=inventory,
            workloads=_read(args.workloads or SAMPLE_WORKLOADS),
            assumptions=_assumptions(args),
            own_gpus=None if args.catalog_extra is None else _read(args.catalog_extra),
            cluster=_trace_cluster(args, inventory),
        )
        scenario, problems = saved.scenario()
        servers = server_types(args.size or (), scenario.catalog)
        if (args.add_to_inventory or args.headroom) and not servers:
            raise StoreError(PURCHASE_NEEDS_SIZE)
        saved = dataclasses.replace(
            saved,
            servers=servers,
            add_to_inventory=args.add_to_inventory,
            headroom=args.headroom or 0,
        )
        stop = report_input_problems(problems, command="scenarios", strict=args.strict)
        if stop is not None:
            return stop
        name = _store(args).save(args.name, saved, replace=args.replace)
    except InputError as error:
        for problem in error.problems:
            print(f"input: {problem}", file=sys.stderr)
        print("scenarios: the input above cannot be used; nothing was saved.", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreWriteError as error:
        print(f"scenarios: {error}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except (StoreError, ValueError) as error:
        print(f"scenarios: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"Saved '{name}' in {_store(args).path}")
    return EXIT_OK


def _run_list(args: argparse.Namespace) -> int:
    store = _store(args)
    summaries = store.summaries()
    if not summaries:
        print(f"No scenario is saved in {store.path}.")
    for s in summaries:
        saved_at = s.saved_at.strftime("%Y-%m-%d %H:%M UTC")
        print(f"{s.name}\t{saved_at}\t{s.inventory_name} · {s.workloads_name}")
    return EXIT_OK


def _run_edit(args: argparse.Namespace) -> int:
    """duplicate, rename or delete."""
    store = _store(args)
    if args.action == "delete":
        store.delete(args.name)
        print(f"Deleted '{args.name}'")
    elif args.action == "duplicate":
        print(f"Saved a copy of '{args.name}' as '{store.duplicate(args.name, args.new_name)}'")
    else:
        print(f"Renamed '{args.name}' to '{store.rename(args.name, args.new_name)}'")
    return EXIT_OK


def _guarded(run: Any) -> Any:
    def guarded(args: argparse.Namespace) -> int:
        try:
            code: int = run(args)
        except StoreWriteError as error:
            print(f"scenarios: {error}", file=sys.stderr)
            return EXIT_WRITE_FAILED
        except StoreError as error:
            print(f"scenarios: {error}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return code

    return guarded


def add_scenarios_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``scenarios`` with its actions: list, save, duplicate, rename, delete."""
    from planner.cli import add_purchase_arguments, add_scenario_arguments

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "scenarios",
        help="list, save, copy, rename or delete saved scenarios",
        description="The saved scenarios the dashboard and `plan --scenario NAME` open.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the saved scenarios")
    add_db_argument(listing)
    listing.set_defaults(func=_guarded(_run_list))
    save = actions.add_parser("save", help="save input files and assumptions under a name")
    save.add_argument("name", help="scenario name")
    add_scenario_arguments(save)
    save.add_argument(
        "--size",
        action="append",
        metavar="TYPE",
        help="size a new cluster of this server type (as plan --size; repeatable)",
    )
    add_purchase_arguments(save)
    save.add_argument("--replace", action="store_true", help="replace a scenario of that name")
    add_db_argument(save)
    save.set_defaults(func=_guarded(_run_save))
    for action, text in (("duplicate", "save a copy"), ("rename", "rename")):
        edit = actions.add_parser(action, help=f"{text} of a scenario")
        edit.add_argument("name", help="scenario name")
        edit.add_argument("new_name", help="new name")
        add_db_argument(edit)
        edit.set_defaults(func=_guarded(_run_edit))
    delete = actions.add_parser("delete", help="delete a scenario")
    delete.add_argument("name", help="scenario name")
    add_db_argument(delete)
    delete.set_defaults(func=_guarded(_run_edit))
    return parser
