"""Size limits on what the planner reads, checked before any work so a huge input is refused fast.

Each limit is far above one site's estate; it bounds the memory and time a stray or generated
file can take (a million-row file is refused in well under a second, not read for minutes).
The largest host and instance a row may describe are bounded here too, once for every reader.
``docs/input-formats.md`` lists them; the dashboard's upload limit (``server.maxUploadSize`` in
``.streamlit/config.toml``) equals ``MAX_UPLOAD_MB``, the largest of them.
"""

from __future__ import annotations

__all__ = [
    "EXCEL_MAX_ROWS",
    "MAX_CORES",
    "MAX_CURVE_FILE_MB",
    "MAX_FILE_BYTES",
    "MAX_FILE_MB",
    "MAX_GPUS",
    "MAX_GPUS_PER_HOST",
    "MAX_HARVEST_JOBS_PER_DAY",
    "MAX_HOSTS",
    "MAX_INSTANCES",
    "MAX_KUBECTL_JSON_BYTES",
    "MAX_KUBECTL_JSON_MB",
    "MAX_NAME_CHARS",
    "MAX_RAM_GIB",
    "MAX_ROWS",
    "MAX_TRACE_PODS",
    "MAX_UPLOAD_MB",
    "limit_text",
]

MAX_FILE_MB = 20
"""Largest input file [MB, 1 MB = 1,048,576 bytes]: a 10,000-row inventory is about 1 MB."""
MAX_FILE_BYTES = MAX_FILE_MB * 1024 * 1024
MAX_KUBECTL_JSON_MB = 100
"""Largest kubectl JSON output (``-o json``) [MB]: ``kubectl get pods -A -o json`` of a large
cluster is often 20 to 100 MB, most of it each pod's last-applied copy of itself. 100 MB of pods
(31,000) is read in 8 to 16 s with about 360 MB of memory. kubectl's YAML keeps ``MAX_FILE_MB``:
it is read three to five times slower per MB (50 MB of pods in 13 to 22 s, longer than 100 MB of
JSON)."""
MAX_KUBECTL_JSON_BYTES = MAX_KUBECTL_JSON_MB * 1024 * 1024
MAX_UPLOAD_MB = max(MAX_FILE_MB, MAX_KUBECTL_JSON_MB)
"""Largest file the dashboard takes [MB]: the largest limit; each reader then holds its own."""
MAX_CURVE_FILE_MB = 1
"""Largest file of demand-curve values [MB]: 672 values (a week at 15-minute steps), each with
its time, are about 20 KB."""
MAX_ROWS = 10_000
"""Most data rows in one inventory or workload table [rows] (a row may describe many hosts)."""
MAX_HOSTS = 10_000
"""Most hosts in an inventory, after ``count`` expands groups [hosts]."""
MAX_GPUS = 80_000
"""Most GPUs in an inventory [GPUs]."""
MAX_INSTANCES = 100_000
"""Most workload instances over all classes [instances]."""
MAX_TRACE_PODS = MAX_INSTANCES
"""Most pods in one Alibaba trace pod list [pods]: a pod is a row and an instance. The published
lists (alibaba/clusterdata ``cluster-trace-gpu-v2023``) hold at most 10,094 pods
(``openb_pod_list_cpu300.csv``); a list of this many is about 7 MB."""
MAX_HARVEST_JOBS_PER_DAY = 50_000
"""Most jobs one submit day's backlog makes (backlog / GPU-hours per job) [jobs]: the harvest
simulation holds every job, so memory and time grow with them."""
MAX_NAME_CHARS = 253
"""Longest host, cluster or workload class name [characters]: a DNS name's limit, which
Kubernetes object names share. A longer cell is text pasted by mistake, and a spreadsheet cell
holds at most 32,767 characters."""
MAX_GPUS_PER_HOST = 64
"""Most GPUs of a host or of a workload instance [GPUs]: the inventory's ``gpus_per_host``, the
workload CSV's ``gpus`` and a trace list's ``gpu`` and ``num_gpu``. Far above any one server; a
larger number is a total of many hosts."""
MAX_CORES = 4096
"""Most CPU cores of a host or vCPUs of a workload instance [cores]: the inventory's
``cpu_cores``, the workload CSV's ``vcpus`` and a trace list's ``cpu_milli`` (in milli-cores,
1000 per core). Far above any one server; a larger number is a unit slip."""
MAX_RAM_GIB = 1_048_576
"""Most RAM of a host or a workload instance [GiB] (1 PiB): the inventory's and the workload
CSV's ``ram_gib`` and a trace list's ``memory_mib`` (in MiB, 1024 per GiB). Far above any one
server; a larger number is a unit slip."""
EXCEL_MAX_ROWS = 1_048_576
"""Rows in one Excel sheet, header included (Excel's own limit)."""


def limit_text(value: int, limit: int, unit: str) -> str:
    """``"1,000,000 rows, over the limit of 10,000 rows"`` for a message."""
    return f"{value:,} {unit}, over the limit of {limit:,} {unit}"
