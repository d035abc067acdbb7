"""A layer's product written as a broadcast multiply and a reduction over the wrong axis (``wrong-sum-axis``):
``(h[:, :, None] * W).sum(axis=2)`` (over the outputs, which is ``h * W.sum(axis=1)`` and runs only when the layer is
as wide as its input) or ``.sum(axis=0)`` (over the samples, one row per input unit), and the same with ``.mean``.

The search's model of the head has no such layer: on the probes, all 12 wide, the first form runs and gives values
nothing else explains, and on the graded cases it fails on a broadcast, which the error's reading took for b3 added
to FC2's output (``missing-layer``, round seventeen). Here each layer in turn is replaced by each form, and the
model must give every call that returned an array exactly and fail wherever the call raised.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Finding

from .structure import close

LAYER = ("FC1", "FC2", "FC3")


def _over_outputs(h: np.ndarray, W: np.ndarray) -> np.ndarray | None:
    return h * W.sum(axis=1) if h.shape[1] == W.shape[0] == W.shape[1] else None


def _over_samples(h: np.ndarray, W: np.ndarray) -> np.ndarray | None:
    return h.sum(axis=0)[:, None] * W if h.shape[1] == W.shape[0] else None


#: (the code, what it computes, the product by the layer's weights under that reduction)
FORMS = (
    ("sum(axis=2)", "sums over the layer's outputs instead of its inputs, which is h * W.sum(axis=1): each "
                    "input unit times the sum of its row of weights, one value per input", _over_outputs, 1.0),
    ("sum(axis=0)", "sums over the samples of the batch instead of the layer's inputs, giving one row per input unit "
                    "instead of one per sample", _over_samples, 1.0),
    ("mean(axis=2)", "averages over the layer's outputs instead of summing over its inputs", _over_outputs, -1.0),
    ("mean(axis=0)", "averages over the samples of the batch instead of summing over the layer's inputs",
     _over_samples, 0.0),
)


def _model(args, layer: int, product, mean: float) -> np.ndarray | None:
    """The head with layer ``layer``'s product replaced; None where that product cannot be computed (the student's
    code raises there). ``mean``: 1 for a sum, -1 for a mean over the outputs, 0 for a mean over the samples."""
    f, W1, b1, W2, b2, W3, b3 = args
    h = f.reshape(f.shape[0], -1)
    for i, (W, b) in enumerate(((W1, b1), (W2, b2), (W3, b3))):
        if i == layer:
            p = product(h, W)
            if p is None:
                return None
            p = p / (W.shape[1] if mean < 0 else h.shape[0] if mean == 0 else 1)
        else:
            if h.shape[1] != W.shape[0]:
                return None
            p = h @ W
        if p.shape[-1] != b.shape[0]:
            return None
        h = p + b if i == 2 else np.maximum(p + b, 0.0)
    return h


def wrong_axis(runs) -> Finding | None:
    """The layer and the form that give every call's outcome, when one does on two probes and a graded case at least,
    and the reference does not."""
    small = [r for r in runs if r.case.group != "full-scale" and r.outcome.status in ("ok", "raised")]
    if not any(r.outcome.status == "ok" and r.case.group == PROBE for r in small):
        return None
    for layer in range(3):
        for code, what, product, mean in FORMS:
            if _fits(small, layer, product, mean):
                return _finding(small, layer, code, what)
    return None


def _fits(runs, layer: int, product, mean: float) -> bool:
    computed = 0
    for run in runs:
        with np.errstate(all="ignore"):
            model = _model(run.case.args, layer, product, mean)
        arr = run.outcome.array if run.outcome.status == "ok" else None
        if model is None or arr is None:
            if (model is None) != (arr is None):
                return False
            continue
        if arr.shape != model.shape or arr.dtype.kind not in "biuf" or not close(arr.astype(np.float64), model, 1e-9):
            return False
        computed += 1
    right = all(r.outcome.status == "ok" and r.outcome.array.shape == r.expected.shape
                and close(r.outcome.array, r.expected, 1e-9) for r in runs)
    return computed >= 2 and not right


def _finding(runs, layer: int, code: str, what: str) -> Finding:
    i = layer + 1
    h = ("the flattened features", "FC1's activations", "FC2's activations")[layer]
    raised = [r for r in runs if r.outcome.status == "raised" and r.case.group != PROBE]
    ran = next(r for r in runs if r.outcome.status == "ok" and r.case.group == PROBE)
    text = (f"{LAYER[layer]} multiplies {h} by W{i} elementwise and reduces with .{code} where the product sums "
            f"over the inputs: it {what}. Your function returns exactly what that gives on every call that returned "
            f"values (probe '{ran.case.name}', {ran.case.description}, among them)")
    if raised:
        text += (f", and it fails wherever that reduction leaves a shape that cannot continue, as on the "
                 f"'{raised[0].case.name}' case ({raised[0].case.description})")
    return Finding("wrong-sum-axis", text + f". h @ W{i}, or (h[:, :, None] * W{i}).sum(axis=1), sums over the "
                                           f"inputs.")
