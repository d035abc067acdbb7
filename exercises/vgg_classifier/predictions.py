"""The predicted class of each sample (an index, a one-hot row, every class ranked by its logit, or the predicted
class's score alone) returned instead of the logits (``class-predictions``): read from the outputs directly, since
no variant of the head's model returns indices.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from . import search as Q


def _predictions_of_wrong_logits(kinds: set, hits: int, samples: int, seen: set) -> Finding | None:
    """Every call returned class indices (or one-hot rows), but some point at another class than the statement's
    largest logit: the logits were wrong before the argmax as well. Said only when the indices vary and most of
    them are still right, which a placeholder (zeros, random whole numbers) is not; the evidence says that the
    logits themselves must be fixed too, since no finding can be read from indices alone."""
    if len(seen) < 2 or 2 * hits < samples:
        return None
    what = ("one class index per sample" if kinds == {"labels"}
            else "for each sample, a row of zeros with a single 1 (a one-hot prediction)")
    return Finding("class-predictions", f"Every call returned {what} instead of the logits; {hits} of the {samples} "
                                        f"samples get the class of their largest logit, the others another one, so "
                                        "the logits computed before the argmax are wrong too: return the logits, "
                                        "and the checks will show what else differs.")


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """The same numbers, to the precision a float64 computation of them in another order keeps."""
    with np.errstate(all="ignore"):
        return bool(np.allclose(a.astype(np.float64), b, rtol=1e-9, atol=1e-12))


def _ranking(arr: np.ndarray, expected: np.ndarray) -> str | None:
    """"descending" or "ascending" when each row of ``arr`` is a permutation of the class indices that lists the
    classes by their logit, largest first or smallest first (``np.argsort(-logits)`` or ``np.argsort(logits)``), or
    None. Ties may come in either order, so the check is that the logits read in that order never go up (or down)."""
    K = expected.shape[1]
    if arr.dtype.kind not in "biuf" or not np.all(arr == np.round(arr)) or arr.min() < 0 or arr.max() >= K:
        return None
    idx = arr.astype(np.int64)
    if not np.all(np.sort(idx, axis=1) == np.arange(K)):
        return None
    read = np.take_along_axis(expected, idx, axis=1)
    steps = np.diff(read, axis=1)
    slack = 1e-9 * (1.0 + np.abs(read[:, 1:]))
    if np.all(steps <= slack):
        return "descending"
    if np.all(steps >= -slack):
        return "ascending"
    return None


def predictions(runs) -> Finding | None:
    """Every call returned the predicted class of each sample (the index of its largest logit), or a one-hot row
    with a 1 there, instead of the logits."""
    small = [r for r in runs if r.case.group != "full-scale"]
    if any(r.outcome.status != "ok" for r in small):
        return None
    kinds, example, hits, samples, seen = set(), None, 0, 0, set()
    for run in small:
        arr, expected = run.outcome.array, run.expected
        if arr is None or arr.ndim == 0 or arr.dtype.kind not in "biuf" or expected.ndim != 2 \
                or expected.shape[1] < 2:
            return None
        B = expected.shape[0]
        top = expected.max(axis=1)
        if (arr.size == B and arr.shape[-1] != expected.shape[1] or arr.shape in ((B,), (B, 1)) and B > 1) \
                and arr.dtype.kind == "f" and _close(arr.reshape(-1), top):
            labels = np.argmax(expected, axis=1)  # the largest logit's value, not its position: the top score
            right = np.ones(B, dtype=bool)
            kinds.add("top")
        elif arr.size == B and arr.shape[-1] != expected.shape[1] or arr.shape in ((B,), (B, 1)) and B > 1:
            labels = arr.reshape(-1)
            if not np.all(labels == np.round(labels)) or labels.min() < 0 or labels.max() >= expected.shape[1]:
                return None
            right = expected[np.arange(B), labels.astype(np.int64)] == top
            kinds.add("labels")
        elif arr.shape == expected.shape and expected.shape[1] > 2 and _ranking(arr, expected) is not None:
            order = _ranking(arr, expected)  # with two classes a ranking and a one-hot row look alike
            labels = arr[:, 0] if order == "descending" else arr[:, -1]
            right = np.ones(B, dtype=bool)
            kinds.add(f"ranking-{order}")
        elif arr.shape == expected.shape == (B, 2) and _ranking(arr, expected) is not None:
            continue  # two classes, each row 0, 1 or 1, 0: a ranking's as much as a one-hot's, so it tells neither
        elif arr.shape == expected.shape:
            ones = arr == 1
            if not (np.all(ones | (arr == 0)) and np.all(ones.sum(axis=1) == 1)):
                return None
            right = np.array([expected[i][ones[i]][0] == top[i] for i in range(B)])
            labels = np.argmax(ones, axis=1)
            kinds.add("one-hot")
        else:
            return None
        hits, samples = hits + int(right.sum()), samples + B
        seen.update(int(v) for v in labels)
        if right.all() and (run.case.name == "sizes" or example is None):
            example = run
    if len(small) < 2 or len(kinds) != 1:
        return None
    if hits < samples:  # class indices of logits that are wrong as well: most still point at the right class
        return _predictions_of_wrong_logits(kinds, hits, samples, seen)
    if example is None:
        return None
    arr, expected = example.outcome.array, example.expected
    where = (f"on probe '{example.case.name}' ({example.case.description})" if example.case.group == PROBE
             else "on a graded case")
    if len(kinds) == 1 and next(iter(kinds)).startswith("ranking-"):
        order = next(iter(kinds))[len("ranking-"):]
        first = "largest" if order == "descending" else "smallest"
        call = "np.argsort(-logits, axis=1)" if order == "descending" else "np.argsort(logits, axis=1)"
        shown = ", ".join(str(int(v)) for v in arr[0][:8])
        return Finding("class-predictions", f"Every call returned, for each sample, the class indices ordered from "
                                            f"the {first} logit to the {'smallest' if first == 'largest' else 'largest'}"
                                            f" (a ranking, as {call} gives) instead of the logits: {where} the first "
                                            f"row is {shown}{', ...' if arr.shape[1] > 8 else ''} (dtype {arr.dtype})"
                                            f" where the statement gives the logits "
                                            f"{', '.join(Q.fmt(v) for v in expected[0][:8])}"
                                            f"{', ...' if arr.shape[1] > 8 else ''}.")
    if kinds == {"top"}:
        shown = ", ".join(Q.fmt(v) for v in arr.reshape(-1)[:4])
        return Finding("class-predictions", f"Every call returned one value per sample, its largest logit (the score "
                                            f"of the predicted class, as logits.max(axis=1) gives it) instead of all "
                                            f"{expected.shape[1]} logits: {where} your function returned {shown}"
                                            f"{', ...' if arr.size > 4 else ''} (shape {tuple(arr.shape)}) where the "
                                            f"statement gives an array of shape {expected.shape} whose rows' largest "
                                            f"entries are those values.")
    if kinds == {"labels"}:
        shown = ", ".join(str(int(v)) for v in arr.reshape(-1)[:4])
        return Finding("class-predictions", f"Every call returned one class index per sample, the position of its "
                                            f"largest logit, instead of the logits: {where} your function returned "
                                            f"{shown}{', ...' if arr.size > 4 else ''} (shape {tuple(arr.shape)}, "
                                            f"dtype {arr.dtype}) where the statement gives an array of shape "
                                            f"{expected.shape} whose largest entry in each row is at those positions.")
    return Finding("class-predictions", f"Every call returned, for each sample, a row of zeros with a single 1 at the "
                                        f"position of the largest logit (a one-hot prediction) instead of the logits "
                                        f"themselves: {where} the first row is "
                                        f"{', '.join(f'{v:g}' for v in arr[0][:8])}{', ...' if arr.shape[1] > 8 else ''}"
                                        f" where the statement gives "
                                        f"{', '.join(Q.fmt(v) for v in expected[0][:8])}"
                                        f"{', ...' if arr.shape[1] > 8 else ''}.")
