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

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Each public name is imported from its module on first use, so that importing one part of the
# planner (a loader, the packer) does not load the rest: the workbook writer (openpyxl), the
# importers and harvesting are slow to import and a first page does not need them.
_HOME: dict[str, str] = {
    "Assumptions": "planner.assumptions",
    "Catalog": "planner.inputs.catalog",
    "GpuModel": "planner.inputs.catalog",
    "HarvestResult": "planner.time.harvesting",
    "HarvestSettings": "planner.time.harvesting",
    "Host": "planner.inputs.inventory",
    "InputError": "planner.inputs.problems",
    "InputProblem": "planner.inputs.problems",
    "Inventory": "planner.inputs.inventory",
    "Loaded": "planner.inputs.problems",
    "METHODS": "planner.methods.registry",
    "Method": "planner.methods.registry",
    "MethodPlan": "planner.plan",
    "MethodResult": "planner.measure.result",
    "MigProfile": "planner.inputs.catalog",
    "Network": "planner.assumptions",
    "NotPlaced": "planner.plan",
    "Placement": "planner.plan",
    "Scenario": "planner.scenario",
    "ScenarioPlan": "planner.output.report",
    "ServerType": "planner.inputs.inventory",
    "SolveStatus": "planner.plan",
    "VgpuMode": "planner.assumptions",
    "VgpuProfile": "planner.inputs.catalog",
    "VgpuScheduler": "planner.assumptions",
    "VsphereVersion": "planner.assumptions",
    "WorkloadClass": "planner.inputs.workloads",
    "WorkloadKind": "planner.inputs.workloads",
    "check_plan": "planner.solve.feasibility",
    "harvest_scenario": "planner.time.harvesting",
    "load_catalog": "planner.inputs.catalog",
    "load_inventory": "planner.inputs.inventory",
    "load_workloads": "planner.inputs.workloads",
    "plan_method": "planner.solve.packing",
    "plan_scenario": "planner.output.report",
    "size_cluster": "planner.output.report",
    "size_method": "planner.solve.packing",
    "workbook_bytes": "planner.output.export",
    "write_workbook": "planner.output.export",
}


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module on first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
