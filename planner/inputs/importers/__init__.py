"""Importers: the estate and workloads read from the tools admins already run, with provenance.

One module per tool (``kubectl_nodes``, ``kubectl_pods``, ``nvidia_smi``, ``mig``, ``rvtools``,
``dcgm``), ``gpu_names`` mapping printed GPU names to catalog models, ``detect`` telling formats
apart, ``estate`` and ``mix`` combining files into the inventory and workload frames that the
planner's own validators then check, and ``workbook`` writing and reading back the plan
workbook's ``Planner inputs`` sheet. The entry points::

    imported = import_inventory([("nodes.json", data), ("gpu-07.txt", data2)], catalog)
    imported.frame              # inventory CSV columns, one row per host
    imported.notes              # per value: read, derived or assumed, and from where
    imported.inventory(catalog) # validated by inventory_from_frame

    workloads = import_workloads([("pods.json", data), ("dcgm.prom", data3)], catalog)
    regrouped = group_pods(workloads.pods, catalog, group_by="app")
"""

from planner.inputs.importers.detect import (
    PLAN_INPUTS_SHEET,
    Format,
    UnknownFormatError,
    detect_format,
)
from planner.inputs.importers.estate import (
    ImportDefaults,
    ImportedInventory,
    import_inventory,
    read_hosts,
)
from planner.inputs.importers.gpu_names import GpuName, match_gpu_name
from planner.inputs.importers.hosts import MigGpu, MigInstance
from planner.inputs.importers.kubectl_pods import (
    GroupedPods,
    PodRequest,
    WorkloadDefaults,
    group_pods,
    label_keys,
    pods_frame,
)
from planner.inputs.importers.mix import (
    ImportedWorkloads,
    fill_measured,
    import_workloads,
    measurements_frame,
)
from planner.inputs.importers.provenance import ImportNote, NoteSource, summarise_notes
from planner.inputs.importers.workbook import PlanInputs, read_plan_inputs, write_inputs_sheet

__all__ = [
    "PLAN_INPUTS_SHEET",
    "Format",
    "GpuName",
    "GroupedPods",
    "ImportDefaults",
    "ImportNote",
    "ImportedInventory",
    "ImportedWorkloads",
    "MigGpu",
    "MigInstance",
    "NoteSource",
    "PlanInputs",
    "PodRequest",
    "UnknownFormatError",
    "WorkloadDefaults",
    "detect_format",
    "fill_measured",
    "group_pods",
    "import_inventory",
    "import_workloads",
    "label_keys",
    "match_gpu_name",
    "measurements_frame",
    "pods_frame",
    "read_hosts",
    "read_plan_inputs",
    "summarise_notes",
    "write_inputs_sheet",
]
