"""What the Kubernetes methods share: whole nodes, Kubernetes only, the licence setting, the
sample's Kubernetes cluster."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from planner.assumptions import Assumptions
from planner.inputs.inventory import load_inventory
from planner.inputs.platform import Platform
from planner.inputs.workloads import load_workloads
from planner.measure.costs import plan_cost
from planner.measure.performance import CONSTANTS
from planner.methods.contract import RoleScope
from planner.methods.k8s_mig import MigStrategy
from planner.methods.kubernetes import AI_ENTERPRISE, KubernetesMethod
from planner.methods.registry import METHODS, Method, host_reason, methods_for
from planner.output.report import plan_scenario
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method
from tests.k8s_fixtures import CATALOG, hand_plan, node, pod, row, scenario

ROOT = Path(__file__).resolve().parent.parent
KUBERNETES = [m for m in Method if isinstance(METHODS[m], KubernetesMethod)]


@pytest.mark.parametrize("method", KUBERNETES)
def test_kubernetes_methods_set_up_whole_nodes_of_kubernetes(method: Method) -> None:
    """The device plugin configures every GPU of a node alike: each Kubernetes method sets up
    whole hosts, runs on Kubernetes only, and counts its pods' CPU and RAM on their node."""
    rules = METHODS[method]
    assert isinstance(rules, KubernetesMethod)
    assert rules.scope is RoleScope.HOST
    assert rules.platforms == {Platform.KUBERNETES}
    assert rules.instances_on_gpu_host
    assert method in methods_for(Platform.KUBERNETES)
    assert method not in methods_for(Platform.VSPHERE)


@pytest.mark.parametrize("method", list(Method))
def test_every_setting_a_method_reads_is_an_assumption(method: Method) -> None:
    """Each method's ``settings`` name fields of ``Assumptions`` or settings it declares, and
    each setting it declares is in every ``Assumptions`` with its default."""
    rules = METHODS[method]
    fields = {f.name for f in dataclasses.fields(Assumptions)}
    assert set(rules.settings) <= fields | {s.name for s in rules.own_settings}
    for declared in rules.own_settings:
        assert declared.of(Assumptions()) == declared.default


@pytest.mark.parametrize("method", KUBERNETES)
def test_slowdown_constants_are_sourced_and_overridable(method: Method) -> None:
    """Each constant has a unit, a source and a meaning, and is known to the performance model
    by its name (so the user can override it)."""
    for constant in METHODS[method].constants:
        assert constant.unit
        assert constant.source
        assert constant.meaning
        assert CONSTANTS[constant.name] is constant


def _needs_mig(method: Method) -> bool:
    """Whether the method sets up nodes with MIG mode on (else off)."""
    return host_reason(method, node("probe", mig=True), CATALOG) is None


def _placed_plan(method: Method, assumptions: Assumptions) -> tuple[Scenario, int]:
    """Eight small pods on nodes with MIG on or off, as the method needs: the plan's scenario
    and GPUs used."""
    mig = _needs_mig(method)
    case = scenario(
        [pod("p", instances=8, gpus=0.1, memory_gib=8)],
        [node("k1", mig=mig), node("k2", mig=mig)],
        assumptions,
    )
    plan = plan_method(method, case)
    assert check_plan(plan, case) == []
    return case, len(plan.gpu_configs)


@pytest.mark.parametrize("method", KUBERNETES)
def test_no_licence_by_default_and_ai_enterprise_when_set(method: Method) -> None:
    """By default no licence is charged (open-source device plugin), with a note saying so;
    with ``kubernetes_ai_enterprise`` each GPU in use pays ``licence_usd_per_gpu_year``."""
    free = Assumptions()
    case, gpus = _placed_plan(method, free)
    cost = plan_cost(plan_method(method, case), case)
    assert cost.licences_usd_per_year == 0.0
    assert any("kubernetes_ai_enterprise" in n for n in cost.notes)
    paid = Assumptions(licence_usd_per_gpu_year=4000.0).with_facts({AI_ENTERPRISE.name: True})
    case, gpus = _placed_plan(method, paid)
    cost = plan_cost(plan_method(method, case), case)
    assert cost.licences_usd_per_year == pytest.approx(4000.0 * gpus)
    assert not any("kubernetes_ai_enterprise" in n for n in cost.notes)


def test_a_node_set_up_by_the_device_plugin_holds_no_other_role() -> None:
    """Time-slicing on GPU 0 and passthrough on GPU 1 of one node is refused: the device
    plugin's sharing configuration covers every GPU of the node."""
    case = scenario([pod("a", gpus=0.5, memory_gib=10), pod("b", gpus=1, memory_gib=40)])
    rows = [row("a#1", gpu=0), row("b#1", gpu=1, profile="whole GPU", memory_gib=40)]
    roles = {("k1", 0): Method.K8S_TIME_SLICING, ("k1", 1): Method.PASSTHROUGH}
    problems = check_plan(hand_plan(None, rows, roles=roles), case)
    assert any("mixes roles" in p and "k1" in p for p in problems), problems


def test_every_kubernetes_method_places_part_of_the_sample_on_its_cluster() -> None:
    """On the sample, each Kubernetes method places pods on the Kubernetes nodes only (MIG on
    the MIG-on nodes, time-slicing and MPS on the MIG-off ones), feasibly, and not all."""
    inventory = load_inventory(ROOT / "data" / "sample" / "inventory.csv", CATALOG).value
    workloads = load_workloads(ROOT / "data" / "sample" / "workloads.csv", CATALOG).value
    plan = plan_scenario(Scenario(CATALOG, inventory, workloads), methods=KUBERNETES)
    hosts = {h.name: h for h in inventory.hosts}
    for result in plan.singles:
        method = result.plan.method
        placed = result.plan.placements
        assert placed, method
        assert result.plan.not_placed, method
        assert result.feasibility_violations == (), method
        nodes = {hosts[p.host] for p in placed}
        assert {h.platform for h in nodes} == {Platform.KUBERNETES}, method
        assert {h.mig_enabled for h in nodes} == {_needs_mig(method)}, method


@pytest.mark.parametrize("strategy", list(MigStrategy))
def test_the_recommended_plan_mixes_the_kubernetes_methods_by_node(strategy: MigStrategy) -> None:
    """On a Kubernetes cluster (one MIG node of 2 GPUs, two MIG-off nodes), the recommended plan
    puts isolated pods on MIG devices (the only shared method that isolates), small pods on MPS
    (7 replicas per GPU against 2 time-slices) and pods too big for an MPS replica on
    time-slicing; each node holds one method, and the plan passes the checker, under either MIG
    strategy. Fractional GPUs are left out: they would serve every pod here."""
    pods = [
        pod("iso", instances=14, gpus=0.1, memory_gib=8, needs_isolation=True),
        pod("small", instances=28, gpus=0.1, memory_gib=8),
        pod("big", instances=8, gpus=0.1, memory_gib=30),
    ]
    nodes = [node("kmig", gpus=2, mig=True), node("ks1"), node("ks2")]
    assumptions = Assumptions().with_facts(
        {"time_slicing_replicas": 2, "mps_replicas": 7, "kubernetes_mig_strategy": strategy}
    )
    case = scenario(pods, nodes, assumptions)
    plan = plan_scenario(case, methods=tuple(m for m in Method if m is not Method.FRACTIONAL))
    assert plan.recommended is not None
    result = plan.recommended.result
    assert result.plan.not_placed == ()
    assert result.feasibility_violations == ()
    mix = result.plan
    role_of = {(p.workload, mix.roles[(p.host, p.gpu_index)]) for p in mix.placements}
    assert role_of == {
        ("iso", Method.K8S_MIG),
        ("small", Method.K8S_MPS),
        ("big", Method.K8S_TIME_SLICING),
    }
    by_node: dict[str, set[Method]] = {}
    for key, method in mix.roles.items():
        by_node.setdefault(key[0], set()).add(method)
    assert all(len(methods) == 1 for methods in by_node.values())
    assert len(mix.gpu_configs) == 2 + 4 + 4
