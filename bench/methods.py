"""Speed and quality of the MIG and vGPU packers on ~25,000 instances (stage A only).

Run: ``.venv/bin/python bench/methods.py``. For each packer and vGPU mode it prints the
median wall and CPU time of 5 runs, the GPUs used, the lower bound and the solve status. A
second table packs small random mixes over every H200 vGPU profile (5,875 mixed-size patterns),
where the MILP itself has to run, and prints the median and worst time and how often exact beat
the heuristic.
"""

from __future__ import annotations

import functools
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.assumptions import Assumptions, VgpuMode
from planner.inputs.catalog import Catalog, GpuModel, load_catalog
from planner.inputs.workloads import Instance, WorkloadClass, WorkloadKind
from planner.methods import mig, vgpu
from planner.plan import GpuPacking

Packer = Callable[[Sequence[Instance], GpuModel, Catalog, Assumptions], GpuPacking]

# (kind, gpus, memory_gib, share of instances): a mix of notebooks, inference, fine-tuning and
# training, as a platform team might run it.
SHAPES = (
    (WorkloadKind.NOTEBOOK, 0.1, 8, 0.30),
    (WorkloadKind.NOTEBOOK, 0.1, 15, 0.15),
    (WorkloadKind.INFERENCE, 0.25, 20, 0.20),
    (WorkloadKind.INFERENCE, 0.4, 36, 0.10),
    (WorkloadKind.BATCH, 0.5, 30, 0.10),
    (WorkloadKind.VDI, 0.05, 4, 0.10),
    (WorkloadKind.TRAINING, 1.0, 70, 0.03),
    (WorkloadKind.TRAINING, 4.0, 300, 0.02),
)


def _fleet(instances: int, seed: int = 0) -> list[Instance]:
    """About ``instances`` instances in classes of 5-60, shapes drawn in the SHAPES shares."""
    rng = random.Random(seed)
    weights = [share for *_, share in SHAPES]
    result: list[Instance] = []
    k = 0
    while len(result) < instances:
        kind, gpus, memory, _ = rng.choices(SHAPES, weights)[0]
        workload = WorkloadClass(
            name=f"{kind.value}-{k}",
            kind=kind,
            instances=rng.randint(5, 60),
            gpus=gpus,
            memory_gib=memory,
            busy_fraction=0.3,
            daily_schedule=(1.0,) * 24,
            days_per_week=7,
            vcpus=8,
            ram_gib=32,
            needs_live_migration=False,
            needs_isolation=False,
            latency_tolerant=False,
            priority=rng.randint(1, 3),
        )
        result.extend(Instance(i, workload) for i in workload.instance_ids())
        k += 1
    return result


def _median_seconds(
    run: Callable[[], GpuPacking], repeats: int = 5
) -> tuple[float, float, GpuPacking]:
    """Median wall time and median CPU time of ``repeats`` runs [s], and the last packing.

    CPU time is what the packer itself costs; wall time also counts waiting for a shared CPU.
    """
    wall, cpu, packing = [], [], None
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        packing = run()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    assert packing is not None
    return statistics.median(wall), statistics.median(cpu), packing


def _gpus(packing: GpuPacking) -> int:
    return sum(len(r.loads) for r in packing.requests)


def large_fleet() -> None:
    catalog = load_catalog()
    instances = _fleet(25_000)
    print(f"Stage A on {len(instances):,} instances (median of 5 runs)")
    print(
        f"{'method':<20}{'model':<16}{'packer':<10}{'wall s':>7}{'CPU s':>7}"
        f"{'GPUs':>8}{'bound':>8}  status"
    )
    cases: list[tuple[str, str, Assumptions, Packer, Packer]] = [
        ("MIG", "A100-80GB-PCIe", Assumptions(), mig.pack_heuristic, mig.pack_exact),
        ("MIG", "H200-141GB-SXM", Assumptions(), mig.pack_heuristic, mig.pack_exact),
    ]
    for mode in VgpuMode:
        for name in ("A100-80GB-PCIe", "H200-141GB-SXM"):
            cases.append(
                (
                    f"vGPU {mode.value}",
                    name,
                    Assumptions(vgpu_mode=mode),
                    vgpu.pack_heuristic,
                    vgpu.pack_exact,
                )
            )
    for method, model_name, assumptions, heuristic, exact in cases:
        model = catalog.gpus[model_name]
        for label, packer in (("heuristic", heuristic), ("exact", exact)):
            run = functools.partial(packer, instances, model, catalog, assumptions)
            wall, cpu, packing = _median_seconds(run)
            print(
                f"{method:<20}{model_name:<16}{label:<10}{wall:>7.3f}{cpu:>7.3f}"
                f"{_gpus(packing):>8,}{packing.lower_bound_gpus:>8,}  {packing.status.value}"
            )


def hard_mixed() -> None:
    """Small random mixes over all nine H200 profiles: LP rounding rarely proves these, so the
    MILP runs; the time limit is the default 10 s."""
    catalog = load_catalog()
    model = catalog.gpus["H200-141GB-SXM"]
    sizes = [p.memory_gib for p in catalog.vgpu_profiles[model.name]]
    assumptions = Assumptions(vgpu_mode=VgpuMode.MIXED_SIZE)
    rng = random.Random(1)
    times, better, statuses = [], 0, []
    for case in range(20):
        instances: list[Instance] = []
        for k, size in enumerate(sizes):
            workload = WorkloadClass(
                name=f"c{case}-{k}",
                kind=WorkloadKind.NOTEBOOK,
                instances=rng.randint(0, 12),
                gpus=0.05,
                memory_gib=size,
                busy_fraction=0.3,
                daily_schedule=(1.0,) * 24,
                days_per_week=7,
                vcpus=4,
                ram_gib=16,
                needs_live_migration=False,
                needs_isolation=False,
                latency_tolerant=False,
            )
            instances.extend(Instance(i, workload) for i in workload.instance_ids())
        started = time.perf_counter()
        exact = vgpu.pack_exact(instances, model, catalog, assumptions)
        times.append(time.perf_counter() - started)
        heuristic = vgpu.pack_heuristic(instances, model, catalog, assumptions)
        better += _gpus(exact) < _gpus(heuristic)
        statuses.append(exact.status.value)
    print()
    print("vGPU mixed-size exact on H200, all 9 profiles, 20 random mixes of 0-12 per profile")
    print(
        f"median {statistics.median(times):.3f} s, worst {max(times):.3f} s; "
        f"exact beat best-fit decreasing in {better}/20; statuses "
        + ", ".join(f"{s}: {statuses.count(s)}" for s in sorted(set(statuses)))
    )


if __name__ == "__main__":
    large_fleet()
    hard_mixed()
