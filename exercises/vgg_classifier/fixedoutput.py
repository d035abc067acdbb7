"""One answer whatever the inputs (``constant-output``): zeros, a constant, or numbers copied from the self-check
returned instead of anything computed. Asked before the search, which would explain zeros or a copied array with
names that are wrong for them (a mask that keeps nothing, missing biases, rounding).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from grader.authoring import Finding

from .detectors import _right


#: where a copied answer most likely comes from: the self-check's public expected outputs
_PUBLIC = Path(__file__).with_name("public_expected.json")
#: fewest calls that must agree before one answer for all of them is taken for a fixed one
FIXED_MIN_CALLS = 5


def _public_source(arr: np.ndarray) -> str:
    """The public case whose expected output ``arr`` holds, if it was copied from the self-check's numbers."""
    try:
        cases = json.loads(_PUBLIC.read_text())["cases"]
    except (OSError, ValueError, KeyError):
        return ""
    for name, entry in cases.items():
        values = np.asarray(entry.get("values", ()), dtype=np.float64)
        if name.startswith("public") and arr.size == values.size and arr.size and \
                np.allclose(arr.reshape(-1), values, rtol=1e-6, atol=1e-9):
            return name
    return ""


def fixed_output(runs) -> Finding | None:
    """Nearly every call returned one and the same array (at most two of them, for a function that tells a single
    sample from a batch), although the inputs and the expected logits all differ: zeros, a constant, or numbers
    copied from an example are returned instead of anything computed. The search would explain zeros with a mask
    that keeps nothing plus missing biases, and rounding with 0 decimals: each of those names would be wrong.

    Only runs that returned a numeric ndarray count; a different answer on each call, or one that follows the
    inputs' sizes and values (a cache keyed by shape), is never read as fixed."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status == "ok"]
    arrays = [(r, r.outcome.array) for r in small  # what came back as an ndarray (a stand-in's is empty)
              if (r.outcome.exact_ndarray or r.outcome.subclass)
              and isinstance(r.outcome.array, np.ndarray) and r.outcome.array.dtype.kind in "biuf"]
    if len(arrays) < FIXED_MIN_CALLS or len(arrays) < len(small):
        return None
    distinct = _distinct([arr for _, arr in arrays], limit=2)
    # a copied row tiled over the batch: a new array per batch size, the same rows
    rows = _distinct([row for _, arr in arrays for row in (arr if arr.ndim == 2 else arr.reshape(1, -1))[:64]],
                     limit=2)
    value = _single_value([arr for _, arr in arrays])
    constant = value is not None
    expected = {r.expected.tobytes() + repr(r.expected.shape).encode() for r, _ in arrays}
    # no row at all (every array empty, (0, K)) is no row repeated: those are wrong-shape's, not a copied row's
    if len(expected) < FIXED_MIN_CALLS or not (constant or len(distinct) <= 2 or 0 < len(rows) <= 2):
        return None
    if any(_right(r) for r, _ in arrays if r.outcome.array.shape == r.expected.shape):
        return None
    calls = f"all {len(arrays)} calls, graded cases and probes, whose inputs and expected logits all differ"
    if constant:
        return Finding("constant-output", f"Every value your function returned on {calls}, is {value:g}: the "
                                          f"result does not depend on the features or on any weight, as if a "
                                          f"placeholder such as np.zeros stood where the logits should be computed.")
    source = next((s for s in (_public_source(d) for d in distinct + rows) if s), "")
    copied = (f"; it holds the expected output of the public case '{source}', as if the self-check's numbers had "
              "been copied into the code" if source else "")
    if len(distinct) <= 2:
        shapes = " and ".join(str(tuple(d.shape)) for d in distinct)
        count = f"{'the same array' if len(distinct) == 1 else 'one of the same two arrays'} (shape {shapes})"
    else:
        count = f"{'one row' if len(rows) == 1 else 'two rows'} of {rows[0].size} values, repeated for every sample"
    return Finding("constant-output", f"On {calls}, your function returned {count}{copied}: the result is not "
                                      "computed from the inputs it receives.")


def _distinct(arrays: list[np.ndarray], limit: int) -> list[np.ndarray]:
    """The arrays that differ in shape or value (as ``np.array_equal`` tells them apart: -0.0 equals 0.0, an int
    its float, and an array holding NaN equals nothing), first of each in order; once more than ``limit`` are
    found the rest are not looked at (more than ``limit`` is all the caller asks). Keyed by their bytes: a correct
    function's answers, all different, cost three looks instead of a comparison of every pair (and, through
    ``np.unique``, the import of ``numpy.ma``), about half the diagnosis of every submission."""
    seen: set = set()
    out: list[np.ndarray] = []
    for arr in arrays:
        values = arr.astype(np.float64) + 0.0  # + 0.0: -0.0 becomes 0.0, as array_equal has them equal
        key = object() if np.isnan(values).any() else (arr.shape, values.tobytes())
        if key not in seen:
            seen.add(key)
            out.append(arr)
            if len(out) > limit:
                break
    return out


def _single_value(arrays: list[np.ndarray]) -> float | None:
    """The one value every element of ``arrays`` holds, or None (two values, a NaN, or no element at all)."""
    value = None
    for arr in arrays:
        if arr.size == 0:
            continue
        low, high = float(arr.min()), float(arr.max())
        if low != high or low != low or (value is not None and low != value):
            return None
        value = low
    return value
