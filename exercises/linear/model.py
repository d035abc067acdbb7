"""The model of the linear layer that the diagnosis searches (see ``diagnosis.py``): one switch per kind of
mistake, each combination a function of the same arguments as the student's, that returns what a submission
making those mistakes returns, or raises where it would raise."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


MATCH = 1e-6  # relative to the largest expected magnitude: float32 and float64 formulations match, mistakes do not
MAX_DEPARTURES = 3


@dataclass(frozen=True)
class Spec:
    weight: str = "ok"  # ok | untransposed | square-untransposed | reshaped | elementwise | column-form | ...
    reduce: str = "ok"  # ok | mean | skips-last | skips-first
    bias: str = "ok"  # ok | missing | first-axis | row-axis | first-axis-nd | twice | input | truth-test | ...
    shape: str = "ok"  # ok | merged | vector-as-row | needs-2d | no-vector | no-3d | row-no-3d | first-kept | ...
    none: str = "ok"  # ok | refused | none-refused | omitted-refused | in-zeros
    activation: str = "ok"  # ok | relu | sigmoid | tanh | softmax

    def departures(self) -> list[str]:
        return [name for name in OPTIONS if getattr(self, name) != "ok"]


OPTIONS = {
    "weight": ("ok", "untransposed", "square-untransposed", "reshaped", "elementwise", "column-form",
               "vector-untransposed", "columns", "outputs-summed", "outputs-first", "nobias-untransposed",
               "transposed-result"),
    "reduce": ("ok", "mean", "skips-last", "skips-first"),
    "bias": ("ok", "missing", "first-axis", "row-axis", "first-axis-nd", "twice", "input", "truth-test",
             "missing-vector", "as-row", "multiplied", "subtracted", "row-axis-batch", "in-weight"),
    "shape": ("ok", "merged", "vector-as-row", "needs-2d", "no-vector", "no-3d", "row-no-3d", "first-kept",
              "like-x", "flattened", "batch-mean", "batch-sum", "first-sample"),
    "none": ("ok", "refused", "none-refused", "omitted-refused", "in-zeros"),
    "activation": ("ok", "relu", "sigmoid", "tanh", "softmax"),
}
#: the shape options that treat x as one vector (its samples flattened, averaged, summed or the first one kept)
ONE_VECTOR = ("flattened", "batch-mean", "batch-sum", "first-sample")
#: the catalog id of each departure, by option (where one flag holds several mistakes) or else by flag
FINDING = {"weight": "weight-not-transposed", "reshaped": "weight-reshaped-not-transposed",
           "elementwise": "elementwise-product", "outputs-summed": "elementwise-product",
           "outputs-first": "outputs-first", "column-form": "column-vector-formula",
           "columns": "column-vector-formula", "vector-untransposed": "weight-not-transposed",
           "nobias-untransposed": "weight-not-transposed", "transposed-result": "outputs-first",
           "flattened": "only-vector-input", "batch-mean": "only-vector-input", "batch-sum": "only-vector-input",
           "first-sample": "only-vector-input",
           "missing-vector": "missing-bias", "as-row": "only-2d-input", "multiplied": "bias-wrong-operation",
           "subtracted": "bias-wrong-operation", "in-weight": "bias-wrong-operation", "mean": "mean-not-sum",
           "skips-last": "sum-skips-an-input",
           "skips-first": "sum-skips-an-input", "none": "bias-none-refused", "shape": "only-2d-input",
           "like-x": "output-shaped-like-input", "missing": "missing-bias", "first-axis": "bias-wrong-axis",
           "row-axis": "bias-wrong-axis", "row-axis-batch": "bias-wrong-axis", "first-axis-nd": "bias-wrong-axis",
           "twice": "bias-added-twice",
           "input": "bias-added-to-input", "truth-test": "bias-truth-value", "activation": "activation-applied"}
REFERENCE = Spec()
#: the weight's departures that a diagnosis states as code: (what the student's product is, what it did)
WEIGHT_FORMS = {
    "outputs-summed": ("(x[..., None, :] * weight).sum(axis=-2)", "every product x[i] * weight[j, i] was formed, "
                       "then summed over the outputs j (axis -2) instead of over the inputs i (axis -1), leaving one "
                       "value per input"),
    "outputs-first": ("np.moveaxis(x @ weight.T, -1, 0)", "the outputs were computed one row of the weight at a time "
                      "and stacked along a new first axis (np.stack or np.array of a list of them), where they belong "
                      "last, after every leading axis of x"),
    "transposed-result": ("(x @ weight.T + bias).T", "the finished result was transposed, and .T reverses every axis: "
                          "the outputs come first and the leading axes of x follow in reverse order, where the "
                          "outputs belong last, after x's leading axes in their order"),
}


def finding_id(spec: Spec, flag: str) -> str:
    option = getattr(spec, flag)
    return FINDING[option] if option in FINDING else FINDING[flag]


def _specs() -> list[Spec]:
    specs = [Spec(*values) for values in itertools.product(*OPTIONS.values())]
    specs = [s for s in specs if len(s.departures()) <= MAX_DEPARTURES]
    return sorted(specs, key=lambda s: len(s.departures()))  # stable: option order breaks ties


SPECS = _specs()


class Raised(Exception):
    """The model of a mistake that makes the call fail."""


def bias_of(args):
    return args[2] if len(args) > 2 else None


def _refused(args, spec: Spec) -> bool:
    """Does a function with this way of handling a missing bias fail on ``args``?"""
    if bias_of(args) is not None or spec.none == "ok":
        return False
    if spec.none == "in-zeros":  # np.zeros(weight.shape[1]) stands in for the bias: in_features zeros
        return args[1].shape[0] != args[1].shape[1]
    omitted = len(args) < 3
    return spec.none == "refused" or (spec.none == "none-refused") != omitted


def _product(x, weight, spec: Spec, einsum: bool | str, nobias: bool = False) -> np.ndarray:
    """The product over the inputs, with the departures of ``spec.weight`` and ``spec.reduce`` (``nobias``: the call
    has no bias, where the code path without one may lack the transpose)."""
    n = weight.shape[1]
    if spec.reduce == "skips-last":
        x, weight = x[..., :-1], weight[:, :-1]
    elif spec.reduce == "skips-first":
        x, weight = x[..., 1:], weight[:, 1:]
    if spec.weight == "untransposed" and einsum:
        y = np.einsum("...i,ij->...j", x, weight)  # einsum broadcasts a size-1 axis where @ refuses it
    elif spec.weight == "column-form":
        # y = W x: right for one vector only; tensordot pairs the weight's inputs with x's first axis
        y = np.tensordot(weight, x, axes=([1], [0])) if einsum == "tensordot" else np.dot(weight, x) if einsum \
            else weight @ x
    elif spec.weight == "columns" and x.ndim >= 2:
        y = weight @ x.T  # the samples made columns, as for W x, and the result never turned back
    elif spec.weight == "untransposed" or (spec.weight == "square-untransposed" and n == weight.shape[0]) or (
            spec.weight == "vector-untransposed" and x.ndim == 1) or (
            spec.weight == "nobias-untransposed" and nobias):
        y = x @ weight
    elif spec.weight == "reshaped":
        y = x @ weight.reshape(weight.shape[1], weight.shape[0])
    elif spec.weight == "elementwise":
        y = (x * weight).sum(axis=-1)  # x (..., in) against weight (out, in): numpy lines x's last axes up
    elif spec.weight == "outputs-first":
        y = np.moveaxis(x @ weight.T, -1, 0)  # one output at a time, stacked first: (out, *leading)
    elif spec.weight == "outputs-summed":
        y = (x[..., None, :] * weight).sum(axis=-2)  # every product formed, then summed over the outputs: (..., in)
    else:
        y = x @ weight.T
    return y / n if spec.reduce == "mean" else y


def _softmax(y: np.ndarray) -> np.ndarray:
    e = np.exp(y - y.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ACTIVATIONS = {"ok": lambda y: y, "relu": lambda y: np.maximum(y, 0.0), "sigmoid": lambda y: 1.0 / (1.0 + np.exp(-y)),
               "tanh": np.tanh, "softmax": _softmax}


def model(args, spec: Spec, einsum: bool | str = False, strict: bool = False) -> np.ndarray:
    """What a function with the departures of ``spec`` returns on ``args`` (raises where it would raise).
    ``strict``: the samples averaged or summed into a vector that ``weight @`` it then refuses when x had more
    than one leading axis (the code was written for a batch of rows, the product as W x)."""
    x, weight, bias = args[0], args[1], bias_of(args)
    given = x
    if _refused(args, spec):
        raise Raised("bias refused")
    if bias is not None and spec.bias == "truth-test" and bias.size != 1:
        raise Raised("the truth value of an array of several values is ambiguous")
    if spec.shape in ("merged", "first-kept"):
        x = x.reshape(-1, x.shape[-1])
    elif spec.shape in ("vector-as-row", "row-no-3d") and x.ndim == 1:
        x = x[None, :]
    elif spec.shape in ONE_VECTOR and x.ndim > 1:
        if strict and x.ndim > 2:
            raise Raised("a matrix where the product wants a vector")
        x = {"flattened": lambda a: a.ravel(), "batch-mean": lambda a: a.mean(axis=0),
             "batch-sum": lambda a: a.sum(axis=0), "first-sample": lambda a: a[0]}[spec.shape](x)
    elif (spec.shape == "needs-2d" and x.ndim != 2) or (spec.shape == "no-vector" and x.ndim == 1) or (
            spec.shape == "no-3d" and x.ndim > 2) or (spec.shape == "row-no-3d" and x.ndim > 2):
        raise Raised("rank refused")
    if bias is not None and spec.bias == "input":
        x = x + bias
    y = _product(x, weight, spec, einsum, bias is None)
    if bias is not None and spec.bias not in ("missing", "input") and not (
            spec.bias == "missing-vector" and given.ndim == 1):
        if spec.bias == "first-axis" or (spec.bias == "first-axis-nd" and y.ndim > 2):
            y = y + bias.reshape((-1,) + (1,) * (y.ndim - 1))
        elif spec.bias == "row-axis" or (spec.bias == "row-axis-batch" and given.ndim > 1):
            y = y + bias[:, None]  # row-axis-batch: (weight @ x^T + bias)^T, the bias added before the final swap
        elif spec.bias == "twice":
            y = y + bias + bias
        elif spec.bias == "as-row":
            y = y + bias.reshape(1, -1)
        elif spec.bias == "multiplied":
            y = y * bias
        elif spec.bias == "subtracted":
            y = y - bias
        elif spec.bias == "in-weight":
            y = y + x.sum(axis=-1, keepdims=True) * bias  # x @ (weight.T + bias): b_j times the sum of the inputs
        elif spec.weight == "columns" and x.ndim >= 2:
            y = y + bias[:, None]  # the bias as a column, right for the (out, N) result it was written for
        else:
            y = y + bias
    if spec.shape == "first-kept":
        y = y.reshape(given.shape[0], -1)
    elif spec.shape == "like-x":
        if y.shape[-1] > given.shape[-1]:
            raise Raised("index out of bounds")
        out = np.full(given.shape, np.nan)  # NaN: entries the loop never writes, whatever they hold
        out[..., :y.shape[-1]] = y
        y = out
    if spec.weight == "transposed-result":
        y = y.T
    return ACTIVATIONS[spec.activation](y)


def _run_model(args, spec: Spec):
    """The model's possible results on ``args``: arrays, or None where it raises. An untransposed weight has two,
    the product's and einsum's, which differ only when a size-1 axis meets a larger one; the column form has
    ``weight @ x``, ``np.dot(weight, x)`` and ``np.tensordot(weight, x, axes=([1], [0]))``, which pair different
    axes of a 3-D x; the samples averaged or summed into one vector have ``vector @ weight.T`` and
    ``weight @ vector``, which refuses what x's extra axes leave."""
    found = []
    einsums = {"untransposed": (False, True), "column-form": (False, True, "tensordot")}.get(spec.weight, (False,))
    stricts = (False, True) if spec.shape in ("batch-mean", "batch-sum") else (False,)
    for einsum, strict in itertools.product(einsums, stricts):
        try:
            with np.errstate(all="ignore"):
                found.append(model(args, spec, einsum, strict))
        except (Raised, ValueError, IndexError, TypeError, ZeroDivisionError):
            found.append(None)  # None: the model raises
    return found


def _first(args, spec: Spec):
    return _run_model(args, spec)[0]


def _same(actual: np.ndarray, predicted: np.ndarray | None) -> bool:
    """Does ``actual`` match the prediction? A NaN in the prediction marks an entry the modelled code never
    writes (an output allocated with np.empty_like(x) holds whatever was in memory there), so any value matches
    it; a prediction with nothing written matches nothing."""
    if predicted is None or actual.shape != predicted.shape:
        return False
    free = np.isnan(predicted)
    if predicted.size and free.all():
        return False
    with np.errstate(all="ignore"):
        actual = actual.astype(np.float64)
        scale = float(np.nanmax(np.abs(predicted))) if predicted.size else 0.0
        return bool(np.all((np.abs(actual - predicted) <= MATCH * max(scale, 1e-300)) | free))


def _seen(spec: Spec, args) -> tuple:
    """``spec`` with the switches that cannot change the result on ``args`` set right (read off ``model``): how a
    missing bias is handled when one is given, how a bias is added when none is, an untransposed weight used only
    when square (or only for a vector) where it is not, and the shape handling that leaves x's rank alone."""
    bias, x, weight = bias_of(args), args[0], args[1]
    weight_flag, shape = spec.weight, spec.shape
    if (weight_flag == "square-untransposed" and weight.shape[0] != weight.shape[1]) or (
            weight_flag == "vector-untransposed" and x.ndim != 1) or (
            weight_flag == "nobias-untransposed" and bias is not None) or (
            weight_flag == "transposed-result" and x.ndim == 1):
        weight_flag = "ok"
    if shape in _NO_OP_SHAPES.get(min(x.ndim, 3), ()):
        shape = "ok"
    return (weight_flag, spec.reduce, "ok" if bias is None else spec.bias, shape,
            "ok" if bias is not None else spec.none, spec.activation)


#: by x's rank (3: three or more), the shape switches under which ``model`` runs exactly as the right code does
_NO_OP_SHAPES = {1: ("no-3d", *ONE_VECTOR),
                 2: ("merged", "vector-as-row", "needs-2d", "no-vector", "no-3d", "row-no-3d"),
                 3: ("vector-as-row", "no-vector")}


def arguments_swapped(runs) -> bool:
    """Is every call what ``def linear(weight, x, bias=None)`` returns, the right code with its first two parameters
    in the other order? On a 2-D x that is weight @ x.T, the outputs first, so outputs-first is not named when
    this explains the calls as well (the grader's parameters-reordered check names it where it sees the probes)."""
    for run in runs:
        args = run.case.args
        try:
            with np.errstate(all="ignore"):
                y = args[1] @ np.asarray(args[0]).T
                predicted = y if bias_of(args) is None else y + bias_of(args)
        except (ValueError, TypeError):
            predicted = None
        if run.outcome.status == "raised" and predicted is not None:
            return False
        if run.outcome.status == "ok" and (run.outcome.array is None or not _same(run.outcome.array, predicted)):
            return False
    return True
