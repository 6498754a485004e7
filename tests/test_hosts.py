"""Host assignment (stage B): best fit by priority, specific reasons, groups and exact sizing."""

from __future__ import annotations

import itertools
import random

import pytest

from planner.inputs.inventory import ServerType
from planner.plan import GpuLoad, HostRequest, Slot
from planner.solve.hosts import (
    HostPool,
    assign_hosts,
    balanced_hosts,
    min_hosts_by_configuration,
    min_hosts_exact,
    most_by_configuration,
)
from tests.builders import host


def _request(
    name: str,
    gpus: int = 1,
    *,
    cores: float = 4.0,
    ram: float = 16.0,
    priority: int = 2,
    group: str = "",
    model: str = "L40S",
) -> HostRequest:
    slot = Slot(
        instance=f"{name}#1", workload=name, profile="whole GPU", memory_gib=8.0, compute_share=1.0
    )
    load = GpuLoad(gpu_model=model, config="passthrough", slots=(slot,))
    return HostRequest(model, (load,) * gpus, cores, ram, priority, group)


def test_best_fit_prefers_the_host_with_fewest_free_gpus() -> None:
    """A one-GPU request goes to the host left with the fewest free GPUs that still fits."""
    pool = HostPool([host("big", gpus=4), host("small", gpus=2)])
    assign_hosts([_request("first")], pool)  # small now has 1 free
    result = assign_hosts([_request("second")], pool)
    assert [p.host for p in result.placements] == ["small"]


def test_multi_gpu_request_lands_on_one_host() -> None:
    """A 3-GPU request takes three distinct GPUs of one host."""
    result = assign_hosts([_request("a", 3)], HostPool([host("h1", gpus=2), host("h2", gpus=4)]))
    assert {p.host for p in result.placements} == {"h2"}
    assert sorted(p.gpu_index for p in result.placements) == [0, 1, 2]


def test_priority_wins_when_capacity_is_short() -> None:
    """With one GPU left, the priority-1 request gets it even though it came last."""
    pool = HostPool([host("h1", gpus=1)])
    result = assign_hosts([_request("low", priority=3), _request("urgent", priority=1)], pool)
    assert [p.instance for p in result.placements] == ["urgent#1"]
    assert [n.instance for n in result.not_placed] == ["low#1"]


def test_reason_names_the_gpu_shortage() -> None:
    """When no host has the GPUs left, the reason says how many were needed."""
    pool = HostPool([host("h1", gpus=2)])
    result = assign_hosts([_request("a", 2), _request("b", 2)], pool)
    assert result.not_placed[0].reason == "no host of model L40S has 2 free GPUs left"


def test_reason_names_the_core_shortage() -> None:
    """GPUs are free but cores are not: the reason says cores."""
    pool = HostPool([host("h1", gpus=4, cpu_cores=16)])
    result = assign_hosts([_request("a", cores=12), _request("b", cores=8)], pool)
    assert result.not_placed[0].reason == (
        "no host of model L40S has 1 free GPU and 8 free cores left"
    )


def test_a_shared_gpu_s_core_shortage_says_whose_cores_they_are() -> None:
    """A GPU packed with 16 desktops asks the cores of all 16: the reason says so, so a user does
    not read it as one desktop's need (a desktop left out on a 1-core host)."""
    slots = tuple(
        Slot(instance=f"d#{i}", workload="d", profile="2B", memory_gib=2.0, compute_share=1 / 16)
        for i in range(1, 17)
    )
    load = GpuLoad(gpu_model="A16", config="vGPU 2B x16", slots=slots)
    pool = HostPool([host("h1", "A16", 4, cpu_cores=1)])
    result = assign_hosts([HostRequest("A16", (load,), 16.0, 32.0, 2)], pool)
    assert result.not_placed[0].reason == (
        "no host of model A16 has 1 free GPU and 16 free cores left for the 16 instances its "
        "GPU holds"
    )


def test_reason_names_the_ram_shortage() -> None:
    """GPUs and cores are free but RAM is not: the reason says RAM."""
    pool = HostPool([host("h1", gpus=4, ram_gib=64)])
    result = assign_hosts([_request("a", ram=60), _request("b", ram=8)], pool)
    assert "8 GiB free RAM" in result.not_placed[0].reason


def test_reason_for_a_request_larger_than_any_host() -> None:
    """A request wider than every host says so, with the largest host's size."""
    result = assign_hosts([_request("a", 8)], HostPool([host("h1", gpus=4)]))
    assert result.not_placed[0].reason == (
        "needs 8 GPUs on one host; the largest host of model L40S has 4"
    )


def test_reason_for_a_model_without_hosts() -> None:
    """A request for a model no host has says so."""
    result = assign_hosts([_request("a", model="L4")], HostPool([host("h1")]))
    assert result.not_placed[0].reason == "no usable host has L4 GPUs"


def test_host_groups_never_share_a_host() -> None:
    """Requests of groups 8C and 16C go to different hosts even when one host has room."""
    pool = HostPool([host("h1", gpus=4), host("h2", gpus=4)])
    result = assign_hosts([_request("a", group="8C"), _request("b", group="16C")], pool)
    hosts = {p.instance: p.host for p in result.placements}
    assert hosts["a#1"] != hosts["b#1"]
    blocked = assign_hosts([_request("c", group="4C")], pool)
    assert "another profile size" in blocked.not_placed[0].reason


def test_opening_hosts_when_sizing() -> None:
    """With a server type, hosts open as needed: five 2-GPU requests need three 4-GPU hosts."""
    server = ServerType("L40S", 4, 64.0, 512.0)
    pool = HostPool([], open_host=server.host)
    result = assign_hosts([_request(f"r{i}", 2) for i in range(5)], pool)
    assert not result.not_placed
    assert [h.name for h in pool.hosts] == ["sized-001", "sized-002", "sized-003"]


def test_sizing_reason_for_a_request_the_server_cannot_hold() -> None:
    """A request wider than the server type is not placed, and no host is opened for it."""
    pool = HostPool([], open_host=ServerType("L40S", 4, 64.0, 512.0).host)
    result = assign_hosts([_request("a", 8)], pool)
    assert result.not_placed[0].reason == "needs 8 GPUs on one host; the server type has 4"
    assert pool.hosts == []


def _brute_force_hosts(requests: list[HostRequest], gpus: int, cores: float) -> int:
    for count in range(1, len(requests) + 1):
        for assignment in itertools.product(range(count), repeat=len(requests)):
            used_gpus = [0] * count
            used_cores = [0.0] * count
            for request, h in zip(requests, assignment, strict=True):
                used_gpus[h] += len(request.loads)
                used_cores[h] += request.cpu_cores
            if max(used_gpus) <= gpus and max(used_cores) <= cores:
                return count
    return 0


def test_exact_host_count_matches_brute_force() -> None:
    """The host MILP finds the fewest 4-GPU, 32-core hosts, as enumerating all assignments does."""
    requests = [
        _request("a", 3, cores=8), _request("b", 2, cores=20), _request("c", 2, cores=20),
        _request("d", 1, cores=4), _request("e", 1, cores=12), _request("f", 3, cores=4),
    ]  # fmt: skip
    server = host("s", gpus=4, cpu_cores=32, ram_gib=512)
    solved = min_hosts_exact(requests, server, upper_bound=6, time_limit_s=10)
    assert solved is not None
    assignment, proven = solved
    assert proven
    assert len(set(assignment)) == _brute_force_hosts(requests, 4, 32) == 4


def test_the_same_requests_asked_again_are_not_solved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A placement repeated for another round of planning asks for the fewest hosts of the same
    requests: the MILP is solved once and both answers are the same, each the caller's own."""
    from planner.solve import hosts

    solves: list[int] = []
    solve = hosts.min_bins

    def counted(*args: object, **kwargs: object) -> object:
        solves.append(1)
        return solve(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hosts, "min_bins", counted)
    hosts._fewest_bins.cache_clear()
    requests = [_request("a", 3, cores=8), _request("b", 2, cores=20), _request("c", 2, cores=20)]
    server = host("s", gpus=4, cpu_cores=32, ram_gib=512)
    first = min_hosts_exact(requests, server, upper_bound=3, time_limit_s=10)
    assert first is not None
    first[0].append(99)  # a caller changing its answer leaves the next caller's alone
    second = min_hosts_exact(requests, server, upper_bound=3, time_limit_s=10)
    other = min_hosts_exact(requests[:2], server, upper_bound=3, time_limit_s=10)
    assert second is not None
    assert other is not None
    assert len(solves) == 2  # the first requests once, the other requests once
    assert first[0][:-1] == second[0]
    assert len(set(second[0])) == 3  # b and c: 40 cores on 32-core hosts
    assert len(set(other[0])) == 2


def _two_small_two_large() -> list[HostRequest]:
    """Two urgent 24-core H100 GPUs and two less urgent 80-core ones."""
    return [
        _request("small-a", cores=24, priority=1, model="H100-80GB-SXM"),
        _request("small-b", cores=24, priority=1, model="H100-80GB-SXM"),
        _request("vdi-a", cores=80, priority=2, model="H100-80GB-SXM"),
        _request("vdi-b", cores=80, priority=2, model="H100-80GB-SXM"),
    ]


def test_largest_first_is_kept_when_urgent_first_strands_cores() -> None:
    """Two urgent 24-core GPUs placed first share one 112-core host and leave 64 cores, too few
    for an 80-core GPU; largest first gives each 80-core GPU a host and both 24-core GPUs still
    fit beside them."""
    pool = HostPool([host(f"h{i}", "H100-80GB-SXM", 8, cpu_cores=112) for i in (1, 2)])
    requests = _two_small_two_large()
    result = assign_hosts(requests, pool)
    assert result.not_placed == ()
    cores: dict[str, float] = {}
    for p in result.placements:
        cores[p.host] = cores.get(p.host, 0.0) + {"s": 24.0, "v": 80.0}[p.workload[0]]
    assert sorted(cores.values()) == [104.0, 104.0]
    assert pool.free_cores == [8.0, 8.0]  # the pool holds what was kept


def test_urgent_first_is_kept_when_largest_first_would_drop_urgent_work() -> None:
    """With room for one of two requests, the urgent one is placed even though it is smaller:
    largest first is only kept when it leaves out fewer instances, most urgent level first."""
    pool = HostPool([host("h1", gpus=1, cpu_cores=64)])
    result = assign_hosts(
        [_request("big", cores=48, priority=2), _request("urgent", cores=8, priority=1)], pool
    )
    assert [p.instance for p in result.placements] == ["urgent#1"]
    assert [n.instance for n in result.not_placed] == ["big#1"]


@pytest.mark.parametrize(("fewest_hosts", "in_use"), [(False, 3), (True, 2)])
def test_fewest_hosts_keeps_largest_first_when_it_uses_fewer_hosts(
    fewest_hosts: bool, in_use: int
) -> None:
    """Urgent first puts two 24-core GPUs on one 112-core host and each 80-core GPU on a host of
    its own: three hosts. Asked for the fewest hosts, largest first pairs each 80-core GPU with
    a 24-core one: two hosts, every request placed either way."""
    pool = HostPool([host(f"h{i}", "H100-80GB-SXM", 8, cpu_cores=112) for i in (1, 2, 3)])
    requests = _two_small_two_large()
    result = assign_hosts(requests, pool, fewest_hosts=fewest_hosts)
    assert result.not_placed == ()
    assert len({p.host for p in result.placements}) == pool.hosts_in_use() == in_use


def _strands_gpus() -> list[HostRequest]:
    """An urgent 24-core GPU, an urgent 16-core GPU pair and two 48- and 40-core pairs."""
    return [
        _request("tune", cores=24, priority=1),
        _request("train-a", 2, cores=48),
        _request("train-b", 2, cores=40),
        _request("train-c", 2, cores=16, priority=1),
    ]


def _hosts_used(requests: list[HostRequest], host_of: list[int]) -> int:
    """Hosts of 4 GPUs and 64 cores that ``host_of`` uses, checked to hold what it gives them."""
    for h in set(host_of):
        on = [r for r, i in zip(requests, host_of, strict=True) if i == h]
        assert sum(len(r.loads) for r in on) <= 4
        assert sum(r.cpu_cores for r in on) <= 64
        assert len({r.host_group for r in on} - {""}) <= 1
    return len(set(host_of))


def test_configurations_fill_hosts_where_best_fit_strands_gpus() -> None:
    """Best fit, by priority or by size, leaves two GPUs free beside too few cores and opens a
    third 64-core host; the configurations {48-core pair, 16-core pair} and {40-core pair,
    24-core GPU} hold everything on two, and the assignment places every request there."""
    requests = _strands_gpus()
    hosts = [host(f"h{i}", gpus=4, cpu_cores=64) for i in (1, 2, 3)]
    pool = HostPool(hosts)
    assert not assign_hosts(requests, pool, fewest_hosts=True).not_placed
    assert pool.hosts_in_use() == 3

    solved = min_hosts_by_configuration(requests, hosts[0], upper_bound=2, time_limit_s=10)

    assert solved is not None
    host_of, proven = solved
    assert proven
    assert _hosts_used(requests, host_of) == 2
    configured = HostPool(hosts)
    assert not assign_hosts(requests, configured, fixed=host_of).not_placed
    assert configured.hosts_in_use() == 2


@pytest.mark.parametrize("seed", range(12))
def test_configuration_host_count_matches_brute_force(seed: int) -> None:
    """On small random sets of 1- and 2-GPU requests the configurations need exactly as many
    4-GPU, 64-core hosts as enumerating every assignment does."""
    rng = random.Random(seed)
    requests = [
        _request(f"r{i}", rng.choice((1, 1, 2)), cores=rng.choice((8, 16, 24, 40, 48)))
        for i in range(rng.randint(3, 6))
    ]
    server = host("s", gpus=4, cpu_cores=64)

    solved = min_hosts_by_configuration(
        requests, server, upper_bound=len(requests), time_limit_s=10
    )

    assert solved is not None
    assert solved[1]
    assert _hosts_used(requests, solved[0]) == _brute_force_hosts(requests, 4, 64)


def test_configurations_keep_host_groups_apart() -> None:
    """Two GPUs of one vGPU profile size and two of another fit one host by GPUs and cores, but
    one profile size per host takes two hosts."""
    requests = [_request(f"{g}{i}", cores=8, group=g) for g in "ab" for i in (1, 2)]

    solved = min_hosts_by_configuration(
        requests, host("s", gpus=4, cpu_cores=64), upper_bound=4, time_limit_s=10
    )

    assert solved is not None
    assert _hosts_used(requests, solved[0]) == 2


def test_configurations_are_not_listed_for_too_many_kinds() -> None:
    """Thirty requests of different core counts fill an 8-GPU host in millions of ways: the
    listing gives up and best fit's answer stands."""
    requests = [_request(f"r{i}", cores=1 + i / 10) for i in range(30)]

    solved = min_hosts_by_configuration(
        requests, host("s", gpus=8, cpu_cores=512), upper_bound=30, time_limit_s=10
    )

    assert solved is None


def _left_out_by_priority(requests: list[HostRequest], host_of: list[int | None]) -> list[int]:
    levels = sorted({r.priority for r in requests})
    return [
        sum(1 for r, h in zip(requests, host_of, strict=True) if h is None and r.priority == level)
        for level in levels
    ]


def _fewest_left_out(requests: list[HostRequest], hosts: int) -> list[int]:
    """Requests left out per priority level, most urgent first, by enumerating every choice of
    a host (or none) for each request, on 4-GPU, 64-core hosts."""
    best: list[int] | None = None
    for choice in itertools.product([*range(hosts), None], repeat=len(requests)):
        fits = all(
            sum(len(r.loads) for r, h in zip(requests, choice, strict=True) if h == k) <= 4
            and sum(r.cpu_cores for r, h in zip(requests, choice, strict=True) if h == k) <= 64
            for k in range(hosts)
        )
        if fits:
            left = _left_out_by_priority(requests, list(choice))
            best = left if best is None or left < best else best
    assert best is not None
    return best


def _left_out_assigning(requests: list[HostRequest], assigned_not_placed: set[str]) -> list[int]:
    return _left_out_by_priority(
        requests,
        [None if r.loads[0].slots[0].instance in assigned_not_placed else 0 for r in requests],
    )


def test_configurations_place_most_where_best_fit_strands_gpus() -> None:
    """Seven requests do not all fit two 4-GPU, 64-core hosts. Best fit, by priority or by size,
    strands GPUs beside the hosts' last cores and leaves three out; filled by configuration
    the hosts leave two, as few as any assignment does."""
    requests = [
        _request(f"r{i}", gpus, cores=cores)
        for i, (gpus, cores) in enumerate(
            [(1, 16), (2, 16), (2, 16), (1, 48), (2, 24), (1, 16), (1, 16)]
        )
    ]
    hosts = [host(f"h{i}", gpus=4, cpu_cores=64) for i in (1, 2)]
    best_fit = assign_hosts(requests, HostPool(hosts), fewest_hosts=True)
    assert _left_out_assigning(requests, {n.instance for n in best_fit.not_placed}) == [3]

    host_of = most_by_configuration(requests, hosts[0], hosts=2, time_limit_s=10)

    assert host_of is not None
    assert _left_out_by_priority(requests, host_of) == [2] == _fewest_left_out(requests, 2)
    placed = assign_hosts(requests, HostPool(hosts), fixed=host_of)
    assert len({n.instance for n in placed.not_placed}) == 2


@pytest.mark.parametrize("seed", range(12))
def test_most_placed_by_configuration_matches_brute_force(seed: int) -> None:
    """On small random sets of 1- and 2-GPU requests of two priorities that do not all fit two
    hosts, the configurations leave out as few requests, most urgent level first, as
    enumerating every assignment does, and never more than best fit; every request given a
    host fits there."""
    rng = random.Random(seed)
    requests = [
        _request(
            f"r{i}",
            rng.choice((1, 1, 2)),
            cores=rng.choice((8, 16, 24, 40, 48)),
            priority=rng.choice((1, 2)),
        )
        for i in range(rng.randint(5, 8))
    ]
    hosts = [host(f"h{i}", gpus=4, cpu_cores=64) for i in (1, 2)]

    host_of = most_by_configuration(requests, hosts[0], hosts=2, time_limit_s=10)

    assert host_of is not None
    assert _left_out_by_priority(requests, host_of) == _fewest_left_out(requests, 2)
    placed = assign_hosts(requests, HostPool(hosts), fixed=host_of)
    missed = {n.instance for n in placed.not_placed}
    assert _left_out_assigning(requests, missed) <= _left_out_by_priority(requests, host_of)
    best_fit = assign_hosts(requests, HostPool(hosts), fewest_hosts=True)
    assert _left_out_assigning(requests, missed) <= _left_out_assigning(
        requests, {n.instance for n in best_fit.not_placed}
    )


def test_placement_rows_are_written_for_the_assignment_kept_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When urgent first leaves a request out, largest first is tried too and one of the two
    kept: only the kept one's placement rows are written (one per slot placed), and they
    are those of placing the requests in that order."""
    from planner.solve import hosts as hosts_module

    requests = [
        _request("small", cores=16, priority=1),
        _request("big", 2, cores=48, priority=2),
        _request("mid", cores=24, priority=2),
    ]
    pool_hosts = [host("h1", gpus=4, cpu_cores=64)]
    written: list[str] = []
    row = hosts_module.Placement

    def counted_row(**fields: object) -> object:
        written.append(str(fields["instance"]))
        return row(**fields)  # type: ignore[arg-type]

    monkeypatch.setattr(hosts_module, "Placement", counted_row)
    assigned = assign_hosts(requests, HostPool(pool_hosts))

    assert assigned.not_placed
    assert written == [p.instance for p in assigned.placements]
    assert sorted(written) == ["big#1", "big#1", "small#1"]


def test_a_pool_s_copy_shares_free_gpu_lists_until_either_pool_places_on_them() -> None:
    """Copying a pool of many hosts copies no host's free-GPU list: a host's list is copied
    when a request lands on it in either pool, so each pool still sees only its own
    placements (on the copy, then on the original, then on a copy of a copy)."""
    pool = HostPool([host(f"h{i}", gpus=4, cpu_cores=64) for i in range(50)])
    trial = pool.copy()
    assert all(a is b for a, b in zip(pool.free_gpus, trial.free_gpus, strict=True))

    on_trial = trial.place(_request("job", 2))
    assert on_trial is not None
    assert pool.free_gpus[0] == [0, 1, 2, 3]
    assert trial.free_gpus[0] == [2, 3]
    assert all(a is b for a, b in zip(pool.free_gpus[1:], trial.free_gpus[1:], strict=True))

    on_pool = pool.place(_request("vm", 3))
    assert on_pool is not None
    assert on_pool[0].name == "h0"
    assert (pool.free_gpus[0], trial.free_gpus[0]) == ([3], [2, 3])
    again = trial.copy()
    assert again.place(_request("vm", 1)) is not None
    assert (pool.free_gpus[0], trial.free_gpus[0], again.free_gpus[0]) == ([3], [2, 3], [3])
    assert pool.hosts_in_use() == trial.hosts_in_use() == again.hosts_in_use() == 1


def test_balanced_hosts_run_out_of_gpus_and_cores_together() -> None:
    """Three 30-core GPUs and thirteen 2-core ones on two hosts of 8 GPUs and 96 cores: largest
    first puts the three heavy GPUs on one host, whose last 6 cores take three light ones and
    strand two GPUs, so two light GPUs find no host; balanced, each host takes light GPUs while
    its free cores per free GPU are low and heavy ones once they are high, and all 16 fit."""
    hosts = [host(f"h{i}", "L40S", 8, cpu_cores=96, ram_gib=1024) for i in range(2)]
    requests = [_request(f"heavy{i}", cores=30.0) for i in range(3)]
    requests += [_request(f"light{i}", cores=2.0) for i in range(13)]
    largest = assign_hosts(requests, HostPool(hosts))
    assert len(largest.not_placed) == 2
    fixed = balanced_hosts(requests, HostPool(hosts))
    assert None not in fixed
    for index in (0, 1):
        mine = [requests[i] for i, h in enumerate(fixed) if h == index]
        assert len(mine) <= 8
        assert sum(r.cpu_cores for r in mine) <= 96
    balanced = assign_hosts(requests, HostPool(hosts), fixed=fixed)
    assert balanced.not_placed == ()
    assert len(balanced.placements) == 16
