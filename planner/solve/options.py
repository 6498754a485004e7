"""Host types and options: the ways each workload class may be served on an estate.

Hosts of one shape (GPU model and count, platform, cores, RAM, RDMA, MIG mode) are
interchangeable: a :class:`HostType`. A class may use method ``m`` on host type ``t`` (an
:class:`Option`) when the one eligibility rule allows it
(``planner.methods.registry.workload_reason``) and the slowdown of an instance on a GPU filled
with its own class is within the class's limit (``WorkloadClass.max_slowdown``, else
``Assumptions.max_slowdown``); a class with no option under a method gets a :class:`Refusal`
saying why. :func:`bound_options` are the options a lower bound ranges over.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import Protocol

from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import Instance, WorkloadClass
from planner.methods.contract import GpuView, PlanContext
from planner.methods.registry import METHODS, Method, host_reason, workload_reason
from planner.plan import GpuLoad, Placement, Slot
from planner.scenario import Scenario

__all__ = [
    "HostType",
    "Option",
    "Rates",
    "Refusal",
    "Solo",
    "SoloFits",
    "bound_options",
    "host_types",
    "one_type_per_host",
    "options",
    "slowdown_limit",
    "solo_fit",
    "sparser_options",
]

_SOLO_SAMPLE = 64
"""Instances packed to estimate a class's slowdown on a GPU filled with its own kind."""


class Rates(Protocol):
    """What a GPU and a host cost per year under a role (``planner.measure.costs`` makes one)."""

    def gpu_usd_per_year(self, method: Method, host: Host) -> float:
        """One GPU in use on ``host`` set up by ``method``: hardware, licence, idle power."""
        ...

    def host_usd_per_year(self, host: Host) -> float:
        """One host in use, without its GPUs [USD/year]."""
        ...

    def network_usd_per_host_year(self, method: Method, host: Host) -> float:
        """Network of one host set up by a host-wide ``method`` [USD/year]."""
        ...


@dataclass(frozen=True)
class HostType:
    """Interchangeable hosts: one shape, the inventory's hosts of it in name order."""

    model: GpuModel
    shape: Host
    """A host of the type (the first by name)."""
    hosts: tuple[Host, ...]

    @property
    def gpus(self) -> int:
        return self.shape.gpus

    @property
    def label(self) -> str:
        """``12 × L40S x4 (vSphere)``."""
        return (
            f"{len(self.hosts)} × {self.model.name} x{self.gpus} "
            f"({self.shape.platform.label}, {self.shape.cpu_cores:g} cores)"
        )


def host_types(
    hosts: Sequence[Host], scenario: Scenario, *, owned: Set[str] = frozenset()
) -> tuple[HostType, ...]:
    """The hosts grouped by shape, types in first-seen order; hosts without a known model or GPUs
    are left out. Hosts named in ``owned`` never share a type with the others: an owned host and
    a server to buy of one shape cost differently."""
    groups: dict[tuple[object, ...], list[Host]] = {}
    for host in hosts:
        if host.gpu_model not in scenario.catalog.gpus or host.gpus <= 0:
            continue
        key = (
            host.gpu_model,
            host.platform,
            host.gpus,
            host.cpu_cores,
            host.ram_gib,
            host.rdma,
            host.mig_enabled,
            host.name in owned,
        )
        groups.setdefault(key, []).append(host)
    return tuple(
        HostType(scenario.catalog.gpus[members[0].gpu_model], members[0], tuple(members))
        for members in (sorted(g, key=lambda h: h.name) for g in groups.values())
    )


@dataclass(frozen=True)
class Option:
    """One way to serve a class: a method on a host type, within the class's limits."""

    workload: str
    method: Method
    host_type: int
    """Index into the plan's host types."""
    slowdown: float
    """Runtime over bare metal on a GPU filled with instances of the class [-]."""
    gpus_per_instance: float
    """GPUs per instance when the class is packed alone under the method [GPUs]."""
    reserve_gib: float | None = None
    """Memory set aside per instance so that fewer instances share a GPU and the class stays
    within its slowdown limit [GiB]; ``None``: its own ``memory_gib``."""
    on_average: bool = False
    """Packed densely, the class is within its limit on average only (its fullest GPU is over
    it): ``slowdown`` is the mean over its instances packed alone."""

    def shape(self, workload: WorkloadClass) -> WorkloadClass:
        """The class as the option packs it."""
        if self.reserve_gib is None:
            return workload
        return dataclasses.replace(workload, memory_gib=self.reserve_gib)


def slowdown_limit(workload: WorkloadClass, scenario: Scenario) -> float:
    """The longest runtime over bare metal the class accepts [-]."""
    if workload.max_slowdown is not None:
        return workload.max_slowdown
    return scenario.assumptions.max_slowdown


@dataclass(frozen=True)
class Solo:
    """A class packed alone under one method on one host type."""

    slowdown: float
    """Worst runtime over bare metal on the fullest GPU [-]; infinite when nothing fits."""
    gpus_per_instance: float
    """GPUs over instances packed [GPUs]."""


@dataclass(frozen=True)
class _Packed:
    """A class's shape packed alone: its fullest GPU, every GPU, and GPUs per instance packed."""

    fullest: GpuLoad | None
    gpus_per_instance: float
    loads: tuple[GpuLoad, ...] = ()


def _shape(workload: WorkloadClass) -> WorkloadClass:
    """What a method's packing of up to ``_SOLO_SAMPLE`` instances of a class alone depends on:
    not its name, priority, limit or busy share (packers place by size and schedule)."""
    return dataclasses.replace(
        workload,
        name="solo",
        instances=min(workload.instances, _SOLO_SAMPLE),
        priority=2,
        max_slowdown=None,
        busy_fraction=0.0,
    )


@dataclass
class SoloFits:
    """``solo_fit`` with the packings and slowdowns it has worked out kept for reuse."""

    scenario: Scenario
    _packed: dict[tuple[Method, str, WorkloadClass], _Packed] = field(default_factory=dict)
    _solo: dict[tuple[Method, int, WorkloadClass], Solo] = field(default_factory=dict)

    def __call__(
        self, method: Method, workload: WorkloadClass, t: int, host_type: HostType
    ) -> Solo:
        """Up to ``_SOLO_SAMPLE`` instances of the class packed alone by the method on the host
        type: the slowdown of an instance on the fullest GPU, and the GPUs each instance takes."""
        shape = dataclasses.replace(
            workload, name="class", instances=min(workload.instances, _SOLO_SAMPLE), priority=2
        )
        key = (method, t, shape)
        if key not in self._solo:
            self._solo[key] = self._fit(method, workload, t, host_type)
        return self._solo[key]

    def within(
        self, method: Method, workload: WorkloadClass, t: int, host_type: HostType, limit: float
    ) -> tuple[Solo, float] | None:
        """The class with memory set aside so that at most ``k`` instances share a GPU, for the
        largest ``k`` that keeps the slowdown within ``limit``: the fit and the memory per
        instance [GiB]; ``None`` when even one instance per GPU is over it."""
        packed = self._packing(method, workload, t, host_type)
        sharing = 0 if packed.fullest is None else len(packed.fullest.slots)
        # Co-tenants' busy demand bounds the slowdown from below (a GPU does one GPU of work).
        most = min(sharing - 1, math.floor(limit / max(workload.busy_fraction, 1e-9)))
        for k in range(most, 0, -1):
            reserve = host_type.model.memory_gib / k
            if reserve <= workload.memory_gib:
                break
            solo = self(method, dataclasses.replace(workload, memory_gib=reserve), t, host_type)
            if solo.slowdown <= limit:
                return solo, reserve
        return None

    def mean_slowdown(
        self, method: Method, workload: WorkloadClass, t: int, host_type: HostType
    ) -> float:
        """The mean slowdown of the class's instances packed alone by the method on the type
        (every GPU, not only the fullest: the limit bounds the class's mean) [-]; a class of
        more than ``_SOLO_SAMPLE`` instances is sampled."""
        packed = self._packing(method, workload, t, host_type)
        if not packed.loads:
            return math.inf
        seen: dict[tuple[str, tuple[Slot, ...]], float] = {}
        total = 0.0
        for load in packed.loads:
            # GPUs packed alike slow their instances alike.
            alike = (load.config, tuple(dataclasses.replace(s, instance="") for s in load.slots))
            if alike not in seen:
                seen[alike] = self._slowdown_on(method, workload, host_type, load)
            total += len(load.slots) * seen[alike]
        return total / sum(len(load.slots) for load in packed.loads)

    def _fit(self, method: Method, workload: WorkloadClass, t: int, host_type: HostType) -> Solo:
        packed = self._packing(method, workload, t, host_type)
        if packed.fullest is None:
            return Solo(math.inf, math.inf)
        slowdown = self._slowdown_on(method, workload, host_type, packed.fullest)
        return Solo(slowdown, packed.gpus_per_instance)

    def _slowdown_on(
        self, method: Method, workload: WorkloadClass, host_type: HostType, load: GpuLoad
    ) -> float:
        """The slowdown of an instance of the class on a GPU holding ``load`` (its own kind)."""
        host = host_type.shape
        placements = tuple(
            Placement(
                f"{workload.name}#{n + 1}",
                workload.name,
                host.name,
                0,
                host_type.model.name,
                s.profile,
                s.memory_gib,
                s.compute_share,
                s.start_slice,
            )
            for n, s in enumerate(load.slots)
        )
        gpu = GpuView((host.name, 0), host, host_type.model, load.config, placements)
        context = PlanContext.of(self.scenario, placements, (host,), workloads=(workload,))
        # Every instance on the GPU is of the class, so the first stands for all.
        return METHODS[method].slowdown(placements[0], gpu, context)

    def _packing(
        self, method: Method, workload: WorkloadClass, t: int, host_type: HostType
    ) -> _Packed:
        shape = _shape(workload)
        # A method packs for a GPU model, whatever the host.
        key = (method, host_type.model.name, shape)
        if key not in self._packed:
            instances = [Instance(i, shape) for i in shape.instance_ids()]
            packing = METHODS[method].pack_heuristic(
                instances, host_type.model, self.scenario.catalog, self.scenario.assumptions
            )
            loads = [load for request in packing.requests for load in request.loads]
            packed = len(instances) - len(packing.not_placed)
            self._packed[key] = _Packed(
                max(loads, key=lambda load: len(load.slots)) if loads else None,
                len(loads) / max(packed, 1),
                tuple(loads),
            )
        return self._packed[key]


def solo_fit(
    method: Method, workload: WorkloadClass, host_type: HostType, scenario: Scenario
) -> Solo:
    """Up to ``_SOLO_SAMPLE`` instances of the class packed alone by the method: the slowdown of
    an instance on the fullest GPU, and the GPUs each instance takes."""
    return SoloFits(scenario)(method, workload, 0, host_type)


@dataclass(frozen=True)
class Refusal:
    """Why a class cannot use a method anywhere on the estate."""

    workload: str
    method: Method
    reason: str
    kind: str
    """``requirement`` (a rule of the method or platform), ``slowdown`` (over the class's limit)
    or ``no host`` (no host the method can set up)."""


def options(
    scenario: Scenario,
    types: Sequence[HostType],
    methods: Sequence[Method] = tuple(METHODS),
    solos: SoloFits | None = None,
) -> tuple[tuple[Option, ...], tuple[Refusal, ...]]:
    """Every option of every class under ``methods``, and for each (class, method) with none,
    why not (``solos``: the packings worked out so far, kept for reuse)."""
    found: list[Option] = []
    refusals: list[Refusal] = []
    solos = solos or SoloFits(scenario)
    # A class of no instances has nothing to serve: no option, and no method refused it.
    for workload in (w for w in scenario.workloads if w.instances > 0):
        limit = slowdown_limit(workload, scenario)
        for method in methods:
            reasons: list[tuple[str, str, HostType]] = []
            served = False
            for t, host_type in enumerate(types):
                reason = _option_reason(method, workload, host_type, scenario)
                if reason is not None:
                    reasons.append((*reason, host_type))
                    continue
                option = _option(solos, method, workload, t, host_type, limit)
                if isinstance(option, str):
                    reasons.append(("slowdown", option, host_type))
                    continue
                found.append(option)
                served = True
            if not served:
                refusals.append(_refusal(workload.name, method, reasons))
    return tuple(found), tuple(refusals)


def bound_options(
    scenario: Scenario,
    types: Sequence[HostType],
    methods: Sequence[Method] = tuple(METHODS),
    solos: SoloFits | None = None,
) -> tuple[Option, ...]:
    """The options a bound ranges over: every class under every method its rules allow on each
    type, packed as densely as the method allows, each with the slowdown of one instance alone
    on a GPU (the least it can have). A plan keeps each class's mean slowdown within its limit,
    which may pack some instances densely and others apart; ``solve_counts`` asks the same of
    these least slowdowns (``_mean_slowdown_within_limit``), so no plan within the limits is
    left out of the bound's reach (``solos``: the packings worked out so far, kept for
    reuse)."""
    found: list[Option] = []
    solos = solos or SoloFits(scenario)
    for workload in (w for w in scenario.workloads if w.instances > 0):
        alone = dataclasses.replace(workload, instances=1)
        for method in methods:
            for t, host_type in enumerate(types):
                if _option_reason(method, workload, host_type, scenario) is not None:
                    continue
                least = solos(method, alone, t, host_type).slowdown
                dense = solos(method, workload, t, host_type).gpus_per_instance
                if math.isfinite(least):
                    found.append(Option(workload.name, method, t, least, dense))
    return tuple(found)


def _option(
    solos: SoloFits,
    method: Method,
    workload: WorkloadClass,
    t: int,
    host_type: HostType,
    limit: float,
    *,
    average: bool = True,
) -> Option | str:
    """The class under the method on the type, as dense as its slowdown limit allows (with
    ``average``, the whole class packed alone within it on average counts); or why it is over
    the limit even alone on a GPU."""
    solo = solos(method, workload, t, host_type)
    if solo.slowdown <= limit:
        return Option(workload.name, method, t, solo.slowdown, solo.gpus_per_instance)
    if average and workload.instances <= _SOLO_SAMPLE and workload.gpus <= 1:
        # Three instances two to a GPU: the pair is over the limit, the three are within it.
        mean = solos.mean_slowdown(method, workload, t, host_type)
        if mean <= limit:
            return Option(workload.name, method, t, mean, solo.gpus_per_instance, on_average=True)
    sparser = solos.within(method, workload, t, host_type, limit)
    if sparser is None:
        shown = f"{solo.slowdown:.2f}× bare metal on {host_type.model.name}"
        return f"{shown}, over its limit of {limit:.2f}×"
    fit, reserve = sparser
    return Option(workload.name, method, t, fit.slowdown, fit.gpus_per_instance, reserve)


def _option_reason(
    method: Method, workload: WorkloadClass, host_type: HostType, scenario: Scenario
) -> tuple[str, str] | None:
    """Why the class has no option under the method on the type, with its kind: ``requirement``
    (a rule of the method or platform), ``model`` (the class's GPU-model list), ``no host`` (no
    host of the type can be set up, or hold one instance) or ``platform`` (the type runs a
    platform the method does not serve); None when it may have one."""
    shape = host_type.shape
    unusable = host_reason(method, shape, scenario.catalog)
    if unusable is not None:
        served = shape.platform in METHODS[method].platforms
        return ("no host" if served else "platform"), unusable
    model = host_type.model
    if workload.gpu_models and model.name not in workload.gpu_models:
        return "model", f"restricted to {', '.join(workload.gpu_models)}, not {model.name}"
    reason = workload_reason(
        method, workload, model, shape.platform, scenario.catalog, scenario.assumptions
    )
    if reason is not None:
        return "requirement", reason
    rules = METHODS[method]
    # An instance's GPUs lie on one host: no host of the type ever holds more.
    needed = rules.gpus_needed(workload, model, scenario.catalog, scenario.assumptions)
    if needed > shape.gpus:
        return "no host", (
            f"it needs {needed} GPUs on one host and the {model.name} hosts here have {shape.gpus}"
        )
    # Nor more cores or RAM than one host has, where the instance runs on its GPU's host.
    if rules.instances_on_gpu_host and workload.vcpus > shape.cpu_cores:
        return "no host", (
            f"an instance needs {workload.vcpus:g} cores and the {model.name} hosts here have "
            f"{shape.cpu_cores:g}"
        )
    if rules.instances_on_gpu_host and workload.ram_gib > shape.ram_gib:
        return "no host", (
            f"an instance needs {workload.ram_gib:g} GiB RAM and the {model.name} hosts here "
            f"have {shape.ram_gib:g} GiB"
        )
    return None


def _refusal(
    workload: str, method: Method, reasons: Sequence[tuple[str, str, HostType]]
) -> Refusal:
    """The most telling reason a class has no option under a method: its slowdown on a type
    it may use, else a rule that holds on a model it may use, else its GPU-model list, else
    the hosts (the largest type's: its hosts come nearest to holding an instance), else the
    platform the hosts run."""
    for kind in ("slowdown", "requirement", "model", "no host", "platform"):
        found = [(reason, t) for k, reason, t in reasons if k == kind]
        if not found:
            continue
        shown = {"model": "requirement", "platform": "no host"}.get(kind, kind)
        reason = found[0][0]
        if kind == "no host":
            reason = max(found, key=lambda f: _capacity(f[1].shape))[0]
        return Refusal(workload, method, reason, shown)
    return Refusal(workload, method, "the estate has no hosts", "no host")


def _capacity(shape: Host) -> tuple[int, float, float]:
    """A host's GPUs, cores and RAM, to tell the largest type."""
    return shape.gpus, shape.cpu_cores, shape.ram_gib


def one_type_per_host(
    types: Sequence[HostType], found: Sequence[Option]
) -> tuple[list[HostType], list[Option]]:
    """Each host of ``types`` a type of its own, and each option on every host of its type."""
    each_host: list[HostType] = []
    indices: dict[int, list[int]] = {}
    for t, host_type in enumerate(types):
        for host in host_type.hosts:
            indices.setdefault(t, []).append(len(each_host))
            each_host.append(HostType(host_type.model, host, (host,)))
    return each_host, [
        dataclasses.replace(o, host_type=j) for o in found for j in indices[o.host_type]
    ]


def sparser_options(
    scenario: Scenario,
    types: Sequence[HostType],
    found: Sequence[Option],
    over: Set[str],
    solos: SoloFits,
) -> tuple[Option, ...]:
    """The options with those of the ``over`` classes that are within their limit on average
    only packed so that their fullest GPU is within it (or dropped when none is)."""
    by_name = {w.name: w for w in scenario.workloads}
    kept: list[Option] = []
    for o in found:
        if not (o.on_average and o.workload in over):
            kept.append(o)
            continue
        w = by_name[o.workload]
        limit = slowdown_limit(w, scenario)
        option = _option(solos, o.method, w, o.host_type, types[o.host_type], limit, average=False)
        if isinstance(option, Option):
            kept.append(option)
    return tuple(kept)
