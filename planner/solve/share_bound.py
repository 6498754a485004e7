"""The most GPU capacity any fit of share requests can allocate on a set of hosts: an upper bound.

A linear relaxation that ignores host cores and RAM and which host of a model a pod takes, but
keeps what decides GPU fragmentation:

- ``w[c, m]`` pods of whole-GPU class ``c`` (``k_c`` GPUs, allowed models ``A_c``) on model
  ``m``: ``Σ_m w[c, m] ≤ n_c``; pods of ``k`` GPUs or more need hosts with at least ``k`` GPUs,
  so for every ``K``, ``Σ_{c: k_c ≥ K} k_c w[c, m] ≤`` GPUs of model ``m`` on hosts with at least
  ``K`` GPUs.
- ``y[p, m]`` GPUs of model ``m`` filled with pattern ``p``, a multiset of share sizes whose
  compute and memory each sum to at most one GPU; ``x[s, A, m]`` shares of size ``s`` with model
  list ``A`` on ``m``: ``Σ_A x[s, A, m] ≤ Σ_p y[p, m] p_s`` and ``Σ_m x[s, A, m] ≤ n_{s, A}``.
- Each model's GPUs: ``Σ_c k_c w[c, m] + Σ_p y[p, m] ≤ G_m``; the cores and RAM of the pods
  on a model's GPUs fit the cores and RAM of that model's hosts together.

Maximise ``Σ k_c w[c, m] + Σ compute_s x[s, A, m]`` [thousandths of a GPU]. Every fit gives a
point of this polytope with that value, so the LP optimum bounds every fit, also when whole-GPU
demand exceeds the cluster. When share sizes allow too many patterns the pattern rows are
replaced by their volume (``Σ compute ≤`` GPUs given to shares), a looser but still valid bound.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linprog

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
    """LP columns with their objective and rows, built up by name (sparse, then dense)."""

    def __init__(self) -> None:
        self.value: list[float] = []
        self.entries: list[tuple[str, int, float]] = []
        self.limits: dict[str, float] = {}

    def add(self, value: float, rows: dict[str, float]) -> None:
        column = len(self.value)
        self.value.append(value)
        self.entries.extend((row, column, coefficient) for row, coefficient in rows.items())

    def solve(self) -> float:
        names = sorted(self.limits)
        index = {name: i for i, name in enumerate(names)}
        matrix = np.zeros((len(names), len(self.value)))
        for row, column, coefficient in self.entries:
            matrix[index[row], column] += coefficient
        result = linprog(
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
    gpus_by_model: dict[str, int] = {}
    for h in hosts:
        gpus_by_model[h.gpu_model] = gpus_by_model.get(h.gpu_model, 0) + h.gpus
    models = sorted(m for m, n in gpus_by_model.items() if n > 0)
    lp = _Columns()
    for m in models:
        lp.limits[f"gpus {m}"] = gpus_by_model[m]
        lp.limits[f"cores {m}"] = sum(h.cpu_cores for h in hosts if h.gpu_model == m)
        lp.limits[f"ram {m}"] = sum(h.ram_gib for h in hosts if h.gpu_model == m)
        for k in sorted({r.gpus for r in requests if r.gpus > 1}):
            lp.limits[f"gpus {m} on hosts of {k}+"] = sum(
                h.gpus for h in hosts if h.gpu_model == m and h.gpus >= k
            )
    _whole_columns(lp, requests, models)
    _share_columns(lp, requests, models)
    return lp.solve() / FULL_MILLI


def _allowed(models: Sequence[str], names: tuple[str, ...]) -> list[str]:
    return [m for m in models if not names or m in names]


def _whole_columns(lp: _Columns, requests: Sequence[ShareRequest], models: Sequence[str]) -> None:
    classes: dict[tuple[int, tuple[str, ...], float, float], int] = {}
    for r in requests:
        if r.gpus:
            key = (r.gpus, r.gpu_models, r.cpu_cores, r.ram_gib)
            classes[key] = classes.get(key, 0) + 1
    for n, ((k, names, cores, ram), count) in enumerate(sorted(classes.items())):
        lp.limits[f"whole {n}"] = count
        for m in _allowed(models, names):
            rows = {f"whole {n}": 1.0, f"gpus {m}": float(k), f"cores {m}": cores, f"ram {m}": ram}
            for j in range(2, k + 1):
                if f"gpus {m} on hosts of {j}+" in lp.limits:
                    rows[f"gpus {m} on hosts of {j}+"] = float(k)
            lp.add(k * FULL_MILLI, rows)


def _share_columns(lp: _Columns, requests: Sequence[ShareRequest], models: Sequence[str]) -> None:
    classes: dict[tuple[_Size, tuple[str, ...], float, float], int] = {}
    for r in requests:
        if not r.gpus and r.uses_gpu:
            key = ((r.compute_milli, r.memory_milli), r.gpu_models, r.cpu_cores, r.ram_gib)
            classes[key] = classes.get(key, 0) + 1
    by_pattern: dict[str, bool] = {}
    for m in models:
        counts: dict[_Size, int] = {}
        for (size, names, _, _), count in classes.items():
            if not names or m in names:
                counts[size] = counts.get(size, 0) + count
        if counts:
            by_pattern[m] = _pattern_columns(lp, m, counts)
    for n, ((size, names, cores, ram), count) in enumerate(sorted(classes.items())):
        lp.limits[f"shares {n}"] = count
        for m in _allowed(models, names):
            # Each share needs room in a pattern of its size, or volume on the GPUs for shares.
            room = f"size {size} on {m}" if by_pattern[m] else f"volume {m}"
            lp.add(
                size[0],
                {
                    f"shares {n}": 1.0,
                    room: 1.0 if by_pattern[m] else max(size),
                    f"cores {m}": cores,
                    f"ram {m}": ram,
                },
            )


def _pattern_columns(lp: _Columns, model: str, counts: dict[_Size, int]) -> bool:
    """One column per one-GPU pattern of ``model``; with too many patterns, one column of GPUs
    given to shares and a volume row. True when patterns were used."""
    sizes = sorted(counts, reverse=True)
    patterns = _patterns(sizes, [counts[s] for s in sizes])
    if patterns is None:
        lp.limits[f"volume {model}"] = 0.0
        lp.add(0.0, {f"gpus {model}": 1.0, f"volume {model}": -float(FULL_MILLI)})
        return False
    for size in sizes:
        lp.limits[f"size {size} on {model}"] = 0.0
    for pattern in patterns:
        rows = {f"size {s} on {model}": -float(c) for s, c in zip(sizes, pattern, strict=True) if c}
        rows[f"gpus {model}"] = 1.0
        lp.add(0.0, rows)
    return True
