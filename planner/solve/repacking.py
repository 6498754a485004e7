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
        if not _packs_within_limits(method, types, scenario):
            continue
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
                moving = [
                    Instance(p.instance, by_name[p.workload]) for h in freed for p in movable[h]
                ]
                challenger = _repacked_onto(scenario, method, host_type, own, moving, placing)
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


def _packs_within_limits(method: Method, types: Sequence[HostType], scenario: Scenario) -> bool:
    """The method has a packing within the limits (``SharingMethod.pack_within_limits`` gives
    one, even of no instance)."""
    return bool(types) and (
        METHODS[method].pack_within_limits(
            (), types[0].shape, types[0].model, scenario.assumptions, lambda w: 1.0
        )
        is not None
    )


def _repacked_onto(
    scenario: Scenario,
    method: Method,
    host_type: HostType,
    hosts: Sequence[Host],
    moving: Sequence[Instance],
    placing: Placing,
) -> Placing | None:
    """The instances ``moving`` off their hosts and those left out of classes among them,
    packed within the limits by the method on the type and placed on ``hosts``; None when
    nothing moves or one that moves would be left out."""
    if not moving:
        return None
    # Cores and RAM summed over the hosts must hold what moves, whatever the packing.
    if sum(x.workload.vcpus for x in moving) > sum(h.cpu_cores for h in hosts) or sum(
        x.workload.ram_gib for x in moving
    ) > sum(h.ram_gib for h in hosts):
        return None
    must = {x.id for x in moving}
    by_name = {x.workload.name: x.workload for x in moving}
    placed = {p.instance for p in placing.placements}
    instances = [
        *moving,
        *(
            Instance(miss.instance, by_name[miss.workload])
            for miss in placing.missed.values()
            if miss.instance not in placed and miss.workload in by_name
        ),
    ]
    packing = METHODS[method].pack_within_limits(
        sorted(instances, key=lambda x: x.id),
        host_type.shape,
        host_type.model,
        scenario.assumptions,
        lambda w: slowdown_limit(w, scenario),
    )
    if packing is None or any(miss.instance in must for miss in packing.not_placed):
        return None
    assigned = _on_fewest_hosts(packing, hosts)
    if any(miss.instance in must for miss in assigned.not_placed):
        return None
    freed = {p.host for p in placing.placements if p.instance in must}
    challenger = Placing(
        placements=[p for p in placing.placements if p.host not in freed],
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
        dict.fromkeys((x.id for x in instances), method),
        challenger,
    )
    return challenger


def _on_fewest_hosts(packing: GpuPacking, hosts: Sequence[Host]) -> HostAssignment:
    """The packing's GPUs placed on ``hosts`` largest first and balanced (``balanced_hosts``):
    the assignment that leaves out fewer instances, then uses fewer hosts."""
    largest = assign_hosts(packing.requests, HostPool(hosts))
    pool = HostPool(hosts)
    balanced = assign_hosts(packing.requests, pool, fixed=balanced_hosts(packing.requests, pool))
    return min(
        (largest, balanced),
        key=lambda a: (len(a.not_placed), len({p.host for p in a.placements})),
    )
