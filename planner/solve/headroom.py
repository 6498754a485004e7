"""N+k headroom: each cluster still serves its instances when any ``k`` of its hosts are down.

The rule, as vSphere HA states it ("host failures the cluster tolerates") and as Kubernetes
reschedules the pods of lost nodes: when hosts ``F`` of a cluster fail (``|F| = k``), every GPU
in use on ``F`` restarts, set up as it was (role, configuration, instances), on an idle GPU of
the same model on a surviving host of the same cluster that its role can set up, with the
instances' cores and RAM free there. A plan *holds* N+k when that works for the failure sets
checked and the plan with the moves made (and ``F`` gone) passes the feasibility checker.

How a plan is made to hold it (:func:`standby_hosts`): per cluster and *failover group* (hosts
of one GPU model, platform and MIG mode, the hosts a GPU's set-up can restart on), the ``k``
largest hosts are kept idle, as vSphere HA's dedicated failover hosts are, and nothing is placed
on them; servers bought for a new cluster get ``k`` more of their type. Any ``k`` failed hosts
then leave at most ``k`` loaded hosts of a group to restart on its surviving idle hosts, each at
least as large. On a cluster of identical hosts this costs no GPU more than spreading the load:
either way the GPUs in use cannot exceed those of ``n - k`` hosts.

How it is checked (:func:`check_headroom`): every set of ``k`` hosts of a cluster when there are
at most ``EXHAUSTIVE_FAILURE_SETS`` of them, else the ``k`` busiest hosts (most GPUs in use) and
the ``k`` largest; moves are made first fit, largest first.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.methods.contract import GpuKey, GpuView, PlanContext, RoleScope
from planner.methods.registry import METHODS, Method, host_reason
from planner.plan import MethodPlan
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan, gpu_views
from planner.words import counted

__all__ = [
    "EXHAUSTIVE_FAILURE_SETS",
    "MAX_HEADROOM",
    "ClusterHeadroom",
    "check_headroom",
    "fail_hosts",
    "standby_hosts",
]

MAX_HEADROOM = 8
"""Most host failures per cluster a plan is sized for; more is almost surely a typo [hosts]."""

EXHAUSTIVE_FAILURE_SETS = 64
"""Up to this many sets of ``k`` hosts per cluster, every one is checked [sets]."""


@dataclass(frozen=True)
class ClusterHeadroom:
    """Whether one cluster still serves its instances with any ``headroom`` hosts down."""

    cluster: str
    hosts: int
    """Hosts of the cluster in the plan [hosts]."""
    headroom: int
    """Host failures to tolerate, ``k`` [hosts]."""
    holds: bool
    failure_sets: int
    """Sets of ``k`` failed hosts checked [sets]."""
    every_set: bool
    """Every set of ``k`` hosts was checked (else the busiest and the largest)."""
    reason: str = ""
    """When it does not hold: which hosts failing breaks it, and why."""

    @property
    def sentence(self) -> str:
        """``cluster prod (6 hosts): any 1 host can fail`` or why not."""
        head = f"cluster {self.cluster} ({counted(self.hosts, 'host')})"
        if self.holds and self.failure_sets == 0:
            return f"{head}: nothing runs on it, so any {counted(self.headroom, 'host')} can fail"
        if self.holds:
            checked = "every set checked" if self.every_set else "busiest and largest checked"
            return f"{head}: any {counted(self.headroom, 'host')} can fail ({checked})"
        return f"{head}: does not tolerate {counted(self.headroom, 'host failure')}: {self.reason}"


def _failover_group(host: Host) -> tuple[str, str, str, bool]:
    return (host.cluster, host.gpu_model, host.platform.value, host.mig_enabled)


def _size(host: Host) -> tuple[float, float, float, str]:
    """Sort key: largest first (GPUs, cores, RAM), then by name."""
    return (-host.gpus, -host.cpu_cores, -host.ram_gib, host.name)


def standby_hosts(hosts: Sequence[Host], headroom: int) -> tuple[Host, ...]:
    """The hosts kept idle so that any ``headroom`` hosts of a cluster can fail: the largest
    ``headroom`` of each failover group (cluster, GPU model, platform, MIG mode)."""
    if headroom < 0:
        raise ValueError(f"headroom must be 0 or more host failures, got {headroom}")
    groups: dict[tuple[str, str, str, bool], list[Host]] = defaultdict(list)
    for host in hosts:
        if host.gpus > 0:
            groups[_failover_group(host)].append(host)
    return tuple(h for g in groups.values() for h in sorted(g, key=_size)[:headroom])


@dataclass
class _Room:
    """A surviving host while failed GPUs restart on it (mutable)."""

    host: Host
    idle: list[int]
    """GPU indices with nothing on them, ascending."""
    roles: set[Method]
    cores: float
    """Cores not given out [cores]."""
    ram_gib: float
    gpus: list[tuple[Method, GpuView]]
    """The GPUs in use on the host with their roles, those restarted on it included."""

    def takes(self, unit: _Unit, catalog_ok: bool) -> bool:
        if not catalog_ok or self.host.gpu_model != unit.model or len(self.idle) < len(unit.keys):
            return False
        host_wide = {r for r in (*self.roles, *unit.roles) if METHODS[r].scope is RoleScope.HOST}
        # A host-wide role shares its host with no other role.
        if host_wide and len(self.roles | unit.roles) > 1:
            return False
        return unit.cores <= self.cores + 1e-6 and unit.ram_gib <= self.ram_gib + 1e-6

    def arrivals(
        self, unit: _Unit, plan: MethodPlan, views: Mapping[GpuKey, GpuView]
    ) -> list[tuple[Method, GpuView]]:
        """The unit's GPUs as they would run on this host's first idle GPUs."""
        return [
            (
                plan.role(key),
                dataclasses.replace(views[key], key=(self.host.name, i), host=self.host),
            )
            for key, i in zip(unit.keys, self.idle, strict=False)
            if key in views
        ]

    def keeps_rules(self, arrivals: Sequence[tuple[Method, GpuView]], context: PlanContext) -> bool:
        """Whether each method's rules over one host's GPUs (one vGPU profile size per host in
        host-equal mode) still hold with ``arrivals`` here."""
        gpus = [*self.gpus, *arrivals]
        return not any(
            METHODS[method].host_problems(self.host, [v for m, v in gpus if m is method], context)
            for method in {m for m, _ in arrivals}
        )


@dataclass(frozen=True)
class _Unit:
    """GPUs of a failed host that restart together: those an instance spans stay on one host."""

    host: str
    model: str
    keys: tuple[GpuKey, ...]
    roles: frozenset[Method]
    cores: float
    ram_gib: float


def _on_host(plan: MethodPlan, scenario: Scenario) -> dict[str, dict[str, tuple[float, float]]]:
    """Host -> instance -> (cores, RAM) it takes there (none when its role runs it elsewhere)."""
    workloads = {w.name: w for w in scenario.workloads}
    taken: dict[str, dict[str, tuple[float, float]]] = defaultdict(dict)
    for p in plan.placements:
        if METHODS[plan.role((p.host, p.gpu_index))].instances_on_gpu_host:
            w = workloads[p.workload]
            taken[p.host][p.instance] = (w.vcpus, w.ram_gib)
    return taken


def _units(plan: MethodPlan, host: Host, taken: Mapping[str, tuple[float, float]]) -> list[_Unit]:
    """The GPUs in use on ``host``, joined where an instance spans several; largest first."""
    by_gpu: dict[int, set[str]] = defaultdict(set)
    for p in plan.placements:
        if p.host == host.name:
            by_gpu[p.gpu_index].add(p.instance)
    joined: list[tuple[set[int], set[str]]] = []
    for index, instances in sorted(by_gpu.items()):
        linked = [j for j in joined if j[1] & instances]
        gpus, members = {index}, set(instances)
        for j in linked:
            gpus |= j[0]
            members |= j[1]
            joined.remove(j)
        joined.append((gpus, members))
    units = []
    for gpus, members in joined:
        keys = tuple((host.name, i) for i in sorted(gpus))
        units.append(
            _Unit(
                host.name,
                host.gpu_model,
                keys,
                frozenset(plan.role(k) for k in keys),
                sum(taken.get(m, (0.0, 0.0))[0] for m in members),
                sum(taken.get(m, (0.0, 0.0))[1] for m in members),
            )
        )
    return sorted(units, key=lambda u: (-len(u.keys), -u.cores, -u.ram_gib, u.keys))


def _rooms(
    plan: MethodPlan,
    survivors: Sequence[Host],
    taken: Mapping[str, Mapping[str, tuple[float, float]]],
    views: Mapping[GpuKey, GpuView],
) -> list[_Room]:
    in_use: dict[str, set[int]] = defaultdict(set)
    for name, index in plan.gpu_configs:
        in_use[name].add(index)
    rooms = []
    for host in sorted(survivors, key=lambda h: h.name):
        used = taken.get(host.name, {}).values()
        keys = [(host.name, i) for i in sorted(in_use[host.name])]
        rooms.append(
            _Room(
                host,
                [i for i in range(host.gpus) if i not in in_use[host.name]],
                {plan.role(k) for k in keys},
                host.cpu_cores - sum(c for c, _ in used),
                host.ram_gib - sum(r for _, r in used),
                [(plan.role(k), views[k]) for k in keys if k in views],
            )
        )
    return rooms


def fail_hosts(plan: MethodPlan, scenario: Scenario, failed: Sequence[Host]) -> MethodPlan | str:
    """The plan with ``failed`` hosts gone and their GPUs restarted on the surviving hosts of
    their cluster (first fit, largest first), or why some cannot restart."""
    gone = {h.name for h in failed}
    clusters = {h.cluster for h in failed}
    survivors = [h for h in plan.hosts if h.cluster in clusters and h.name not in gone]
    taken = _on_host(plan, scenario)
    views = gpu_views(plan, scenario)
    context = PlanContext.of(scenario, plan.placements, plan.hosts or scenario.inventory.hosts)
    rooms = _rooms(plan, survivors, taken, views)
    moved: dict[GpuKey, GpuKey] = {}
    for host in failed:
        for unit in _units(plan, host, taken.get(host.name, {})):
            room, arrivals = _room_for(unit, rooms, plan, views, context, scenario)
            if room is None:
                roles = ", ".join(sorted(m.label for m in unit.roles))
                return (
                    f"with {', '.join(sorted(gone))} down, "
                    f"{counted(len(unit.keys), f'{unit.model} GPU')} "
                    f"of {host.name} ({roles}, {unit.cores:g} cores, {unit.ram_gib:g} GiB RAM) "
                    f"{'finds' if len(unit.keys) == 1 else 'find'} no idle {unit.model} GPU with "
                    "room on the other hosts of the cluster, its methods' rules kept"
                )
            for key in unit.keys:
                moved[key] = (room.host.name, room.idle.pop(0))
            room.gpus.extend(arrivals)
            room.roles |= unit.roles
            room.cores -= unit.cores
            room.ram_gib -= unit.ram_gib
    return _moved(plan, moved, gone)


def _room_for(
    unit: _Unit,
    rooms: Sequence[_Room],
    plan: MethodPlan,
    views: Mapping[GpuKey, GpuView],
    context: PlanContext,
    scenario: Scenario,
) -> tuple[_Room | None, list[tuple[Method, GpuView]]]:
    """The first surviving host the unit's GPUs restart on, every rule kept, and them there."""
    for room in rooms:
        if room.takes(unit, _can_set_up(unit, room.host, scenario)):
            arrivals = room.arrivals(unit, plan, views)
            if room.keeps_rules(arrivals, context):
                return room, arrivals
    return None, []


def _can_set_up(unit: _Unit, host: Host, scenario: Scenario) -> bool:
    return all(host_reason(m, host, scenario.catalog) is None for m in unit.roles)


def _moved(plan: MethodPlan, moved: Mapping[GpuKey, GpuKey], gone: set[str]) -> MethodPlan:
    def key(old: GpuKey) -> GpuKey:
        return moved.get(old, old)

    placements = tuple(
        dataclasses.replace(
            p, host=key((p.host, p.gpu_index))[0], gpu_index=key((p.host, p.gpu_index))[1]
        )
        if (p.host, p.gpu_index) in moved
        else p
        for p in plan.placements
    )
    return dataclasses.replace(
        plan,
        placements=placements,
        gpu_configs={key(k): v for k, v in plan.gpu_configs.items()},
        roles={key(k): plan.role(k) for k in plan.gpu_configs},
        hosts=tuple(h for h in plan.hosts if h.name not in gone),
    )


def _failure_sets(
    hosts: Sequence[Host], plan: MethodPlan, k: int
) -> tuple[list[tuple[Host, ...]], bool]:
    """Every set of ``k`` hosts when few enough, else the busiest ``k`` and the largest ``k``."""
    if math.comb(len(hosts), k) <= EXHAUSTIVE_FAILURE_SETS:
        return list(itertools.combinations(hosts, k)), True
    gpus: dict[str, int] = defaultdict(int)
    for host, _ in plan.gpu_configs:
        gpus[host] += 1
    busiest = sorted(hosts, key=lambda h: (-gpus[h.name], h.name))[:k]
    largest = sorted(hosts, key=_size)[:k]
    sets = [tuple(busiest)]
    if set(largest) != set(busiest):
        sets.append(tuple(largest))
    return sets, False


def check_headroom(
    plan: MethodPlan, scenario: Scenario, headroom: int
) -> tuple[ClusterHeadroom, ...]:
    """For each cluster of ``plan.hosts`` (in first-seen order), whether its instances are still
    served with any ``headroom`` of its hosts down (module docstring)."""
    clusters: dict[str, list[Host]] = defaultdict(list)
    for host in plan.hosts:
        clusters[host.cluster].append(host)
    return tuple(
        _cluster(plan, scenario, name, hosts, headroom) for name, hosts in clusters.items()
    )


def _cluster(
    plan: MethodPlan, scenario: Scenario, name: str, hosts: Sequence[Host], k: int
) -> ClusterHeadroom:
    in_use = {host for host, _ in plan.gpu_configs}
    if k == 0 or not any(h.name in in_use for h in hosts):
        return ClusterHeadroom(name, len(hosts), k, True, 0, True)
    if k >= len(hosts):
        reason = f"it has {len(hosts)} hosts, and instances run on them"
        return ClusterHeadroom(name, len(hosts), k, False, 0, True, reason)
    sets, every = _failure_sets(hosts, plan, k)
    for n, failed in enumerate(sets, start=1):
        after = fail_hosts(plan, scenario, failed)
        if isinstance(after, str):
            return ClusterHeadroom(name, len(hosts), k, False, n, every, after)
        problems = check_plan(after, scenario)
        if problems:
            down = ", ".join(h.name for h in failed)
            reason = f"with {down} down, the moved plan breaks a rule: {problems[0]}"
            return ClusterHeadroom(name, len(hosts), k, False, n, every, reason)
    return ClusterHeadroom(name, len(hosts), k, True, len(sets), every)
