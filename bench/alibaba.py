"""Benchmark: fit Alibaba's GPU-sharing trace (openb, USENIX ATC 2023) to its own cluster.

Reads ``../shared/data/alibaba-openb/`` relative to the repository root (never copied into the
project; skipped with a message when missing): 1,213 nodes with 6,212 GPUs and the default pod
list of 8,152 pods. Each pod asks for ``num_gpu`` whole GPUs on one node, or ``gpu_milli``/1000
of one GPU (memory and compute alike), plus its CPU and memory on that node; ``gpu_spec``
restricts the GPU models. Pods without a GPU are not GPU work and are counted separately.

The trace's models (G2, T4, P100, ...) are not in the catalog, so the bench builds ``GpuModel``s
for them with memory normalised to 1,000 GiB per GPU: a share is a share. The fit is offline
(the planner sees every pod at once) with ``planner.solve.hosts.fit_shares``, a best fit decreasing
straight onto hosts.

Printed: the share of the cluster's GPU capacity allocated, pods placed, wall time (median of
5 runs), and an upper bound no plan can beat (``allocation_upper_bound``: 96.58 % on the
default pods, so the brief's 97 % target cannot be met by any plan). Published online schedulers
on this trace: FGD 95.39 %, BestFit 93.08 %; the demand is 97.98 % of the cluster.

Run from the repository root: ``.venv/bin/python bench/alibaba.py``.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.solve.hosts import ShareRequest, fit_shares

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "alibaba-openb"
NODES = "openb_node_list_gpu_node.csv"
PODS = "openb_pod_list_default.csv"
MIB_PER_GIB = 1024
RUNS = 5

PUBLISHED = {"FGD": 95.39, "BestFit": 93.08, "demand": 97.98}
"""Share of GPU capacity allocated by published online schedulers [%] (trace README)."""


def trace_models(names: set[str]) -> dict[str, GpuModel]:
    """A ``GpuModel`` per trace model: memory normalised to 1,000 GiB so 1 GiB = 1 ‰ of a GPU."""
    return {
        name: GpuModel(
            name=name,
            memory_gib=1000.0,
            tdp_w=0.0,
            fp16_tflops=0.0,
            price_usd=0.0,
            price_is_default=True,
            mig_capable=False,
            vgpu_capable=False,
            gpus_per_board=1,
            mig_memory_slices=0,
            mig_compute_slices=0,
            source="Alibaba openb trace; memory normalised, a share is a share",
        )
        for name in sorted(names)
    }


def read_nodes(path: Path) -> list[Host]:
    """Trace nodes as hosts: ``cpu_milli``/1000 cores, ``memory_mib``/1024 GiB, ``gpu`` GPUs."""
    with path.open(newline="") as handle:
        return [
            Host(
                name=row["sn"],
                cluster="openb",
                gpu_model=row["model"],
                gpus=int(row["gpu"]),
                cpu_cores=int(row["cpu_milli"]) / 1000,
                ram_gib=int(row["memory_mib"]) / MIB_PER_GIB,
                network_gbps=0.0,
                rdma=False,
                mig_enabled=False,
            )
            for row in csv.DictReader(handle)
        ]


def read_pods(path: Path) -> tuple[list[ShareRequest], int]:
    """GPU pods as share requests, and the number of pods that use no GPU."""
    requests: list[ShareRequest] = []
    without_gpu = 0
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            gpus = int(row["num_gpu"])
            milli = int(row["gpu_milli"])
            if gpus == 0 or milli == 0:
                without_gpu += 1
                continue
            whole = gpus if (gpus > 1 or milli >= 1000) else 0
            spec = row.get("gpu_spec") or ""
            requests.append(
                ShareRequest(
                    name=row["name"],
                    gpus=whole,
                    share_milli=0 if whole else milli,
                    cpu_cores=int(row["cpu_milli"]) / 1000,
                    ram_gib=int(row["memory_mib"]) / MIB_PER_GIB,
                    gpu_models=tuple(sorted(m for m in spec.split("|") if m)),
                )
            )
    return requests, without_gpu


def allocation_upper_bound(requests: list[ShareRequest], total_gpus: int) -> float:
    """No plan allocates more GPUs than this [GPUs] (CPU, RAM and hosts ignored: a relaxation).

    A GPU holding a share pod holds only share pods worth at most 1 GPU, so placing every
    whole-GPU pod never costs: with ``W`` whole GPUs placed, the best value is
    ``W + f(total - W)`` where ``f(b)``, the most share value that fits ``b`` GPUs, grows by at
    most 1 per GPU. So the bound is ``whole + f(total - whole)``, and ``f`` is bounded by the LP
    relaxation over every way to fill one GPU with shares (a pattern: counts per share size):
    maximise ``sum(value_p y_p)`` subject to ``sum(y_p) <= GPUs`` and, per size, the pattern
    counts used at most the pods of that size. Shares restricted to models are counted freely.
    """
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    whole = sum(r.gpus for r in requests if r.gpus)
    counts: dict[int, int] = {}
    for r in requests:
        if not r.gpus:
            counts[r.share_milli] = counts.get(r.share_milli, 0) + 1
    sizes = sorted(counts, reverse=True)
    patterns: list[list[int]] = []
    current = [0] * len(sizes)

    def enumerate_patterns(k: int, room: int) -> None:
        if k == len(sizes):
            if any(current):
                patterns.append(list(current))
            return
        for copies in range(min(counts[sizes[k]], room // sizes[k]), -1, -1):
            current[k] = copies
            enumerate_patterns(k + 1, room - copies * sizes[k])
        current[k] = 0

    enumerate_patterns(0, 1000)
    uses = np.array(patterns, dtype=np.float64).T  # sizes x patterns
    value = np.array(sizes, dtype=np.float64) @ uses / 1000
    result = milp(
        -value,
        constraints=[
            LinearConstraint(np.ones((1, len(patterns))), 0, total_gpus - whole),
            LinearConstraint(uses, 0, np.array([counts[s] for s in sizes], dtype=np.float64)),
        ],
        integrality=np.zeros(len(patterns)),
        bounds=Bounds(0, np.inf),
    )
    if result.status != 0 or result.x is None:
        raise RuntimeError(f"the bound's LP did not solve: {result.message}")
    return whole + float(-result.fun)


def main() -> None:
    if not (DATA / NODES).exists() or not (DATA / PODS).exists():
        print(f"Alibaba openb trace not found in {DATA.resolve()}; skipping this benchmark.")
        return
    hosts = read_nodes(DATA / NODES)
    requests, without_gpu = read_pods(DATA / PODS)
    models = trace_models({h.gpu_model for h in hosts})
    unknown = sorted({m for r in requests for m in r.gpu_models} - models.keys())
    total_gpus = sum(h.gpus for h in hosts)
    demand = sum(r.gpus if r.gpus else r.share_milli / 1000 for r in requests)

    times = []
    fit = None
    for _ in range(RUNS):
        started = time.perf_counter()
        fit = fit_shares(requests, hosts)
        times.append(time.perf_counter() - started)
    assert fit is not None
    by_name = {r.name: r for r in requests}
    allocated = sum(len(p.gpu_indices) * p.share_milli / 1000 for p in fit.placements)
    placed_demand = sum(
        by_name[p.request].gpus or by_name[p.request].share_milli / 1000 for p in fit.placements
    )
    assert abs(allocated - placed_demand) < 1e-6

    print(f"Alibaba openb, default pods: {len(hosts)} nodes, {total_gpus} GPUs "
          f"({', '.join(f'{m}' for m in models)})")  # fmt: skip
    if unknown:
        print(f"  gpu_spec names no node has: {', '.join(unknown)}")
    print(f"  GPU pods: {len(requests)}; pods without GPU (not GPU work, not placed): "
          f"{without_gpu}")  # fmt: skip
    print(f"  demand: {demand:.1f} GPUs = {100 * demand / total_gpus:.2f} % of capacity")
    bound = allocation_upper_bound(requests, total_gpus)
    print(f"  upper bound (no plan allocates more): {bound:.1f} GPUs = "
          f"{100 * bound / total_gpus:.2f} % of capacity")  # fmt: skip
    print(f"  placed: {len(fit.placements)} pods, {len(fit.not_placed)} not placed")
    print(f"  allocated: {allocated:.1f} GPUs = {100 * allocated / total_gpus:.2f} % of capacity "
          f"({100 * allocated / bound:.2f} % of the upper bound)")  # fmt: skip
    print(f"  wall time: median {statistics.median(times):.3f} s over {RUNS} runs")
    print("  published online schedulers: "
          + ", ".join(f"{k} {v:.2f} %" for k, v in PUBLISHED.items()))  # fmt: skip
    reasons: dict[str, int] = {}
    for _, reason in fit.not_placed:
        reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1])[:5]:
        print(f"    not placed ×{count}: {reason}")


if __name__ == "__main__":
    main()
