"""Pattern covering: the fewest GPUs, each set up by one pattern, that hold a demand per item kind.

A *pattern* is one way to set up a GPU, given as how many items of each kind it holds (a MIG
layout holds one ``3g.40gb`` and three ``1g.10gb``; a mixed-size vGPU GPU holds two ``16C`` and
three ``8C``). Packers that work on counts of identical items call :func:`cover_with_patterns`
(exact, ``scipy.optimize.milp`` with HiGHS) and :func:`lp_lower_bound` (its LP relaxation, the
Gilmore-Gomory bound). The model's size depends on the patterns, never on the number of
instances, so it solves in milliseconds for any fleet.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from planner.plan import SolveStatus

__all__ = [
    "CountsPacking",
    "LpRelaxation",
    "PatternCover",
    "cover_with_patterns",
    "lp_lower_bound",
    "pack_counts",
    "relax",
    "residual_demand",
]

# Solver values within this of an integer are that integer (HiGHS' feasibility tolerance is 1e-7).
_INTEGRALITY_TOLERANCE = 1e-6

# scipy.optimize.milp's documented status vocabulary.
_MILP_OPTIMAL = 0
_MILP_LIMIT_REACHED = 1


@dataclass(frozen=True)
class PatternCover:
    """How many GPUs use each pattern, and how good that is known to be."""

    uses: tuple[int, ...]
    """GPUs set up by each pattern, in the order the patterns were given [GPUs]."""
    status: SolveStatus
    """OPTIMAL when proven, TIME_LIMIT when the solver stopped early with this answer."""
    lower_bound: int
    """No cover uses fewer GPUs (the solver's dual bound, at least the LP bound) [GPUs]."""

    @property
    def gpus(self) -> int:
        """GPUs the cover uses [GPUs]."""
        return sum(self.uses)


def _validate(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> None:
    """Raise ValueError naming the argument and the rule it breaks."""
    if any(d < 0 for d in demand):
        raise ValueError(f"demand: every entry must be >= 0, got {list(demand)}")
    for index, pattern in enumerate(patterns):
        if len(pattern) != len(demand):
            raise ValueError(
                f"patterns[{index}]: has {len(pattern)} entries, demand has {len(demand)}; "
                "give one count per item kind"
            )
        if any(a < 0 for a in pattern):
            raise ValueError(f"patterns[{index}]: counts must be >= 0, got {list(pattern)}")
    for kind, needed in enumerate(demand):
        if needed > 0 and not any(pattern[kind] > 0 for pattern in patterns):
            raise ValueError(
                f"demand[{kind}] = {needed} but no pattern holds item kind {kind}; "
                "add a pattern that holds it or drop the demand"
            )


def _useful_copies(pattern: Sequence[int], demand: Sequence[int]) -> int:
    """Copies of a pattern beyond which every extra copy holds nothing still needed."""
    return max(
        (math.ceil(needed / held) for held, needed in zip(pattern, demand, strict=True) if held),
        default=0,
    )


@dataclass(frozen=True)
class LpRelaxation:
    """The cover with fractional ``uses``: its GPU count bounds every integer cover."""

    uses: tuple[float, ...]
    """Fractional GPUs per pattern, in the order the patterns were given [GPUs]."""
    gpus: float
    """Fractional GPU count of the relaxation [GPUs]."""

    @property
    def lower_bound(self) -> int:
        """No integer cover uses fewer GPUs: the relaxation rounded up [GPUs]."""
        return math.ceil(self.gpus - _INTEGRALITY_TOLERANCE)

    def rounded_down(self) -> tuple[int, ...]:
        """Each pattern's uses rounded down: a partial cover, the residual left to a heuristic."""
        return tuple(math.floor(u + _INTEGRALITY_TOLERANCE) for u in self.uses)


def relax(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> LpRelaxation:
    """Solve the LP relaxation of :func:`cover_with_patterns` (``uses`` continuous).

    HiGHS solves it in milliseconds for thousands of patterns. Its value rounded up is the
    Gilmore-Gomory lower bound; its solution rounded down plus a heuristic cover of what is left
    is a strong incumbent for the MILP (usually optimal for large demands).
    """
    _validate(patterns, demand)
    if not any(demand):
        return LpRelaxation(uses=(0.0,) * len(patterns), gpus=0.0)
    held = np.asarray(patterns, dtype=float).T
    result = milp(
        c=np.ones(len(patterns)),
        constraints=[LinearConstraint(held, lb=np.asarray(demand, dtype=float), ub=np.inf)],
        integrality=np.zeros(len(patterns), dtype=np.int_),
        bounds=Bounds(0, np.inf),
    )
    if result.status != _MILP_OPTIMAL or result.x is None or result.fun is None:
        raise RuntimeError(f"LP relaxation of a feasible cover failed: {result.message}")
    return LpRelaxation(uses=tuple(float(u) for u in result.x), gpus=float(result.fun))


def lp_lower_bound(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> int:
    """No integer cover of ``demand`` by ``patterns`` uses fewer GPUs than this [GPUs]."""
    return relax(patterns, demand).lower_bound


def residual_demand(
    patterns: Sequence[Sequence[int]], uses: Sequence[int], demand: Sequence[int]
) -> list[int]:
    """Demand per kind that ``uses`` GPUs of each pattern leave unheld [items]."""
    held = [
        sum(n * pattern[kind] for n, pattern in zip(uses, patterns, strict=True))
        for kind in range(len(demand))
    ]
    return [max(0, d - h) for d, h in zip(demand, held, strict=True)]


def cover_with_patterns(
    patterns: Sequence[Sequence[int]],
    demand: Sequence[int],
    *,
    time_limit_s: float,
    upper_bound: int | None = None,
    lower_bound: int = 0,
) -> PatternCover | None:
    r"""The fewest GPUs, each set up by one of ``patterns``, that hold ``demand``.

    Maths, with ``held[k][p]`` the items of kind ``k`` pattern ``p`` holds and ``demand[k]`` the
    items of kind ``k`` to place::

        minimise    sum_p uses[p]
        subject to  sum_p held[k][p] * uses[p] >= demand[k]          for every kind k
                    sum_p uses[p] <= upper_bound                     (when given)
                    0 <= uses[p] <= max_k ceil(demand[k] / held[k][p]),  uses[p] integer

    Covering (``>=``) rather than matching lets a GPU keep a free slot. The per-pattern cap is
    valid because copies beyond it hold nothing still needed. Pass a heuristic's GPU count as
    ``upper_bound``: it bounds the search, and the heuristic stays the fallback. A known
    ``lower_bound`` (the LP bound) lets a limit-stopped answer that meets it count as optimal.

    Parameters
    ----------
    patterns : one row per pattern, one count per item kind [items per GPU]
    demand : items of each kind to place [items]
    time_limit_s : HiGHS wall-time limit [s]
    upper_bound : largest GPU count worth returning [GPUs]
    lower_bound : a GPU count no cover beats, already known [GPUs]

    Returns
    -------
    The cover, or None when the solver stopped before finding one (time limit) or no cover
    within ``upper_bound`` exists.
    """
    # Data
    _validate(patterns, demand)
    if time_limit_s <= 0:
        raise ValueError(f"time_limit_s must be > 0, got {time_limit_s}")
    if not any(demand):
        return PatternCover(uses=(0,) * len(patterns), status=SolveStatus.OPTIMAL, lower_bound=0)
    held = np.asarray(patterns, dtype=float).T
    needed = np.asarray(demand, dtype=float)
    gpus_per_pattern = np.ones(len(patterns))

    # Variables: uses[p], the GPUs set up by pattern p, integer between 0 and its useful copies.
    most_copies = np.array([_useful_copies(p, demand) for p in patterns], dtype=float)
    bounds = Bounds(np.zeros(len(patterns)), most_copies)
    integrality = np.ones(len(patterns), dtype=np.int_)

    # Constraints
    constraints = [
        # Every kind's demand is held by the GPUs set up for it.
        LinearConstraint(held, lb=needed, ub=np.inf),
    ]
    if upper_bound is not None:
        # No worse than the answer we already have.
        constraints.append(LinearConstraint(gpus_per_pattern, lb=0, ub=upper_bound))

    # Objective: fewest GPUs.
    # Solve
    result = milp(
        c=gpus_per_pattern,
        constraints=constraints,
        integrality=integrality,
        bounds=bounds,
        options={"time_limit": time_limit_s},
    )

    # Report: read x only when the status says there is one.
    if result.status not in (_MILP_OPTIMAL, _MILP_LIMIT_REACHED) or result.x is None:
        return None
    uses = tuple(round(float(u)) for u in result.x)
    dual_bound = getattr(result, "mip_dual_bound", None)
    lower = lower_bound
    if dual_bound is not None and math.isfinite(dual_bound):
        lower = max(lower, math.ceil(dual_bound - _INTEGRALITY_TOLERANCE))
    proven = result.status == _MILP_OPTIMAL or sum(uses) <= lower
    return PatternCover(
        uses=uses,
        status=SolveStatus.OPTIMAL if proven else SolveStatus.TIME_LIMIT,
        lower_bound=sum(uses) if proven else lower,
    )


Contents = tuple[tuple[tuple[int, ...], int], ...]
"""(items of each kind on one GPU, how many GPUs hold exactly that), one pair per kind of GPU."""


@dataclass(frozen=True)
class CountsPacking:
    """GPUs described by their contents, for packers that work on counts of identical items."""

    contents: Contents
    """(items of each kind on the GPU, GPUs set up so); may hold more slots than demanded."""
    lower_bound: int
    """No packing uses fewer GPUs [GPUs]."""
    status: SolveStatus
    notes: tuple[str, ...] = ()

    @property
    def gpus(self) -> int:
        """GPUs used [GPUs]."""
        return sum(n for _, n in self.contents)


def pack_counts(
    patterns: Sequence[tuple[int, ...]],
    demand: Sequence[int],
    heuristic: Callable[[Sequence[int]], Contents],
    *,
    exact: bool,
    time_limit_s: float,
) -> CountsPacking:
    """Cover ``demand`` with GPUs set up by ``patterns``: the heuristic, or the exact model.

    Heuristic: ``heuristic(demand)``, with the LP bound; OPTIMAL only when it meets the bound.
    Exact: the better of the heuristic and the LP solution rounded down plus the heuristic on the
    rest; when that misses the LP bound, :func:`cover_with_patterns` bounded by it. The solver's
    answer replaces the incumbent only when it is better or proven optimal.
    """
    lp = relax(patterns, demand)
    lower = lp.lower_bound
    best = tuple(heuristic(demand))
    notes: list[str] = []
    if exact:
        base = lp.rounded_down()
        rounded = tuple((p, n) for p, n in zip(patterns, base, strict=True) if n) + tuple(
            heuristic(residual_demand(patterns, base, demand))
        )
        if _gpus(rounded) < _gpus(best):
            best = rounded
    if _gpus(best) <= lower:
        return CountsPacking(best, lower, SolveStatus.OPTIMAL, tuple(notes))
    if not exact:
        return CountsPacking(best, lower, SolveStatus.HEURISTIC, tuple(notes))
    cover = cover_with_patterns(
        patterns,
        demand,
        time_limit_s=time_limit_s,
        upper_bound=_gpus(best),
        lower_bound=lower,
    )
    if cover is None:
        notes.append("the MILP found no packing within the time limit: heuristic answer kept")
        return CountsPacking(best, lower, SolveStatus.TIME_LIMIT, tuple(notes))
    lower = max(lower, cover.lower_bound)
    if cover.gpus < _gpus(best) or cover.status is SolveStatus.OPTIMAL:
        solved = tuple((p, n) for p, n in zip(patterns, cover.uses, strict=True) if n)
        return CountsPacking(solved, lower, cover.status, tuple(notes))
    notes.append("the MILP stopped at its time limit without improving the heuristic answer")
    return CountsPacking(best, lower, SolveStatus.TIME_LIMIT, tuple(notes))


def _gpus(contents: Contents) -> int:
    return sum(n for _, n in contents)
