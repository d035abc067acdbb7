"""What the VGG head's model (``variants.py``) may do to the logits after FC3, and how a sentence names it.

Functions of the logits (a ReLU, a softmax, over the classes or over the batch), changes that are no function
applied to them (``CHANGED_FINALS``: doubled, shifted, reordered), and the parameterised ``round:D``, ``floordiv:Q``
(``y // 2``, tried with ``floor`` and ``trunc`` when every probe returned whole numbers), ``clip:LO:HI``,
``shift:C``, ``times:S`` and ``affine:S:C`` fitted from the logits ramp. ``FINALS`` are tried by every search,
``RARE_FINALS`` only when a ramp shows something after FC3.
"""
from __future__ import annotations

import numpy as np


FINALS = ("none", "relu", "softmax", "sigmoid", "tanh", "log-softmax", "softmax-batch", "exp", "abs", "centre-batch",
          "double", "half", "plus-one", "minus-max", "minus-mean", "unit-norm", "class-sum", "classes-reversed")
#: tried only when the logits ramp shows something after FC3 (``probework.py``), so that they cost the search of
#: every other submission nothing: each neighbour is one evaluation of the search's budget, at every step
RARE_FINALS = ("relu+softmax", "softmax-all", "standardised", "minus-min", "abs-max", "negated", "classes-rolled",
               "classes-rolled-back", "class-cumsum", "classes-sorted", "classes-sorted-down", "max-batch",
               "minus-first", "min-max", "abs-max-all", "minus-max-all", "standardised-all", "sum-norm")


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


FINAL_ACTIVATIONS = {
    "none": lambda z: z,
    "relu": lambda z: np.maximum(z, 0.0),
    "softmax": _softmax,
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(-z)),
    "tanh": np.tanh,
    "log-softmax": _log_softmax,
    "exp": np.exp,
    "abs": np.abs,
    # the logits rescaled, shifted, normalised, summed or reordered after FC3 (each keeps the shape (B, K))
    "double": lambda z: 2.0 * z,
    "half": lambda z: z / 2.0,
    "plus-one": lambda z: z + 1.0,
    "minus-max": lambda z: z - z.max(axis=-1, keepdims=True),
    "minus-mean": lambda z: z - z.mean(axis=-1, keepdims=True),
    "unit-norm": lambda z: z / np.linalg.norm(z, axis=-1, keepdims=True),
    "class-sum": lambda z: np.broadcast_to(z.sum(axis=-1, keepdims=True), z.shape),
    "classes-reversed": lambda z: z[..., ::-1],
    "standardised": lambda z: (z - z.mean(axis=-1, keepdims=True)) / z.std(axis=-1, keepdims=True),
    "minus-min": lambda z: z - z.min(axis=-1, keepdims=True),
    "abs-max": lambda z: z / np.abs(z).max(axis=-1, keepdims=True),
    "negated": lambda z: -z,
    "classes-rolled": lambda z: np.roll(z, 1, axis=-1),
    "classes-rolled-back": lambda z: np.roll(z, -1, axis=-1),
    "class-cumsum": lambda z: np.cumsum(z, axis=-1),
    "classes-sorted": lambda z: np.sort(z, axis=-1),
    "classes-sorted-down": lambda z: -np.sort(-z, axis=-1),
    "minus-first": lambda z: z - z[..., :1],
    "min-max": lambda z: (z - z.min(axis=-1, keepdims=True)) / np.ptp(z, axis=-1, keepdims=True),
    "sum-norm": lambda z: z / z.sum(axis=-1, keepdims=True),
}
#: changes to the logits that are no function applied to them: a sentence says "the logits are <name>"
CHANGED_FINALS = ("double", "half", "plus-one", "minus-max", "minus-mean", "unit-norm", "class-sum", "classes-reversed",
                  "standardised", "minus-min", "abs-max", "negated", "classes-rolled", "classes-rolled-back",
                  "class-cumsum", "classes-sorted", "classes-sorted-down", "minus-first", "min-max", "abs-max-all",
                  "minus-max-all", "standardised-all")
FINAL_NAMES = {
    "relu": "a ReLU", "sigmoid": "a sigmoid", "tanh": "tanh", "softmax": "a softmax over the classes",
    "log-softmax": "a log-softmax over the classes", "softmax-batch": "a softmax over the batch axis (axis 0)",
    "exp": "the exponential, np.exp,", "abs": "the absolute value, np.abs,",
    "double": "multiplied by 2 (2 * y)", "half": "divided by 2 (y / 2, a temperature of 2)",
    "plus-one": "increased by 1 (y + 1)",
    "minus-max": "shifted down by each sample's largest logit (y - y.max(axis=1, keepdims=True))",
    "minus-mean": "shifted down by each sample's mean logit (y - y.mean(axis=1, keepdims=True))",
    "unit-norm": "divided by each sample's Euclidean norm (y / np.linalg.norm(y, axis=1, keepdims=True))",
    "class-sum": "replaced by their sum over the classes (y.sum(axis=1), repeated in every column)",
    "classes-reversed": "put in reverse class order (y[:, ::-1])",
    "standardised": "standardised per sample ((y - y.mean(axis=1, keepdims=True)) / y.std(axis=1, keepdims=True))",
    "minus-min": "shifted by each sample's smallest logit (y - y.min(axis=1, keepdims=True)), so none is negative",
    "abs-max": "divided by each sample's largest absolute logit (y / np.abs(y).max(axis=1, keepdims=True))",
    "negated": "negated (-y), every sign flipped",
    "classes-rolled": "moved one class to the right (np.roll(y, 1, axis=1)), the last class's logit first",
    "classes-rolled-back": "moved one class to the left (np.roll(y, -1, axis=1)), the first class's logit last",
    "class-cumsum": "replaced by their running sum over the classes (np.cumsum(y, axis=1))",
    "classes-sorted": "sorted within each sample (np.sort(y, axis=1)), so a logit no longer sits at its class",
    "classes-sorted-down": "sorted within each sample, largest first (-np.sort(-y, axis=1)), so a logit no longer "
                           "sits at its class",
    "softmax-all": "a softmax over the whole batch at once, np.exp(y) / np.sum(np.exp(y)) with no axis (or "
                   "keepdims=True alone),",
    "centre-batch": "the mean over the batch (axis 0) subtracted from each sample's logits, y - y.mean(axis=0),",
    "max-batch": "each class's largest logit over the batch (axis 0) subtracted, y - y.max(axis=0),",
    "minus-first": "shifted by each sample's first logit (y - y[:, :1]), so class 0 always scores 0",
    "min-max": "rescaled to [0, 1] within each sample ((y - y.min(axis=1, keepdims=True)) / (y.max(axis=1, "
               "keepdims=True) - y.min(axis=1, keepdims=True)))",
    "abs-max-all": "divided by the largest absolute logit of the whole batch (y / np.abs(y).max(), no axis), so each "
                   "sample's scores depend on the others'",
    "minus-max-all": "shifted down by the largest logit of the whole batch (y - y.max(), no axis: a softmax's "
                     "stabilising shift left in, taken over every sample at once), so each sample's scores depend on "
                     "the others'",
    "standardised-all": "standardised over the whole batch ((y - y.mean()) / y.std(), no axis), so each sample's "
                        "scores depend on the others'",
    "sum-norm": "a division of each sample's logits by their sum (y / y.sum(axis=1, keepdims=True)), a "
                "normalisation to sum 1 without the softmax's exponential,",
}


def final_name(name: str) -> str:
    if "+" in name:  # one function after another, "relu+round:2"
        first, then = name.split("+", 1)
        return f"{final_name(first)} followed by {final_name(then)}"
    if name in FINAL_NAMES:
        return FINAL_NAMES[name]
    kind, *params = name.split(":")
    if kind == "softmax":
        return f"a softmax over the classes of the logits divided by {params[0]} (a temperature)"
    if kind == "round":
        return f"rounding to {params[0]} decimals (np.round(y, {params[0]}))"
    if kind == "trunc":
        return "truncation toward 0 to whole numbers (as y.astype(int) does)"
    if kind == "floor":
        return "rounding down to whole numbers (np.floor(y), or y // 1)"
    if kind == "floordiv":
        return (f"a floor division by {params[0]} (y // {params[0]}: // divides and rounds down to a whole number, "
                f"where / only divides)")
    if kind == "shift":
        return f"shifted by the constant {params[0]} (y + {params[0]})"
    if kind == "times":
        return f"multiplied by {float(params[0]):.6g} ({float(params[0]):.6g} * y)"
    if kind == "affine":
        slope, offset = float(params[0]), float(params[1])
        return (f"multiplied by {slope:.6g} and shifted by {offset:.6g} ({slope:.6g} * y {'-' if offset < 0 else '+'} "
                f"{abs(offset):.6g})")
    return f"clip(y, {params[0]}, {params[1]})" if kind == "clip" else name


def _final(name: str, z: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """The function after FC3; ``rows`` (P, B, 1) marks the real rows of each stacked case (softmax over B)."""
    if "+" in name:
        first, then = name.split("+", 1)
        return _final(then, _final(first, z, rows), rows)
    if name == "softmax-batch":
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        peak = np.where(valid, z, -np.inf).max(axis=-2, keepdims=True)
        e = np.where(valid, np.exp(z - peak), 0.0)
        return np.where(valid, e / e.sum(axis=-2, keepdims=True), z)
    if name == "softmax-all":  # one sum over every real row and class: the samples share one denominator
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        peak = np.where(valid, z, -np.inf).max(axis=(-2, -1), keepdims=True)
        e = np.where(valid, np.exp(z - peak), 0.0)
        return np.where(valid, e / e.sum(axis=(-2, -1), keepdims=True), z)
    if name == "centre-batch":
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        mean = np.where(valid, z, 0.0).sum(axis=-2, keepdims=True) / valid.sum(axis=-2, keepdims=True)
        return np.where(valid, z - mean, z)
    if name == "abs-max-all":  # one largest absolute logit over every real row and class
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        peak = np.where(valid, np.abs(z), 0.0).max(axis=(-2, -1), keepdims=True)
        return np.where(valid, z / peak, z)
    if name in ("minus-max-all", "standardised-all"):  # one statistic over every real row and class
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        full = np.broadcast_to(valid, z.shape)
        if name == "minus-max-all":
            return np.where(valid, z - np.where(full, z, -np.inf).max(axis=(-2, -1), keepdims=True), z)
        count = full.sum(axis=(-2, -1), keepdims=True)
        mean = np.where(full, z, 0.0).sum(axis=(-2, -1), keepdims=True) / count
        spread = np.sqrt(np.where(full, (z - mean) ** 2, 0.0).sum(axis=(-2, -1), keepdims=True) / count)
        return np.where(valid, (z - mean) / spread, z)
    if name == "max-batch":  # the softmax's stabilising shift on the wrong axis: each class's largest over the batch
        valid = np.ones(z.shape[:-1] + (1,), bool) if rows is None else rows
        return np.where(valid, z - np.where(valid, z, -np.inf).max(axis=-2, keepdims=True), z)
    fn = FINAL_ACTIVATIONS.get(name)
    if fn is not None:
        return fn(z)
    kind, *params = name.split(":")
    if kind == "clip":
        return np.clip(z, float(params[0]), float(params[1]))
    if kind == "softmax":
        return _softmax(z / float(params[0]))
    if kind == "round":  # rounding for display, left in the returned value
        return np.round(z, int(params[0]))
    if kind == "trunc":  # a cast to int, cast back or not
        return np.trunc(z)
    if kind == "floor":  # y // 1
        return np.floor(z)
    if kind == "floordiv":  # // typed for / (a temperature, a mean over a count)
        return np.floor_divide(z, float(params[0]))
    if kind == "shift":  # a stray constant, y + 1e-8 (fitted from the logits ramp)
        return z + float(params[0])
    if kind == "times":  # one factor on every logit, 3 * y (fitted from the logits ramp)
        return z * float(params[0])
    if kind == "affine":  # a factor and a constant, 2 * y + 1 (fitted from the logits ramp)
        return z * float(params[0]) + float(params[1])
    raise KeyError(name)
