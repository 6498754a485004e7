"""Re-packing a plan's hosts within the slowdown limits: tenants of several classes on a GPU.

An option gives a class one slowdown per method and host type, that of a GPU filled with its
own class, so the MILP over counts never puts a small busy pod beside a large one, nor some of
a class's instances alone so that the rest may share densely. A method that packs within the
classes' limits itself (``SharingMethod.pack_within_limits``: Kubernetes time-slicing) may
serve the instances of whole hosts of a plan on fewer hosts. Each such re-packing is a
challenger to the plan, kept by the plan's rounds only where it leaves out no more instances,
costs less and keeps every class within its limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.registry import METHODS, Method
from planner.plan import GpuPacking, Placement
from planner.scenario import Scenario
from planner.solve.hosts import HostAssignment, HostPool, assign_hosts, balanced_hosts
from planner.solve.options import HostType, Option, slowdown_limit
from planner.solve.placement import Placing, record

__all__ = ["repacked"]


def repacked(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    placing: Placing,
) -> list[Placing]:
    """Challengers to ``placing``: for each method that packs within the limits and each host
    type where it has options, the instances on that type's hosts (every one of a class with
    an option under the method there) and those ``placing`` left out re-packed by the method
    onto those hosts and the type's unused ones; and the same with also the instances of the
    other hosts whose instances could all move there."""
    by_name = {w.name: w for w in scenario.workloads}
    placed_on: dict[str, list[Placement]] = {}
    for p in placing.placements:
        placed_on.setdefault(p.host, []).append(p)
    challengers: list[Placing] = []
    for method in dict.fromkeys(o.method for o in found):
        for t, host_type in enumerate(types):
            may = {o.workload for o in found if o.method == method and o.host_type == t}
            if not may:
                continue
            movable = {host: on for host, on in placed_on.items() if _all_movable(on, may, by_name)}
            own = [h for h in host_type.hosts if h.name in movable or h.name not in placed_on]
            mine = {h.name for h in own}
            others = [h for h in movable if h not in mine]
            variants = [mine & set(movable)]
            if others:
                variants.append(variants[0] | set(others))
            for freed in variants:
                challenger = _repacked_onto(
                    scenario, method, host_type, own, (movable, freed), placing
                )
                if challenger is not None:
                    challengers.append(challenger)
    return challengers


def _all_movable(
    on: Sequence[Placement], may: set[str], by_name: Mapping[str, WorkloadClass]
) -> bool:
    """Every instance on the host is of a class in ``may`` and holds one GPU."""
    instances = {p.instance for p in on}
    return len(instances) == len(on) and all(
        p.workload in may and by_name[p.workload].gpus <= 1 for p in on
    )


def _repacked_onto(
    scenario: Scenario,
    method: Method,
    host_type: HostType,
    hosts: Sequence[Host],
    moving: tuple[Mapping[str, Sequence[Placement]], set[str]],
    placing: Placing,
) -> Placing | None:
    """The instances on the ``freed`` hosts and those left out that the method may serve on the
    type, packed within the limits and placed on ``hosts``; None when the method has no such
    packing, nothing moves, or some instance would be left out."""
    movable, freed = moving
    if not freed:
        return None
    by_name = {w.name: w for w in scenario.workloads}
    instances = [Instance(p.instance, by_name[p.workload]) for h in freed for p in movable[h]]
    # Cores and RAM summed over the hosts must hold what moves, whatever the packing.
    if sum(x.workload.vcpus for x in instances) > sum(h.cpu_cores for h in hosts) or sum(
        x.workload.ram_gib for x in instances
    ) > sum(h.ram_gib for h in hosts):
        return None
    classes = {x.workload.name for x in instances}
    placed = {p.instance for p in placing.placements}
    instances.extend(
        Instance(miss.instance, by_name[miss.workload])
        for miss in placing.missed.values()
        if miss.instance not in placed and miss.workload in classes
    )
    packing = METHODS[method].pack_within_limits(
        sorted(instances, key=lambda x: x.id),
        host_type.shape,
        host_type.model,
        scenario.assumptions,
        lambda w: slowdown_limit(w, scenario),
    )
    if packing is None or _leaves_out(packing, freed, movable):
        return None
    assigned = _on_fewest_hosts(packing, hosts)
    moved = {x.id for x in instances}
    if any(miss.instance in placed for miss in assigned.not_placed):
        return None
    kept = [p for p in placing.placements if p.host not in freed]
    challenger = Placing(
        placements=kept,
        configs={k: v for k, v in placing.configs.items() if k[0] not in freed},
        roles={k: v for k, v in placing.roles.items() if k[0] not in freed},
        missed=dict(placing.missed),
        notes=list(placing.notes),
        left_out_by_milp=placing.left_out_by_milp,
    )
    record(
        assigned.placements,
        assigned.gpu_configs,
        assigned.not_placed,
        dict.fromkeys(moved, method),
        challenger,
    )
    return challenger


def _on_fewest_hosts(packing: GpuPacking, hosts: Sequence[Host]) -> HostAssignment:
    """The packing's GPUs placed on ``hosts`` largest first and balanced (``balanced_hosts``):
    the assignment that leaves out fewer instances, then uses fewer hosts."""
    largest = assign_hosts(packing.requests, HostPool(hosts))
    balanced = assign_hosts(
        packing.requests, HostPool(hosts), fixed=balanced_hosts(packing.requests, HostPool(hosts))
    )
    return min(
        (largest, balanced),
        key=lambda a: (len(a.not_placed), len({p.host for p in a.placements})),
    )


def _leaves_out(
    packing: GpuPacking, freed: set[str], movable: Mapping[str, Sequence[Placement]]
) -> bool:
    """The packing leaves out an instance the plan placed."""
    was_placed = {p.instance for h in freed for p in movable[h]}
    return any(miss.instance in was_placed for miss in packing.not_placed)
