"""The features' factor (or centring) read through activations that are not ReLU, from probe 'flatten-order'.

That probe's layers are the identity with zero biases and its features are positive, so what it returns is the
features after FC1's and FC2's activations: ``probework._input_changes`` reads a factor on the features there when
both activations are ReLU (x * 2 comes out as 2 x). Beside a sigmoid in FC1 or tanh in FC2 it comes out as
sigmoid(2 x) or tanh(2 x), and the factor was never tried, so the pair got a bare wrong-stage. Undoing activations that
can be undone (a sigmoid, tanh) shows the factor again, or the batch's mean subtracted (``variants.CENTRED``).
"""
from __future__ import annotations

import numpy as np

from . import stages as S
from . import variants as V

#: activations that can be undone on the values a positive input gives (a ReLU passes them unchanged)
_INVERSES = {
    "relu": lambda y: y,
    "none": lambda y: y,
    "sigmoid": lambda y: np.log(y / (1.0 - y)),
    "tanh": np.arctanh,
}


def _snapped(factor: float) -> float:
    """A factor read through a logarithm, rounded to the number a student wrote (2, 0.5, 1/255) when it is that
    close: the search then names 'x * 2', not 'x * 2.0000000003'."""
    for nice in (round(factor, 6), 1.0 / round(1.0 / factor, 6)):
        if nice > 0 and abs(nice - factor) <= 1e-7 * factor:
            return nice
    return factor


def through_activations(run) -> list[str]:
    """``scale:S`` when undoing a pair of activations (FC1's, FC2's) that can be undone turns probe
    'flatten-order''s output into its features times one factor S other than 1; else nothing. Only a start for the
    search: a variant with the factor is named only if it then reproduces every probe and graded case."""
    arr = S.usable(run) if run is not None else None
    if arr is None or not np.isfinite(arr).all():
        return []
    x = run.case.args[0].reshape(run.case.args[0].shape[0], -1)
    if arr.shape != x.shape or not (x > 0).all():
        return []
    for act1, first in _INVERSES.items():
        for act2, second in _INVERSES.items():
            if {act1, act2} <= {"relu", "none"}:
                continue  # the same on positive values as two ReLUs, which ``probework._input_changes`` reads
            with np.errstate(all="ignore"):
                undone = first(second(arr))
                ratio = undone / x
            factor = float(ratio.flat[0])
            if np.isfinite(ratio).all() and factor > 0 and abs(factor - 1.0) > 1e-6 \
                    and np.allclose(ratio, factor, rtol=1e-6, atol=0):
                return [f"scale:{_snapped(factor)!r}"]
            centred = x - x.mean(axis=0)  # the batch's mean subtracted (``variants.CENTRED``)
            if len(x) > 1 and np.isfinite(undone).all() and np.allclose(undone, centred, rtol=1e-6, atol=1e-9):
                return [V.CENTRED]
    return []
