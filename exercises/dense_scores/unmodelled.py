"""Mistakes of dense_scores that the switch model (``model.py``) does not hold, tried when its search explains
nothing: whole-result patterns checked against every call that returned.

* ``buffer-reused``: one row of scores filled per grid row into a buffer allocated once and appended to a list, so
  every row of the grid is the last one (``rows.append(row)`` keeps a reference, not a copy);
* ``activation-applied``: a ReLU on the windows' products before the bias is added, max(0, w . W_o) + b_o, where
  the model only holds an activation on the finished scores;
* ``kernel-flipped``: the kernel reversed along one axis only (``weight.reshape(out, k, k, C)[:, ::-1]``, its rows,
  or its columns), where the model holds the 180-degree turn alone;
* ``non-overlapping-windows``: windows k apart along one axis only (columns j * k, rows at stride 1, or the other
  way), in a grid of the right size whose windows that would run past the edge are left at zero.
* ``bias-one-value``: one number added to every score, the bias's first or last entry, its sum or its mean; or
  one number per window (``bias_per_window``), the bias indexed by the window's row or column;
* ``output-scaled``: the windows' products scaled by 1/sqrt(k*k*C) (attention's scaling, or the initialisation's
  bound) or by sqrt(k*k*C) before the bias;
* ``weight-sign-dropped``: ``np.abs(weight)`` in the product;
* ``grid-stride``: a loop that steps by 2 along the rows, the columns or both (``range(0, H - k + 1, 2)``) into a
  grid of the right size, the positions it skips left at zero.

* ``window-not-moved``: every position scores the first window, ``fmap[:k, :k]`` read inside the loop over the
  grid where ``fmap[i:i + k, j:j + k]`` belongs;
* ``weight-row-fixed``: every score of a window uses the first row of the weight, ``weight[0]`` where
  ``weight[o]`` belongs, each output still getting its own bias;
* ``input-normalised``: each window centred on its mean, or scaled to unit length, before the product;
* ``square-map-assumed``: a shortcut for a window as tall (or as wide) as the map, returning the one position of
  a k x k map, (1, 1, out), where the map is wider (or taller) and the grid has a whole row (or column).

* ``scores-first``: the scores computed as an (out, H' * W') array (weight @ columns, im2col's layout) and reshaped
  to (H', W', out), where a transpose belongs first.

``bias_channels_first`` names ``out + bias[:, None, None]`` (the bias laid out for a (C, H, W) array), which
raises numpy's broadcast error on most grids and adds bias[i] to row i of the others, and its mirror: ``+ bias``
on scores still laid out (out, H', W'), before their axis is moved last.

A pattern is named only when it reproduces every returned call (to the model's tolerance), changes at least one,
and no call raised.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.authoring import PROBE, Finding

from .model import MATCH


def _where(run) -> str:
    kind = "probe" if run.case.group == PROBE else "case"
    return f"the {kind} '{run.case.name}' ({run.case.description})"


def _close(actual: np.ndarray, predicted: np.ndarray, scale: float) -> bool:
    return actual.shape == predicted.shape and bool(
        np.all(np.abs(actual.astype(np.float64) - predicted) <= MATCH * scale))


def _last_row(args, expected: np.ndarray) -> np.ndarray:
    return np.broadcast_to(expected[-1:], expected.shape) if expected.ndim == 3 and expected.shape[0] else expected


def _relu_before_bias(args, expected: np.ndarray) -> np.ndarray:
    bias = np.asarray(args[2], dtype=np.float64)
    return np.maximum(expected - bias, 0.0) + bias


def _windows(args) -> np.ndarray:
    """The windows (H', W', k, k, C) of the map at stride 1."""
    fmap, k = np.asarray(args[0], dtype=np.float64), int(args[3])
    return np.lib.stride_tricks.sliding_window_view(fmap, (k, k), axis=(0, 1)).transpose(0, 1, 3, 4, 2)


def _scores(args, windows: np.ndarray) -> np.ndarray:
    weight, bias = np.asarray(args[1], dtype=np.float64), np.asarray(args[2], dtype=np.float64)
    return windows.reshape(windows.shape[0], windows.shape[1], -1) @ weight.T + bias


def _flipped_one_axis(args, expected: np.ndarray) -> list[np.ndarray]:
    windows = _windows(args)
    return [_scores(args, windows[:, :, ::-1]), _scores(args, windows[:, :, :, ::-1])]


def _stride_one_axis(args, expected: np.ndarray) -> list[np.ndarray]:
    k = int(args[3])
    out = []
    for axis in (1, 0):
        predicted = np.zeros_like(expected)
        index = [slice(None), slice(None)]
        index[axis] = slice(None, None, k)
        spaced = expected[tuple(index)]
        target = [slice(None), slice(None)]
        target[axis] = slice(0, spaced.shape[axis])
        predicted[tuple(target)] = spaced
        out.append(predicted)
    return out


def _product(args, expected: np.ndarray) -> np.ndarray:
    """The scores without their bias (the expected scores minus the bias)."""
    return expected - np.asarray(args[2], dtype=np.float64)


def _one_bias(args, expected: np.ndarray) -> list[np.ndarray]:
    bias, product = np.asarray(args[2], dtype=np.float64), _product(args, expected)
    return [product + bias[0], product + bias[-1], product + bias.sum(), product + bias.mean()]


def _scaled(args, expected: np.ndarray) -> list[np.ndarray]:
    n = np.asarray(args[1]).shape[1]
    bias, product = np.asarray(args[2], dtype=np.float64), _product(args, expected)
    return [product / np.sqrt(n) + bias, product * np.sqrt(n) + bias]


def _sign_dropped(args, expected: np.ndarray) -> list[np.ndarray]:
    windows = _windows(args)
    weight, bias = np.abs(np.asarray(args[1], dtype=np.float64)), np.asarray(args[2], dtype=np.float64)
    return [windows.reshape(windows.shape[0], windows.shape[1], -1) @ weight.T + bias]


def _every_other(args, expected: np.ndarray) -> list[np.ndarray]:
    out = []
    for rows, cols in ((2, 1), (1, 2), (2, 2)):
        predicted = np.zeros_like(expected)
        predicted[::rows, ::cols] = expected[::rows, ::cols]
        out.append(predicted)
    return out


def _first_window(args, expected: np.ndarray) -> list[np.ndarray]:
    return [np.broadcast_to(expected[:1, :1], expected.shape) if expected.size else expected]


def _first_row(args, expected: np.ndarray) -> list[np.ndarray]:
    windows = _windows(args)
    weight, bias = np.asarray(args[1], dtype=np.float64), np.asarray(args[2], dtype=np.float64)
    first = windows.reshape(windows.shape[0], windows.shape[1], -1) @ weight[0]
    return [first[..., None] + bias]


def _windows_normalised(args, expected: np.ndarray) -> list[np.ndarray]:
    windows = _windows(args)
    flat = windows.reshape(windows.shape[0], windows.shape[1], -1)
    weight, bias = np.asarray(args[1], dtype=np.float64), np.asarray(args[2], dtype=np.float64)
    norm = np.linalg.norm(flat, axis=-1, keepdims=True)
    scaled = flat / norm if np.all(norm > 0) else flat * np.nan
    return [(flat - flat.mean(axis=-1, keepdims=True)) @ weight.T + bias, scaled @ weight.T + bias]


def _whole_map_shortcut(args, expected: np.ndarray) -> list[np.ndarray]:
    fmap, k = np.asarray(args[0]), int(args[3])
    if k in fmap.shape[:2] and expected.ndim == 3:
        return [expected[:1, :1]]
    return [expected]


PATTERNS: list[tuple[str, Callable]] = [
    ("buffer-reused", lambda args, expected: [_last_row(args, expected)]),
    ("activation-applied", lambda args, expected: [_relu_before_bias(args, expected)]),
    ("kernel-flipped", _flipped_one_axis),
    ("non-overlapping-windows", _stride_one_axis),
    ("bias-one-value", _one_bias),
    ("output-scaled", _scaled),
    ("weight-sign-dropped", _sign_dropped),
    ("grid-stride", _every_other),
    ("window-not-moved", _first_window),
    ("weight-row-fixed", _first_row),
    ("square-map-assumed", _whole_map_shortcut),
    ("input-normalised", _windows_normalised),
    ("scores-first", lambda args, expected: [np.moveaxis(expected, -1, 0).reshape(expected.shape)]),
    ("grid-axes-swapped", lambda args, expected: [expected.transpose(1, 0, 2).reshape(expected.shape)]),
]

#: what the two predictions of a pattern are, in order, for its evidence
HOW = {"kernel-flipped": ("its rows reversed, weight.reshape(out, k, k, C)[:, ::-1]",
                          "its columns reversed, weight.reshape(out, k, k, C)[:, :, ::-1]"),
       "non-overlapping-windows": ("the window of column j starting at column j * k (rows at stride 1)",
                                   "the window of row i starting at row i * k (columns at stride 1)"),
       "bias-one-value": ("its first entry, bias[0]", "its last entry, bias[-1]", "the sum of the bias, np.sum(bias)",
                          "the mean of the bias"),
       "output-scaled": ("divided by sqrt(k*k*C)", "multiplied by sqrt(k*k*C)"),
       "input-normalised": ("centred on its mean, window - window.mean()",
                            "scaled to unit length, window / np.linalg.norm(window)"),
       "grid-stride": ("every other row of the grid (range(0, H - k + 1, 2)), the columns at stride 1",
                       "every other column of the grid (range(0, W - k + 1, 2)), the rows at stride 1",
                       "every other row and every other column of the grid")}


def _text(finding_id: str, run, which: int) -> str:
    if finding_id == "kernel-flipped":
        return (f"On {_where(run)} your scores pair each window with the kernel flipped along one axis only, "
                f"{HOW[finding_id][which]}: each window's values must meet the weights in place.")
    if finding_id == "non-overlapping-windows":
        return (f"On {_where(run)} your scores are those of {HOW[finding_id][which]}, and 0 where such a window "
                "would run past the edge: windows must start at every position along both axes.")
    if finding_id == "bias-one-value":
        return (f"On {_where(run)} your scores equal each window's product with the weight plus one number for every "
                f"score, {HOW[finding_id][which]}, where score o must get bias[o].")
    if finding_id == "output-scaled":
        n = run.case.args[1].shape[1]
        return (f"On {_where(run)} your scores equal each window's product with the weight {HOW[finding_id][which]} "
                f"= sqrt({n}), then the bias: the layer has no scaling of its own.")
    if finding_id == "weight-sign-dropped":
        return (f"On {_where(run)} your scores equal the layer computed with np.abs(weight): each window must meet "
                "the weights as they are given, negative ones included.")
    if finding_id == "grid-stride":
        return (f"On {_where(run)} your scores are right at {HOW[finding_id][which]}, and 0 at every position in "
                "between: the loop steps by 2, where a window starts at every row and every column (stride 1).")
    if finding_id == "window-not-moved":
        return (f"On {_where(run)} every position of your grid holds the scores of the first window, "
                "fmap[0:k, 0:k]: the window read inside the loop does not move with the position. The window at "
                "row i and column j is fmap[i:i + k, j:j + k].")
    if finding_id == "weight-row-fixed":
        return (f"On {_where(run)} every score of a window equals its product with the first row of the weight, "
                "weight[0], plus that score's own bias: score o must use row o, weight[o], the same o as its bias.")
    if finding_id == "input-normalised":
        return (f"On {_where(run)} your scores equal the layer applied to each flattened window "
                f"{HOW[finding_id][which]}: the layer reads the window's values exactly as the map holds them.")
    if finding_id == "square-map-assumed":
        fmap, k = run.case.args[0], run.case.args[3]
        return (f"On {_where(run)}, where k = {k} and the map is {fmap.shape[0]} x {fmap.shape[1]}, your function "
                f"returned shape {tuple(run.outcome.array.shape)}, the first window's scores alone, where the grid "
                f"is {tuple(run.expected.shape)}: a window as tall (or as wide) as the map leaves a single position "
                "only when the map is square, k x k. On every other case your scores are right.")
    if finding_id == "scores-first":
        return (f"On {_where(run)} your scores are the right numbers in the order of an (out, H' * W') array, one row "
                "per output, reshaped to (H', W', out): a reshape keeps the numbers in their order, so the scores "
                "of one output were spread over several positions. Transpose the product, (H' * W', out), before "
                "reshaping it, or compute it as windows @ weight.T.")
    if finding_id == "grid-axes-swapped":
        return (f"On {_where(run)} your scores are the right ones listed column by column, the windows of column 0 "
                "first (a loop over j outside the loop over i), then reshaped to (H', W', out), which fills the grid "
                "row by row: each score lands at another window's place. List the windows row by row (i outside), "
                "or reshape to (W', H', out) and swap the first two axes.")
    if finding_id == "buffer-reused":
        return (f"On {_where(run)} every row of your grid holds the scores of the last row of windows, "
                f"{run.outcome.array.shape[0]} times: each row was written into one buffer allocated before the "
                "loop and the list kept that buffer, not a copy of it, so the last row's scores show in every row.")
    return (f"On {_where(run)} your scores equal max(0, window @ weight.T) + bias: a ReLU was applied to the "
            "windows' products before the bias was added. The layer's scores have no activation at all.")


def unmodelled(runs) -> Finding | None:
    ranked = sorted(runs, key=lambda r: (r.case.group != PROBE and not r.case.name.startswith("public-")))
    for finding_id, predict in PATTERNS:
        shown = None
        for run in ranked:
            actual = run.outcome.array if run.outcome.status == "ok" else None
            if actual is None or run.expected is None:
                break
            expected = np.asarray(run.expected, dtype=np.float64)
            scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
            if actual.dtype.kind not in "biuf":
                break
            which = next((i for i, p in enumerate(predict(run.case.args, expected))
                          if _close(actual, p, max(scale, float(np.abs(p).max(initial=0.0))))), None)
            if which is None:
                break
            if shown is None and not _close(actual, expected, scale):
                shown = (run, which)
        else:
            if shown is not None:
                return Finding(finding_id, _text(finding_id, *shown))
    return bias_channels_first(runs) or bias_per_window(runs)


def bias_per_window(runs) -> Finding | None:
    """Every score of a window gets the same number, one that changes from window to window (the bias indexed by
    the window's row or column, ``bias[j]``, where ``bias[o]`` belongs): the result minus the products is constant
    along the scores of each position on every call, and some call has a window with several outputs whose
    scores it changes."""
    shown = None
    for run in runs:
        actual = run.outcome.array if run.outcome.status == "ok" else None
        if actual is None or run.expected is None or actual.shape != np.shape(run.expected):
            return None
        expected = np.asarray(run.expected, dtype=np.float64)
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        with np.errstate(all="ignore"):  # a non-finite result is simply not explained
            added = actual.astype(np.float64) - _product(run.case.args, expected)
            if expected.ndim != 3 or not np.all(np.abs(added - added[..., :1]) <= MATCH * scale):
                return None
        if shown is None and expected.shape[2] > 1 and not _close(actual, expected, scale):
            shown = run
    if shown is None:
        return None
    return Finding("bias-one-value", f"On {_where(shown)} every score of a window equals its product with the weight "
                                     "plus one number, the same for all of that window's outputs and another at "
                                     "the next window: the bias was indexed by the window's position (its row or "
                                     "column) where score o must get bias[o], the same vector at every window.")


#: the two ways a bias meets the wrong axis of the scores: (shapes in numpy's broadcast error, the scores it gives,
#: what was done); the product is (H', W', out), the bias (out,)
BIAS_LAYOUTS = (
    (lambda p, b: "({},{},{}) ({},1,1)".format(*p.shape, b.shape[0]), lambda p, b: p + b[:, None, None],
     "the bias was reshaped to (out, 1, 1), bias[:, None, None], as for a (C, H, W) array, where the scores are "
     "(H', W', out) and the bias belongs on the last axis, + bias"),
    (lambda p, b: "({},{}) ({},)".format(p.shape[2], p.shape[0] * p.shape[1], b.shape[0]),
     lambda p, b: (p.reshape(-1, p.shape[2]).T + b).T.reshape(p.shape[0], p.shape[1], -1),
     "the scores were computed (out, H' * W'), weight @ columns, one column per window as im2col lays them out, "
     "and the bias added as it is, + bias, which numpy lines up with the windows, not the outputs: add it as a "
     "column, bias[:, None], or once the scores are (H' * W', out)"),
    (lambda p, b: "({},{},{}) ({},)".format(p.shape[2], *p.shape[:2], b.shape[0]),
     lambda p, b: np.moveaxis(np.moveaxis(p, -1, 0) + b, 0, -1),
     "the bias was added to scores laid out (out, H', W'), scores first, before their axis was moved last, so "
     "numpy lined it up with the grid's columns, the last axis then; add it once the scores are last, or as "
     "bias[:, None, None] while they come first"),
)


def bias_channels_first(runs) -> Finding | None:
    """The bias on the wrong axis of the scores, ``out + bias[:, None, None]`` on (H', W', out) scores or ``+ bias``
    on (out, H', W') ones: every call either raised numpy's broadcast error for those shapes, or returned the
    products plus the bias along another axis; at least one raised or changed."""
    for layout in BIAS_LAYOUTS:
        found = _bias_misplaced(runs, *layout)
        if found is not None:
            return found
    return None


def _bias_misplaced(runs, shapes_of, predict, what_was_done) -> Finding | None:
    shown = None
    for run in runs:
        if run.expected is None or len(run.case.args) < 3:
            return None
        expected = np.asarray(run.expected, dtype=np.float64)
        bias = np.asarray(run.case.args[2], dtype=np.float64)
        if expected.ndim != 3 or bias.shape != expected.shape[2:]:
            return None
        product = expected - bias
        try:
            predicted = predict(product, bias)
        except ValueError:
            predicted = None
        if run.outcome.status == "raised":
            error = run.outcome.exception
            shapes = shapes_of(product, bias)
            if predicted is not None or error is None or shapes not in error.message:
                return None
            shown = shown or (run, shapes)
        elif run.outcome.status == "ok" and run.outcome.array is not None and predicted is not None:
            scale = max(1.0, float(np.abs(predicted).max(initial=0.0)))
            if not _close(run.outcome.array, predicted, scale):
                return None
            if predicted.shape != expected.shape or not _close(predicted, expected, scale):
                shown = shown or (run, None)
        else:
            return None
    if shown is None:
        return None
    run, shapes = shown
    what = (f"raised numpy's broadcast error for the shapes {shapes}" if shapes else
            f"returned shape {tuple(run.outcome.array.shape)} with the bias added along another axis than the "
            "scores'")
    return Finding("bias-channels-first", f"On {_where(run)} your function {what}: {what_was_done}.")
