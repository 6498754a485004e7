"""What a plan costs per year: amortised hardware, licences, power and remote-pool network."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from planner.inputs.inventory import Host
from planner.measure.metrics import gpu_compute_utilisation, hosts_of, placements_by_gpu
from planner.methods.contract import GpuKey
from planner.methods.registry import METHODS, Method
from planner.plan import MethodPlan
from planner.scenario import Scenario

__all__ = [
    "COST_COMPONENTS",
    "HOURS_PER_YEAR",
    "AnnualRates",
    "CostBreakdown",
    "OwnedRates",
    "amortised_usd_per_year",
    "gpu_power_w",
    "gpu_usd_per_year",
    "plan_cost",
    "power_usd_per_year",
    "server_price_usd",
    "workload_usd_per_instance_year",
]

HOURS_PER_YEAR = 8760.0
"""Hours in a (non-leap) year [h]."""

COST_COMPONENTS = ("hardware", "licences", "power", "network")
"""The parts of ``CostBreakdown``, in the order charts stack them."""


@dataclass(frozen=True)
class CostBreakdown:
    """Annual cost of one plan, by component."""

    plan: str
    """The plan's id (``MethodPlan.name``): a method, or ``recommended``."""
    hardware_usd_per_year: float
    """GPUs and hosts in use, purchase price spread over the amortisation period [USD/year]."""
    licences_usd_per_year: float
    """Software licences per GPU in use, where its method needs one (NVIDIA AI Enterprise for
    vGPU) [USD/year]."""
    power_usd_per_year: float
    """Electricity of the GPUs in use, including cooling via PUE [USD/year]."""
    network_usd_per_year: float
    """Network per host in use, where its method needs one (a remote pool's GPU servers)
    [USD/year]."""
    instances_placed: int
    """Instances the cost serves [instances]."""
    notes: tuple[str, ...] = ()
    """What the figures leave out or assume, in plain words."""
    busy_power_usd_per_year: float = 0.0
    """The part of ``power_usd_per_year`` drawn above idle by the work the GPUs do [USD/year]:
    it follows the work served more than the plan, so the recommended plan's bound leaves it
    out."""

    @property
    def total_usd_per_year(self) -> float:
        """Sum of all components [USD/year]."""
        return (
            self.hardware_usd_per_year
            + self.licences_usd_per_year
            + self.power_usd_per_year
            + self.network_usd_per_year
        )

    @property
    def usd_per_instance_year(self) -> float | None:
        """Total over placed instances [USD per instance per year]; None when none is placed."""
        if self.instances_placed == 0:
            return None
        return self.total_usd_per_year / self.instances_placed

    def component_usd_per_year(self, component: str) -> float:
        """One component of ``COST_COMPONENTS`` by name [USD/year]."""
        values = {
            "hardware": self.hardware_usd_per_year,
            "licences": self.licences_usd_per_year,
            "power": self.power_usd_per_year,
            "network": self.network_usd_per_year,
        }
        return values[component]


def amortised_usd_per_year(purchase_usd: float, amortisation_years: float) -> float:
    """Straight-line write-off of a purchase [USD/year].

    Parameters: ``purchase_usd`` price paid [USD]; ``amortisation_years`` period [years], > 0.
    """
    if amortisation_years <= 0:
        raise ValueError(f"amortisation_years must be positive, got {amortisation_years}")
    return purchase_usd / amortisation_years


def gpu_power_w(tdp_w: float, utilisation: float, idle_power_share: float) -> float:
    """Average electrical draw of one GPU [W]: ``TDP × (idle + (1 − idle) × utilisation)``.

    Parameters: ``tdp_w`` board power [W]; ``utilisation`` busy share of the time [0-1];
    ``idle_power_share`` share of TDP drawn when idle [0-1].
    """
    return tdp_w * (idle_power_share + (1.0 - idle_power_share) * utilisation)


def power_usd_per_year(power_w: float, pue: float, usd_per_kwh: float) -> float:
    """Electricity bill of a constant IT load, cooling included [USD/year].

    ``power_w × PUE × 8,760 h / 1,000 × usd_per_kwh``. Parameters: ``power_w`` average IT draw
    [W]; ``pue`` power usage effectiveness [-]; ``usd_per_kwh`` electricity price [USD/kWh].
    """
    return power_w * pue * HOURS_PER_YEAR / 1000.0 * usd_per_kwh


def _gpu_price_usd(scenario: Scenario, gpu_model: str) -> float:
    """Price of one GPU [USD]: the user's override, else the catalog's."""
    override = scenario.assumptions.gpu_price_usd.get(gpu_model)
    return override if override is not None else scenario.catalog.gpus[gpu_model].price_usd


def server_price_usd(scenario: Scenario, gpu_model: str, gpus: int) -> float:
    """Purchase price of one server: the host without GPUs, plus its GPUs [USD]."""
    return scenario.assumptions.host_usd + gpus * _gpu_price_usd(scenario, gpu_model)


def _host_roles(plan: MethodPlan) -> dict[str, set[Method]]:
    """Hosts in use -> the methods of their GPUs in use."""
    roles: dict[str, set[Method]] = defaultdict(set)
    for key in placements_by_gpu(plan):
        roles[key[0]].add(plan.role(key))
    return roles


def gpu_usd_per_year(plan: MethodPlan, scenario: Scenario) -> dict[GpuKey, float]:
    """Annual cost of every GPU in use, its host's cost shared among the host's GPUs in use.

    The per-GPU figures sum to ``plan_cost(plan, scenario).total_usd_per_year``; they let a
    workload's share of the cost be read off the GPUs it sits on [USD/year].
    """
    a = scenario.assumptions
    groups = placements_by_gpu(plan)
    utilisation = gpu_compute_utilisation(plan, scenario)
    hosts = {h.name: h for h in hosts_of(plan, scenario)}
    gpus_on_host: dict[str, int] = defaultdict(int)
    for host, _ in groups:
        gpus_on_host[host] += 1
    costs: dict[GpuKey, float] = {}
    for key, placements in groups.items():
        gpu_host = hosts[key[0]]
        rules = METHODS[plan.role(key)]
        model = scenario.catalog.gpus[placements[0].gpu_model]
        hardware = amortised_usd_per_year(
            _gpu_price_usd(scenario, model.name) + a.host_usd / gpus_on_host[gpu_host.name],
            a.amortisation_years,
        )
        power = power_usd_per_year(
            gpu_power_w(model.tdp_w, utilisation[key], a.idle_power_share),
            a.pue,
            a.power_usd_per_kwh,
        )
        licence = rules.licence_usd_per_gpu_year(gpu_host, a)
        network = rules.network_usd_per_host_year(a) / gpus_on_host[gpu_host.name]
        costs[key] = hardware + licence + power + network
    return costs


def plan_cost(
    plan: MethodPlan, scenario: Scenario, utilisation: Mapping[GpuKey, float] | None = None
) -> CostBreakdown:
    """Annual cost of a plan: only the GPUs and hosts it uses are charged (``utilisation``: the
    plan's ``gpu_compute_utilisation``, when already worked out).

    - hardware: ``(Σ GPU price + host_usd × hosts used) / amortisation_years``
    - licences: each GPU's method's licence per GPU (NVIDIA AI Enterprise for vGPU, and for
      MIG-backed vGPU on vSphere)
    - power: ``Σ TDP × (idle + (1 − idle) × u_gpu) × PUE × 8,760 h × USD/kWh``, ``u_gpu`` the
      GPU's week-averaged compute utilisation
    - network: each host's method's network cost per host (a remote pool's GPU servers)
    """
    a = scenario.assumptions
    groups = placements_by_gpu(plan)
    if utilisation is None:
        utilisation = gpu_compute_utilisation(plan, scenario)
    hosts = {h.name: h for h in hosts_of(plan, scenario)}
    host_roles = _host_roles(plan)
    gpu_purchase = 0.0
    power = 0.0
    idle = 0.0
    licences = 0.0
    for key, placements in groups.items():
        model = scenario.catalog.gpus[placements[0].gpu_model]
        gpu_purchase += _gpu_price_usd(scenario, model.name)
        power += power_usd_per_year(
            gpu_power_w(model.tdp_w, utilisation[key], a.idle_power_share),
            a.pue,
            a.power_usd_per_kwh,
        )
        idle += power_usd_per_year(
            gpu_power_w(model.tdp_w, 0.0, a.idle_power_share), a.pue, a.power_usd_per_kwh
        )
        licences += METHODS[plan.role(key)].licence_usd_per_gpu_year(hosts[key[0]], a)
    hardware = amortised_usd_per_year(
        gpu_purchase + a.host_usd * len(host_roles), a.amortisation_years
    )
    network = 0.0
    notes: list[str] = []
    for roles in host_roles.values():
        network += sum(METHODS[role].network_usd_per_host_year(a) for role in roles)
    for method in dict.fromkeys(plan.role(key) for key in groups):
        notes.extend(n for n in METHODS[method].cost_notes(a) if n not in notes)
    defaults = sorted(
        {
            p.gpu_model
            for p in plan.placements
            if p.gpu_model not in a.gpu_price_usd
            and scenario.catalog.gpus[p.gpu_model].price_is_default
        }
    )
    if defaults:
        notes.append(
            "GPU prices are street-price defaults for " + ", ".join(defaults) + "; edit them."
        )
    return CostBreakdown(
        plan=plan.name,
        hardware_usd_per_year=hardware,
        licences_usd_per_year=licences,
        power_usd_per_year=power,
        network_usd_per_year=network,
        instances_placed=len({p.instance for p in plan.placements}),
        notes=tuple(notes),
        busy_power_usd_per_year=power - idle,
    )


def workload_usd_per_instance_year(plan: MethodPlan, scenario: Scenario) -> dict[str, float]:
    """Each workload class's share of the plan's cost, per placed instance [USD/year].

    Every GPU's annual cost (``gpu_usd_per_year``) is split among the instances on it in
    proportion to the memory each reserves, so the shares of all classes sum to the total.
    """
    per_gpu = gpu_usd_per_year(plan, scenario)
    share_usd: dict[str, float] = defaultdict(float)
    instances: dict[str, set[str]] = defaultdict(set)
    for key, placements in placements_by_gpu(plan).items():
        reserved = sum(p.memory_gib for p in placements)
        for p in placements:
            weight = p.memory_gib / reserved if reserved > 0 else 1.0 / len(placements)
            share_usd[p.workload] += per_gpu[key] * weight
            instances[p.workload].add(p.instance)
    return {name: usd / len(instances[name]) for name, usd in share_usd.items()}


@dataclass(frozen=True)
class AnnualRates:
    """What one GPU and one host cost per year under a role, by the formulas of ``plan_cost``:
    the rates the recommended plan's MILP minimises. Busy power is left out (a GPU's utilisation
    is known only once it is packed); idle power is in."""

    scenario: Scenario

    def gpu_usd_per_year(self, method: Method, host: Host) -> float:
        """Price over the amortisation period, the method's licence and idle power [USD/year]."""
        a = self.scenario.assumptions
        model = self.scenario.catalog.gpus[host.gpu_model]
        hardware = amortised_usd_per_year(
            _gpu_price_usd(self.scenario, model.name), a.amortisation_years
        )
        idle = power_usd_per_year(
            gpu_power_w(model.tdp_w, 0.0, a.idle_power_share), a.pue, a.power_usd_per_kwh
        )
        return hardware + METHODS[method].licence_usd_per_gpu_year(host, a) + idle

    def host_usd_per_year(self, host: Host) -> float:
        """A host without its GPUs, over the amortisation period [USD/year]."""
        a = self.scenario.assumptions
        return amortised_usd_per_year(a.host_usd, a.amortisation_years)

    def network_usd_per_host_year(self, method: Method, host: Host) -> float:
        """The network a host-wide ``method`` needs per host [USD/year]."""
        return METHODS[method].network_usd_per_host_year(self.scenario.assumptions)


@dataclass(frozen=True)
class OwnedRates:
    """``AnnualRates`` for planning on top of hosts already owned: an owned host and its GPUs
    cost no purchase, so only their licences, idle power and network count; other hosts (servers
    to buy) keep their amortised price. The MILP then fills what is owned before it buys."""

    scenario: Scenario
    owned: frozenset[str]
    """Names of the hosts already owned."""

    def gpu_usd_per_year(self, method: Method, host: Host) -> float:
        """As ``AnnualRates``, without the GPU's price on an owned host [USD/year]."""
        rate = AnnualRates(self.scenario).gpu_usd_per_year(method, host)
        if host.name not in self.owned:
            return rate
        a = self.scenario.assumptions
        price = _gpu_price_usd(self.scenario, host.gpu_model)
        return rate - amortised_usd_per_year(price, a.amortisation_years)

    def host_usd_per_year(self, host: Host) -> float:
        """An owned host costs nothing more per year; a server to buy its amortised price."""
        if host.name in self.owned:
            return 0.0
        return AnnualRates(self.scenario).host_usd_per_year(host)

    def network_usd_per_host_year(self, method: Method, host: Host) -> float:
        """The network a host-wide ``method`` needs per host [USD/year]."""
        return AnnualRates(self.scenario).network_usd_per_host_year(method, host)
