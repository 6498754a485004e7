"""GPU Share Planner: pack workloads onto shared GPUs under every sharing method, and compare.

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
from planner.inputs.catalog import Catalog, GpuModel, MigProfile, VgpuProfile, load_catalog
from planner.inputs.inventory import Host, Inventory, ServerType, load_inventory
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.workloads import WorkloadClass, WorkloadKind, load_workloads
from planner.measure.result import MethodResult
from planner.methods.registry import METHODS, Method
from planner.output.export import workbook_bytes, write_workbook
from planner.output.report import ScenarioPlan, plan_scenario, size_cluster
from planner.plan import MethodPlan, NotPlaced, Placement, SolveStatus
from planner.scenario import Scenario
from planner.solve.feasibility import check_plan
from planner.solve.packing import plan_method, size_method
from planner.time.harvesting import HarvestResult, HarvestSettings, harvest_scenario

__all__ = [
    "METHODS",
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
