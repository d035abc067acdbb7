"""Rows a loop never filled, on some batch sizes only (``samples-dropped``): a loop over the batch in steps of two that
stops early (``range(0, B - 1, 2)``) fills every row of an even batch and leaves the last row of an odd one (and the
only row of a single sample) holding the zeros the result was allocated with.

``samplerows.row_findings`` reads a pattern only when every batch shows it, so that a right batch beside a wrong one
says nothing; here the right batches are the evidence: the same code is right on some sizes and leaves its last rows
empty on the others. Round eighteen's chunked loop got a ``wrong-stage`` about b3 (the zeros of a single sample
read as logits that lost b3).
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from .structure import close


def _empty_tail(arr: np.ndarray, expected: np.ndarray) -> int | None:
    """How many last rows hold only zeros while every row before them is right (0: the whole array is right), or
    None when the rows show anything else."""
    B = expected.shape[0]
    for n in range(B + 1):
        head, tail = arr[:B - n], arr[B - n:]
        if not np.any(tail) and close(head, expected[:B - n]) and (n == 0 or np.any(expected[B - n:])):
            return n
    return None


def unfilled_rows(runs) -> list:
    """One finding when every call that returned an array of the right shape is right except for a run of last rows
    left at zero, some calls are right and some are not, and a probe is among those that are not."""
    right, empty = [], []
    for run in runs:
        arr, expected = run.outcome.array, run.expected
        if run.outcome.status != "ok" or arr is None:
            continue
        if arr.dtype.kind not in "biuf" or arr.shape != expected.shape or expected.ndim != 2:
            return []
        n = _empty_tail(arr.astype(np.float64), expected)
        if n is None:
            return []
        (empty if n else right).append((run, n))
    batched_right = [r for r, _ in right if r.expected.shape[0] > 1]
    if not batched_right or not any(r.case.group == PROBE for r, _ in empty) or len(empty) < 2:
        return []
    sizes_empty = sorted({r.expected.shape[0] for r, _ in empty})
    sizes_right = sorted({r.expected.shape[0] for r in batched_right})
    if set(sizes_empty) & set(sizes_right):
        return []  # one batch size both right and wrong: not a matter of the size
    run, n = min(empty, key=lambda rn: (rn[0].case.group != PROBE, rn[0].expected.shape[0] < 2))
    B = run.expected.shape[0]
    rows = f"row {B}" if n == 1 else f"rows {B - n + 1} to {B}"
    odd = all(s % 2 for s in sizes_empty) and not any(s % 2 for s in sizes_right)
    why = (" Every batch of an odd size loses its last sample and every even one is complete, as a loop over the "
           "batch in steps of two that stops one sample early does (range(0, B - 1, 2)); let the loop run to B and "
           "take the slice features[i:i + 2], which holds one sample at the end of an odd batch." if odd else
           " A loop over the samples that stops before the end of the batch leaves those rows as they were "
           "allocated.")
    held = "holds only zeros: that sample was" if n == 1 else "hold only zeros: those samples were"
    return [Finding("samples-dropped", f"On probe '{run.case.name}' ({run.case.description}) your function returned "
                                       f"the right logits for every sample but {rows}, which {held} never "
                                       f"computed. Batches of {_sizes(sizes_empty)} sample(s) come back with their "
                                       f"last rows empty like this, while batches of {_sizes(sizes_right)} are "
                                       f"right.{why}")]


def _sizes(sizes: list[int]) -> str:
    return ", ".join(str(s) for s in sizes[:-1]) + (" or " if len(sizes) > 1 else "") + str(sizes[-1])
