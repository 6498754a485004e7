"""Lower bounds for bin packing: no packing of the items can use fewer bins than these.

Sizes and capacities are integers in a unit the caller chooses (GPUs, micro-GPUs of memory,
MIG slices), so the bounds are exact and free of rounding. A plan reports its GPU count beside
the bound so the user sees how far from optimal it can at most be.

- ``l1_bound``: the continuous bound, ``ceil(sum(sizes) / capacity)``.
- ``martello_toth_l2``: Martello and Toth's L2 (1990), never weaker than L1. For an integer
  ``k`` in ``[0, capacity / 2]`` split the items into ``J1`` (size > capacity - k), ``J2``
  (capacity / 2 < size <= capacity - k) and ``J3`` (k <= size <= capacity / 2); no two items of
  ``J1 + J2`` share a bin and no ``J3`` item fits beside a ``J1`` item, so
  ``L(k) = |J1| + |J2| + max(0, ceil((sum(J3) - (|J2| capacity - sum(J2))) / capacity))``
  and ``L2 = max_k L(k)``. Only ``k`` equal to 0 or to an item size can raise the maximum.
- ``vector_bound``: items that take a different size in each period (hour of day) of a bin whose
  capacity holds in every period; any packing needs at least the L2 bound of every period.
- ``dual_feasible``: Fekete and Schepers' dual feasible function ``u(k)``, for linear rows over
  shares of one bin (a GPU) that must stay valid for every packing of whole items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "DFF_MAX_K",
    "dual_feasible",
    "items_per_bin",
    "l1_bound",
    "martello_toth_l2",
    "vector_bound",
]

DFF_MAX_K = 8
"""Rounded rows (``dual_feasible``) are worth adding for each ``k`` = items of one size that fit
in a bin, up to this many: beyond it rounding gains under 1/k of a bin per item."""


def _check(sizes: Sequence[int], capacity: int) -> None:
    if capacity <= 0:
        raise ValueError(f"capacity must be positive, got {capacity}")
    values = np.asarray(sizes, dtype=np.int64)
    wrong = np.flatnonzero((values < 0) | (values > capacity))
    if wrong.size:
        raise ValueError(
            f"every size must lie in [0, capacity={capacity}], got {int(values[wrong[0]])}"
        )


def l1_bound(sizes: Sequence[int], capacity: int) -> int:
    """Continuous bound: bins needed if items could be cut, ``ceil(sum(sizes) / capacity)``."""
    _check(sizes, capacity)
    return -(-sum(sizes) // capacity)


def martello_toth_l2(sizes: Sequence[int], capacity: int) -> int:
    """Martello-Toth L2 bound on the bins needed for ``sizes`` in bins of ``capacity``.

    Parameters
    ----------
    sizes : item sizes, integers in ``[0, capacity]`` [caller's unit]
    capacity : bin capacity [same unit]

    Returns
    -------
    int : a lower bound on the bins of any packing, at least ``l1_bound``.
    """
    _check(sizes, capacity)
    values = np.asarray(sizes, dtype=np.int64)
    items = np.sort(values[values > 0])
    if items.size == 0:
        return 0
    total = int(items.sum())
    # prefix[i] = sum of the i smallest items, so sums over size ranges are two look-ups.
    prefix = np.concatenate(([0], np.cumsum(items)))
    half = capacity // 2  # sizes <= half are "small" (at most capacity / 2)

    n_le_half = int(np.searchsorted(items, half, side="right"))
    # Every k at once: 0 and each distinct small size.
    ks = np.concatenate(([0], np.unique(items[items <= half])))
    n_le_cap_minus_k = np.searchsorted(items, capacity - ks, side="right")
    j1 = items.size - n_le_cap_minus_k
    j2 = n_le_cap_minus_k - n_le_half
    sum_j2 = prefix[n_le_cap_minus_k] - prefix[n_le_half]
    sum_j3 = prefix[n_le_half] - prefix[np.searchsorted(items, ks, side="left")]
    overflow = np.maximum(0, sum_j3 - (j2 * capacity - sum_j2))
    return max(-(-total // capacity), int((j1 + j2 - (-overflow // capacity)).max()))


def vector_bound(hourly_sizes: Sequence[Sequence[int]], capacity: int) -> int:
    """Bins needed when each item has a size per period and each bin holds ``capacity`` per period.

    Parameters
    ----------
    hourly_sizes : one row per item, one integer per period (24 hours of a day) [caller's unit]
    capacity : what one bin holds in any one period [same unit]

    Returns
    -------
    int : the largest Martello-Toth L2 bound over the periods.
    """
    if not hourly_sizes:
        return 0
    matrix = np.asarray(hourly_sizes, dtype=np.int64)
    # Periods with the same sizes have the same bound: each distinct one is bounded once.
    periods = np.unique(matrix, axis=1)
    return max(martello_toth_l2(periods[:, h].tolist(), capacity) for h in range(periods.shape[1]))


def dual_feasible(x: float, k: int) -> float:
    """Fekete and Schepers' dual feasible function ``u(k)`` of a share ``x`` of one bin: shares
    that fit in one bin together keep a sum of at most 1 once rounded, so rows of rounded shares
    still bound every packing, and count shares too large to pair up (``k = 1``: a share over
    one half counts as a whole bin)."""
    if abs((k + 1) * x - round((k + 1) * x)) < 1e-9:
        return x
    return math.floor((k + 1) * x + 1e-9) / k


def items_per_bin(x: float) -> int:
    """How many shares of size ``x`` (of one bin) fit in one bin; 0 for a share over a bin."""
    return math.floor(1.0 / x + 1e-9) if 0.0 < x <= 1.0 else 0
