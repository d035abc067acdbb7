"""Whether a model reproduces what the student's function did on every small case: the same array (within the
tolerance) wherever it returned one, an error wherever it raised, and wrong somewhere."""
from __future__ import annotations

import numpy as np

from grader.authoring import Case

#: the largest weight a model is evaluated on (the fc6 case has 102.8 million entries)
SMALL = 1_000_000


def _close(actual: np.ndarray, expected: np.ndarray, rtol: float) -> bool:
    if actual.shape != expected.shape:
        return False
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        return bool(np.all(np.abs(actual.astype(np.float64) - expected) <= rtol * (scale + np.abs(expected))))


def _evaluate(fn, case: Case):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*case.args))
    except Exception:  # noqa: BLE001 - a model that raises on this case, as the student's may
        return None


def _usable(run) -> np.ndarray | None:
    out = run.outcome
    if out.status != "ok" or out.array is None or out.array.dtype.kind not in "fiu":
        return None
    return out.array


def _small(run) -> bool:
    weight = run.case.args[0]
    return isinstance(weight, np.ndarray) and weight.size <= SMALL


def _fits(fn, runs, rtol: float) -> bool:
    """The model reproduces every small run: its array where the student returned one, an error where the student
    raised; and somewhere the student is wrong, so is the model."""
    returned = wrong = 0
    for run in runs:
        status = run.outcome.status
        if status == "raised":
            if _evaluate(fn, run.case) is not None:
                return False
            wrong += 1
            continue
        actual = _usable(run)
        if actual is None:
            if status == "ok":
                return False  # None, a list of other things...: not what any model returns
            continue  # a timeout or a crash says nothing about the values
        model = _evaluate(fn, run.case)
        if model is None or not _close(actual, model, rtol):
            return False
        returned += 1
        if not (actual.shape == run.expected.shape and _close(actual, run.expected, rtol)):
            wrong += 1
    return returned > 0 and wrong > 0

