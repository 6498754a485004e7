"""Expected slowdown of each workload class under each sharing method, against bare metal.

Slowdown ``s`` is runtime over the runtime on a dedicated bare-metal share of a GPU equal to what
the workload asked for (``g = min(gpus, 1)``); getting more than asked is not counted as a
speed-up. For one instance ``w`` on a GPU it shares with co-residents ``j``:

- passthrough: ``s = 1`` (VMware: passthrough matches bare metal for HPC/ML).
- vGPU (time-sliced C-series): ``s = o_vgpu × max(1, g × share) × (1 + λ_kind × p)``, where
  ``o_vgpu`` is the vGPU overhead with no contention, ``p = 1 − Π_j (1 − d_j)`` the chance that
  some co-resident is busy while ``w`` runs, ``d_j`` co-resident ``j``'s busy share while ``w`` is
  active, ``λ_kind`` the extra cost of time slicing under load, and ``1 / share`` the part of
  the GPU's time ``w`` gets: best effort ``share = 1 + Σ_j d_j`` (idle slots go to busy vGPUs),
  equal share ``n`` (resident vGPUs), fixed share the profile's max vGPUs per GPU.
- MIG: ``s = max(1, g / instance compute share)``; hardware isolation means no interference,
  only the instance's own slices.
- remote pool: ``s = o_net × max(1, g × (1 + κ × Σ_j d_j))`` with ``o_net = 1 + ν_kind ×
  (latency / 20 µs) × (1 if RDMA else τ)``. Compute is shared, not time-sliced per client, so
  only the part ``κ`` of a co-tenant's busy time delays ``w``; ``κ`` is calibrated so that three
  always-busy whole-GPU training jobs on one GPU over 20 µs RDMA each run 17 % slower, i.e.
  3 / 1.17 = 2.56× aggregate throughput (VMware's seed slide: 2.5–3× throughput, each job
  ~17 % slower). A pooled GPU delivers at most ``T = 3 / 1.17`` bare-metal GPUs of work at once,
  so ``s ≥ (g + Σ_j g_j d_j) / T``: more busy tenants share that throughput, never add to it.
  ``o_net`` uses TCP's factor when either the assumed network or the GPU server lacks RDMA.

Every constant, its unit, source, range and whether it is a guess is in ``CONSTANTS``; the user
overrides any of them by name in ``Assumptions.performance_constants`` and ``constant`` returns the
value in use. Left at its default, ``κ`` follows the training network overhead in use so that the
seed shape still holds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

import pandas as pd

from planner.assumptions import Assumptions, Network, VgpuMode, VgpuScheduler
from planner.inputs.workloads import WorkloadClass, WorkloadKind
from planner.measure.metrics import placements_by_gpu
from planner.plan import Method, MethodPlan, Placement
from planner.scenario import Scenario

__all__ = [
    "CONSTANTS",
    "ModelConstant",
    "WorkloadSlowdown",
    "check_performance_constants",
    "co_busy_share",
    "constant",
    "constants_frame",
    "mig_slowdown",
    "remote_pool_slowdown",
    "slowdowns",
    "vgpu_slowdown",
]


@dataclass(frozen=True)
class ModelConstant:
    """One constant of the slowdown model, with where it comes from and the values it may take."""

    name: str
    value: float
    """The model's default, in ``unit``."""
    unit: str
    source: str
    meaning: str
    is_guess: bool = False
    """No public measurement gives this figure: it is the team's estimate, to be replaced."""
    minimum: float = 0.0
    """Smallest value the model accepts, inclusive, in ``unit``."""
    maximum: float = math.inf
    """Largest value the model accepts, inclusive, in ``unit``."""


@dataclass(frozen=True)
class WorkloadSlowdown:
    """Expected slowdown of one workload class under one method, against bare metal."""

    workload: str
    method: Method
    slowdown: float
    """Mean over the class's placed instances of runtime / bare-metal runtime [-]; 1.0 = none."""
    note: str
    """What drives the figure, in plain words."""
    worst_slowdown: float = 1.0
    """Largest slowdown of any placed instance of the class [-]."""


_COLFAX = "Colfax Research 2024, A30 split four ways under vGPU time slicing"
_DEFAULT = "planner guess (no public figure; edit to match your measurements)"
_SEED = "VMware seed slide (2019): one GPU shared by several jobs, 2.5–3× throughput, ~17 % slower"

VGPU_OVERHEAD = 1.0 / 0.972
"""Uncontended vGPU runtime / bare metal: VMware MLPerf v1.1 inference ran at 94.4–100 % of bare
metal; the midpoint 97.2 % is used for every kind, as no other public figure exists."""

VGPU_LOAD_PENALTY: Mapping[WorkloadKind, float] = MappingProxyType(
    {
        WorkloadKind.TRAINING: 0.05,
        WorkloadKind.BATCH: 0.05,
        WorkloadKind.INFERENCE: 0.20,
        WorkloadKind.VDI: 0.20,
        WorkloadKind.NOTEBOOK: 2.0,
    }
)
"""Extra runtime while a co-resident vGPU is busy [-]: large matrix work ~5 %, memory-bound work
~20 % (memory bandwidth), small interactive kernels several (here 3) times slower (Colfax)."""

_VGPU_LOAD_SOURCES: Mapping[WorkloadKind, tuple[str, bool]] = MappingProxyType(
    {
        WorkloadKind.TRAINING: (f"{_COLFAX}: ~5 % on large matrix work", False),
        WorkloadKind.BATCH: (f"{_COLFAX}: ~5 % on large matrix work", False),
        WorkloadKind.INFERENCE: (f"{_COLFAX}: ~20 % of memory bandwidth (memory-bound)", False),
        WorkloadKind.VDI: (f"planner guess: VDI taken as memory-bound, ~20 % ({_COLFAX})", True),
        WorkloadKind.NOTEBOOK: (
            f"planner guess: small kernels 'several times' slower, 3× chosen ({_COLFAX})",
            True,
        ),
    }
)
"""Source of each kind's vGPU load penalty, and whether the figure is the team's guess."""

NETWORK_OVERHEAD: Mapping[WorkloadKind, float] = MappingProxyType(
    {
        WorkloadKind.TRAINING: 0.05,
        WorkloadKind.BATCH: 0.05,
        WorkloadKind.INFERENCE: 0.15,
        WorkloadKind.NOTEBOOK: 0.10,
        WorkloadKind.VDI: 0.50,
    }
)
"""Remote-pool runtime added per 20 µs of RDMA latency [-], by how often the kind talks to the
GPU: large batched kernels little, request-sized inference and VDI frames much (defaults)."""

REFERENCE_LATENCY_US = 20.0
"""Latency at which ``NETWORK_OVERHEAD`` holds [µs] (VMware recommends at most 50 µs)."""

NO_RDMA_FACTOR = 2.0
"""Multiplier on the network overhead over TCP instead of RDMA/PVRDMA [-] (a default)."""

SEED_JOBS = 3
"""Jobs sharing one GPU on the seed slide ("nearly 3×" throughput) [jobs]."""

SEED_SLOWDOWN = 1.17
"""Each seed job's runtime with sharing / alone [-] ("only 17 % slower")."""


def _seed_interference(training_network_overhead: float) -> float:
    """κ such that ``SEED_JOBS`` always-busy training jobs over RDMA at the reference latency run
    ``SEED_SLOWDOWN`` slower, given the training network overhead ``ν`` [-].

    ``o_net × (1 + κ × (n − 1)) = s`` with ``o_net = 1 + ν`` gives
    ``κ = (s / o_net − 1) / (n − 1)``; a network overhead that alone exceeds the seed slowdown
    leaves no room for contention, so ``κ`` stops at 0.
    """
    network = 1.0 + training_network_overhead
    return max(0.0, (SEED_SLOWDOWN / network - 1.0) / (SEED_JOBS - 1))


REMOTE_INTERFERENCE = _seed_interference(NETWORK_OVERHEAD[WorkloadKind.TRAINING])
"""κ: share of a remote-pool co-tenant's busy time that delays another tenant [-]."""

POOL_THROUGHPUT = SEED_JOBS / SEED_SLOWDOWN
"""Most work one pooled GPU delivers at once, in bare-metal GPUs [GPUs]: the seed slide's three
jobs at 1.17× each give 2.56×; more busy tenants share that, they do not add to it."""


_NO_OVERRIDES: Mapping[str, float] = MappingProxyType({})


def _load_penalty_name(kind: WorkloadKind) -> str:
    return f"vgpu_load_penalty_{kind.value}"


def _network_overhead_name(kind: WorkloadKind) -> str:
    return f"network_overhead_{kind.value}"


CONSTANTS: Mapping[str, ModelConstant] = MappingProxyType(
    {
        c.name: c
        for c in (
            ModelConstant(
                "vgpu_overhead",
                VGPU_OVERHEAD,
                "runtime ratio",
                "VMware MLPerf Inference v1.1 on vGPU: 94.4–100 % of bare metal (midpoint)",
                "vGPU runtime over bare metal with no contention (1 = none; never below 1)",
                minimum=1.0,
            ),
            *(
                ModelConstant(
                    _load_penalty_name(kind),
                    penalty,
                    "fraction of runtime",
                    _VGPU_LOAD_SOURCES[kind][0],
                    f"extra {kind.value} runtime while a co-resident vGPU is busy",
                    is_guess=_VGPU_LOAD_SOURCES[kind][1],
                )
                for kind, penalty in VGPU_LOAD_PENALTY.items()
            ),
            *(
                ModelConstant(
                    _network_overhead_name(kind),
                    overhead,
                    "fraction of runtime per reference latency",
                    _DEFAULT,
                    f"remote-pool runtime added to {kind.value} work per reference latency of RDMA",
                    is_guess=True,
                )
                for kind, overhead in NETWORK_OVERHEAD.items()
            ),
            ModelConstant(
                "reference_latency",
                REFERENCE_LATENCY_US,
                "µs",
                "VMware Bitfusion guidance: ≤ 50 µs, RDMA/PVRDMA recommended",
                "latency at which the network overheads hold (at least 1 µs, an RDMA round trip)",
                minimum=1.0,
            ),
            ModelConstant(
                "no_rdma_factor",
                NO_RDMA_FACTOR,
                "multiplier",
                _DEFAULT,
                "network overhead over TCP relative to RDMA (TCP is never faster: at least 1)",
                is_guess=True,
                minimum=1.0,
            ),
            ModelConstant(
                "remote_interference",
                REMOTE_INTERFERENCE,
                "fraction of co-tenant busy time",
                _SEED + "; calibrated for three always-busy training jobs",
                "κ: how much a busy co-tenant on a pooled GPU delays another (0-1); unless set, "
                "recalibrated to the seed slide from the training network overhead in use",
                maximum=1.0,
            ),
            ModelConstant(
                "pool_throughput",
                POOL_THROUGHPUT,
                "bare-metal GPUs per pooled GPU",
                _SEED + "; 3 jobs / 1.17",
                "ceiling on the work one pooled GPU delivers at once: when its tenants' busy "
                "demand exceeds it, each tenant slows in proportion (at least 1)",
                minimum=1.0,
            ),
        )
    }
)
"""Every constant of the model by name, for the dashboard and the workbook to show."""


def check_performance_constants(overrides: Mapping[str, float]) -> None:
    """Raise ``ValueError`` unless every override names a constant of ``CONSTANTS`` and holds a
    finite number within that constant's range (``minimum`` to ``maximum``, in its unit)."""
    for name, value in overrides.items():
        _checked(name, value)


def _checked(name: str, value: float) -> float:
    """``value`` as a float when it is a valid override of constant ``name``."""
    known = CONSTANTS.get(name)
    if known is None:
        raise _unknown(name)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"performance constant {name!r} must be a number [{known.unit}], got {value!r}"
        ) from None
    if not math.isfinite(number) or not known.minimum <= number <= known.maximum:
        upper = "" if math.isinf(known.maximum) else f" and at most {known.maximum:g}"
        raise ValueError(
            f"performance constant {name!r} must be at least {known.minimum:g}{upper} "
            f"[{known.unit}], got {value!r}"
        )
    return number


def _unknown(name: str) -> ValueError:
    return ValueError(
        f"unknown performance constant {name!r}; known constants: {', '.join(CONSTANTS)}"
    )


def _in_use(name: str, overrides: Mapping[str, float]) -> float:
    """Value of constant ``name``: the override when given, else the model's default.

    ``remote_interference`` left to its default is recalibrated to the seed slide from the
    training network overhead in use, so that changing that guess keeps the observed shape.
    """
    if name in overrides:
        return _checked(name, overrides[name])
    if name == "remote_interference":
        training = _network_overhead_name(WorkloadKind.TRAINING)
        return _seed_interference(_in_use(training, overrides))
    return CONSTANTS[name].value


def constant(name: str, assumptions: Assumptions | None = None) -> float:
    """The value of model constant ``name`` in use under ``assumptions`` [its unit].

    Overrides in ``assumptions.performance_constants`` win; missing names use the default
    (``CONSTANTS[name].value``). Raises ``ValueError`` naming the known constants for an unknown
    name, and the rule for an override out of range.
    """
    if name not in CONSTANTS:
        raise _unknown(name)
    overrides = {} if assumptions is None else assumptions.performance_constants
    return _in_use(name, overrides)


def constants_frame(assumptions: Assumptions | None = None) -> pd.DataFrame:
    """``CONSTANTS`` as a table with the values in use under ``assumptions``.

    Columns: constant, value (in use), default (the value without its own override: for
    ``remote_interference`` the seed calibration under the training network overhead in use),
    is_overridden, is_guess, unit, meaning, source. Raises ``ValueError`` when an override is
    unknown or out of range.
    """
    overrides = {} if assumptions is None else assumptions.performance_constants
    check_performance_constants(overrides)
    rows = [
        (
            c.name,
            _in_use(c.name, overrides),
            _in_use(c.name, {k: v for k, v in overrides.items() if k != c.name}),
            c.name in overrides,
            c.is_guess,
            c.unit,
            c.meaning,
            c.source,
        )
        for c in CONSTANTS.values()
    ]
    columns = [
        "constant",
        "value",
        "default",
        "is_overridden",
        "is_guess",
        "unit",
        "meaning",
        "source",
    ]
    return pd.DataFrame(rows, columns=columns)


def co_busy_share(workload: WorkloadClass, other: WorkloadClass) -> float:
    """Share of ``workload``'s active time during which an ``other`` instance is busy [0-1].

    ``busy_other × Σ_h a_w(h) a_o(h) / Σ_h a_w(h) × min(1, days_other / days_w)``, with ``a(h)``
    the hourly active shares: a night-time batch job barely meets an office-hours notebook.
    """
    own_hours = sum(workload.daily_schedule)
    if own_hours <= 0:
        return 0.0
    overlap = sum(a * b for a, b in zip(workload.daily_schedule, other.daily_schedule, strict=True))
    days = min(1.0, other.days_per_week / workload.days_per_week)
    return min(1.0, other.busy_fraction * overlap / own_hours * days)


def _any_busy(shares: Sequence[float]) -> float:
    """Chance that at least one of independent co-residents is busy [0-1]."""
    return 1.0 - math.prod(1.0 - d for d in shares)


def vgpu_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    *,
    asked_compute_share: float = 1.0,
    scheduler: VgpuScheduler = VgpuScheduler.BEST_EFFORT,
    fixed_slots: float = 1.0,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal of a time-sliced vGPU [-] (module docstring, vGPU).

    Parameters: ``kind`` the workload kind; ``co_busy`` each co-resident's busy share while
    this instance runs [0-1]; ``asked_compute_share`` share of a GPU the workload asked for
    [0-1]; ``scheduler`` NVIDIA's time-slice scheduler; ``fixed_slots`` the vGPUs of this profile
    one GPU can hold (fixed share gives ``1 / fixed_slots`` of the time);
    ``performance_constants`` overrides of ``CONSTANTS`` by name (``ValueError`` if invalid).
    """
    check_performance_constants(performance_constants)
    return _vgpu_slowdown(
        kind, co_busy, asked_compute_share, scheduler, fixed_slots, performance_constants
    )


def _vgpu_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    asked_compute_share: float,
    scheduler: VgpuScheduler,
    fixed_slots: float,
    overrides: Mapping[str, float],
) -> float:
    if scheduler is VgpuScheduler.BEST_EFFORT:
        share = 1.0 + sum(co_busy)
    elif scheduler is VgpuScheduler.EQUAL_SHARE:
        share = 1.0 + len(co_busy)
    else:
        share = max(1.0, fixed_slots)
    contention = max(1.0, asked_compute_share * share)
    overhead = _in_use("vgpu_overhead", overrides)
    penalty = _in_use(_load_penalty_name(kind), overrides)
    return overhead * contention * (1.0 + penalty * _any_busy(co_busy))


def mig_slowdown(asked_compute_share: float, instance_compute_share: float) -> float:
    """Runtime / bare metal on a MIG instance [-]: ``max(1, asked / given)`` compute share.

    Parameters: ``asked_compute_share`` share of a GPU the workload asked for [0-1];
    ``instance_compute_share`` compute slices of its instance over the GPU's [0-1]. More than
    asked is not counted as a speed-up.
    """
    if instance_compute_share <= 0:
        return 1.0
    return max(1.0, asked_compute_share / instance_compute_share)


def remote_pool_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    network: Network,
    *,
    asked_compute_share: float = 1.0,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal through a remote GPU pool [-] (module docstring, remote pool).

    Parameters: ``kind`` the workload kind; ``co_busy`` each co-tenant's busy share while this
    instance runs [0-1]; ``network`` latency [µs] and RDMA between client and GPU server;
    ``asked_compute_share`` share of a GPU the workload asked for [0-1];
    ``performance_constants`` overrides of ``CONSTANTS`` by name (``ValueError`` if invalid).
    """
    check_performance_constants(performance_constants)
    return _remote_pool_slowdown(kind, co_busy, network, asked_compute_share, performance_constants)


def _remote_pool_slowdown(
    kind: WorkloadKind,
    co_busy: Sequence[float],
    network: Network,
    asked_compute_share: float,
    overrides: Mapping[str, float],
    co_demand: Sequence[float] | None = None,
) -> float:
    transport = 1.0 if network.rdma else _in_use("no_rdma_factor", overrides)
    latency = network.latency_us / _in_use("reference_latency", overrides)
    overhead = 1.0 + _in_use(_network_overhead_name(kind), overrides) * latency * transport
    interference = _in_use("remote_interference", overrides)
    contended = overhead * max(1.0, asked_compute_share * (1.0 + interference * sum(co_busy)))
    # The GPU delivers at most ``pool_throughput`` bare-metal GPUs of work at once: beyond that,
    # every tenant slows in proportion to the busy demand on it (co_demand: GPUs each co-tenant
    # keeps busy while this one runs; whole-GPU jobs when not given).
    demand = asked_compute_share + sum(co_busy if co_demand is None else co_demand)
    return max(contended, demand / _in_use("pool_throughput", overrides))


def _fixed_share_slots(placement: Placement, scenario: Scenario) -> float:
    """Time slots of the fixed-share scheduler: the profile's max vGPUs per GPU (NVIDIA's table,
    mixed-size maxima in mixed-size mode), else GPU memory over the profile's memory."""
    for profile in scenario.catalog.vgpu_profiles.get(placement.gpu_model, ()):
        if profile.name == placement.profile:
            mixed = scenario.assumptions.vgpu_mode is VgpuMode.MIXED_SIZE
            return float(profile.max_mixed if mixed else profile.max_equal)
    gpu_memory = scenario.catalog.gpus[placement.gpu_model].memory_gib
    if placement.memory_gib <= 0:
        return 1.0
    return float(math.floor(gpu_memory / placement.memory_gib + 1e-9))


def _instance_slowdown(
    placement: Placement,
    workload: WorkloadClass,
    residents: Sequence[Placement],
    method: Method,
    scenario: Scenario,
    by_name: Mapping[str, WorkloadClass],
    hosts_without_rdma: frozenset[str],
) -> float:
    """Slowdown of one instance on one of its GPUs, given everything else on that GPU."""
    if method is Method.PASSTHROUGH:
        return 1.0
    co_busy = [
        co_busy_share(workload, by_name[r.workload])
        for r in residents
        if r.instance != placement.instance
    ]
    # A fraction of a GPU asks for that share of its compute; a multi-GPU instance all of each.
    asked = min(workload.gpus, 1.0)
    if method is Method.MIG:
        return mig_slowdown(asked, placement.compute_share)
    if method is Method.VGPU:
        return _vgpu_slowdown(
            workload.kind,
            co_busy,
            asked,
            scenario.assumptions.vgpu_scheduler,
            _fixed_share_slots(placement, scenario),
            scenario.assumptions.performance_constants,
        )
    co_demand = [
        min(by_name[r.workload].gpus, 1.0) * busy
        for r, busy in zip(
            (r for r in residents if r.instance != placement.instance), co_busy, strict=True
        )
    ]
    network = scenario.assumptions.network
    if placement.host in hosts_without_rdma:
        # The GPU server's own NIC decides too: RDMA end to end needs it on both sides.
        network = replace(network, rdma=False)
    return _remote_pool_slowdown(
        workload.kind,
        co_busy,
        network,
        asked,
        scenario.assumptions.performance_constants,
        co_demand,
    )


_NOTES: Mapping[Method, str] = MappingProxyType(
    {
        Method.PASSTHROUGH: "whole GPUs, bare-metal speed",
        Method.VGPU: "time-sliced with co-resident vGPUs",
        Method.MIG: "hardware-isolated slices; slower only with less compute than asked",
        Method.REMOTE_POOL: "network overhead plus contention with co-tenants",
    }
)


def slowdowns(plan: MethodPlan, scenario: Scenario) -> tuple[WorkloadSlowdown, ...]:
    """Expected slowdown of every workload class with placed instances, in scenario order.

    An instance spanning several GPUs runs at the pace of its slowest GPU. The model's constants
    are those in use under the scenario's assumptions (``constant``); an unknown or out-of-range
    override raises ``ValueError``.
    """
    check_performance_constants(scenario.assumptions.performance_constants)
    by_name = {w.name: w for w in scenario.workloads}
    hosts = plan.hosts or scenario.inventory.hosts
    hosts_without_rdma = frozenset(h.name for h in hosts if not h.rdma)
    per_instance: dict[str, float] = {}
    workload_of: dict[str, str] = {}
    for residents in placements_by_gpu(plan).values():
        for placement in residents:
            workload = by_name[placement.workload]
            value = _instance_slowdown(
                placement, workload, residents, plan.method, scenario, by_name, hosts_without_rdma
            )
            per_instance[placement.instance] = max(value, per_instance.get(placement.instance, 0))
            workload_of[placement.instance] = placement.workload
    results = []
    for workload in scenario.workloads:
        values = [v for i, v in per_instance.items() if workload_of[i] == workload.name]
        if not values:
            continue
        note = _NOTES[plan.method]
        if plan.method is Method.VGPU:
            note += f" ({scenario.assumptions.vgpu_scheduler.value} scheduler)"
        results.append(
            WorkloadSlowdown(
                workload=workload.name,
                method=plan.method,
                slowdown=statistics.fmean(values),
                note=note,
                worst_slowdown=max(values),
            )
        )
    return tuple(results)
