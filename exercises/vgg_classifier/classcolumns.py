"""Logits with classes left out or added (``classes-dropped``): every call that returned an array returned each
sample's right logits with the same number of class columns removed at one end (``z3[:, :-1]``, ``W3[:, 1:]``, a
loop over ``range(K - 1)``) or added there (a column of zeros from ``np.hstack`` onto a seed column, a result
allocated with K + 1 columns). The shape alone says only that it is wrong (round fifteen's ``z3[:, :-1]`` got a bare
``wrong-shape``); the right columns beside the missing or extra ones say what happened.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from .structure import close


def _sides(arr: np.ndarray, expected: np.ndarray) -> set[str]:
    """The ends ("first", "last") at which ``arr`` (B, K + d) is ``expected`` (B, K) with |d| columns taken away or
    put in."""
    d = arr.shape[1] - expected.shape[1]
    if d < 0:  # columns dropped: arr is a slice of expected
        pairs = (("first", arr, expected[:, -d:]), ("last", arr, expected[:, :d]))
    else:  # columns added: expected is a slice of arr
        pairs = (("first", arr[:, d:], expected), ("last", arr[:, :expected.shape[1]], expected))
    return {side for side, a, b in pairs if a.shape == b.shape and a.size and close(a, b)}


def classes_dropped(runs) -> list:
    """One finding when every call that returned a float array returned its samples' right logits with the same
    number of classes missing (or extra) at the same end, on a probe and on a graded case at least."""
    seen, sides, diffs = [], {"first", "last"}, set()
    for run in runs:
        out, expected = run.outcome, run.expected
        if out.status != "ok" or out.array is None:
            continue
        arr = out.array
        if arr.dtype.kind not in "biuf" or arr.ndim != 2 or expected.ndim != 2 or arr.shape[0] != expected.shape[0]:
            return []
        d = arr.shape[1] - expected.shape[1]
        if d == 0:
            return []
        sides &= _sides(arr.astype(np.float64), expected)
        if not sides:
            return []
        diffs.add(d)
        seen.append(run)
    if len(seen) < 2 or len(diffs) != 1 or all(r.case.group == PROBE for r in seen) \
            or not any(r.case.group == PROBE for r in seen):
        return []
    d, side = diffs.pop(), ("last" if "last" in sides else "first")
    run = min(seen, key=lambda r: (r.case.group != PROBE, r.case.name != "sizes"))
    B, K = run.expected.shape
    n = abs(d)
    cols = "class" if n == 1 else f"{n} classes"
    if d < 0:
        what = (f"the logits of the {side} {cols} are missing: your result has {K - n} columns where W3 has {K}, "
                f"and the other columns are the right logits of every sample")
        how = (" (a slice such as [:, :-1] on the logits, W3 or b3, or a loop that stops one class early, "
               "range(K - 1))" if side == "last" else " (a slice such as [:, 1:] on the logits, W3 or b3)")
    else:
        extra = "column" if n == 1 else f"{n} columns"
        what = (f"your result has {K + n} columns where W3 has {K}: the {side} {extra} belong{'s' if n == 1 else ''} "
                f"to no class, and the others are the right logits of every sample")
        how = " (a result stacked onto a seed column, or allocated with too many columns)"
    return [Finding("classes-dropped", f"On probe '{run.case.name}' ({run.case.description}) {what}{how}. Every call "
                                       f"that returned an array ({len(seen)}) shows the same, so only the number "
                                       f"of classes is wrong: one column per column of W3 is expected.")]
