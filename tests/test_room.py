"""Room for a request made by moving or swapping whole GPUs between hosts of one shape."""

from __future__ import annotations

from planner.plan import GpuLoad, HostRequest, Slot
from planner.solve.hosts import HostPool
from planner.solve.room import GpuMove, MovableGpu, Room, moves_emptying, room_for
from tests.builders import host


def _request(name: str, *, cores: float, gpus: int = 1, ram: float = 16.0) -> HostRequest:
    slot = Slot(f"{name}#1", name, "whole GPU", 8.0, 1.0)
    load = GpuLoad("L40S", "passthrough", (slot,))
    return HostRequest("L40S", (load,) * gpus, cores, ram, 2)


def _pool(*loads: tuple[float, ...]) -> HostPool:
    """Two-GPU hosts of 64 cores and 512 GiB, ``a``, ``b``, ...; host ``i`` holds one GPU per
    entry of ``loads[i]``, taking that many cores."""
    hosts = [host(chr(ord("a") + i), gpus=2, cpu_cores=64.0) for i in range(len(loads))]
    pool = HostPool(hosts)
    for i, cores in enumerate(loads):
        for n, taken in enumerate(cores):
            assert pool.place_on(i, _request(f"{hosts[i].name}{n}", cores=taken)) is not None
    return pool


def _state(pool: HostPool) -> list[tuple[list[int], float, float]]:
    return [
        (list(free), cores, ram)
        for free, cores, ram in zip(pool.free_gpus, pool.free_cores, pool.free_ram, strict=True)
    ]


def test_a_gpu_moved_to_another_host_s_free_gpu_makes_room() -> None:
    """Host a has a free GPU and 24 cores; host b has 48 cores and no free GPU. A job of one GPU
    and 32 cores fits neither until b's light GPU (8 cores) moves to a's free GPU."""
    pool = _pool((40.0,), (8.0, 8.0))
    b0, b1 = MovableGpu(("b", 0), 8.0, 16.0), MovableGpu(("b", 1), 8.0, 16.0)
    before = _state(pool)
    room = room_for(_request("job", cores=32.0), pool, [b0, b1])
    assert room == Room(1, (GpuMove(b0, 0),))
    assert _state(pool) == before  # the pool is only looked at


def test_a_heavy_gpu_swapped_for_a_lighter_one_makes_room() -> None:
    """Host a's 60-core GPU leaves it 4 cores beside its free GPU; host b has 56 cores free and
    no free GPU, and its light GPU cannot move to a (a has 4 cores, it needs 8). Swapping a's
    heavy GPU for b's light one gives a 52 cores and b what it needs (56 + 8 - 60 >= 0)."""
    pool = _pool((60.0,), (8.0, 0.0))
    heavy, light = MovableGpu(("a", 0), 60.0, 16.0), MovableGpu(("b", 0), 8.0, 16.0)
    room = room_for(_request("job", cores=32.0), pool, [heavy, light])
    assert room == Room(0, (GpuMove(heavy, 1, swapped=light),))


def test_no_room_when_no_move_or_swap_frees_enough() -> None:
    """Both hosts full of GPUs that cannot go anywhere: nothing to move to."""
    pool = _pool((30.0, 30.0), (30.0, 30.0))
    movable = [MovableGpu((name, i), 30.0, 16.0) for name in "ab" for i in range(2)]
    assert room_for(_request("job", cores=8.0), pool, movable) is None


def test_a_host_that_fits_already_needs_no_move() -> None:
    pool = _pool((60.0,), ())
    assert room_for(_request("job", cores=32.0), pool, []) == Room(1, ())


def test_the_fewest_moves_win_and_at_most_the_limit_is_made() -> None:
    """Host a takes a 2-GPU job once both its 20-core GPUs move to the free GPUs of hosts c and
    d; b's GPUs cannot move. With a limit of one move there is no room."""
    pool = _pool((20.0, 20.0), (), ())
    a0, a1 = MovableGpu(("a", 0), 20.0, 16.0), MovableGpu(("a", 1), 20.0, 16.0)
    # b is empty: the job fits there with no move at all.
    assert room_for(_request("job", cores=32.0, gpus=2), pool, [a0, a1]) == Room(1, ())
    crowded = _pool((20.0, 20.0), (0.0, 0.0), (24.0,), (24.0,))
    movable = [a0, a1]
    room = room_for(_request("job", cores=32.0, gpus=2), crowded, movable)
    assert room is not None
    assert room == Room(0, (GpuMove(a0, 2), GpuMove(a1, 3)))
    assert room_for(_request("job", cores=32.0, gpus=2), crowded, movable, max_moves=1) is None


def test_moving_a_gpu_in_the_pool_keeps_its_bookkeeping() -> None:
    """``HostPool.move_gpu`` frees the GPU and its cores on one host and takes a free GPU and
    the cores on the other; ``swap_gpus`` shifts only cores and RAM."""
    pool = _pool((40.0,), (8.0,))
    taken = pool.move_gpu(1, 0, 0, 8.0, 16.0)
    assert taken == 1
    assert _state(pool) == [([], 16.0, 480.0), ([0, 1], 64.0, 512.0)]
    pool.swap_gpus(0, 1, 8.0, 0.0)
    assert _state(pool) == [([], 24.0, 480.0), ([0, 1], 56.0, 512.0)]
    # Best fit still finds hosts by their new free GPUs and cores.
    spot = pool.place(_request("job", cores=12.0, gpus=2))
    assert spot is not None
    assert spot[0].name == "b"


def test_a_host_is_emptied_onto_free_gpus_of_hosts_in_use() -> None:
    """Host a holds one 8-core GPU; host b holds one 16-core GPU and has a free GPU and 48 cores:
    a's GPU moves there. Host c is empty and is never a target (that would open a host)."""
    pool = _pool((8.0,), (16.0,), ())
    a0 = MovableGpu(("a", 0), 8.0, 16.0)
    in_use_with_free = [0, 1]
    assert moves_emptying(0, pool, [a0], in_use_with_free) == (GpuMove(a0, 1),)


def test_no_host_is_emptied_when_a_gpu_cannot_move_or_finds_no_room() -> None:
    pool = _pool((8.0, 8.0), (16.0,), (60.0,))
    a0, a1 = MovableGpu(("a", 0), 8.0, 16.0), MovableGpu(("a", 1), 8.0, 16.0)
    # One of a's GPUs may not move (it holds part of a multi-GPU instance, say).
    assert moves_emptying(0, pool, [a0], [1, 2]) is None
    # Host b has one free GPU, host c has one but only 4 cores: a's second GPU has nowhere to go.
    assert moves_emptying(0, pool, [a0, a1], [1, 2]) is None
    heavy = MovableGpu(("c", 0), 60.0, 16.0)
    assert moves_emptying(2, pool, [heavy], [0, 1]) is None
