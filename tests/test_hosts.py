"""Host assignment (stage B): best fit by priority, specific reasons, groups and exact sizing."""

from __future__ import annotations

import itertools
import random

from bench.fleets import host
from planner.inputs.inventory import Host, ServerType
from planner.plan import GpuLoad, HostRequest, Slot
from planner.solve.hosts import (
    HostPool,
    ShareFit,
    ShareRequest,
    assign_hosts,
    fit_shares,
    min_hosts_exact,
)


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


def _share_fit_problems(
    fit: ShareFit, requests: list[ShareRequest], hosts: list[Host]
) -> list[str]:
    """Independent check of a share fit: GPU thousandths, whole GPUs, cores, RAM, models."""
    by_name = {r.name: r for r in requests}
    by_host = {h.name: h for h in hosts}
    used: dict[tuple[str, int], int] = {}
    cores: dict[str, float] = {}
    ram: dict[str, float] = {}
    problems = []
    for p in fit.placements:
        request, host_ = by_name[p.request], by_host[p.host]
        if request.gpu_models and host_.gpu_model not in request.gpu_models:
            problems.append(f"{p.request} on a {host_.gpu_model}")
        if len(p.gpu_indices) != max(1, request.gpus):
            problems.append(f"{p.request} has {len(p.gpu_indices)} GPUs")
        for g in p.gpu_indices:
            used[(p.host, g)] = used.get((p.host, g), 0) + p.share_milli
        cores[p.host] = cores.get(p.host, 0.0) + request.cpu_cores
        ram[p.host] = ram.get(p.host, 0.0) + request.ram_gib
    problems += [f"GPU {k} holds {v}" for k, v in used.items() if v > 1000]
    problems += [f"{h} cores" for h, c in cores.items() if c > by_host[h].cpu_cores + 1e-9]
    problems += [f"{h} RAM" for h, r in ram.items() if r > by_host[h].ram_gib + 1e-9]
    placed = {p.request for p in fit.placements}
    missing = {r.name for r in requests} - placed - {n for n, _ in fit.not_placed}
    problems += [f"{n} lost" for n in sorted(missing)]
    return problems


def test_shares_of_one_gpu_fill_it_exactly() -> None:
    """Shares of 300 and 700 thousandths share one GPU; a third share waits for a second GPU."""
    requests = [
        ShareRequest("a", 0, 300, 1.0, 1.0),
        ShareRequest("b", 0, 700, 1.0, 1.0),
        ShareRequest("c", 0, 500, 1.0, 1.0),
    ]
    hosts = [host("h1", gpus=1), host("h2", gpus=1)]
    fit = fit_shares(requests, hosts)
    where = {p.request: p.host for p in fit.placements}
    assert where["a"] == where["b"] != where["c"]
    assert _share_fit_problems(fit, requests, hosts) == []


def test_whole_gpu_requests_stay_on_one_host_and_respect_models() -> None:
    """A 4-GPU request lands on one 4-GPU host of an allowed model, never split."""
    requests = [ShareRequest("big", 4, 0, 8.0, 8.0, ("T4",))]
    hosts = [host("l1", "L40S", 8), host("t1", "T4", 2), host("t2", "T4", 4)]
    fit = fit_shares(requests, hosts)
    assert [(p.host, p.gpu_indices) for p in fit.placements] == [("t2", (0, 1, 2, 3))]


def test_core_hungry_work_goes_where_cores_are() -> None:
    """A 32-core pod takes the 64-core host and a 2-core pod the 4-core one, so both fit."""
    requests = [ShareRequest("light", 1, 0, 2.0, 1.0), ShareRequest("hungry", 1, 0, 32.0, 1.0)]
    hosts = [host("poor", gpus=1, cpu_cores=4), host("rich", gpus=1, cpu_cores=64)]
    fit = fit_shares(requests, hosts)
    assert {p.request: p.host for p in fit.placements} == {"light": "poor", "hungry": "rich"}


def test_share_reasons_name_what_ran_out() -> None:
    """No GPU room, or room without cores, each get their own reason."""
    hosts = [host("h1", gpus=1, cpu_cores=4)]
    no_room = fit_shares([ShareRequest("a", 0, 800, 1, 1), ShareRequest("b", 0, 800, 1, 1)], hosts)
    assert no_room.not_placed == (("b", "no host has a GPU with 80 % free left"),)
    no_cores = fit_shares([ShareRequest("c", 0, 100, 8, 1)], hosts)
    assert no_cores.not_placed == (
        ("c", "no host has a GPU with 10 % free and 8 free cores and 1 GiB free RAM left"),
    )
    wrong_model = fit_shares([ShareRequest("d", 1, 0, 1, 1, ("A10",))], hosts)
    assert wrong_model.not_placed == (("d", "no host of model A10 in the inventory"),)


def test_random_share_fits_are_feasible() -> None:
    """On 30 random mixes of shares and whole GPUs, every fit passes an independent check."""
    rng = random.Random(3)
    for _ in range(30):
        hosts = [
            host(f"h{i}", rng.choice(["T4", "G2"]), rng.choice([1, 2, 4, 8]),
                 cpu_cores=rng.choice([8, 32, 96]), ram_gib=rng.choice([64, 256]))
            for i in range(rng.randint(1, 6))
        ]  # fmt: skip
        requests = [
            ShareRequest(
                f"p{i}",
                rng.choice([0, 0, 1, 2]),
                rng.choice([50, 230, 470, 810]),
                rng.choice([1.0, 4.0, 12.0]),
                rng.choice([4.0, 30.0]),
                rng.choice([(), ("T4",)]),
            )
            for i in range(rng.randint(1, 25))
        ]
        fit = fit_shares(requests, hosts)
        assert _share_fit_problems(fit, requests, hosts) == []
