"""Fractional-GPU packing onto hosts: whole GPUs or shares of one GPU, with host CPU and RAM.

For pods that ask for any share of a GPU's compute and memory (HAMi, KAI/Run:ai fractions,
Alibaba's ``gpu_milli``), an offline fit that sees every request at once. Shares are counted in
thousandths of one GPU (``milli``), so sums are exact.

Per priority level, most urgent first, on what earlier levels left:

1. Shares are bundled into one-GPU groups by best fit decreasing on the larger of their compute
   and memory share (the 1-D packing decides GPU fragmentation; bundles never mix model lists).
2. Whole-GPU requests and bundles go largest first (more GPUs, then fuller, then more cores),
   each onto a host of an allowed model with enough fully free GPUs, cores and RAM, choosing the
   host whose remaining cores and RAM stay most in proportion to its remaining GPUs
   (``max(|cores left / cores - GPUs left / GPUs|, |RAM left / RAM - ...|)``), so CPU-hungry work
   lands where cores are plentiful and no host strands GPUs without cores, plus the demand per
   GPU its model may have to serve (each request's GPU demand spread over the GPUs it may use),
   so that work free to run anywhere leaves the models other work is tied to.
3. Members of a bundle that found no host are fitted one by one into any GPU with room (best fit
   on the GPU, then the same proportion score).
4. Requests without a GPU (CPU-only pods) take cores and RAM on the host that keeps the most GPU
   capacity usable (fewest free GPUs, then best fit on cores).
5. When requests are left over, a repair: host by host (models under the most waiting demand
   first), take one request or all the shares on one GPU off the host, move them to another
   host with room or give them up, fill the host from the waiting requests, and keep the change
   when the level gains by the shortfall choice; passes until nothing changes, within
   ``REPAIR_TRIES`` tries per level (a work limit, so equal inputs give equal fits).

When a level does not fit whole, ``Shortfall`` decides what it keeps. For the most instances,
the level is also fitted smallest first (the smallest requests whose GPU demand fits what the
first fit allocated, then the rest into the gaps) and the fit that serves more requests wins.
For the most GPU capacity, it is also fitted densest first (the requests that bring the most GPU
per share of the cluster's free GPUs, cores and RAM, as many as those hold, then the rest into
the gaps: when cores run out before GPUs, largest first keeps core-hungry pods); it replaces
the first fit, repaired, when it allocates more, and is then repaired in turn. It is tried
when most of the free GPU capacity the first fit leaves sits on hosts short of cores or RAM.

Every choice is vectorised over all hosts with numpy; ties go to the host listed first.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from planner.assumptions import Shortfall
from planner.inputs.inventory import Host
from planner.words import counted

__all__ = [
    "FULL_MILLI",
    "REPAIR_TRIES",
    "ShareFit",
    "SharePlacement",
    "ShareRequest",
    "bundle_shares",
    "fit_shares",
]

FULL_MILLI = 1000
"""One whole GPU, in thousandths."""
_TOLERANCE = 1e-9
"""Slack on cores and RAM [cores, GiB] so that sums of fractions fit exactly-sized hosts."""


@dataclass(frozen=True)
class ShareRequest:
    """A pod: whole GPUs on one host, or a share of one GPU, or no GPU; plus cores and RAM."""

    name: str
    gpus: int
    """Whole GPUs, all on one host; 0 for a share of one GPU or for no GPU."""
    compute_milli: int
    """Share of one GPU's compute in thousandths (1-1000) when ``gpus`` is 0; 0 with
    ``memory_milli`` 0 for a request that uses no GPU."""
    memory_milli: int
    """Share of one GPU's memory in thousandths (0-1000) when ``gpus`` is 0."""
    cpu_cores: float
    """Cores on the host [cores]."""
    ram_gib: float
    """RAM on the host [GiB]."""
    gpu_models: tuple[str, ...] = ()
    """Models the request may use; empty means any."""
    priority: int = 2
    """1 is placed first."""

    @property
    def size_milli(self) -> int:
        """GPU capacity the request takes, in thousandths of a GPU."""
        if self.gpus:
            return self.gpus * FULL_MILLI
        return max(self.compute_milli, self.memory_milli)

    @property
    def uses_gpu(self) -> bool:
        return self.gpus > 0 or self.size_milli > 0


@dataclass(frozen=True)
class SharePlacement:
    """Where one request landed."""

    request: str
    host: str
    gpu_indices: tuple[int, ...]
    """GPUs of the host the request holds; empty for a request without a GPU."""


@dataclass(frozen=True)
class ShareFit:
    """Result of ``fit_shares``: placements and the requests that fit nowhere, with reasons."""

    placements: tuple[SharePlacement, ...]
    not_placed: tuple[tuple[str, str], ...]
    """(request name, reason) for every request not placed."""


class _Cluster:
    """Free GPU shares, cores and RAM of every host while requests are placed (mutable)."""

    def __init__(self, hosts: Sequence[Host]) -> None:
        self.hosts = list(hosts)
        width = max((h.gpus for h in hosts), default=0)
        # Free thousandths per GPU; -1 marks GPU slots a host does not have.
        self.compute = np.full((len(hosts), max(width, 1)), -1, dtype=np.int64)
        for i, h in enumerate(hosts):
            self.compute[i, : h.gpus] = FULL_MILLI
        self.memory = self.compute.copy()
        self.cap_gpu = np.array([max(1, h.gpus) * FULL_MILLI for h in hosts], dtype=np.float64)
        self.cap_cores = np.array([max(h.cpu_cores, _TOLERANCE) for h in hosts])
        self.cap_ram = np.array([max(h.ram_gib, _TOLERANCE) for h in hosts])
        self.free_gpu = np.array([h.gpus * FULL_MILLI for h in hosts], dtype=np.float64)
        self.cores = np.array([h.cpu_cores for h in hosts], dtype=np.float64)
        self.ram = np.array([h.ram_gib for h in hosts], dtype=np.float64)
        self.full = np.array([h.gpus for h in hosts], dtype=np.int64)
        self.models = np.array([h.gpu_model for h in hosts])
        self._allowed: dict[tuple[str, ...], np.ndarray] = {}
        self.pressure = np.zeros(len(hosts))
        """Per host, the GPU demand its model may have to serve, per GPU (see ``expect``)."""

    def expect(self, requests: Sequence[ShareRequest]) -> None:
        """Set ``pressure``: each request's GPU demand spread over the GPUs it may use, summed
        per GPU. Equal on every host when no request names models; higher on models that
        requests are tied to, so that work free to go anywhere goes elsewhere."""
        gpus = np.array([h.gpus for h in self.hosts], dtype=np.float64)
        demand: dict[tuple[str, ...], float] = {}
        for r in requests:
            if r.uses_gpu:
                demand[r.gpu_models] = demand.get(r.gpu_models, 0.0) + r.size_milli
        self.pressure = np.zeros(len(self.hosts))
        for models, milli in demand.items():
            mask = self.allowed(models)
            reach = gpus[mask].sum()
            if reach > 0:
                self.pressure[mask] += milli / FULL_MILLI / reach

    def copy(self) -> _Cluster:
        clone = object.__new__(_Cluster)
        clone.__dict__.update(self.__dict__)
        for name in ("compute", "memory", "free_gpu", "cores", "ram", "full"):
            setattr(clone, name, getattr(self, name).copy())
        return clone

    def allowed(self, names: tuple[str, ...]) -> np.ndarray:
        if names not in self._allowed:
            self._allowed[names] = (
                np.isin(self.models, list(names)) if names else np.ones(len(self.hosts), bool)
            )
        return self._allowed[names]

    def proportion(self, gpu_milli: float, cores: float, ram: float) -> np.ndarray:
        gpus_left = (self.free_gpu - gpu_milli) / self.cap_gpu
        score: np.ndarray = np.maximum(
            np.abs((self.cores - cores) / self.cap_cores - gpus_left),
            np.abs((self.ram - ram) / self.cap_ram - gpus_left),
        )
        return score + self.pressure

    def host_fits(
        self, models: tuple[str, ...], cores: float, ram: float, exclude: int = -1
    ) -> np.ndarray:
        fits: np.ndarray = (
            self.allowed(models)
            & (self.cores + _TOLERANCE >= cores)
            & (self.ram + _TOLERANCE >= ram)
        )
        if exclude >= 0:
            fits[exclude] = False
        return fits

    def stranded_share(self, waiting: Sequence[ShareRequest]) -> float:
        """Share of the free GPU capacity on hosts without the cores or RAM that any of the
        ``waiting`` requests for a GPU needs [0-1]."""
        gpu = [r for r in waiting if r.uses_gpu]
        free = float(self.free_gpu.sum())
        if not gpu or free <= 0:
            return 0.0
        cores = min(r.cpu_cores for r in gpu)
        ram = min(r.ram_gib for r in gpu)
        short = (self.cores + _TOLERANCE < cores) | (self.ram + _TOLERANCE < ram)
        return float(self.free_gpu[short].sum()) / free

    def take(self, host: int, gpu_milli: float, cores: float, ram: float) -> None:
        self.free_gpu[host] -= gpu_milli
        self.cores[host] -= cores
        self.ram[host] -= ram

    def place_unit(self, unit: _Unit, exclude: int = -1) -> tuple[int, tuple[int, ...]] | None:
        """A whole-GPU request or a bundle onto fully free GPUs of the best host other than
        ``exclude``, or None."""
        fits = self.host_fits(unit.models, unit.cores, unit.ram, exclude) & (self.full >= unit.gpus)
        if not fits.any():
            return None
        host = int(
            np.argmin(np.where(fits, self.proportion(unit.fill, unit.cores, unit.ram), np.inf))
        )
        free = np.flatnonzero(self.compute[host] == FULL_MILLI)
        free = free[self.memory[host, free] == FULL_MILLI][: unit.gpus]
        taken = tuple(int(g) for g in free)
        if unit.bundle:
            self.compute[host, taken] -= unit.compute
            self.memory[host, taken] -= unit.memory
        else:
            self.compute[host, taken] = 0
            self.memory[host, taken] = 0
        self.full[host] -= len(taken)
        self.take(host, unit.fill, unit.cores, unit.ram)
        return host, taken

    def place_share(self, r: ShareRequest, exclude: int = -1) -> tuple[int, int] | None:
        """One share into any GPU with room on a host other than ``exclude``: best fit on the
        GPU, then the proportion score."""
        room = (
            self.host_fits(r.gpu_models, r.cpu_cores, r.ram_gib, exclude)[:, None]
            & (self.compute >= r.compute_milli)
            & (self.memory >= r.memory_milli)
        )
        if not room.any():
            return None
        left = np.minimum(self.compute - r.compute_milli, self.memory - r.memory_milli)
        score = np.where(
            room,
            left / FULL_MILLI + self.proportion(r.size_milli, r.cpu_cores, r.ram_gib)[:, None],
            np.inf,
        )
        host, gpu = divmod(int(np.argmin(score)), self.compute.shape[1])
        if self.compute[host, gpu] == FULL_MILLI and self.memory[host, gpu] == FULL_MILLI:
            self.full[host] -= 1
        self.compute[host, gpu] -= r.compute_milli
        self.memory[host, gpu] -= r.memory_milli
        self.take(host, r.size_milli, r.cpu_cores, r.ram_gib)
        return host, gpu

    def place_host_only(self, r: ShareRequest, exclude: int = -1) -> int | None:
        """A request without a GPU on the host other than ``exclude`` with the least free GPU
        capacity that fits it, then the fewest free cores."""
        fits = self.host_fits(r.gpu_models, r.cpu_cores, r.ram_gib, exclude)
        if not fits.any():
            return None
        score = np.where(fits, self.free_gpu * 1e6 + self.cores, np.inf)
        host = int(np.argmin(score))
        self.take(host, 0.0, r.cpu_cores, r.ram_gib)
        return host

    def place_elsewhere(
        self, index: int, r: ShareRequest, exclude: int
    ) -> tuple[int, tuple[int, ...]] | None:
        """Request ``r`` (number ``index``) onto the best host other than ``exclude``, or None."""
        if r.gpus:
            return self.place_unit(_Unit.whole(index, r), exclude)
        if r.uses_gpu:
            share = self.place_share(r, exclude)
            return None if share is None else (share[0], (share[1],))
        host = self.place_host_only(r, exclude)
        return None if host is None else (host, ())

    def put(self, host: int, r: ShareRequest) -> tuple[int, ...] | None:
        """Request ``r`` onto ``host`` if its cores, RAM and GPU room allow (the caller checks
        the model): whole GPUs on fully free ones, a share on the GPU it fills best."""
        if self.cores[host] + _TOLERANCE < r.cpu_cores or self.ram[host] + _TOLERANCE < r.ram_gib:
            return None
        compute, memory = self.compute[host], self.memory[host]
        if r.gpus:
            free = np.flatnonzero((compute == FULL_MILLI) & (memory == FULL_MILLI))
            if len(free) < r.gpus:
                return None
            gpus = tuple(int(g) for g in free[: r.gpus])
        elif r.uses_gpu:
            room = (compute >= r.compute_milli) & (memory >= r.memory_milli)
            if not room.any():
                return None
            left = np.minimum(compute - r.compute_milli, memory - r.memory_milli)
            gpus = (int(np.argmin(np.where(room, left, FULL_MILLI + 1))),)
        else:
            gpus = ()
        self.hold(host, gpus, r)
        return gpus

    def hold(self, host: int, gpus: tuple[int, ...], r: ShareRequest) -> None:
        """Request ``r`` onto GPUs ``gpus`` of ``host``, known to have room (``put`` once it
        has chosen them; undoes ``release``)."""
        compute, memory = self.compute[host], self.memory[host]
        if r.gpus:
            compute[list(gpus)] = 0
            memory[list(gpus)] = 0
            self.full[host] -= len(gpus)
        elif gpus:
            if compute[gpus[0]] == FULL_MILLI and memory[gpus[0]] == FULL_MILLI:
                self.full[host] -= 1
            compute[gpus[0]] -= r.compute_milli
            memory[gpus[0]] -= r.memory_milli
        self.take(host, r.size_milli, r.cpu_cores, r.ram_gib)

    def release(self, host: int, gpus: tuple[int, ...], r: ShareRequest) -> None:
        """Give back what request ``r`` holds on ``host`` (GPUs ``gpus``)."""
        compute, memory = self.compute[host], self.memory[host]
        if r.gpus:
            compute[list(gpus)] = FULL_MILLI
            memory[list(gpus)] = FULL_MILLI
            self.full[host] += len(gpus)
        elif gpus:
            compute[gpus[0]] += r.compute_milli
            memory[gpus[0]] += r.memory_milli
            if compute[gpus[0]] == FULL_MILLI and memory[gpus[0]] == FULL_MILLI:
                self.full[host] += 1
        self.take(host, -r.size_milli, -r.cpu_cores, -r.ram_gib)

    def reason(self, r: ShareRequest) -> str:
        """Why a request fits no host: model list, GPU room, or cores and RAM."""
        where = f"no host of model {' or '.join(r.gpu_models)}" if r.gpu_models else "no host"
        mask = self.allowed(r.gpu_models)
        if not mask.any():
            return f"{where} in the inventory"
        if r.gpus > 0:
            room = self.full[mask] >= r.gpus
            need = counted(r.gpus, "free GPU")
        elif r.uses_gpu:
            room = (
                (self.compute[mask] >= r.compute_milli) & (self.memory[mask] >= r.memory_milli)
            ).any(axis=1)
            need = (
                f"a GPU with {r.compute_milli / 10:g} % compute and "
                f"{r.memory_milli / 10:g} % memory free"
            )
        else:
            return f"{where} has {r.cpu_cores:g} free cores and {r.ram_gib:g} GiB free RAM left"
        if not room.any():
            return f"{where} has {need} left"
        return (
            f"{where} has {need} and {r.cpu_cores:g} free cores and {r.ram_gib:g} GiB free RAM left"
        )


@dataclass(frozen=True)
class _Unit:
    """What step 2 places: a whole-GPU request (one member) or a bundle of shares on one GPU."""

    gpus: int
    fill: float
    """GPU capacity taken [thousandths]."""
    compute: int
    memory: int
    cores: float
    ram: float
    models: tuple[str, ...]
    members: tuple[int, ...]
    bundle: bool

    @classmethod
    def whole(cls, index: int, r: ShareRequest) -> _Unit:
        """The unit of whole-GPU request ``r``, number ``index``."""
        return cls(
            r.gpus,
            float(r.size_milli),
            FULL_MILLI,
            FULL_MILLI,
            r.cpu_cores,
            r.ram_gib,
            r.gpu_models,
            (index,),
            False,
        )


def bundle_shares(requests: Sequence[ShareRequest], shares: Sequence[int]) -> list[list[int]]:
    """Shares bundled into one-GPU groups by best fit decreasing on the larger share; a bundle
    holds at most one GPU of compute and of memory, and one model list."""
    by_models: dict[tuple[str, ...], list[int]] = {}
    for i in shares:
        by_models.setdefault(requests[i].gpu_models, []).append(i)
    bundles: list[list[int]] = []
    free_memory: list[int] = []
    free_compute: list[int] = []
    for models in sorted(by_models):
        members = sorted(
            by_models[models], key=lambda i: (-requests[i].size_milli, -requests[i].cpu_cores, i)
        )
        # (free thousandths of the fuller dimension, bundle), ascending: best fit first.
        room: list[tuple[int, int]] = []
        for i in members:
            r = requests[i]
            k = bisect.bisect_left(room, (r.size_milli, -1))
            while k < len(room):
                bundle = room[k][1]
                if (
                    free_compute[bundle] >= r.compute_milli
                    and free_memory[bundle] >= r.memory_milli
                ):
                    break
                k += 1
            if k < len(room):
                _, bundle = room.pop(k)
                bundles[bundle].append(i)
                free_compute[bundle] -= r.compute_milli
                free_memory[bundle] -= r.memory_milli
            else:
                bundle = len(bundles)
                bundles.append([i])
                free_compute.append(FULL_MILLI - r.compute_milli)
                free_memory.append(FULL_MILLI - r.memory_milli)
            bisect.insort(room, (min(free_compute[bundle], free_memory[bundle]), bundle))
    return bundles


def _units(
    requests: Sequence[ShareRequest], chosen: Sequence[int], cluster: _Cluster
) -> list[_Unit]:
    def reach(models: tuple[str, ...]) -> int:
        return int(cluster.full[cluster.allowed(models)].sum())

    shares = [i for i in chosen if requests[i].gpus == 0 and requests[i].uses_gpu]
    units = [_Unit.whole(i, requests[i]) for i in chosen if requests[i].gpus > 0]
    for members in bundle_shares(requests, shares):
        compute = sum(requests[i].compute_milli for i in members)
        memory = sum(requests[i].memory_milli for i in members)
        units.append(
            _Unit(
                1,
                float(max(compute, memory)),
                compute,
                memory,
                sum(requests[i].cpu_cores for i in members),
                sum(requests[i].ram_gib for i in members),
                requests[members[0]].gpu_models,
                tuple(members),
                True,
            )
        )
    # Largest first; among units of one size, those allowed on the fewest GPUs go first, so
    # work that may run anywhere fills around work tied to scarce models.
    units.sort(key=lambda u: (-u.gpus, reach(u.models), -u.fill, -u.cores, u.members[0]))
    return units


@dataclass
class _Level:
    """Placements of one priority level on one cluster state (mutable while it is fitted)."""

    cluster: _Cluster
    placed: dict[int, tuple[int, tuple[int, ...]]]
    """Request index -> (host index, GPU indices)."""
    missed: list[int]


def _fit_level(
    requests: Sequence[ShareRequest], chosen: Sequence[int], cluster: _Cluster
) -> _Level:
    """Steps 1-4 for the ``chosen`` requests on ``cluster`` (changed)."""
    level = _Level(cluster, {}, [])
    loose: list[int] = []
    for unit in _units(requests, chosen, cluster):
        spot = cluster.place_unit(unit)
        if spot is None:
            (loose if unit.bundle else level.missed).extend(unit.members)
            continue
        for i in unit.members:
            level.placed[i] = spot
    for i in sorted(loose, key=lambda i: (-requests[i].size_milli, i)):
        share = cluster.place_share(requests[i])
        if share is None:
            level.missed.append(i)
        else:
            level.placed[i] = (share[0], (share[1],))
    host_only = [i for i in chosen if not requests[i].uses_gpu]
    for i in sorted(host_only, key=lambda i: (-requests[i].cpu_cores, -requests[i].ram_gib, i)):
        host = cluster.place_host_only(requests[i])
        if host is None:
            level.missed.append(i)
        else:
            level.placed[i] = (host, ())
    return level


def _fit_smallest_first(
    requests: Sequence[ShareRequest], chosen: Sequence[int], cluster: _Cluster, budget: float
) -> _Level:
    """The smallest requests whose GPU demand stays within ``budget`` thousandths, fitted as a
    level; then the rest, smallest first, one by one into what is left."""
    order = sorted(chosen, key=lambda i: (requests[i].size_milli, requests[i].cpu_cores, i))
    total = 0.0
    cut = 0
    for cut, i in enumerate(order):  # noqa: B007 (cut is read after the loop)
        total += requests[i].size_milli
        if total > budget:
            break
    else:
        cut = len(order)
    return _fit_then_fill(requests, order, cut, cluster)


def _fit_densest_first(
    requests: Sequence[ShareRequest], chosen: Sequence[int], cluster: _Cluster
) -> _Level:
    """The requests that allocate the most GPU per share of what the cluster has left (its
    GPUs, cores and RAM together), as many as those totals hold, fitted as a level; then the
    rest, densest first, one by one into what is left. When cores or RAM run out before the
    GPUs, this keeps the requests that bring the most GPU capacity for them."""
    free = (
        max(float(cluster.free_gpu.sum()), 1.0),
        max(float(cluster.cores.sum()), _TOLERANCE),
        max(float(cluster.ram.sum()), _TOLERANCE),
    )

    # Each request's share of the free GPUs, cores and RAM.
    shares = {
        i: (r.size_milli / free[0], r.cpu_cores / free[1], r.ram_gib / free[2])
        for i, r in ((i, requests[i]) for i in chosen)
    }
    density = {i: requests[i].size_milli / max(sum(shares[i]), _TOLERANCE) for i in chosen}
    order = sorted(chosen, key=lambda i: (-density[i], -requests[i].size_milli, i))
    used = [0.0, 0.0, 0.0]
    cut = len(order)
    for k, i in enumerate(order):
        used = [u + s for u, s in zip(used, shares[i], strict=True)]
        if max(used) > 1.0:
            cut = k
            break
    return _fit_then_fill(requests, order, cut, cluster)


def _fit_then_fill(
    requests: Sequence[ShareRequest], order: Sequence[int], cut: int, cluster: _Cluster
) -> _Level:
    """``order[:cut]`` fitted as a level on ``cluster`` (changed), then the rest in order, one
    by one, into what is left."""
    level = _fit_level(requests, order[:cut], cluster)
    for i in order[cut:]:
        r = requests[i]
        if r.gpus > 0:
            placed = cluster.place_unit(_Unit.whole(i, r))
        elif r.uses_gpu:
            share = cluster.place_share(r)
            placed = None if share is None else (share[0], (share[1],))
        else:
            host = cluster.place_host_only(r)
            placed = None if host is None else (host, ())
        if placed is None:
            level.missed.append(i)
        else:
            level.placed[i] = placed
    return level


def _allocated(requests: Sequence[ShareRequest], level: _Level) -> int:
    """GPU thousandths the level's placed requests take."""
    return sum(requests[i].size_milli for i in level.placed)


_STRANDED_SHARE = 0.5
"""Share of the free GPU capacity stranded by cores or RAM above which a level that does not fit
is also fitted densest first."""

REPAIR_TRIES = 4000
"""Most ejections the repair tries per priority level: a deterministic work limit."""


def _gain(shortfall: Shortfall, milli: float, count: int) -> tuple[float, float]:
    """A change of ``milli`` GPU thousandths and ``count`` requests served, ordered by the
    shortfall choice (compared as a tuple, larger is better)."""
    if shortfall is Shortfall.INSTANCES:
        return (count, milli)
    return (milli, count)


class _Repair:
    """Local search on one level's fit: take one request, or all the shares on one GPU, off a
    host (each moved to another host when one has room, else given up), fill the host from
    the requests not placed, and keep the change when the level serves more by the shortfall
    choice. Requests of earlier levels never move."""

    def __init__(
        self, requests: Sequence[ShareRequest], level: _Level, shortfall: Shortfall
    ) -> None:
        self.requests = requests
        self.level = level
        self.shortfall = shortfall
        self.on_host: dict[int, list[int]] = {}
        for i, (host, _) in sorted(level.placed.items()):
            self.on_host.setdefault(host, []).append(i)
        # Identical requests form one class; a class queues its members not placed.
        sign = 1 if shortfall is Shortfall.INSTANCES else -1
        members = sorted(
            [*level.placed, *level.missed],
            key=lambda i: (sign * requests[i].size_milli, requests[i].cpu_cores,
                           requests[i].ram_gib, i),
        )  # fmt: skip
        self.class_of: dict[int, int] = {}
        keys: dict[tuple[object, ...], int] = {}
        for i in members:
            r = requests[i]
            key = (r.gpus, r.compute_milli, r.memory_milli, r.cpu_cores, r.ram_gib, r.gpu_models)
            self.class_of[i] = keys.setdefault(key, len(keys))
        first = {c: i for i, c in reversed(self.class_of.items())}
        heads = [requests[first[c]] for c in range(len(keys))]
        self.waiting: list[list[int]] = [[] for _ in keys]
        for i in sorted(level.missed):
            self.waiting[self.class_of[i]].append(i)
        cluster = level.cluster
        # Hosts x classes: may the class use the host's model.
        self.allowed = (
            np.array([cluster.allowed(r.gpu_models) for r in heads])
            .reshape(len(heads), len(cluster.hosts))
            .T.copy()
        )
        self.allowed_weight = self.allowed.astype(np.float64)
        self.compute = np.array([r.compute_milli for r in heads], dtype=np.int64)
        self.memory = np.array([r.memory_milli for r in heads], dtype=np.int64)
        self.size = np.array([r.size_milli for r in heads], dtype=np.float64)
        # Per class: whole GPUs, GPU thousandths, cores and RAM it needs; per request of the
        # level, the most it frees (a share may free one whole GPU).
        self.need = np.array(
            [(r.gpus, r.size_milli, r.cpu_cores, r.ram_gib) for r in heads]
        ).reshape(len(heads), 4)
        self.need_rows: list[list[float]] = self.need.tolist()
        self.frees = {
            i: np.array(
                (r.gpus or int(r.uses_gpu), r.size_milli, r.cpu_cores, r.ram_gib), dtype=np.float64
            )
            for i, r in ((i, requests[i]) for i in self.class_of)
        }
        self.count = np.array([len(w) for w in self.waiting], dtype=np.int64)
        self.live = np.flatnonzero(self.count)

    def have(self, cluster: _Cluster, host: int) -> np.ndarray:
        """What ``host`` has free, as ``need`` counts it."""
        return np.array(
            [
                cluster.full[host],
                cluster.free_gpu[host],
                cluster.cores[host] + _TOLERANCE,
                cluster.ram[host] + _TOLERANCE,
            ]
        )

    def candidates(self, cluster: _Cluster, host: int) -> np.ndarray:
        """Classes with a member waiting that could fit what ``host`` has free."""
        live = self.live[self.allowed[host, self.live]]
        fits = (
            (self.need[live] <= self.have(cluster, host)).all(axis=1)
            & (self.compute[live] <= cluster.compute[host].max())
            & (self.memory[live] <= cluster.memory[host].max())
        )
        found: np.ndarray = live[fits]
        return found

    def worth_taking_out(self, host: int) -> list[tuple[int, ...]]:
        """What may be taken off ``host``: each request, and all the shares on one GPU; those
        whose removal may let a waiting class fit (a quick test that may pass some that do
        not)."""
        live = self.live[self.allowed[host, self.live]]
        mine = self.on_host.get(host, [])
        if not len(live) or not mine:
            return []
        on_gpu: dict[int, list[int]] = {}
        for i in mine:
            gpus = self.level.placed[i][1]
            if len(gpus) == 1 and not self.requests[i].gpus:
                on_gpu.setdefault(gpus[0], []).append(i)
        outs = [(i,) for i in mine] + [tuple(s) for _, s in sorted(on_gpu.items()) if len(s) > 1]
        freed = np.array([sum(self.frees[i] for i in out) for out in outs], dtype=np.float64)
        freed[:, 0] = np.array([self.frees[out[0]][0] if len(out) == 1 else 1 for out in outs])
        freed += self.have(self.level.cluster, host)
        fits = (self.need[live][None, :, :] <= freed[:, None, :]).all(axis=2).any(axis=1)
        return [out for out, ok in zip(outs, fits, strict=True) if ok]

    def fill(self, cluster: _Cluster, host: int) -> list[tuple[int, tuple[int, ...]]]:
        """Waiting requests onto ``host`` (changed), in class order, as many as fit."""
        added: list[tuple[int, tuple[int, ...]]] = []
        have = self.have(cluster, host).tolist()
        for c in self.candidates(cluster, host).tolist():
            gpus, milli, cores, ram = self.need_rows[c]
            if gpus > have[0] or milli > have[1] or cores > have[2] or ram > have[3]:
                continue
            for i in self.waiting[c]:
                taken = cluster.put(host, self.requests[i])
                if taken is None:
                    break
                added.append((i, taken))
                have = self.have(cluster, host).tolist()
        return added

    def try_host(self, host: int, outs: tuple[int, ...]) -> tuple[tuple[float, float], _Change]:
        """Take ``outs`` off ``host`` and fill it, on the level's cluster; each of ``outs``
        moves to another host when one has room, else it is given up. Returns the gain and
        the change made (``undo`` reverts it)."""
        cluster = self.level.cluster
        change = _Change(host, [(i, self.level.placed[i][1], None) for i in outs], [])
        for i, gpus, _ in change.outs:
            cluster.release(host, gpus, self.requests[i])
        # On a host with no GPU room, a fill after taking requests off it allocates no more
        # than they did: for GPU capacity, worth it only if one of them moves.
        must_move = self.shortfall is Shortfall.GPU_CAPACITY and cluster.free_gpu[host] <= 0
        if outs and must_move and not self.move_outs(change):
            return (0.0, 0.0), change
        change.added = self.fill(cluster, host)
        if not change.added:
            return (0.0, 0.0), change
        if not must_move:
            self.move_outs(change)
        lost = [self.requests[i] for i, _, moved in change.outs if moved is None]
        milli = sum(self.requests[i].size_milli for i, _ in change.added)
        milli -= sum(r.size_milli for r in lost)
        return _gain(self.shortfall, milli, len(change.added) - len(lost)), change

    def move_outs(self, change: _Change) -> bool:
        """Each request taken off to another host with room, when one has; True if any
        moved."""
        for n, (i, gpus, _) in enumerate(change.outs):
            moved = self.level.cluster.place_elsewhere(i, self.requests[i], change.host)
            change.outs[n] = (i, gpus, moved)
        return any(moved is not None for _, _, moved in change.outs)

    def undo(self, change: _Change) -> None:
        """Revert ``change`` on the level's cluster."""
        cluster = self.level.cluster
        for i, gpus in reversed(change.added):
            cluster.release(change.host, gpus, self.requests[i])
        for i, gpus, moved in reversed(change.outs):
            if moved is not None:
                cluster.release(moved[0], moved[1], self.requests[i])
            cluster.hold(change.host, gpus, self.requests[i])

    def apply(self, change: _Change) -> None:
        """Record ``change`` (already made on the cluster) in the level."""
        level = self.level
        for i, gpus in change.added:
            level.placed[i] = (change.host, gpus)
            self.waiting[self.class_of[i]].remove(i)
            self.count[self.class_of[i]] -= 1
            self.on_host.setdefault(change.host, []).append(i)
        for i, _, moved in change.outs:
            self.on_host[change.host].remove(i)
            if moved is None:
                del level.placed[i]
                self.waiting[self.class_of[i]].append(i)
                self.count[self.class_of[i]] += 1
            else:
                level.placed[i] = moved
                self.on_host.setdefault(moved[0], []).append(i)
        self.live = np.flatnonzero(self.count)

    def pressure(self) -> np.ndarray:
        """Per host, the waiting GPU demand its model may serve over that model's GPUs: hosts
        of models that waiting work is tied to come first."""
        cluster = self.level.cluster
        demand = self.allowed_weight @ (self.count * self.size)
        names, model_of = np.unique(cluster.models, return_inverse=True)
        gpus = np.bincount(model_of, weights=[h.gpus for h in cluster.hosts], minlength=len(names))
        score: np.ndarray = demand / np.maximum(gpus[model_of], 1.0)
        return score

    def improve(self, host: int, tries: int) -> int:
        """The best change on ``host`` (nothing taken off, or one request), made when it
        gains; returns the tries left."""
        best, change = self.try_host(host, ())
        self.undo(change)
        best_out: tuple[int, ...] = ()
        for out in self.worth_taking_out(host):
            if tries <= 0:
                break
            tries -= 1
            gain, change = self.try_host(host, out)
            self.undo(change)
            if gain > best:
                best, best_out = gain, out
        if best > (0.0, 0.0):
            gain, change = self.try_host(host, best_out)
            if gain > (0.0, 0.0):
                self.apply(change)
            else:
                self.undo(change)
        return tries

    def run(self, tries: int = REPAIR_TRIES) -> None:
        """Passes over the hosts until a pass changes nothing or ``tries`` ejections are
        spent."""
        changed = True
        while changed and tries > 0:
            before = len(self.level.placed), int(self.count.sum())
            # Hosts under the most waiting demand first; among equals, those with most room.
            for host in np.lexsort((-self.level.cluster.free_gpu, -self.pressure())):
                if self.allowed[host, self.live].any():
                    tries = self.improve(int(host), tries)
            changed = (len(self.level.placed), int(self.count.sum())) != before
        self.level.missed = sorted(i for w in self.waiting for i in w)


@dataclass
class _Change:
    """One repair move on the cluster: requests taken off ``host`` (each with the GPUs it
    held and where it moved, None when given up), then ``added`` put on ``host``."""

    host: int
    outs: list[tuple[int, tuple[int, ...], tuple[int, tuple[int, ...]] | None]]
    added: list[tuple[int, tuple[int, ...]]]


def fit_shares(
    requests: Sequence[ShareRequest],
    hosts: Sequence[Host],
    shortfall: Shortfall = Shortfall.INSTANCES,
) -> ShareFit:
    """Fit whole-GPU, fractional-GPU and GPU-less requests, with their cores and RAM, onto hosts.

    See the module docstring for the steps and for ``shortfall``. Deterministic: equal inputs
    give equal fits.
    """
    if not hosts:
        return ShareFit((), tuple((r.name, "there are no hosts") for r in requests))
    cluster = _Cluster(hosts)
    cluster.expect(requests)
    placed: dict[int, tuple[int, tuple[int, ...]]] = {}
    missed: list[int] = []
    for priority in sorted({r.priority for r in requests}):
        chosen = [i for i, r in enumerate(requests) if r.priority == priority]
        level = _fit_level(requests, chosen, cluster.copy())
        if level.missed and shortfall is Shortfall.INSTANCES:
            allocated = _allocated(requests, level)
            other = _fit_smallest_first(requests, chosen, cluster.copy(), allocated)
            if len(other.placed) > len(level.placed):
                level = other
        if level.missed:
            _Repair(requests, level, shortfall).run()
        if (
            level.missed
            and shortfall is Shortfall.GPU_CAPACITY
            and level.cluster.stranded_share([requests[i] for i in level.missed]) > _STRANDED_SHARE
        ):
            other = _fit_densest_first(requests, chosen, cluster.copy())
            # The repair only adds; it is worth its time when the other fit starts ahead.
            if _allocated(requests, other) > _allocated(requests, level):
                if other.missed:
                    _Repair(requests, other, shortfall).run()
                level = other
        cluster = level.cluster
        placed.update(level.placed)
        missed.extend(level.missed)
    placements = tuple(
        SharePlacement(requests[i].name, hosts[host].name, gpus)
        for i, (host, gpus) in sorted(placed.items())
    )
    reasons: dict[tuple[object, ...], str] = {}
    not_placed = []
    for i in sorted(missed):
        r = requests[i]
        key = (r.gpus, r.compute_milli, r.memory_milli, r.cpu_cores, r.ram_gib, r.gpu_models)
        if key not in reasons:
            reasons[key] = cluster.reason(r)
        not_placed.append((r.name, reasons[key]))
    return ShareFit(placements, tuple(not_placed))
