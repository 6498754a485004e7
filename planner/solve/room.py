"""Room for a request on a host made by moving whole GPUs, each with every instance on it, to
other hosts of the same shape.

Placement fills hosts GPU by GPU, and what is left can lie scattered: free GPUs on a host whose
cores are given out (a GPU of twelve 4-core desktops takes 48 of its 64), free cores on hosts
whose GPUs are all taken. A GPU set up by a per-GPU role keeps its set-up and its instances
wherever it lies, so moving it whole to another host of the same shape keeps every rule its
method has over one GPU. Two moves make room on a host:

- **move**: one of its GPUs goes to a free GPU of another host with the cores and RAM its
  instances take (the host gains a free GPU and those cores and RAM);
- **swap**: one of its GPUs trades places with a lighter GPU of another host that has the
  difference free (the host gains the difference, its free GPUs stay as they were).

The same moves also empty a host whose GPUs all fit on free GPUs of the others in use
(``moves_emptying``): one host fewer, the same GPUs.

The host a GPU lands on must keep its methods' host rules (one profile size per host and the
like): the caller checks them, as it knows the methods.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from planner.methods.contract import GpuKey
from planner.plan import HostRequest
from planner.solve.hosts import HostPool

__all__ = ["GpuMove", "MovableGpu", "Room", "moves_emptying", "room_for"]

_TOLERANCE = 1e-9
"""Slack on GPUs, cores and RAM [GPUs, cores, GiB]."""

MAX_MOVES = 4
"""Most GPUs moved or swapped to make room for one request."""

_TRIED_PER_STEP = 2
"""GPUs of the host tried per move, those whose move would give most first."""


@dataclass(frozen=True)
class MovableGpu:
    """A GPU in use that may move whole: its key and what its instances take of a host."""

    key: GpuKey
    cores: float
    """Cores its instances take on the host it lies on [cores]."""
    ram_gib: float
    """RAM its instances take on the host it lies on [GiB]."""


@dataclass(frozen=True)
class GpuMove:
    """One GPU of the host made room on, moved to another host of the pool."""

    gpu: MovableGpu
    target: int
    """Index in the pool of the host it goes to."""
    swapped: MovableGpu | None = None
    """The target's GPU that takes its place, for a swap; None: it goes to a free GPU."""


@dataclass(frozen=True)
class Room:
    """Where a request fits once some GPUs are moved off that host."""

    host: int
    """Index of the host in the pool."""
    moves: tuple[GpuMove, ...]


@dataclass
class _Host:
    """A host's free GPUs, cores and RAM, and the GPUs that may move off it, as moves would
    leave them (mutable)."""

    gpus: int
    cores: float
    ram_gib: float
    movable: list[MovableGpu]

    def takes(self, gpu: MovableGpu) -> bool:
        """The host has a free GPU and the cores and RAM ``gpu``'s instances take."""
        return (
            self.gpus >= 1
            and self.cores + _TOLERANCE >= gpu.cores
            and self.ram_gib + _TOLERANCE >= gpu.ram_gib
        )


def room_for(
    request: HostRequest,
    pool: HostPool,
    movable: Sequence[MovableGpu],
    *,
    max_moves: int = MAX_MOVES,
) -> Room | None:
    """A host of ``pool`` that takes ``request`` after at most ``max_moves`` moves and swaps
    of its ``movable`` GPUs: the best fit when one takes it as it is, else of the
    ``_HOSTS_TRIED`` hosts short of least (GPUs, then cores and RAM), the first that room can
    be made on; ``None`` when none. The pool is not changed."""
    fitting = pool.fitting(request)
    if fitting is not None:
        return Room(fitting, ())
    on_host: dict[str, list[MovableGpu]] = {}
    for gpu in movable:
        on_host.setdefault(gpu.key[0], []).append(gpu)
    base = [
        _Host(len(free), cores, ram, on_host.get(host.name, []))
        for host, free, cores, ram in zip(
            pool.hosts, pool.free_gpus, pool.free_cores, pool.free_ram, strict=True
        )
    ]
    needed = len(request.loads)
    candidates = [
        i
        for i, host in enumerate(pool.hosts)
        if host.gpu_model == request.gpu_model
        and base[i].gpus + len(base[i].movable) >= needed
        and not (request.host_group and pool.group[i] not in ("", request.host_group))
    ]
    candidates.sort(key=lambda i: (*_short(request, base[i]), i))
    # Moves go to hosts in use first, most cores and RAM free first; swaps with the hosts
    # that have most of them free.
    targets = sorted(
        (i for i, h in enumerate(base) if h.gpus),
        key=lambda i: (base[i].gpus == pool.hosts[i].gpus, -base[i].cores, -base[i].ram_gib, i),
    )[:_PARTNERS]
    partners = sorted(
        (
            i
            for i, h in enumerate(base)
            if h.movable and (h.cores > _TOLERANCE or h.ram_gib > _TOLERANCE)
        ),
        key=lambda i: (-base[i].cores, -base[i].ram_gib, i),
    )[:_PARTNERS]
    for index in candidates[:_HOSTS_TRIED]:
        moves = _moves_off(index, request, base, (targets, partners), max_moves)
        if moves is not None:
            return Room(index, moves)
    return None


_HOSTS_TRIED = 32
"""Hosts a room is sought on, those short of least first."""

_PARTNERS = 32
"""Hosts a GPU may be moved to (those in use with most free first) or swapped with (those with
most free cores and RAM)."""


def _short(request: HostRequest, host: _Host) -> tuple[float, float, float]:
    """What ``host`` lacks of ``request``: GPUs, cores, RAM (<= 0 when it has enough)."""
    return (
        len(request.loads) - host.gpus,
        request.cpu_cores - host.cores,
        request.ram_gib - host.ram_gib,
    )


def _moves_off(
    index: int,
    request: HostRequest,
    base: Sequence[_Host],
    partners: tuple[Sequence[int], Sequence[int]],
    limit: int,
) -> tuple[GpuMove, ...] | None:
    """Moves and swaps, greedily, off the ``index``-th host until it has the free GPUs, cores
    and RAM ``request`` needs: while GPUs are short, a move (of the GPU that gives most of the
    cores and RAM short, or takes least when they are not); then the move or swap that gives
    most of what is short. ``partners``: the hosts moves may go to, and swaps be made with.
    ``None`` past ``limit``."""
    changed: dict[int, _Host] = {}

    def state(i: int) -> _Host:
        return changed.get(i, base[i])

    def changing(i: int) -> _Host:
        if i not in changed:
            changed[i] = dataclasses.replace(base[i], movable=list(base[i].movable))
        return changed[i]

    targets, swaps = ([i for i in group if i != index] for group in partners)
    moves: list[GpuMove] = []
    while True:
        here = state(index)
        short = _short(request, here)
        if all(s <= _TOLERANCE for s in short):
            return tuple(moves)
        if len(moves) >= limit:
            return None
        move = _best_move(here, short, (targets, swaps), state)
        if move is None:
            return None
        _apply(changing(index), changing(move.target), move)
        moves.append(move)


def _best_move(
    here: _Host,
    short: tuple[float, float, float],
    partners: tuple[Sequence[int], Sequence[int]],
    state: Callable[[int], _Host],
) -> GpuMove | None:
    gpus, cores, ram = short
    lacking = cores > _TOLERANCE or ram > _TOLERANCE
    order = sorted(
        here.movable,
        key=lambda g: ((-g.cores, -g.ram_gib) if lacking else (g.cores, g.ram_gib), g.key),
    )
    targets, swaps = partners
    best: tuple[float, GpuMove] | None = None
    for gpu in order[:_TRIED_PER_STEP]:
        for i in targets:
            if state(i).takes(gpu):
                gain = _gain(gpu.cores, gpu.ram_gib, cores, ram)
                if best is None or gain > best[0]:
                    best = (gain, GpuMove(gpu, i))
                break
        if gpus > _TOLERANCE or not lacking:
            continue
        for i in swaps:
            there = state(i)
            for other in there.movable:
                given = (gpu.cores - other.cores, gpu.ram_gib - other.ram_gib)
                if there.cores + _TOLERANCE < given[0] or there.ram_gib + _TOLERANCE < given[1]:
                    continue
                gain = _gain(*given, cores, ram)
                if gain > _TOLERANCE and (best is None or gain > best[0]):
                    best = (gain, GpuMove(gpu, i, other))
    return None if best is None else best[1]


def _gain(cores: float, ram_gib: float, short_cores: float, short_ram: float) -> float:
    """How much of what is short a move gives, each resource as a share of its shortfall."""
    gain = 0.0
    if short_cores > _TOLERANCE:
        gain += min(cores, short_cores) / short_cores
    if short_ram > _TOLERANCE:
        gain += min(ram_gib, short_ram) / short_ram
    return gain


def _apply(here: _Host, there: _Host, move: GpuMove) -> None:
    here.movable.remove(move.gpu)
    if move.swapped is None:
        here.gpus += 1
        there.gpus -= 1
        cores, ram = move.gpu.cores, move.gpu.ram_gib
    else:
        there.movable.remove(move.swapped)
        cores = move.gpu.cores - move.swapped.cores
        ram = move.gpu.ram_gib - move.swapped.ram_gib
    here.cores += cores
    here.ram_gib += ram
    there.cores -= cores
    there.ram_gib -= ram


def moves_emptying(
    index: int, pool: HostPool, mine: Sequence[MovableGpu], targets: Sequence[int]
) -> tuple[GpuMove, ...] | None:
    """Moves of every GPU in use on the ``index``-th host of ``pool`` (``mine``: those of its
    GPUs that may move) to free GPUs of the ``targets`` hosts (others in use with a free GPU)
    that have the cores and RAM its instances take: the heaviest first, each to the host it
    leaves fewest cores free on. ``None`` when a GPU there may not move or finds no such host.
    The pool is not changed."""
    in_use = pool.hosts[index].gpus - len(pool.free_gpus[index])
    if not mine or len(mine) != in_use:
        return None
    here = _Host(len(pool.free_gpus[index]), pool.free_cores[index], pool.free_ram[index], [*mine])
    there = {
        i: _Host(len(pool.free_gpus[i]), pool.free_cores[i], pool.free_ram[i], [])
        for i in targets
        if i != index
    }
    if sum(h.gpus for h in there.values()) < len(mine):
        return None
    moves: list[GpuMove] = []
    for gpu in sorted(mine, key=lambda g: (-g.cores, -g.ram_gib, g.key)):
        fits = [i for i, h in there.items() if h.takes(gpu)]
        if not fits:
            return None
        target = min(fits, key=lambda i: (there[i].cores - gpu.cores, there[i].ram_gib, i))
        move = GpuMove(gpu, target)
        _apply(here, there[target], move)
        moves.append(move)
    return tuple(moves)
