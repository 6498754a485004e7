"""The share packer and the allocation bound against brute force on tiny clusters.

Every fit of the packer passes an independent check and allocates no more than the bound; the
bound is at least the best allocation brute force finds; on a seeded sample of tiny clusters
the packer finds it (it is a heuristic: a known miss is kept as an expected failure).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assumptions import Shortfall
from planner.inputs.inventory import Host
from planner.solve.share_bound import allocation_upper_bound
from planner.solve.shares import FULL_MILLI, ShareRequest, fit_shares
from tests.builders import host
from tests.test_shares import fit_problems

MODELS = ("T4", "G2")


@st.composite
def hosts_strategy(draw: st.DrawFn, most: int = 2) -> list[Host]:
    count = draw(st.integers(1, most))
    return [
        host(
            f"h{i}",
            draw(st.sampled_from(MODELS)),
            draw(st.sampled_from([1, 2, 4])),
            cpu_cores=draw(st.sampled_from([4.0, 8.0, 16.0])),
            ram_gib=draw(st.sampled_from([16.0, 64.0])),
        )
        for i in range(count)
    ]


@st.composite
def request_strategy(draw: st.DrawFn, name: str) -> ShareRequest:
    """A pod: whole GPUs, a share (its memory share may differ from its compute share) or no
    GPU."""
    gpus = draw(st.sampled_from([0, 0, 0, 1, 2, 4]))
    uses_gpu = gpus > 0 or draw(st.integers(0, 5)) > 0
    compute = 0 if gpus or not uses_gpu else draw(st.sampled_from([250, 400, 500, 600, 750]))
    memory = draw(st.sampled_from([compute, 300, 700])) if compute else 0
    return ShareRequest(
        name,
        gpus,
        compute,
        memory,
        draw(st.sampled_from([1.0, 2.0, 4.0, 8.0])),
        draw(st.sampled_from([4.0, 16.0, 32.0])),
        draw(st.sampled_from([(), ("T4",), ("G2",), ("T4", "G2")])),
    )


def requests_strategy(
    most: int,
) -> st.SearchStrategy[list[ShareRequest]]:
    return st.integers(1, most).flatmap(
        lambda n: st.tuples(*(request_strategy(f"p{i}") for i in range(n))).map(list)
    )


def _compute(r: ShareRequest) -> int:
    """GPU capacity a placed request allocates, as the bound and the bench count it [milli]."""
    return r.gpus * FULL_MILLI or r.compute_milli


def tiny_cases(count: int, seed: int = 5) -> Iterator[tuple[list[Host], list[ShareRequest]]]:
    """Seeded tiny clusters: one or two hosts of up to 4 GPUs and up to five pods whose shares
    take as much memory as compute."""
    rng = random.Random(seed)
    for _ in range(count):
        hosts = [
            host(f"h{i}", rng.choice(MODELS), rng.choice([1, 2, 4]),
                 cpu_cores=rng.choice([4.0, 8.0, 16.0]), ram_gib=rng.choice([16.0, 64.0]))
            for i in range(rng.randint(1, 2))
        ]  # fmt: skip
        requests = []
        for i in range(rng.randint(1, 5)):
            gpus = rng.choice([0, 0, 0, 1, 2, 4])
            milli = 0 if gpus or rng.random() < 0.15 else rng.choice([250, 400, 500, 600, 750])
            requests.append(
                ShareRequest(
                    f"p{i}", gpus, milli, milli, rng.choice([1.0, 2.0, 4.0, 8.0]),
                    rng.choice([4.0, 16.0, 32.0]),
                    rng.choice([(), ("T4",), ("G2",), ("T4", "G2")]),
                )
            )  # fmt: skip
        yield hosts, requests


def _spots(r: ShareRequest, hosts: Sequence[Host]) -> list[tuple[int, int] | None]:
    """Where a request may go: nowhere, a host (whole GPUs or no GPU), or a GPU of a host."""
    spots: list[tuple[int, int] | None] = [None]
    for h, where in enumerate(hosts):
        if r.gpu_models and where.gpu_model not in r.gpu_models:
            continue
        if r.gpus or not r.uses_gpu:
            spots.append((h, -1))
        else:
            spots.extend((h, g) for g in range(where.gpus))
    return spots


def _fits(
    requests: Sequence[ShareRequest],
    hosts: Sequence[Host],
    chosen: Sequence[tuple[int, int] | None],
) -> bool:
    for h, where in enumerate(hosts):
        mine = [(r, s) for r, s in zip(requests, chosen, strict=True) if s and s[0] == h]
        if sum(r.cpu_cores for r, _ in mine) > where.cpu_cores + 1e-9:
            return False
        if sum(r.ram_gib for r, _ in mine) > where.ram_gib + 1e-9:
            return False
        shared = {s[1] for r, s in mine if s[1] >= 0}
        if sum(r.gpus for r, _ in mine) > where.gpus - len(shared):
            return False
        for g in shared:
            on = [r for r, s in mine if s[1] == g]
            if sum(r.compute_milli for r in on) > FULL_MILLI:
                return False
            if sum(r.memory_milli for r in on) > FULL_MILLI:
                return False
    return True


def best_allocation(requests: Sequence[ShareRequest], hosts: Sequence[Host]) -> float:
    """The most GPU capacity any fit allocates, by trying every placement [GPUs]."""
    best = 0
    for chosen in itertools.product(*(_spots(r, hosts) for r in requests)):
        allocated = sum(_compute(r) for r, s in zip(requests, chosen, strict=True) if s)
        if allocated > best and _fits(requests, hosts, chosen):
            best = allocated
    return best / FULL_MILLI


def allocated(
    requests: Sequence[ShareRequest], hosts: Sequence[Host], shortfall: Shortfall
) -> float:
    by_name = {r.name: r for r in requests}
    fit = fit_shares(requests, hosts, shortfall)
    assert fit_problems(fit, list(requests), list(hosts)) == []
    return sum(_compute(by_name[p.request]) for p in fit.placements) / FULL_MILLI


@settings(max_examples=150, deadline=None)
@given(hosts_strategy(), requests_strategy(5))
def test_the_bound_is_at_least_the_brute_force_best(
    hosts: list[Host], requests: list[ShareRequest]
) -> None:
    """On one or two hosts and up to five pods (shares with their own memory share, whole GPUs,
    pods without a GPU, model lists), no placement allocates more than the bound."""
    best = best_allocation(requests, hosts)
    assert allocation_upper_bound(requests, hosts) >= best - 1e-6


def test_tiny_fits_reach_the_brute_force_best() -> None:
    """On 400 seeded tiny clusters (one or two hosts, up to five pods whose shares take as much
    memory as compute, as in Alibaba's trace), the packer allocates the most that any placement
    does."""
    for hosts, requests in tiny_cases(400):
        best = best_allocation(requests, hosts)
        assert allocated(requests, hosts, Shortfall.GPU_CAPACITY) == best, (hosts, requests)


@pytest.mark.xfail(strict=True, reason="the repair moves requests one host at a time, no swaps")
def test_a_swap_of_two_whole_gpu_pods_is_out_of_reach() -> None:
    """A known miss: the 8-core pod goes to the 2-GPU host (its RAM stays in proportion there),
    the 1-core pod to the 1-GPU host; only swapping them makes room for the share's core."""
    hosts = [host("h0", "T4", 1, cpu_cores=8, ram_gib=16), host("h1", "T4", 2, cpu_cores=8,
             ram_gib=16)]  # fmt: skip
    requests = [
        ShareRequest("share", 0, 250, 250, 1.0, 4.0),
        ShareRequest("light", 1, 0, 0, 1.0, 4.0),
        ShareRequest("heavy", 1, 0, 0, 8.0, 4.0),
    ]
    assert allocated(requests, hosts, Shortfall.GPU_CAPACITY) == 2.25


@settings(max_examples=60, deadline=None)
@given(hosts_strategy(most=6), requests_strategy(30))
def test_fits_pass_the_check_and_stay_under_the_bound(
    hosts: list[Host], requests: list[ShareRequest]
) -> None:
    """On up to six hosts and 30 pods, fits under either shortfall choice pass an independent
    check and allocate no more than the bound."""
    bound = allocation_upper_bound(requests, hosts)
    for shortfall in Shortfall:
        assert allocated(requests, hosts, shortfall) <= bound + 1e-6
