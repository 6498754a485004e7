"""A plan workbook keeps the user's own GPU models whole: every column their file can hold,
the SM counts too, comes back when the workbook is restored."""

from __future__ import annotations

import csv
import io

from planner.inputs.catalog import Catalog, load_catalog, own_gpus_template
from planner.inputs.importers import PlanInputs, read_plan_inputs
from planner.methods.registry import Method
from planner.output.export import workbook_bytes
from planner.output.report import plan_scenario
from planner.scenario import load_scenario

OWN_GPUS = (
    b"name,memory_gib,tdp_w,fp16_tflops,price_usd,sms,mig_full_sms\n"
    b"LAB-96GB,96,500,900,30000,132,128\n"
)
INVENTORY = (
    b"host,cluster,gpu_model,gpus_per_host,cpu_cores,ram_gib,network_gbps,rdma,count\n"
    b"lab,lab,LAB-96GB,4,64,512,100,no,1\n"
)
WORKLOADS = (
    b"name,kind,instances,gpus,memory_gib,busy_fraction,active_hours,days_per_week,vcpus,"
    b"ram_gib,live_migration,isolation,latency_tolerant\n"
    b"sim,batch,2,1,40,50%,24,7,8,64,no,no,yes\n"
)


def _restored(catalog: Catalog) -> PlanInputs:
    """The inputs read back from the plan workbook of the lab host planned with ``catalog``."""
    given = {"inventory.csv": INVENTORY, "workloads.csv": WORKLOADS}
    scenario = load_scenario(("inventory.csv", INVENTORY), ("workloads.csv", WORKLOADS), catalog)
    plan = plan_scenario(scenario.value, methods=(Method.PASSTHROUGH,))
    return read_plan_inputs(workbook_bytes(plan, given=given), file_name="plan.xlsx")


def test_own_gpu_sm_counts_come_back_from_the_workbook() -> None:
    """A lab GPU given 132 SMs, 128 in its full MIG profile, has them again once its plan
    workbook is restored: the restored scenario's model is the one the user gave."""
    catalog = load_catalog(extra_gpus=OWN_GPUS)
    restored = _restored(catalog).scenario().value.catalog.gpus["LAB-96GB"]
    assert (restored.sms, restored.mig_full_sms) == (132, 128)
    assert restored == catalog.gpus["LAB-96GB"]


def test_own_gpus_are_stored_with_every_column_of_the_template() -> None:
    """The stored file of the user's own GPUs has the columns of the own-GPU template, so a
    column the catalog learns to read is stored too."""
    template_columns = next(csv.reader(io.StringIO(own_gpus_template())))
    stored = _restored(load_catalog(extra_gpus=OWN_GPUS)).own_gpus_csv
    assert stored is not None
    (row,) = csv.DictReader(io.StringIO(stored.decode("utf-8")))
    assert list(row) == template_columns
    assert (row["sms"], row["mig_full_sms"]) == ("132", "128")
