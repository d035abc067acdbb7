"""A call of the linear layer answered with the weight or bias of an earlier call (``kept_parameters``): tried by
``diagnosis.py`` when its search, which models one call at a time, explains nothing. Kept apart from the search
because it reads the calls in the order they ran, which nothing else in the diagnosis does."""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from .model import MATCH, bias_of
from .unmodelled import _where


def _layer(x: np.ndarray, weight: np.ndarray, bias) -> np.ndarray:
    y = x @ weight.T
    return y if bias is None else y + bias


def _close(actual: np.ndarray, predicted: np.ndarray, scale: float) -> bool:
    return actual.shape == predicted.shape and bool(np.all(np.abs(actual - predicted) <= scale))


def kept_parameters(runs) -> Finding | None:
    """A call answered with the weight (or bias, or both) of an earlier call of the same shapes, applied to this
    call's x: a transposed weight or the parameters cached in a global on the first call, "to save recomputing
    it". The harness's own stale-result test sees only an output returned again unchanged; here the output is new
    and wrong, and the search, which models one call at a time, finds nothing. The cases call 'batch-again' (the
    first case's shapes, other numbers) right after the first, so such a cache shows there. Calls are read in the
    order they ran; a result must match the kept parameters and not the right ones."""
    done = []
    for run in runs:
        o, args = run.outcome, run.case.args
        if o.status != "ok" or o.array is None or o.array.dtype.kind not in "f":
            continue
        x, weight, bias = args[0], args[1], bias_of(args)
        right = _layer(x, weight, bias)
        scale = MATCH * max(1.0, float(np.abs(right).max(initial=0.0)))
        if not _close(o.array, right, scale):
            for earlier in reversed(done):
                w0, b0 = earlier.case.args[1], bias_of(earlier.case.args)
                if w0.shape != weight.shape:
                    continue
                kept = [("weight", _layer(x, w0, bias))]
                if bias is not None and b0 is not None and b0.shape == bias.shape:
                    kept += [("weight and bias", _layer(x, w0, b0)), ("bias", _layer(x, weight, b0))]
                what = next((name for name, y in kept if _close(o.array, y, scale)), None)
                if what is not None:
                    return Finding("stale-result", f"On {_where(run)} your output is what the {what} of "
                                                   f"{_where(earlier)}, an earlier call of the same shapes, gives "
                                                   "with this call's other arrays: the function kept them from "
                                                   "that call (a copy, or a transposed weight, stored on the first "
                                                   "call) instead of using the arrays it was given.")
        done.append(run)
    return None
