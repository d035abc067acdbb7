"""An answer that follows the inputs' sizes and nothing else: a placeholder drawing random numbers from a fixed seed.

``fixedoutput.fixed_output`` names a function that returns one array whatever it is given. A placeholder such as
``np.random.default_rng(0).standard_normal((B, K))`` escapes it: each output size gets its own array. Nothing in
the values search fits it either (no stage computed anything), so the report said nothing at all. The evidence
that names it is in the runs already: calls whose inputs differ in every array, but whose outputs have one size,
return the very same numbers, and none is right. When every answer, read row by row, starts with the numbers of
the longest one, they are the first draws of one seeded sequence, and the evidence says so.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from . import detectors as D

#: fewest calls that must have returned numbers before their sizes are taken to be all the answer follows
MIN_CALLS = 5


def _differ_everywhere(a, b) -> bool:
    """Every array argument of one case differs from the other's (so the same answer cannot come from a shared
    weight the function did read)."""
    pairs = [(x, y) for x, y in zip(a.case.args, b.case.args) if isinstance(x, np.ndarray)]
    return bool(pairs) and all(x.shape != y.shape or not np.array_equal(x, y) for x, y in pairs)


def _prefixes(arrays: list[np.ndarray]) -> bool:
    """Every array, read in row-major order, begins the longest one: draws of one sequence in order, as a random
    generator seeded with a fixed number gives them whatever shape it is asked for."""
    longest = max(arrays, key=lambda a: a.size).reshape(-1)
    return all(np.array_equal(a.reshape(-1), longest[:a.size]) for a in arrays)


def shape_only(runs) -> Finding | None:
    """``constant-output`` for a function whose answer depends only on the size of its output: every two calls
    with outputs of one shape returned the same array (at least one such pair had inputs that differ in every
    array), none is right, and the answers are not all one array (``fixed_output`` speaks then)."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status == "ok"]
    arrays = [(r, r.outcome.array) for r in small
              if (r.outcome.exact_ndarray or r.outcome.subclass)
              and isinstance(r.outcome.array, np.ndarray) and r.outcome.array.dtype.kind == "f"
              and r.outcome.array.shape == r.expected.shape and np.isfinite(r.outcome.array).all()]
    if len(arrays) < MIN_CALLS or len(arrays) < len(small) or any(D._right(r) for r, _ in arrays):
        return None
    groups: dict[tuple, list] = {}
    for run, arr in arrays:
        groups.setdefault(arr.shape, []).append((run, arr))
    witness = None
    for members in groups.values():
        first_run, first = members[0]
        if any(not np.array_equal(arr, first) for _, arr in members[1:]):
            return None  # two answers of one size differ: something about the inputs was read
        if len({float(v) for v in first.reshape(-1)[:64]}) < 2:
            return None  # one value repeated: a zeros-like placeholder, which fixed_output names when it can
        if witness is None:
            witness = next(((first_run, r) for r, _ in members[1:] if _differ_everywhere(first_run, r)), None)
    if witness is None:
        return None
    a, b = witness
    seeded = _prefixes([arr for _, arr in arrays])
    sizes = len(groups)
    drawn = (f"; read row by row, every answer begins with the same numbers as the longest one, as the first draws "
             f"of a random generator seeded with a fixed number (np.random.seed(0) or np.random.default_rng(0), say) "
             f"come out whatever shape is asked for" if seeded else "")
    return Finding("constant-output", (
        f"Calls '{a.case.name}' and '{b.case.name}', whose features and weights all differ, returned the very same "
        f"array of shape {tuple(a.outcome.array.shape)}, and every other pair of calls whose outputs have one shape "
        f"did the same ({len(arrays)} calls, {sizes} output shapes, none of them right){drawn}: the result follows "
        "only the size of the output, not the features or the weights."))
