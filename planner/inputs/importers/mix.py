"""The workload mix from the files admins already have: pods as classes, DCGM filling what they use.

Files are detected and read by their importers: the planner's workload CSV (or a plan
workbook's) as it is, ``kubectl get pods`` output grouped into classes (``group_pods``), and
DCGM exporter scrapes, whose measurements replace the assumed busy fraction and GPU memory of
the class each measured pod belongs to. A measurement finds its class by pod (namespace and
name), else by the pod's owner name (the pod name without its ReplicaSet hash and pod suffix)
equal to a class name, so a scrape also fills a workload CSV whose classes are named after their
Deployments. The busy fraction of a class is the mean over its measured GPUs; its memory is the
largest of its pods' peaks (a pod's peak summed over its GPUs).

A GPU shared by several pods at once (time-slicing, MPS) is measured as a device: the exporter
repeats the device's figures on each pod's series (NVIDIA/dcgm-exporter issue #587) and
``dcgm.measure`` divides them equally among the pods. Replicas of one class do alike work, so
their equal shares stand for the class, noted as such. Pods of different classes (or of no
class) on one GPU need not: an equal share could give a heavy pod a light one's memory, and
the whole figure would count the device's use once per pod. Their shared series are not used,
with a problem naming the GPU, the pods and how to measure each pod (a GPU or MIG instance of
its own, or DCGM's per-process statistics).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from planner.inputs.catalog import Catalog
from planner.inputs.importers import dcgm, kubectl_pods
from planner.inputs.importers.detect import Detected, Format, detect_file, give_as
from planner.inputs.importers.kubectl_pods import (
    GroupedPods,
    PodRequest,
    WorkloadDefaults,
    group_pods,
)
from planner.inputs.importers.provenance import ImportNote, validated_import
from planner.inputs.importers.workbook import plan_inputs_of
from planner.inputs.problems import InputError, InputProblem, Loaded
from planner.inputs.tabular import quoted, shown
from planner.inputs.workloads import (
    WORKLOAD_COLUMNS,
    WorkloadClass,
    load_workloads,
    workloads_frame,
    workloads_from_frame,
)
from planner.words import counted

__all__ = [
    "FRAME_COLUMNS",
    "ImportedWorkloads",
    "fill_measured",
    "import_workloads",
    "measurements_frame",
]

FRAME_COLUMNS = (*WORKLOAD_COLUMNS, "notes")
"""Columns of the imported workload frame: the CSV's, with ``notes`` saying where a class came
from."""
_POD_SUFFIX = re.compile(r"-[a-z0-9]{5}$")
_ORDINAL = re.compile(r"-\d+$")


@dataclass(frozen=True)
class ImportedWorkloads:
    """The workload mix imported from files, and where every value came from."""

    frame: pd.DataFrame
    """``FRAME_COLUMNS``, one row per class; ``workloads_from_frame`` validates it."""
    notes: tuple[ImportNote, ...]
    problems: tuple[InputProblem, ...]
    pods: tuple[PodRequest, ...]
    """Every pod read, GPU or not (``pods_frame`` shows them; ``group_pods`` regroups them)."""
    measurements: tuple[dcgm.GpuMeasurement, ...]
    """Every DCGM series measured (``measurements_frame`` shows them)."""
    files: tuple[tuple[str, str], ...]
    """(file, the tool it was read as) for each file, in order."""
    plan_workbooks: tuple[str, ...] = ()
    """The files that are plan workbooks, which can restore the whole plan."""
    cpu_only: tuple[WorkloadClass, ...] = ()
    """Classes of pods that use no GPU and take node cores and RAM (those of Alibaba's trace,
    as its CSV pod list's ``cpu_only``)."""

    def workloads(
        self, catalog: Catalog, *, file_name: str = "imported workloads"
    ) -> Loaded[tuple[WorkloadClass, ...]]:
        """The frame validated as a workload mix; its problems follow the import's own.

        Raises ``InputError`` (the import's problems first) when no row is usable.
        """
        return validated_import(
            lambda frame: workloads_from_frame(frame, catalog, file_name=file_name),
            self.frame,
            self.notes,
            self.problems,
            validated_as=file_name,
            subject=("name", "class"),
            files=[file for file, _ in self.files],
        )


def import_workloads(
    files: Sequence[tuple[str, bytes]],
    catalog: Catalog,
    *,
    group_by: str | None = None,
    defaults: WorkloadDefaults | None = None,
    nodes: Sequence[tuple[str, bytes]] = (),
) -> ImportedWorkloads:
    """The workload mix described by several files of any supported format.

    Parameters
    ----------
    files
        (file name, content) pairs: workload CSVs, ``kubectl get pods -A -o json`` output,
        DCGM exporter scrapes (one or several, averaged), a plan workbook.
    catalog
        GPU models (node selectors and MIG profiles are matched against it).
    group_by
        A pod label to group pods into classes by (``app.kubernetes.io/name``); pods without
        it, and every pod when None, are grouped by owner.
    defaults
        Figures assumed where Kubernetes does not say (``WorkloadDefaults``).
    nodes
        (file name, content) pairs of the inventory: the pods on a node of
        ``kubectl get nodes -o json`` among them ask ``nvidia.com/gpu`` as the node shares its
        GPUs (``kubectl_pods.on_their_nodes``); other files are left to the inventory's import.

    Raises ``InputError`` when a file cannot be read or describes hosts rather than workloads
    (naming every such file), or when no file lists a workload (DCGM alone measures but does
    not list). A workbook is opened once: its reader takes the one its detection opened.
    """
    defaults = defaults or WorkloadDefaults()
    frames: list[tuple[pd.DataFrame, list[str]]] = []  # each with the file of each of its rows
    notes: list[ImportNote] = []
    problems: list[InputProblem] = []
    pods: list[PodRequest] = []
    samples: list[dcgm.Sample] = []
    used: list[tuple[str, Format]] = []
    refused: list[InputProblem] = []
    for name, data in files:
        # Every file is read before refusing, so that one refusal names every unreadable file.
        try:
            detected = detect_file(name, data, role="workloads")
            if detected.format in (Format.WORKLOADS_CSV, Format.PLAN_WORKBOOK):
                frame, note, loaded_problems = _planner_workloads(name, data, detected, catalog)
                frames.append((frame, [name] * len(frame)))
                notes.append(note)
                problems.extend(loaded_problems)
            elif detected.format is Format.KUBECTL_PODS:
                read = kubectl_pods.read_kubectl_pods(data, name, catalog, defaults=defaults)
                pods.extend(read.pods)
                notes.extend(read.notes)
                problems.extend(read.problems)
            elif detected.format is Format.DCGM:
                read_samples, read_problems = dcgm.read_dcgm_samples(data, name, catalog)
                samples.extend(read_samples)
                problems.extend(read_problems)
            else:
                refused.append(
                    InputProblem(
                        name,
                        None,
                        None,
                        f"this is {detected.format.label}, which describes hosts, not workloads",
                        give_as("inventory"),
                    )
                )
                continue
        except InputError as error:
            refused.extend(error.problems)
            continue
        used.append((name, detected.format))
    if refused:
        raise InputError(refused)
    grouped: GroupedPods | None = None
    if pods:
        # The nodes are read once, for the pods of every file.
        pods = list(_on_their_nodes(pods, nodes, catalog, defaults, notes, problems))
        pods, grouped = _grouped(pods, catalog, group_by, defaults, frames, notes, problems)
    if not frames:
        raise InputError(
            [
                *problems,
                InputProblem(
                    ", ".join(name for name, _ in files) or "workloads",
                    None,
                    None,
                    "no file lists workloads (DCGM metrics measure them but do not list them)",
                    "add kubectl get pods -A -o json output or a workload CSV",
                ),
            ]
        )
    frame = _unique(
        pd.concat([f[list(FRAME_COLUMNS)] for f, _ in frames], ignore_index=True),
        [file for _, files in frames for file in files],
        problems,
    )
    measurements = dcgm.measure(samples)
    if measurements:
        frame, filled_notes, fill_problems = fill_measured(
            frame,
            measurements,
            class_of={} if grouped is None else grouped.class_of,
            owners={} if grouped is None else grouped.owners,
        )
        replaced = {(n.subject, n.field) for n in filled_notes if n.field}
        notes = [n for n in notes if (n.subject, n.field) not in replaced]
        notes.extend(filled_notes)
        problems.extend(fill_problems)
    return ImportedWorkloads(
        frame,
        tuple(notes),
        tuple(problems),
        tuple(pods),
        measurements,
        tuple((name, found.label) for name, found in used),
        tuple(name for name, found in used if found is Format.PLAN_WORKBOOK),
        () if grouped is None else grouped.cpu_only,
    )


def _on_their_nodes(
    pods: Sequence[PodRequest],
    nodes: Sequence[tuple[str, bytes]],
    catalog: Catalog,
    defaults: WorkloadDefaults,
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> tuple[PodRequest, ...]:
    """The pods as their nodes (``kubectl get nodes`` among ``nodes``) share ``nvidia.com/gpu``,
    with a note naming the pods read as shares, and one naming the whole-GPU pods whose node no
    file gives: on a time-sliced, MPS or MIG single node each would be a share of a GPU."""
    labels: dict[str, Mapping[str, str]] = {}
    for name, data in nodes:
        try:
            if detect_file(name, data, role="inventory").format is Format.KUBECTL_NODES:
                labels.update(kubectl_pods.node_labels(data, name))
        except InputError:
            continue  # the inventory's import reports the file
    placed, left_out = kubectl_pods.on_their_nodes(pods, labels, catalog, defaults=defaults)
    problems.extend(left_out)
    before = {(p.namespace, p.name): p.gpu for p in pods}
    shared = [p for p in placed if p.gpu != before[(p.namespace, p.name)]]
    file = ", ".join(dict.fromkeys(p.file for p in pods))
    if shared:
        notes.append(
            ImportNote(
                file,
                None,
                "spec.nodeName",
                "",
                "",
                str(len(shared)),
                "derived",
                f"{counted(len(shared), 'pod')} on nodes that share their GPUs (time-slicing, "
                "MPS or MIG single) read as shares of a GPU: "
                + ", ".join(f"{shown(p.namespace)}/{shown(p.name)}" for p in shared[:5])
                + (f" and {len(shared) - 5} more" if len(shared) > 5 else ""),
            )
        )
    unplaced = [
        p
        for p in placed
        if p.gpu is not None
        and p.counted
        and p.gpu.resource == "nvidia.com/gpu"
        and p.gpu.gpus_source == "read"
        and p.node not in labels
    ]
    if unplaced:
        notes.append(
            ImportNote(
                file,
                None,
                "spec.nodeName",
                "",
                "",
                str(len(unplaced)),
                "assumed",
                f"{counted(len(unplaced), 'pod')} "
                + ("asks" if len(unplaced) == 1 else "ask")
                + " nvidia.com/gpu on nodes no kubectl get nodes file gives, read as whole "
                "GPUs: on a time-sliced, MPS-shared or MIG single node each is a share of one; "
                "give the nodes' kubectl get nodes -o json with the inventory",
            )
        )
    return placed


def _grouped(
    pods: Sequence[PodRequest],
    catalog: Catalog,
    group_by: str | None,
    defaults: WorkloadDefaults,
    frames: list[tuple[pd.DataFrame, list[str]]],
    notes: list[ImportNote],
    problems: list[InputProblem],
) -> tuple[list[PodRequest], GroupedPods]:
    """The pods of every file, each once in its last state (``kubectl_pods.last_states``),
    grouped into classes; their frame goes to ``frames``, their notes and problems along."""
    unique, repeated = kubectl_pods.last_states(pods)
    notes.extend([] if repeated is None else [repeated])
    grouped = group_pods(unique, catalog, group_by=group_by, defaults=defaults)
    frames.append((grouped.frame, _pod_files(unique, grouped)))
    notes.extend(grouped.notes)
    problems.extend(grouped.problems)
    return list(unique), grouped


def _planner_workloads(
    name: str, data: bytes, detected: Detected, catalog: Catalog
) -> tuple[pd.DataFrame, ImportNote, tuple[InputProblem, ...]]:
    """A workload CSV, or a plan workbook's (from the workbook its detection opened), as the
    import's frame, the note saying how many classes it gave, and the rows it skipped."""
    found = detected.format
    csv = (
        data
        if found is Format.WORKLOADS_CSV
        else plan_inputs_of(detected.workbook, file_name=name).workloads_csv
    )
    loaded = load_workloads(csv, catalog, file_name=name)
    frame = workloads_frame(loaded.value)
    frame["notes"] = f"from {name} ({found.label})"
    note = ImportNote(
        name,
        None,
        "",
        "",
        "",
        str(len(loaded.value)),
        "read",
        f"{counted(len(loaded.value), 'class', 'classes')} read as {found.label}",
    )
    return frame, note, loaded.problems


def _pod_files(pods: Sequence[PodRequest], grouped: GroupedPods) -> list[str]:
    """The files the pods of each class of ``grouped`` came from, one entry per row of its
    frame (several files joined by commas)."""
    files: dict[str, list[str]] = {}
    for pod in pods:
        name = grouped.class_of.get((pod.namespace, pod.name))
        if name is not None:
            files.setdefault(name, []).append(pod.file)
    return [", ".join(dict.fromkeys(files.get(str(n), []))) for n in grouped.frame["name"]]


def _unique(
    frame: pd.DataFrame, row_files: Sequence[str], problems: list[InputProblem]
) -> pd.DataFrame:
    """Class names made unique across files: a later repeat gets ``-2``, with a problem on the
    file it is in (``row_files``: each row's file)."""
    first_file: dict[str, str] = {}
    names = []
    for name, file in zip(frame["name"].astype(str), row_files, strict=True):
        unique, suffix = name, 2
        while unique in first_file:
            unique, suffix = f"{name}-{suffix}", suffix + 1
        if unique != name:
            problems.append(
                InputProblem(
                    file,
                    None,
                    "name",
                    f"class {quoted(name)} is also in {shown(first_file[name])}: renamed "
                    f"{quoted(unique)}",
                    "give the classes distinct names, or import each class from one file",
                )
            )
        first_file[unique] = file
        names.append(unique)
    result = frame.copy()
    result["name"] = names
    return result


def _owner_from_pod(pod: str) -> list[str]:
    """Owner names a pod's name may come from, most specific first: ``chat-7d9f8c6b5d-x2k4q``
    → ``chat-7d9f8c6b5d``, ``chat``; ``db-0`` → ``db``."""
    found = []
    if _POD_SUFFIX.search(pod):
        job_or_rs = _POD_SUFFIX.sub("", pod)
        found.append(job_or_rs)
        deployment = re.sub(r"-[bcdfghjklmnpqrstvwxz2456789]{5,10}$", "", job_or_rs)
        if deployment != job_or_rs:
            found.append(deployment)
    if _ORDINAL.search(pod):
        found.append(_ORDINAL.sub("", pod))
    found.append(pod)
    return found


def _class_of(
    measured: dcgm.GpuMeasurement,
    class_of: Mapping[tuple[str, str], str],
    by_pod_name: Mapping[str, set[str]],
    owners: Mapping[str, str],
    names: Mapping[str, str],
) -> str | None:
    """The class a measured pod belongs to: by (namespace, pod), by pod name when one class has
    it, else by the owner its name comes from (a class of that owner, or a class so named)."""
    found = class_of.get((measured.namespace, measured.pod))
    if found is None and len(by_pod_name.get(measured.pod, set())) == 1:
        found = next(iter(by_pod_name[measured.pod]))
    if found is None:
        for owner in _owner_from_pod(measured.pod):
            found = owners.get(owner) or names.get(owner.lower())
            if found is not None:
                break
    return found


def _fill_peak_memory(
    result: pd.DataFrame,
    rows: pd.Index,
    name: str,
    members: Sequence[dcgm.GpuMeasurement],
    files: str,
    notes: list[ImportNote],
    shared: str,
) -> None:
    """Set ``memory_gib`` of a class's rows to its largest pod's peak frame buffer (GiB), noted
    (``shared`` ends the note: how shared GPUs were split); a zero peak (idle when scraped)
    keeps the figure, noted too."""
    peaks: dict[tuple[str, str], float] = {}
    for m in members:
        if m.memory_used_mib is not None:
            key = (m.namespace, m.pod)
            peaks[key] = peaks.get(key, 0.0) + m.memory_used_mib
    if peaks:
        gib = round(max(peaks.values()) / 1024, 3)
        count = sum(m.memory_samples for m in members)
        if gib > 0:
            result.loc[rows, "memory_gib"] = gib
            notes.append(
                ImportNote(
                    files,
                    None,
                    dcgm.MEMORY_METRIC,
                    name,
                    "memory_gib",
                    f"{gib:g}",
                    "read",
                    f"measured: peak frame buffer used over {counted(count, 'sample')}, "
                    f"largest pod{shared}",
                )
            )
        else:
            notes.append(
                ImportNote(
                    files,
                    None,
                    dcgm.MEMORY_METRIC,
                    name,
                    "",
                    "0",
                    "read",
                    "DCGM measured no frame buffer in use (idle when scraped): the "
                    "memory figure is kept",
                )
            )


def fill_measured(
    frame: pd.DataFrame,
    measurements: Sequence[dcgm.GpuMeasurement],
    *,
    class_of: Mapping[tuple[str, str], str],
    owners: Mapping[str, str],
) -> tuple[pd.DataFrame, list[ImportNote], list[InputProblem]]:
    """``frame`` with ``busy_fraction`` and ``memory_gib`` of each measured class replaced by
    DCGM's figures, a note per value filled, and a note for measurements that match no class.

    ``class_of`` maps (namespace, pod) to class names and ``owners`` owner names to class names
    (both from ``group_pods``); a class name equal to a pod's owner name matches too.
    """
    names = {str(n).lower(): str(n) for n in frame["name"]}
    by_pod_name: dict[str, set[str]] = {}
    for (_, pod), name in class_of.items():
        by_pod_name.setdefault(pod, set()).add(name)
    matched: list[tuple[dcgm.GpuMeasurement, str]] = []
    unmatched_pods: list[str] = []
    without_pod = 0
    for measured in measurements:
        if not measured.pod:
            without_pod += 1
            continue
        found = _class_of(measured, class_of, by_pod_name, owners, names)
        if found is None:
            pod = f"{shown(measured.namespace)}/{shown(measured.pod)}".strip("/")
            unmatched_pods.append(pod)
            continue
        matched.append((measured, found))
    class_of_pod = {(m.namespace, m.pod): found for m, found in matched}
    per_class: dict[str, list[dcgm.GpuMeasurement]] = {}
    # Series of a GPU that pods of other classes (or of none) share are the device's, not the
    # class's: left out, one problem per GPU.
    shared_across: dict[str, list[dcgm.GpuMeasurement]] = {}
    for measured, found in matched:
        if any(class_of_pod.get(other) != found for other in measured.shared_with):
            shared_across.setdefault(_device(measured), []).append(measured)
        else:
            per_class.setdefault(found, []).append(measured)
    notes: list[ImportNote] = []
    result = frame.copy()
    for name, members in per_class.items():
        rows = result.index[result["name"] == name]
        busy = [m for m in members if m.busy_fraction is not None]
        files = ", ".join(dict.fromkeys(f for m in members for f in m.files))
        shared = _split_among_replicas(members)
        if busy:
            value = round(sum(m.busy_fraction or 0.0 for m in busy) / len(busy), 4)
            result.loc[rows, "busy_fraction"] = value
            metrics = ", ".join(dict.fromkeys(m.busy_metric for m in busy))
            count = sum(m.busy_samples for m in busy)
            notes.append(
                ImportNote(
                    files,
                    None,
                    metrics,
                    name,
                    "busy_fraction",
                    f"{value:g}",
                    "read",
                    f"measured: {metrics}, mean of {counted(count, 'sample')} over "
                    f"{len(busy)} GPU series{shared}",
                )
            )
        _fill_peak_memory(result, rows, name, members, files, notes, shared)
    problems = [
        _shared_across_classes(device, members, class_of_pod)
        for device, members in shared_across.items()
    ]
    files = ", ".join(dict.fromkeys(f for m in measurements for f in m.files))
    if without_pod:
        notes.append(
            ImportNote(
                files,
                None,
                "pod",
                "",
                "",
                str(without_pod),
                "read",
                f"{without_pod} GPU series carry no pod label (the exporter maps pods "
                "only on Kubernetes): measured per GPU, matched to no workload",
            )
        )
    # A pod measured on several GPUs (or by several containers) is one pod.
    pods = list(dict.fromkeys(unmatched_pods))
    if pods:
        listed = ", ".join(pods[:5]) + (f" and {len(pods) - 5} more" if len(pods) > 5 else "")
        notes.append(
            ImportNote(
                files,
                None,
                "pod",
                "",
                "",
                str(len(pods)),
                "read",
                f"{counted(len(pods), 'measured pod')} "
                f"{'matches' if len(pods) == 1 else 'match'} no workload class ({listed}): "
                "not used",
            )
        )
    return result, notes, problems


def _device(measured: dcgm.GpuMeasurement) -> str:
    """The GPU or MIG instance a series measures, as messages name it (``GPU-0 on n1``)."""
    gpu = measured.uuid or f"GPU {measured.gpu}"
    if measured.mig_profile:
        gpu = f"MIG instance {measured.mig_instance} ({measured.mig_profile}) of {gpu}"
    return f"{gpu} on {measured.host}" if measured.host else gpu


def _split_among_replicas(members: Sequence[dcgm.GpuMeasurement]) -> str:
    """How a class's shared GPUs were split, to end its notes (empty when none was shared)."""
    pods: dict[str, int] = {}
    for m in members:
        if m.shared_with:
            pods[_device(m)] = max(pods.get(_device(m), 0), len(m.shared_with) + 1)
    if not pods:
        return ""
    where = ", ".join(f"{counted(n, 'pod')} on {device}" for device, n in pods.items())
    return f"; a shared GPU's figures split equally among the class's pods on it: {where}"


def _shared_across_classes(
    device: str,
    members: Sequence[dcgm.GpuMeasurement],
    class_of_pod: Mapping[tuple[str, str], str],
) -> InputProblem:
    """The problem of a GPU whose series name pods of several classes (or of none) at once."""
    pods = sorted(
        {(m.namespace, m.pod) for m in members} | {p for m in members for p in m.shared_with}
    )
    shown_pods = [f"{shown(namespace)}/{shown(pod)}".strip("/") for namespace, pod in pods]
    listed = ", ".join(shown_pods[:5]) + (f" and {len(pods) - 5} more" if len(pods) > 5 else "")
    classes = list(dict.fromkeys(class_of_pod[p] for p in pods if p in class_of_pod))
    without = sum(1 for p in pods if p not in class_of_pod)
    of = f"{'class' if len(classes) == 1 else 'classes'} {', '.join(map(quoted, classes))}"
    if without:
        of += f" and {counted(without, 'pod')} of no class"
    return InputProblem(
        ", ".join(dict.fromkeys(f for m in members for f in m.files)),
        None,
        None,
        f"{device} carries the series of {counted(len(pods), 'pod')} at once ({listed}, of "
        f"{of}): on a time-sliced or MPS GPU the exporter repeats the whole device's figures "
        "on each pod's series, so no pod's own use is known: they are not used, and each class "
        "keeps its busy_fraction and memory_gib as given, or as measured on GPUs of its own",
        "measure each class on GPUs or MIG instances of its own, or measure per process "
        "(dcgmi stats with job statistics enabled, or nvidia-smi "
        "--query-compute-apps=pid,used_memory) and give busy_fraction and memory_gib in a "
        "workload CSV",
    )


def measurements_frame(measurements: Sequence[dcgm.GpuMeasurement]) -> pd.DataFrame:
    """One row per DCGM series: host, gpu, uuid, model, mig_profile, mig_instance, namespace,
    pod, container, busy_fraction [0-1], busy_metric, busy_samples, memory_used_gib [GiB] (peak),
    memory_samples, files, shared_with (the other pods on the GPU at once, whose figures were
    split equally with this pod's)."""
    rows = [
        {
            "host": m.host,
            "gpu": m.gpu,
            "uuid": m.uuid,
            "model": m.model_name,
            "mig_profile": m.mig_profile,
            "mig_instance": m.mig_instance,
            "namespace": m.namespace,
            "pod": m.pod,
            "container": m.container,
            "busy_fraction": m.busy_fraction,
            "busy_metric": m.busy_metric,
            "busy_samples": m.busy_samples,
            "memory_used_gib": None if m.memory_used_mib is None else m.memory_used_mib / 1024,
            "memory_samples": m.memory_samples,
            "files": ", ".join(m.files),
            "shared_with": ", ".join(f"{ns}/{pod}".strip("/") for ns, pod in m.shared_with),
        }
        for m in measurements
    ]
    columns = [
        "host",
        "gpu",
        "uuid",
        "model",
        "mig_profile",
        "mig_instance",
        "namespace",
        "pod",
        "container",
        "busy_fraction",
        "busy_metric",
        "busy_samples",
        "memory_used_gib",
        "memory_samples",
        "files",
        "shared_with",
    ]
    return pd.DataFrame(rows, columns=columns)
