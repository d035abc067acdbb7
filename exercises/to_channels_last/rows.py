"""The order of a result's rows against the right result's: how the diagnosis tells a port whose columns are right
and whose outputs were then moved (reversed, rolled...) from the catalogued mistakes, which all move columns."""
from __future__ import annotations

from typing import Callable

import numpy as np


Close = Callable[[np.ndarray, np.ndarray], bool]


def row_order(actual: np.ndarray, expected: np.ndarray, close: Close) -> np.ndarray | None:
    """For each row of ``actual``, the row of the right result it equals, when every row is one of them and each
    is used once; else None. The rows of a drawn or labelled weight all differ, so the match is unambiguous."""
    if actual.shape != expected.shape or actual.ndim != 2:
        return None
    source = []
    for row in actual:
        hits = [s for s in range(expected.shape[0]) if close(row, expected[s])]
        if len(hits) != 1:
            return None
        source.append(hits[0])
    order = np.array(source)
    return order if np.unique(order).size == order.size else None


def describe_order(order: np.ndarray) -> str:
    n = order.size
    if np.array_equal(order, np.arange(n)[::-1]):
        return f"in reverse order: row 0 of your result is row {n - 1} of the right one"
    roll = (n - int(order[0])) % n
    if np.array_equal(order, (np.arange(n) - roll) % n):
        return (f"rolled by {roll} along the outputs, as np.roll(..., {roll}, axis=0) does: row r of your result is "
                f"row (r - {roll}) mod {n} of the right one")
    moved = int(np.flatnonzero(order != np.arange(n))[0])
    return f"in another order: row {moved} of your result is row {int(order[moved])} of the right one"
