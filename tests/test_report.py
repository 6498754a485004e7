"""Tests of report: scenario plans measured, and frames with documented columns."""

from __future__ import annotations

import dataclasses
import math

import pytest

from planner.inputs.inventory import ServerType
from planner.inputs.workloads import WorkloadKind
from planner.measure.costs import COST_COMPONENTS
from planner.methods.registry import Method
from planner.output.report import (
    COMPARISON_COLUMNS,
    ScenarioPlan,
    assemble,
    comparison_frame,
    cost_frame,
    not_placed_frame,
    placement_frame,
    plan_scenario,
    size_cluster,
    slowdown_frame,
    utilisation_frame,
)
from planner.scenario import Scenario
from tests.report_fixtures import (
    NIGHT,
    OFFICE,
    host,
    notebook_plans,
    notebooks,
    place,
    plan,
    scenario,
    workload,
)


@pytest.fixture(scope="module")
def notebook_plan() -> ScenarioPlan:
    return assemble(notebooks(), notebook_plans())


def test_comparison_has_one_row_per_method_and_documented_columns(
    notebook_plan: ScenarioPlan,
) -> None:
    """The comparison has one row per planned method and exactly the documented columns."""
    frame = comparison_frame(notebook_plan)
    assert list(frame.columns) == list(COMPARISON_COLUMNS)
    assert list(frame["method"]) == ["passthrough", "vgpu", "mig"]
    by_method = frame.set_index("method")
    assert by_method.loc["passthrough", "gpus_used"] == 4
    assert by_method.loc["vgpu", "gpus_used"] == 1
    assert by_method.loc["mig", "not_placed"] == 1
    assert by_method.loc["vgpu", "ratio_to_bound"] == pytest.approx(1.0)
    # Passthrough: 4 GPUs bought where vGPU needs 1, so it costs more per instance.
    assert (
        by_method.loc["passthrough", "usd_per_instance_year"]
        > by_method.loc["vgpu", "usd_per_instance_year"]
    )
    assert by_method.loc["passthrough", "mean_slowdown"] == pytest.approx(1.0)


def test_placement_and_not_placed_frames(notebook_plan: ScenarioPlan) -> None:
    """Placements list one row per instance per GPU; not placed rows carry the reason."""
    mig = notebook_plan.result(Method.MIG)
    placements = placement_frame(mig)
    assert len(placements) == 3
    assert set(placements["profile"]) == {"2g.20gb"}
    missing = not_placed_frame(mig)
    assert list(missing["instance"]) == ["nb#4"]
    assert "2g.20gb" in missing.loc[0, "reason"]
    assert not_placed_frame(notebook_plan.result(Method.VGPU)).empty


def test_cost_frame_is_long_form_summing_to_totals(notebook_plan: ScenarioPlan) -> None:
    """The cost frame has one row per method and component, summing to each method's total."""
    frame = cost_frame(notebook_plan)
    assert len(frame) == 3 * len(COST_COMPONENTS)
    totals = frame.groupby("method")["usd_per_year"].sum()
    for result in notebook_plan.results:
        assert totals[result.method.value] == pytest.approx(result.cost.total_usd_per_year)


def test_pool_gpu_utilisation_counts_its_busiest_hour() -> None:
    """A day job and a night job sharing one pooled 80 GiB GPU hold 40 GiB at any hour: the GPU's
    memory utilisation is 0.5, not the 1.0 a sum over the day would claim."""
    day = workload("day", gpus=0.5, memory_gib=40.0, schedule=OFFICE)
    night = workload("night", gpus=0.5, memory_gib=40.0, schedule=NIGHT)
    pooled = plan(
        Method.REMOTE_POOL,
        [place("day#1", "h1", 0, memory_gib=40.0), place("night#1", "h1", 0, memory_gib=40.0)],
    )
    (row,) = utilisation_frame(assemble(scenario([day, night]), [pooled])).to_dict("records")
    assert row["memory_used_gib"] == pytest.approx(40.0)
    assert row["memory_utilisation"] == pytest.approx(0.5)


def test_utilisation_frame_per_gpu(notebook_plan: ScenarioPlan) -> None:
    """Utilisation has one row per GPU in use; vGPU's single GPU holds all four notebooks."""
    frame = utilisation_frame(notebook_plan)
    assert (frame["method"] == "passthrough").sum() == 4
    vgpu = frame[frame["method"] == "vgpu"].iloc[0]
    assert vgpu["instances"] == 4
    assert vgpu["memory_utilisation"] == pytest.approx(1.0)
    assert 0.0 < vgpu["compute_utilisation"] <= 1.0


def test_slowdown_frame_names_workload_and_method(notebook_plan: ScenarioPlan) -> None:
    """Slowdowns are listed per workload and method, time-sliced vGPU slower than passthrough."""
    frame = slowdown_frame(notebook_plan).set_index("method")
    assert frame.loc["vgpu", "slowdown"] > frame.loc["passthrough", "slowdown"]


def test_result_lookup_names_missing_method(notebook_plan: ScenarioPlan) -> None:
    """Asking for a method that was not planned raises KeyError naming it."""
    with pytest.raises(KeyError, match="remote-pool"):
        notebook_plan.result(Method.REMOTE_POOL)


def test_empty_plan_gives_nan_not_errors() -> None:
    """A method that places nothing reports NaN cost per instance and slowdown, not a crash."""
    s = scenario([workload("x")])
    frame = comparison_frame(assemble(s, [plan(Method.MIG, [], lower_bound_gpus=0)]))
    assert math.isnan(frame.loc[0, "usd_per_instance_year"])
    assert math.isnan(frame.loc[0, "mean_slowdown"])
    assert frame.loc[0, "usd_per_year"] == 0.0


def _real_scenario() -> Scenario:
    """A small mix on two 4-GPU H100 hosts, planned with the bundled catalog."""
    from planner.inputs.catalog import load_catalog
    from planner.inputs.inventory import Inventory

    catalog = load_catalog()
    hosts = tuple(dataclasses.replace(host(f"h{i}"), gpu_model="H100-80GB-PCIe") for i in (1, 2))
    mix = (
        workload(
            "nb",
            kind=WorkloadKind.NOTEBOOK,
            instances=6,
            gpus=0.25,
            memory_gib=10.0,
            busy_fraction=0.2,
            vcpus=4.0,
            ram_gib=32.0,
        ),
        workload("train", instances=2, gpus=1.0, memory_gib=60.0, busy_fraction=0.9),
        workload(
            "svc",
            kind=WorkloadKind.INFERENCE,
            instances=2,
            gpus=0.5,
            memory_gib=20.0,
            busy_fraction=0.5,
            needs_live_migration=True,
            latency_tolerant=False,
        ),
    )
    return Scenario(catalog=catalog, inventory=Inventory(hosts=hosts), workloads=mix)


def test_plan_scenario_runs_every_method_and_passes_the_checker() -> None:
    """plan_scenario plans all four methods; each plan passes the shared feasibility checker."""
    sp = plan_scenario(_real_scenario())
    assert sp.methods == tuple(Method)
    assert sp.question == "fit"
    for result in sp.results:
        assert result.feasibility_violations == (), result.method
        assert result.metrics.gpus_used <= 8
    # Passthrough cannot take the live-migrating service; its instances are listed as not placed.
    passthrough = not_placed_frame(sp.result(Method.PASSTHROUGH))
    assert set(passthrough["workload"]) >= {"svc"}


def test_size_cluster_opens_servers_of_the_type() -> None:
    """size_cluster counts servers of the given type; every plan uses only those hosts and
    places every instance its method may serve."""
    server = ServerType(gpu_model="H100-80GB-PCIe", gpus=4, cpu_cores=64.0, ram_gib=512.0)
    sp = size_cluster(_real_scenario(), server, methods=(Method.VGPU, Method.MIG))
    assert sp.question == "size"
    assert sp.server == server
    for result in sp.results:
        assert result.feasibility_violations == (), result.method
        # The engine treats MIG-backed vGPU as not live-migratable, so only 'svc' may be left out.
        assert {n.workload for n in result.plan.not_placed} <= (
            {"svc"} if result.method is Method.MIG else set()
        )
        assert {p.host for p in result.plan.placements} <= {h.name for h in result.plan.hosts}


def test_a_sized_method_that_opens_no_server_has_no_gpus_available() -> None:
    """Sizing measures each plan on the servers it opened: MIG on a server without MIG opens
    none, so it has 0 GPUs available, not the inventory's."""
    server = ServerType(gpu_model="L40S", gpus=4, cpu_cores=64.0, ram_gib=512.0)
    sp = size_cluster(_real_scenario(), server, methods=(Method.MIG, Method.VGPU))
    mig, vgpu = sp.singles
    assert mig.plan.hosts == ()
    assert mig.metrics.gpus_available == 0
    assert vgpu.metrics.gpus_available == server.gpus * len(vgpu.plan.hosts) > 0


def test_heuristic_only_plan_is_never_worse_than_its_bound() -> None:
    """exact=False plans with the heuristic alone; its plans pass the checker and the bound."""
    sp = plan_scenario(_real_scenario(), methods=(Method.VGPU, Method.MIG), exact=False)
    for result in sp.results:
        assert result.feasibility_violations == ()
        assert result.metrics.gpus_used >= result.metrics.lower_bound_gpus


def test_sizing_with_several_server_types_buys_what_the_plan_opens() -> None:
    """Given two server types, each method's plan is its better sizing, the recommended plan
    may mix types, and its purchase counts exactly the servers it opened, priced with their
    GPUs; the cheaper of one-type sizings is never beaten on service by the mix."""
    from planner.output.recommendations import Purchase

    pcie = ServerType(gpu_model="H100-80GB-PCIe", gpus=4, cpu_cores=64.0, ram_gib=512.0, name="p")
    l40s = ServerType(
        gpu_model="L40S", gpus=4, cpu_cores=64.0, ram_gib=512.0, mig_enabled=False, name="l"
    )
    scenario = _real_scenario()
    both = size_cluster(scenario, (pcie, l40s), methods=(Method.VGPU, Method.PASSTHROUGH))
    assert both.servers == (pcie, l40s)
    for result in both.results:
        assert result.feasibility_violations == (), result.label
    for method in (Method.VGPU, Method.PASSTHROUGH):
        alone = [
            size_cluster(scenario, s, methods=(method,), recommended=False).result(method)
            for s in (pcie, l40s)
        ]
        best = both.result(method)
        assert best.cost.total_usd_per_year == min(
            r.cost.total_usd_per_year
            for r in alone
            if r.metrics.instances_placed == best.metrics.instances_placed
        )
    recommended = both.recommended
    assert recommended is not None
    opened = recommended.result.plan.hosts
    assert sum(p.count for p in recommended.purchase) == len(opened)
    assert all(isinstance(p, Purchase) and p.count > 0 for p in recommended.purchase)
    for p in recommended.purchase:
        gpu_price = scenario.catalog.gpus[p.server.gpu_model].price_usd
        assert p.unit_price_usd == scenario.assumptions.host_usd + 4 * gpu_price
    assert recommended.headline().startswith("Buy ")
