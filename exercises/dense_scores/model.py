"""The model of dense_scores that the diagnosis searches (see ``diagnosis.py``): one switch per kind of mistake,
each combination a function of the same arguments as the student's, that returns what a submission making
those mistakes returns, or raises where it would raise."""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


MATCH = 1e-6
MAX_DEPARTURES = 3


@dataclass(frozen=True)
class Spec:
    window: str = "ok"  # ok | channels-first | column-major | transposed | flipped | flat-slice | chained
    stride: str = "ok"  # ok | k | k-in-place
    grid: str = "ok"  # ok | smaller | larger | fewer-rows | fewer-columns | unfilled... | same... | square...
    axes: str = "ok"  # ok | swapped | swapped-reads | swapped-allocation
    bias: str = "ok"  # ok | missing | twice
    weight: str = "ok"  # ok | untransposed | reshaped | mean | mean-positions
    layout: str = "ok"  # ok | scores-first
    activation: str = "ok"  # ok | relu | sigmoid | tanh | softmax

    def departures(self) -> list[str]:
        return [name for name in FLAGS if getattr(self, name) != "ok"]


OPTIONS = {
    "window": ("ok", "channels-first", "column-major", "transposed", "flipped", "flat-slice", "chained"),
    "stride": ("ok", "k", "k-in-place", "two"),
    "grid": ("ok", "smaller", "larger", "fewer-rows", "fewer-columns", "unfilled", "unfilled-rows",
             "unfilled-columns", "same", "same-late", "pad-end", "square-rows", "square-columns", "pad-one",
             "pad-full"),
    "axes": ("ok", "swapped", "swapped-reads", "swapped-allocation"),
    "bias": ("ok", "missing", "twice"),
    "weight": ("ok", "untransposed", "reshaped", "mean", "mean-positions"),
    "layout": ("ok", "scores-first"),
    "activation": ("ok", "relu", "sigmoid", "tanh", "softmax"),
}
FLAGS = tuple(OPTIONS)
#: the catalog id of each departure, by option (where one flag holds several mistakes) or else by flag
FINDING = {"window": "window-channels-first", "transposed": "window-transposed", "flipped": "kernel-flipped",
           "flat-slice": "window-read-as-flat-slice", "chained": "chained-indexing",
           "stride": "non-overlapping-windows", "square-rows": "square-map-assumed",
           "square-columns": "square-map-assumed", "mean": "mean-not-sum", "mean-positions": "mean-not-sum",
           "grid": "grid-off-by-one", "same": "same-padding", "same-late": "same-padding",
           "pad-end": "same-padding", "pad-one": "same-padding", "pad-full": "same-padding",
           "two": "grid-stride", "axes": "grid-axes-swapped", "bias": "missing-bias",
           "twice": "bias-added-twice", "weight": "weight-not-transposed",
           "reshaped": "weight-reshaped-not-transposed", "layout": "scores-first",
           "activation": "activation-applied"}
REFERENCE = Spec()
#: the zero padding (before, after) of each padded option, for a window of size k
PADDING = {"same": lambda k: ((k - 1) // 2, k // 2), "same-late": lambda k: (k // 2, (k - 1) // 2),
           "pad-end": lambda k: (0, k - 1), "pad-one": lambda k: (1, 1), "pad-full": lambda k: (k - 1, k - 1)}
#: the step between windows of each stride option that scores a compact grid (k-in-place fills a full-size one)
STEP = {"k": lambda k: k, "two": lambda k: 2}


def finding_id(spec: Spec, flag: str) -> str:
    option = getattr(spec, flag)
    return FINDING[option] if option in FINDING else FINDING[flag]


def _specs() -> list[Spec]:
    specs = [Spec(*values) for values in itertools.product(*OPTIONS.values())]
    specs = [s for s in specs if len(s.departures()) <= MAX_DEPARTURES]
    return sorted(specs, key=lambda s: len(s.departures()))


SPECS = _specs()


def windows(fmap: np.ndarray, k: int, order: str = "ok", step: int = 1) -> np.ndarray:
    """(H', W', k*k*C): every k x k window (``step`` apart), flattened in the given order."""
    if order == "chained":  # fmap[i:i + k][j:j + k]: the second slice cuts the rows again
        H, W, C = fmap.shape
        rows = []
        for i in range(0, H - k + 1, step):
            row = [fmap[i:i + k][j:j + k] for j in range(0, W - k + 1, step)]
            if any(w.size != k * k * fmap.shape[2] for w in row):
                raise ValueError("a window of the wrong size")
            rows.append([w.reshape(-1) for w in row])
        return np.array(rows).reshape(len(rows), -1, k * k * C)
    if order == "flat-slice":
        H, W, C = fmap.shape
        flat = fmap.reshape(-1)
        starts = ((np.arange(0, H - k + 1, step)[:, None] * W + np.arange(0, W - k + 1, step)) * C)
        index = starts[..., None] + np.arange(k * k * C)
        if index.size and index.max() >= flat.size:
            raise ValueError("a window runs past the end of the flattened map")
        return flat[index]
    view = sliding_window_view(fmap, (k, k), axis=(0, 1))[::step, ::step]  # (H', W', C, k, k)
    if order == "flipped":
        view = view[..., ::-1, ::-1]
    axes = {"channels-first": (0, 1, 2, 3, 4), "column-major": (0, 1, 2, 4, 3),
            "transposed": (0, 1, 4, 3, 2)}.get(order, (0, 1, 3, 4, 2))
    view = view.transpose(axes)
    return view.reshape(view.shape[0], view.shape[1], -1)


def _softmax(y: np.ndarray) -> np.ndarray:
    e = np.exp(y - y.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ACTIVATIONS = {"ok": lambda y: y, "relu": lambda y: np.maximum(y, 0.0), "sigmoid": lambda y: 1.0 / (1.0 + np.exp(-y)),
               "tanh": np.tanh, "softmax": _softmax}


def _activate(y: np.ndarray, how: str) -> np.ndarray:
    return ACTIVATIONS[how](y)


def _base(args, spec: Spec, einsum: bool, memo: dict | None = None) -> np.ndarray:
    """The scores before the grid's trimming, the layout and the activation: what most of a combination's cost
    is, and what only the window, the stride, a padding, the weight and the bias change. ``memo`` (one per call's
    arguments) keeps them by those switches, so that a search over every combination computes each once; a kept
    array is never written to (``model`` copies before it fills anything in)."""
    key = (spec.window, spec.stride if spec.stride in STEP else "", spec.grid if spec.grid in PADDING else "",
           spec.weight, spec.bias, einsum)
    if memo is None:
        return _unmemoised_base(args, spec, einsum)
    if key not in memo:
        try:
            memo[key] = _unmemoised_base(args, spec, einsum)
        except (ValueError, IndexError, TypeError) as error:  # a window that does not fit, every time alike
            memo[key] = error
    if isinstance(memo[key], Exception):
        raise memo[key]
    return memo[key]


def _unmemoised_base(args, spec: Spec, einsum: bool) -> np.ndarray:
    fmap, weight, bias, k = args
    k = int(k)
    if spec.grid in PADDING:
        before, after = PADDING[spec.grid](k)
        fmap = np.pad(fmap, ((before, after), (before, after), (0, 0)))
    flat = windows(fmap, k, spec.window, STEP[spec.stride](k) if spec.stride in STEP else 1)
    if spec.weight == "untransposed":
        y = np.einsum("hwp,po->hwo", flat, weight) if einsum else flat @ weight
    elif spec.weight == "reshaped":
        y = flat @ weight.reshape(weight.shape[1], weight.shape[0])
    else:  # mean: over the k*k*C products; mean-positions: over the k*k positions (the window averaged first)
        y = flat @ weight.T / {"mean": weight.shape[1], "mean-positions": k * k}.get(spec.weight, 1)
    if spec.bias == "missing":
        return y
    return y + bias + bias if spec.bias == "twice" else y + bias


#: the grids one position short, whose loop a student may guard so that a map exactly k wide keeps its window
SHORT = {"smaller": (True, True), "fewer-rows": (True, False), "fewer-columns": (False, True)}


def _short(n: int, guarded: bool) -> int:
    """Positions of a loop over ``range(n - 1)``, or over ``range(max(n - 1, 1))`` when ``guarded`` (n = H - k + 1):
    the guard only changes a map exactly k wide, where the plain loop has no window at all."""
    return max(n - 1, 1) if guarded else n - 1


def model(args, spec: Spec, einsum: bool = False, guarded: bool = False, memo: dict | None = None) -> np.ndarray:
    y = _base(args, spec, einsum, memo)
    if spec.grid in SHORT:
        rows, columns = SHORT[spec.grid]
        y = y[:_short(y.shape[0], guarded) if rows else None, :_short(y.shape[1], guarded) if columns else None]
    elif spec.grid == "larger":
        y = np.pad(y, ((0, 1), (0, 1), (0, 0)))
    elif spec.grid.startswith("unfilled"):
        y = y.copy()
        if spec.grid != "unfilled-columns":
            y[-1] = 0.0
        if spec.grid != "unfilled-rows":
            y[:, -1] = 0.0
    elif spec.grid in ("square-rows", "square-columns"):  # one axis's count used for both: past the edge, or short
        n = y.shape[0] if spec.grid == "square-rows" else y.shape[1]
        if n > min(y.shape[:2]):
            raise ValueError("a window read past the edge of the map")
        y = y[:n, :n]
    if spec.stride == "k-in-place":  # every k-th window scored in a full-size grid, the others left at 0
        k = int(args[3])
        keep = np.zeros(y.shape[:2], dtype=bool)
        keep[::k, ::k] = True
        y = np.where(keep[..., None], y, 0.0)
    if spec.axes == "swapped":
        y = y.transpose(1, 0, 2)
    elif spec.axes == "swapped-reads":
        if y.shape[0] != y.shape[1]:
            raise ValueError("a window read past the edge of a map that is not square")
        y = y.transpose(1, 0, 2)
    elif spec.axes == "swapped-allocation" and y.shape[0] != y.shape[1]:
        raise IndexError("an output allocated (W', H') indexed [row, column]")
    if spec.layout == "scores-first":
        y = np.moveaxis(y, -1, 0)
    return _activate(y, spec.activation)


def _run_model(args, spec: Spec, memo: dict | None = None) -> list:
    """The model's possible results (None where it raises); an untransposed weight has @'s and einsum's, a grid
    one position short has a plain loop's and a guarded one's (``max(H - k, 1)``, which keeps the only window of a
    map exactly k high; not beside another mistake of the grid's geometry, where it let three departures together
    explain what one the model lacks does)."""
    found = []
    for einsum in ((False, True) if spec.weight == "untransposed" else (False,)):
        for guarded in ((False, True) if spec.grid in SHORT and spec.stride == spec.axes == "ok" else (False,)):
            try:
                with np.errstate(all="ignore"):
                    found.append(model(args, spec, einsum, guarded, memo))
            except (ValueError, IndexError, TypeError):
                found.append(None)
    return found


def _first(args, spec: Spec):
    return _run_model(args, spec)[0]


def _same(actual: np.ndarray, predicted: np.ndarray | None) -> bool:
    if predicted is not None and not predicted.size and not actual.size:
        return True  # no window at all: np.array([]) of a list of no rows is as empty as the model's grid
    if predicted is None or actual.shape != predicted.shape:
        return False
    with np.errstate(all="ignore"):
        actual = actual.astype(np.float64)
        scale = float(np.max(np.abs(predicted)))
        return bool(np.all(np.abs(actual - predicted) <= MATCH * max(scale, 1e-300)))
