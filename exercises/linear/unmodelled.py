"""Mistakes of the linear layer that the switch model (``model.py``) does not hold, tried when its search explains
nothing: each is a whole-result pattern, checked against every call that returned, rather than one more switch.

* ``buffer-reused``: one row buffer filled per sample and appended to a list, so every row of the result is the
  last sample's (``rows.append(row)`` keeps a reference, not a copy);
* ``bias-one-value``: one number added to every output, the bias summed, averaged or its first or last entry;
* ``output-scaled``: the product scaled by 1/sqrt(in) (attention's scaling, or the initialisation's bound) or by
  sqrt(in) before the bias;
* ``rounded-output``: the result cut to whole numbers by an ``int`` cast, which ``np.round`` checks do not see;
* ``outputs-left-unfilled``: a loop over the outputs that stops one short, its last output never written;
* ``bias-scaled``: the bias multiplied by in (or out) before it is added, ``bias * n``;
* ``bias-column-misplaced``: the bias folded into the weight as one more input, the column of ones put at one end
  of x and the bias column at the other end of the weight, so the bias meets a real input;
* ``weight-normalised``: each row of the weight divided by its sum, as if it were an average's weights;
* ``input-normalised``: x scaled to unit length (each vector, or the whole array) before the product;
* ``weight-sign-dropped``: ``np.abs(weight)`` in the product;
* ``samples-left-unfilled``: a loop over the vectors of x that stops one short, the last vector's outputs never
  written (0, or its bias alone);
* ``index-shifted``: an index off by one in a loop over the outputs, bias[j - 1] or weight[j + 1] (wrapping round
  at the end, as numpy's negative indices and a ``% out`` do), so each output gets its neighbour's bias or row.

* ``missing-bias``: the bias added to the first vector of a batch only (``y[0] += bias``), every other vector's
  outputs left without it.
* ``bias-wrong-axis``: the bias stretched to the result's shape with ``np.repeat(bias, N)`` (each entry N times in
  a row) where every sample needs the whole vector.

``weight-normalised`` also holds a weight centred on the mean of the whole matrix.

A pattern is named only when it reproduces every returned call (to the model's tolerance), changes at least one of
them, and no call raised.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from .model import MATCH, bias_of


def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _product(args) -> np.ndarray:
    return np.asarray(args[0]) @ np.asarray(args[1]).T


def _right(args) -> np.ndarray:
    bias = bias_of(args)
    return _product(args) if bias is None else _product(args) + bias


def _close(actual: np.ndarray, predicted: np.ndarray | None, scale: float) -> bool:
    return (predicted is not None and actual.shape == predicted.shape
            and bool(np.all(np.abs(actual.astype(np.float64) - predicted) <= MATCH * scale)))


def _one_bias(args) -> list[tuple[str, np.ndarray]]:
    bias = bias_of(args)
    if bias is None:
        return [("", _product(args))]
    y = _product(args)
    return [(how, y + value) for how, value in (("the sum of the bias, np.sum(bias)", bias.sum()),
                                                ("the mean of the bias", bias.mean()),
                                                ("its first entry, bias[0]", bias[0]),
                                                ("its last entry, bias[-1]", bias[-1]))]


def _scaled(args) -> list[tuple[str, np.ndarray]]:
    n = np.asarray(args[1]).shape[1]
    bias = bias_of(args)
    plus = 0.0 if bias is None else bias
    return [(f"x @ weight.T divided by sqrt(in) = sqrt({n})", _product(args) / np.sqrt(n) + plus),
            (f"x @ weight.T multiplied by sqrt(in) = sqrt({n})", _product(args) * np.sqrt(n) + plus)]


def _buffer(args, expected: np.ndarray) -> list[tuple[str, np.ndarray]]:
    if expected.ndim < 2:
        return [("", expected)]
    rows = expected.reshape(-1, expected.shape[-1])
    return [("", np.broadcast_to(rows[-1], expected.shape))]


def _truncated(args, expected: np.ndarray) -> list[tuple[str, np.ndarray]]:
    return [("", np.trunc(expected)), ("", np.floor(expected))]


def _unfilled(args, expected: np.ndarray) -> list[tuple[str, np.ndarray]]:
    bias = bias_of(args)
    out = []
    for last in (0.0,) + (() if bias is None else (float(bias[-1]),)):
        predicted = expected.copy()
        predicted[..., -1] = last
        out.append(("with the bias" if last else "", predicted))
    return out


def _bias_scaled(args) -> list[tuple[str, np.ndarray | None]]:
    bias = bias_of(args)
    if bias is None:
        return [("", _product(args))]
    out, n = np.asarray(args[1]).shape
    return [(f"bias * in = bias * {n}", _product(args) + bias * n),
            (f"bias * out = bias * {out}", _product(args) + bias * out)]


def _bias_column(args) -> list[tuple[str, np.ndarray | None]]:
    bias = bias_of(args)
    if bias is None:
        return [("", _product(args))]
    x, weight = np.asarray(args[0], dtype=np.float64), np.asarray(args[1], dtype=np.float64)
    first = weight[:, 0] + x[..., :-1] @ weight[:, 1:].T + x[..., -1:] * bias
    last = x[..., :1] * bias + x[..., 1:] @ weight[:, :-1].T + weight[:, -1]
    return [("the ones column first in x and the bias column last in the weight", first),
            ("the ones column last in x and the bias column first in the weight", last)]


def _with_bias(args, y: np.ndarray) -> np.ndarray:
    bias = bias_of(args)
    return y if bias is None else y + bias


def _weight_normalised(args) -> list[tuple[str, np.ndarray | None]]:
    x, weight = np.asarray(args[0], dtype=np.float64), np.asarray(args[1], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = weight / weight.sum(axis=1, keepdims=True)
    out = [("each row of the weight divided by its sum, weight / weight.sum(axis=1, keepdims=True)",
            _with_bias(args, x @ w.T))] if np.all(np.isfinite(w)) else []
    # each row centred, weight - weight.mean(axis=1, keepdims=True), is left out: it computes exactly what each
    # vector of x centred does, so the result cannot say which of the two was done
    return out + [("the weight centred on its mean, weight - weight.mean()",
                   _with_bias(args, x @ (weight - weight.mean()).T))]


def _input_normalised(args) -> list[tuple[str, np.ndarray | None]]:
    x, weight = np.asarray(args[0], dtype=np.float64), np.asarray(args[1], dtype=np.float64)
    out = []
    for how, norm in (("each vector of x divided by its length, np.linalg.norm(x, axis=-1, keepdims=True)",
                       np.linalg.norm(x, axis=-1, keepdims=True)),
                      ("x divided by the length of the whole array, np.linalg.norm(x)", np.linalg.norm(x))):
        if np.all(norm > 0):
            out.append((how, _with_bias(args, (x / norm) @ weight.T)))
    return out


def _sign_dropped(args) -> list[tuple[str, np.ndarray | None]]:
    x, weight = np.asarray(args[0], dtype=np.float64), np.asarray(args[1], dtype=np.float64)
    return [("np.abs(weight) in the product", _with_bias(args, x @ np.abs(weight).T))]


def _last_sample(args, expected: np.ndarray) -> list[tuple[str, np.ndarray | None]]:
    bias = bias_of(args)
    out = []
    for how, last in (("", 0.0),) + (() if bias is None else (("with the bias", bias),)):
        predicted = expected.copy()
        predicted.reshape(-1, expected.shape[-1])[-1] = last
        out.append((how, predicted))
    return out


def _shifted(args) -> list[tuple[str, np.ndarray | None]]:
    y, bias = _product(args), bias_of(args)
    out = [("output j gets row j + 1 of the weight, weight[(j + 1) % out]", _with_bias(args, np.roll(y, -1, axis=-1))),
           ("output j gets row j - 1 of the weight, weight[j - 1]", _with_bias(args, np.roll(y, 1, axis=-1)))]
    if bias is None:  # a shifted bias index changes nothing without a bias
        return out + [("", y)]
    return out + [("output j gets bias[j - 1]", y + np.roll(bias, 1)),
                  ("output j gets bias[(j + 1) % out]", y + np.roll(bias, -1))]


def _bias_repeated(args) -> list[tuple[str, np.ndarray | None]]:
    y, bias = _product(args), bias_of(args)
    if bias is None or y.ndim < 2:
        return [("", _right(args))]
    return [("np.repeat(bias, N).reshape(y.shape)", y + np.repeat(bias, y.size // bias.size).reshape(y.shape))]


def _first_sample_bias(args) -> list[tuple[str, np.ndarray | None]]:
    y, bias = _product(args), bias_of(args)
    if bias is None or y.ndim < 2:
        return [("", _right(args))]
    y[0] += bias
    return [("y[0] += bias", y)]


#: (finding, its predictions, the dtype kinds a result it explains may have): a result cut to whole numbers and
#: returned as integers is wrong-dtype's (an int buffer), not a float result that lost its fractions
PATTERNS: list[tuple[str, Callable, str]] = [
    ("buffer-reused", lambda args, expected: _buffer(args, expected), "biuf"),
    ("bias-one-value", lambda args, expected: _one_bias(args), "biuf"),
    ("output-scaled", lambda args, expected: _scaled(args), "biuf"),
    ("rounded-output", _truncated, "f"),
    ("outputs-left-unfilled", _unfilled, "biuf"),
    ("bias-scaled", lambda args, expected: _bias_scaled(args), "f"),
    ("bias-column-misplaced", lambda args, expected: _bias_column(args), "f"),
    ("weight-normalised", lambda args, expected: _weight_normalised(args), "f"),
    ("input-normalised", lambda args, expected: _input_normalised(args), "f"),
    ("weight-sign-dropped", lambda args, expected: _sign_dropped(args), "f"),
    ("samples-left-unfilled", _last_sample, "biuf"),
    ("index-shifted", lambda args, expected: _shifted(args), "f"),
    ("missing-bias", lambda args, expected: _first_sample_bias(args), "f"),
    ("bias-wrong-axis", lambda args, expected: _bias_repeated(args), "f"),
]


def _matches(runs, predict, kinds: str) -> tuple[object, str] | None:
    """The first call the pattern changes, with how, if the pattern reproduces every call; else None."""
    shown = None
    for run in runs:
        if run.outcome.status != "ok":
            return None
        actual, expected = run.outcome.array, _right(run.case.args)
        if actual is None or actual.dtype.kind not in kinds or actual.shape != expected.shape:
            return None
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        how = next((how for how, p in predict(run.case.args, expected)
                    if _close(actual, p, max(scale, float(np.abs(p).max(initial=0.0))))), None)
        if how is None:
            return None
        if shown is None and not _close(actual, expected, scale):
            shown = (run, how)
    return shown


def _text(finding_id: str, run, how: str) -> str:
    x, weight = run.case.args[0], run.case.args[1]
    if finding_id == "buffer-reused":
        return (f"On {_where(run)} every row of your output holds the right outputs of the last vector of x, "
                f"{x.reshape(-1, x.shape[-1]).shape[0]} times: the rows were written into one buffer and the "
                "list kept that buffer, not a copy of it, so the last write shows in every row.")
    if finding_id == "bias-one-value":
        return (f"On {_where(run)} your output equals x @ weight.T plus one number for every output, {how}, "
                "where output j must get bias[j].")
    if finding_id == "output-scaled":
        return f"On {_where(run)} your output equals {how}, then the bias: the layer has no scaling of its own."
    if finding_id == "rounded-output":
        return (f"On {_where(run)} your output equals the right one cut to whole numbers (an int cast drops "
                "everything after the point, and the cast back to float does not bring it back).")
    if finding_id == "bias-scaled":
        return (f"On {_where(run)} your output equals x @ weight.T + {how}: the bias was multiplied by a size of "
                "the layer before it was added. Each output gets its bias once, bias[j], unscaled.")
    if finding_id == "bias-column-misplaced":
        return (f"On {_where(run)} your output equals the bias folded in as one more input with {how}: the ones "
                "meet the weight's first column and the last input of x meets the bias. The column of ones must "
                "sit at the same end of x as the bias column in the weight.")
    if finding_id in ("weight-normalised", "input-normalised", "weight-sign-dropped"):
        return (f"On {_where(run)} your output equals the layer computed with {how}: the layer uses x and the "
                "weight exactly as they are given.")
    if finding_id == "samples-left-unfilled":
        count = x.reshape(-1, x.shape[-1]).shape[0]
        return (f"On {_where(run)} the outputs of the last vector of x (number {count - 1} of {count} when the leading "
                f"axes are read as rows) hold {'only the bias' if how else '0'} and every other vector's are right: "
                "the loop over the vectors stops one short, range(N - 1) where range(N) belongs.")
    if finding_id == "missing-bias":
        return (f"On {_where(run)} your output equals x @ weight.T with the bias added to the outputs of x[0] only "
                f"(the first sample), {how}: every other sample's outputs lack it. Each vector gets the bias, so add "
                "it to the whole result.")
    if finding_id == "bias-wrong-axis":
        return (f"On {_where(run)} your output equals x @ weight.T plus the bias repeated, {how}: np.repeat puts "
                "each entry N times in a row, so bias[0] fills the first outputs of several samples. Add the bias "
                "as it is, + bias, and numpy gives every sample the whole vector along the last axis.")
    if finding_id == "index-shifted":
        return (f"On {_where(run)} your output equals the layer with an index off by one: {how}. Output j uses row j "
                "of the weight and bias[j], the same j for both.")
    return (f"On {_where(run)} your last output, number {weight.shape[0] - 1}, holds "
            f"{'only its bias' if how else '0'} and every other output is right: the loop over the outputs stops "
            "one short, range(out - 1) where range(out) belongs.")


def unmodelled(runs) -> Finding | None:
    """The first whole-result pattern that explains every call (the runs are those the search read)."""
    ranked = sorted(runs, key=lambda r: (r.case.group != PROBE and not r.case.name.startswith("public-")))
    for finding_id, predict, kinds in PATTERNS:
        shown = _matches(ranked, predict, kinds)
        if shown is not None:
            return Finding(finding_id, _text(finding_id, *shown))
    return None
