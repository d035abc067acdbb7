"""Misconception diagnosis for dense_scores: a fully connected layer evaluated at every k x k window.

As for the linear layer, the diagnosis searches a model of the computation with one switch per kind of mistake:

* ``window``: each window flattened channels-last, (k, k, C) (right), channels-first, (C, k, k), the PyTorch
  habit, or in column-major order (``order="F"``), which also puts the channel slowest;
* ``stride``: windows at every position (right) or side by side, k apart, without overlap;
* ``grid``: (H-k+1, W-k+1) positions (right), one fewer along each axis (a loop over ``range(H - k)``) or along
  one of them, or one more (an output allocated one too large, its last row and column never filled);
* ``axes``: the grid's axes in order (right) or swapped, (W', H', out);
* ``bias``: added (right) or not;
* ``weight``: used as ``window @ weight.T`` (right) or without its transpose;
* ``layout``: scores last, (H', W', out) (right), or first, (out, H', W'), as a PyTorch convolution returns them.

Each combination is run in the grader on the same inputs and compared with every call: where the student's
function returned an array the model must give the same shape and values (to 1e-6 of the largest value), where it
raised the model must raise. The simplest combination that explains every call gives the findings. A grid one
too large that makes every call fail (a loop one window past the edge) is read from the errors instead: the
cut-off window's size, or an index one past the map's edge, is in each message. One probe with out == k*k*C lets
an untransposed weight run.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from grader.authoring import PROBE, Case, Finding

MATCH = 1e-6
MAX_DEPARTURES = 3


@dataclass(frozen=True)
class Spec:
    window: str = "ok"  # ok | channels-first | column-major
    stride: str = "ok"  # ok | k
    grid: str = "ok"  # ok | smaller | larger | fewer-rows | fewer-columns
    axes: str = "ok"  # ok | swapped
    bias: str = "ok"  # ok | missing
    weight: str = "ok"  # ok | untransposed
    layout: str = "ok"  # ok | scores-first

    def departures(self) -> list[str]:
        return [name for name in FLAGS if getattr(self, name) != "ok"]


OPTIONS = {
    "window": ("ok", "channels-first", "column-major"),
    "stride": ("ok", "k"),
    "grid": ("ok", "smaller", "larger", "fewer-rows", "fewer-columns"),
    "axes": ("ok", "swapped"),
    "bias": ("ok", "missing"),
    "weight": ("ok", "untransposed"),
    "layout": ("ok", "scores-first"),
}
FLAGS = tuple(OPTIONS)
FINDING = {"window": "window-channels-first", "stride": "non-overlapping-windows", "grid": "grid-off-by-one",
           "axes": "grid-axes-swapped", "bias": "missing-bias", "weight": "weight-not-transposed",
           "layout": "scores-first"}
REFERENCE = Spec()


def _specs() -> list[Spec]:
    specs = [Spec(*values) for values in itertools.product(*OPTIONS.values())]
    specs = [s for s in specs if len(s.departures()) <= MAX_DEPARTURES]
    return sorted(specs, key=lambda s: len(s.departures()))


SPECS = _specs()


def windows(fmap: np.ndarray, k: int, order: str = "ok", step: int = 1) -> np.ndarray:
    """(H', W', k*k*C): every k x k window (``step`` apart), flattened in the given order."""
    view = sliding_window_view(fmap, (k, k), axis=(0, 1))[::step, ::step]  # (H', W', C, k, k)
    axes = {"ok": (0, 1, 3, 4, 2), "channels-first": (0, 1, 2, 3, 4), "column-major": (0, 1, 2, 4, 3)}[order]
    view = view.transpose(axes)
    return view.reshape(view.shape[0], view.shape[1], -1)


def _base(args, spec: Spec, einsum: bool) -> np.ndarray:
    fmap, weight, bias, k = args
    k = int(k)
    flat = windows(fmap, k, spec.window, k if spec.stride == "k" else 1)
    if spec.weight == "untransposed":
        y = np.einsum("hwp,po->hwo", flat, weight) if einsum else flat @ weight
    else:
        y = flat @ weight.T
    return y if spec.bias == "missing" else y + bias


def model(args, spec: Spec, einsum: bool = False) -> np.ndarray:
    y = _base(args, spec, einsum)
    if spec.grid == "smaller":
        y = y[:-1, :-1]
    elif spec.grid == "fewer-rows":
        y = y[:-1]
    elif spec.grid == "fewer-columns":
        y = y[:, :-1]
    elif spec.grid == "larger":
        y = np.pad(y, ((0, 1), (0, 1), (0, 0)))
    if spec.axes == "swapped":
        y = y.transpose(1, 0, 2)
    if spec.layout == "scores-first":
        y = np.moveaxis(y, -1, 0)
    return y


def _run_model(args, spec: Spec) -> list:
    """The model's possible results (None where it raises); an untransposed weight has @'s and einsum's."""
    found = []
    for einsum in ((False, True) if spec.weight == "untransposed" else (False,)):
        try:
            with np.errstate(all="ignore"):
                found.append(model(args, spec, einsum))
        except (ValueError, IndexError, TypeError):
            found.append(None)
    return found


def _first(args, spec: Spec):
    return _run_model(args, spec)[0]


def _same(actual: np.ndarray, predicted: np.ndarray | None) -> bool:
    if predicted is None or actual.shape != predicted.shape:
        return False
    if not predicted.size:
        return True
    with np.errstate(all="ignore"):
        actual = actual.astype(np.float64)
        scale = float(np.max(np.abs(predicted)))
        return bool(np.all(np.abs(actual - predicted) <= MATCH * max(scale, 1e-300)))


# -- probes ------------------------------------------------------------------------------------------------------
def probe_cases() -> list[Case]:
    """One probe whose weight is square, out == k*k*C == 8, on a 5 x 4 map (a 4 x 3 grid): an untransposed weight
    runs there, and every other mistake changes the result's shape or values. Small dyadic numbers."""
    fmap = ((np.arange(40, dtype=np.float64) * 7) % 11 - 5).reshape(5, 4, 2) / 4
    weight = ((np.arange(64, dtype=np.float64) * 5) % 9 - 4).reshape(8, 8) / 8
    bias = np.array([0.5, -0.25, 1.0, -1.5, 0.75, -0.5, 0.25, -1.0])
    return [Case("probe-square-weight", PROBE, (fmap, weight, bias, 2),
                 "fmap (5, 4, 2), k=2, weight (8, 8), bias (8,): as many scores as values per window")]


PROBE_NAMES = frozenset(c.name for c in probe_cases())


# -- the search ------------------------------------------------------------------------------------------------
def _usable(runs) -> list:
    out = []
    for run in runs:
        o = run.outcome
        if o.status == "raised" or (o.status == "ok" and o.array is not None and o.array.dtype.kind in "biuf"):
            out.append(run)
    return out


def _explains(spec: Spec, runs, cache: dict) -> bool:
    for index, run in enumerate(runs):
        key = (index, spec)
        if key not in cache:
            cache[key] = _run_model(run.case.args, spec)
        predicted = cache[key]
        if run.outcome.status == "raised":
            if all(p is not None for p in predicted):
                return False
        elif not any(_same(run.outcome.array, p) for p in predicted):
            return False
    return True


def search(runs) -> Spec | None:
    usable = _usable(runs)
    if not any(r.outcome.status == "ok" for r in usable):
        return None
    cache: dict = {}
    for spec in SPECS:
        if _explains(spec, usable, cache):
            return spec
    return None


# -- a grid one too large, read from the errors ----------------------------------------------------------------------
def _edge_error(run) -> bool:
    """The error of a loop that reached one window past the edge: the cut-off window's size (k-1 rows or columns
    of it), or an index equal to H or W, is in the message."""
    error = run.outcome.exception
    if error is None:
        return False
    fmap, _, _, k = run.case.args
    H, W, C = fmap.shape
    k = int(k)
    message = error.message
    numbers = {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", message)}
    cut = {(k - 1) * k * C, (k - 1) * (k - 1) * C}
    shapes = {f"({k - 1},{k},{C})", f"({k},{k - 1},{C})", f"({k - 1},{k - 1},{C})", f"({k - 1}, {k}, {C})",
              f"({k}, {k - 1}, {C})", f"({k - 1}, {k - 1}, {C})"}
    if error.type == "IndexError":
        found = re.search(r"index (\d+) is out of bounds for axis (\d) with size (\d+)", message)
        return bool(found) and found.group(1) == found.group(3) and int(found.group(3)) in (H, W)
    if any(s in message.replace(" ", "") or s in message for s in shapes):
        return True
    return "reshape" in message and bool(cut & numbers) or ("mismatch" in message and bool(cut & numbers))


def _grid_too_large(runs) -> Finding | None:
    called = [r for r in runs if r.outcome.status in ("ok", "raised")]
    if len(called) < 2 or not all(r.outcome.status == "raised" and _edge_error(r) for r in called):
        return None
    run = _ranked(called)[0]
    fmap, _, _, k = run.case.args
    H, W, _ = fmap.shape
    return Finding("grid-off-by-one", f"Every call failed where a window runs past the edge of the map: on "
                                      f"{_where(run)} your function raised {_error(run)}. A {H} x {W} map has "
                                      f"{H - k + 1} x {W - k + 1} positions for a {k} x {k} window, the last one "
                                      f"starting at row {H - k} and column {W - k}.")


# -- evidence ----------------------------------------------------------------------------------------------------
def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _error(run) -> str:
    error = run.outcome.exception
    if error is None:
        return run.outcome.error
    text = f"{error.type}: {error.message.strip()}" if error.message.strip() else error.type
    return f"{text} ({error.where})" if error.where else text


def _ranked(runs) -> list:
    return sorted(runs, key=lambda r: (r.case.group != PROBE and not r.case.name.startswith("public-")))


def _differs(args, spec: Spec, other: Spec) -> bool:
    a, b = _first(args, spec), _first(args, other)
    if a is None or b is None:
        return (a is None) != (b is None)
    return a.shape != b.shape or not _same(a, b)


def _witness(runs, spec: Spec, flag: str, want: str | None = None):
    base = replace(spec, **{flag: "ok"})
    for run in _ranked(runs):
        if want is not None and (run.outcome.status == "raised") != (want == "raised"):
            continue
        if _differs(run.case.args, spec, base):
            return run
    return None


def _grid(run) -> tuple[int, int]:
    fmap, _, _, k = run.case.args
    return fmap.shape[0] - int(k) + 1, fmap.shape[1] - int(k) + 1


def _got(run) -> str:
    return f"your output has shape {tuple(run.outcome.array.shape)} where {tuple(run.expected.shape)} is expected"


def _evidence(runs, spec: Spec, flag: str) -> str:
    ran = _witness(runs, spec, flag, "ok")
    failed = _witness(runs, spec, flag, "raised")
    parts = []
    if ran is not None:
        fmap, _, _, k = ran.case.args
        H, W, C = fmap.shape
        k = int(k)
        h, w = _grid(ran)
        if flag == "window":
            order = "as (C, k, k)" if spec.window == "channels-first" else "in column-major order"
            parts.append(f"On {_where(ran)} your scores are those of the layer applied to each window flattened "
                         f"{order}, the channel slowest, instead of channels-last, as (k, k, C)")
        elif flag == "stride":
            parts.append(f"On {_where(ran)} {_got(ran)}: the scores are those of {k} x {k} windows placed side by "
                         f"side, {k} apart ({(H - k) // k + 1} x {(W - k) // k + 1} of them), instead of one at "
                         f"every position ({h} x {w})")
        elif flag == "grid":
            if spec.grid == "smaller":
                parts.append(f"On {_where(ran)} {_got(ran)}: the grid stops one position short along each axis, "
                             f"its last row and column of windows (starting at row {H - k} and column {W - k}) "
                             "missing")
            elif spec.grid == "larger":
                parts.append(f"On {_where(ran)} {_got(ran)}: the grid has one position too many along each axis, "
                             "and its last row and column hold no scores")
            else:
                axis, last = (("rows", f"row {H - k}") if spec.grid == "fewer-rows"
                              else ("columns", f"column {W - k}"))
                parts.append(f"On {_where(ran)} {_got(ran)}: the grid has one position too few along its {axis}, "
                             f"the windows starting at {last} missing")
        elif flag == "axes":
            parts.append(f"On {_where(ran)} {_got(ran)}: the score of the window at row i and column j is at "
                         "[j, i], the grid's two axes swapped")
        elif flag == "bias":
            parts.append(f"On {_where(ran)} your scores are the layer's without its bias: changing the bias would "
                         "not change them")
        elif flag == "weight":
            parts.append(f"On {_where(ran)}, where the weight is square so every shape fits, your scores equal "
                         "window @ weight instead of window @ weight.T")
        elif flag == "layout":
            parts.append(f"On {_where(ran)} {_got(ran)}: the scores are in front of the grid's axes, (out, H', W') "
                         "as a PyTorch convolution returns them, instead of last")
    if failed is not None:
        text = f"on {_where(failed)} your function raised {_error(failed)}"
        if flag == "weight":
            out, p = failed.case.args[1].shape
            text += f": the weight is stored (out, k*k*C) = ({out}, {p}), so window @ weight only fits when they are equal"
        parts.append(text)
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def diagnose(runs, exercise) -> list[Finding]:
    usable = _usable(runs)
    spec = search(usable)
    if spec is None:
        found = _grid_too_large(usable)
        return [found] if found else []
    if spec == REFERENCE:
        return []
    return [Finding(FINDING[flag], _evidence(usable, spec, flag)) for flag in spec.departures()]
