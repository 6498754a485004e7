"""Time-slicing on Kubernetes: NVIDIA's device plugin hands out replicas of each GPU to pods.

Rules (NVIDIA k8s-device-plugin README, "Shared Access to GPUs with CUDA Time-Slicing"):

- The plugin advertises ``replicas`` references to every GPU of a node
  (``sharing.timeSlicing.resources[].replicas``, here the setting ``REPLICAS``); a
  pod asks one (``nvidia.com/gpu: 1``), so a GPU serves at most ``replicas`` pods.
- A pod that needs more than one GPU is not eligible: a request for N replicas may be served
  by replicas of one GPU, and "does not imply that you will get guaranteed access to a
  proportional amount of compute power" (the README; ``failRequestsGreaterThanOne`` refuses it).
- Nothing isolates the pods: each sees the whole frame buffer, and "if one workload crashes,
  they all do". A workload that needs isolation is not eligible, nor one whose memory exceeds
  one GPU's. The packer never puts pods whose memory adds up to more than the GPU's on one GPU;
  a plan that does is an **out-of-memory risk**, which the checker reports.
- On a MIG-capable GPU with MIG mode on, the plugin hands out MIG devices, not whole GPUs
  (time-slicing MIG devices is not modelled): such nodes are not usable.

Packing is bin packing with a cardinality limit: at most ``replicas`` pods per GPU, their memory
within the GPU's. Pods are counted per memory size (identical pods are interchangeable): the
heuristic is best fit decreasing on counts; the exact packer solves the pattern MILP of
:mod:`planner.solve.milp` over the maximal pod sets one GPU holds, when they number at most
``MAX_PATTERNS`` (few distinct sizes, few replicas), and keeps the heuristic otherwise.

Slowdown: CUDA "gives an equal share of time to all of the GPU processes" (the README), so while
a pod's GPU work runs, every busy co-resident takes an equal slice; a pod's own idle phases
(data loading, CPU work, a user thinking) are not slowed. See :func:`time_slicing_slowdown`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from planner.assumptions import Assumptions, setting
from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import (
    MEMORY_TOLERANCE_GIB,
    GpuDemand,
    GpuMemory,
    GpuView,
    PlanContext,
)
from planner.methods.grouping import request_for
from planner.methods.kubernetes import KubernetesMethod, mig_mode_reason
from planner.methods.slowdown_model import (
    SEED_BUSY_FRACTION,
    SEED_JOBS,
    SEED_SLOWDOWN,
    ModelConstant,
    any_busy,
    busy_demand,
    co_busy_demand,
    co_busy_share,
)
from planner.plan import GpuLoad, GpuPacking, HostRequest, NotPlaced, Placement, Slot, SolveStatus
from planner.solve.bounds import martello_toth_l2
from planner.solve.milp import Contents, pack_counts, relax, residual_demand

__all__ = [
    "K8S_TIME_SLICING",
    "MAX_PATTERNS",
    "MAX_REPLICAS",
    "PROFILE",
    "REPLICAS",
    "STRETCHES",
    "SWITCH_OVERHEAD",
    "TimeSlicing",
    "config",
    "pod_patterns",
    "time_slicing_slowdown",
]

MAX_REPLICAS = 48
"""Most replicas per GPU the planner accepts [pods/GPU]: a guess, as the device plugin sets no
limit; kept at MPS's client limit, where each busy pod gets about 2 % of the GPU's time."""

REPLICAS = setting(
    "time_slicing_replicas", 4, "Time-slicing replicas", "pods/GPU",
    "pods one GPU serves under Kubernetes time-slicing (the device plugin's "
    "sharing.timeSlicing replicas; NVIDIA's examples use 4 to 10); nothing isolates their "
    "memory",
    minimum=1, maximum=MAX_REPLICAS, guess=True, flag="--time-slicing-replicas",
)  # fmt: skip

PROFILE = "replica"
"""``Slot.profile`` of a pod holding one time-slicing replica."""
UNITS_PER_GIB = 1024 * 1024
"""Memory is packed in whole KiB, so sums stay exact integers."""
MAX_PATTERNS = 5000
"""The exact packer enumerates at most this many maximal pod sets per GPU (a pattern MILP that
solves in well under a second); with more, the heuristic's answer is kept."""
_MAX_SEARCH_STEPS = 200_000
"""Steps of the pod-set search before it gives up as if there were too many sets."""

_TOLERANCE = 1e-9
"""Float noise allowed when comparing GPU shares [GPUs]."""


def config(replicas: int) -> str:
    """``GpuLoad.config`` of a time-sliced GPU, ``time-slicing x4``."""
    return f"time-slicing x{replicas}"


def _units(memory_gib: float) -> int:
    """Memory in whole KiB, rounded up (at least 1 KiB)."""
    return max(1, math.ceil(memory_gib * UNITS_PER_GIB - 1e-6))


def _ineligible_reason(workload: WorkloadClass, model: GpuModel) -> str | None:
    """Why ``workload`` cannot be a time-sliced pod on ``model``; None when it can."""
    if workload.gpus > 1 + _TOLERANCE:
        return (
            f"a time-sliced pod gets one replica of one GPU, and the workload needs "
            f"{workload.gpus:g} GPUs (replicas of one GPU add no compute)"
        )
    if workload.memory_gib > model.memory_gib + MEMORY_TOLERANCE_GIB:
        return (
            f"needs {workload.memory_gib:g} GiB but a time-sliced pod shares one "
            f"{model.name} of {model.memory_gib:g} GiB"
        )
    if workload.needs_isolation:
        return (
            "time-sliced pods share the GPU's memory and fault domain, and the workload needs "
            "isolation (use MIG or a whole GPU)"
        )
    return None


def pod_patterns(
    sizes: Sequence[int], capacity: int, replicas: int
) -> tuple[tuple[int, ...], ...] | None:
    """Every maximal set of pods one GPU holds, as counts per size, or None if more than
    ``MAX_PATTERNS`` (or too many to search).

    A set is valid when it has at most ``replicas`` pods and their sizes sum to at most
    ``capacity`` [KiB]; maximal when no pod of any size can be added. Every valid set lies within
    a maximal one, so covering with these loses nothing. Cached per (sizes, capacity, replicas).
    """
    return _maximal_sets(tuple(sizes), capacity, replicas)


@functools.lru_cache(maxsize=256)
def _maximal_sets(
    sizes: tuple[int, ...], capacity: int, replicas: int
) -> tuple[tuple[int, ...], ...] | None:
    found: list[tuple[int, ...]] = []
    counts = [0] * len(sizes)
    smallest = min(sizes, default=capacity + 1)
    steps = 0

    def search(index: int, free: int, pods: int) -> bool:
        """Depth-first over counts, largest first; False once a limit is passed."""
        nonlocal steps
        steps += 1
        if steps > _MAX_SEARCH_STEPS:
            return False
        if index == len(sizes):
            if pods and (pods == replicas or free < smallest):
                found.append(tuple(counts))
            return len(found) <= MAX_PATTERNS
        most = min(replicas - pods, free // sizes[index])
        for n in range(most, -1, -1):
            counts[index] = n
            if not search(index + 1, free - n * sizes[index], pods + n):
                return False
        counts[index] = 0
        return True

    if not search(0, capacity, 0):
        return None
    return tuple(sorted(found, reverse=True))


def _best_fit_decreasing(
    sizes: Sequence[int], counts: Sequence[int], capacity: int, replicas: int
) -> Contents:
    """Best fit decreasing on counts: GPUs per content vector (pods per size).

    Pods go largest first, each into the fullest GPU it fits (least free memory, fewer than
    ``replicas`` pods), else a new GPU. Identical pods are interchangeable, so GPUs are tracked
    as (content vector -> how many GPUs hold it) and whole groups fill in one step.
    """
    groups: dict[tuple[int, ...], int] = {}
    empty = (0,) * len(sizes)

    def free(content: tuple[int, ...]) -> int:
        return capacity - sum(n * s for n, s in zip(content, sizes, strict=True))

    def room(content: tuple[int, ...], k: int) -> int:
        """Pods of size k one more GPU with ``content`` can still take."""
        return max(0, min(replicas - sum(content), free(content) // sizes[k]))

    def add(content: tuple[int, ...], k: int, n: int, gpus: int) -> None:
        grown = tuple(c + n if i == k else c for i, c in enumerate(content))
        groups[grown] = groups.get(grown, 0) + gpus

    for k in sorted(range(len(sizes)), key=lambda k: (-sizes[k], k)):
        left = counts[k]
        while left:
            fitting = [c for c in groups if room(c, k)]
            if fitting:
                content = min(fitting, key=lambda c: (free(c), c))
                gpus = groups.pop(content)
            else:
                content = empty
                gpus = math.ceil(left / room(empty, k))
            each = room(content, k)
            full, rest = divmod(min(left, gpus * each), each)
            if full:
                add(content, k, each, full)
            if rest:
                add(content, k, rest, 1)
            untouched = gpus - full - (1 if rest else 0)
            if untouched:
                groups[content] = groups.get(content, 0) + untouched
            left -= full * each + rest
    return tuple(sorted(groups.items(), reverse=True))


def _gpus(contents: Contents) -> int:
    return sum(n for _, n in contents)


def _lp_rounded(
    patterns: Sequence[tuple[int, ...]],
    counts: Sequence[int],
    heuristic: Callable[[Sequence[int]], Contents],
) -> Contents:
    """The LP relaxation's cover rounded down, the pods it leaves packed by ``heuristic``."""
    base = relax(patterns, counts).rounded_down()
    kept = tuple((p, n) for p, n in zip(patterns, base, strict=True) if n)
    return kept + tuple(heuristic(residual_demand(patterns, base, counts)))


def _hand_out(
    contents: Contents,
    queues: Sequence[Sequence[Instance]],
    model: GpuModel,
    replicas: int,
) -> list[HostRequest]:
    """One request per GPU: each content vector's GPUs take pods from the size queues in order,
    so the most urgent pods share the first GPUs. GPUs left empty are dropped."""
    taken = [0] * len(queues)
    requests = []
    for content, count in contents:
        for _ in range(count):
            pods: list[Instance] = []
            for k, room in enumerate(content):
                chunk = queues[k][taken[k] : taken[k] + room]
                taken[k] += len(chunk)
                pods.extend(chunk)
            if not pods:
                continue
            slots = tuple(
                Slot(p.id, p.workload.name, PROFILE, p.workload.memory_gib, 0.0) for p in pods
            )
            load = GpuLoad(gpu_model=model.name, config=config(replicas), slots=slots)
            requests.append(request_for(model.name, (load,), pods))
    return requests


def _pack(
    instances: Sequence[Instance],
    model: GpuModel,
    assumptions: Assumptions,
    *,
    exact: bool,
) -> GpuPacking:
    """Pods per memory size, packed on counts; see the module docstring."""
    replicas = REPLICAS.of(assumptions)
    capacity = _units(model.memory_gib)
    not_placed: list[NotPlaced] = []
    by_size: dict[int, list[Instance]] = {}
    reasons: dict[int, str | None] = {}
    for instance in sorted(instances, key=lambda i: i.workload.priority):
        workload = instance.workload
        if id(workload) not in reasons:
            reasons[id(workload)] = _ineligible_reason(workload, model)
        reason = reasons[id(workload)]
        if reason is not None:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
            continue
        size = min(capacity, _units(workload.memory_gib))
        by_size.setdefault(size, []).append(instance)
    sizes = sorted(by_size, reverse=True)
    counts = [len(by_size[s]) for s in sizes]
    queues = [by_size[s] for s in sizes]
    if not sizes:
        return GpuPacking((), tuple(not_placed), 0, SolveStatus.OPTIMAL)

    def heuristic(remaining: Sequence[int]) -> Contents:
        return _best_fit_decreasing(sizes, remaining, capacity, replicas)

    patterns = pod_patterns(sizes, capacity, replicas)
    notes: list[str] = []
    if patterns is not None:
        packing = pack_counts(
            patterns, counts, heuristic, exact=exact, time_limit_s=assumptions.time_limit_s
        )
        contents, lower, status = packing.contents, packing.lower_bound, packing.status
        notes.extend(packing.notes)
        if not exact and status is not SolveStatus.OPTIMAL:
            # Best fit decreasing fills replicas with large pods first; the LP's cover rounded
            # down, with best fit on the rest, often needs fewer GPUs (no MILP is solved).
            rounded = _lp_rounded(patterns, counts, heuristic)
            if _gpus(rounded) < _gpus(contents):
                contents = rounded
    else:
        contents = heuristic(counts)
        all_sizes = [s for s, n in zip(sizes, counts, strict=True) for _ in range(n)]
        lower = max(math.ceil(sum(counts) / replicas), martello_toth_l2(all_sizes, capacity))
        status = SolveStatus.HEURISTIC
        notes.append(
            f"time-slicing: more than {MAX_PATTERNS} ways to fill a GPU with these pod sizes, "
            "so best fit decreasing is kept (no exact solve)"
        )
    requests = _hand_out(contents, queues, model, replicas)
    if len(requests) <= lower:
        status = SolveStatus.OPTIMAL
    return GpuPacking(
        requests=tuple(requests),
        not_placed=tuple(not_placed),
        lower_bound_gpus=lower,
        status=status,
        notes=tuple(notes),
    )


STRETCHES = (1.0, 1.1, 1.25, 1.5, 2.0)
"""How far over its class's limit a pod may run on the GPU it joins while packing within the
limits [× limit]; each is tried and the packing on the fewest GPUs kept. Past 1, the classes'
mean slowdowns are brought back within their limits by moving their most slowed pods alone."""

Content = tuple[int, ...]
"""Pods of one GPU, per class."""


class _Tenancy:
    """Pods of a few classes on GPUs of one model, as contents: each pod's slowdown on a
    content, and whether a content keeps each pod within a stretch of its class's limit."""

    def __init__(
        self,
        classes: Sequence[WorkloadClass],
        limits: Sequence[float],
        model: GpuModel,
        assumptions: Assumptions,
        host: Host,
    ) -> None:
        self.classes = classes
        self.limits = limits
        self._host = host
        self.replicas = REPLICAS.of(assumptions)
        self.empty: Content = (0,) * len(classes)
        self._capacity = _units(model.memory_gib)
        self._units = [_units(w.memory_gib) for w in classes]
        self._constants = assumptions.performance_constants
        self._slowdowns: dict[Content, tuple[float, ...]] = {}
        self._holds: dict[tuple[Content, float], bool] = {}

    def slowdowns(self, content: Content) -> tuple[float, ...]:
        """The slowdown of one pod of each class on a GPU holding ``content`` (0 where it holds
        none) [-]."""
        known = self._slowdowns.get(content)
        if known is None:
            known = tuple(self._slowdown(k, content) if n else 0.0 for k, n in enumerate(content))
            self._slowdowns[content] = known
        return known

    def _slowdown(self, k: int, content: Content) -> float:
        pod = self.classes[k]
        others = [
            other
            for j, other in enumerate(self.classes)
            for _ in range(content[j] - (1 if j == k else 0))
        ]
        return time_slicing_slowdown(
            pod.busy_fraction,
            min(pod.gpus, 1.0),
            [co_busy_share(pod, o) for o in others],
            [co_busy_demand(pod, o) for o in others],
            performance_constants=self._constants,
        )

    def holds(self, content: Content, stretch: float) -> bool:
        """At most ``replicas`` pods, their memory within the GPU's, their cores and RAM
        within one host's (a GPU's pods run on its host), and each within ``stretch`` times
        its class's limit."""
        key = (content, stretch)
        known = self._holds.get(key)
        if known is None:
            cores = sum(n * w.vcpus for n, w in zip(content, self.classes, strict=True))
            ram = sum(n * w.ram_gib for n, w in zip(content, self.classes, strict=True))
            known = (
                sum(content) <= self.replicas
                and sum(n * u for n, u in zip(content, self._units, strict=True)) <= self._capacity
                and cores <= self._host.cpu_cores + _TOLERANCE
                and ram <= self._host.ram_gib + _TOLERANCE
                and all(
                    s <= stretch * limit + _TOLERANCE
                    for s, limit, n in zip(
                        self.slowdowns(content), self.limits, content, strict=True
                    )
                    if n
                )
            )
            self._holds[key] = known
        return known

    def busy_load(self, content: Content) -> float:
        """GPUs of busy work the content asks [GPUs]."""
        return sum(n * busy_demand(w) for n, w in zip(content, self.classes, strict=True))


def _with(content: Content, k: int, more: int) -> Content:
    return tuple(n + more if j == k else n for j, n in enumerate(content))


Groups = dict[Content, int]
"""GPUs per content."""


def _packed_within(tenancy: _Tenancy, counts: Sequence[int], stretch: float) -> Groups | None:
    """Best fit decreasing on counts, classes by busy demand: each pod to the GPU with the most
    busy work that still holds it within ``stretch`` (``_Tenancy.holds``), else new GPUs
    filled with its class; None when a pod is over its limit even alone."""
    groups: Groups = {}
    for k, left in enumerate(counts):
        own = 0
        while own < tenancy.replicas and tenancy.holds(_with(tenancy.empty, k, own + 1), stretch):
            own += 1
        if left and not own:
            return None
        while left:
            fitting = [c for c in groups if tenancy.holds(_with(c, k, 1), stretch)]
            if not fitting:
                full, rest = divmod(left, own)
                for content, gpus in (
                    (_with(tenancy.empty, k, own), full),
                    (_with(tenancy.empty, k, rest), 1 if rest else 0),
                ):
                    if gpus:
                        groups[content] = groups.get(content, 0) + gpus
                break
            content = max(fitting, key=lambda c: (tenancy.busy_load(c), c))
            gpus = groups.pop(content)
            taken = min(gpus, left)
            grown = _with(content, k, 1)
            groups[grown] = groups.get(grown, 0) + taken
            if gpus > taken:
                groups[content] = groups.get(content, 0) + gpus - taken
            left -= taken
    return groups


def _held_to_limits(tenancy: _Tenancy, groups: Groups) -> bool:
    """While a class's mean slowdown is over its limit, its pods on the GPUs that slow them
    most each moved to a GPU of their own (``groups`` changed); False when a class stays over
    its limit."""
    n = len(tenancy.classes)
    for _ in range(sum(groups.values()) + n):
        over = _over_limit(tenancy, groups)
        if over is None:
            return True
        k, excess = over
        shared = [c for c in groups if c[k] and sum(c) > 1]
        if not shared:
            return False
        worst = max(shared, key=lambda c: (tenancy.slowdowns(c)[k], c))
        alone = _with(tenancy.empty, k, 1)
        gain = tenancy.slowdowns(worst)[k] - tenancy.slowdowns(alone)[k]
        moved = min(groups[worst], max(1, math.ceil(excess / max(gain, _TOLERANCE))))
        groups[worst] -= moved
        if not groups[worst]:
            del groups[worst]
        emptier = _with(worst, k, -1)
        groups[emptier] = groups.get(emptier, 0) + moved
        groups[alone] = groups.get(alone, 0) + moved
    return False


def _over_limit(tenancy: _Tenancy, groups: Groups) -> tuple[int, float] | None:
    """The first class whose mean slowdown is over its limit, with its excess summed over its
    pods; None when every class is within its limit."""
    pods = [0] * len(tenancy.classes)
    total = [0.0] * len(tenancy.classes)
    for content, gpus in groups.items():
        for k, (count, slowdown) in enumerate(
            zip(content, tenancy.slowdowns(content), strict=True)
        ):
            pods[k] += count * gpus
            total[k] += count * gpus * slowdown
    for k, limit in enumerate(tenancy.limits):
        excess = total[k] - limit * pods[k]
        if pods[k] and excess > _TOLERANCE:
            return k, excess
    return None


def _pack_within_limits(
    instances: Sequence[Instance],
    host: Host,
    model: GpuModel,
    assumptions: Assumptions,
    limit: Callable[[WorkloadClass], float],
) -> GpuPacking:
    """Pods per class packed so that each class's mean slowdown stays within its limit, on the
    fewest GPUs over ``STRETCHES``; see ``TimeSlicing.pack_within_limits``."""
    replicas = REPLICAS.of(assumptions)
    not_placed: list[NotPlaced] = []
    queues: dict[int, list[Instance]] = {}
    classes: dict[int, WorkloadClass] = {}
    for instance in sorted(instances, key=lambda i: i.workload.priority):
        workload = instance.workload
        reason = _ineligible_reason(workload, model)
        if reason is None and (workload.vcpus > host.cpu_cores or workload.ram_gib > host.ram_gib):
            reason = (
                f"needs {workload.vcpus:g} cores and {workload.ram_gib:g} GiB RAM, and a host "
                f"has {host.cpu_cores:g} cores and {host.ram_gib:g} GiB"
            )
        if reason is not None:
            not_placed.append(NotPlaced(instance.id, workload.name, reason))
            continue
        classes[id(workload)] = workload
        queues.setdefault(id(workload), []).append(instance)
    order = sorted(
        classes,
        key=lambda i: (-busy_demand(classes[i]), -classes[i].memory_gib, classes[i].name),
    )
    tenancy = _Tenancy(
        [classes[i] for i in order], [limit(classes[i]) for i in order], model, assumptions, host
    )
    counts = [len(queues[i]) for i in order]
    best: Groups | None = None
    for stretch in STRETCHES:
        groups = _packed_within(tenancy, counts, stretch)
        if groups is None or not _held_to_limits(tenancy, groups):
            continue
        if best is None or sum(groups.values()) < sum(best.values()):
            best = groups
    if best is None:
        # Some class is over its limit even alone on a GPU: nothing is packed within limits.
        for i in order:
            not_placed.extend(
                NotPlaced(x.id, x.workload.name, "over its slowdown limit even alone on a GPU")
                for x in queues[i]
            )
        return GpuPacking((), tuple(not_placed), 0, SolveStatus.HEURISTIC)
    contents = tuple(sorted(best.items(), reverse=True))
    requests = _hand_out(contents, [queues[i] for i in order], model, replicas)
    return GpuPacking(
        requests=tuple(requests),
        not_placed=tuple(not_placed),
        lower_bound_gpus=math.ceil(sum(counts) / replicas),
        status=SolveStatus.HEURISTIC,
    )


_GUESS = "planner guess (no public figure; edit to match your measurements)"
_README = "NVIDIA k8s-device-plugin README: CUDA gives an equal share of time to all GPU processes"

SWITCH_OVERHEAD = 0.02
"""Extra runtime of a pod's busy phases while another pod on its GPU is busy: CUDA saves and
restores a context at every time slice of a few milliseconds [-] (a guess)."""

_SWITCH = ModelConstant(
    "time_slicing_switch_overhead",
    SWITCH_OVERHEAD,
    "fraction of busy runtime",
    _GUESS + "; a context switch per time slice of a few ms",
    "extra runtime of a time-sliced pod's GPU work while another pod on its GPU is busy",
    is_guess=True,
    maximum=1.0,
)


def _seed_share(switch_overhead: float) -> float:
    """κ such that ``SEED_JOBS`` pods, each ``SEED_BUSY_FRACTION`` busy and asking a whole GPU, run
    ``SEED_SLOWDOWN`` slower on one time-sliced GPU, given the switch overhead ``c`` [-].

    ``s = (1 − b) + b × (1 + κ (n − 1) b) × (1 + c p)`` with ``p = 1 − (1 − b)^(n − 1)`` gives
    ``κ = ((s − (1 − b)) / (b (1 + c p)) − 1) / ((n − 1) b)``, kept within 0-1.
    """
    b, n, s = SEED_BUSY_FRACTION, SEED_JOBS, SEED_SLOWDOWN
    switching = 1.0 + switch_overhead * (1.0 - (1.0 - b) ** (n - 1))
    share = ((s - (1.0 - b)) / (b * switching) - 1.0) / ((n - 1) * b)
    return min(1.0, max(0.0, share))


_SHARE = ModelConstant(
    "time_slicing_share",
    _seed_share(SWITCH_OVERHEAD),
    "fraction of co-resident busy time",
    _README + "; calibrated to VMware's seed slide (3 jobs × 30 % busy → 1.17× each)",
    "κ: share of a busy co-resident's time slices that delay a time-sliced pod (1 = strictly "
    "equal slices); unless set, recalibrated to the seed slide from the switch overhead in use",
    maximum=1.0,
    derived=lambda overrides: _seed_share(_SWITCH.in_use(overrides)),
)
_NO_OVERRIDES: Mapping[str, float] = MappingProxyType({})


def time_slicing_slowdown(
    busy_fraction: float,
    asked_compute_share: float,
    co_busy: Sequence[float],
    co_demand: Sequence[float],
    *,
    performance_constants: Mapping[str, float] = _NO_OVERRIDES,
) -> float:
    """Runtime / bare metal of a pod on a time-sliced GPU [-].

    ``s = max((1 − b) + b × f, b g + Σ_j g_j d_j)``, with ``f = max(1, g × (1 + κ Σ_j d_j)) ×
    (1 + c p)`` the stretch of the pod's GPU work: while it runs, each co-resident is busy a
    share ``d_j`` of the time and takes an equal slice (CUDA's time-slicing), ``κ`` calibrates
    that to VMware's seed slide (three 30 %-busy jobs each ~1.17×), and ``c`` is the context
    switch overhead while some co-resident is busy (``p = 1 − Π_j (1 − d_j)``). The pod's idle
    share ``1 − b`` is not slowed. Physics first: a GPU does at most one GPU of work, so when the
    busy demand ``b g + Σ_j g_j d_j`` passes 1, the pod runs at least that much slower.

    Parameters: ``busy_fraction`` b, share of its active time the pod keeps its GPU busy [0-1];
    ``asked_compute_share`` g, share of a GPU it asked for [0-1]; ``co_busy`` each co-resident's
    busy share while this pod runs [0-1]; ``co_demand`` GPUs each co-resident keeps busy while
    this pod runs, ``g_j d_j`` [GPUs]; ``performance_constants`` overrides by name
    (``ValueError`` if one is out of range).
    """
    share = _SHARE.in_use(performance_constants)
    switch = _SWITCH.in_use(performance_constants)
    stretch = max(1.0, asked_compute_share * (1.0 + share * sum(co_busy)))
    stretch *= 1.0 + switch * any_busy(co_busy)
    contended = (1.0 - busy_fraction) + busy_fraction * stretch
    demand = busy_fraction * asked_compute_share + sum(co_demand)
    return max(contended, demand)


class TimeSlicing(KubernetesMethod):
    """CUDA time-slicing of whole GPUs among pods, replicas from NVIDIA's device plugin."""

    label = "Time-slicing (Kubernetes)"
    work_floor = True
    # Pattern MILPs whose size depends on the pod sizes and replicas, not the pod count.
    exact_max_instances = 100_000
    own_settings = (*KubernetesMethod.own_settings, REPLICAS)
    constants = (_SWITCH, _SHARE)
    slowdown_summary = "equal time slices with busy pods on the GPU; no memory isolation"
    map_note = (
        "Time-slicing (Kubernetes): pods share the whole frame buffer; each block is the memory "
        "a pod uses, not a reservation."
    )

    def unusable_host_reason(self, host: Host, model: GpuModel) -> str | None:
        return mig_mode_reason(host, model, "time-slicing")

    def ineligible_reason(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> str | None:
        """Why ``workload`` cannot be a time-sliced pod on ``model``: more than one GPU, more
        memory than the GPU, or a need for isolation; None when it can."""
        return _ineligible_reason(workload, model)

    def gpus_needed(
        self, workload: WorkloadClass, model: GpuModel, catalog: Catalog, assumptions: Assumptions
    ) -> int:
        return 1

    def pack_heuristic(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Best fit decreasing on pod counts per memory size, at most ``replicas`` per GPU, or the
        LP relaxation rounded down with best fit on the rest when that needs fewer GPUs; with
        the LP lower bound (OPTIMAL when it meets the bound)."""
        return _pack(instances, model, assumptions, exact=False)

    def pack_exact(
        self,
        instances: Sequence[Instance],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuPacking:
        """Fewest GPUs: the pattern MILP over maximal pod sets, bounded by best fit decreasing
        and falling back to it past its work limit or ``MAX_PATTERNS``."""
        return _pack(instances, model, assumptions, exact=True)

    def pack_within_limits(
        self,
        instances: Sequence[Instance],
        host: Host,
        model: GpuModel,
        assumptions: Assumptions,
        limit: Callable[[WorkloadClass], float],
    ) -> GpuPacking:
        """Pods packed by their busy work as well as their memory: best fit decreasing on
        counts per class, a pod joining a GPU only where every pod on it stays within a
        stretch of its class's limit and their cores and RAM within one host's, then each
        class's mean brought within its limit by moving its most slowed pods to GPUs of their
        own; the fewest GPUs over the stretches tried (``STRETCHES``). One request per GPU."""
        return _pack_within_limits(instances, host, model, assumptions, limit)

    def gpu_demand(
        self,
        workloads: Sequence[WorkloadClass],
        model: GpuModel,
        catalog: Catalog,
        assumptions: Assumptions,
    ) -> GpuDemand:
        """One dimension per pod memory size; a GPU holds a maximal pod set (at most
        ``replicas`` pods within its memory): exact. With more than ``MAX_PATTERNS`` sets, two
        dimensions (replicas, memory) relax the rule instead."""
        replicas = REPLICAS.of(assumptions)
        capacity = _units(model.memory_gib)
        eligible = [w for w in workloads if _ineligible_reason(w, model) is None]
        sizes = sorted({min(capacity, _units(w.memory_gib)) for w in eligible}, reverse=True)
        patterns = pod_patterns(sizes, capacity, replicas)
        if patterns is None or not sizes:
            return GpuDemand(
                ("replicas", "memory [GiB]"),
                {w.name: (1.0, w.memory_gib) for w in eligible},
                ((float(replicas), model.memory_gib),),
                exact=not sizes,
            )
        use = {
            w.name: tuple(1.0 if s == min(capacity, _units(w.memory_gib)) else 0.0 for s in sizes)
            for w in eligible
        }
        return GpuDemand(
            tuple(f"pods of {s / UNITS_PER_GIB:g} GiB" for s in sizes),
            use,
            tuple(tuple(float(n) for n in p) for p in patterns),
            exact=True,
        )

    def gpu_problems(self, gpu: GpuView, plan: PlanContext) -> list[str]:
        """At most ``replicas`` pods per GPU, and their memory within the frame buffer: nothing
        isolates it, so more is an out-of-memory risk."""
        problems: list[str] = []
        replicas = REPLICAS.of(plan.assumptions)
        pods = len({p.instance for p in gpu.placements})
        if pods > replicas:
            problems.append(
                f"{gpu.name} serves {pods} time-sliced pods but the device plugin gives it "
                f"{replicas} replicas"
            )
        used = sum(plan.workload(p).memory_gib for p in gpu.placements)
        if used > gpu.model.memory_gib + MEMORY_TOLERANCE_GIB:
            problems.append(
                f"out-of-memory risk: the time-sliced pods on {gpu.name} use {used:g} GiB "
                f"together but a {gpu.model.name} has {gpu.model.memory_gib:g} GiB, and "
                "time-slicing does not isolate memory"
            )
        return problems

    def instance_problems(
        self, instance: str, placements: Sequence[Placement], plan: PlanContext
    ) -> list[str]:
        """A time-sliced pod holds one replica: one GPU."""
        gpus = {(p.host, p.gpu_index) for p in placements}
        if len(gpus) > 1:
            return [f"{instance} holds {len(gpus)} GPUs but a time-sliced pod holds one replica"]
        return []

    def gpu_memory(self, gpu: GpuView, plan: PlanContext) -> GpuMemory:
        """Nothing is reserved: each pod's own memory, within the frame buffer."""
        used = sum(plan.memory_per_gpu_gib(p) for p in gpu.placements)
        return GpuMemory(capacity_gib=gpu.model.memory_gib, reserved_gib=used, used_gib=used)

    def free_memory_usable(self, gpu: GpuView, plan: PlanContext) -> bool | None:
        """A GPU whose replicas are all taken serves no more pods; else the generic rule."""
        pods = len({p.instance for p in gpu.placements})
        return False if pods >= REPLICAS.of(plan.assumptions) else None

    def slowdown(self, placement: Placement, gpu: GpuView, plan: PlanContext) -> float:
        workload = plan.workload(placement)
        others = [r for r in gpu.placements if r.instance != placement.instance]
        co_busy = [co_busy_share(workload, plan.workload(r)) for r in others]
        co_demand = [
            min(plan.workload(r).gpus, 1.0) * busy for r, busy in zip(others, co_busy, strict=True)
        ]
        return time_slicing_slowdown(
            workload.busy_fraction,
            min(workload.gpus, 1.0),
            co_busy,
            co_demand,
            performance_constants=plan.assumptions.performance_constants,
        )

    def slowdown_note(self, assumptions: Assumptions) -> str:
        return f"{self.slowdown_summary} ({REPLICAS.of(assumptions)} replicas per GPU)"


K8S_TIME_SLICING = TimeSlicing()
"""The Kubernetes time-slicing method, as the registry holds it."""
