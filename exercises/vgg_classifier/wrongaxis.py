"""A layer's product written as a broadcast multiply and a reduction over the wrong axis (``wrong-sum-axis``):
``(h[:, :, None] * W).sum(axis=2)`` (over the outputs, which is ``h * W.sum(axis=1)`` and runs only when the layer is
as wide as its input) or ``.sum(axis=0)`` (over the samples, one row per input unit), and the same with ``.mean``.

The search's model of the head has no such layer: on the probes, all 12 wide, the first form runs and gives values
nothing else explains, and on the graded cases it fails on a broadcast, which the error's reading took for b3 added
to FC2's output (``missing-layer``, round seventeen). Here each layer in turn is replaced by each form, and the
model must give every call that returned an array exactly and fail wherever the call raised. ``fitted_layer`` is
shared with ``biasforms.py``, which replaces a layer's bias the same way.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from .structure import close

LAYER = ("FC1", "FC2", "FC3")


Layer = Callable[[np.ndarray, np.ndarray, np.ndarray], "np.ndarray | None"]


def _reduced(over_outputs: bool, mean: bool) -> Layer:
    """h W + b with the product reduced over the outputs (h * W.sum(axis=1)) or the samples (one row per input)."""
    def layer(h, W, b):
        if over_outputs:
            if not h.shape[1] == W.shape[0] == W.shape[1]:
                return None
            p = h * W.sum(axis=1) / (W.shape[1] if mean else 1)
        else:
            if h.shape[1] != W.shape[0]:
                return None
            p = h.sum(axis=0)[:, None] * W / (h.shape[0] if mean else 1)
        return p + b if p.shape[-1] == b.shape[0] else None
    return layer


def _batch_summed(h: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """h W summed over the samples too (np.einsum('bi,ij->j')): one row, (out,), plus the bias."""
    if h.shape[1] != W.shape[0] or W.shape[1] != b.shape[0]:
        return None
    return (h @ W).sum(axis=0) + b


#: (the code, what it computes, the layer under that reduction)
FORMS = (
    ("sum(axis=2) (or np.einsum('bi,ij->bi', h, W))",
     "sums over the layer's outputs instead of its inputs, which is h * W.sum(axis=1): each input unit times the sum "
     "of its row of weights, one value per input", _reduced(True, False)),
    ("sum(axis=0) (or np.einsum('bi,ij->ij', h, W))",
     "sums over the samples of the batch instead of the layer's inputs, giving one row per input unit instead of one "
     "per sample", _reduced(False, False)),
    ("mean(axis=2)", "averages over the layer's outputs instead of summing over its inputs", _reduced(True, True)),
    ("mean(axis=0)", "averages over the samples of the batch instead of summing over the layer's inputs",
     _reduced(False, True)),
    ("sum(axis=(0, 1)) (or np.einsum('bi,ij->j', h, W))",
     "sums over the samples of the batch as well as over the layer's inputs, giving one row for the whole batch "
     "(the sum of every sample's row) where each sample needs its own", _batch_summed),
)


def _model(args, index: int, layer: Layer) -> np.ndarray | None:
    """The head with layer ``index``'s affine map replaced by ``layer``; None where it cannot be computed (the
    student's code raises there)."""
    f, W1, b1, W2, b2, W3, b3 = args
    h = f.reshape(f.shape[0], -1)
    for i, (W, b) in enumerate(((W1, b1), (W2, b2), (W3, b3))):
        if i == index:
            z = layer(h, W, b)
        else:
            z = h @ W + b if h.ndim == 2 and h.shape[1] == W.shape[0] else None  # a row for the batch: not read
        if z is None:
            return None
        h = z if i == 2 else np.maximum(z, 0.0)
    return h


def fitted_layer(runs, forms) -> tuple[list, int, tuple] | None:
    """The calls, the layer (0 to 2) and the entry of ``forms`` (each ending with its ``Layer``) that give every
    call's outcome, values and failures alike, when one does on two calls at least and the reference does not."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status in ("ok", "raised")]
    if not any(r.outcome.status == "ok" and r.case.group == PROBE for r in small):
        return None
    for index in range(3):
        for form in forms:
            if _fits(small, index, form[-1]):
                return small, index, form
    return None


def wrong_axis(runs) -> Finding | None:
    """``wrong-sum-axis`` naming the layer and the reduction that give every call's outcome, or None."""
    found = fitted_layer(runs, FORMS)
    return None if found is None else _finding(found[0], found[1], *found[2][:2])


def _fits(runs, index: int, layer: Layer) -> bool:
    computed = 0
    for run in runs:
        with np.errstate(all="ignore"):
            model = _model(run.case.args, index, layer)
        arr = run.outcome.array if run.outcome.status == "ok" else None
        if model is None or arr is None:
            if (model is None) != (arr is None):
                return False
            continue
        if arr.shape != model.shape or arr.dtype.kind not in "biuf" or not close(arr.astype(np.float64), model, 1e-9):
            return False
        computed += 1
    if computed < 2:  # too few calls computed anything (a form whose row for the batch no later layer reads)
        return False
    right = all(r.outcome.status == "ok" and r.outcome.array.shape == r.expected.shape
                and close(r.outcome.array, r.expected, 1e-9) for r in runs)
    return not right


def _failed_case(runs) -> str:
    """", as on the 'X' case (...)" for the first graded case that raised, or ""."""
    raised = [r for r in runs if r.outcome.status == "raised" and r.case.group != PROBE]
    return f", as on the '{raised[0].case.name}' case ({raised[0].case.description})" if raised else ""


def _finding(runs, layer: int, code: str, what: str) -> Finding:
    i = layer + 1
    h = ("the flattened features", "FC1's activations", "FC2's activations")[layer]
    ran = next(r for r in runs if r.outcome.status == "ok" and r.case.group == PROBE)
    text = (f"{LAYER[layer]} multiplies {h} by W{i} elementwise and reduces with .{code}, where the product sums "
            f"over the inputs: it {what}. Your function returns exactly what that gives on every call that returned "
            f"values (probe '{ran.case.name}', {ran.case.description}, among them)")
    if _failed_case(runs):
        text += f", and it fails wherever that reduction leaves a shape that cannot continue{_failed_case(runs)}"
    return Finding("wrong-sum-axis", text + f". h @ W{i}, or (h[:, :, None] * W{i}).sum(axis=1), sums over the "
                                           f"inputs.")
