"""The one feasibility checker every plan passes: each sharing method's rules, in words.

``check_plan`` returns every violation it finds as a sentence, and an empty list when the plan is
feasible. It checks the placed plan only (hosts, GPU indices and slots), never how a packer made
it, so the exact and heuristic packers of all four methods answer to the same rules:

- every instance of the scenario is placed completely (all its GPUs, on one host) or listed as
  not placed, never both and never twice; ineligible instances are never placed;
- hosts and GPU indices exist and have the GPU model the placement names;
- no GPU holds more memory than it has (remote pool: in any hour of the day; equal-size vGPU:
  NVIDIA's per-profile maximum instead), no host gives out more cores or RAM than it has;
- passthrough never shares a GPU;
- vGPU: profiles exist for the model; equal-size mode never mixes profiles on a GPU and keeps the
  equal-size maximum, mixed-size mode keeps each profile's mixed maximum, host-equal mode also
  never mixes partial profile sizes on one host; one VM holds at most ``max_vgpus_per_vm`` vGPUs
  (4 on vSphere 7, 8 on vSphere 8) and, on vSphere 7, combines full-frame-buffer profiles only;
  under the fixed-share scheduler a vGPU's time share ``1 / max per GPU`` covers ``min(gpus, 1)``;
- MIG: each GPU instance starts where the catalog allows, memory slices never overlap, compute
  slices stay within the GPU's, no profile exceeds its per-GPU maximum, each instance's
  ``compute_slices / GPU compute slices`` covers ``min(gpus, 1)`` on every GPU it holds, and a
  MIG-backed vGPU VM holds at most ``max_vgpus_per_vm`` GPU instances.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from planner.assumptions import VgpuMode, VgpuScheduler, VsphereVersion
from planner.inputs.catalog import GpuModel
from planner.inputs.inventory import Host
from planner.inputs.workloads import HOURS_PER_DAY, WorkloadClass
from planner.plan import Method, MethodPlan, Placement
from planner.scenario import Scenario

__all__ = ["check_plan"]

_MEMORY_TOLERANCE_GIB = 1e-6
"""Float slack on memory sums [GiB]."""
_HOST_TOLERANCE = 1e-6
"""Float slack on core and RAM sums [cores, GiB]."""
_SHARE_TOLERANCE = 1e-9
"""Float slack on compute shares [-]."""

GpuKey = tuple[str, int]


def _gpu_name(key: GpuKey) -> str:
    return f"GPU {key[1]} of host {key[0]}"


def check_plan(plan: MethodPlan, scenario: Scenario) -> list[str]:
    """Every way ``plan`` breaks the rules of its method on ``scenario``; empty when feasible.

    Parameters
    ----------
    plan : a plan from any packer (``plan.hosts`` when set, else the scenario's inventory).
    scenario : the catalog, workloads and assumptions the plan was made for.
    """
    problems: list[str] = []
    hosts = {h.name: h for h in (plan.hosts or scenario.inventory.hosts)}
    workloads = {w.name: w for w in scenario.workloads}
    by_instance: dict[str, list[Placement]] = defaultdict(list)
    by_gpu: dict[GpuKey, list[Placement]] = defaultdict(list)
    good_rows: list[Placement] = []
    for row in plan.placements:
        by_instance[row.instance].append(row)
        problem = _row_problem(row, hosts, workloads, scenario)
        if problem:
            problems.append(problem)
            continue
        good_rows.append(row)
        by_gpu[(row.host, row.gpu_index)].append(row)

    problems += _instance_problems(plan, by_instance, workloads, scenario)
    problems += _eligibility_problems(plan, by_instance, workloads, hosts, scenario)
    problems += _host_problems(plan.method, good_rows, hosts, workloads)
    problems += _vm_problems(plan.method, good_rows, scenario)
    for key in sorted(by_gpu):
        rows = by_gpu[key]
        model = scenario.catalog.gpus[rows[0].gpu_model]
        if key not in plan.gpu_configs:
            problems.append(f"{_gpu_name(key)} holds instances but has no configuration")
        problems += _gpu_problems(plan.method, key, rows, model, workloads, scenario)
    if plan.method is Method.VGPU and scenario.assumptions.vgpu_mode is VgpuMode.HOST_EQUAL:
        problems += _host_equal_problems(good_rows, scenario)
    return problems


def _row_problem(
    row: Placement,
    hosts: Mapping[str, Host],
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> str | None:
    """What is wrong with one placement row on its own, if anything."""
    host = hosts.get(row.host)
    if host is None:
        return f"{row.instance} is placed on host {row.host}, which the plan does not have"
    if not 0 <= row.gpu_index < host.gpus:
        return (
            f"{row.instance} is placed on GPU {row.gpu_index} of host {row.host}, "
            f"which has GPUs 0-{host.gpus - 1}"
        )
    if row.gpu_model != host.gpu_model:
        return (
            f"{row.instance} is placed as {row.gpu_model} on host {row.host}, "
            f"whose GPUs are {host.gpu_model}"
        )
    if row.gpu_model not in scenario.catalog.gpus:
        return f"{row.instance} is placed on GPU model {row.gpu_model}, not in the catalog"
    if row.workload not in workloads:
        return f"{row.instance} belongs to workload {row.workload}, not in the scenario"
    return None


def _instance_problems(
    plan: MethodPlan,
    by_instance: Mapping[str, list[Placement]],
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> list[str]:
    """Each instance placed once, completely, on one host, or listed as not placed."""
    from planner.methods.passthrough import whole_gpus
    from planner.methods.remote_pool import gpus_per_instance

    problems: list[str] = []
    known = {i: w for w in scenario.workloads for i in w.instance_ids()}
    unplaced = Counter(n.instance for n in plan.not_placed)
    for instance, count in sorted(unplaced.items()):
        if count > 1:
            problems.append(f"{instance} is listed {count} times as not placed")
        if instance in by_instance:
            problems.append(f"{instance} is both placed and listed as not placed")
        if instance not in known:
            problems.append(
                f"{instance} is listed as not placed but is no instance of the scenario"
            )
    for instance in sorted(known):
        if instance not in by_instance and instance not in unplaced:
            problems.append(f"{instance} is neither placed nor listed as not placed")
    for instance in sorted(by_instance):
        rows = by_instance[instance]
        workload = known.get(instance)
        if workload is None:
            problems.append(f"{instance} is placed but is no instance of the scenario")
            continue
        if any(r.workload != workload.name for r in rows):
            problems.append(f"{instance} is placed under another workload than {workload.name}")
        host_names = sorted({r.host for r in rows})
        if len(host_names) > 1:
            problems.append(f"{instance} is split over hosts {', '.join(host_names)}")
        gpus = Counter((r.host, r.gpu_index) for r in rows)
        for key, count in sorted(gpus.items()):
            if count > 1:
                problems.append(f"{instance} holds {count} slots on {_gpu_name(key)}")
        memory = sum(r.memory_gib for r in rows)
        if memory + _MEMORY_TOLERANCE_GIB < workload.memory_gib:
            problems.append(
                f"{instance} is given {memory:g} GiB of GPU memory but needs "
                f"{workload.memory_gib:g} GiB"
            )
        model = scenario.catalog.gpus.get(rows[0].gpu_model)
        if model is None:
            continue
        if plan.method is Method.PASSTHROUGH:
            needed = whole_gpus(workload, model)
        elif plan.method is Method.REMOTE_POOL:
            needed = max(1, gpus_per_instance(workload, model))
        else:
            needed = max(1, math.ceil(workload.gpus - 1e-9))
        if len(gpus) < needed:
            problems.append(f"{instance} holds {len(gpus)} GPUs but needs {needed}")
    return problems


def _eligibility_problems(
    plan: MethodPlan,
    by_instance: Mapping[str, list[Placement]],
    workloads: Mapping[str, WorkloadClass],
    hosts: Mapping[str, Host],
    scenario: Scenario,
) -> list[str]:
    """No instance is placed where its method, its model list or the host rules it out."""
    from planner.solve.packing import PACKERS, usable_host_reason

    problems: list[str] = []
    try:
        packer = PACKERS[plan.method]
    except KeyError as missing:
        return [f"cannot check eligibility: {missing.args[0]}"]
    for instance in sorted(by_instance):
        rows = by_instance[instance]
        workload = workloads.get(rows[0].workload)
        host = hosts.get(rows[0].host)
        model = scenario.catalog.gpus.get(rows[0].gpu_model)
        if workload is None or host is None or model is None:
            continue  # reported as a row problem
        if workload.gpu_models and model.name not in workload.gpu_models:
            problems.append(
                f"{instance} is placed on {model.name} but may only use "
                f"{', '.join(workload.gpu_models)}"
            )
        for name in sorted({r.host for r in rows} & hosts.keys()):
            unusable = usable_host_reason(plan.method, hosts[name], scenario.catalog)
            if unusable is not None:
                problems.append(f"{instance} is placed on host {name}, but {unusable}")
        reason = packer.ineligible_reason(workload, model, scenario.catalog, scenario.assumptions)
        if reason is not None:
            problems.append(f"{instance} is placed but not eligible: {reason}")
    return problems


def _host_problems(
    method: Method,
    rows: Sequence[Placement],
    hosts: Mapping[str, Host],
    workloads: Mapping[str, WorkloadClass],
) -> list[str]:
    """No host gives out more cores or RAM than it has (remote-pool clients take none)."""
    if method is Method.REMOTE_POOL:
        return []
    instances_on: dict[str, set[str]] = defaultdict(set)
    workload_of: dict[str, str] = {}
    for row in rows:
        instances_on[row.host].add(row.instance)
        workload_of[row.instance] = row.workload
    problems: list[str] = []
    for name in sorted(instances_on):
        host = hosts[name]
        members = [workloads[workload_of[i]] for i in instances_on[name]]
        cores = sum(w.vcpus for w in members)
        ram = sum(w.ram_gib for w in members)
        if cores > host.cpu_cores + _HOST_TOLERANCE:
            problems.append(f"host {name} gives out {cores:g} cores but has {host.cpu_cores:g}")
        if ram > host.ram_gib + _HOST_TOLERANCE:
            problems.append(f"host {name} gives out {ram:g} GiB RAM but has {host.ram_gib:g} GiB")
    return problems


def _gpu_problems(
    method: Method,
    key: GpuKey,
    rows: Sequence[Placement],
    model: GpuModel,
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> list[str]:
    """The memory rule for every method, then the rules of the plan's own method."""
    problems: list[str] = []
    equal_size_vgpu = (
        method is Method.VGPU and scenario.assumptions.vgpu_mode is not VgpuMode.MIXED_SIZE
    )
    if method is Method.REMOTE_POOL:
        problems += _pool_memory_problems(key, rows, model, workloads)
    elif not equal_size_vgpu:
        # Equal-size vGPU GPUs answer to NVIDIA's per-profile maxima instead, which may exceed
        # the frame buffer on paper (H100 16C allows 6 per GPU).
        memory = sum(r.memory_gib for r in rows)
        if memory > model.memory_gib + _MEMORY_TOLERANCE_GIB:
            problems.append(
                f"{_gpu_name(key)} holds {memory:g} GiB but a {model.name} has "
                f"{model.memory_gib:g} GiB"
            )
    if method is Method.PASSTHROUGH and len({r.instance for r in rows}) > 1:
        problems.append(f"{_gpu_name(key)} is shared by {len(rows)} passthrough instances")
    if method is Method.VGPU:
        problems += _vgpu_problems(key, rows, model, scenario)
        problems += _fixed_share_problems(key, rows, model, workloads, scenario)
    if method is Method.MIG:
        problems += _mig_problems(key, rows, model, scenario)
        problems += _mig_compute_problems(key, rows, model, workloads, scenario)
    return problems


def _vm_problems(method: Method, rows: Sequence[Placement], scenario: Scenario) -> list[str]:
    """One VM's vGPUs: at most ``max_vgpus_per_vm``, and full profiles only when combined on
    vSphere 7 (vSphere 8 allows any C-series). MIG-backed vGPU gives one vGPU per GPU instance,
    so its VMs keep the same maximum."""
    assumptions = scenario.assumptions
    if method is not Method.VGPU and not (method is Method.MIG and assumptions.mig_backed_vgpu):
        return []
    version = assumptions.vsphere_version
    most = version.max_vgpus_per_vm
    by_instance: dict[str, list[Placement]] = defaultdict(list)
    for row in rows:
        by_instance[row.instance].append(row)
    problems: list[str] = []
    for instance in sorted(by_instance):
        vgpus = by_instance[instance]
        if len(vgpus) <= 1:
            continue
        if len(vgpus) > most:
            problems.append(
                f"{instance} holds {len(vgpus)} vGPUs in one VM but vSphere {version.value} "
                f"allows at most {most}"
            )
        if method is not Method.VGPU or version is not VsphereVersion.V7:
            continue
        partial = sorted({r.profile for r in vgpus if not _is_full_vgpu(r, scenario)})
        if partial:
            problems.append(
                f"{instance} combines {len(vgpus)} vGPUs including partial profile "
                f"{', '.join(partial)}, but vSphere 7 combines full-frame-buffer profiles only"
            )
    return problems


def _is_full_vgpu(row: Placement, scenario: Scenario) -> bool:
    """Whether the row's vGPU profile is full-frame-buffer (unknown profiles are reported
    elsewhere, so they count as full here)."""
    profiles = {p.name: p for p in scenario.catalog.vgpu_profiles.get(row.gpu_model, ())}
    profile = profiles.get(row.profile)
    return profile is None or profile.is_full


def _fixed_share_problems(
    key: GpuKey,
    rows: Sequence[Placement],
    model: GpuModel,
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> list[str]:
    """Fixed share gives each vGPU ``1 / max per GPU`` of the GPU's time (the equal or mixed
    maximum, by mode); that share must cover the instance's ``min(gpus, 1)``. Best effort and
    equal share reserve no compute, so they have nothing to cover."""
    from planner.methods.vgpu import max_per_gpu

    assumptions = scenario.assumptions
    if assumptions.vgpu_scheduler is not VgpuScheduler.FIXED_SHARE:
        return []
    profiles = {p.name: p for p in scenario.catalog.vgpu_profiles.get(model.name, ())}
    problems: list[str] = []
    for row in rows:
        profile = profiles.get(row.profile)
        if profile is None:
            continue  # reported as an unknown profile
        most = max_per_gpu(profile, assumptions.vgpu_mode)
        share = 1 / most
        needed = min(workloads[row.workload].gpus, 1.0)
        if share + _SHARE_TOLERANCE < needed:
            problems.append(
                f"{row.instance}: {profile.name} on {_gpu_name(key)} gets 1/{most} of the GPU "
                f"under the fixed-share scheduler but needs {needed:g} GPU of compute"
            )
    return problems


def _mig_compute_problems(
    key: GpuKey,
    rows: Sequence[Placement],
    model: GpuModel,
    workloads: Mapping[str, WorkloadClass],
    scenario: Scenario,
) -> list[str]:
    """A GPU instance's ``compute_slices / GPU compute slices`` covers the instance's
    ``min(gpus, 1)``: MIG compute is dedicated, so a smaller slice cannot run it at its rate."""
    profiles = {p.name: p for p in scenario.catalog.mig_profiles.get(model.name, ())}
    if model.mig_compute_slices <= 0:
        return []
    problems: list[str] = []
    for row in rows:
        profile = profiles.get(row.profile)
        if profile is None:
            continue  # reported as an unknown profile
        share = profile.compute_slices / model.mig_compute_slices
        needed = min(workloads[row.workload].gpus, 1.0)
        if share + _SHARE_TOLERANCE < needed:
            problems.append(
                f"{row.instance}: {profile.name} on {_gpu_name(key)} has "
                f"{profile.compute_slices}/{model.mig_compute_slices} of the compute but needs "
                f"{needed:g} GPU"
            )
    return problems


def _pool_memory_problems(
    key: GpuKey,
    rows: Sequence[Placement],
    model: GpuModel,
    workloads: Mapping[str, WorkloadClass],
) -> list[str]:
    """In every hour, the instances running on a pooled GPU fit in its memory.

    A whole-GPU slot holds the GPU's full memory while its instance runs.
    """
    from planner.methods.remote_pool import PROFILE_WHOLE, active_hours, instance_index

    held = [0.0] * HOURS_PER_DAY
    for row in rows:
        hours = active_hours(workloads[row.workload], instance_index(row.instance))
        size = model.memory_gib if row.profile == PROFILE_WHOLE else row.memory_gib
        for hour, on in enumerate(hours):
            if on:
                held[hour] += size
    return [
        f"{_gpu_name(key)} holds {held[hour]:g} GiB in hour {hour} but a {model.name} has "
        f"{model.memory_gib:g} GiB"
        for hour in range(HOURS_PER_DAY)
        if held[hour] > model.memory_gib + _MEMORY_TOLERANCE_GIB
    ]


def _vgpu_problems(
    key: GpuKey, rows: Sequence[Placement], model: GpuModel, scenario: Scenario
) -> list[str]:
    """Profiles exist; equal-size GPUs hold one profile within its maximum; mixed maxima hold."""
    profiles = {p.name: p for p in scenario.catalog.vgpu_profiles.get(model.name, ())}
    problems: list[str] = []
    counts = Counter(r.profile for r in rows)
    for name in sorted(counts):
        if name not in profiles:
            problems.append(f"{_gpu_name(key)} uses vGPU profile {name}, unknown on {model.name}")
    if any(name not in profiles for name in counts):
        return problems
    mode = scenario.assumptions.vgpu_mode
    if mode is VgpuMode.MIXED_SIZE:
        for name, count in sorted(counts.items()):
            if count > profiles[name].max_mixed:
                problems.append(
                    f"{_gpu_name(key)} holds {count} × {name} but mixed-size mode allows "
                    f"{profiles[name].max_mixed}"
                )
        return problems
    if len(counts) > 1:
        problems.append(
            f"{_gpu_name(key)} mixes profiles {', '.join(sorted(counts))} in {mode.value} mode"
        )
        return problems
    name, count = next(iter(counts.items()))
    if count > profiles[name].max_equal:
        problems.append(
            f"{_gpu_name(key)} holds {count} × {name} but NVIDIA allows "
            f"{profiles[name].max_equal} per GPU"
        )
    return problems


def _host_equal_problems(rows: Sequence[Placement], scenario: Scenario) -> list[str]:
    """VMware's 2020 guidance: partial (not full-frame-buffer) profiles of one size per host."""
    sizes: dict[str, set[float]] = defaultdict(set)
    for row in rows:
        profiles = {p.name: p for p in scenario.catalog.vgpu_profiles.get(row.gpu_model, ())}
        profile = profiles.get(row.profile)
        if profile is not None and not profile.is_full:
            sizes[row.host].add(profile.memory_gib)
    return [
        f"host {host} mixes partial vGPU profile sizes "
        f"{', '.join(f'{s:g} GiB' for s in sorted(found))} in host-equal mode"
        for host, found in sorted(sizes.items())
        if len(found) > 1
    ]


def _mig_problems(
    key: GpuKey, rows: Sequence[Placement], model: GpuModel, scenario: Scenario
) -> list[str]:
    """Valid starts, no overlapping memory slices, compute slices and per-profile maxima kept."""
    profiles = {p.name: p for p in scenario.catalog.mig_profiles.get(model.name, ())}
    problems: list[str] = []
    used_slices: dict[int, str] = {}
    compute = 0
    counts: Counter[str] = Counter()
    for row in sorted(rows, key=lambda r: (r.start_slice or 0, r.instance)):
        profile = profiles.get(row.profile)
        if profile is None:
            problems.append(
                f"{_gpu_name(key)} uses MIG profile {row.profile}, unknown on {model.name}"
            )
            continue
        counts[profile.name] += 1
        compute += profile.compute_slices
        if row.start_slice is None or row.start_slice not in profile.starts:
            problems.append(
                f"{row.instance}: {profile.name} on {_gpu_name(key)} starts at slice "
                f"{row.start_slice}, allowed {', '.join(map(str, profile.starts))}"
            )
            continue
        end = row.start_slice + profile.memory_slices
        if end > model.mig_memory_slices:
            problems.append(
                f"{row.instance}: {profile.name} on {_gpu_name(key)} ends past memory slice "
                f"{model.mig_memory_slices - 1}"
            )
        for memory_slice in range(row.start_slice, end):
            if memory_slice in used_slices:
                problems.append(
                    f"{row.instance} and {used_slices[memory_slice]} overlap on memory slice "
                    f"{memory_slice} of {_gpu_name(key)}"
                )
            used_slices[memory_slice] = row.instance
    if compute > model.mig_compute_slices:
        problems.append(
            f"{_gpu_name(key)} uses {compute} compute slices but has {model.mig_compute_slices}"
        )
    for name, count in sorted(counts.items()):
        if count > profiles[name].max_per_gpu:
            problems.append(
                f"{_gpu_name(key)} holds {count} × {name}, at most "
                f"{profiles[name].max_per_gpu} allowed"
            )
    return problems
