"""GPU Share Planner: pack workloads onto GPUs under passthrough, vGPU, MIG and a remote pool.

The public API, in the order a plan is made::

    import planner
    catalog = planner.load_catalog()
    inventory = planner.load_inventory("hosts.csv", catalog).value
    workloads = planner.load_workloads("mix.csv", catalog).value
    scenario = planner.Scenario(catalog, inventory, workloads, planner.Assumptions())
    plan = planner.plan_scenario(scenario)           # or planner.size_cluster(scenario, server)
    planner.write_workbook(plan, "plan.xlsx")
"""

from planner.assumptions import Assumptions, Network, VgpuMode, VgpuScheduler, VsphereVersion
from planner.catalog import Catalog, GpuModel, MigProfile, VgpuProfile, load_catalog
from planner.export import workbook_bytes, write_workbook
from planner.feasibility import check_plan
from planner.harvesting import HarvestResult, HarvestSettings, harvest_scenario
from planner.inventory import Host, Inventory, ServerType, load_inventory
from planner.packing import plan_method, size_method
from planner.plan import Method, MethodPlan, NotPlaced, Placement, SolveStatus
from planner.problems import InputError, InputProblem, Loaded
from planner.report import MethodResult, ScenarioPlan, plan_scenario, size_cluster
from planner.scenario import Scenario
from planner.workloads import WorkloadClass, WorkloadKind, load_workloads

__all__ = [
    "Assumptions",
    "Catalog",
    "GpuModel",
    "HarvestResult",
    "HarvestSettings",
    "Host",
    "InputError",
    "InputProblem",
    "Inventory",
    "Loaded",
    "Method",
    "MethodPlan",
    "MethodResult",
    "MigProfile",
    "Network",
    "NotPlaced",
    "Placement",
    "Scenario",
    "ScenarioPlan",
    "ServerType",
    "SolveStatus",
    "VgpuMode",
    "VgpuProfile",
    "VgpuScheduler",
    "VsphereVersion",
    "WorkloadClass",
    "WorkloadKind",
    "check_plan",
    "harvest_scenario",
    "load_catalog",
    "load_inventory",
    "load_workloads",
    "plan_method",
    "plan_scenario",
    "size_cluster",
    "size_method",
    "workbook_bytes",
    "write_workbook",
]
