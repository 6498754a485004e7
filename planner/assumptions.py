"""Every assumption a plan rests on, each with a default the user can change.

One source of truth: each field of ``Assumptions`` and ``Network`` carries its ``Fact`` (label,
unit, meaning, range, whether the default is a guess, CLI flag) in the field's metadata, and each
sharing method declares its own settings in its module, each a ``Setting`` with its ``Fact``
(``SharingMethod.own_settings``, collected by ``planner.methods.registry.declared_settings``),
held by name in ``Assumptions.method_settings``. The CLI options (``planner.cli``), the
workbook's sheets (``planner.output.export``, ``planner.inputs.importers.workbook``), the saved
scenarios (``planner.store``) and the dashboard's widgets (``ui.pages.assumptions``) are all made
from them (``facts``, ``with_facts``). An ``Assumptions`` checks itself when built: every number
finite and within its ``Fact``'s range, every method setting of its kind, every override of a
slowdown-model constant within that constant's range (``performance_constant_facts``). Mapping
fields are stored as ``FrozenMap``, so an ``Assumptions`` is hashable (a cache key).

Adding an assumption every plan reads is one line here: ``name: float = fact(default, "Label",
"unit", "meaning", minimum=..., maximum=..., guess=True, flag="--name")``. A setting of one
sharing method is one line in its module, ``NAME = setting("name", default, "Label", ...)``, listed
in the method's ``own_settings``. Either then shows up in the CLI, the workbook, saved scenarios
and the dashboard's Assumptions page.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Generic, TypeVar, cast

__all__ = [
    "Assumptions",
    "Fact",
    "FrozenMap",
    "Network",
    "Setting",
    "Shortfall",
    "VgpuMode",
    "VgpuScheduler",
    "VsphereVersion",
    "fact",
    "facts",
    "lift_method_settings",
    "performance_constant_facts",
    "setting",
]

T = TypeVar("T")
V = TypeVar("V")


@dataclass(frozen=True)
class Fact:
    """What one assumption means: the metadata every view of it is made from."""

    label: str
    """Short name for people (a widget's label)."""
    unit: str
    """Unit of the value (``USD/kWh``, ``0-1``, ``-`` for a ratio, ``yes/no``, ``choice``)."""
    meaning: str
    """One sentence: what it is and what it changes in a plan."""
    minimum: float | None = None
    """Smallest accepted value, inclusive (numbers only)."""
    maximum: float | None = None
    """Largest accepted value, inclusive (numbers only)."""
    is_guess: bool = False
    """The default is the team's estimate, not a sourced figure: replace it with yours."""
    flag: str | None = None
    """Command-line option that sets it (``--pue``); None when the CLI does not offer it."""
    whole: bool = False
    """Only whole numbers are accepted (pods per GPU)."""

    @property
    def range_text(self) -> str:
        """``1 to 3``, ``at least 0`` or empty."""
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"{low:g} to {high:g}"
        if low is not None:
            return f"at least {low:g}"
        return "" if high is None else f"at most {high:g}"

    def checked(self, name: str, value: object) -> None:
        """Raise ``ValueError`` naming the assumption, its unit and range unless ``value`` is a
        finite number within the range (values of other kinds are not checked here)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return
        low = -math.inf if self.minimum is None else self.minimum
        high = math.inf if self.maximum is None else self.maximum
        whole = not self.whole or (math.isfinite(value) and float(value).is_integer())
        if not math.isfinite(value) or not low <= value <= high or not whole:
            kind = "a whole number" if self.whole else "a finite number"
            raise ValueError(
                f"assumption {name} ({self.label}) must be {kind} from "
                f"{self.range_text} [{self.unit}], got {value!r}"
            )


FACT = "fact"
"""Key of a field's ``Fact`` in its dataclass metadata."""


def fact(
    default: Any,
    label: str,
    unit: str,
    meaning: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    guess: bool = False,
    flag: str | None = None,
) -> Any:
    """A dataclass field with its ``Fact``; a mapping default becomes an empty ``FrozenMap``."""
    metadata = {FACT: Fact(label, unit, meaning, minimum, maximum, guess, flag)}
    if isinstance(default, Mapping):
        return field(default_factory=lambda: FrozenMap(default), metadata=metadata)
    if dataclasses.is_dataclass(default):
        return field(default_factory=lambda: default, metadata=metadata)
    return field(default=default, metadata=metadata)


def facts(instance: Any, prefix: str = "") -> Iterator[tuple[str, Fact, Any]]:
    """Every (dotted name, ``Fact``, value) of a dataclass instance, nested dataclasses opened
    (``network.latency_us``), in field order; the sharing methods' settings by their own name
    (``mps_replicas``), in registry order."""
    for f in dataclasses.fields(instance):
        value = getattr(instance, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            yield from facts(value, f"{prefix}{f.name}.")
        elif FACT in f.metadata:
            yield f"{prefix}{f.name}", f.metadata[FACT], value
        elif f.name == METHOD_SETTINGS:
            for name, declared in _declared().items():
                yield f"{prefix}{name}", declared.fact, value[name]


class FrozenMap(Mapping[str, V]):
    """An immutable, hashable mapping (name to value), ordered by name."""

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        self._items = dict(sorted((items or {}).items()))

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self) -> tuple[type[FrozenMap[V]], tuple[dict[str, V]]]:
        # Rebuilt from a plain dict: pickles, copies and Streamlit's cache hashing all use it.
        return (FrozenMap, (dict(self._items),))


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One setting a sharing method declares in its module (MPS replicas per GPU): its name in
    ``Assumptions.method_settings``, its default and its ``Fact``. The default's type is the
    setting's kind: a whole number, a number, yes/no or a choice (an enum)."""

    name: str
    default: T
    fact: Fact

    def of(self, assumptions: Assumptions) -> T:
        """The setting's value in ``assumptions``."""
        return cast(T, assumptions.method_settings[self.name])

    def read(self, value: object) -> T:
        """``value`` as the setting's kind (a choice also from its value text, a whole number
        also from a whole float), checked against its ``Fact``; ``ValueError`` names the setting
        and what it accepts."""
        kind = type(self.default)
        about = f"assumption {self.name} ({self.fact.label})"
        if issubclass(kind, Enum):
            try:
                return cast(T, kind(value))
            except ValueError:
                choices = ", ".join(str(c.value) for c in kind)
                raise ValueError(f"{about} must be one of {choices}, got {value!r}") from None
        if kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{about} must be yes or no (true or false), got {value!r}")
            return cast(T, value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            number = "a whole number" if self.fact.whole else "a number"
            raise ValueError(f"{about} must be {number} [{self.fact.unit}], got {value!r}")
        self.fact.checked(self.name, value)
        return cast(T, int(value) if kind is int else float(value))


def setting(
    name: str,
    default: T,
    label: str,
    unit: str,
    meaning: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    guess: bool = False,
    flag: str | None = None,
) -> Setting[T]:
    """A sharing method's setting; an ``int`` default makes it take whole numbers only."""
    whole = isinstance(default, int) and not isinstance(default, bool)
    return Setting(name, default, Fact(label, unit, meaning, minimum, maximum, guess, flag, whole))


def _declared() -> Mapping[str, Setting[Any]]:
    """The settings the registered sharing methods declare, by name, in registry order."""
    # Imported here: the registry imports every method module, and each imports this one.
    from planner.methods.registry import declared_settings

    return declared_settings()


def _model_constants() -> Mapping[str, Any]:
    """The constants of the registered methods' slowdown models by name (each a
    ``planner.methods.slowdown_model.ModelConstant``, with its unit and range), in registry
    order: the names ``Assumptions.performance_constants`` may override."""
    # Imported here, as in ``_declared``: the method modules import this one.
    from planner.methods.registry import METHODS

    return {c.name: c for rules in METHODS.values() for c in rules.constants}


def performance_constant_facts() -> dict[str, Fact]:
    """A ``Fact`` for each slowdown-model constant ``Assumptions.performance_constants`` may
    override, by name: its unit, meaning and range, as readers of an override word what it
    takes."""
    return {
        name: Fact(
            name,
            c.unit,
            c.meaning,
            c.minimum,
            None if math.isinf(c.maximum) else c.maximum,
            c.is_guess,
        )
        for name, c in _model_constants().items()
    }


def _checked_constants(overrides: Mapping[str, Any]) -> FrozenMap[Any]:
    """``overrides`` with each value of a known constant read as a number and checked against
    the constant's range (``ValueError`` naming it, its unit and the rule). A name no model has
    is kept as given: the models refuse it when they run, naming the known constants, and
    ``Assumptions.with_facts`` refuses it when set."""
    known = _model_constants()
    checked: dict[str, Any] = {}
    for name, value in overrides.items():
        checked[name] = known[name].checked(value) if name in known else value
    return FrozenMap(checked)


METHOD_SETTINGS = "method_settings"
"""The ``Assumptions`` field holding the sharing methods' own settings."""


def lift_method_settings(values: Any) -> Any:
    """``Assumptions`` field values (a mapping) with every key that names a method setting moved
    into ``method_settings``: saves written before methods declared their settings held each one
    as a field of its own (``mps_replicas``). Anything but a mapping comes back as it is."""
    if not isinstance(values, Mapping):
        return values
    declared = _declared()
    lifted = {k: v for k, v in values.items() if k not in declared}
    settings = {k: v for k, v in values.items() if k in declared}
    if settings:
        lifted[METHOD_SETTINGS] = {**settings, **dict(values.get(METHOD_SETTINGS) or {})}
    return lifted


def _check(instance: Any) -> None:
    for f in dataclasses.fields(instance):
        if FACT in f.metadata:
            f.metadata[FACT].checked(f.name, getattr(instance, f.name))


class Shortfall(StrEnum):
    """What a plan keeps when the inventory cannot hold every instance (after priority)."""

    INSTANCES = "instances"
    """Serve the most instances: small requests before large ones."""
    GPU_CAPACITY = "gpu-capacity"
    """Allocate the most GPU capacity (whole GPUs and shares of GPUs): large requests first."""


class VgpuMode(StrEnum):
    """How vGPU profiles may be mixed."""

    EQUAL_SIZE = "equal-size"
    """All vGPUs on one physical GPU have one profile (NVIDIA's default)."""
    MIXED_SIZE = "mixed-size"
    """Different sizes on one GPU (vGPU 17+, vSphere 8.0 U3+), with lower maxima."""
    HOST_EQUAL = "host-equal"
    """VMware's 2020 guidance: partial profiles of one size on any one host (conservative)."""


class VgpuScheduler(StrEnum):
    """NVIDIA vGPU time-slice scheduler."""

    BEST_EFFORT = "best-effort"
    EQUAL_SHARE = "equal-share"
    FIXED_SHARE = "fixed-share"


class VsphereVersion(StrEnum):
    """vSphere release; sets how many vGPUs one VM may hold and which may be combined."""

    V7 = "7"
    """Up to 4 vGPUs per VM, full-frame-buffer profiles only."""
    V8 = "8"
    """Up to 8 vGPUs per VM, any C-series profile."""

    @property
    def max_vgpus_per_vm(self) -> int:
        return 4 if self is VsphereVersion.V7 else 8


@dataclass(frozen=True)
class Network:
    """The network between remote-pool clients and GPU servers."""

    latency_us: float = fact(
        20.0, "Latency client to GPU server", "µs",
        "round trip from client VM to GPU server; sets the remote pool's network slowdown "
        "(VMware recommends at most 50 µs, with RDMA)",
        minimum=0.0, maximum=100_000.0, flag="--latency-us",
    )  # fmt: skip
    bandwidth_gbps: float = fact(
        100.0, "Bandwidth per GPU server", "Gbit/s", "network bandwidth of each GPU server",
        minimum=1.0, maximum=3200.0, flag="--bandwidth-gbps",
    )  # fmt: skip
    rdma: bool = fact(
        True, "RDMA / PVRDMA", "yes/no",
        "RDMA between clients and GPU servers; without it the pool's network overhead is higher",
    )  # fmt: skip
    usd_per_server_year: float = fact(
        3000.0, "Network per GPU server", "USD/server/year",
        "NIC, switch port and optics per GPU server, amortised",
        minimum=0.0, maximum=1_000_000.0, guess=True, flag="--network-usd",
    )  # fmt: skip

    def __post_init__(self) -> None:
        _check(self)


@dataclass(frozen=True)
class Assumptions:
    """Inputs of a plan that are not in the inventory or workload files (see the module's
    docstring: each field's ``Fact`` says its unit, meaning and range)."""

    vgpu_mode: VgpuMode = fact(
        VgpuMode.EQUAL_SIZE, "vGPU profile sizes", "choice", "how vGPU profiles may be mixed",
        flag="--vgpu-mode",
    )  # fmt: skip
    vgpu_scheduler: VgpuScheduler = fact(
        VgpuScheduler.BEST_EFFORT, "vGPU scheduler", "choice", "NVIDIA vGPU time-slice scheduler",
        flag="--vgpu-scheduler",
    )  # fmt: skip
    vsphere_version: VsphereVersion = fact(
        VsphereVersion.V8, "vSphere version", "choice",
        "vSphere release: how many vGPUs one VM may hold", flag="--vsphere",
    )  # fmt: skip
    mig_backed_vgpu: bool = fact(
        True, "MIG-backed vGPU", "yes/no",
        "under vSphere, MIG is MIG-backed vGPU and needs an AI Enterprise licence per GPU",
    )  # fmt: skip
    licence_usd_per_gpu_year: float = fact(
        4500.0, "AI Enterprise licence", "USD/GPU/year",
        "NVIDIA AI Enterprise per GPU per year (public list price)",
        minimum=0.0, maximum=100_000.0, flag="--licence-usd",
    )  # fmt: skip
    power_usd_per_kwh: float = fact(
        0.15, "Power", "USD/kWh", "electricity price",
        minimum=0.0, maximum=5.0, guess=True, flag="--power-usd-per-kwh",
    )  # fmt: skip
    pue: float = fact(
        1.5, "PUE", "-", "data-centre power usage effectiveness: facility power over IT power",
        minimum=1.0, maximum=3.0, guess=True, flag="--pue",
    )  # fmt: skip
    amortisation_years: float = fact(
        4.0, "Amortisation", "years", "period over which hardware is written off",
        minimum=1.0, maximum=15.0, flag="--years",
    )  # fmt: skip
    host_usd: float = fact(
        30000.0, "Server without GPUs", "USD/host", "chassis, CPUs, RAM and NICs of one server",
        minimum=0.0, maximum=1_000_000.0, guess=True, flag="--host-usd",
    )  # fmt: skip
    idle_power_share: float = fact(
        0.3, "Idle power", "share of TDP", "share of TDP a GPU draws when idle",
        minimum=0.0, maximum=1.0, guess=True, flag="--idle-power-share",
    )  # fmt: skip
    gpu_price_usd: Mapping[str, float] = field(default_factory=FrozenMap)
    """Per-model price overrides [USD per GPU]; missing models use the catalog price."""
    network: Network = field(default_factory=Network)
    today_method: str = "passthrough"
    """How the estate shares its GPUs today (a method's id: ``passthrough``, ``vgpu``, ...); the
    recommended plan is compared with that single-method plan."""
    max_slowdown: float = fact(
        1.5, "Longest runtime accepted", "x bare metal",
        "longest runtime over bare metal a workload class accepts unless its row sets its own "
        "(1.5 = up to 50 % slower)",
        minimum=1.0, maximum=100.0, guess=True, flag="--max-slowdown",
    )  # fmt: skip
    shortfall: Shortfall = fact(
        Shortfall.INSTANCES, "When capacity is short", "choice",
        "when the inventory cannot hold everything, after priority: serve the most instances "
        "or allocate the most GPU capacity",
        flag="--shortfall",
    )  # fmt: skip
    time_limit_s: float = fact(
        60.0, "Solver time backstop", "s",
        "wall-clock backstop of each exact (MILP) solve; solves stop at a work limit "
        "(branch-and-bound nodes, fewer for bigger models) well before it, so the same inputs "
        "give the same plan on any machine; a solve the clock stops may differ between machines "
        "(its status says solver limit reached)",
        minimum=0.5, maximum=600.0, flag="--time-limit",
    )  # fmt: skip
    performance_constants: Mapping[str, float] = field(default_factory=FrozenMap)
    """Overrides of the slowdown model's constants by name (``CONSTANTS`` of
    ``planner.measure.performance``, each in that constant's unit); missing names use the
    model's default. Each value is checked against its constant's range when built; an unknown
    name is refused by ``with_facts`` and when the models run."""
    method_settings: Mapping[str, Any] = field(default_factory=FrozenMap)
    """The sharing methods' own settings by name (``mps_replicas``), each declared with its
    ``Fact`` in its method's module (``SharingMethod.own_settings``); every one is present once
    built (missing names take their default), and a name no method declares is refused."""

    def with_facts(self, values: Mapping[str, Any]) -> Assumptions:
        """A copy with assumptions set by dotted name (``pue``, ``network.latency_us``, a method
        setting's name such as ``mps_replicas``, or any field's name), each checked against its
        ``Fact`` (a performance constant against its model constant, its name too);
        ``ValueError`` names the first one out of range."""
        constants = _model_constants()
        unknown = sorted(set(values.get("performance_constants") or {}) - set(constants))
        if unknown:
            raise ValueError(
                f"unknown performance constant {unknown[0]!r}; known constants: "
                f"{', '.join(constants)}"
            )
        declared = _declared()
        nested: dict[str, dict[str, Any]] = {}
        top: dict[str, Any] = {}
        settings: dict[str, Any] = {}
        for name, value in values.items():
            outer, dot, inner = name.partition(".")
            if name in declared:
                settings[name] = value
            elif dot:
                nested.setdefault(outer, {})[inner] = value
            else:
                top[name] = value
        for outer, changes in nested.items():
            top[outer] = dataclasses.replace(getattr(self, outer), **changes)
        if settings:
            top[METHOD_SETTINGS] = {**top.get(METHOD_SETTINGS, self.method_settings), **settings}
        return dataclasses.replace(self, **top)

    def by_name(self) -> dict[str, Any]:
        """Every value ``with_facts`` sets, by its name there: each fact (``facts``) and each
        field without one (``gpu_price_usd``, ``today_method``, ...)."""
        values = {name: value for name, _, value in facts(self)}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            opened = dataclasses.is_dataclass(value) or f.name == METHOD_SETTINGS
            if FACT not in f.metadata and not opened:
                values[f.name] = value
        return values

    def __post_init__(self) -> None:
        _check(self)
        declared = _declared()
        unknown = sorted(set(self.method_settings) - set(declared))
        if unknown:
            raise ValueError(
                f"no sharing method has a setting {', '.join(unknown)}; the settings are "
                f"{', '.join(declared)}"
            )
        chosen = self.method_settings
        settings = {n: s.read(chosen.get(n, s.default)) for n, s in declared.items()}
        object.__setattr__(self, METHOD_SETTINGS, FrozenMap(settings))
        prices = self.gpu_price_usd
        object.__setattr__(
            self, "gpu_price_usd", prices if isinstance(prices, FrozenMap) else FrozenMap(prices)
        )
        object.__setattr__(
            self, "performance_constants", _checked_constants(self.performance_constants)
        )
        for model, price in self.gpu_price_usd.items():
            if not math.isfinite(price) or price < 0:
                raise ValueError(
                    f"assumption gpu_price_usd[{model}] must be a finite number of at least 0 "
                    f"[USD/GPU], got {price!r}"
                )
