"""Benchmark: Alibaba's GPU-sharing trace (openb, USENIX ATC 2023) through the product path.

For each pod list given (default: every ``openb_pod_list_*.csv`` in
``../shared/data/alibaba-openb/`` next to the repository, never copied into it), the bench reads
the node list and the pod list with the CLI's own loaders (``planner.cli.scenario_from_args``:
trace files recognised by header), plans the fractional method with ``plan_method`` exactly as
``python -m planner plan`` does, with ``--shortfall gpu-capacity`` (the bench's figure is GPU
capacity allocated), checks the plan with the feasibility checker and prints one line per list:

    <file>: <allocated> % of GPU capacity allocated, <placed>/<pods> pods placed, <s> s (CPU <c> s)

``<s>`` is the median wall time of ``plan_method`` over 3 runs, followed by its median CPU time
(``time.process_time``, steadier on a loaded machine); ``<pods>`` counts every pod,
CPU-only pods included. Then two baselines written here on the same requests (best fit
decreasing; an FGD-style packer that places pods in arrival order where the cluster's expected
fragmentation grows least, after Weng et al., ATC 2023), and ``allocation_upper_bound``
(``planner.solve.share_bound``), which no plan can beat.

Published online schedulers on the default list at full arrival: FGD 95.39 %, BestFit 93.08 %.

The bench also plans generated variants of every pod list it was given (seeded, written to a
temporary folder): more CPU-only pods, another mix of GPU shares, more multi-GPU pods, GPU-model
constraints on many pods, all four at once, and each list on a random half of the nodes (demand
beyond the cluster), so that its figures do not rest on the four published lists.

Run from the repository root: ``.venv/bin/python bench/alibaba.py [pod lists...] [--seed N]
[--no-variants]``.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.cli import build_parser, native_prints_hidden, scenario_from_args  # noqa: E402
from planner.inputs.inventory import Host  # noqa: E402
from planner.methods.fractional import share_request  # noqa: E402
from planner.methods.registry import Method  # noqa: E402
from planner.scenario import Scenario  # noqa: E402
from planner.solve.feasibility import check_plan  # noqa: E402
from planner.solve.packing import instances_of, plan_method  # noqa: E402
from planner.solve.share_bound import allocation_upper_bound  # noqa: E402
from planner.solve.shares import FULL_MILLI, ShareRequest  # noqa: E402

NODES = "openb_node_list_gpu_node.csv"
RUNS = 3
PUBLISHED_FGD = 95.39
"""Share of GPU capacity the FGD scheduler allocates on the default list at full arrival [%]."""


def data_dir() -> Path | None:
    """``../shared/data/alibaba-openb`` beside the repository (or beside its worktree folder)."""
    for base in (ROOT.parent, ROOT.parent.parent):
        folder = base / "shared" / "data" / "alibaba-openb"
        if (folder / NODES).exists():
            return folder
    return None


def trace_scenario(nodes: Path, pods: Path) -> Scenario:
    """The scenario ``python -m planner plan --inventory nodes --workloads pods`` plans."""
    args = build_parser().parse_args(
        ["plan", "--inventory", str(nodes), "--workloads", str(pods), "--shortfall", "gpu-capacity"]
    )
    scenario, problems = scenario_from_args(args)
    for problem in problems:
        print(f"  input: {problem}")
    return scenario


def requests_of(scenario: Scenario) -> list[ShareRequest]:
    """The pods as the fractional method packs them, CPU-only pods last."""
    models = tuple(dict.fromkeys(h.gpu_model for h in scenario.inventory.hosts if h.gpus))
    requests = []
    for instance in instances_of(scenario.workloads):
        allowed = [m for m in models if not instance.workload.gpu_models
                   or m in instance.workload.gpu_models]  # fmt: skip
        if allowed:
            requests.append(share_request(instance, [scenario.catalog.gpus[m] for m in allowed]))
    requests += [
        ShareRequest(i, 0, 0, 0, w.vcpus, w.ram_gib)
        for w in scenario.cpu_only
        for i in w.instance_ids()
    ]
    return requests


class _Nodes:
    """Free GPU thousandths, cores and RAM per node for the baselines (mutable)."""

    def __init__(self, hosts: Sequence[Host]) -> None:
        width = max(h.gpus for h in hosts)
        self.free = np.zeros((len(hosts), width))
        for i, h in enumerate(hosts):
            self.free[i, : h.gpus] = FULL_MILLI
        self.cores = np.array([h.cpu_cores for h in hosts])
        self.ram = np.array([h.ram_gib for h in hosts])
        self.models = np.array([h.gpu_model for h in hosts])
        self.allocated = 0.0
        self.placed = 0

    def fits(self, r: ShareRequest) -> np.ndarray:
        ok = (self.cores + 1e-9 >= r.cpu_cores) & (self.ram + 1e-9 >= r.ram_gib)
        return ok & np.isin(self.models, list(r.gpu_models)) if r.gpu_models else ok

    def take(self, r: ShareRequest, host: int, gpus: Sequence[int]) -> None:
        if len(gpus):
            self.free[host, list(gpus)] -= r.size_milli / len(gpus)
        self.cores[host] -= r.cpu_cores
        self.ram[host] -= r.ram_gib
        self.allocated += r.size_milli
        self.placed += 1


def best_fit_decreasing(requests: Sequence[ShareRequest], hosts: Sequence[Host]) -> _Nodes:
    """Largest first; each onto the node or GPU it leaves with the least free room."""
    nodes = _Nodes(hosts)
    for r in sorted(requests, key=lambda r: (-r.size_milli, -r.cpu_cores)):
        fits = nodes.fits(r)
        full = (nodes.free == FULL_MILLI).sum(axis=1)
        if r.gpus:
            room = fits & (full >= r.gpus)
            if room.any():
                host = int(np.argmin(np.where(room, full, np.inf)))
                nodes.take(r, host, np.flatnonzero(nodes.free[host] == FULL_MILLI)[: r.gpus])
        elif r.uses_gpu:
            room = fits[:, None] & (nodes.free >= r.size_milli)
            if room.any():
                host, gpu = divmod(int(np.argmin(np.where(room, nodes.free, np.inf))),
                                   nodes.free.shape[1])  # fmt: skip
                nodes.take(r, host, [gpu])
        elif fits.any():
            nodes.take(r, int(np.argmin(np.where(fits, nodes.cores, np.inf))), [])
    return nodes


def fgd_style(requests: Sequence[ShareRequest], hosts: Sequence[Host]) -> _Nodes:
    """Arrival order; each pod where the expected fragmentation grows least (FGD, Weng et al.).

    A node's fragmentation for a pod type is its free GPU capacity that type cannot use (GPUs
    with less free than the type's share; every free GPU when the node lacks the type's cores,
    RAM or whole GPUs), weighted by how common the type is among the 8 most common types.
    """
    nodes = _Nodes(hosts)
    kinds = Counter((r.gpus, r.size_milli, r.cpu_cores, r.ram_gib) for r in requests if r.uses_gpu)
    top = kinds.most_common(8)
    weight = np.array([n for _, n in top], dtype=float) / sum(n for _, n in top)
    whole_t = np.array([k[0] for k, _ in top])
    share_t = np.array([k[1] for k, _ in top], dtype=float)
    cores_t = np.array([k[2] for k, _ in top])
    ram_t = np.array([k[3] for k, _ in top])

    def frag(total, partial, small, full, cores, ram):  # type: ignore[no-untyped-def]
        """Weighted fragmentation from a node's free total, free on partly used GPUs, free on
        GPUs below each type's share (..., T), full GPUs, cores and RAM."""
        usable = (cores[..., None] + 1e-9 >= cores_t) & (ram[..., None] + 1e-9 >= ram_t)
        inner = np.where(whole_t > 0, partial[..., None], small)
        ok = usable & np.where(whole_t > 0, full[..., None] >= whole_t, True)
        return (np.where(ok, inner, total[..., None]) * weight).sum(axis=-1)

    for r in requests:
        fits = nodes.fits(r)
        if r.gpus:
            fits &= (nodes.free == FULL_MILLI).sum(axis=1) >= r.gpus
        if not fits.any():
            continue
        candidates = np.flatnonzero(fits)
        free = nodes.free[candidates]
        cores, ram = nodes.cores[candidates], nodes.ram[candidates]
        total = free.sum(axis=1)
        partial = (free * (free < FULL_MILLI)).sum(axis=1)
        term = free[..., None] * (free[..., None] < share_t)  # (C, G, T)
        small = term.sum(axis=1)
        full = (free == FULL_MILLI).sum(axis=1)
        before = frag(total, partial, small, full, cores, ram)
        if r.gpus or not r.uses_gpu:
            after = frag(total - r.size_milli, partial, small, full - r.gpus,
                         cores - r.cpu_cores, ram - r.ram_gib)  # fmt: skip
            host = int(candidates[int(np.argmin(after - before))])
            nodes.take(r, host, list(np.flatnonzero(nodes.free[host] == FULL_MILLI)[: r.gpus]))
            continue
        left = free - r.size_milli  # (C, G): the GPU after taking the share
        term_after = left[..., None] * (left[..., None] < share_t)
        after = frag(
            (total - r.size_milli)[:, None],
            partial[:, None] - free * (free < FULL_MILLI) + left,
            small[:, None, :] - term + term_after,
            full[:, None] - (free == FULL_MILLI),
            (cores - r.cpu_cores)[:, None],
            (ram - r.ram_gib)[:, None],
        )
        delta = np.where(left >= 0, after - before[:, None], np.inf)
        best, gpu = divmod(int(np.argmin(delta)), free.shape[1])
        if np.isfinite(delta.flat[best * free.shape[1] + gpu]):
            nodes.take(r, int(candidates[best]), [gpu])
    return nodes


def _cpu_only_placed(notes: Sequence[str]) -> tuple[int, int]:
    for note in notes:
        found = re.match(r"Pods without a GPU: (\d+) of (\d+) placed", note)
        if found:
            return int(found.group(1)), int(found.group(2))
    return 0, 0


def _name(nodes: Path, pods: Path) -> str:
    return pods.name if nodes.name == NODES else f"{pods.name} on {nodes.name}"


def measure(nodes: Path, pods: Path) -> None:
    """Print the bench's line for one pod list."""
    scenario = trace_scenario(nodes, pods)
    times, cpu_times = [], []
    plan = None
    for _ in range(RUNS):
        started, cpu_started = time.perf_counter(), time.process_time()
        plan = plan_method(Method.FRACTIONAL, scenario)
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu_started)
    assert plan is not None
    violations = check_plan(plan, scenario)
    capacity = sum(h.gpus for h in scenario.inventory.hosts)
    allocated = sum(p.compute_share for p in plan.placements)
    cpu_placed, cpu_pods = _cpu_only_placed(plan.notes)
    gpu_pods = sum(w.instances for w in scenario.workloads)
    placed = len({p.instance for p in plan.placements}) + cpu_placed
    print(
        f"{_name(nodes, pods)}: {100 * allocated / capacity:.2f} % of GPU capacity allocated, "
        f"{placed}/{gpu_pods + cpu_pods} pods placed, {statistics.median(times):.2f} s "
        f"(CPU {statistics.median(cpu_times):.2f} s)"
    )
    requests = requests_of(scenario)
    bound = allocation_upper_bound(requests, scenario.inventory.hosts)
    bfd = best_fit_decreasing(requests, scenario.inventory.hosts)
    fgd = fgd_style(requests, scenario.inventory.hosts)
    demand = sum(r.size_milli for r in requests) / FULL_MILLI
    print(
        f"  checker: {len(violations)} violations; demand {100 * demand / capacity:.2f} %; "
        f"upper bound {100 * bound / capacity:.2f} %; "
        f"best fit decreasing {100 * bfd.allocated / FULL_MILLI / capacity:.2f} % "
        f"({bfd.placed} pods); FGD-style {100 * fgd.allocated / FULL_MILLI / capacity:.2f} % "
        f"({fgd.placed} pods); published FGD (default list) {PUBLISHED_FGD:.2f} %"
    )


VARIANT_SEED = 20231123
"""Seed of the generated variants: the same variants on every run."""


def _no_gpu(row: dict[str, str], rng: random.Random, models: Sequence[str]) -> None:
    if rng.random() < 0.3:
        row["num_gpu"], row["gpu_milli"], row["gpu_spec"] = "0", "0", ""


def _other_shares(row: dict[str, str], rng: random.Random, models: Sequence[str]) -> None:
    if row["num_gpu"] == "1" and row["gpu_milli"] != "1000":
        row["gpu_milli"] = str(rng.choice((100, 125, 250, 300, 500, 600, 750, 900)))


def _more_multi_gpu(row: dict[str, str], rng: random.Random, models: Sequence[str]) -> None:
    if row["num_gpu"] != "0" and rng.random() < 0.2:
        row["num_gpu"], row["gpu_milli"] = str(rng.choice((2, 4, 8))), "1000"


def _model_limits(row: dict[str, str], rng: random.Random, models: Sequence[str]) -> None:
    if row["num_gpu"] != "0" and rng.random() < 0.4:
        row["gpu_spec"] = "|".join(sorted(rng.sample(list(models), rng.randint(1, 3))))


def _everything(row: dict[str, str], rng: random.Random, models: Sequence[str]) -> None:
    for change in (_no_gpu, _other_shares, _more_multi_gpu, _model_limits):
        change(row, rng, models)


VARIANTS = {
    "cpu-only-30pct": _no_gpu,
    "other-shares": _other_shares,
    "multi-gpu-20pct": _more_multi_gpu,
    "model-limits-40pct": _model_limits,
    "all-four": _everything,
}
"""Generated variants of a pod list: name -> how each pod row is changed."""


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as file:
        reader = csv.DictReader(file)
        return list(reader.fieldnames or ()), list(reader)


def _write(path: Path, header: Sequence[str], rows: Sequence[dict[str, str]]) -> Path:
    # A change may add a column the list lacked (gpu_spec on a list without one).
    added = dict.fromkeys(k for row in rows for k in row if k not in header)
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=[*header, *added], restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


def generated_variants(
    folder: Path, into: Path, bases: Sequence[Path], seed: int
) -> list[tuple[Path, Path]]:
    """(node list, pod list) pairs: each of ``bases`` changed by each of ``VARIANTS``, and each
    base on a seeded half of the nodes (demand beyond the cluster), written under ``into``."""
    node_header, node_rows = _read(folder / NODES)
    models = sorted({row["model"] for row in node_rows if row["model"]})
    half = random.Random(f"{seed}-half-nodes").sample(node_rows, len(node_rows) // 2)
    half_nodes = _write(into / "generated_node_list_half.csv", node_header, half)
    made = []
    for base in bases:
        header, rows = _read(base)
        stem = base.stem.removeprefix("openb_pod_list_")
        for name, change in VARIANTS.items():
            rng = random.Random(f"{seed}-{stem}-{name}")
            changed = [dict(row) for row in rows]
            for row in changed:
                change(row, rng, models)
            path = into / f"generated_pod_list_{stem}_{name}.csv"
            made.append((folder / NODES, _write(path, header, changed)))
        made.append((half_nodes, base))
    return made


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description="The Alibaba trace through the product path.")
    parser.add_argument("pods", nargs="*", type=Path, help="pod lists (default: every one)")
    parser.add_argument(
        "--seed", type=int, default=VARIANT_SEED, help="seed of the generated variants"
    )
    parser.add_argument("--no-variants", action="store_true", help="plan the published lists only")
    args = parser.parse_args(argv)
    folder = data_dir()
    if folder is None:
        print("Alibaba openb trace not found in ../shared/data/alibaba-openb; skipping.")
        return
    published = args.pods or sorted(folder.glob("openb_pod_list_*.csv"))
    for pods in published:
        measure(folder / NODES, pods)
    if args.no_variants:
        return
    with tempfile.TemporaryDirectory() as scratch:
        for nodes, pods in generated_variants(folder, Path(scratch), published, args.seed):
            measure(nodes, pods)


if __name__ == "__main__":
    with native_prints_hidden():
        main(sys.argv[1:])
