"""The most GPU capacity any fit of share requests can allocate on a set of hosts: an upper bound.

A linear relaxation over groups of identical hosts (same model, GPUs, cores and RAM) that
ignores which host of a group a pod takes, but keeps what decides GPU fragmentation:

- ``w[c, g]`` pods of whole-GPU class ``c`` (``k_c`` GPUs, allowed models ``A_c``) on group
  ``g``, only where the group's model is allowed and its hosts have at least ``k_c`` GPUs:
  ``Σ_g w[c, g] ≤ n_c``.
- ``y[p, m]`` GPUs of model ``m`` filled with pattern ``p``, a multiset of share sizes whose
  compute and memory each sum to at most one GPU; ``z[g]`` GPUs of group ``g`` given to shares,
  ``Σ_p y[p, m] ≤ Σ_{g of m} z[g]``; ``x[s, A, g]`` shares of size ``s`` with model list ``A``
  on ``g``: ``Σ_{A, g of m} x[s, A, g] ≤ Σ_p y[p, m] p_s``, ``Σ_g x[s, A, g] ≤ n_{s, A}``, and
  the shares on a group hold at most its share GPUs' compute and memory (``Σ compute_s x ≤
  1000 z[g]``, the same for memory).
- Each group's GPUs: ``Σ_c k_c w[c, g] + z[g] ≤ G_g``; the cores and RAM of the pods on a
  group fit its hosts' cores and RAM together.

Maximise ``Σ k_c w[c, g] + Σ compute_s x[s, A, g]`` [thousandths of a GPU]. Every fit gives a
point of this polytope with that value, so the LP optimum bounds every fit, also when whole-GPU
demand exceeds the cluster. When share sizes allow too many patterns the pattern rows are
replaced by their volume (``Σ compute ≤`` GPUs given to shares), a looser but still valid bound.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from planner.inputs.inventory import Host
from planner.solve.shares import FULL_MILLI, ShareRequest

__all__ = ["MAX_PATTERNS", "allocation_upper_bound"]

MAX_PATTERNS = 20_000
"""Above this many one-GPU patterns per model the bound falls back to volume rows."""

_Size = tuple[int, int]
"""(compute, memory) thousandths of one share."""


def _patterns(sizes: Sequence[_Size], counts: Sequence[int]) -> list[tuple[int, ...]] | None:
    """Every non-empty multiset of ``sizes`` (at most ``counts`` of each) within one GPU of
    compute and of memory, as counts per size; None past ``MAX_PATTERNS``."""
    found: list[tuple[int, ...]] = []
    current = [0] * len(sizes)

    def walk(k: int, compute: int, memory: int) -> bool:
        if k == len(sizes):
            if any(current):
                found.append(tuple(current))
            return len(found) <= MAX_PATTERNS
        c, m = sizes[k]
        most = min(counts[k], compute // max(c, 1), memory // max(m, 1))
        for copies in range(most, -1, -1):
            current[k] = copies
            if not walk(k + 1, compute - copies * c, memory - copies * m):
                return False
        current[k] = 0
        return True

    return found if walk(0, FULL_MILLI, FULL_MILLI) else None


class _Columns:
    """LP columns with their objective and rows, built up by name, solved as a sparse LP."""

    def __init__(self) -> None:
        self.value: list[float] = []
        self.entries: list[tuple[str, int, float]] = []
        self.limits: dict[str, float] = {}

    def add(self, value: float, rows: dict[str, float]) -> None:
        column = len(self.value)
        self.value.append(value)
        self.entries.extend((row, column, coefficient) for row, coefficient in rows.items())

    def solve(self) -> float:
        if not self.value:
            return 0.0
        # SciPy loads when a bound is solved, not when the planner is imported.
        from scipy.optimize import linprog
        from scipy.sparse import coo_array

        names = sorted(self.limits)
        index = {name: i for i, name in enumerate(names)}
        matrix = coo_array(
            (
                [coefficient for _, _, coefficient in self.entries],
                (
                    [index[row] for row, _, _ in self.entries],
                    [column for _, column, _ in self.entries],
                ),
            ),
            shape=(len(names), len(self.value)),
        ).tocsr()
        # HiGHS reads sparse rows; the scipy stubs list dense arrays only.
        result = linprog(  # type: ignore[call-overload]
            -np.array(self.value),
            A_ub=matrix,
            b_ub=np.array([self.limits[n] for n in names]),
            bounds=(0, None),
            method="highs",
        )
        if result.status != 0 or result.fun is None:
            raise RuntimeError(f"the allocation bound's LP did not solve: {result.message}")
        return float(-result.fun)


def allocation_upper_bound(requests: Sequence[ShareRequest], hosts: Sequence[Host]) -> float:
    """No fit of ``requests`` on ``hosts`` allocates more GPU capacity than this [GPUs]."""
    groups = _groups(hosts)
    lp = _Columns()
    for n, (_, gpus, cores, ram, count) in enumerate(groups):
        lp.limits[f"gpus {n}"] = gpus * count
        lp.limits[f"cores {n}"] = cores * count
        lp.limits[f"ram {n}"] = ram * count
    _whole_columns(lp, requests, groups)
    _share_columns(lp, requests, groups)
    return lp.solve() / FULL_MILLI


_Group = tuple[str, int, float, float, int]
"""Identical hosts: (model, GPUs, cores, RAM [GiB], how many)."""


def _groups(hosts: Sequence[Host]) -> list[_Group]:
    counts: dict[tuple[str, int, float, float], int] = {}
    for h in hosts:
        if h.gpus > 0:
            key = (h.gpu_model, h.gpus, h.cpu_cores, h.ram_gib)
            counts[key] = counts.get(key, 0) + 1
    return [(*key, count) for key, count in sorted(counts.items())]


def _allowed(groups: Sequence[_Group], names: tuple[str, ...], gpus: int = 1) -> list[int]:
    """Groups of an allowed model whose hosts each have at least ``gpus`` GPUs."""
    return [n for n, g in enumerate(groups) if (not names or g[0] in names) and g[1] >= gpus]


def _whole_columns(
    lp: _Columns, requests: Sequence[ShareRequest], groups: Sequence[_Group]
) -> None:
    classes: dict[tuple[int, tuple[str, ...], float, float], int] = {}
    for r in requests:
        if r.gpus:
            key = (r.gpus, r.gpu_models, r.cpu_cores, r.ram_gib)
            classes[key] = classes.get(key, 0) + 1
    for n, ((k, names, cores, ram), count) in enumerate(sorted(classes.items())):
        lp.limits[f"whole {n}"] = count
        for g in _allowed(groups, names, k):
            # Pods of the class on hosts of group g: its GPUs, cores and RAM.
            rows = {f"whole {n}": 1.0, f"gpus {g}": float(k), f"cores {g}": cores, f"ram {g}": ram}
            lp.add(k * FULL_MILLI, rows)


def _share_columns(
    lp: _Columns, requests: Sequence[ShareRequest], groups: Sequence[_Group]
) -> None:
    classes: dict[tuple[_Size, tuple[str, ...], float, float], int] = {}
    for r in requests:
        if not r.gpus and r.uses_gpu:
            key = ((r.compute_milli, r.memory_milli), r.gpu_models, r.cpu_cores, r.ram_gib)
            classes[key] = classes.get(key, 0) + 1
    by_pattern: dict[str, bool] = {}
    for model in sorted({g[0] for g in groups}):
        counts: dict[_Size, int] = {}
        for (size, names, _, _), count in classes.items():
            if not names or model in names:
                counts[size] = counts.get(size, 0) + count
        if counts:
            by_pattern[model] = _pattern_columns(lp, model, counts)
    for g, (model, *_rest) in enumerate(groups):
        if model in by_pattern:
            # GPUs of group g given to shares hold at most their compute and memory.
            lp.limits[f"compute {g}"] = 0.0
            lp.limits[f"memory {g}"] = 0.0
            rows = {f"gpus {g}": 1.0, f"compute {g}": -FULL_MILLI, f"memory {g}": -FULL_MILLI}
            rows[f"pattern gpus {model}"] = -1.0
            lp.add(0.0, rows)
    for n, ((size, names, cores, ram), count) in enumerate(sorted(classes.items())):
        lp.limits[f"shares {n}"] = count
        for g in _allowed(groups, names):
            model = groups[g][0]
            # Each share needs room in a pattern of its size, or volume on its model's GPUs.
            room = f"size {size} on {model}" if by_pattern[model] else f"volume {model}"
            rows = {f"shares {n}": 1.0, room: 1.0 if by_pattern[model] else max(size)}
            rows |= {f"compute {g}": size[0], f"memory {g}": size[1]}
            rows |= {f"cores {g}": cores, f"ram {g}": ram}
            lp.add(size[0], rows)


def _pattern_columns(lp: _Columns, model: str, counts: dict[_Size, int]) -> bool:
    """One column per one-GPU pattern of ``model``, each taking one of the GPUs the model's
    groups give to shares; with too many patterns, a volume row on those GPUs instead. True
    when patterns were used."""
    sizes = sorted(counts, reverse=True)
    patterns = _patterns(sizes, [counts[s] for s in sizes])
    lp.limits[f"pattern gpus {model}"] = 0.0
    if patterns is None:
        lp.limits[f"volume {model}"] = 0.0
        lp.add(0.0, {f"pattern gpus {model}": 1.0, f"volume {model}": -float(FULL_MILLI)})
        return False
    for size in sizes:
        lp.limits[f"size {size} on {model}"] = 0.0
    for pattern in patterns:
        rows = {f"size {s} on {model}": -float(c) for s, c in zip(sizes, pattern, strict=True) if c}
        rows[f"pattern gpus {model}"] = 1.0
        lp.add(0.0, rows)
    return True
