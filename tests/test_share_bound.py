"""The allocation upper bound: never below what a fit allocates, tight on small cases."""

from __future__ import annotations

import random

import pytest

from planner.assumptions import Shortfall
from planner.solve.share_bound import allocation_upper_bound
from planner.solve.shares import FULL_MILLI, ShareRequest, fit_shares
from tests.builders import host


def _share(name: str, milli: int, models: tuple[str, ...] = ()) -> ShareRequest:
    return ShareRequest(name, 0, milli, milli, 1.0, 1.0, models)


def _whole(name: str, gpus: int) -> ShareRequest:
    return ShareRequest(name, gpus, 0, 0, 1.0, 1.0)


def test_shares_that_cannot_pair_leave_room_unused() -> None:
    """Three 60 % shares on two GPUs: no two share a GPU, so at most 1.2 GPUs are allocated."""
    hosts = [host("h", gpus=2)]
    requests = [_share(f"s{i}", 600) for i in range(3)]
    assert allocation_upper_bound(requests, hosts) == pytest.approx(1.2)


def test_whole_gpu_demand_beyond_the_cluster_is_bounded_by_the_cluster() -> None:
    """Three 8-GPU pods on one 8-GPU node: the bound is the node's 8 GPUs, not the demand."""
    requests = [_whole(f"w{i}", 8) for i in range(3)]
    assert allocation_upper_bound(requests, [host("h", gpus=8)]) == pytest.approx(8.0)


def test_multi_gpu_pods_need_a_host_large_enough() -> None:
    """A 4-GPU pod cannot use two 2-GPU nodes; a 20 % share still can."""
    hosts = [host("a", gpus=2), host("b", gpus=2)]
    requests = [_whole("big", 4), _share("s", 200)]
    assert allocation_upper_bound(requests, hosts) == pytest.approx(0.2)


def test_model_limits_count() -> None:
    """Shares tied to T4 cannot use the L40S node."""
    hosts = [host("t", "T4", 1), host("l", "L40S", 4)]
    requests = [_share(f"s{i}", 500, ("T4",)) for i in range(4)]
    assert allocation_upper_bound(requests, hosts) == pytest.approx(1.0)


def test_bound_is_never_below_a_fit() -> None:
    """On 40 random clusters and pod mixes, the bound is at least what either shortfall choice
    of the packer allocates, and at most the cluster's GPUs."""
    rng = random.Random(11)
    for n in range(40):
        hosts = [
            host(f"h{i}", rng.choice(["T4", "G2"]), rng.choice([1, 2, 4, 8]),
                 cpu_cores=rng.choice([8, 32]), ram_gib=rng.choice([32, 256]))
            for i in range(rng.randint(1, 5))
        ]  # fmt: skip
        requests = []
        for i in range(rng.randint(1, 40)):
            whole = rng.choice([0, 0, 0, 1, 2, 4, 8])
            milli = 0 if whole else rng.choice([100, 250, 480, 600, 810])
            requests.append(
                ShareRequest(
                    f"p{i}",
                    whole,
                    milli,
                    milli,
                    rng.choice([1.0, 6.0]),
                    rng.choice([4.0, 40.0]),
                    rng.choice([(), ("T4",)]),
                )
            )
        bound = allocation_upper_bound(requests, hosts)
        by_name = {r.name: r for r in requests}
        fit = fit_shares(requests, hosts, list(Shortfall)[n % 2])
        allocated = sum(by_name[p.request].size_milli for p in fit.placements) / FULL_MILLI
        assert allocated <= bound + 1e-6
        assert bound <= sum(h.gpus for h in hosts) + 1e-6
