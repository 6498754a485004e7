"""Fractional-GPU packing onto hosts: shares, whole GPUs, GPU-less pods, priority, shortfall."""

from __future__ import annotations

import random

from planner.assumptions import Shortfall
from planner.inputs.inventory import Host
from planner.solve.share_bound import allocation_upper_bound
from planner.solve.shares import FULL_MILLI, ShareFit, ShareRequest, fit_shares
from tests.builders import host


def _share(
    name: str, milli: int, cores: float = 1.0, ram: float = 1.0, *, memory: int | None = None,
    models: tuple[str, ...] = (), priority: int = 2,
) -> ShareRequest:  # fmt: skip
    return ShareRequest(
        name, 0, milli, milli if memory is None else memory, cores, ram, models, priority
    )


def _whole(
    name: str, gpus: int, cores: float = 1.0, ram: float = 1.0, models: tuple[str, ...] = ()
) -> ShareRequest:
    return ShareRequest(name, gpus, 0, 0, cores, ram, models)


def fit_problems(fit: ShareFit, requests: list[ShareRequest], hosts: list[Host]) -> list[str]:
    """Independent check of a fit: GPU compute and memory thousandths, whole GPUs, cores, RAM,
    models, every request placed or listed once."""
    by_name = {r.name: r for r in requests}
    by_host = {h.name: h for h in hosts}
    compute: dict[tuple[str, int], int] = {}
    memory: dict[tuple[str, int], int] = {}
    cores: dict[str, float] = {}
    ram: dict[str, float] = {}
    problems = []
    for p in fit.placements:
        request, host_ = by_name[p.request], by_host[p.host]
        if request.gpu_models and host_.gpu_model not in request.gpu_models:
            problems.append(f"{p.request} on a {host_.gpu_model}")
        wanted = request.gpus or (1 if request.uses_gpu else 0)
        if len(set(p.gpu_indices)) != wanted:
            problems.append(f"{p.request} has {len(p.gpu_indices)} GPUs")
        for g in p.gpu_indices:
            if not 0 <= g < host_.gpus:
                problems.append(f"{p.request} on missing GPU {g}")
            key = (p.host, g)
            compute[key] = compute.get(key, 0) + (request.compute_milli or FULL_MILLI)
            memory[key] = memory.get(key, 0) + (request.memory_milli or FULL_MILLI)
        cores[p.host] = cores.get(p.host, 0.0) + request.cpu_cores
        ram[p.host] = ram.get(p.host, 0.0) + request.ram_gib
    problems += [f"GPU {k} computes {v}" for k, v in compute.items() if v > FULL_MILLI]
    problems += [f"GPU {k} holds {v}" for k, v in memory.items() if v > FULL_MILLI]
    problems += [f"{h} cores" for h, c in cores.items() if c > by_host[h].cpu_cores + 1e-9]
    problems += [f"{h} RAM" for h, r in ram.items() if r > by_host[h].ram_gib + 1e-9]
    names = [p.request for p in fit.placements] + [n for n, _ in fit.not_placed]
    if sorted(names) != sorted(by_name):
        problems.append("a request is lost or listed twice")
    return problems


def test_shares_of_one_gpu_fill_it_exactly() -> None:
    """Shares of 300 and 700 thousandths share one GPU; a third share waits for a second GPU."""
    requests = [_share("a", 300), _share("b", 700), _share("c", 500)]
    hosts = [host("h1", gpus=1), host("h2", gpus=1)]
    fit = fit_shares(requests, hosts)
    where = {p.request: p.host for p in fit.placements}
    assert where["a"] == where["b"] != where["c"]
    assert fit_problems(fit, requests, hosts) == []


def test_memory_share_limits_a_gpu_even_when_compute_is_free() -> None:
    """Two pods of 20 % compute but 60 % memory cannot share one GPU."""
    requests = [_share("a", 200, memory=600), _share("b", 200, memory=600)]
    hosts = [host("h1", gpus=1)]
    fit = fit_shares(requests, hosts)
    assert len(fit.placements) == 1
    assert fit.not_placed[0][1] == "no host has a GPU with 20 % compute and 60 % memory free left"


def test_whole_gpu_requests_stay_on_one_host_and_respect_models() -> None:
    """A 4-GPU request lands on one 4-GPU host of an allowed model, never split."""
    requests = [_whole("big", 4, 8.0, 8.0, ("T4",))]
    hosts = [host("l1", "L40S", 8), host("t1", "T4", 2), host("t2", "T4", 4)]
    fit = fit_shares(requests, hosts)
    assert [(p.host, p.gpu_indices) for p in fit.placements] == [("t2", (0, 1, 2, 3))]


def test_core_hungry_work_goes_where_cores_are() -> None:
    """A 32-core pod takes the 64-core host and a 2-core pod the 4-core one, so both fit."""
    requests = [_whole("light", 1, 2.0), _whole("hungry", 1, 32.0)]
    hosts = [host("poor", gpus=1, cpu_cores=4), host("rich", gpus=1, cpu_cores=64)]
    fit = fit_shares(requests, hosts)
    assert {p.request: p.host for p in fit.placements} == {"light": "poor", "hungry": "rich"}


def test_pods_without_gpu_take_cores_where_gpus_are_used_up() -> None:
    """A CPU-only pod lands on the host whose GPU is taken, leaving the free GPU's host whole."""
    requests = [_whole("gpu", 1, 2.0), ShareRequest("cpu", 0, 0, 0, 2.0, 1.0)]
    hosts = [host("a", gpus=1, cpu_cores=8), host("b", gpus=1, cpu_cores=8)]
    fit = fit_shares(requests, hosts)
    where = {p.request: p for p in fit.placements}
    assert where["cpu"].host == where["gpu"].host
    assert where["cpu"].gpu_indices == ()


def test_priority_one_is_served_before_priority_two() -> None:
    """With room for one whole GPU, the priority-1 pod listed last takes it."""
    requests = [
        ShareRequest("later", 1, 0, 0, 1.0, 1.0, (), 2),
        ShareRequest("urgent", 1, 0, 0, 1.0, 1.0, (), 1),
    ]
    fit = fit_shares(requests, [host("h", gpus=1)])
    assert [p.request for p in fit.placements] == ["urgent"]


def test_shortfall_choice_most_instances_or_most_capacity() -> None:
    """One free GPU, a whole-GPU pod and three 30 % pods: most instances keeps the three
    shares (3 pods, 90 %); most GPU capacity keeps the whole GPU (1 pod, 100 %)."""
    requests = [_whole("whole", 1), _share("s1", 300), _share("s2", 300), _share("s3", 300)]
    hosts = [host("h", gpus=1)]
    most = fit_shares(requests, hosts, Shortfall.INSTANCES)
    assert sorted(p.request for p in most.placements) == ["s1", "s2", "s3"]
    capacity = fit_shares(requests, hosts, Shortfall.GPU_CAPACITY)
    assert [p.request for p in capacity.placements] == ["whole"]


def test_share_reasons_name_what_ran_out() -> None:
    """No GPU room, or room without cores, each get their own reason."""
    hosts = [host("h1", gpus=1, cpu_cores=4)]
    no_room = fit_shares([_share("a", 800), _share("b", 800)], hosts)
    assert no_room.not_placed == (
        ("b", "no host has a GPU with 80 % compute and 80 % memory free left"),
    )
    no_cores = fit_shares([_share("c", 100, 8)], hosts)
    assert no_cores.not_placed == (
        ("c", "no host has a GPU with 10 % compute and 10 % memory free and 8 free cores and "
              "1 GiB free RAM left"),
    )  # fmt: skip
    wrong_model = fit_shares([_whole("d", 1, models=("A10",))], hosts)
    assert wrong_model.not_placed == (("d", "no host of model A10 in the inventory"),)


def test_random_share_fits_are_feasible() -> None:
    """On 40 random mixes of shares, whole GPUs and GPU-less pods under both shortfall choices,
    every fit passes an independent check."""
    rng = random.Random(3)
    for n in range(40):
        hosts = [
            host(f"h{i}", rng.choice(["T4", "G2"]), rng.choice([1, 2, 4, 8]),
                 cpu_cores=rng.choice([8, 32, 96]), ram_gib=rng.choice([64, 256]))
            for i in range(rng.randint(1, 6))
        ]  # fmt: skip
        requests = []
        for i in range(rng.randint(1, 25)):
            whole = rng.choice([0, 0, 0, 1, 2])
            compute = 0 if whole else rng.choice([0, 50, 230, 470, 810])
            memory = 0 if whole or not compute else rng.choice([compute, 100, 700])
            requests.append(
                ShareRequest(
                    f"p{i}",
                    whole,
                    compute,
                    memory,
                    rng.choice([1.0, 4.0, 12.0]),
                    rng.choice([4.0, 30.0]),
                    rng.choice([(), ("T4",)]),
                    rng.choice([1, 2]),
                )
            )
        fit = fit_shares(requests, hosts, list(Shortfall)[n % 2])
        assert fit_problems(fit, requests, hosts) == []


def _allocated(fit: ShareFit, requests: list[ShareRequest]) -> int:
    by_name = {r.name: r for r in requests}
    return sum(by_name[p.request].size_milli for p in fit.placements)


def test_core_poor_hosts_take_the_pods_light_on_cores() -> None:
    """Two 2-GPU hosts of 16 cores, more one-GPU pods than GPUs: two pods of 16 cores would each
    strand a GPU without cores, so the four 4-core pods take all four GPUs."""
    requests = [_whole(f"hungry{i}", 1, 16.0) for i in range(2)]
    requests += [_whole(f"light{i}", 1, 4.0) for i in range(4)]
    hosts = [host("a", "P100", 2, cpu_cores=16), host("b", "P100", 2, cpu_cores=16)]
    fit = fit_shares(requests, hosts, Shortfall.GPU_CAPACITY)
    assert _allocated(fit, requests) == 4 * FULL_MILLI
    assert fit_problems(fit, requests, hosts) == []


def test_work_free_to_go_anywhere_leaves_the_model_others_are_tied_to() -> None:
    """An 8-GPU pod that may use any model goes to the G2 node, so the eight one-GPU pods tied
    to V100 all fit on the V100 node listed first."""
    requests = [_whole("any", 8)] + [_whole(f"tied{i}", 1, models=("V100",)) for i in range(8)]
    hosts = [host("v", "V100", 8), host("g", "G2", 8)]
    fit = fit_shares(requests, hosts, Shortfall.GPU_CAPACITY)
    assert {p.request: p.host for p in fit.placements} == {
        "any": "g",
        **{f"tied{i}": "v" for i in range(8)},
    }


def test_when_cores_run_short_most_capacity_keeps_the_pods_richest_in_gpu() -> None:
    """400 seeded pods, a quarter more GPU demand and more cores than the cluster has (core-poor
    8-GPU hosts, core-rich 2-GPU hosts): most GPU capacity keeps the pods that bring the most
    GPU per core and GPU, within 2 points of the proven bound (largest first, repaired, stays
    4.4 points short here)."""
    rng = random.Random(3)
    hosts = [host(f"g{i}", "G2", 8, cpu_cores=96, ram_gib=384) for i in range(10)] + [
        host(f"t{i}", "T4", 2, cpu_cores=104, ram_gib=512) for i in range(6)
    ]
    requests = []
    for k in range(400):
        milli = rng.choice([810, 810, 470, 470, 320, 650, 230, 160, 0])
        cores = rng.choice([2.0, 4.0, 8.0, 8.0, 12.0, 16.0])
        requests.append(_share(f"p{k}", milli, cores, float(rng.choice([8, 16, 32]))))
    fit = fit_shares(requests, hosts, Shortfall.GPU_CAPACITY)
    assert fit_problems(fit, requests, hosts) == []
    by_name = {r.name: r for r in requests}
    allocated = sum(by_name[p.request].size_milli for p in fit.placements) / FULL_MILLI
    capacity = sum(h.gpus for h in hosts)
    assert allocated >= allocation_upper_bound(requests, hosts) - 0.02 * capacity


def test_whole_number_cores_and_ram_are_repaired_like_fractions() -> None:
    """Cores and RAM given as whole numbers (ints) go through the repair, which mixes them
    with fractional free room, without a type error."""
    requests = [ShareRequest(f"p{k}", 0, 600, 600, 8, 16) for k in range(6)]
    fit = fit_shares(
        requests, [host("h", gpus=2, cpu_cores=16, ram_gib=64)], Shortfall.GPU_CAPACITY
    )
    assert fit_problems(fit, requests, [host("h", gpus=2, cpu_cores=16, ram_gib=64)]) == []
    assert len(fit.placements) == 2
