"""Every MILP model of the planner, written like its maths, and the one way they are solved.

All models go through :class:`Model`: named blocks of variables, constraint rows added one family
at a time (each with the rule it states), an objective, then :meth:`Model.solve`, which runs
``scipy.optimize.milp`` (HiGHS) under :class:`SolverLimits` and reads ``x`` only when the status
says there is one. scipy's status codes are named once, in :class:`_Outcome`.

- :func:`cover_with_patterns`: the fewest GPUs, each set up by one *pattern* (a MIG layout, a
  mixed-size vGPU profile set), holding a demand per item kind; :func:`relax` is its LP relaxation
  (the Gilmore-Gomory bound) and :func:`pack_counts` the packer around both.
  :func:`fill_most_with_patterns`: the items worth most a given number of bins so set up hold
  (hosts set up by configuration when not everything fits).
- :func:`min_bins`: vector bin packing, the fewest bins holding items that each use some amount
  of every dimension (a remote pool's GPUs over the hours of a day; hosts' GPUs, cores and RAM),
  with optional groups that must not share a bin.
- :func:`plan_configurations`: units of several kinds (hosts of each type), each set up by one
  configuration, holding a demand at least cost: the Dantzig-Wolfe master over configurations
  a caller prices (column generation, with :meth:`Model.solve_lp_with_duals` for the master's
  duals), its Lagrangian lower bound, and the master in integers over what was generated.
- The recommended plan's model over counts lives in :mod:`planner.solve.counts`, on this
  builder.

Same inputs give the same answer on any machine: the solver stops on a work limit (branch-and-
bound nodes, fewer for a bigger model) long before its wall-clock limit, which is only a backstop,
and a model too big for that work is left to the heuristic, decided from its size before solving.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from planner.plan import SolveStatus

__all__ = [
    "DEFAULT_LIMITS",
    "BinPacking",
    "Block",
    "Configuration",
    "ConfigurationPlan",
    "CountsPacking",
    "LpRelaxation",
    "LpSolution",
    "Model",
    "PatternCover",
    "Priced",
    "Solution",
    "SolverLimits",
    "cover_with_patterns",
    "fill_most_with_patterns",
    "lp_lower_bound",
    "min_bins",
    "pack_counts",
    "plan_configurations",
    "relax",
    "residual_demand",
]

# Solver values within this of an integer are that integer (HiGHS' feasibility tolerance is 1e-7).
_INTEGRALITY_TOLERANCE = 1e-6


def milp(**arguments: Any) -> Any:
    """``scipy.optimize.milp`` (its result), imported on the first call."""
    from scipy.optimize import milp as scipy_milp

    return scipy_milp(**arguments)


class _Outcome(IntEnum):
    """``scipy.optimize.milp``'s documented status vocabulary."""

    OPTIMAL = 0
    LIMIT_REACHED = 1
    INFEASIBLE = 2
    UNBOUNDED = 3
    OTHER = 4


@dataclass(frozen=True)
class SolverLimits:
    """How much work one MILP solve may do, counted in work, not time, so that the same model
    stops at the same point on any machine under any load.

    HiGHS searches at most :meth:`node_limit` branch-and-bound nodes, fewer for a bigger model;
    a model over ``max_nonzeros`` is not solved at all (:meth:`admits`), because HiGHS' root node
    (presolve, cuts, heuristics) has no node limit and grows with the model. The wall clock is
    only a backstop that realistic inputs never reach.
    """

    node_work: int = 2_000_000
    """Branch-and-bound work per solve [constraint nonzeros x nodes]; on the sample's largest
    model (~2,300 nonzeros, ~870 nodes) it is about a CPU second beyond the root node."""
    max_nodes: int = 20_000
    """Most nodes any solve searches, however small its model [nodes]."""
    min_nodes: int = 20
    """Fewest nodes a solved model searches [nodes]."""
    max_nonzeros: int = 100_000
    """Largest model solved exactly [constraint nonzeros]; bigger ones keep the heuristic."""
    time_limit_s: float = 60.0
    """Wall-clock backstop [s]; a solve stopped by it may differ from machine to machine."""
    mip_rel_gap: float = 1e-4
    """Gap between the solution and the dual bound at which a solve is optimal [-] (HiGHS'
    default); a bound that must equal an optimal plan's value asks for less."""

    def node_limit(self, nonzeros: int) -> int:
        """Nodes a model with ``nonzeros`` constraint nonzeros may search [nodes]."""
        return max(self.min_nodes, min(self.max_nodes, self.node_work // max(1, nonzeros)))

    def admits(self, nonzeros: int) -> bool:
        """The model is small enough to be solved exactly within the work limit."""
        return nonzeros <= self.max_nonzeros


DEFAULT_LIMITS = SolverLimits()


@dataclass(frozen=True)
class Block:
    """A named block of variables: ``shape`` entries laid out from column ``start``, row-major."""

    name: str
    start: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __getitem__(self, index: int | tuple[int, ...]) -> int:
        """The column of one variable of the block."""
        position = (index,) if isinstance(index, int) else index
        flat = 0
        for i, n in zip(position, self.shape, strict=True):
            if not 0 <= i < n:
                raise IndexError(f"{self.name}{list(position)} is outside shape {self.shape}")
            flat = flat * n + i
        return self.start + flat

    def columns(self) -> range:
        return range(self.start, self.start + self.size)


@dataclass(frozen=True)
class Solution:
    """What a solve found: the status, and the values when there are any."""

    status: SolveStatus
    """OPTIMAL when proven, LIMIT_REACHED when stopped early with a solution."""
    values: np.ndarray
    """Value of every variable, rounded to integers where integral."""
    objective: float
    dual_bound: float
    """No solution has a lower objective [objective's unit]."""
    stopped_by_clock: bool
    """The wall-clock backstop, not the work limit, stopped the solve."""

    def __getitem__(self, column: int) -> float:
        return float(self.values[column])


@dataclass(frozen=True)
class LpSolution:
    """An LP relaxation's optimum with each row's dual."""

    values: np.ndarray
    objective: float
    duals: np.ndarray
    """Per row, the objective's change per unit its bound moves: >= 0 on a row held from below,
    <= 0 on one held from above, either sign on an equality; a column's reduced cost is its
    cost less Σ duals × its coefficients."""


@dataclass
class Model:
    """A MILP written in the order of its maths: variables, constraints, objective, solve.

    ``minimise`` sums into the objective; every variable is bounded and integral or continuous
    as declared; constraint rows are ``lower <= Σ coefficient × variable <= upper``.
    """

    _lower: list[float] = field(default_factory=list)
    _upper: list[float] = field(default_factory=list)
    _integral: list[bool] = field(default_factory=list)
    _cost: list[float] = field(default_factory=list)
    _rows: list[int] = field(default_factory=list)
    _cols: list[int] = field(default_factory=list)
    _vals: list[float] = field(default_factory=list)
    _row_lower: list[float] = field(default_factory=list)
    _row_upper: list[float] = field(default_factory=list)
    blocks: dict[str, Block] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Variables declared so far."""
        return len(self._lower)

    def variables(
        self,
        name: str,
        shape: int | tuple[int, ...],
        *,
        lower: float = 0.0,
        upper: float = math.inf,
        integral: bool = True,
    ) -> Block:
        """Declare a block of variables, each within ``[lower, upper]``."""
        dims = (shape,) if isinstance(shape, int) else shape
        if name in self.blocks:
            raise ValueError(f"variable block {name!r} is declared twice")
        block = Block(name, self.size, dims)
        n = block.size
        self._lower.extend([lower] * n)
        self._upper.extend([upper] * n)
        self._integral.extend([integral] * n)
        self._cost.extend([0.0] * n)
        self.blocks[name] = block
        return block

    def bound(self, column: int, lower: float, upper: float) -> None:
        """Narrow one variable's bounds."""
        self._lower[column] = max(self._lower[column], lower)
        self._upper[column] = min(self._upper[column], upper)

    def constrain(
        self,
        coefficients: Mapping[int, float],
        *,
        lower: float = -math.inf,
        upper: float = math.inf,
    ) -> None:
        """Add the row ``lower <= Σ coefficients[column] × x[column] <= upper``."""
        row = len(self._row_lower)
        for column, value in coefficients.items():
            if value:
                self._rows.append(row)
                self._cols.append(column)
                self._vals.append(value)
        self._row_lower.append(lower)
        self._row_upper.append(upper)

    def minimise(self, coefficients: Mapping[int, float]) -> None:
        """Add ``Σ coefficients[column] × x[column]`` to the objective."""
        for column, value in coefficients.items():
            self._cost[column] += value

    @property
    def nonzeros(self) -> int:
        """Nonzero coefficients of the constraint rows: the model's size for the work limit."""
        return len(self._vals)

    def solve(
        self, limits: SolverLimits = DEFAULT_LIMITS, *, relax: bool = False
    ) -> Solution | None:
        """Solve (the LP relaxation when ``relax``); None when infeasible, unbounded, stopped
        without a solution, or too big for the exact solve (``limits.admits``, decided from the
        size before solving)."""
        n = self.size
        if n == 0:
            # Nothing to decide (scipy refuses an empty model): feasible when every row admits 0.
            if all(
                lo <= 0.0 <= up for lo, up in zip(self._row_lower, self._row_upper, strict=True)
            ):
                return Solution(SolveStatus.OPTIMAL, np.zeros(0), 0.0, 0.0, False)
            return None
        integrality = np.zeros(n, dtype=np.int64)
        if not relax:
            if not limits.admits(self.nonzeros):
                return None
            integrality = np.asarray(self._integral, dtype=np.int64)
        # SciPy loads on the first solve: importing it costs about a third of a second, which
        # plans that never solve should not pay.
        from scipy.optimize import Bounds, LinearConstraint
        from scipy.sparse import csr_array

        constraints = []
        if self._row_lower:
            matrix = csr_array(
                (self._vals, (self._rows, self._cols)), shape=(len(self._row_lower), n)
            )
            constraints.append(
                LinearConstraint(matrix, np.asarray(self._row_lower), np.asarray(self._row_upper))
            )
        result = milp(
            c=np.asarray(self._cost),
            constraints=constraints,
            integrality=integrality,
            bounds=Bounds(np.asarray(self._lower), np.asarray(self._upper)),
            options={
                "node_limit": limits.node_limit(self.nonzeros),
                "time_limit": limits.time_limit_s,
                "mip_rel_gap": limits.mip_rel_gap,
            },
        )
        outcome = _outcome(result.status, str(result.message))
        if outcome not in (_Outcome.OPTIMAL, _Outcome.LIMIT_REACHED) or result.x is None:
            return None
        values = np.asarray(result.x, dtype=float)
        whole = integrality > 0
        values[whole] = np.round(values[whole])
        objective = float(result.fun)
        dual = getattr(result, "mip_dual_bound", None)
        if dual is not None and math.isfinite(dual) and not relax:
            dual_bound = float(dual)
        else:
            # Without a dual bound from HiGHS only a proven optimum bounds the objective (an LP
            # stopped early holds a value not proven to be one).
            dual_bound = objective if outcome is _Outcome.OPTIMAL else -math.inf
        status = SolveStatus.OPTIMAL if outcome is _Outcome.OPTIMAL else SolveStatus.LIMIT_REACHED
        clock = outcome is _Outcome.LIMIT_REACHED and "time" in str(result.message).lower()
        return Solution(status, values, objective, min(dual_bound, objective), clock)

    def solve_lp_with_duals(self) -> LpSolution | None:
        """Solve the LP relaxation with ``scipy.optimize.linprog`` (HiGHS), which, unlike
        ``milp``, gives each row's dual; None when it has no optimum."""
        from scipy.optimize import linprog
        from scipy.sparse import csr_array, vstack

        n = self.size
        matrix = csr_array((self._vals, (self._rows, self._cols)), shape=(len(self._row_lower), n))
        lower, upper = np.asarray(self._row_lower), np.asarray(self._row_upper)
        equal = lower == upper
        capped = ~equal & np.isfinite(upper)
        floored = ~equal & np.isfinite(lower)
        # linprog takes A_ub x <= b_ub: a row's lower side enters negated.
        a_ub = vstack([matrix[capped], -matrix[floored]], format="csr")
        b_ub = np.concatenate([upper[capped], -lower[floored]])
        result = linprog(
            c=np.asarray(self._cost),
            A_ub=a_ub if b_ub.size else None,
            b_ub=b_ub if b_ub.size else None,
            A_eq=matrix[equal] if equal.any() else None,
            b_eq=lower[equal] if equal.any() else None,
            bounds=list(zip(self._lower, self._upper, strict=True)),
            method="highs",
        )
        if (
            _outcome(result.status, str(result.message)) is not _Outcome.OPTIMAL
            or result.fun is None
        ):
            return None
        duals = np.zeros(len(lower))
        if equal.any():
            duals[equal] = result.eqlin.marginals
        marginals = result.ineqlin.marginals if b_ub.size else np.zeros(0)
        duals[capped] += marginals[: int(capped.sum())]
        duals[floored] -= marginals[int(capped.sum()) :]
        return LpSolution(np.asarray(result.x, dtype=float), float(result.fun), duals)


def _outcome(status: int, message: str) -> _Outcome:
    """scipy's status, with HiGHS' node limit ("Solution limit reached", which scipy reports as
    OTHER) read as the limit it is."""
    known = {o.value for o in _Outcome}
    outcome = _Outcome(status) if status in known else _Outcome.OTHER
    if outcome is _Outcome.OTHER and "solution limit reached" in message.lower():
        return _Outcome.LIMIT_REACHED
    return outcome


@dataclass(frozen=True)
class Configuration:
    """One way to set up one unit of a kind (a host of a type): its cost and what it holds of
    each demand row (then of each side row)."""

    kind: int
    cost: float
    holds: Mapping[int, float]
    """Row -> amount held (rows without one hold nothing)."""
    setup: object = None
    """What the caller needs to build the unit so set up."""


@dataclass(frozen=True)
class Priced:
    """The best configuration of a kind under a round's duals."""

    configuration: Configuration | None
    """The cheapest found net of the duals (``cost − Σ duals × holds``); None when none."""
    least: float
    """No configuration of the kind has a lower net cost (a bound from the pricing solve)."""
    work: float = 1.0
    """What pricing it took, in the unit of ``plan_configurations``' ``pricing_work``."""


@dataclass(frozen=True)
class ConfigurationPlan:
    """Configurations chosen to hold a demand, and a bound on every choice that holds it."""

    configurations: tuple[Configuration, ...]
    uses: tuple[int, ...]
    """Units set up by each configuration; all zero when only the bound was asked for."""
    short: tuple[float, ...]
    """Per demand row, what the units chosen leave unheld (the master LP's when units were not
    chosen in integers)."""
    lp_objective: float
    """The master LP over the configurations generated [objective's unit]."""
    lower_bound: float
    """No choice of units, each set up by any configuration, costs less (with ``short_cost``
    for what it leaves unheld): the best Lagrangian bound of the rounds that priced every
    kind."""


def plan_configurations(
    need: Sequence[float],
    short_cost: Sequence[float],
    supply: Sequence[int],
    price: Callable[[int, np.ndarray], Priced],
    *,
    side_rows: int = 0,
    exact: bool = False,
    start: Sequence[Configuration] = (),
    rounds: int = 60,
    pricing_work: float = math.inf,
    limits: SolverLimits = DEFAULT_LIMITS,
    integral: bool = True,
) -> ConfigurationPlan | None:
    r"""Units of several kinds, each set up by one configuration, holding a demand at the least
    cost: a Dantzig-Wolfe master over configurations generated by column generation.

    With ``λ_c`` the units set up by configuration ``c`` (of kind ``k(c)``), ``a_rc`` what it
    holds of row ``r`` and ``s_r`` the demand left unheld::

        minimise    Σ_c cost_c λ_c + Σ_r short_cost_r s_r
        subject to  Σ_c a_rc λ_c + s_r >= need_r     (= with ``exact``)   demand rows
                    Σ_c a_rc λ_c <= 0                                      side rows
                    Σ_{c of kind k} λ_c <= supply_k                        every kind

    Each round solves the master's LP over the configurations so far and asks ``price``, per
    kind, for the one of least net cost ``cost_c − Σ_r y_r a_rc`` under the rows' duals ``y``;
    it enters when that is below the kind's own dual. A round prices only the kinds whose
    configurations entered in the round before, and all of them when none did; the rounds
    stop when a round of every kind adds none, after ``rounds`` rounds, or when the pricing
    done (``Priced.work`` summed) reaches ``pricing_work``. For duals of the right signs (at
    least 0 and at most the short cost on a demand row held from below, at most 0 on a side
    row), as the master LP's are, ``Σ_r y_r need_r + Σ_k supply_k min(0, least_k)``, over a
    round that priced every kind, bounds the master's integer optimum from below (Lagrangian
    relaxation of the demand and side rows); the best over the rounds is returned. With
    ``integral`` the master is then solved in integers over the configurations generated (a
    choice, not proven the best: configurations not generated are left out).
    """
    demand = len(need)
    generated = _Generated()
    for configuration in start:
        generated.add(configuration)
    columns = generated.columns
    best_bound = -math.inf
    lp: LpSolution | None = None
    # Configurations the last master LP had: those generated after it are not in its values.
    solved = 0
    every = list(range(len(supply)))
    kinds = every
    full = True
    for _ in range(rounds):
        master = _configuration_master(need, short_cost, supply, columns, side_rows, exact)
        lp = master.solve_lp_with_duals()
        if lp is None:
            return None
        solved = len(columns)
        duals = lp.duals
        rows = duals[: demand + side_rows]
        bound = float(rows[:demand] @ np.asarray(need, dtype=float))
        entered: list[int] = []
        for kind in kinds:
            priced = price(kind, rows)
            pricing_work -= priced.work
            bound += supply[kind] * min(0.0, priced.least)
            chosen = priced.configuration
            if chosen is None:
                continue
            net = chosen.cost - sum(rows[r] * a for r, a in chosen.holds.items())
            if net - duals[demand + side_rows + kind] < -1e-6 and generated.add(chosen):
                entered.append(kind)
        if full:
            best_bound = max(best_bound, bound)
            if not entered:
                break
        kinds = entered or every
        full = len(kinds) == len(every)
        if pricing_work <= 0:
            break
    assert lp is not None
    uses = (0,) * len(columns)
    short = tuple(float(lp.values[solved + r]) for r in range(demand))
    if integral:
        master = _configuration_master(
            need, short_cost, supply, columns, side_rows, exact, integral=True
        )
        solution = master.solve(limits)
        if solution is not None:
            uses = tuple(round(solution[j]) for j in range(len(columns)))
            short = tuple(solution[len(columns) + r] for r in range(demand))
    return ConfigurationPlan(tuple(columns), uses, short, lp.objective, best_bound)


@dataclass
class _Generated:
    """The configurations generated so far, each once."""

    columns: list[Configuration] = field(default_factory=list)
    _seen: set[tuple[object, ...]] = field(default_factory=set)

    def add(self, configuration: Configuration) -> bool:
        """Add a configuration not seen before; whether it was added."""
        key = (
            configuration.kind,
            round(configuration.cost, 6),
            tuple(sorted((r, round(a, 9)) for r, a in configuration.holds.items() if a)),
        )
        if key in self._seen:
            return False
        self._seen.add(key)
        self.columns.append(configuration)
        return True


def _configuration_master(
    need: Sequence[float],
    short_cost: Sequence[float],
    supply: Sequence[int],
    columns: Sequence[Configuration],
    side_rows: int,
    exact: bool,
    *,
    integral: bool = False,
) -> Model:
    """The master of ``plan_configurations``: rows in the order demand, side, kinds."""
    model = Model()
    uses = model.variables("uses", len(columns), integral=integral)
    short = model.variables("short", len(need), integral=False)
    for j, column in enumerate(columns):
        model.bound(uses[j], 0.0, float(supply[column.kind]))
    held: list[dict[int, float]] = [{} for _ in range(len(need) + side_rows)]
    for j, column in enumerate(columns):
        for r, amount in column.holds.items():
            held[r][uses[j]] = amount
    for r, n in enumerate(need):
        held[r][short[r]] = 1.0
        model.constrain(held[r], lower=float(n), upper=float(n) if exact else math.inf)
    for r in range(len(need), len(need) + side_rows):
        model.constrain(held[r], upper=0.0)
    for kind, units in enumerate(supply):
        model.constrain(
            {uses[j]: 1.0 for j, c in enumerate(columns) if c.kind == kind}, upper=float(units)
        )
    model.minimise({uses[j]: c.cost for j, c in enumerate(columns)})
    model.minimise({short[r]: float(cost) for r, cost in enumerate(short_cost)})
    return model


@dataclass(frozen=True)
class PatternFill:
    """How many bins use each pattern and how many items of each kind and class they hold."""

    uses: tuple[int, ...]
    """Bins set up by each pattern, in the order the patterns were given [bins]."""
    held: tuple[tuple[int, ...], ...]
    """Items held per kind, then per class of the kind, in the order given [items]."""


def fill_most_with_patterns(
    patterns: Sequence[Sequence[int]],
    demand: Sequence[Sequence[int]],
    worth: Sequence[Sequence[float]],
    *,
    bins: int,
    time_limit_s: float,
) -> PatternFill | None:
    r"""The items worth most that ``bins`` bins, each set up by one of ``patterns``, can hold.

    Items of one kind take the same room (``patterns[p][k]`` of them fit a bin set up by
    ``p``) and come in classes of different worth (``demand[k][s]`` items of class ``s``,
    each worth ``worth[k][s]``)::

        maximise    sum_{k,s} worth[k][s] * held[k][s]  -  sum_p uses[p] / (bins + 1)
        subject to  sum_s held[k][s] <= sum_p patterns[p][k] * uses[p]     for every kind k
                    sum_p uses[p] <= bins
                    0 <= held[k][s] <= demand[k][s],  0 <= uses[p],  both integer

    The second term (less than any item's worth of 1 or more) breaks ties to fewer bins.

    Returns
    -------
    The fill, or None when the solver stopped before finding one.
    """
    # Data
    totals = [sum(classes) for classes in demand]
    _validate(patterns, totals)
    if time_limit_s <= 0:
        raise ValueError(f"time_limit_s must be > 0, got {time_limit_s}")
    model = Model()

    # Variables: uses[p], bins set up by pattern p; held[k][s], items of kind k class s held.
    uses = model.variables("uses", len(patterns))
    for p, pattern in enumerate(patterns):
        model.bound(uses[p], 0, min(bins, _useful_copies(pattern, totals)))
    held = [model.variables(f"held[{k}]", len(classes)) for k, classes in enumerate(demand)]
    for k, classes in enumerate(demand):
        for s, wanted in enumerate(classes):
            model.bound(held[k][s], 0, wanted)

    # The items held of a kind fit in the room its bins' patterns give it.
    for k in range(len(demand)):
        row = dict.fromkeys(held[k].columns(), 1.0)
        row.update({uses[p]: -float(pattern[k]) for p, pattern in enumerate(patterns)})
        model.constrain(row, upper=0.0)
    # No more bins than there are.
    model.constrain(dict.fromkeys(uses.columns(), 1.0), upper=float(bins))

    # Objective: most worth held, then fewest bins.
    model.minimise(dict.fromkeys(uses.columns(), 1.0 / (bins + 1)))
    for k, values in enumerate(worth):
        model.minimise({held[k][s]: -float(w) for s, w in enumerate(values)})
    solution = model.solve(SolverLimits(time_limit_s=time_limit_s))

    # Report: x is read only when the status says there is one.
    if solution is None:
        return None
    return PatternFill(
        uses=tuple(round(solution[c]) for c in uses.columns()),
        held=tuple(tuple(round(solution[c]) for c in block.columns()) for block in held),
    )


@dataclass(frozen=True)
class PatternCover:
    """How many GPUs use each pattern, and how good that is known to be."""

    uses: tuple[int, ...]
    """GPUs set up by each pattern, in the order the patterns were given [GPUs]."""
    status: SolveStatus
    """OPTIMAL when proven, LIMIT_REACHED when the solver stopped early with this answer."""
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
    asked = [kind for kind, needed in enumerate(demand) if needed]
    if len(asked) == 1:
        return _relax_one_kind(patterns, demand, asked[0])
    model = Model()
    uses = model.variables("uses", len(patterns), integral=False)
    for kind, needed in enumerate(demand):
        if needed:
            model.constrain(
                {uses[p]: float(pattern[kind]) for p, pattern in enumerate(patterns)},
                lower=float(needed),
            )
    model.minimise(dict.fromkeys(uses.columns(), 1.0))
    solution = model.solve(relax=True)
    if solution is None or solution.status is not SolveStatus.OPTIMAL:
        raise RuntimeError("LP relaxation of a feasible cover failed")
    return LpRelaxation(uses=tuple(solution[c] for c in uses.columns()), gpus=solution.objective)


def _relax_one_kind(
    patterns: Sequence[Sequence[int]], demand: Sequence[int], kind: int
) -> LpRelaxation:
    """The LP relaxation when only ``kind`` is asked for, without a solver: every GPU set up by
    the pattern holding most of it (of those, the one holding fewest other items), so many
    that they hold exactly the demand. Packing one pod at a time asks this thousands of times."""
    best = max(range(len(patterns)), key=lambda p: (patterns[p][kind], -sum(patterns[p]), -p))
    gpus = demand[kind] / patterns[best][kind]
    return LpRelaxation(
        uses=tuple(gpus if p == best else 0.0 for p in range(len(patterns))), gpus=gpus
    )


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
    time_limit_s : HiGHS wall-time backstop [s]
    upper_bound : largest GPU count worth returning [GPUs]
    lower_bound : a GPU count no cover beats, already known [GPUs]

    Returns
    -------
    The cover, or None when the solver stopped before finding one or no cover within
    ``upper_bound`` exists.
    """
    # Data
    _validate(patterns, demand)
    if time_limit_s <= 0:
        raise ValueError(f"time_limit_s must be > 0, got {time_limit_s}")
    if not any(demand):
        return PatternCover(uses=(0,) * len(patterns), status=SolveStatus.OPTIMAL, lower_bound=0)
    model = Model()

    # Variables: uses[p], the GPUs set up by pattern p, integer between 0 and its useful copies.
    uses = model.variables("uses", len(patterns))
    for p, pattern in enumerate(patterns):
        model.bound(uses[p], 0, _useful_copies(pattern, demand))

    # Every kind's demand is held by the GPUs set up for it.
    for kind, needed in enumerate(demand):
        if needed:
            model.constrain(
                {uses[p]: float(pattern[kind]) for p, pattern in enumerate(patterns)},
                lower=float(needed),
            )
    if upper_bound is not None:
        # No worse than the answer we already have.
        model.constrain(dict.fromkeys(uses.columns(), 1.0), upper=upper_bound)

    # Objective: fewest GPUs.
    model.minimise(dict.fromkeys(uses.columns(), 1.0))
    solution = model.solve(SolverLimits(time_limit_s=time_limit_s))

    # Report: x is read only when the status says there is one.
    if solution is None:
        return None
    chosen = tuple(round(solution[c]) for c in uses.columns())
    lower = lower_bound
    if math.isfinite(solution.dual_bound):
        lower = max(lower, math.ceil(solution.dual_bound - _INTEGRALITY_TOLERANCE))
    proven = solution.status is SolveStatus.OPTIMAL or sum(chosen) <= lower
    return PatternCover(
        uses=chosen,
        status=SolveStatus.OPTIMAL if proven else SolveStatus.LIMIT_REACHED,
        lower_bound=sum(chosen) if proven else lower,
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
    if not SolverLimits(time_limit_s=time_limit_s).admits(_cover_nonzeros(patterns, demand)):
        notes.append("the exact model is too big to solve within the work limit: heuristic kept")
        return CountsPacking(best, lower, SolveStatus.HEURISTIC, tuple(notes))
    cover = cover_with_patterns(
        patterns,
        demand,
        time_limit_s=time_limit_s,
        upper_bound=_gpus(best),
        lower_bound=lower,
    )
    if cover is None:
        notes.append("the MILP found no packing within its limits: heuristic answer kept")
        return CountsPacking(best, lower, SolveStatus.LIMIT_REACHED, tuple(notes))
    lower = max(lower, cover.lower_bound)
    if cover.gpus < _gpus(best) or cover.status is SolveStatus.OPTIMAL:
        solved = tuple((p, n) for p, n in zip(patterns, cover.uses, strict=True) if n)
        return CountsPacking(solved, lower, cover.status, tuple(notes))
    notes.append("the MILP stopped at its limits without improving the heuristic answer")
    return CountsPacking(best, lower, SolveStatus.LIMIT_REACHED, tuple(notes))


def _cover_nonzeros(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> int:
    """Constraint nonzeros of :func:`cover_with_patterns`' model with an upper bound: one per
    pattern holding a demanded kind, one per pattern in the bound's row."""
    held = sum(1 for k, d in enumerate(demand) if d for pattern in patterns if pattern[k])
    return held + len(patterns)


def _gpus(contents: Contents) -> int:
    return sum(n for _, n in contents)


@dataclass(frozen=True)
class BinPacking:
    """Items assigned to bins by :func:`min_bins`."""

    bins: tuple[int, ...]
    """Bin of each item, numbered from 0 without gaps."""
    proven: bool
    """No packing uses fewer bins."""


def min_bins(
    sizes: Sequence[Sequence[float]],
    capacity: Sequence[float],
    *,
    upper_bound: int,
    groups: Sequence[str] = (),
    limits: SolverLimits = DEFAULT_LIMITS,
    tolerance: float = 0.0,
) -> BinPacking | None:
    r"""The fewest bins holding every item: vector bin packing.

    Maths, for items ``i``, bins ``b < upper_bound``, dimensions ``d`` and groups ``g``::

        minimise    sum_b open[b]
        subject to  sum_b x[i, b] = 1                                  every item in one bin
                    sum_i size[i][d] x[i, b] <= capacity[d] open[b]    every open bin, every d
                    open[b] >= open[b + 1]                             bins open in order
                    sum_g serves[g, b] <= 1                            one group per bin
                    x[i, b] <= serves[group(i), b]                     grouped items with theirs
                    x, open, serves binary

    Parameters
    ----------
    sizes : one row per item, one entry per dimension [the dimension's unit]
    capacity : what one bin holds of each dimension [same units]
    upper_bound : bins available (a heuristic's count) [bins]
    groups : per item, a group name ("" for none); items of different groups never share a bin
    limits : the solver's work and wall-clock limits
    tolerance : slack on every capacity row, for float sizes [the dimension's unit]

    Returns
    -------
    The bin of each item, or None when the solver stopped without a packing.
    """
    # Data
    items = len(sizes)
    if items == 0:
        return BinPacking((), True)
    names = sorted({g for g in groups if g})
    model = Model()

    # Variables
    x = model.variables("x", (items, upper_bound), upper=1)
    opened = model.variables("open", upper_bound, upper=1)
    serves = model.variables("serves", (len(names), upper_bound), upper=1)

    # Constraints
    _each_item_in_one_bin(model, x)
    _open_bins_hold_their_capacity(model, x, opened, sizes, capacity, tolerance)
    _bins_open_in_order(model, opened)
    if names:
        _one_group_per_bin(model, x, serves, [names.index(g) if g else -1 for g in groups])

    # Objective: fewest bins.
    model.minimise(dict.fromkeys(opened.columns(), 1.0))
    solution = model.solve(limits)

    # Report
    if solution is None:
        return None
    chosen = [max(range(upper_bound), key=lambda b: solution[x[i, b]]) for i in range(items)]
    used = sorted(set(chosen))
    return BinPacking(tuple(used.index(b) for b in chosen), solution.status is SolveStatus.OPTIMAL)


def _each_item_in_one_bin(model: Model, x: Block) -> None:
    """Every item is in exactly one bin."""
    items, bins = x.shape
    for i in range(items):
        model.constrain({x[i, b]: 1.0 for b in range(bins)}, lower=1, upper=1)


def _open_bins_hold_their_capacity(
    model: Model,
    x: Block,
    opened: Block,
    sizes: Sequence[Sequence[float]],
    capacity: Sequence[float],
    tolerance: float,
) -> None:
    """An open bin holds at most its capacity in every dimension; a closed bin holds nothing."""
    items, bins = x.shape
    for b in range(bins):
        for d, room in enumerate(capacity):
            row = {x[i, b]: float(sizes[i][d]) for i in range(items) if sizes[i][d]}
            if row:
                row[opened[b]] = -float(room)
                model.constrain(row, upper=tolerance)


def _bins_open_in_order(model: Model, opened: Block) -> None:
    """Bins open in order, so solutions that only rename bins are not searched twice."""
    for b in range(opened.size - 1):
        model.constrain({opened[b]: 1.0, opened[b + 1]: -1.0}, lower=0)


def _one_group_per_bin(model: Model, x: Block, serves: Block, group_of: Sequence[int]) -> None:
    """A bin serves at most one group, and a grouped item sits only in a bin of its group."""
    groups, bins = serves.shape
    for b in range(bins):
        model.constrain({serves[g, b]: 1.0 for g in range(groups)}, upper=1)
        for i, g in enumerate(group_of):
            if g >= 0:
                model.constrain({x[i, b]: 1.0, serves[g, b]: -1.0}, upper=0)
