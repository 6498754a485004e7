"""Benchmark: a sceptic's plan against the recommended one.

A plan anyone could build by hand in an afternoon: every one-GPU pod of a scenario under
Kubernetes time-slicing on the hosts of one GPU model (the model the method can use with the
most GPUs), packed first fit decreasing with at most ``--replicas`` pods and ``--share-cap``
GPUs of asked compute per GPU, their memory within the GPU's; then, while a class's mean
slowdown is over its limit, its most slowed pods moved to GPUs of their own; the GPUs put on
hosts first fit decreasing by cores, within each host's GPUs, cores and RAM. The plan is
checked by the shared feasibility checker and held to every class's slowdown limit, as the
recommended plan is, and priced with the same cost model. Where it serves every instance for
less, the recommended plan is that much above the best possible, whatever its bound says.

Prints, per scenario: the sceptic's pods placed, GPUs, hosts, checker problems, classes over
their limit and annual cost (busy power included), the recommended plan's cost, and their
ratio (recommended over sceptic: above 1, the recommended plan is beaten).

Run from the repository root: ``.venv/bin/python bench/sceptic.py --inventory NODES
--workloads PODS [--share-cap 1.45] [--replicas 3]`` (the CLI's own loaders: trace lists,
kubectl output and planner CSVs are recognised by their content).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.cli import build_parser, native_prints_hidden, scenario_from_args  # noqa: E402
from planner.inputs.inventory import Host  # noqa: E402
from planner.inputs.workloads import WorkloadClass  # noqa: E402
from planner.measure.costs import plan_cost  # noqa: E402
from planner.methods.k8s_time_slicing import config, time_slicing_slowdown  # noqa: E402
from planner.methods.registry import Method, host_reason, workload_reason  # noqa: E402
from planner.methods.slowdown_model import co_busy_demand, co_busy_share  # noqa: E402
from planner.output.report import plan_scenario  # noqa: E402
from planner.plan import MethodPlan, Placement, SolveStatus  # noqa: E402
from planner.scenario import Scenario  # noqa: E402
from planner.solve.feasibility import check_plan  # noqa: E402
from planner.solve.mixed import over_limit, slowdown_limit  # noqa: E402

METHOD = Method.K8S_TIME_SLICING
Gpu = list[WorkloadClass]
"""The pods of one time-sliced GPU, by class."""


def _slowdowns(gpu: Gpu, scenario: Scenario) -> list[float]:
    """Each pod's runtime over bare metal on the GPU, by the method's own model [-]."""
    constants = scenario.assumptions.performance_constants
    out = []
    for i, pod in enumerate(gpu):
        others = gpu[:i] + gpu[i + 1 :]
        out.append(
            time_slicing_slowdown(
                pod.busy_fraction,
                min(pod.gpus, 1.0),
                [co_busy_share(pod, o) for o in others],
                [co_busy_demand(pod, o) for o in others],
                performance_constants=constants,
            )
        )
    return out


def _packed(
    pods: Sequence[WorkloadClass], memory_gib: float, cap: float, replicas: int
) -> list[Gpu]:
    """First fit decreasing by asked compute: at most ``replicas`` pods, ``cap`` GPUs of
    asked compute and the GPU's memory per GPU."""
    gpus: list[Gpu] = []
    for pod in sorted(pods, key=lambda w: (-w.gpus, -w.vcpus, w.name)):
        for gpu in gpus:
            if (
                len(gpu) < replicas
                and sum(p.gpus for p in gpu) + pod.gpus <= cap + 1e-9
                and sum(p.memory_gib for p in gpu) + pod.memory_gib <= memory_gib + 1e-6
            ):
                gpu.append(pod)
                break
        else:
            gpus.append([pod])
    return gpus


def _held_to_limits(gpus: list[Gpu], scenario: Scenario) -> list[Gpu]:
    """While a class's mean slowdown is over its limit, its most slowed pods each to a GPU of
    their own (alone, a pod runs at bare metal)."""
    for _ in range(100):
        by_class: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
        for g, gpu in enumerate(gpus):
            for i, slowdown in enumerate(_slowdowns(gpu, scenario)):
                by_class[gpu[i].name].append((slowdown, g, i))
        moves: list[tuple[int, int]] = []
        for pods in by_class.values():
            limit = slowdown_limit(gpus[pods[0][1]][pods[0][2]], scenario)
            total = sum(s for s, _, _ in pods)
            for slowdown, g, i in sorted(pods, reverse=True):
                if total <= limit * len(pods) + 1e-9 or len(gpus[g]) == 1:
                    break
                total += 1.0 - slowdown
                moves.append((g, i))
        if not moves:
            return gpus
        for g, i in sorted(moves, reverse=True):
            gpus.append([gpus[g].pop(i)])
        gpus = [gpu for gpu in gpus if gpu]
    return gpus


def _on_hosts(gpus: list[Gpu], hosts: Sequence[Host]) -> list[tuple[Host, list[Gpu]]]:
    """GPUs first fit decreasing by cores onto hosts, within GPUs, cores and RAM per host."""
    used: list[tuple[Host, list[Gpu]]] = []
    for gpu in sorted(gpus, key=lambda g: -sum(p.vcpus for p in g)):
        cores, ram = sum(p.vcpus for p in gpu), sum(p.ram_gib for p in gpu)
        for host, held in used:
            if (
                len(held) < host.gpus
                and sum(p.vcpus for g in held for p in g) + cores <= host.cpu_cores + 1e-9
                and sum(p.ram_gib for g in held for p in g) + ram <= host.ram_gib + 1e-9
            ):
                held.append(gpu)
                break
        else:
            if len(used) == len(hosts):
                raise SystemExit("the sceptic's GPUs need more hosts than the model has")
            used.append((hosts[len(used)], [gpu]))
    return used


def sceptic_plan(scenario: Scenario, cap: float, replicas: int) -> MethodPlan:
    """The sceptic's time-slicing plan of the module docstring."""
    catalog = scenario.catalog
    usable = [h for h in scenario.inventory.hosts if host_reason(METHOD, h, catalog) is None]
    gpus_of: dict[str, int] = defaultdict(int)
    for host in usable:
        gpus_of[host.gpu_model] += host.gpus
    model = catalog.gpu(max(gpus_of, key=lambda m: (gpus_of[m], m)))
    hosts = sorted(
        (h for h in usable if h.gpu_model == model.name), key=lambda h: (-h.cpu_cores, h.name)
    )
    pods = [
        w
        for w in scenario.workloads
        if w.gpus <= 1
        and (not w.gpu_models or model.name in w.gpu_models)
        and workload_reason(METHOD, w, model, hosts[0].platform, catalog, scenario.assumptions)
        is None
        for _ in range(w.instances)
    ]
    gpus = _held_to_limits(_packed(pods, model.memory_gib, cap, replicas), scenario)
    ids = {w.name: iter(w.instance_ids()) for w in scenario.workloads}
    placements: list[Placement] = []
    configs: dict[tuple[str, int], str] = {}
    for host, held in _on_hosts(gpus, hosts):
        for index, gpu in enumerate(held):
            configs[(host.name, index)] = config(replicas)
            placements.extend(
                Placement(
                    next(ids[p.name]),
                    p.name,
                    host.name,
                    index,
                    model.name,
                    "replica",
                    p.memory_gib,
                    0.0,
                )
                for p in gpu
            )
    return MethodPlan(
        METHOD,
        tuple(placements),
        (),
        configs,
        0,
        SolveStatus.HEURISTIC,
        0.0,
        hosts=scenario.inventory.hosts,
        roles=dict.fromkeys(configs, METHOD),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inventory", type=Path, required=True)
    parser.add_argument("--workloads", type=Path, required=True)
    parser.add_argument("--share-cap", type=float, default=1.45, help="GPUs of asked compute")
    parser.add_argument("--replicas", type=int, default=3, help="pods per GPU at most")
    args = parser.parse_args()
    cli = build_parser().parse_args(
        ["plan", "--inventory", str(args.inventory), "--workloads", str(args.workloads)]
    )
    with native_prints_hidden():
        scenario, _ = scenario_from_args(cli)
    started = time.process_time()
    plan = sceptic_plan(scenario, args.share_cap, args.replicas)
    built = time.process_time() - started
    problems = check_plan(plan, scenario)
    over = over_limit(scenario, plan)
    cost = plan_cost(plan, scenario)
    sceptic_usd = cost.total_usd_per_year
    total = sum(w.instances for w in scenario.workloads)
    hosts = {p.host for p in plan.placements}
    print(
        f"sceptic: {len(plan.placements)}/{total} pods on {len(plan.gpu_configs)} GPUs in "
        f"{len(hosts)} hosts, {len(problems)} checker problems, {len(over)} classes over their "
        f"limit, ${sceptic_usd:,.0f}/year ({built:.1f} s CPU)"
    )
    with native_prints_hidden():
        recommended = plan_scenario(scenario).recommended
    if recommended is None:
        print("recommended: none (nothing to plan on)")
        return
    ours = recommended.result.cost
    print(
        f"recommended: {ours.instances_placed}/{total} pods, ${ours.total_usd_per_year:,.0f}/year; "
        f"ratio {ours.total_usd_per_year / sceptic_usd:.3f}"
    )


if __name__ == "__main__":
    main()
