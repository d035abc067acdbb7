"""Misconception diagnosis for dense_scores: a fully connected layer evaluated at every k x k window.

As for the linear layer, the diagnosis searches a model of the computation (``model.py``) with one switch per kind
of mistake:

* ``window``: each window flattened channels-last, (k, k, C) (right), channels-first, (C, k, k), the PyTorch
  habit, in column-major order (``order="F"``), which also puts the channel slowest, with its rows and columns
  swapped, (k_col, k_row, C), the channel still fastest, flipped top to bottom and left to right (the kernel of a
  true convolution, as ``np.convolve`` and ``scipy.signal.convolve`` flip it), or read as k*k*C consecutive
  values of the flattened map, starting at the window's corner (as if a window were contiguous in memory), or
  sliced ``fmap[i:i + k][j:j + k]`` (the rows twice: right only where the map is k wide);
* ``stride``: windows at every position (right) or side by side, k apart, without overlap (in a grid of their
  own, or at their places in a full-size grid left at 0 between them), or 2 apart in a grid of their own;
* ``grid``: (H-k+1, W-k+1) positions (right), one fewer along each axis (a loop over ``range(H - k)``) or along
  one of them, or one more (an output allocated one too large, its last row and column never filled), an output
  of the right size whose last row and column (or one of them) a short loop never fills, or a map padded with
  zeros so the grid keeps the map's size (``same`` padding, centred or at the end), by 1 all round (a 3 x 3
  convolution's habit) or by k - 1 all round (a 'full' convolution), or one axis's count used for
  both (a square map assumed);
* ``axes``: the grid's axes in order (right), swapped, (W', H', out), or swapped in the reads (the window at
  row j and column i stored at [i, j] of an (H', W') grid: a transpose on a square map, a window past the edge on
  any other), or an output allocated (W', H', out) and indexed [row, column] (right only on a square map);
* ``bias``: added (right), not added, or added twice;
* ``weight``: used as ``window @ weight.T`` (right), without its transpose, or reshaped to (k*k*C, out) where it
  should be transposed (also what reading it as a (k, k, C, out) kernel does), or the mean of a window's
  products taken for their sum;
* ``layout``: scores last, (H', W', out) (right), or first, (out, H', W'), as a PyTorch convolution returns them;
* ``activation``: the scores as they are (right), or passed through ReLU, a sigmoid, tanh or a softmax.

Each combination is run in the grader on the same inputs and compared with every call: where the student's
function returned an array the model must give the same shape and values (to 1e-6 of the largest value; an
empty result matches an empty prediction whatever its shape, as a list of no rows gives), where it raised the
model must raise (and, for two departures that only ever raise, raise their own error). The simplest
combination that explains every call gives the findings. A grid one too large
that makes every call fail (a loop one window past the edge) is read from the errors instead: the cut-off
window's size, or an index one past the map's edge, is in each message. One probe with out == k*k*C lets an
untransposed weight run.
When nothing explains the calls, the patterns of ``unmodelled.py`` are tried (a reused row buffer, a ReLU before
the bias, a kernel flipped along one axis, windows k apart along one axis, a bias shaped (out, 1, 1)).
"""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from grader.authoring import PROBE, Case, Finding

from .model import (FINDING, FLAGS, MATCH, OPTIONS, PADDING, REFERENCE, SHORT, SPECS, Spec,  # noqa: F401
                    _first, _run_model, _same, finding_id, model, windows)
from .unmodelled import unmodelled


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


def _explains(spec: Spec, runs, cache: dict, memos: list[dict]) -> bool:
    """Whether ``spec`` reproduces every call; what each call says of it is kept in ``cache``, and the scores
    before the grid's trimming in ``memos`` (one per call), which the combinations share: an output nothing
    explains (NaNs, noise, a mix of mistakes) is compared with all 3,844 of them, and computing each from scratch
    cost the grader 150-200 ms per submission."""
    for index, run in enumerate(runs):
        key = (index, spec)
        if key not in cache:
            cache[key] = _matches(run, _run_model(run.case.args, spec, memos[index]))
        if not cache[key]:
            return False
    return True


def _matches(run, predicted: list) -> bool:
    if run.outcome.status == "raised":
        return not all(p is not None for p in predicted)
    return any(_same(run.outcome.array, p) for p in predicted)


def _unmatchable(run) -> bool:
    """A returned array that no combination can give, whatever its switches: one that holds a NaN or an infinity
    (``_same`` compares with <=, which both fail, and the model's scores of finite maps are finite), or a non-empty
    one that is not (rows, columns, scores) in some order. Asking all 3,844 combinations would only say no."""
    arr = run.outcome.array if run.outcome.status == "ok" else None
    if arr is None or not arr.size:
        return False
    with np.errstate(all="ignore"):
        return arr.ndim != 3 or not bool(np.isfinite(arr).all())


def search(runs) -> Spec | None:
    usable = _usable(runs)
    if not any(r.outcome.status == "ok" for r in usable) or any(_unmatchable(r) for r in usable):
        return None
    # the smallest maps first: the answer is the same in any order, and the first call asked costs the most
    ordered = sorted(usable, key=lambda run: run.case.args[0].size)
    cache: dict = {}
    memos: list[dict] = [{} for _ in ordered]
    for spec in SPECS:
        if _explains(spec, ordered, cache, memos) and _plausible(spec, usable):
            return spec
    return None


#: departures that raise on some maps and must also be seen returning a result they change: raising alone (on
#: every map that is not square, say) is what many other mistakes do too
SEEN_RETURNING = {("axes", "swapped-reads"), ("grid", "square-rows"), ("grid", "square-columns")}


def _plausible(spec: Spec, runs) -> bool:
    """Departures that the model can only reproduce as "it raised" must also raise the error they raise: a
    chained slice fails on a window of k whole rows, (k, W, C); an output allocated (W', H') on an index. Those of
    ``SEEN_RETURNING`` need a returned result that they explain and the right computation does not."""
    for flag in spec.departures():
        if (flag, getattr(spec, flag)) in SEEN_RETURNING and not any(
                r.outcome.status == "ok" and _differs(r.case.args, spec, replace(spec, **{flag: "ok"})) for r in runs):
            return False
    for run in runs:
        error = run.outcome.exception if run.outcome.status == "raised" else None
        if error is None:
            continue
        if spec.axes == "swapped-allocation" and error.type != "IndexError":
            return False
        if spec.window == "chained":
            fmap, _, _, k = run.case.args
            H, W, C = fmap.shape
            numbers = {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", error.message)}
            if int(k) * W * C not in numbers and f"({int(k)},{W},{C})" not in error.message.replace(" ", ""):
                return False
    return True


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
    cut = {(k - 1) * k * C}  # a loop one window too far fails first on a window one row or column short, never
    # on the corner one short both ways: an error about (k-1) x (k-1) windows everywhere is a window too small
    shapes = {f"({k - 1},{k},{C})", f"({k},{k - 1},{C})", f"({k - 1}, {k}, {C})", f"({k}, {k - 1}, {C})"}
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


# -- a bias added a different number of times at different positions -----------------------------------------------
def _bias_counts(runs) -> Finding | None:
    """Every result is the layer without its bias plus a whole number of biases at each position, not once
    everywhere: a bias added to a whole row, or to the whole output, inside the loop that fills it, so the positions
    filled first collect it again at every step; a bias added once per kernel position (k * k times, which the
    search's twice does not hold); or a bias added at some positions only (counts of 0 and 1), which is a bias
    missing where it is 0, not one added twice."""
    shown = None
    for run in runs:
        if run.outcome.status != "ok" or tuple(run.outcome.array.shape) != tuple(run.expected.shape):
            return None
        bias = run.case.args[2]
        if not np.any(bias):
            continue
        extra = run.outcome.array.astype(np.float64) - model(run.case.args, replace(REFERENCE, bias="missing"))
        if not np.all(np.isfinite(extra)):
            return None
        times = extra @ bias / float(bias @ bias)  # least squares, one count per position
        scale = max(float(np.abs(run.expected).max()), 1e-300)
        if np.abs(extra - times[..., None] * bias).max() > MATCH * scale or np.abs(times - np.round(times)).max() > 1e-6:
            return None
        counts = np.round(times).astype(int)
        if counts.size and counts.min() < 0:
            return None
        if counts.size and np.any(counts != 1) and (shown is None or len(np.unique(shown[1])) < len(np.unique(counts))):
            shown = (run, counts)
    if shown is None:
        return None
    run, counts = shown
    row = ", ".join(str(n) for n in counts[0][:6]) + (", ..." if counts.shape[1] > 6 else "")
    if counts.max() <= 1:
        return Finding("missing-bias", f"On {_where(run)} your scores are the layer's with the bias at some positions "
                                       f"only and without it at the others: along row 0 of the grid it is there "
                                       f"{row} times. Every position of the grid gets the bias once, not only the "
                                       "positions your code adds it to.")
    if len(np.unique(counts)) == 1:
        k = int(run.case.args[3])
        per = (f" ({k} x {k}: once per kernel position, as when the bias is added inside the loop over the "
               "kernel's rows and columns)" if counts.flat[0] == k * k else "")
        return Finding("bias-added-twice", f"On {_where(run)} your scores are the layer's without its bias plus the "
                                           f"bias {counts.flat[0]} times at every position{per}. Each score gets its "
                                           "bias once: add it after the sum over the window, not inside it.")
    return Finding("bias-added-twice", f"On {_where(run)} your scores are the layer's without its bias plus the bias "
                                       f"a different number of times at different positions, from {counts.min()} to "
                                       f"{counts.max()} times instead of once: along row 0 of the grid {row}. An "
                                       "addition to a whole row, or to the whole output, inside the loop that fills "
                                       "it adds the bias again to every position already filled.")


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


def _window_text(spec: Spec, k: int) -> str:
    if spec.window in ("channels-first", "column-major"):
        order = "as (C, k, k)" if spec.window == "channels-first" else "in column-major order"
        return (f"those of the layer applied to each window flattened {order}, the channel slowest, instead of "
                "channels-last, as (k, k, C)")
    if spec.window == "transposed":
        return ("those of the layer applied to each window flattened with its rows and columns swapped, column "
                "by column, (k, k, C) read as [column, row, channel], instead of row by row")
    if spec.window == "flipped":
        return (f"those of the layer applied to each window flipped top to bottom and left to right: the weight "
                f"of row u and column v meets the value at row {k - 1} - u and column {k - 1} - v, the kernel of a "
                "true convolution, where the layer is a cross-correlation")
    if spec.window == "chained":
        return ("those of the layer applied to fmap[i:i + k][j:j + k], which slices the rows twice: the second "
                "[j:j + k] takes rows of the first slice, not columns, so a window is right only where the map is "
                "as wide as k")
    return (f"those of the layer applied to {k * k} x C consecutive values of the flattened map, starting at each "
            "window's top-left corner, instead of the k x k x C values of the window: a window's rows are not "
            "next to each other in memory")


def _grid_text(ran, spec: Spec) -> str:
    fmap, _, _, k = ran.case.args
    H, W, _ = fmap.shape
    k = int(k)
    if spec.grid == "smaller":
        return (f"the grid stops one position short along each axis, its last row and column of windows (starting "
                f"at row {H - k} and column {W - k}) missing")
    if spec.grid == "larger":
        return "the grid has one position too many along each axis, and its last row and column hold no scores"
    if spec.grid in ("fewer-rows", "fewer-columns"):
        axis, last = (("rows", f"row {H - k}") if spec.grid == "fewer-rows" else ("columns", f"column {W - k}"))
        return f"the grid has one position too few along its {axis}, the windows starting at {last} missing"
    if spec.grid in ("square-rows", "square-columns"):
        n, axis = (H - k + 1, "rows") if spec.grid == "square-rows" else (W - k + 1, "columns")
        return (f"the grid is {n} x {n}: the number of positions along the {axis} was used for both axes, as if "
                "the map were square")
    if spec.grid in PADDING:
        before, after = PADDING[spec.grid](k)
        rows, columns = H + before + after - k + 1, W + before + after - k + 1
        size = "the map's own size, " if (rows, columns) == (H, W) else ""
        return (f"the grid is {size}{rows} x {columns}: the map was padded with zeros ({before} before and "
                f"{after} after, along the rows and the columns) so that windows also start where they run past "
                f"its edge, where only {H - k + 1} x {W - k + 1} positions fit inside it")
    where = {"unfilled": f"its last row and its last column (the windows starting at row {H - k} and at column "
                         f"{W - k})",
             "unfilled-rows": f"its last row (the windows starting at row {H - k})",
             "unfilled-columns": f"its last column (the windows starting at column {W - k})"}[spec.grid]
    return (f"the grid has the right size, but {where} hold zeros where scores should be: the loop that fills it "
            "stops one position short")


def _guard_text(runs, spec: Spec) -> str:
    """What a guarded short loop (``range(max(H - k, 1))``) looks like, said when a map exactly k high or wide
    kept its one window: the guard hides the off-by-one on those maps and only there."""
    if spec.grid not in SHORT:
        return ""
    rows, columns = SHORT[spec.grid]
    for run in runs:
        if run.outcome.status != "ok" or run.outcome.array.ndim < 2:
            continue
        fmap, _, _, k = run.case.args
        H, W, _ = fmap.shape
        edge = (rows and H == int(k) and run.outcome.array.shape[0] == 1) or (
            columns and W == int(k) and run.outcome.array.shape[1] == 1)
        if edge:
            return (f"; on {_where(run)} the map is exactly k = {int(k)} high or wide and your grid keeps its one "
                    "window there, as a guard like range(max(H - k, 1)) does: the guard covers that one map, but "
                    "every other map still loses a position, because H - k + 1 windows fit, not H - k")
    return ""


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
            parts.append(f"On {_where(ran)} your scores are {_window_text(spec, k)}")
        elif flag == "stride" and spec.stride == "k-in-place":
            parts.append(f"On {_where(ran)} only the windows {k} apart are scored, one position in {k} along each "
                         "axis of the grid, and the positions between them are left at 0: a window starts at every "
                         "position")
        elif flag == "stride" and spec.stride == "two":
            parts.append(f"On {_where(ran)} {_got(ran)}: the scores are those of the windows at every other row and "
                         f"column only, stepped by 2 ({(H - k) // 2 + 1} x {(W - k) // 2 + 1} of them, "
                         f"[::2, ::2] of the full grid), instead of one at every position ({h} x {w})")
        elif flag == "stride":
            parts.append(f"On {_where(ran)} {_got(ran)}: the scores are those of {k} x {k} windows placed side by "
                         f"side, {k} apart ({(H - k) // k + 1} x {(W - k) // k + 1} of them), instead of one at "
                         f"every position ({h} x {w})")
        elif flag == "grid":
            same = tuple(ran.outcome.array.shape) == tuple(ran.expected.shape)
            parts.append(f"On {_where(ran)} {'' if same else _got(ran) + ': '}{_grid_text(ran, spec)}"
                         f"{_guard_text(runs, spec)}")
        elif flag == "axes" and spec.axes == "swapped-allocation":
            parts.append(f"On {_where(ran)}, a square map, your scores are right")
        elif flag == "axes":
            parts.append(f"On {_where(ran)} {_got(ran)}: the score of the window at row i and column j is at "
                         "[j, i], the grid's two axes swapped")
            if tuple(ran.outcome.array.shape) == tuple(ran.expected.shape):
                parts[-1] = (f"On {_where(ran)}, a square map, the score of the window at row i and column j is "
                             "at [j, i], the grid's two axes swapped")
        elif flag == "bias":
            if spec.bias == "twice":
                parts.append(f"On {_where(ran)} your scores equal the layer's with its bias added twice, "
                             "window @ weight.T + 2 * bias")
            else:
                parts.append(f"On {_where(ran)} your scores are the layer's without its bias: changing the bias "
                             "would not change them")
        elif flag == "weight":
            if spec.weight == "mean":
                parts.append(f"On {_where(ran)} your scores equal the layer's with the sum over the k*k*C products "
                             "of a window replaced by their mean: window @ weight.T divided by k*k*C, plus the bias")
            elif spec.weight == "mean-positions":
                parts.append(f"On {_where(ran)} your scores equal the layer's with the window's values divided by "
                             "k*k, its number of positions (an average where the sum belongs): window @ weight.T "
                             "divided by k*k, plus the bias")
            elif spec.weight == "reshaped":
                out, p = ran.case.args[1].shape
                parts.append(f"On {_where(ran)} your scores equal window @ weight.reshape({p}, {out}) (what "
                             "reading the weight as a (k, k, C, out) kernel also gives), not window @ weight.T: a "
                             "reshape keeps the values in their stored order, a transpose turns rows into columns")
            else:
                parts.append(f"On {_where(ran)}, where the weight is square so every shape fits, your scores equal "
                             "window @ weight instead of window @ weight.T")
        elif flag == "layout":
            parts.append(f"On {_where(ran)} {_got(ran)}: the scores are in front of the grid's axes, (out, H', W') "
                         "as a PyTorch convolution returns them, instead of last")
        elif flag == "activation":
            name = {"relu": "ReLU, max(0, s), its negative scores set to 0", "sigmoid": "a sigmoid",
                    "tanh": "tanh", "softmax": "a softmax over the scores of each window"}[spec.activation]
            parts.append(f"On {_where(ran)} your scores equal the layer's passed through {name}")
    if failed is not None:
        text = f"on {_where(failed)} your function raised {_error(failed)}"
        if flag == "weight" and spec.weight == "untransposed":
            out, p = failed.case.args[1].shape
            text += f": the weight is stored (out, k*k*C) = ({out}, {p}), so window @ weight only fits when they are equal"
        elif flag == "axes" and spec.axes == "swapped-reads":
            text += (": on a map that is not square, reading the window of row i and column j at row j and column "
                     "i runs past the edge of the map")
        elif flag == "axes" and spec.axes == "swapped-allocation":
            text += (": an output allocated with the grid's axes swapped, (W - k + 1, H - k + 1, out), and indexed "
                     "[row, column] only fits a square map, where your scores are right")
        elif flag == "grid" and spec.grid in ("square-rows", "square-columns"):
            text += ": with the same count for both axes, windows run past the edge of the narrower side"
        elif flag == "window" and spec.window == "chained":
            text += (": fmap[i:i + k][j:j + k] is (k, W, C) at j = 0, the rows i to i + k with every column, "
                     "where the window has k columns")
        parts.append(text)
    if not parts:
        return ""
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def diagnose(runs, exercise) -> list[Finding]:
    usable = _usable(runs)
    spec = search(usable)
    if spec is None:
        found = _grid_too_large(usable) or _bias_counts(usable) or unmodelled(usable)
        return [found] if found else []
    if spec == REFERENCE:
        return []
    return [Finding(finding_id(spec, flag), _evidence(usable, spec, flag)) for flag in spec.departures()]
