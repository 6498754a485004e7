"""The command line: ``python -m planner plan`` writes the plan workbook and prints a summary.

Subcommands are registered by the functions in ``SUBCOMMANDS``; each takes the argparse
sub-parser set, adds its parser and sets ``func`` (``Namespace -> exit code``) as its handler.
Commands that read a scenario reuse ``add_scenario_arguments`` and ``scenario_from_args`` (or
``read_inputs``, which also keeps the files as given for the workbook).

Exit codes (``EXIT_POLICY``): 0 done; 2 unusable input (the message names file, row, column and
the fix), or with ``--strict`` any skipped row; 1 the workbook could not be written.
"""

from __future__ import annotations

import argparse
import ctypes
import enum
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from planner.assumptions import Assumptions, Fact, facts
from planner.inputs import alibaba_trace
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.importers import (
    Format,
    PlanInputs,
    UnknownFormatError,
    detect_format,
    import_inventory,
    import_workloads,
    read_plan_inputs,
    summarise_notes,
)
from planner.inputs.importers.detect import Role
from planner.inputs.inventory import Inventory, ServerType, server_type
from planner.inputs.problems import InputError, InputProblem, Loaded, skipped_summary
from planner.inputs.servers import load_server_types
from planner.inputs.tabular import is_workbook, quoted
from planner.inputs.workloads import WorkloadClass
from planner.measure.performance import CONSTANTS, check_performance_constants
from planner.methods.registry import Method
from planner.output.report import ScenarioPlan, add_to_inventory, plan_scenario, size_cluster
from planner.plan import NotPlaced
from planner.scenario import GivenCluster, LoadedHosts, Scenario, load_hosts, load_mix
from planner.solve.headroom import MAX_HEADROOM
from planner.time.demand import (
    CURVE_PRESETS,
    WeeklyCurve,
    curve_file_text,
    curve_preset,
    parse_curve,
)
from planner.time.harvesting import (
    HarvestResult,
    HarvestSettings,
    check_settings,
    harvest_given_pool,
    harvest_scenario,
    harvest_summary,
    harvest_tables,
    plan_harvest_tables,
)
from planner.words import counted

__all__ = [
    "PURCHASE_NEEDS_SIZE",
    "SAMPLE_DIR",
    "SUBCOMMANDS",
    "ReadInputs",
    "add_input_file_arguments",
    "add_plan_command",
    "add_purchase_arguments",
    "add_scenario_arguments",
    "build_parser",
    "given_scenario_options",
    "main",
    "native_prints_hidden",
    "parse_server",
    "read_inputs",
    "recommended_lines",
    "report_input_problems",
    "scenario_from_args",
    "summary_lines",
]

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "sample"
"""The bundled sample scenario, used for any input file not given."""
SAMPLE_INVENTORY = SAMPLE_DIR / "inventory.csv"
SAMPLE_WORKLOADS = SAMPLE_DIR / "workloads.csv"

EXIT_OK = 0
EXIT_WRITE_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_POLICY = (
    "Exit status: 0 done, also when some input rows were skipped (each is listed on stderr with "
    "file, row, column and fix, then one summary line, and in the workbook's Input problems "
    "sheet); 2 an input file or option cannot be used, or, with --strict, any input row was "
    "skipped or column ignored (nothing is planned); 1 the output could not be written; 141 "
    "the reader of stdout went away (a workbook asked for is still written)."
)


class UsageError(ValueError):
    """An argument or input file the command cannot use; the message says why and the fix."""


def _performance_constant(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` of ``--perf`` as a checked override of one performance-model constant."""
    name, equals, value_text = text.partition("=")
    name = name.strip()
    if not equals or not name:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=VALUE, for example no_rdma_factor=3; "
            f"constants: {', '.join(CONSTANTS)}"
        )
    try:
        value = float(value_text)
    except ValueError:
        example = f"{name}={CONSTANTS[name].value:g}" if name in CONSTANTS else "no_rdma_factor=3"
        raise argparse.ArgumentTypeError(
            f"{text!r}: the value must be a number, for example {example}"
        ) from None
    try:
        check_performance_constants({name: value})
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None
    return name, value


def server_types(texts: Sequence[str], catalog: Catalog) -> tuple[ServerType, ...]:
    """The server types ``--size`` names: ``catalog`` for every type in the server catalog, a
    type's name there (``hgx-h100-8``), or ``MODEL:GPUS:CORES:RAM_GIB``."""
    known = {t.name: t for t in load_server_types(catalog).value}
    chosen: list[ServerType] = []
    for text in texts:
        if text.strip().lower() == "catalog":
            chosen.extend(known.values())
        elif text.strip() in known:
            chosen.append(known[text.strip()])
        elif ":" not in text:
            raise UsageError(
                f"--size {text!r}: not a server type of the catalog ({', '.join(known)}), "
                "'catalog', or MODEL:GPUS:CORES:RAM_GIB"
            )
        else:
            chosen.append(parse_server(text, catalog))
    return tuple(dict.fromkeys(chosen))


def parse_server(text: str, catalog: Catalog) -> ServerType:
    """A server type from ``MODEL:GPUS:CORES:RAM_GIB`` (``H100-80GB-SXM:8:112:2048``).

    Raises ``UsageError`` naming the part that is wrong and the fix.
    """
    parts = text.split(":")
    if len(parts) != 4:
        raise UsageError(
            f"--size {text!r}: expected MODEL:GPUS:CORES:RAM_GIB with 4 parts, got {len(parts)}; "
            "for example --size H100-80GB-SXM:8:112:2048"
        )
    model, gpus, cores, ram_gib = parts
    try:
        return server_type(model, gpus, cores, ram_gib, catalog)
    except InputError as error:
        reasons = "; ".join(f"{p.column}: {p.message}. Fix: {p.fix}" for p in error.problems)
        raise UsageError(f"--size {text!r}: {reasons}") from None


def add_scenario_arguments(parser: argparse.ArgumentParser) -> None:
    """Options naming the input files and the assumptions; defaults are the sample scenario.

    An assumption's option defaults to None, its default value shown in its help, so that one
    given is known as given whatever its value (``given_scenario_options``): given beside
    ``--from-workbook``, it wins over the workbook's value even when it is the default."""
    add_input_file_arguments(parser)
    given = parser.add_argument_group("assumptions (default: the value shown)")
    for name, about, default in facts(Assumptions()):
        if about.flag is None:
            continue
        meaning = about.meaning.replace("%", "%%")  # argparse formats help with %
        if isinstance(default, enum.Enum):
            choices = [m.value for m in type(default)]
            given.add_argument(
                about.flag,
                choices=choices,
                default=None,
                dest=_dest(name),
                help=f"{meaning} [{about.unit}] ({default.value})",
            )
        elif isinstance(default, bool):
            # A yes/no option names the change from its default (--k8s-ai-enterprise).
            given.add_argument(
                about.flag,
                action="store_false" if default else "store_true",
                default=None,
                dest=_dest(name),
                help=f"{meaning} (default: {'yes' if default else 'no'})",
            )
        else:
            range_text = f"; {about.range_text}" if about.range_text else ""
            given.add_argument(
                about.flag,
                type=_fact_number(name, about),
                default=None,
                dest=_dest(name),
                metavar="VALUE",
                help=f"{meaning} [{about.unit}{range_text}] ({default})",
            )
    given.add_argument(
        "--no-mig-backed-vgpu",
        action="store_false",
        default=None,
        dest="mig_backed_vgpu",
        help="MIG without vGPU licensing (bare metal or containers)",
    )
    given.add_argument(
        "--perf",
        metavar="NAME=VALUE",
        type=_performance_constant,
        action="append",
        default=[],
        help="set a constant of the slowdown model, in its unit (repeatable; the last value of a "
        f"name wins); constants: {', '.join(CONSTANTS)}",
    )

    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 without planning if any input row is skipped or any column ignored "
        "(default: plan with the usable rows and list the others)",
    )


def _dest(name: str) -> str:
    """Namespace attribute of an assumption's option (``network.latency_us`` gives
    ``network__latency_us``)."""
    return name.replace(".", "__")


def _fact_number(name: str, about: Fact) -> Callable[[str], float]:
    """An argparse type: a number the assumption's ``Fact`` accepts, else its rule."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        try:
            about.checked(name, value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return int(value) if about.whole else value

    return parse


def given_scenario_options(args: argparse.Namespace) -> dict[str, str]:
    """The scenario options (``add_scenario_arguments``) given on the command line: each one's
    namespace attribute to its flag (``{"pue": "--pue"}``), in the parser's order. Each option
    defaults to a value giving it never leaves (None, an empty list, off), so one whose value
    is not its default was given, whatever the value."""
    reference = argparse.ArgumentParser(add_help=False)
    add_scenario_arguments(reference)
    return {
        action.dest: action.option_strings[0]
        for action in reference._actions
        if action.option_strings and getattr(args, action.dest, action.default) != action.default
    }


def _given_facts(args: argparse.Namespace) -> dict[str, Any]:
    """The assumptions the options given set, by name (``Assumptions.with_facts``), whatever
    their value; an option not given sets nothing."""
    given_options = given_scenario_options(args)
    given: dict[str, Any] = {}
    for name, _about, default in facts(Assumptions()):
        if _dest(name) in given_options:
            value = getattr(args, _dest(name))
            given[name] = type(default)(value) if isinstance(default, enum.Enum) else value
    if "mig_backed_vgpu" in given_options:
        given["mig_backed_vgpu"] = args.mig_backed_vgpu
    return given


def _assumptions(args: argparse.Namespace) -> Assumptions:
    """The default assumptions with those the options set."""
    return Assumptions().with_facts(
        {**_given_facts(args), "performance_constants": dict(args.perf)}
    )


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            [InputProblem(path.name, None, None, f"{what} file {path} not found", "check the path")]
        ) from None
    except OSError as error:
        raise InputError(
            [
                InputProblem(
                    path.name,
                    None,
                    None,
                    f"{what} file {path} cannot be read ({error.strerror})",
                    "check the path and its permissions",
                )
            ]
        ) from None


def add_input_file_arguments(parser: argparse.ArgumentParser) -> None:
    """Options naming the input files: the planner's CSVs or any tool output the importers read
    (``planner.inputs.importers``), several of each; or a plan workbook to restore."""
    files = parser.add_argument_group(
        "input files (default: the bundled sample scenario)",
        "--inventory and --workloads take the planner's CSVs or tool output, detected from the "
        "content: kubectl get nodes/pods -o json, nvidia-smi (-L, --query-gpu CSV, the table, "
        "mig -lgi/-lgip), an RVTools export, DCGM exporter metrics. Give several to combine "
        "them (hosts are matched by name).",
    )
    files.add_argument(
        "--inventory",
        type=Path,
        nargs="+",
        action="extend",
        metavar="FILE",
        help="inventory CSV or tool output (repeatable)",
    )
    files.add_argument(
        "--workloads",
        type=Path,
        nargs="+",
        action="extend",
        metavar="FILE",
        help="workload CSV or tool output (repeatable)",
    )
    files.add_argument("--catalog-extra", type=Path, help="your own GPU models, as gpus.csv")
    files.add_argument(
        "--from-workbook",
        type=Path,
        metavar="XLSX",
        help="restore the inputs and assumptions of a plan workbook the planner wrote (the "
        "other options then override them)",
    )
    files.add_argument(
        "--host-name",
        help="host of nvidia-smi outputs that do not name theirs (default: the file name)",
    )
    files.add_argument(
        "--cluster",
        help="cluster of imported hosts that no file names (a trace node list's nodes too)",
    )
    files.add_argument(
        "--cluster-gpus",
        metavar="CLUSTER=MODEL:GPUS",
        action="append",
        default=[],
        type=_cluster_gpus,
        help=(
            "GPUs of each host of a cluster no file gives GPUs for (RVTools has none), or only "
            "assumes (nvidia-smi mig -lgi); repeatable"
        ),
    )
    files.add_argument("--group-by", metavar="LABEL", help="group pods by this label, not owner")


def _headroom(text: str) -> int:
    """``K`` of ``--headroom``: a whole number of host failures, 0 or more."""
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a whole number of host failures, for example 1"
        ) from None
    if not 0 <= k <= MAX_HEADROOM:
        raise argparse.ArgumentTypeError(
            f"{text!r}: host failures to tolerate must be 0 to {MAX_HEADROOM}"
        )
    return k


def _cluster_gpus(text: str) -> tuple[str, tuple[str, int]]:
    """``CLUSTER=MODEL:GPUS`` of ``--cluster-gpus``."""
    cluster, equals, rest = text.partition("=")
    model, colon, count = rest.rpartition(":")
    if not (equals and colon and cluster.strip() and model.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected CLUSTER=MODEL:GPUS, for example prod=L40S:4"
        )
    try:
        gpus = int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: GPUS must be a whole number") from None
    if gpus < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: GPUS must be at least 1")
    return cluster.strip(), (model.strip(), gpus)


def _files(paths: Sequence[Path], what: str) -> list[tuple[str, bytes]]:
    return [(path.name, _read(path, what)) for path in paths]


def _is_planner_csv(file: tuple[str, bytes], expected: Format) -> bool:
    """A lone file the planner's CSV loader reads: detected as ``expected``, or a
    ``.csv`` no importer recognises (the loader names its missing columns); a known tool's
    output that is not read goes to the importers, whose refusal says what to give instead."""
    name, data = file
    if is_workbook(data):
        # A workbook is never the planner's CSV; the importers read it.
        return False
    try:
        role: Role = "inventory" if expected is Format.INVENTORY_CSV else "workloads"
        return detect_format(name, data, role=role) is expected
    except UnknownFormatError:
        return name.lower().endswith(".csv")
    except InputError:
        return False


def _restored_assumptions(restored: Assumptions, args: argparse.Namespace) -> Assumptions:
    """The workbook's assumptions with every one an option given sets, at whatever value (its
    default too: what the user typed wins); the performance constants are the workbook's
    overrides with each ``--perf`` on top (one constant each, the last of a name winning), so
    the workbook's others are kept.

    Each value is checked where it is read: the workbook's by ``read_plan_inputs`` (a bad one
    is a problem on its row and keeps its default), the options' as they are parsed
    (``_fact_number``, ``_performance_constant``), and the merge by ``Assumptions.with_facts``,
    which refuses an unknown constant and checks every value as an ``Assumptions`` checks
    itself when built.
    """
    changed = {
        **_given_facts(args),
        "performance_constants": {**restored.performance_constants, **dict(args.perf)},
    }
    try:
        merged = restored.with_facts(changed)
    except ValueError as error:
        raise InputError(
            [
                InputProblem(
                    args.from_workbook.name,
                    None,
                    None,
                    f"an assumption out of range: {error}",
                    "override it with its option (--perf NAME=VALUE for performance constants)",
                )
            ]
        ) from None
    return merged


@dataclass(frozen=True)
class ReadInputs:
    """What the arguments' input files gave, each file read once."""

    scenario: Scenario
    problems: tuple[InputProblem, ...]
    """Input rows that were skipped (or changed), each with its reason and fix."""
    given: Mapping[str, bytes]
    """The lone inventory and workload files planned, as given, by the plan workbook's names
    for them (``inventory.csv``, ``workloads.csv``): the workbook keeps a list of Alibaba's
    GPU-sharing trace among them as given. Empty for the bundled sample."""
    restored: PlanInputs | None = None
    """The plan workbook ``--from-workbook`` restored, whose sizing question ``_purchase``
    asks again; None when none is given."""


def scenario_from_args(
    args: argparse.Namespace, *, report: TextIO | None = None
) -> tuple[Scenario, tuple[InputProblem, ...]]:
    """The scenario the arguments describe and the input rows that were skipped
    (``read_inputs``)."""
    read = read_inputs(args, report=report)
    return read.scenario, read.problems


def read_inputs(args: argparse.Namespace, *, report: TextIO | None = None) -> ReadInputs:
    """The scenario the arguments describe, the input rows that were skipped, and the lone
    files as given, each input file read once.

    A lone planner CSV is loaded as always; other files (or several) go through the importers,
    and what each contributed and assumed is written to ``report`` (default stderr), one line
    per group of notes. An import option no file uses (``--group-by`` beside a planner CSV) is
    a problem naming it. Raises ``InputError`` when a file cannot be used at all.
    With ``--scenario``, the saved scenario instead (``StoreError`` when it is not saved or other
    scenario options are given).
    """
    if getattr(args, "scenario", None) is not None:
        from planner.scenarios_cli import saved_from_args

        saved = saved_from_args(args)
        scenario, skipped = saved.scenario()
        kept = {"inventory.csv": saved.inventory.content, "workloads.csv": saved.workloads.content}
        return ReadInputs(scenario, skipped, kept)
    stream = sys.stderr if report is None else report
    restored = None if args.from_workbook is None else read_plan_inputs(args.from_workbook)
    notes: list[str] = []
    problems: list[InputProblem] = []
    if restored is not None:
        notes.extend(summarise_notes(restored.notes))
        problems.extend(restored.problems)
    if args.catalog_extra is not None:
        extra: bytes | None = _read(args.catalog_extra, "catalog")
        extra_name = args.catalog_extra.name
    else:
        extra = None if restored is None else restored.own_gpus_csv
        extra_name = "my_gpus.csv"
    catalog = load_catalog(extra_gpus=extra, extra_gpus_name=extra_name)
    inventory_files = (
        _files(args.inventory, "inventory")
        if args.inventory
        else [("inventory.csv", restored.inventory_csv)]
        if restored is not None
        else [(SAMPLE_INVENTORY.name, _read(SAMPLE_INVENTORY, "inventory"))]
    )
    workload_files = (
        _files(args.workloads, "workloads")
        if args.workloads
        else [("workloads.csv", restored.workloads_csv)]
        if restored is not None
        else [(SAMPLE_WORKLOADS.name, _read(SAMPLE_WORKLOADS, "workloads"))]
    )
    cluster = _given_cluster(args, None if args.inventory else restored)
    hosts_read = (
        _no_hosts(catalog)
        if restored is not None and not args.inventory and _sizes_no_host(args, restored)
        else _hosts_of(args, inventory_files, catalog, cluster)
    )
    hosts = hosts_read.hosts
    inventory = hosts_read.inventory
    catalog = hosts.catalog
    mix_read = _mix_of(args, workload_files, hosts, inventory_files)
    workloads = mix_read.workloads
    notes.extend([*hosts_read.notes, *mix_read.notes])
    for line in notes:
        print(f"import: {line}", file=stream)
    assumptions = (
        _assumptions(args)
        if restored is None
        else _restored_assumptions(restored.assumptions, args)
    )
    scenario = Scenario(
        catalog=catalog,
        inventory=inventory.value,
        workloads=tuple(workloads.value),
        assumptions=assumptions,
        cpu_only=mix_read.cpu_only,
    )
    # A lone file given, or the restored workbook's, is kept as it is; several files are kept
    # as the planner CSV the scenario's sheets hold, and the sample is not kept.
    given: dict[str, bytes] = {}
    for name, files_read, paths in (
        ("inventory.csv", inventory_files, args.inventory),
        ("workloads.csv", workload_files, args.workloads),
    ):
        if len(paths or ()) == 1 or (not paths and restored is not None):
            given[name] = files_read[0][1]
    not_used = _options_not_used(args, hosts_read, mix_read)
    return ReadInputs(
        scenario,
        (*problems, *inventory.problems, *workloads.problems, *not_used),
        given,
        restored,
    )


def _sizes_no_host(args: argparse.Namespace, restored: PlanInputs) -> bool:
    """The restored workbook keeps no host, and a new cluster is sized (``_purchase``: its
    server types or ``--size``, not added to an inventory): the inventory plays no part, so
    none is a sizing's question as asked, where a fit of none is refused."""
    if not hasattr(args, "size"):
        return False  # the command sizes nothing (harvest): it plans on hosts, and none is refused
    sized = bool(args.size) or bool(restored.server_rows)
    added = args.add_to_inventory or (not args.size and restored.add_to_inventory)
    return restored.holds_no_host and sized and not added


def _no_hosts(catalog: Catalog) -> _HostsGiven:
    """The inventory of no host a new cluster's sizing was asked with."""
    none = Inventory(hosts=())
    return _HostsGiven(
        LoadedHosts(none, catalog),
        Loaded(none),
        (),
        (("inventory.csv", "an inventory of no host, as the sizing was asked"),),
        lone=True,
    )


@dataclass(frozen=True)
class _HostsGiven:
    """The inventory files as read, and how."""

    hosts: LoadedHosts
    inventory: Loaded[Inventory]
    notes: tuple[str, ...]
    """What the import gave and assumed, one line per group of notes."""
    read_as: tuple[tuple[str, str], ...]
    """(file, what it was read as) for each file."""
    lone: bool
    """One planner CSV or trace node list, read without the importers."""


def _hosts_of(
    args: argparse.Namespace,
    files: Sequence[tuple[str, bytes]],
    catalog: Catalog,
    cluster: GivenCluster | None,
) -> _HostsGiven:
    """The hosts of the inventory files: a lone planner CSV or trace node list loaded as always
    (a trace's nodes in the ``cluster`` given), other files (or several) imported."""
    if len(files) == 1 and (
        alibaba_trace.is_node_list(files[0][1]) or _is_planner_csv(files[0], Format.INVENTORY_CSV)
    ):
        read = load_hosts(files[0], catalog, cluster=cluster)
        hosts = read.value
        what = _TRACE_NODES if hosts.cluster is not None else Format.INVENTORY_CSV.label
        return _HostsGiven(
            hosts,
            Loaded(hosts.inventory, read.problems),
            tuple(summarise_notes(hosts.notes)),
            ((files[0][0], what),),
            lone=True,
        )
    imported = import_inventory(
        files,
        catalog,
        host_name=args.host_name,
        cluster=args.cluster,
        gpus_by_cluster=dict(args.cluster_gpus),
    )
    inventory = imported.inventory(catalog)
    return _HostsGiven(
        LoadedHosts(inventory.value, imported.planning_catalog(catalog)),
        inventory,
        tuple(summarise_notes(imported.notes)),
        imported.files,
        lone=False,
    )


@dataclass(frozen=True)
class _MixGiven:
    """The workload files as read, and how."""

    workloads: Loaded[tuple[WorkloadClass, ...]]
    cpu_only: tuple[WorkloadClass, ...]
    """Classes of a trace pod list's pods that use no GPU."""
    notes: tuple[str, ...]
    read_as: tuple[tuple[str, str], ...]
    pods_read: bool
    """Some file gave kubectl pods, which ``--group-by`` groups."""


def _mix_of(
    args: argparse.Namespace,
    files: Sequence[tuple[str, bytes]],
    hosts: LoadedHosts,
    inventory_files: Sequence[tuple[str, bytes]],
) -> _MixGiven:
    """The workloads of the workload files on ``hosts``: a lone planner CSV or trace pod list
    loaded as always, other files (or several) imported."""
    if len(files) == 1 and (
        alibaba_trace.is_pod_list(files[0][1]) or _is_planner_csv(files[0], Format.WORKLOADS_CSV)
    ):
        mix = load_mix(files[0], hosts)
        what = _TRACE_PODS if mix.value.pods is not None else Format.WORKLOADS_CSV.label
        return _MixGiven(
            Loaded(mix.value.workloads, mix.problems),
            mix.value.cpu_only,
            tuple(summarise_notes(mix.value.notes)),
            ((files[0][0], what),),
            pods_read=False,
        )
    # The inventory's kubectl nodes tell which pods hold a share of a GPU (time-slicing, MPS,
    # MIG single) rather than whole GPUs.
    imported = import_workloads(files, hosts.catalog, group_by=args.group_by, nodes=inventory_files)
    return _MixGiven(
        imported.workloads(hosts.catalog),
        imported.cpu_only,
        tuple(summarise_notes(imported.notes)),
        imported.files,
        pods_read=bool(imported.pods),
    )


_TRACE_NODES = "a node list of Alibaba's GPU-sharing trace"
_TRACE_PODS = "a pod list of Alibaba's GPU-sharing trace"


def _given_cluster(args: argparse.Namespace, restored: PlanInputs | None) -> GivenCluster | None:
    """The cluster a trace node list's nodes are put in: ``--cluster``; without it, the one the
    workbook ``restored`` (whose inventory is planned) keeps for its node list; else None, the
    trace's own."""
    name = (args.cluster or "").strip()
    if name:
        return GivenCluster.by_user(name)
    return None if restored is None else restored.given_cluster(args.from_workbook.name)


def _read_as(files: Sequence[tuple[str, str]]) -> str:
    """The files and what each was read as: ``nodes.csv (a node list of ...)``."""
    return ", ".join(f"{file} ({what})" for file, what in files)


def _options_not_used(
    args: argparse.Namespace, hosts: _HostsGiven, mix: _MixGiven
) -> list[InputProblem]:
    """A problem per import option given that no input file used, naming the files and what
    they were read as: such an option changes nothing, and the user expects it to.

    ``--host-name`` names the host of a single-host nvidia-smi output, ``--cluster`` the cluster
    of hosts no file names one for, ``--cluster-gpus`` the GPUs of hosts no file gives GPUs for
    (a lone planner CSV or trace node list gives every host's; several files or tool output go
    to the import, which names a cluster no host is in), ``--group-by`` the label kubectl pods
    are grouped by."""
    problems: list[InputProblem] = []
    inventory = hosts.inventory.value
    hosts_from = ", ".join(file for file, _ in hosts.read_as)
    hosts_said = _read_as(hosts.read_as)
    host_name = (args.host_name or "").strip()
    if host_name and not any(h.name.casefold() == host_name.casefold() for h in inventory.hosts):
        problems.append(
            InputProblem(
                hosts_from,
                None,
                None,
                f"--host-name {quoted(host_name)} is not used: it names the host of an "
                f"nvidia-smi output that names none, and no host of {hosts_said} took it",
                "leave --host-name out, or give with it the one host's nvidia-smi output "
                "(-L, --query-gpu, -q, the table, mig -lgi) saved without its host name",
            )
        )
    cluster = (args.cluster or "").strip()
    if cluster and not any(h.cluster.casefold() == cluster.casefold() for h in inventory.hosts):
        problems.append(
            InputProblem(
                hosts_from,
                None,
                None,
                f"--cluster {quoted(cluster)} is not used: it is the cluster of hosts no file "
                f"names one for, and {hosts_said} names every host's cluster",
                "leave --cluster out, or change the cluster where the file names it",
            )
        )
    if hosts.lone:
        problems.extend(
            InputProblem(
                hosts_from,
                None,
                None,
                f"--cluster-gpus {quoted(f'{name}={model}:{gpus}')} is not used: it gives the "
                f"GPUs of hosts no file gives GPUs for (RVTools, nvidia-smi mig -lgi), and "
                f"{hosts_said} gives every host's GPUs",
                "leave --cluster-gpus out, or correct the GPUs in the file",
            )
            for name, (model, gpus) in args.cluster_gpus
        )
    group_by = (args.group_by or "").strip()
    if group_by and not mix.pods_read:
        problems.append(
            InputProblem(
                ", ".join(file for file, _ in mix.read_as),
                None,
                None,
                f"--group-by {quoted(group_by)} is not used: it groups kubectl pods into "
                f"classes by a label, and {_read_as(mix.read_as)} lists no kubectl pod",
                "leave --group-by out, or give kubectl get pods -A -o json output",
            )
        )
    return problems


def _money(value: float | None) -> str:
    return "—" if value is None else f"${value:,.0f}"


def recommended_lines(plan: ScenarioPlan) -> list[str]:
    """The recommended plan first: its answer against today, its bound, one line per class."""
    best = plan.recommended
    if best is None:
        return []
    ratio = best.ratio_to_bound
    lines = [
        f"Recommended plan: {best.headline()}",
        f"  {_money(best.result.cost.total_usd_per_year)}/year; {best.bound_said()} (ratio "
        f"{'—' if ratio is None else f'{ratio:.3f}'}, {best.result.plan.status.value}); "
        f"found as {best.source}.",
    ]
    width = max((len(d.workload) for d in best.decisions), default=0)
    for d in best.decisions:
        served = ", ".join(f"{m.label} {n}" for m, n in d.served) or "nothing"
        left = f", {d.not_served} left out" if d.not_served else ""
        lines.append(f"  {d.workload:<{width}}  {served}{left}: {d.reason}")
    lines.extend(f"  {figure}: {value}" for figure, value in best.purchase_facts())
    return lines


def summary_lines(plan: ScenarioPlan) -> list[str]:
    """The recommended plan (``recommended_lines``), then one line per plan: GPUs, hosts,
    placed / not placed, cost per year, GPUs used over the proven fewest (the recommended plan's
    cost ratio is in its own lines above)."""
    width = max((len(r.label) for r in plan.results), default=0)
    lines = recommended_lines(plan)
    for s in plan.servers:
        lines.append(f"Sizing servers of {s.label}, {s.cpu_cores:g} cores, {s.ram_gib:g} GiB RAM")
    for r in plan.results:
        m = r.metrics
        ratio = "—" if m.ratio_to_bound is None else f"{m.ratio_to_bound:.2f}"
        line = (
            f"{r.label:<{width}}  {m.gpus_used:>4} {'GPU ' if m.gpus_used == 1 else 'GPUs'}  "
            f"{m.hosts_used:>3} {'host ' if m.hosts_used == 1 else 'hosts'}  "
            f"placed {m.instances_placed}/{m.instances_placed + m.instances_not_placed}  "
            f"{_money(r.cost.total_usd_per_year)}/year  "
            f"{_money(r.cost.usd_per_instance_year)}/instance  "
            f"GPUs over bound {ratio} ({r.plan.status.value})"
        )
        if r.feasibility_violations:
            line += f"  BROKEN: {counted(len(r.feasibility_violations), 'rule')} violated"
        if not m.instances_placed and r.plan.not_placed:
            line += f"  none placed: {_main_reason(r.plan.not_placed)}"
        lines.append(line)
    return lines


def _main_reason(not_placed: Sequence[NotPlaced]) -> str:
    """The reason most instances left out share, with how many other reasons there are."""
    reasons = Counter(n.reason for n in not_placed)
    reason, _ = reasons.most_common(1)[0]
    others = len(reasons) - 1
    return reason + (f" (and {counted(others, 'other reason')})" if others else "")


def _print_problems(problems: Sequence[InputProblem], stream: TextIO) -> None:
    for problem in problems:
        print(f"input: {problem}", file=stream)


def report_input_problems(
    problems: Sequence[InputProblem],
    *,
    command: str,
    strict: bool,
    in_workbook: bool = False,
    stream: TextIO | None = None,
) -> int | None:
    """Print each skipped row and problem, then one summary line; the exit code to stop with
    (``EXIT_BAD_INPUT`` under ``strict`` when there is any problem), or None to go on."""
    out = sys.stderr if stream is None else stream
    _print_problems(problems, out)
    summary = skipped_summary(problems)
    if summary is None:
        return None
    if strict:
        print(f"{command}: {summary}; --strict: stopped, no result (see above).", file=out)
        return EXIT_BAD_INPUT
    where = "above and in the workbook's Input problems sheet" if in_workbook else "above"
    print(f"{command}: {summary}: see the list {where}.", file=out)
    return None


def _purchase(
    args: argparse.Namespace, catalog: Catalog, restored: PlanInputs | None = None
) -> Loaded[tuple[tuple[ServerType, ...], bool, int]]:
    """The server types to size with, whether they are bought on top of the inventory, and the
    host failures each cluster tolerates: from ``--size``, else from the ``--scenario`` saved or
    the plan workbook ``restored`` (with the rows of its question that cannot be used);
    ``--add-to-inventory`` and ``--headroom`` given win over the saved ones."""
    from planner.scenarios_cli import saved_purchase

    servers = server_types(args.size or (), catalog)
    if servers:
        return Loaded((servers, args.add_to_inventory, args.headroom or 0))
    problems: tuple[InputProblem, ...] = ()
    if restored is not None:
        bought = restored.server_types(catalog, file_name=args.from_workbook.name)
        servers, add, headroom = bought.value, restored.add_to_inventory, restored.headroom
        problems = bought.problems
    else:
        servers, add, headroom = saved_purchase(args)
    # --headroom 0 given is a choice too: only an absent one keeps the saved headroom.
    return Loaded(
        (
            servers,
            args.add_to_inventory or add,
            headroom if args.headroom is None else args.headroom,
        ),
        problems,
    )


def _methods(args: argparse.Namespace, restored: PlanInputs | None) -> tuple[Method, ...]:
    """The sharing methods to plan: ``--methods``, else those the plan workbook ``restored`` was
    made with, else every method."""
    if args.methods:
        return tuple(Method(m) for m in args.methods)
    return tuple(Method) if restored is None else restored.methods


def workbook_path(text: str) -> Path:
    """A path to write an Excel workbook to (``--out``, ``--workbook``): another kind of file's
    name (``plan.csv``) is refused before planning, as a spreadsheet would warn that the content
    does not match; a name without a suffix (a device) is written as given."""
    path = Path(text)
    if path.suffix and path.suffix.lower() != ".xlsx":
        raise argparse.ArgumentTypeError(
            f"{text}: an Excel workbook is written, not a {path.suffix} file; give a name ending "
            f"in .xlsx ({path.with_suffix('.xlsx').name})"
        )
    return path


def _run_plan(args: argparse.Namespace) -> int:
    """Plan (or size) the scenario, print the summary, write the workbook when asked."""
    from planner.output.export import write_workbook
    from planner.store import StoreError, StoreWriteError

    try:
        read = read_inputs(args)
        purchase = _purchase(args, read.scenario.catalog, read.restored)
        scenario, problems = read.scenario, (*read.problems, *purchase.problems)
        servers, add, headroom = purchase.value
    except StoreError as error:
        print(f"plan: {error}", file=sys.stderr)
        # Opening the database writes its journal beside it: a folder or disk refusing that is
        # an output that cannot be written, not bad input.
        return EXIT_WRITE_FAILED if isinstance(error, StoreWriteError) else EXIT_BAD_INPUT
    except InputError as error:
        _print_problems(error.problems, sys.stderr)
        print("plan: the input above cannot be used; nothing was planned.", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UsageError as error:
        print(f"plan: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    stop = report_input_problems(
        problems, command="plan", strict=args.strict, in_workbook=args.out is not None
    )
    if stop is not None:
        return stop
    methods = _methods(args, read.restored)
    if (add or headroom) and not servers:
        print(f"plan: {PURCHASE_NEEDS_SIZE}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not servers:
        result = plan_scenario(scenario, methods=methods)
    elif add:
        result = add_to_inventory(scenario, servers, methods=methods, headroom=headroom)
    else:
        result = size_cluster(scenario, servers, methods=methods, headroom=headroom)
    if scenario.cpu_only:
        count = sum(w.instances for w in scenario.cpu_only)
        print(
            f"{count} {'pod' if count == 1 else 'pods'} without a GPU: the methods that place "
            "pods on nodes give them node cores and RAM; those plans' notes say how many fit"
        )
    for line in summary_lines(result):
        print(line)
    if args.out is not None:
        extra = {} if servers or args.no_harvest else plan_harvest_tables(scenario)
        try:
            write_workbook(
                result, args.out, extra_sheets=extra, input_problems=problems, given=read.given
            )
        except OSError as error:
            print(f"plan: cannot write {args.out}: {error.strerror}", file=sys.stderr)
            return EXIT_WRITE_FAILED
        print(f"Wrote {args.out}")
    return EXIT_OK


PURCHASE_NEEDS_SIZE = (
    "--add-to-inventory and --headroom size servers to buy: name their type with --size TYPE "
    "(for example --size hgx-h100-8 or --size catalog)"
)
"""Why ``--add-to-inventory`` or ``--headroom`` without ``--size`` is refused."""


def add_purchase_arguments(parser: argparse.ArgumentParser) -> None:
    """``--add-to-inventory`` and ``--headroom``: how the ``--size`` servers are bought."""
    parser.add_argument(
        "--add-to-inventory",
        action="store_true",
        help=(
            "with --size: keep every host of the inventory as it is and buy only what must be "
            "added on top of it, of the --size types, so that everything any method can serve "
            "is served (owned hosts cost no purchase; their power and licences still count)"
        ),
    )
    parser.add_argument(
        "--headroom",
        type=_headroom,
        default=None,
        metavar="K",
        help=(
            "with --size: host failures each cluster tolerates (N+K, as vSphere HA's host "
            "failures to tolerate): the K largest hosts of each cluster and GPU model stay "
            "idle for failover and each new cluster gets K more servers; checked by restarting "
            "the failed hosts' GPUs on the rest (default 0)"
        ),
    )


def add_plan_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``plan``: fit the workloads to the inventory (or size a cluster)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "plan",
        help="plan every sharing method and write the workbook",
        description=(
            "Fit the workload mix to the inventory under passthrough, vGPU, MIG and a remote "
            "pool (or, with --size, count the servers each needs; with --add-to-inventory too, "
            "the servers to buy on top of the inventory), print one line per method "
            "and write the plan workbook. With no files given, plans the bundled sample."
        ),
        epilog=EXIT_POLICY,
    )
    add_scenario_arguments(parser)
    parser.add_argument(
        "--size",
        action="append",
        metavar="TYPE",
        help=(
            "size a new cluster instead of fitting the inventory, of this server type: "
            "MODEL:GPUS:CORES:RAM_GIB, a type of data/catalog/servers.csv (hgx-h100-8), or "
            "'catalog' for all of them; repeat to let the plan choose among several types"
        ),
    )
    add_purchase_arguments(parser)
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=[m.value for m in Method],
        help=f"methods to plan (default: all {len(Method)})",
    )
    parser.add_argument("--out", type=workbook_path, help="workbook to write (.xlsx)")
    parser.add_argument(
        "--scenario",
        metavar="NAME",
        help="plan a saved scenario (its files, assumptions and server type) instead of files",
    )
    _add_db_argument(parser)
    parser.add_argument(
        "--no-harvest",
        action="store_true",
        help="leave out the harvest sheets (VDI GPUs running ML at night, default settings)",
    )
    parser.set_defaults(func=_run_plan)
    return parser


def add_harvest_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``harvest`` on an ``argparse`` sub-parser set; its handler is ``args.func``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "harvest",
        help="ML work harvested from idle VDI GPUs at night and at weekends",
        description=(
            "Simulate an ML backlog on the GPUs that serve VDI desktops, desktops first. "
            "Defaults to the sample scenario."
        ),
    )
    add_scenario_arguments(parser)
    parser.add_argument(
        "--curve",
        help="VDI curve: a preset name (vdi-office, ...) or a file of 24 or 168 values; "
        "default: each VDI class's own schedule",
    )
    parser.add_argument(
        "--pool-gpus",
        type=int,
        help="a pool of this many desktop GPUs busy as --curve says (vdi-office by default), "
        "as the dashboard's given pool; the scenario is not read (default: the GPUs the vGPU "
        "plan of the scenario's VDI desktops uses)",
    )
    defaults = HarvestSettings()
    parser.add_argument(
        "--backlog",
        type=float,
        default=defaults.backlog_gpu_hours_per_day,
        help="ML GPU-hours submitted per submit day",
    )
    parser.add_argument("--submit-hour", type=float, default=defaults.submit_hour)
    parser.add_argument("--job-gpus", type=int, default=defaults.gpus_per_job)
    parser.add_argument("--job-gpu-hours", type=float, default=defaults.gpu_hours_per_job)
    parser.add_argument(
        "--restart",
        action="store_true",
        help="jobs cannot checkpoint: they lose their work when desktops return",
    )
    parser.add_argument("--resolution", type=int, choices=(60, 30, 15), default=60)
    parser.add_argument(
        "--submit-days",
        default="0,1,2,3,4",
        help="days that submit work, 0 = Monday (default: 0,1,2,3,4)",
    )
    parser.add_argument(
        "--workbook", type=workbook_path, help="write the harvest sheets to this .xlsx"
    )
    parser.set_defaults(func=_run_harvest)
    return parser


def _load_curve(text: str) -> WeeklyCurve:
    if text in CURVE_PRESETS:
        return curve_preset(text)
    path = Path(text)
    if not path.is_file():
        known = ", ".join(CURVE_PRESETS)
        raise ValueError(f"--curve {text!r} is neither a preset ({known}) nor a file")
    return parse_curve(curve_file_text(_read(path, "curve"), path.name), source=path.name)


def _run_harvest(args: argparse.Namespace) -> int:
    """Print the harvest summary; write the workbook sheets when asked."""
    try:
        submit_days = tuple(int(d) for d in str(args.submit_days).split(",") if d.strip())
    except ValueError:
        print(
            f"harvest: --submit-days {args.submit_days!r} is not a list like 0,1,2,3,4",
            file=sys.stderr,
        )
        return 2
    if args.pool_gpus is not None and args.pool_gpus < 1:
        print(
            f"harvest: --pool-gpus {args.pool_gpus} is no pool of GPUs; give 1 or more, or "
            "leave it out to harvest the GPUs of the scenario's VDI desktops",
            file=sys.stderr,
        )
        return 2
    settings = HarvestSettings(
        backlog_gpu_hours_per_day=args.backlog,
        submit_hour=args.submit_hour,
        gpus_per_job=args.job_gpus,
        gpu_hours_per_job=args.job_gpu_hours,
        checkpointing=not args.restart,
        submit_days=submit_days,
        resolution_minutes=args.resolution,
    )
    try:
        check_settings(settings)  # before the scenario is read and planned: fails fast
        curve = None if args.curve is None else _load_curve(args.curve)
        if args.pool_gpus is None:
            scenario, problems = scenario_from_args(args)
            result = harvest_scenario(scenario, settings, curve=curve)
        else:
            # A given pool follows the curve alone, as the dashboard's given pool does: its
            # size does not depend on the hosts, so any estate (Kubernetes only) is harvested.
            problems = ()
            result = harvest_given_pool(args.pool_gpus, settings, curve=curve)
    except InputError as error:
        for problem in error.problems:
            print(f"input: {problem}", file=sys.stderr)
        print("harvest: the input above cannot be used; nothing was simulated.", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"harvest: {error}", file=sys.stderr)
        return 2
    stop = report_input_problems(problems, command="harvest", strict=args.strict)
    if stop is not None:
        return stop
    _print_harvest(result, args.pool_gpus, curve)
    if args.workbook is not None:
        try:
            from planner.output.export import write_sheets

            write_sheets(harvest_tables(result), args.workbook)
        except OSError as error:
            print(f"harvest: cannot write {args.workbook}: {error.strerror}", file=sys.stderr)
            return 1
        print(f"Wrote {args.workbook}")
    return 0


def _print_harvest(result: HarvestResult, pool_gpus: int | None, curve: WeeklyCurve | None) -> None:
    """The harvest summary, one figure a line, then its notes; ``pool_gpus``: the pool given."""
    summary = harvest_summary(result)
    width = int(summary["figure"].str.len().max())
    for figure, value, unit in summary.itertuples(index=False):
        shown = f"{value:,.2f}" if isinstance(value, float) else str(value)
        if value is None:
            shown = "—"
        print(f"{figure:<{width}}  {shown} {unit}".rstrip())
    if pool_gpus is not None:
        shape = "vdi-office" if curve is None else curve.name or "given"
        print(
            f"Note: VDI pool: {counted(pool_gpus, 'GPU')}, given, desktops busy as the "
            f"{shape} curve says; the scenario's inventory and workloads are not read (leave "
            "out --pool-gpus to harvest the GPUs of its VDI desktops)."
        )
    for note in result.notes:
        print(f"Note: {note}")


def _add_db_argument(parser: argparse.ArgumentParser) -> None:
    from planner.scenarios_cli import add_db_argument

    add_db_argument(parser)


def _add_scenarios_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``scenarios`` from ``planner.scenarios_cli``."""
    from planner.scenarios_cli import add_scenarios_command

    return add_scenarios_command(subparsers)


SUBCOMMANDS: tuple[Callable[[Any], argparse.ArgumentParser], ...] = (
    add_plan_command,
    add_harvest_command,
    _add_scenarios_command,
)
"""Functions that each register one subcommand; append one here to add a command."""


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m planner`` parser with every subcommand of ``SUBCOMMANDS``."""
    parser = argparse.ArgumentParser(
        prog="python -m planner",
        description="GPU Share Planner: plan shared GPUs for ML workloads.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


@contextmanager
def native_prints_hidden() -> Iterator[None]:
    """Python's output to stdout as usual, while what native code prints straight to the
    process's stdout is dropped: HiGHS, inside SciPy, now and then prints a debug line
    (``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();``,
    ERGO-Code/HiGHS#2783) that would land among the plan's lines. Only when ``sys.stdout`` is
    the process's stdout (file descriptor 1), as for ``python -m planner``."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        descriptor = -1
    if descriptor != 1:
        yield
        return
    python_out = sys.stdout
    python_out.flush()
    own = os.dup(1)
    sys.stdout = open(  # noqa: SIM115 (closed below, after the process's stdout is back)
        own, "w", buffering=1, encoding=python_out.encoding, errors=python_out.errors
    )
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)
    os.close(sink)
    try:
        yield
    finally:
        sys.stdout.flush()
        _flush_native_stdout()
        os.dup2(own, 1)
        sys.stdout.close()
        sys.stdout = python_out


def _flush_native_stdout() -> None:
    """C's stdio buffers of this process written out (to where fd 1 points now)."""
    # Without a C library to reach (Windows) the buffer drains where it will.
    with suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(None).fflush(None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (argparse exits 2 itself on a bad option)."""
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code
