"""Bin-packing lower bounds: valid (never above the optimum) and as strong as the maths says."""

from __future__ import annotations

import itertools
import random

import pytest

from planner.solve.bounds import l1_bound, martello_toth_l2, vector_bound


def _optimum(sizes: list[int], capacity: int) -> int:
    """Fewest bins, by trying every assignment of items to bins (tiny cases only)."""
    for bins in range(1, len(sizes) + 1):
        for assignment in itertools.product(range(bins), repeat=len(sizes)):
            loads = [0] * bins
            for size, b in zip(sizes, assignment, strict=True):
                loads[b] += size
            if max(loads) <= capacity:
                return bins
    return 0


def test_l1_is_the_ceiling_of_total_size() -> None:
    """L1 = ceil(sum / capacity): 250 units in bins of 100 need at least 3 bins."""
    assert l1_bound([100, 100, 50], 100) == 3
    assert l1_bound([], 100) == 0


def test_l2_sees_items_that_cannot_pair() -> None:
    """Three items over half the capacity need three bins; L1 only sees two."""
    assert l1_bound([60, 60, 60], 100) == 2
    assert martello_toth_l2([60, 60, 60], 100) == 3


def test_l2_counts_small_items_that_cannot_join_large_ones() -> None:
    """Two items of 70 and three of 40: the 40s fit beside no 70, so 2 + ceil(120/100) = 4."""
    assert martello_toth_l2([70, 70, 40, 40, 40], 100) == 4
    assert _optimum([70, 70, 40, 40, 40], 100) == 4


def test_bounds_never_exceed_the_optimum() -> None:
    """On 200 random cases of up to 6 items, L1 <= L2 <= the brute-force optimum."""
    rng = random.Random(7)
    for _ in range(200):
        sizes = [rng.randint(1, 10) for _ in range(rng.randint(1, 6))]
        optimum = _optimum(sizes, 10)
        assert l1_bound(sizes, 10) <= martello_toth_l2(sizes, 10) <= optimum


def test_vector_bound_lets_day_and_night_share() -> None:
    """A full-size day item and a full-size night item fit one bin; two day items need two."""
    day = [10 if 9 <= h < 17 else 0 for h in range(24)]
    night = [0 if 9 <= h < 17 else 10 for h in range(24)]
    assert vector_bound([day, night], 10) == 1
    assert vector_bound([day, day, night], 10) == 2


def test_sizes_outside_the_capacity_are_refused() -> None:
    """A size above the capacity is an error naming the capacity, not a silent bound."""
    with pytest.raises(ValueError, match="capacity=10"):
        martello_toth_l2([11], 10)
