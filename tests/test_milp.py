"""Tests for planner.solve.milp: the pattern-covering MILP, its LP bound and the counts packer."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest

from planner.plan import SolveStatus
from planner.solve.milp import (
    DEFAULT_LIMITS,
    Configuration,
    Contents,
    Model,
    Priced,
    SolverLimits,
    cover_with_patterns,
    fill_most_with_patterns,
    lp_lower_bound,
    min_bins,
    pack_counts,
    plan_configurations,
    relax,
    residual_demand,
)

# Cutting-stock style case: three item kinds, four ways to set up a GPU.
PATTERNS = [(3, 0, 0), (1, 2, 0), (0, 1, 1), (1, 0, 2)]
DEMAND = [7, 5, 4]


def _brute_force_gpus(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> int:
    """Fewest GPUs covering ``demand``, by trying every use count up to 8 per pattern."""
    best = 10**9
    for uses in itertools.product(range(9), repeat=len(patterns)):
        held = [sum(u * p[k] for u, p in zip(uses, patterns, strict=True)) for k in range(3)]
        if all(h >= d for h, d in zip(held, demand, strict=True)):
            best = min(best, sum(uses))
    return best


def _covers(patterns: Sequence[Sequence[int]], uses: Sequence[int], demand: Sequence[int]) -> bool:
    return not any(residual_demand(patterns, uses, demand))


def test_cover_is_feasible_and_matches_brute_force() -> None:
    """The MILP's cover holds every demanded item, uses whole GPUs, and no cover is smaller."""
    cover = cover_with_patterns(PATTERNS, DEMAND, time_limit_s=10)
    assert cover is not None
    assert all(isinstance(u, int) and u >= 0 for u in cover.uses)
    assert _covers(PATTERNS, cover.uses, DEMAND)
    assert cover.gpus == _brute_force_gpus(PATTERNS, DEMAND)
    assert cover.status is SolveStatus.OPTIMAL
    assert cover.lower_bound == cover.gpus


def test_lp_bound_never_exceeds_the_optimum() -> None:
    """The LP relaxation rounded up is a lower bound: at most the brute-force optimum."""
    bound = lp_lower_bound(PATTERNS, DEMAND)
    assert 0 < bound <= _brute_force_gpus(PATTERNS, DEMAND)


def _lp_by_highs(patterns: Sequence[Sequence[int]], demand: Sequence[int]) -> float:
    """The cover's LP relaxation solved by HiGHS, whatever the kinds asked."""
    model = Model()
    uses = model.variables("uses", len(patterns), integral=False)
    for kind, needed in enumerate(demand):
        if needed:
            row = {uses[p]: float(pattern[kind]) for p, pattern in enumerate(patterns)}
            model.constrain(row, lower=float(needed))
    model.minimise(dict.fromkeys(uses.columns(), 1.0))
    solution = model.solve(relax=True)
    assert solution is not None
    return solution.objective


def test_one_kind_s_lp_is_solved_without_the_solver_to_highs_optimum() -> None:
    """With one item kind asked for, the relaxation is found in closed form: the same optimum
    as HiGHS' on 300 random cases, a cover of the demand, on a pattern holding most of it."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        patterns = [tuple(int(v) for v in rng.integers(0, 5, size=3)) for _ in range(4)]
        kind = int(rng.integers(0, 3))
        if not any(p[kind] for p in patterns):
            continue
        demand = [0, 0, 0]
        demand[kind] = int(rng.integers(1, 60))
        found = relax(patterns, demand)
        assert found.gpus == pytest.approx(_lp_by_highs(patterns, demand))
        held = sum(u * p[kind] for u, p in zip(found.uses, patterns, strict=True))
        assert held == pytest.approx(demand[kind])
        (used,) = [p for u, p in zip(found.uses, patterns, strict=True) if u]
        assert used[kind] == max(p[kind] for p in patterns)


def test_rounded_down_lp_leaves_a_residual_to_cover() -> None:
    """The LP solution rounded down plus the residual demand accounts for all demand."""
    lp = relax(PATTERNS, DEMAND)
    base = lp.rounded_down()
    rest = residual_demand(PATTERNS, base, DEMAND)
    assert all(b <= u + 1e-6 for b, u in zip(base, lp.uses, strict=True))
    held = [sum(b * p[k] for b, p in zip(base, PATTERNS, strict=True)) for k in range(3)]
    assert all(h + r >= d for h, r, d in zip(held, rest, DEMAND, strict=True))


def test_upper_bound_below_the_optimum_gives_none() -> None:
    """With an upper bound no cover meets, the solver reports nothing instead of a bad cover."""
    optimum = _brute_force_gpus(PATTERNS, DEMAND)
    assert cover_with_patterns(PATTERNS, DEMAND, time_limit_s=10, upper_bound=optimum - 1) is None


def test_zero_demand_needs_no_gpus() -> None:
    """Nothing to place uses no GPU, proven."""
    cover = cover_with_patterns(PATTERNS, [0, 0, 0], time_limit_s=1)
    assert cover is not None
    assert cover.gpus == 0
    assert cover.status is SolveStatus.OPTIMAL


@pytest.mark.parametrize(
    ("patterns", "demand", "message"),
    [
        ([(1, 0)], [1, 2], "demand\\[1\\] = 2 but no pattern holds item kind 1"),
        ([(1, 0, 0)], [1, 2], "patterns\\[0\\]: has 3 entries, demand has 2"),
        ([(1, -1)], [1, 0], "patterns\\[0\\]: counts must be >= 0"),
        ([(1, 1)], [-1, 0], "demand: every entry must be >= 0"),
    ],
)
def test_bad_input_names_the_argument(
    patterns: list[tuple[int, ...]], demand: list[int], message: str
) -> None:
    """Malformed patterns or demand raise ValueError naming the argument and the rule."""
    with pytest.raises(ValueError, match=message):
        cover_with_patterns(patterns, demand, time_limit_s=1)


def test_time_limit_must_be_positive() -> None:
    """A non-positive time limit is refused, naming the argument."""
    with pytest.raises(ValueError, match="time_limit_s must be > 0"):
        cover_with_patterns(PATTERNS, DEMAND, time_limit_s=0)


def _one_kind_per_gpu(demand: Sequence[int]) -> Contents:
    """A poor heuristic: every item on its own GPU."""
    contents: list[tuple[tuple[int, ...], int]] = []
    for kind, n in enumerate(demand):
        if n:
            vector = tuple(1 if k == kind else 0 for k in range(len(demand)))
            contents.append((vector, n))
    return tuple(contents)


def test_exact_counts_packing_beats_a_poor_heuristic() -> None:
    """The exact path improves on a poor heuristic, covers the demand and is proven optimal."""
    packing = pack_counts(PATTERNS, DEMAND, _one_kind_per_gpu, exact=True, time_limit_s=10)
    uses = [0] * len(PATTERNS)
    for vector, n in packing.contents:
        uses[PATTERNS.index(vector)] += n
    assert _covers(PATTERNS, uses, DEMAND)
    assert packing.gpus == _brute_force_gpus(PATTERNS, DEMAND) < sum(DEMAND)
    assert packing.status is SolveStatus.OPTIMAL


def test_heuristic_counts_packing_reports_its_gap() -> None:
    """Without the exact path the heuristic's answer is returned, marked heuristic, with the
    LP bound below it."""
    packing = pack_counts(PATTERNS, DEMAND, _one_kind_per_gpu, exact=False, time_limit_s=10)
    assert packing.gpus == sum(DEMAND)
    assert packing.status is SolveStatus.HEURISTIC
    assert packing.lower_bound == lp_lower_bound(PATTERNS, DEMAND) < packing.gpus


def test_exact_path_passes_the_time_limit_to_highs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact path hands ``time_limit_s`` to scipy's milp as HiGHS' ``time_limit`` backstop,
    beside the work limit (``node_limit``) that keeps answers reproducible and the gap at which
    a solve counts as optimal."""
    import planner.solve.milp as module

    seen: list[dict[str, object]] = []
    real_milp = module.milp

    def recording_milp(*args: object, **kwargs: object) -> object:
        options = kwargs.get("options")
        if isinstance(options, dict):
            seen.append(dict(options))
        return real_milp(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "milp", recording_milp)
    pack_counts(PATTERNS, DEMAND, _one_kind_per_gpu, exact=True, time_limit_s=3.5)
    # The LP bound comes first, then the MILP with the limit asked for; its model is tiny, so it
    # may search the most nodes any solve does.
    assert seen[-1] == {
        "node_limit": DEFAULT_LIMITS.max_nodes,
        "time_limit": 3.5,
        "mip_rel_gap": DEFAULT_LIMITS.mip_rel_gap,
    }


def test_exact_path_keeps_the_heuristic_when_the_solver_finds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the MILP stops without an answer, the exact path returns the better of the heuristic
    and the rounded LP, marked as stopped at the time limit, with a note saying so."""
    import planner.solve.milp as module

    monkeypatch.setattr(module, "cover_with_patterns", lambda *a, **k: None)
    packing = pack_counts(PATTERNS, DEMAND, _one_kind_per_gpu, exact=True, time_limit_s=1)
    held = [sum(vector[k] * n for vector, n in packing.contents) for k in range(len(DEMAND))]
    assert all(h >= d for h, d in zip(held, DEMAND, strict=True))
    assert packing.status is SolveStatus.LIMIT_REACHED
    assert packing.lower_bound <= _brute_force_gpus(PATTERNS, DEMAND) <= packing.gpus
    assert any("limits" in note for note in packing.notes)


def test_min_bins_matches_brute_force_on_vectors() -> None:
    """Two-dimensional items packed into the fewest bins: each bin within capacity in both
    dimensions, and no smaller packing exists (checked by trying every assignment)."""
    sizes = [(4, 1), (3, 3), (2, 2), (2, 3), (1, 1), (3, 1)]
    capacity = (6, 5)
    packed = min_bins(sizes, capacity, upper_bound=len(sizes))
    assert packed is not None
    assert packed.proven
    for b in set(packed.bins):
        members = [s for s, at in zip(sizes, packed.bins, strict=True) if at == b]
        assert all(sum(m[d] for m in members) <= capacity[d] for d in range(2))
    best = min(
        len(set(assignment))
        for assignment in itertools.product(range(4), repeat=len(sizes))
        if all(
            sum(s[d] for s, at in zip(sizes, assignment, strict=True) if at == b) <= capacity[d]
            for b in set(assignment)
            for d in range(2)
        )
    )
    assert len(set(packed.bins)) == best


def test_min_bins_keeps_groups_apart() -> None:
    """Items of different groups never share a bin, even when one bin would hold them all."""
    packed = min_bins([(1,), (1,), (1,)], (10,), upper_bound=3, groups=["a", "b", ""])
    assert packed is not None
    assert packed.bins[0] != packed.bins[1]
    assert len(set(packed.bins)) == 2


def test_model_blocks_are_named_and_bounded() -> None:
    """A variable block's columns follow its shape; an index outside it is refused by name."""
    model = Model()
    a = model.variables("a", 3)
    b = model.variables("b", (2, 2))
    assert [a[i] for i in range(3)] == [0, 1, 2]
    assert [b[i, j] for i in range(2) for j in range(2)] == [3, 4, 5, 6]
    with pytest.raises(IndexError, match=r"b\[2, 0\]"):
        b[2, 0]


def test_a_bigger_model_searches_fewer_nodes() -> None:
    """The node limit is the work budget over the model's nonzeros, between the floor and the
    ceiling, and a model over the size limit is not admitted: all decided from the size."""
    limits = SolverLimits(node_work=10_000, max_nodes=500, min_nodes=5, max_nonzeros=3_000)
    assert limits.node_limit(1) == 500
    assert limits.node_limit(100) == 100
    assert limits.node_limit(1_000) == 10
    assert limits.node_limit(2_999) == 5
    assert limits.admits(3_000)
    assert not limits.admits(3_001)


def _knapsack_model() -> Model:
    """A 0-1 multi-knapsack HiGHS does not close at its root node: 30 items, 3 capacities."""
    rng = np.random.default_rng(0)
    weights = rng.integers(20, 100, size=(3, 30))
    values = rng.integers(20, 100, size=30)
    model = Model()
    take = model.variables("take", 30, upper=1)
    for row in weights:
        model.constrain({take[i]: float(w) for i, w in enumerate(row)}, upper=row.sum() / 2)
    model.minimise({take[i]: -float(v) for i, v in enumerate(values)})
    return model


def test_the_node_limit_stops_the_solve_with_its_best_answer() -> None:
    """A solve stopped by the node limit (HiGHS' "solution limit", scipy's status 4) keeps its
    incumbent, marked limit reached, not clock-stopped, and within every capacity."""
    model = _knapsack_model()
    stopped = model.solve(SolverLimits(node_work=1, min_nodes=1))
    full = model.solve()
    assert stopped is not None
    assert full is not None
    assert full.status is SolveStatus.OPTIMAL
    assert stopped.status is SolveStatus.LIMIT_REACHED
    assert not stopped.stopped_by_clock
    assert stopped.dual_bound <= full.objective <= stopped.objective
    assert set(np.unique(stopped.values)) <= {0.0, 1.0}


def test_the_same_work_limit_gives_the_same_answer_whatever_the_clock() -> None:
    """Stopped by nodes, the answer is the same with a short or a long wall-clock backstop."""
    model = _knapsack_model()
    short = model.solve(SolverLimits(node_work=1, min_nodes=1, time_limit_s=30))
    long = model.solve(SolverLimits(node_work=1, min_nodes=1, time_limit_s=600))
    assert short is not None
    assert long is not None
    assert short.status is long.status is SolveStatus.LIMIT_REACHED
    assert short.objective == long.objective
    assert list(short.values) == list(long.values)


def test_a_model_over_the_size_limit_is_left_to_the_heuristic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A MILP too big for the work limit is never handed to HiGHS; its LP relaxation still is."""
    import planner.solve.milp as module

    calls: list[object] = []
    real_milp = module.milp

    def counting_milp(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("integrality"))
        return real_milp(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "milp", counting_milp)
    model = _knapsack_model()
    assert model.solve(SolverLimits(max_nonzeros=model.nonzeros - 1)) is None
    assert not calls
    assert model.solve(SolverLimits(max_nonzeros=model.nonzeros - 1), relax=True) is not None
    assert len(calls) == 1


def test_counts_packing_too_big_for_the_exact_model_is_a_labelled_heuristic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When the pattern model is over the size solved exactly, the exact path keeps the best
    incumbent, labelled heuristic (not "limit reached"), with a note saying why."""
    monkeypatch.setattr(SolverLimits, "admits", lambda self, nonzeros: False)
    packing = pack_counts(PATTERNS, DEMAND, _one_kind_per_gpu, exact=True, time_limit_s=10)
    assert packing.status is SolveStatus.HEURISTIC
    assert packing.gpus > packing.lower_bound
    assert any("too big" in note for note in packing.notes)


def test_fill_gives_the_room_to_the_items_worth_most() -> None:
    """One bin: two items of kind 0 (worth 10 and 1) or one of kind 0 and one of kind 1 (worth
    5). The second pattern holds 15 against 11, and the room goes to the item worth 10."""
    fill = fill_most_with_patterns(
        [(2, 0), (1, 1)], [[1, 1], [1]], [[10.0, 1.0], [5.0]], bins=1, time_limit_s=10
    )

    assert fill is not None
    assert fill.uses == (0, 1)
    assert fill.held == ((1, 0), (1,))


@pytest.mark.parametrize("bins", [1, 2, 3, 5])
def test_fill_matches_brute_force(bins: int) -> None:
    """The most worth ``bins`` bins of ``PATTERNS`` hold, items of each kind in two classes of
    worth, equals the best over every use count, and no more bins than needed are set up."""
    demand = [[4, 3], [2, 3], [1, 3]]
    worth = [[5.0, 1.0], [4.0, 2.0], [3.0, 1.0]]

    def held_worth(uses: Sequence[int]) -> float:
        total = 0.0
        for k, classes in enumerate(demand):
            room = sum(u * p[k] for u, p in zip(uses, PATTERNS, strict=True))
            for count, value in sorted(zip(classes, worth[k], strict=True), key=lambda c: -c[1]):
                taken = min(count, room)
                total += taken * value
                room -= taken
        return total

    best = max(
        held_worth(uses)
        for uses in itertools.product(range(bins + 1), repeat=len(PATTERNS))
        if sum(uses) <= bins
    )

    fill = fill_most_with_patterns(PATTERNS, demand, worth, bins=bins, time_limit_s=10)

    assert fill is not None
    assert sum(fill.uses) <= bins
    got = sum(
        n * value
        for k in range(len(demand))
        for n, value in zip(fill.held[k], worth[k], strict=True)
    )
    assert got == pytest.approx(best)
    for k, classes in enumerate(demand):
        assert all(0 <= n <= d for n, d in zip(fill.held[k], classes, strict=True))
        room = sum(u * p[k] for u, p in zip(fill.uses, PATTERNS, strict=True))
        assert sum(fill.held[k]) <= room
    assert held_worth(fill.uses) == pytest.approx(best)


@pytest.mark.parametrize("equal", [False, True])
def test_lp_duals_price_each_row(equal: bool) -> None:
    """min 2a + 3b with a + b >= 4 (or = 4) and a <= 3: a = 3, b = 1, cost 9. One more unit to
    hold costs 3 (a b), one more unit of a's room saves 1 (an a for a b)."""
    model = Model()
    a, b = (model.variables(name, 1, integral=False)[0] for name in ("a", "b"))
    model.constrain({a: 1.0, b: 1.0}, lower=4.0, upper=4.0 if equal else math.inf)
    model.constrain({a: 1.0}, upper=3.0)
    model.minimise({a: 2.0, b: 3.0})
    lp = model.solve_lp_with_duals()
    assert lp is not None
    assert lp.objective == pytest.approx(9.0)
    assert lp.values == pytest.approx([3.0, 1.0])
    assert lp.duals == pytest.approx([3.0, -1.0])


def test_a_solve_stopped_without_a_dual_bound_bounds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HiGHS stopped at a limit with a solution but no dual bound: the objective found is not a
    bound, so none is claimed (it read as one)."""
    from types import SimpleNamespace

    from planner.solve import milp as solver

    model = Model()
    x = model.variables("x", 1, upper=5.0)
    model.constrain({x[0]: 1.0}, lower=2.0)
    model.minimise({x[0]: 1.0})
    stopped = SimpleNamespace(
        status=1, message="Time limit reached", x=np.array([3.0]), fun=3.0, mip_dual_bound=None
    )
    monkeypatch.setattr(solver, "milp", lambda **arguments: stopped)
    solution = model.solve()
    assert solution is not None
    assert solution.objective == 3.0
    assert solution.dual_bound == -math.inf


def _bins_by_configuration(sizes: Sequence[int], need: Sequence[int], capacity: int) -> int:
    """The fewest bins of ``capacity`` holding ``need[k]`` items of size ``sizes[k]``, by brute
    force over how many of each kind the bins hold."""
    configurations = [
        c
        for c in itertools.product(*(range(capacity // s + 1) for s in sizes))
        if 0 < sum(n * s for n, s in zip(c, sizes, strict=True)) <= capacity
    ]
    for bins in itertools.count(1):
        for chosen in itertools.combinations_with_replacement(configurations, bins):
            held = [sum(c[k] for c in chosen) for k in range(len(sizes))]
            if all(h >= n for h, n in zip(held, need, strict=True)):
                return bins
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("sizes", "need"), [((6, 4, 3), (3, 3, 2)), ((5, 4, 2), (2, 3, 4)), ((7, 3), (2, 5))]
)
def test_configurations_hold_the_demand_on_the_fewest_bins(
    sizes: tuple[int, ...], need: tuple[int, ...]
) -> None:
    """Bins of 10 priced by brute force over what one bin holds: the integer master over the
    configurations generated holds the demand on at most one bin more than brute force (it is
    not proven the best: configurations not generated are left out), never fewer, and the
    Lagrangian bound is at most the fewest and more than the fewest less one."""
    capacity = 10

    def price(kind: int, duals: np.ndarray) -> Priced:
        best: Configuration | None = None
        least = 0.0
        for held in itertools.product(*(range(capacity // s + 1) for s in sizes)):
            if sum(n * s for n, s in zip(held, sizes, strict=True)) > capacity:
                continue
            net = 1.0 - sum(float(duals[k]) * n for k, n in enumerate(held))
            if net < least - 1e-12:
                least = net
                best = Configuration(0, 1.0, {k: float(n) for k, n in enumerate(held) if n})
        return Priced(best, least)

    plan = plan_configurations([float(n) for n in need], [100.0] * len(need), [20], price)
    assert plan is not None
    optimum = _bins_by_configuration(sizes, need, capacity)
    assert optimum <= sum(plan.uses) <= optimum + 1
    for k, n in enumerate(need):
        held = sum(
            c.holds.get(k, 0.0) * u for c, u in zip(plan.configurations, plan.uses, strict=True)
        )
        assert held >= n
    assert optimum - 1 < plan.lower_bound <= optimum + 1e-9


def test_a_configuration_bound_holds_with_too_few_units() -> None:
    """With one bin allowed and two needed, the master leaves demand short at its cost; the
    bound still does not exceed what that costs."""

    def price(kind: int, duals: np.ndarray) -> Priced:
        options = [Configuration(0, 1.0, {0: 1.0}), Configuration(0, 1.0, {1: 1.0})]
        nets = [c.cost - sum(float(duals[r]) * a for r, a in c.holds.items()) for c in options]
        best = min(range(2), key=lambda j: nets[j])
        return Priced(options[best], min(0.0, nets[best]))

    plan = plan_configurations([1.0, 1.0], [50.0, 50.0], [1], price)
    assert plan is not None
    assert sum(plan.uses) == 1
    assert sum(plan.short) == pytest.approx(1.0)
    assert plan.lower_bound <= 51.0 + 1e-9


def test_column_generation_stops_when_its_pricing_work_is_spent() -> None:
    """Each pricing reports its work; once the work given is spent, no round follows: the
    first round prices every kind, then the generation stops with what it has."""
    calls: list[int] = []

    def price(kind: int, duals: np.ndarray) -> Priced:
        calls.append(kind)
        held = {len(calls) % 2: 1.0}
        configuration = Configuration(kind, 1.0, held)
        return Priced(configuration, -math.inf, work=10.0)

    plan_configurations([3.0, 3.0], [50.0, 50.0], [4, 4], price, pricing_work=15.0)
    assert calls == [0, 1]
    calls.clear()
    plan_configurations([3.0, 3.0], [50.0, 50.0], [4, 4], price, rounds=3)
    assert len(calls) > 2


def test_a_model_without_variables_is_the_empty_answer_or_infeasible() -> None:
    """Nothing to decide: solved as 0 when every row admits 0 (scipy refuses an empty model),
    infeasible (None) when a row asks for more."""
    empty = Model()
    solution = empty.solve()
    assert solution is not None
    assert solution.status is SolveStatus.OPTIMAL
    assert solution.objective == 0.0
    assert solution.dual_bound == 0.0
    empty.constrain({}, lower=1.0)
    assert empty.solve() is None
