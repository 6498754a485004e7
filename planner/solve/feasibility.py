"""The one feasibility checker every plan passes: the shared rules, then each method's own.

``check_plan`` returns every violation it finds as a sentence, and an empty list when the plan is
feasible. It checks the placed plan only (hosts, GPU indices, slots and each GPU's role), never how
a packer made it, so every packer of every method, and the recommended plan that mixes them,
answers to the same rules. Shared by all methods:

- every instance of the scenario is placed completely (all the GPUs its method needs, on one
  host) or listed as not placed, never both and never twice;
- hosts and GPU indices exist and have the GPU model the placement names;
- every GPU in use has one role (a method of the registry) and a configuration; the role's method
  can set up the host (its platform, MIG mode, vGPU profiles); a method that sets up whole hosts
  (``RoleScope.HOST``) shares its host with no other role;
- an instance's GPUs all have one role, and the instance is eligible for it there (its model
  list, the host's platform, the method's own rule: the one rule of ``workload_reason``);
- no host gives out more cores or RAM than it has (instances of methods whose clients run
  elsewhere, such as a remote pool's, take none).

Each method then checks its own rules on each of its GPUs (``SharingMethod.gpu_problems``: memory,
profiles, MIG layouts, the pool's per-hour memory), on each host it sets up (``host_problems``)
and on each instance (``instance_problems``: vGPUs per VM).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import WorkloadClass
from planner.methods.contract import GpuKey, GpuView, PlanContext, RoleScope, gpu_name
from planner.methods.registry import METHODS, Method, host_reason, workload_reason
from planner.plan import MethodPlan, Placement
from planner.scenario import Scenario

if TYPE_CHECKING:
    from planner.solve.views import PlanView

__all__ = ["check_plan", "gpu_views", "host_rule_problems"]

_HOST_TOLERANCE = 1e-6
"""Float slack on core and RAM sums [cores, GiB]."""
_MEMORY_TOLERANCE_GIB = 1e-6
"""Float slack on memory sums [GiB]."""


def gpu_views(plan: MethodPlan, scenario: Scenario) -> dict[GpuKey, GpuView]:
    """Every GPU in use whose host and model are known, with its placements, by key."""
    hosts = {h.name: h for h in (plan.hosts or scenario.inventory.hosts)}
    rows: dict[GpuKey, list[Placement]] = defaultdict(list)
    for p in plan.placements:
        rows[(p.host, p.gpu_index)].append(p)
    views: dict[GpuKey, GpuView] = {}
    for key, placements in rows.items():
        host = hosts.get(key[0])
        model = scenario.catalog.gpus.get(placements[0].gpu_model)
        if host is None or model is None:
            continue
        views[key] = GpuView(key, host, model, plan.gpu_configs.get(key, ""), tuple(placements))
    return views


def check_plan(plan: MethodPlan, scenario: Scenario, view: PlanView | None = None) -> list[str]:
    """Every way ``plan`` breaks the rules of its methods on ``scenario``; empty when feasible.

    Parameters
    ----------
    plan : a plan from any packer (``plan.hosts`` when set, else the scenario's inventory).
    scenario : the catalog, workloads and assumptions the plan was made for.
    view : the plan's ``PlanView`` when the caller has built it (used when every row is sound).
    """
    hosts_list = plan.hosts or scenario.inventory.hosts
    hosts = {h.name: h for h in hosts_list}
    workloads = {w.name: w for w in scenario.workloads}
    by_instance: dict[str, list[Placement]] = defaultdict(list)
    good_rows: list[Placement] = []
    problems: list[str] = []
    for row in plan.placements:
        by_instance[row.instance].append(row)
        problem = _row_problem(row, hosts, workloads, scenario)
        if problem:
            problems.append(problem)
        else:
            good_rows.append(row)
    if view is not None and len(good_rows) == len(plan.placements):
        context, views = view.context, dict(view.gpus)
    else:
        context = PlanContext.of(scenario, good_rows, hosts_list)
        good = {(r.host, r.gpu_index) for r in good_rows}
        views = {key: gpu for key, gpu in gpu_views(plan, scenario).items() if key in good}
    roles, role_problems = _roles(plan, views, scenario)
    problems += role_problems
    problems += _instance_problems(plan, by_instance, roles, context)
    problems += _host_resource_problems(good_rows, roles, hosts, workloads)
    for key in sorted(views):
        if key in roles:
            problems += METHODS[roles[key]].gpu_problems(views[key], context)
    problems += host_rule_problems(views, roles, context)
    return problems


def _row_problem(
    row: Placement,
    hosts: Mapping[str, Host],
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> str | None:
    """What is wrong with one placement row on its own, if anything."""
    host = hosts.get(row.host)
    if host is None:
        return f"{row.instance} is placed on host {row.host}, which the plan does not have"
    if not 0 <= row.gpu_index < host.gpus:
        return (
            f"{row.instance} is placed on GPU {row.gpu_index} of host {row.host}, "
            f"which has GPUs 0-{host.gpus - 1}"
        )
    if row.gpu_model != host.gpu_model:
        return (
            f"{row.instance} is placed as {row.gpu_model} on host {row.host}, "
            f"whose GPUs are {host.gpu_model}"
        )
    if row.gpu_model not in scenario.catalog.gpus:
        return f"{row.instance} is placed on GPU model {row.gpu_model}, not in the catalog"
    if row.workload not in workloads:
        return f"{row.instance} belongs to workload {row.workload}, not in the scenario"
    return None


def _roles(
    plan: MethodPlan, views: Mapping[GpuKey, GpuView], scenario: Scenario
) -> tuple[dict[GpuKey, Method], list[str]]:
    """Each GPU's role, and the problems with roles: missing, unusable on the host, or a
    host-wide method sharing its host with another role."""
    problems: list[str] = []
    roles: dict[GpuKey, Method] = {}
    for key in sorted(views):
        if key not in plan.gpu_configs:
            problems.append(f"{gpu_name(key)} holds instances but has no configuration")
        try:
            role = plan.role(key)
        except KeyError:
            problems.append(f"{gpu_name(key)} holds instances but has no role")
            continue
        roles[key] = role
        unusable = host_reason(role, views[key].host, scenario.catalog)
        if unusable is not None:
            problems.append(f"{gpu_name(key)} is set up for {role.label}, but {unusable}")
    on_host: dict[str, set[Method]] = defaultdict(set)
    for (host, _), role in roles.items():
        on_host[host].add(role)
    for host in sorted(on_host):
        found = on_host[host]
        wide = sorted(m.label for m in found if METHODS[m].scope is RoleScope.HOST)
        if wide and len(found) > 1:
            others = ", ".join(sorted(m.label for m in found))
            problems.append(f"host {host} mixes roles {others}, but {wide[0]} sets up a whole host")
    return roles, problems


def _instance_problems(
    plan: MethodPlan,
    by_instance: Mapping[str, list[Placement]],
    roles: Mapping[GpuKey, Method],
    context: PlanContext,
) -> list[str]:
    """Each instance placed once, completely, on one host and one role it is eligible for, or
    listed as not placed."""
    scenario = context.scenario
    problems: list[str] = []
    known = {i: w for w in scenario.workloads for i in w.instance_ids()}
    unplaced = Counter(n.instance for n in plan.not_placed)
    for instance, count in sorted(unplaced.items()):
        if count > 1:
            problems.append(f"{instance} is listed {count} times as not placed")
        if instance in by_instance:
            problems.append(f"{instance} is both placed and listed as not placed")
        if instance not in known:
            problems.append(
                f"{instance} is listed as not placed but is no instance of the scenario"
            )
    missing = (i for i in known if i not in by_instance and i not in unplaced)
    for instance in sorted(missing):
        problems.append(f"{instance} is neither placed nor listed as not placed")
    # (method, class, GPU model, platform) -> why not eligible, or the GPUs an instance needs.
    eligibility: dict[tuple[Method, str, str, str], str | int] = {}
    for instance in sorted(by_instance):
        workload = known.get(instance)
        if workload is None:
            problems.append(f"{instance} is placed but is no instance of the scenario")
            continue
        rows = by_instance[instance]
        problems += _one_instance(instance, workload, rows, roles, context, eligibility)
    return problems


def _one_instance(
    instance: str,
    workload: WorkloadClass,
    rows: Sequence[Placement],
    roles: Mapping[GpuKey, Method],
    context: PlanContext,
    eligibility: dict[tuple[Method, str, str, str], str | int],
) -> list[str]:
    """The shared rules for one placed instance, then its method's own; ``eligibility`` keeps
    each (method, class, model, platform)'s answer for the next instance that asks."""
    problems: list[str] = []
    if any(r.workload != workload.name for r in rows):
        problems.append(f"{instance} is placed under another workload than {workload.name}")
    host_names = sorted({r.host for r in rows})
    if len(host_names) > 1:
        problems.append(f"{instance} is split over hosts {', '.join(host_names)}")
    gpus = Counter((r.host, r.gpu_index) for r in rows)
    for key, count in sorted(gpus.items()):
        if count > 1:
            problems.append(f"{instance} holds {count} slots on {gpu_name(key)}")
    instance_roles = {roles[key] for key in gpus if key in roles}
    host = context.hosts.get(rows[0].host)
    model = context.catalog.gpus.get(rows[0].gpu_model)
    memory_gib = workload.memory_gib
    if len(instance_roles) == 1 and model is not None:
        memory_gib = METHODS[next(iter(instance_roles))].memory_needed_gib(workload, model)
    memory = sum(r.memory_gib for r in rows)
    if memory + _MEMORY_TOLERANCE_GIB < memory_gib:
        problems.append(
            f"{instance} is given {memory:g} GiB of GPU memory but needs {memory_gib:g} GiB"
        )
    if len(instance_roles) != 1 or host is None or model is None:
        if len(instance_roles) > 1:
            shown = ", ".join(sorted(m.label for m in instance_roles))
            problems.append(f"{instance} holds GPUs of several roles: {shown}")
        return problems
    (method,) = instance_roles
    rules = METHODS[method]
    asked = (method, workload.name, model.name, host.platform.value)
    if asked not in eligibility:
        eligibility[asked] = _reason_or_gpus_needed(method, workload, model, host, context)
    needed = eligibility[asked]
    if isinstance(needed, str):
        problems.append(f"{instance} is placed under {method.label} but not eligible: {needed}")
        return problems
    if len(gpus) < needed:
        problems.append(f"{instance} holds {len(gpus)} GPUs but needs {needed}")
    problems += rules.instance_problems(instance, rows, context)
    return problems


def _reason_or_gpus_needed(
    method: Method, workload: WorkloadClass, model: GpuModel, host: Host, context: PlanContext
) -> str | int:
    """Why ``workload`` may not use ``method`` on ``model`` on the host's platform, else the
    GPUs one instance must hold there."""
    reason = workload_reason(
        method, workload, model, host.platform, context.catalog, context.assumptions
    )
    if reason is not None:
        return reason
    return METHODS[method].gpus_needed(workload, model, context.catalog, context.assumptions)


def _host_resource_problems(
    rows: Sequence[Placement],
    roles: Mapping[GpuKey, Method],
    hosts: Mapping[str, Host],
    workloads: Mapping[str, WorkloadClass],
) -> list[str]:
    """No host gives out more cores or RAM than it has; instances whose method runs its clients
    elsewhere (a remote pool's) take none on the GPU's host."""
    instances_on: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        role = roles.get((row.host, row.gpu_index))
        if role is not None and METHODS[role].instances_on_gpu_host:
            instances_on[row.host][row.instance] = row.workload
    problems: list[str] = []
    for name in sorted(instances_on):
        host = hosts[name]
        members = [workloads[w] for w in instances_on[name].values()]
        cores = sum(w.vcpus for w in members)
        ram = sum(w.ram_gib for w in members)
        if cores > host.cpu_cores + _HOST_TOLERANCE:
            problems.append(f"host {name} gives out {cores:g} cores but has {host.cpu_cores:g}")
        if ram > host.ram_gib + _HOST_TOLERANCE:
            problems.append(f"host {name} gives out {ram:g} GiB RAM but has {host.ram_gib:g} GiB")
    return problems


def host_rule_problems(
    views: Mapping[GpuKey, GpuView], roles: Mapping[GpuKey, Method], context: PlanContext
) -> list[str]:
    """Each method's rules over its GPUs on one host (one profile size per host, ...), for the
    GPUs ``views`` with a role in ``roles``."""
    grouped: dict[tuple[str, Method], list[GpuView]] = defaultdict(list)
    for key in sorted(views):
        if key in roles:
            grouped[(key[0], roles[key])].append(views[key])
    problems: list[str] = []
    for (_, method), gpus in sorted(grouped.items()):
        problems += METHODS[method].host_problems(gpus[0].host, gpus, context)
    return problems
