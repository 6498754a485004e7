"""Measured GPU use from NVIDIA's DCGM exporter: busy share and memory per GPU, instance or pod.

The exporter's ``/metrics`` page is Prometheus text: ``# HELP``/``# TYPE`` lines, then one
``NAME{label="value",...} value [timestamp]`` line per series and sample. Metrics read:

- ``DCGM_FI_PROF_GR_ENGINE_ACTIVE``: share of time the graphics/compute engine is active [0-1];
  preferred, as it counts time rather than sampling one kernel at a time.
- ``DCGM_FI_DEV_GPU_UTIL``: share of time a kernel ran [%]; used when the first is absent.
- ``DCGM_FI_DEV_FB_USED``: frame buffer in use [MiB].

A series is one GPU (``gpu``, ``UUID``, ``Hostname`` or ``hostname``), or one MIG instance of
it (``GPU_I_PROFILE``, ``GPU_I_ID``), and names the pod using it when the exporter maps pods
(``pod``, ``namespace``, ``container``; ``pod_name``, ``pod_namespace``, ``container_name``
when it runs with ``--use-old-namespace``; behind a Prometheus the exporter's own ``pod``
labels become ``exported_pod`` and so on, which then win). Several samples of a series, in one
scrape file or several, are combined: the busy fraction is their mean, the memory their
maximum (the peak a workload needs room for). Read with the catalog, a frame-buffer sample
larger than the memory of the GPU model its ``modelName`` label names cannot be measured: it is
left out with a problem naming its line.

DCGM measures devices, not processes. When several pods share one GPU by time-slicing or MPS,
the exporter labels a copy of each device series with each pod using it, every copy holding
the whole device's value (NVIDIA/dcgm-exporter issue #587, "--kubernetes-virtual-gpus exports
identical values for all pods instead of per-pod utilization"; also #307). Series of several
pods carrying one GPU (the same host and ``UUID``, or host and ``gpu`` index without a UUID;
the same MIG instance) in one scrape are such copies: each sample is divided equally among
the pods, so the pods' shares add up to the device's figure, and each measurement names the
pods it shared with (``shared_with``), since an equal share is an assumption, not a
measurement of the pod. Samples of different files or timestamps are different times: pods
seen one after the other on a GPU did not share it. So are scrapes appended to one file
(``curl`` in a loop; the page gives no timestamps): a series, a metric's ``# HELP`` or
``# TYPE`` line, or a metric's group of lines seen again starts the next scrape. A pod on
several GPUs has one series per GPU, each its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from planner.inputs.catalog import Catalog, GpuModel
from planner.inputs.importers.gpu_names import match_gpu_name
from planner.inputs.importers.text import tool_text
from planner.inputs.problems import InputError, InputProblem, first_problems
from planner.inputs.tabular import quoted, visible_name

__all__ = [
    "BUSY_METRICS",
    "MEMORY_METRIC",
    "TOOL",
    "GpuMeasurement",
    "Sample",
    "measure",
    "read_dcgm_samples",
]

TOOL = "DCGM exporter metrics"
BUSY_METRICS = ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_UTIL")
"""Busy-time metrics in order of preference; GPU_UTIL is in percent, the other a ratio."""
_BUSY_MAXIMUM = {"DCGM_FI_PROF_GR_ENGINE_ACTIVE": (1.0, ""), "DCGM_FI_DEV_GPU_UTIL": (100.0, " %")}
"""The largest value of each busy metric (all of the time), with its unit as written."""
MEMORY_METRIC = "DCGM_FI_DEV_FB_USED"
"""Frame buffer used [MiB]."""
_MEMORY_MAXIMUM_MIB = 2.0**20
"""Frame buffer used above which a sample is an exporter fault [MiB]: 1 TiB, several times the
largest GPU's memory (H200: 141 GB)."""

_HOST_LABELS = ("Hostname", "hostname", "exported_Hostname", "exported_hostname")
"""Labels naming a series' host, most telling first."""

_LINE = re.compile(
    r"^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)\s*(?:\{(?P<labels>.*)\})?\s+"
    r"(?P<value>\S+)(?:\s+(?P<timestamp>-?\d+))?\s*$"
)
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@dataclass(frozen=True)
class Sample:
    """One sample of one DCGM series."""

    metric: str
    labels: Mapping[str, str]
    value: float
    file: str
    line: int
    timestamp: int | None = None
    """Milliseconds since 1970 as the line gives it; None for the time of the scrape."""
    scrape: int = 0
    """Which scrape of the file the line belongs to, counting from 0, for scrapes appended to
    one file."""


def _labels(text: str) -> dict[str, str] | None:
    found: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _LABEL.match(text, position)
        if match is None or match.end() == position:
            return None
        value = re.sub(r"\\[\\\"n]", lambda m: _ESCAPES[m.group(0)], match.group(2))
        found[match.group(1)] = value
        position = match.end()
    return found


def read_dcgm_samples(
    data: bytes, file: str, catalog: Catalog | None = None
) -> tuple[list[Sample], list[InputProblem]]:
    """The busy and memory samples of a DCGM exporter scrape (other metrics are ignored), and a
    problem per metric line that cannot be read.

    With ``catalog``, a ``DCGM_FI_DEV_FB_USED`` sample above the memory of the GPU model its
    ``modelName`` label names is such a line (a model the catalog lacks, or one a name leaves
    open, bounds nothing).

    Raises ``InputError`` when no line is a ``DCGM_FI_`` metric.
    """
    text = tool_text(data, file)
    samples: list[Sample] = []
    problems: list[InputProblem] = []
    models: dict[str, GpuModel | None] = {}
    hosts: dict[str, str] = {}
    dcgm_lines = 0
    scrape = _Scrapes()
    for number, line in text.lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            scrape.comment(stripped)
            continue
        if not stripped:
            continue
        match = _LINE.match(stripped)
        if match is None:
            problems.append(
                InputProblem(
                    file,
                    number,
                    None,
                    "not a Prometheus metric line: ignored",
                    "give the exporter's /metrics output unchanged",
                )
            )
            continue
        name = match.group("name")
        scrape.series(name, match.group("labels") or "")
        if name.startswith("DCGM_FI_"):
            dcgm_lines += 1
        if name not in (*BUSY_METRICS, MEMORY_METRIC):
            continue
        labels = _labels(match.group("labels") or "")
        try:
            value = float(match.group("value"))
        except ValueError:
            value = math.nan
        if labels is None or not math.isfinite(value) or value < 0:
            problems.append(
                InputProblem(
                    file,
                    number,
                    name,
                    f"the {name} sample cannot be read: ignored",
                    "give the exporter's /metrics output unchanged",
                )
            )
            continue
        timestamp = match.group("timestamp")
        sample = Sample(
            name,
            _visible_hosts(labels, hosts, file, number, problems),
            value,
            file,
            number,
            None if timestamp is None else int(timestamp),
            scrape.number,
        )
        written = labels.get("modelName", "")
        if name == MEMORY_METRIC and catalog is not None and written not in models:
            models[written] = _named_model(written, catalog) if written else None
        impossible = _impossible(sample, models.get(written))
        if impossible is not None:
            problems.append(impossible)
            continue
        samples.append(sample)
    if not dcgm_lines:
        raise InputError(
            [
                *first_problems(problems, 3),
                InputProblem(
                    file,
                    None,
                    None,
                    "no DCGM_FI_ metric in the file",
                    "give the DCGM exporter's metrics (curl -s <exporter>:9400/metrics)",
                ),
            ]
        )
    return samples, problems


class _Scrapes:
    """Counts the scrapes appended to one file. A scrape lists each metric's lines as one group,
    its ``# HELP`` and ``# TYPE`` lines first, and each series once (the Prometheus text
    format), so a series, a ``# HELP`` or ``# TYPE`` line or a metric's group seen again starts
    the next scrape."""

    def __init__(self) -> None:
        self.number = 0
        self._lines: set[tuple[str, ...]] = set()
        """Series and # HELP or # TYPE lines of this scrape."""
        self._metrics: set[str] = set()
        """Metrics listed in this scrape."""
        self._metric = ""
        """The metric whose group is being listed."""

    def comment(self, line: str) -> None:
        words = line.split(maxsplit=3)
        if len(words) >= 3 and words[1] in ("HELP", "TYPE"):
            self._see(words[2], (words[1], words[2]))

    def series(self, metric: str, labels: str) -> None:
        self._see(metric, ("series", metric, labels))

    def _see(self, metric: str, line: tuple[str, ...]) -> None:
        if line in self._lines or (metric != self._metric and metric in self._metrics):
            self.number += 1
            self._lines.clear()
            self._metrics.clear()
        self._lines.add(line)
        self._metrics.add(metric)
        self._metric = metric


def _visible_hosts(
    labels: dict[str, str],
    hosts: dict[str, str],
    file: str,
    line: int,
    problems: list[InputProblem],
) -> dict[str, str]:
    """``labels`` with each host label read without its invisible characters, as every
    importer reads host names, so a series' host reads as the other files' hosts do. The first
    line giving a host name with such characters adds a problem quoting it; ``hosts`` holds each
    host label value seen, as read. A host label of invisible characters only names no host:
    the series' host is read from the next host label, or the series has none, and the first
    line giving it adds a problem saying which."""
    emptied: list[tuple[str, str]] = []
    for label in _HOST_LABELS:
        written = labels.get(label)
        if not written:
            continue
        if written not in hosts:
            where = partial(InputProblem, file, line, label, row_kept=True)
            hosts[written] = visible_name(written, "host name", where, problems)
            if not hosts[written]:
                emptied.append((label, written))
        labels[label] = hosts[written]
    for label, written in emptied:
        used = next((name for name in _HOST_LABELS if labels.get(name)), None)
        instead = (
            "the series is read without a host"
            if used is None
            else f"the series' host is read from its {used} label, {quoted(labels[used])}"
        )
        problems.append(
            InputProblem(
                file,
                line,
                label,
                f"the host name {quoted(written)} holds only invisible characters: {instead}",
                f"give the {label} label the host's name (or drop the label)",
                row_kept=True,
            )
        )
    return labels


def _named_model(written: str, catalog: Catalog) -> GpuModel | None:
    """The catalog model a ``modelName`` label names, when the name alone settles it (not a
    model picked among several that fit)."""
    found = match_gpu_name(written, catalog)
    if found.model is None or found.source == "assumed":
        return None
    return catalog.gpus[found.model]


def _impossible(sample: Sample, model: GpuModel | None) -> InputProblem | None:
    """The problem of a sample no GPU can give, which is then left out: frame buffer above
    1 TiB or above the memory of ``model`` (the GPU its ``modelName`` names), a busy share above
    all of the time. None for a possible sample."""
    name, value = sample.metric, sample.value
    where = (sample.file, sample.line, name)
    if name == MEMORY_METRIC and value > _MEMORY_MAXIMUM_MIB:
        # The peak of the samples is the memory a workload needs: one corrupt sample would
        # be the whole class's need.
        return InputProblem(
            *where,
            f"{name} is {value:g} MiB, above {_MEMORY_MAXIMUM_MIB:,.0f} MiB (1 TiB, more "
            "than any GPU holds): the sample is left out",
            "give the exporter's /metrics output unchanged; such a value comes from an "
            "exporter or relabelling fault",
        )
    if name == MEMORY_METRIC and model is not None and value > model.memory_gib * 1024:
        return InputProblem(
            *where,
            f"{name} is {value:g} MiB, more than the {model.memory_gib:g} GiB "
            f"({model.memory_gib * 1024:,.0f} MiB) of the {model.name} its modelName "
            f"{quoted(sample.labels['modelName'])} names: the sample is left out",
            "give the exporter's /metrics output unchanged (a GPU cannot use more memory than "
            "it has: such a value comes from an exporter or relabelling fault); correct the "
            f"modelName label if the GPU is not the {model.name} it names",
        )
    maximum, unit = _BUSY_MAXIMUM.get(name, (math.inf, ""))
    if value > maximum:
        return InputProblem(
            *where,
            f"{name} is {value:g}{unit}, above {maximum:g}{unit} (busy all of the time): "
            "the sample is left out, not taken as fully busy",
            "give the exporter's /metrics output unchanged; a value above the maximum "
            "comes from an exporter or relabelling fault",
        )
    return None


def _label(labels: Mapping[str, str], *names: str) -> str:
    """The first label of ``names`` present and non-empty."""
    return next((labels[n] for n in names if labels.get(n)), "")


@dataclass(frozen=True)
class GpuMeasurement:
    """What DCGM measured on one GPU, MIG instance or pod's share of it, over every sample."""

    host: str
    gpu: str
    """GPU index as the exporter numbers it."""
    uuid: str
    model_name: str
    """The exporter's ``modelName`` (``NVIDIA L4``)."""
    mig_profile: str
    """``GPU_I_PROFILE`` of a MIG instance (``1g.10gb``); empty for a whole GPU."""
    mig_instance: str
    """``GPU_I_ID``; empty for a whole GPU."""
    namespace: str
    pod: str
    container: str
    busy_fraction: float | None
    """Mean share of time busy [0-1]; None when no busy metric was scraped."""
    busy_metric: str
    busy_samples: int
    memory_used_mib: float | None
    """Peak frame buffer used [MiB]; None when FB_USED was not scraped."""
    memory_samples: int
    files: tuple[str, ...]
    """Files the samples came from, in order."""
    shared_with: tuple[tuple[str, str], ...] = ()
    """(namespace, pod) of the other pods whose series carry the same GPU at the time of one
    of this series' samples; those samples are the device's figure divided equally among the
    pods. Empty when no other pod's series carried the GPU."""


def measure(samples: Sequence[Sample]) -> tuple[GpuMeasurement, ...]:
    """One measurement per series key (host, GPU, MIG instance, pod, container), over all
    samples: busy fraction the mean of the preferred busy metric present for that key, memory the
    peak of ``DCGM_FI_DEV_FB_USED``; a sample of a GPU carried by several pods' series at one
    time is divided equally among those pods first."""
    grouped: dict[tuple[str, ...], list[Sample]] = {}
    for sample in samples:
        grouped.setdefault(_series_key(sample.labels), []).append(sample)
    sharing = _pods_at_once(grouped)
    found = []
    for key, members in grouped.items():
        pod = (key[5], key[6])
        busy_metric = next((m for m in BUSY_METRICS if any(s.metric == m for s in members)), "")
        busy = [_share(s, key, sharing) for s in members if s.metric == busy_metric]
        memory = [_share(s, key, sharing) for s in members if s.metric == MEMORY_METRIC]
        model = next((s.labels.get("modelName", "") for s in members), "")
        others: set[tuple[str, str]] = set()
        if key[6]:
            others = set().union(*(sharing[_moment(s, key)] for s in members)) - {pod}
        found.append(
            GpuMeasurement(
                host=key[0],
                gpu=key[1],
                uuid=key[2],
                model_name=model,
                mig_profile=key[3],
                mig_instance=key[4],
                namespace=key[5],
                pod=key[6],
                container=key[7],
                # Over the metric's value when busy all of the time: a fraction of the time.
                busy_fraction=sum(busy) / len(busy) / _BUSY_MAXIMUM[busy_metric][0]
                if busy
                else None,
                busy_metric=busy_metric,
                busy_samples=len(busy),
                memory_used_mib=max(memory) if memory else None,
                memory_samples=len(memory),
                files=tuple(dict.fromkeys(s.file for s in members)),
                shared_with=tuple(sorted(others)),
            )
        )
    return tuple(found)


_POD_LABELS = (
    ("exported_pod", "exported_namespace", "exported_container"),
    ("pod_name", "pod_namespace", "container_name"),
    ("pod", "namespace", "container"),
)
"""The (pod, namespace, container) labels naming the pod using a series' GPU, most telling
first: the exporter's own renamed by a Prometheus (whose ``pod`` is then the exporter's pod),
the exporter's under ``--use-old-namespace`` (beside which a Prometheus's ``pod`` is also the
exporter's), the exporter's own."""


def _series_key(labels: Mapping[str, str]) -> tuple[str, ...]:
    """(host, gpu, uuid, MIG profile, MIG instance, namespace, pod, container) of a series."""
    pod_label, namespace_label, container_label = next(
        (names for names in _POD_LABELS if labels.get(names[0])), _POD_LABELS[-1]
    )
    pod = labels.get(pod_label, "")
    return (
        _label(labels, *_HOST_LABELS),
        _label(labels, "gpu", "exported_gpu"),
        _label(labels, "UUID", "uuid", "exported_UUID"),
        _label(labels, "GPU_I_PROFILE"),
        _label(labels, "GPU_I_ID"),
        _label(labels, namespace_label, "namespace") if pod else "",
        pod,
        _label(labels, container_label, "container") if pod else "",
    )


_Moment = tuple[str, int | None, int | None, str, str, str, str, str]
"""(file, timestamp, scrape of the file when the line gives no timestamp, metric, host, UUID or
else gpu index, MIG profile, MIG instance): one device's sample of one metric at one time."""


def _moment(sample: Sample, key: tuple[str, ...]) -> _Moment:
    host, gpu, uuid, profile, instance = key[:5]
    # A timestamp is the time itself: lines of one time may be listed apart, series by series.
    scrape = sample.scrape if sample.timestamp is None else None
    return (
        sample.file,
        sample.timestamp,
        scrape,
        sample.metric,
        host,
        uuid or gpu,
        profile,
        instance,
    )


def _pods_at_once(
    grouped: Mapping[tuple[str, ...], Sequence[Sample]],
) -> dict[_Moment, set[tuple[str, str]]]:
    """The (namespace, pod) of every pod whose series carry each device's metric at one time."""
    pods: dict[_Moment, set[tuple[str, str]]] = {}
    for key, members in grouped.items():
        if key[6]:
            for sample in members:
                pods.setdefault(_moment(sample, key), set()).add((key[5], key[6]))
    return pods


def _share(
    sample: Sample, key: tuple[str, ...], sharing: Mapping[_Moment, set[tuple[str, str]]]
) -> float:
    """The sample's value divided equally among the pods whose series carry its GPU at its
    time (the device's figure repeated on each, not each pod's own)."""
    if not key[6]:
        return sample.value
    return sample.value / len(sharing[_moment(sample, key)])
