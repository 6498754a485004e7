"""Host assignment (stage B): put each method's host requests on hosts with free GPUs, cores, RAM.

Every sharing method first turns instances into ``HostRequest``s (stage A, per GPU model); this
module places those requests on physical hosts. A request takes as many free GPUs of its model as
it has loads, plus its cores and RAM, all on one host. Requests are placed most urgent first
(priority 1 before 2), larger first within a priority, each on the host that leaves the fewest
GPUs free (best fit; ties go to the host with the most free cores, then RAM, then listed
first); when that leaves some out, largest first whatever the priority is kept if it leaves
fewer out, level by level. Requests with different non-empty ``host_group`` never share a host
(vGPU host-equal mode, MIG's single strategy on Kubernetes). What does not fit becomes
``NotPlaced`` with the resource that ran out.

When sizing a cluster, ``HostPool`` is given a way to open new hosts of one server type and opens
one whenever no open host fits.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.plan import HostRequest, NotPlaced, Placement, SolveStatus
from planner.solve.milp import (
    BinPacking,
    SolverLimits,
    cover_with_patterns,
    fill_most_with_patterns,
    min_bins,
)
from planner.words import counted

__all__ = [
    "HostAssignment",
    "HostPool",
    "assign_hosts",
    "balanced_hosts",
    "fits_all",
    "min_hosts",
    "min_hosts_by_configuration",
    "min_hosts_exact",
    "most_by_configuration",
    "on_fewer_hosts",
    "request_order",
]

_TOLERANCE = 1e-9
"""Slack on cores and RAM [cores, GiB] so that sums of fractions fit exactly-sized hosts."""


class HostPool:
    """The free GPUs, cores and RAM of a set of hosts while requests are placed (mutable).

    Parameters
    ----------
    hosts : the hosts that may take requests; GPU indices run 0 .. ``host.gpus - 1``.
    open_host : when given, ``open_host(i)`` returns the ``i``-th new host (0-based) to open when
        no host in the pool fits a request of that host's GPU model (cluster sizing).
    """

    def __init__(
        self, hosts: Sequence[Host], open_host: Callable[[int], Host] | None = None
    ) -> None:
        self.hosts: list[Host] = []
        self.free_gpus: list[list[int]] = []
        self.free_cores: list[float] = []
        self.free_ram: list[float] = []
        self.group: list[str] = []
        # (model, free GPU count) -> hosts in that state as (-free cores, -free RAM, index),
        # ascending: best fit on GPUs scans counts upward from the request's size and, within a
        # count, takes the host with the most free cores (then RAM, then listed first) that fits.
        # Sorted by free cores, a bucket is left as soon as its next host lacks the cores.
        self._buckets: dict[tuple[str, int], list[tuple[float, float, int]]] = {}
        self._keys: list[tuple[float, float, int]] = []
        self._largest: dict[str, int] = {}
        # Hosts whose free-GPU list this pool alone holds: a copy shares the lists, and the
        # first change to one copies it (a copy of a large pool is mostly never changed).
        self._own_gpu_lists: set[int] = set()
        self._open_host = open_host
        self.opened = 0
        """Hosts opened through ``open_host`` so far."""
        for host in hosts:
            self._add(host)

    def _add(self, host: Host) -> int:
        index = len(self.hosts)
        self.hosts.append(host)
        self.free_gpus.append(list(range(host.gpus)))
        self._own_gpu_lists.add(index)
        self.free_cores.append(host.cpu_cores)
        self.free_ram.append(host.ram_gib)
        self.group.append("")
        key = (-host.cpu_cores, -host.ram_gib, index)
        self._keys.append(key)
        bisect.insort(self._buckets.setdefault((host.gpu_model, host.gpus), []), key)
        self._largest[host.gpu_model] = max(self._largest.get(host.gpu_model, 0), host.gpus)
        return index

    def copy(self) -> HostPool:
        """An independent copy: placing on it leaves this pool unchanged."""
        clone = HostPool((), self._open_host)
        clone.hosts = list(self.hosts)
        clone.free_gpus = list(self.free_gpus)
        self._own_gpu_lists = set()
        clone.free_cores = list(self.free_cores)
        clone.free_ram = list(self.free_ram)
        clone.group = list(self.group)
        clone._buckets = {key: list(ids) for key, ids in self._buckets.items()}
        clone._keys = list(self._keys)
        clone._largest = dict(self._largest)
        clone.opened = self.opened
        return clone

    def adopt(self, other: HostPool) -> None:
        """Take ``other``'s state (a copy of this pool, placed on) as this pool's own."""
        self.__dict__.update(other.__dict__)
        self._own_gpu_lists = set()
        other._own_gpu_lists = set()

    def hosts_in_use(self) -> int:
        """Hosts with a GPU, a core or RAM given out."""
        return sum(
            1
            for i, host in enumerate(self.hosts)
            if len(self.free_gpus[i]) < host.gpus
            or self.free_cores[i] < host.cpu_cores
            or self.free_ram[i] < host.ram_gib
        )

    def free_gpu_count(self, model: str) -> int:
        """Free GPUs of ``model`` over all hosts in the pool."""
        return sum(
            len(self.free_gpus[i]) for i, host in enumerate(self.hosts) if host.gpu_model == model
        )

    def _fits(self, index: int, request: HostRequest) -> bool:
        return (
            self.free_cores[index] + _TOLERANCE >= request.cpu_cores
            and self.free_ram[index] + _TOLERANCE >= request.ram_gib
            and (
                not request.host_group
                or not self.group[index]
                or self.group[index] == request.host_group
            )
        )

    def _find(self, request: HostRequest) -> int | None:
        needed = len(request.loads)
        for free in range(needed, self._largest.get(request.gpu_model, -1) + 1):
            for _, _, index in self._buckets.get((request.gpu_model, free), ()):
                if self.free_cores[index] + _TOLERANCE < request.cpu_cores:
                    break  # later hosts of this bucket have fewer free cores still
                if self._fits(index, request):
                    return index
        return None

    def _take(self, index: int, request: HostRequest) -> tuple[int, ...]:
        taken = tuple(self.free_gpus[index][: len(request.loads)])
        self._change(index, take=taken, cores=-request.cpu_cores, ram_gib=-request.ram_gib)
        if request.host_group:
            self.group[index] = request.host_group
        return taken

    def _can_open_for(self, request: HostRequest) -> Host | None:
        if self._open_host is None:
            return None
        candidate = self._open_host(self.opened)
        if candidate.gpu_model != request.gpu_model:
            return None
        fits_empty = (
            candidate.gpus >= len(request.loads)
            and candidate.cpu_cores + _TOLERANCE >= request.cpu_cores
            and candidate.ram_gib + _TOLERANCE >= request.ram_gib
        )
        return candidate if fits_empty else None

    def place(self, request: HostRequest) -> tuple[Host, tuple[int, ...]] | None:
        """Place ``request`` best fit; return its host and GPU indices, or None if nothing fits."""
        index = self._find(request)
        if index is None:
            new_host = self._can_open_for(request)
            if new_host is None:
                return None
            index = self._add(new_host)
            self.opened += 1
        return self.hosts[index], self._take(index, request)

    def place_on(self, index: int, request: HostRequest) -> tuple[Host, tuple[int, ...]] | None:
        """Place ``request`` on the ``index``-th host if it fits there, else return None."""
        host = self.hosts[index]
        if host.gpu_model != request.gpu_model or len(self.free_gpus[index]) < len(request.loads):
            return None
        if not self._fits(index, request):
            return None
        return host, self._take(index, request)

    def most_free(self, model: str) -> tuple[float, float] | None:
        """The free cores and RAM of the host of GPU ``model`` with a free GPU and most cores
        free (then RAM) [cores, GiB]; None when no host of the model has a free GPU."""
        free = [
            (self.free_cores[i], self.free_ram[i])
            for i, host in enumerate(self.hosts)
            if host.gpu_model == model and self.free_gpus[i]
        ]
        return max(free, default=None)

    def fitting(self, request: HostRequest) -> int | None:
        """The host ``place`` would put ``request`` on (best fit, opening none), or None."""
        return self._find(request)

    def index_of(self, name: str) -> int | None:
        """Position of the host called ``name`` in the pool, or None."""
        return next((i for i, host in enumerate(self.hosts) if host.name == name), None)

    def move_gpu(self, source: int, gpu: int, target: int, cores: float, ram_gib: float) -> int:
        """Move one GPU's load, with the ``cores`` and ``ram_gib`` its instances take, from GPU
        ``gpu`` of the ``source``-th host to a free GPU of the ``target``-th host (which must
        have one, and the cores and RAM); return that GPU's index."""
        taken = self.free_gpus[target][0]
        self._change(target, take=(taken,), cores=-cores, ram_gib=-ram_gib)
        self._change(source, give=(gpu,), cores=cores, ram_gib=ram_gib)
        return taken

    def swap_gpus(self, first: int, second: int, cores: float, ram_gib: float) -> None:
        """Swap a GPU of the ``first``-th host with one of the ``second``-th whose instances
        take ``cores`` and ``ram_gib`` fewer: their GPU indices stay free or taken as they were,
        and the first host gets that many cores and RAM back from the second."""
        self._change(first, cores=cores, ram_gib=ram_gib)
        self._change(second, cores=-cores, ram_gib=-ram_gib)

    def _change(
        self,
        index: int,
        *,
        take: Sequence[int] = (),
        give: Sequence[int] = (),
        cores: float,
        ram_gib: float,
    ) -> None:
        """Take or give back GPUs of the ``index``-th host and change its free cores and RAM by
        ``cores`` and ``ram_gib``, keeping the best-fit buckets in order."""
        model = self.hosts[index].gpu_model
        free = self.free_gpus[index]
        if (take or give) and index not in self._own_gpu_lists:
            free = list(free)
            self.free_gpus[index] = free
            self._own_gpu_lists.add(index)
        bucket = self._buckets[(model, len(free))]
        del bucket[bisect.bisect_left(bucket, self._keys[index])]
        for gpu in take:
            free.remove(gpu)
        for gpu in give:
            bisect.insort(free, gpu)
        self.free_cores[index] += cores
        self.free_ram[index] += ram_gib
        key = (-self.free_cores[index], -self.free_ram[index], index)
        self._keys[index] = key
        bisect.insort(self._buckets.setdefault((model, len(free)), []), key)

    def withdraw(self) -> Host | None:
        """Take the first host (in pool order) with every GPU free out of the pool, for a method
        that sets up whole hosts; None when every host has a GPU in use."""
        for index, host in enumerate(self.hosts):
            free = self.free_gpus[index]
            if host.gpus and len(free) == host.gpus:
                self._change(index, take=tuple(free), cores=0.0, ram_gib=0.0)
                return host
        return None

    def give_back(self, host: Host) -> None:
        """Return a host taken by ``withdraw`` whose GPUs stayed unused to the pool."""
        index = self.index_of(host.name)
        assert index is not None
        assert not self.free_gpus[index]
        self._change(index, give=tuple(range(host.gpus)), cores=0.0, ram_gib=0.0)

    def reason(self, request: HostRequest) -> str:
        """Why ``request`` fits on no host of the pool, naming the resource that ran out."""
        model = request.gpu_model
        needed = len(request.loads)
        what = counted(needed, "free GPU")
        if self._open_host is not None:
            server = self._open_host(self.opened)
            if server.gpu_model != model:
                return f"the server type has {server.gpu_model} GPUs, not {model}"
            if server.gpus < needed:
                return f"needs {needed} GPUs on one host; the server type has {server.gpus}"
            if server.cpu_cores + _TOLERANCE < request.cpu_cores:
                return (
                    f"needs {request.cpu_cores:g} cores on one host; "
                    f"the server type has {server.cpu_cores:g}"
                )
            return (
                f"needs {request.ram_gib:g} GiB RAM on one host; "
                f"the server type has {server.ram_gib:g} GiB"
            )
        if model not in self._largest:
            return f"no usable host has {model} GPUs"
        if self._largest[model] < needed:
            return (
                f"needs {needed} GPUs on one host; the largest host of model {model} "
                f"has {self._largest[model]}"
            )
        with_gpus = [
            i
            for i, host in enumerate(self.hosts)
            if host.gpu_model == model and len(self.free_gpus[i]) >= needed
        ]
        if not with_gpus:
            return f"no host of model {model} has {what} left"
        with_cores = [i for i in with_gpus if self.free_cores[i] + _TOLERANCE >= request.cpu_cores]
        what += f" and {request.cpu_cores:g} free cores"
        if not with_cores:
            return f"no host of model {model} has {what} left{_held_by(request)}"
        with_ram = [i for i in with_cores if self.free_ram[i] + _TOLERANCE >= request.ram_gib]
        what += f" and {request.ram_gib:g} GiB free RAM"
        if not with_ram:
            return f"no host of model {model} has {what} left{_held_by(request)}"
        return (
            f"every host of model {model} with {what} left already holds GPUs of another "
            f"profile size than {request.host_group} (one profile size per host)"
        )


@dataclass(frozen=True)
class HostAssignment:
    """Where stage B put each request's GPU loads, and what it could not place."""

    placements: tuple[Placement, ...]
    not_placed: tuple[NotPlaced, ...]
    gpu_configs: dict[tuple[str, int], str]
    """(host, GPU index) -> configuration of that GPU, for every GPU given a load."""


def request_order(requests: Sequence[HostRequest], *, urgent_first: bool = True) -> list[int]:
    """Indices of ``requests`` in placing order: priority (unless not ``urgent_first``), then
    more GPUs, cores, RAM first.

    Ties keep the input order, so equal inputs give equal plans.
    """
    return sorted(
        range(len(requests)),
        key=lambda i: (
            requests[i].priority if urgent_first else 0,
            -len(requests[i].loads),
            -requests[i].cpu_cores,
            -requests[i].ram_gib,
            i,
        ),
    )


def fits_all(requests: Sequence[HostRequest], pool: HostPool) -> bool:
    """Whether every request finds a host, placing them on ``pool`` (changed) in placing order.

    Stops at the first request that fits nowhere; cheaper than ``assign_hosts`` when only the
    answer matters.
    """
    return all(pool.place(requests[i]) is not None for i in request_order(requests))


def _held_by(request: HostRequest) -> str:
    """`` for the 16 instances its GPU holds``, when a request's GPUs hold more than one
    instance: its cores and RAM are theirs together, not one instance's."""
    instances = {slot.instance for load in request.loads for slot in load.slots}
    if len(instances) < 2:
        return ""
    gpus = "its GPU holds" if len(request.loads) == 1 else "its GPUs hold"
    return f" for the {len(instances)} instances {gpus}"


def assign_hosts(
    requests: Sequence[HostRequest],
    pool: HostPool,
    *,
    fixed: Sequence[int | None] | None = None,
    fewest_hosts: bool = False,
) -> HostAssignment:
    """Place ``requests`` on the hosts of ``pool`` (which is updated), most urgent first.

    Parameters
    ----------
    requests : stage-A requests; each lands whole on one host or not at all.
    pool : free capacity of the hosts; it is changed in place.
    fixed : when given, ``requests[i]`` goes to host ``fixed[i]`` of the pool (an exact
        solution from ``min_hosts_exact``) if it fits there; one with None goes, after those,
        where it fits best (or nowhere).
    fewest_hosts : when urgent first places every request, largest first is tried too and kept
        if it places them all on fewer hosts (an 80-core GPU beside a 24-core one on each
        112-core host, rather than four 24-core GPUs on one and the 80-core GPU alone).

    When urgent first leaves requests out, largest first whatever their priority is tried on
    the same hosts and kept if it leaves fewer instances out, most urgent level first: urgent
    requests placed first can strand cores that larger ones needed (four 24-core GPUs on a
    112-core host leave no room for an 80-core one).

    Returns
    -------
    HostAssignment : one ``Placement`` per slot placed, one ``NotPlaced`` per instance of a
        request that did not fit, with the reason.
    """
    if fixed is not None:
        order = request_order(requests)
        order = [i for i in order if fixed[i] is not None] + [i for i in order if fixed[i] is None]
        return _assign(requests, pool, order, fixed).assignment()
    urgent = pool.copy()
    assigned = _assign(requests, urgent, request_order(requests), None)
    if not (assigned.not_placed or fewest_hosts):
        pool.adopt(urgent)
        return assigned.assignment()
    # Largest first on the pool itself; the urgent-first copy is adopted back if it was better.
    by_size = _assign(requests, pool, request_order(requests, urgent_first=False), None)
    left, left_by_size = _left_out(assigned, requests), _left_out(by_size, requests)
    if left_by_size < left or (
        left_by_size == left == [0] * len(left) and pool.hosts_in_use() < urgent.hosts_in_use()
    ):
        return by_size.assignment()
    pool.adopt(urgent)
    return assigned.assignment()


def balanced_hosts(requests: Sequence[HostRequest], pool: HostPool) -> list[int | None]:
    """Host by host in the pool's order, each host's free GPUs given the requests whose cores
    per GPU come nearest its free cores per free GPU, among those that fit its free GPUs,
    cores and RAM (of its GPU model and host group), until none fits: the index in the pool
    of each request's host, None for those no host took. Placing largest first fills a host's
    cores with a few GPUs of heavy requests and leaves its other GPUs idle; balanced, its
    GPUs and cores run out together. The pool is not changed (``assign_hosts(fixed=)``
    places the requests there)."""
    waiting: dict[tuple[str, str, int, float, float], list[int]] = {}
    for i in sorted(range(len(requests)), key=lambda i: (requests[i].priority, i)):
        r = requests[i]
        shape = (r.gpu_model, r.host_group, len(r.loads), r.cpu_cores, r.ram_gib)
        waiting.setdefault(shape, []).append(i)
    host_of: list[int | None] = [None] * len(requests)
    for index, host in enumerate(pool.hosts):
        gpus = len(pool.free_gpus[index])
        cores, ram = pool.free_cores[index], pool.free_ram[index]
        while gpus and waiting:
            target = cores / gpus
            fitting = [
                shape
                for shape in waiting
                if shape[0] == host.gpu_model
                and shape[1] == pool.group[index]
                and shape[2] <= gpus
                and shape[3] <= cores + _TOLERANCE
                and shape[4] <= ram + _TOLERANCE
            ]
            if not fitting:
                break
            shape = min(fitting, key=lambda s: (abs(s[3] / s[2] - target), -s[3], s))
            i = waiting[shape].pop(0)
            if not waiting[shape]:
                del waiting[shape]
            host_of[i] = index
            gpus, cores, ram = gpus - shape[2], cores - shape[3], ram - shape[4]
    return host_of


def _left_out(assigned: _Spots, requests: Sequence[HostRequest]) -> list[int]:
    """Instances left out per priority level, most urgent first (compared as a list)."""
    level = {slot.instance: r.priority for r in requests for load in r.loads for slot in load.slots}
    counts = dict.fromkeys(sorted(set(level.values())), 0)
    for miss in {n.instance for n in assigned.not_placed}:
        counts[level[miss]] += 1
    return list(counts.values())


@dataclass(frozen=True)
class _Spots:
    """Where ``_assign`` put each request (its host and GPU indices), in placing order, and
    what it left out: the ``HostAssignment`` before its placement rows are written, which
    only the assignment kept needs."""

    placed: tuple[tuple[HostRequest, Host, tuple[int, ...]], ...]
    not_placed: tuple[NotPlaced, ...]

    def assignment(self) -> HostAssignment:
        placements: list[Placement] = []
        configs: dict[tuple[str, int], str] = {}
        for request, host, gpu_indices in self.placed:
            for load, gpu_index in zip(request.loads, gpu_indices, strict=True):
                configs[(host.name, gpu_index)] = load.config
                placements.extend(
                    Placement(
                        instance=slot.instance,
                        workload=slot.workload,
                        host=host.name,
                        gpu_index=gpu_index,
                        gpu_model=load.gpu_model,
                        profile=slot.profile,
                        memory_gib=slot.memory_gib,
                        compute_share=slot.compute_share,
                        start_slice=slot.start_slice,
                    )
                    for slot in load.slots
                )
        return HostAssignment(tuple(placements), self.not_placed, configs)


def _assign(
    requests: Sequence[HostRequest],
    pool: HostPool,
    order: Sequence[int],
    fixed: Sequence[int | None] | None,
) -> _Spots:
    placed: list[tuple[HostRequest, Host, tuple[int, ...]]] = []
    not_placed: list[NotPlaced] = []
    reasons: dict[tuple[str, int, float, float, str], str] = {}
    for i in order:
        request = requests[i]
        index = None if fixed is None else fixed[i]
        spot = pool.place(request) if index is None else pool.place_on(index, request)
        if spot is None:
            # The pool only changes when a request is placed, so a reason found for one shape
            # of request holds for the next request of the same shape until then.
            key = (
                request.gpu_model,
                len(request.loads),
                request.cpu_cores,
                request.ram_gib,
                request.host_group,
            )
            if key not in reasons:
                reasons[key] = pool.reason(request)
            seen: set[str] = set()
            for load in request.loads:
                for slot in load.slots:
                    if slot.instance not in seen:
                        seen.add(slot.instance)
                        not_placed.append(NotPlaced(slot.instance, slot.workload, reasons[key]))
            continue
        reasons.clear()
        placed.append((request, *spot))
    return _Spots(tuple(placed), tuple(not_placed))


def min_hosts_exact(
    requests: Sequence[HostRequest],
    server: Host,
    *,
    upper_bound: int,
    time_limit_s: float,
) -> tuple[list[int], bool] | None:
    """The fewest hosts shaped like ``server`` that hold ``requests``: vector bin packing over
    GPUs, cores and RAM, with host groups kept apart (:func:`planner.solve.milp.min_bins`).

    Returns
    -------
    (host index per request, proven optimal), or None when the solver found no solution.
    """
    if not requests:
        return [], True
    if upper_bound <= 0:
        return None
    packed = _fewest_bins(
        tuple((float(len(r.loads)), r.cpu_cores, r.ram_gib) for r in requests),
        (float(server.gpus), server.cpu_cores, server.ram_gib),
        upper_bound,
        tuple(r.host_group for r in requests),
        time_limit_s,
    )
    if packed is None:
        return None
    return list(packed.bins), packed.proven


@functools.lru_cache(maxsize=64)
def _fewest_bins(
    sizes: tuple[tuple[float, float, float], ...],
    capacity: tuple[float, float, float],
    upper_bound: int,
    groups: tuple[str, ...],
    time_limit_s: float,
) -> BinPacking | None:
    """:func:`min_bins` over (GPUs, cores, RAM), kept for the same requests asked again: a
    placement repeated for another round of planning asks the same MILP, and HiGHS'
    answer, a function of its inputs, need not be found twice."""
    return min_bins(
        sizes,
        capacity,
        upper_bound=upper_bound,
        groups=groups,
        limits=SolverLimits(time_limit_s=time_limit_s),
        tolerance=_TOLERANCE,
    )


def min_hosts(
    requests: Sequence[HostRequest],
    server: Host,
    *,
    upper_bound: int,
    time_limit_s: float,
    max_assigned: int,
) -> tuple[list[int], bool] | None:
    """The fewest hosts shaped like ``server`` that hold ``requests`` (host index per request,
    proven): by host configuration when the requests come in few kinds
    (:func:`min_hosts_by_configuration`), else by assigning each request when there are at most
    ``max_assigned`` (:func:`min_hosts_exact`); None when neither applies or finds one."""
    configured = min_hosts_by_configuration(
        requests, server, upper_bound=upper_bound, time_limit_s=time_limit_s
    )
    if configured is not None or len(requests) > max_assigned:
        return configured
    return min_hosts_exact(requests, server, upper_bound=upper_bound, time_limit_s=time_limit_s)


_MAX_CONFIGURATIONS = 4_000
"""Most host configurations :func:`min_hosts_by_configuration` enumerates before it gives up."""

_SEARCH_PER_CONFIGURATION = 20
"""Partial fillings visited per configuration allowed, before the listing gives up."""

_Kind = tuple[int, float, float, str]
"""Requests alike for host assignment: (GPUs, cores, RAM, host group)."""


def _kind(request: HostRequest) -> _Kind:
    return (len(request.loads), request.cpu_cores, request.ram_gib, request.host_group)


def min_hosts_by_configuration(
    requests: Sequence[HostRequest],
    server: Host,
    *,
    upper_bound: int,
    time_limit_s: float,
) -> tuple[list[int], bool] | None:
    r"""The fewest hosts shaped like ``server`` that hold ``requests`` when they come in few
    kinds (GPUs, cores, RAM and host group alike): cutting stock over host *configurations*.

    A configuration is how many requests of each kind one host holds, within its GPUs, cores and
    RAM and with at most one non-empty host group; with ``q[c][k]`` the requests of kind ``k``
    configuration ``c`` holds and ``n[k]`` the requests of kind ``k``::

        minimise    sum_c hosts[c]
        subject to  sum_c q[c][k] * hosts[c] >= n[k]      for every kind k
                    sum_c hosts[c] <= upper_bound,  hosts[c] integer >= 0

    (:func:`planner.solve.milp.cover_with_patterns`). Only maximal configurations are listed:
    every other one is held in a maximal one. Best fit fills hosts one request at a time and
    strands GPUs beside a host's last cores; the configurations see every way to fill a host.

    Returns
    -------
    (host index per request, 0-based, hosts in order; proven the fewest), or None when the
    requests come in too many kinds to list their configurations (``_MAX_CONFIGURATIONS``), a
    kind fits on no host, or no assignment within ``upper_bound`` hosts was found within the
    work limit.
    """
    if not requests:
        return [], True
    if upper_bound <= 0:
        return None
    kinds: dict[_Kind, list[int]] = {}
    for i, request in enumerate(requests):
        kinds.setdefault(_kind(request), []).append(i)
    listed = sorted(kinds, reverse=True)
    configurations = _host_configurations(
        listed, [len(kinds[k]) for k in listed], server, limit=_MAX_CONFIGURATIONS
    )
    if not configurations or any(not any(c[k] for c in configurations) for k in range(len(listed))):
        return None
    cover = cover_with_patterns(
        configurations,
        [len(kinds[k]) for k in listed],
        time_limit_s=time_limit_s,
        upper_bound=upper_bound,
    )
    if cover is None:
        return None
    host_of = _deal(configurations, cover.uses, [list(kinds[k]) for k in listed], len(requests))
    if any(h is None for h in host_of):
        return None
    return [h for h in host_of if h is not None], cover.status is SolveStatus.OPTIMAL


def on_fewer_hosts(
    requests: Sequence[HostRequest],
    hosts: Sequence[Host],
    server: Host,
    *,
    in_use: int,
    time_limit_s: float,
) -> tuple[HostPool, HostAssignment] | None:
    """``requests``, which best fit placed on ``in_use`` of ``hosts`` (untouched, shaped like
    ``server``), placed on fewer of them where hosts set up by configuration hold them all
    (:func:`min_hosts_by_configuration`); None when they do not. Best fit fills hosts one
    request at a time and strands GPUs beside a host's last cores."""
    found = min_hosts_by_configuration(
        requests, server, upper_bound=in_use - 1, time_limit_s=time_limit_s
    )
    if found is None:
        return None
    pool = HostPool(hosts)
    placed = assign_hosts(requests, pool, fixed=found[0])
    return None if placed.not_placed else (pool, placed)


def most_by_configuration(
    requests: Sequence[HostRequest],
    server: Host,
    *,
    hosts: int,
    time_limit_s: float,
) -> list[int | None] | None:
    r"""Host index per request (None: left out) placing, on ``hosts`` hosts shaped like
    ``server``, most instances by priority when not all fit and the requests come in few kinds:
    the host configurations of :func:`min_hosts_by_configuration`, filled with the requests
    worth most (:func:`planner.solve.milp.fill_most_with_patterns`).

    A request's worth is its instances, times ``(n + 1)`` per priority level it is more urgent
    than the least urgent (``n`` instances in all), so that one more urgent instance outweighs
    every less urgent one. Best fit places urgent requests first and strands GPUs beside a
    host's last cores; the configurations see every way to fill a host.

    Returns None when the requests come in too many kinds, or no fill was found within the
    work limit.
    """
    if not requests or hosts <= 0:
        return None
    instances = [len({s.instance for load in r.loads for s in load.slots}) for r in requests]
    levels = sorted({r.priority for r in requests})
    base = sum(instances) + 1
    kinds: dict[_Kind, dict[tuple[int, int], list[int]]] = {}
    for i, request in enumerate(requests):
        worth = (levels.index(request.priority), instances[i])
        kinds.setdefault(_kind(request), {}).setdefault(worth, []).append(i)
    listed = sorted(kinds, reverse=True)
    configurations = _host_configurations(
        listed,
        [sum(map(len, kinds[k].values())) for k in listed],
        server,
        limit=_MAX_CONFIGURATIONS,
    )
    if not configurations:
        return None
    # Each kind's classes of worth, most worth first (the ones a kind's room is given to).
    classes = [sorted(kinds[k], key=lambda w: (w[0], -w[1])) for k in listed]
    held_by_some = [any(c[k] for c in configurations) for k in range(len(listed))]
    fill = fill_most_with_patterns(
        configurations,
        [
            [len(kinds[k][w]) if held_by_some[n] else 0 for w in classes[n]]
            for n, k in enumerate(listed)
        ],
        [
            [float(count * base ** (len(levels) - 1 - level)) for level, count in classes[n]]
            for n in range(len(listed))
        ],
        bins=hosts,
        time_limit_s=time_limit_s,
    )
    if fill is None:
        return None
    waiting = [
        [i for w, held in zip(classes[n], fill.held[n], strict=True) for i in kinds[k][w][:held]]
        for n, k in enumerate(listed)
    ]
    return _deal(configurations, fill.uses, waiting, len(requests))


def _deal(
    configurations: Sequence[tuple[int, ...]],
    uses: Sequence[int],
    waiting: list[list[int]],
    requests: int,
) -> list[int | None]:
    """Host index per request (None: on no host): hosts in order, each set up by a
    configuration ``uses`` times over, take the next requests ``waiting`` of each kind."""
    host_of: list[int | None] = [None] * requests
    host = 0
    for configuration, copies in zip(configurations, uses, strict=True):
        for _ in range(copies):
            for k, room in enumerate(configuration):
                for i in waiting[k][:room]:
                    host_of[i] = host
                del waiting[k][:room]
            host += 1
    return host_of


def _host_configurations(
    kinds: Sequence[_Kind], available: Sequence[int], server: Host, *, limit: int
) -> list[tuple[int, ...]]:
    """Every maximal way to fill one ``server`` with requests of ``kinds`` (at most
    ``available`` of each): no other request of a kind left fits beside it. Empty when there
    are more than ``limit``, or the search for them visits more than ``_SEARCH_PER_CONFIGURATION``
    times as many partial fillings."""
    shape = (server.gpus, server.cpu_cores, server.ram_gib)
    return list(_configurations(tuple(kinds), tuple(available), shape, limit))


@functools.lru_cache(maxsize=128)
def _configurations(
    kinds: tuple[_Kind, ...],
    available: tuple[int, ...],
    shape: tuple[int, float, float],
    limit: int,
) -> tuple[tuple[int, ...], ...]:
    """:func:`_host_configurations` of a server of ``shape`` (GPUs, cores, RAM [GiB]), kept for
    the same requests asked again (a placement repeated for another round of planning); a
    search that gave up costs most, up to ``_SEARCH_PER_CONFIGURATION`` visits per
    configuration allowed."""
    gpus_per_host, cores_per_host, ram_per_host = shape
    found: list[tuple[int, ...]] = []
    held = [0] * len(kinds)
    visits = [limit * _SEARCH_PER_CONFIGURATION]

    def fits(k: int, gpus: int, cores: float, ram: float, group: str) -> bool:
        kind_gpus, kind_cores, kind_ram, kind_group = kinds[k]
        return (
            held[k] < available[k]
            and gpus + kind_gpus <= gpus_per_host
            and cores + kind_cores <= cores_per_host + _TOLERANCE
            and ram + kind_ram <= ram_per_host + _TOLERANCE
            and (not kind_group or not group or kind_group == group)
        )

    def fill(k: int, gpus: int, cores: float, ram: float, group: str) -> bool:
        visits[0] -= 1
        if len(found) > limit or visits[0] < 0:
            return False
        if k == len(kinds):
            maximal = not any(fits(j, gpus, cores, ram, group) for j in range(len(kinds)))
            if maximal and gpus:
                found.append(tuple(held))
            return True
        kind_gpus, kind_cores, kind_ram, kind_group = kinds[k]
        taken = 0
        while True:
            if not fill(k + 1, gpus, cores, ram, group):
                return False
            if not fits(k, gpus, cores, ram, group):
                break
            held[k] += 1
            taken += 1
            gpus += kind_gpus
            cores += kind_cores
            ram += kind_ram
            group = group or kind_group
        held[k] -= taken
        return True

    if not fill(0, 0, 0.0, 0.0, ""):
        return ()
    return tuple(found)
