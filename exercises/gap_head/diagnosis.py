"""Misconception diagnosis for the global-average-pooling head.

The function returns two arrays, and a mistake usually touches one of them: a sum where a mean belongs changes
the logits, a bias left out or a (K, h, w) layout changes the class map. So each output has its own list of models
(small functions that make one catalogued mistake each), and a pair of models, one per output, is named when it
reproduces what the student's function did on every small case: each output it returned (within the tolerance),
and an error wherever the function raised (one model of the pair raises there too). The reference counts as a
model of each output, so a pair may name a mistake in one output and nothing in the other.

Structural findings come first: a function that returns one array, a dict or three values instead of the pair
(``not-a-pair``), and one that returns the pair in the other order (``outputs-swapped``, read by fitting the
models to the swapped outputs).

The probes are three small maps whose sizes make the usual axis mistakes run instead of raise: a cube
(h = w = C = K = 3), where channels can be taken for positions, V read as (C, K), and a (K, h, w) class map has
the right shape; a 2 x 2 x 4 map (h * w = C), where a per-position channel mean flattens to C values; and a map
whose sizes all differ, where they raise.
"""
from __future__ import annotations

import numpy as np

from grader.authoring import PROBE, Case, Finding

from .rescaled import rescaled_logits

#: the largest case a model is evaluated on (inputs' total size); GoogLeNet's case (1.1 million) still is
SMALL = 4_000_000


# -- probes ------------------------------------------------------------------------------------------------------
def _probe(name: str, h: int, w: int, C: int, K: int, note: str) -> Case:
    """Dyadic values (exact in float64), no symmetry between axes, a bias of both signs and never 0."""
    n = h * w * C
    fmap = (((np.arange(n) * 7) % 11) + 1).reshape(h, w, C) / 4.0
    V = ((((np.arange(K * C) * 5) % 9) - 4) / 8.0).reshape(K, C)
    c = np.array([(-1.0) ** k * (0.25 + 0.5 * k) for k in range(K)])
    return Case(name=name, group=PROBE, args=(fmap, V, c), description=f"map {h}x{w}x{C}, K={K}{note}")


def probe_cases() -> list[Case]:
    return [
        _probe("cube", 3, 3, 3, 3, ", every size 3"),
        _probe("four-positions", 2, 2, 4, 3, ", as many positions as channels"),
        _probe("distinct", 2, 3, 4, 5, ", every size different"),
    ]


PROBE_NAMES = frozenset(c.name for c in probe_cases())


# -- models ---------------------------------------------------------------------------------------------------------
def _p(F):
    return F.mean(axis=(0, 1))


def _positions(F) -> int:
    return F.shape[0] * F.shape[1]


#: the class map of the arguments the table is evaluating, computed once for the models that start from it
_LAST_MAP: list = []


def _map(F, V, c):
    if _LAST_MAP and all(a is b for a, b in zip(_LAST_MAP[0], (F, V, c))):
        return _LAST_MAP[1]
    value = F @ V.T + c
    _LAST_MAP[:] = [(F, V, c), value]
    return value


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sigmoid(z):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-z))


def _unit_rows(V):
    """V with each row divided by its length (a row of zeros stays zeros)."""
    norm = np.linalg.norm(V, axis=1, keepdims=True)
    return V / np.where(norm > 0, norm, 1.0)


def _channels_first(F):
    """The channels-last map's numbers read as a (C, h*w) array, as ``x.view(C, -1)`` reads a PyTorch map."""
    return F.reshape(F.shape[2], -1)


def _square_loop(cmap, side: int):
    """``cmap`` as a loop over ``range(side)`` along both axes writes it into zeros: its columns from ``side`` on
    stay 0, and a map with fewer columns raises as the loop indexes past them."""
    if cmap.shape[1] < side:
        raise IndexError("index out of bounds")
    out = cmap.copy()
    out[:, side:] = 0.0
    return out


REF_LOGITS = ("", "", lambda F, V, c: V @ _p(F) + c)
REF_MAP = ("", "", _map)

#: (id, what the student's output is, function); the order is the order of preference
LOGITS = [
    REF_LOGITS,
    ("sum-pooling", "computed from the positions summed instead of averaged, with the bias added once",
     lambda F, V, c: V @ F.sum(axis=(0, 1)) + c),
    ("sum-pooling", "computed from the positions summed instead of averaged and without the bias, exactly Zhou et al.'s formula",
     lambda F, V, c: V @ F.sum(axis=(0, 1))),
    ("sum-pooling", "the sum of the class map over the positions, which counts the bias h*w times as well",
     lambda F, V, c: V @ F.sum(axis=(0, 1)) + _positions(F) * c),
    ("max-pooling", "computed from the maximum over the positions instead of their mean", lambda F, V, c: V @ F.max(axis=(0, 1)) + c),
    ("max-pooling", "the maximum of the class map over the positions instead of its mean",
     lambda F, V, c: _map(F, V, c).max(axis=(0, 1))),
    ("max-pooling", "computed from the maximum over the rows (axis 0) then the mean of those maxima over the columns, "
     "fmap.max(axis=0).mean(axis=0), instead of the mean over every position",
     lambda F, V, c: V @ F.max(axis=0).mean(axis=0) + c),
    ("max-pooling", "computed from the maximum over the columns (axis 1) then the mean of those maxima over the "
     "rows, fmap.max(axis=1).mean(axis=0), instead of the mean over every position",
     lambda F, V, c: V @ F.max(axis=1).mean(axis=0) + c),
    ("median-pooling", "computed from the median over the positions (np.median) instead of their mean",
     lambda F, V, c: V @ np.median(F, axis=(0, 1)) + c),
    ("median-pooling", "the median of the class map over the positions instead of its mean",
     lambda F, V, c: np.median(_map(F, V, c), axis=(0, 1))),
    ("centre-position", "the scores of the single position at the centre of the map, [h // 2, w // 2], instead of "
     "the mean over all positions", lambda F, V, c: _map(F, V, c)[F.shape[0] // 2, F.shape[1] // 2]),
    ("centre-position", "the scores of the single position in the last row and column, [-1, -1], instead of the "
     "mean over all positions", lambda F, V, c: _map(F, V, c)[-1, -1]),
    ("centre-position", "the scores of the single position in the first row and column, [0, 0], instead of the "
     "mean over all positions", lambda F, V, c: _map(F, V, c)[0, 0]),
    ("wrong-divisor", "computed from the positions summed and divided by h*w*C, the size of the whole map, instead of h*w",
     lambda F, V, c: V @ (F.sum(axis=(0, 1)) / F.size) + c),
    ("wrong-divisor", "computed from the positions summed and divided by C, the number of channels, instead of h*w",
     lambda F, V, c: V @ (F.sum(axis=(0, 1)) / F.shape[2]) + c),
    ("wrong-divisor", "computed from the positions summed and divided by h, the number of rows, instead of h*w",
     lambda F, V, c: V @ (F.sum(axis=(0, 1)) / F.shape[0]) + c),
    ("wrong-divisor", "computed from the positions summed and divided by w, the number of columns, instead of h*w",
     lambda F, V, c: V @ (F.sum(axis=(0, 1)) / F.shape[1]) + c),
    ("wrong-divisor", "computed from the positions summed and divided by 49, a fixed count (GoogLeNet's 7 x 7 map), "
     "instead of this map's h*w", lambda F, V, c: V @ (F.sum(axis=(0, 1)) / 49.0) + c),
    ("bias-count", "computed without the bias", lambda F, V, c: V @ _p(F)),
    ("bias-count", "computed with the bias added twice", lambda F, V, c: V @ _p(F) + 2 * c),
    ("bias-count", "computed with the bias added h*w times", lambda F, V, c: V @ _p(F) + _positions(F) * c),
    ("channel-mean", "computed from an average over axes 1 and 2 (the columns and the channels), as if the map were (C, h, w)",
     lambda F, V, c: V @ F.mean(axis=(1, 2)) + c),
    ("channel-mean", "computed from an average over the channels at each position, flattened",
     lambda F, V, c: V @ F.mean(axis=2).ravel() + c),
    ("channel-mean", "computed from an average over axes 0 and 2 (the rows and the channels)",
     lambda F, V, c: V @ F.mean(axis=(0, 2)) + c),
    ("transposed-weights", "computed with V used as if it were (C, K)", lambda F, V, c: _p(F) @ V + c),
    ("transposed-weights", "computed with V reshaped to (C, K), which keeps its values in their stored order, "
     "where it had to be transposed", lambda F, V, c: _p(F) @ V.reshape(V.shape[1], V.shape[0]) + c),
    ("channels-first-reshape", "computed from the map reshaped to (C, h*w) as if it were channels first, each "
     "'channel' then averaged", lambda F, V, c: V @ _channels_first(F).mean(axis=1) + c),
    ("partial-pooling", "computed from the map averaged over the rows (axis 0) only, one score vector per column",
     lambda F, V, c: F.mean(axis=0) @ V.T + c),
    ("partial-pooling", "computed from the map averaged over the columns (axis 1) only, one score vector per row",
     lambda F, V, c: F.mean(axis=1) @ V.T + c),
    ("partial-pooling", "computed from the map averaged over the rows (axis 0) only and then the first column's "
     "vector alone ([0]), the other columns left out", lambda F, V, c: V @ F.mean(axis=0)[0] + c),
    ("partial-pooling", "computed from the map averaged over the columns (axis 1) only and then the first row's "
     "vector alone ([0]), the other rows left out", lambda F, V, c: V @ F.mean(axis=1)[0] + c),
    ("channel-mean", "computed from an average over the channels (axis 2), one value per position, multiplied by V",
     lambda F, V, c: V @ F.mean(axis=2) + c),
    ("partial-pooling", "computed from every other row and column only, fmap[::2, ::2], instead of every position",
     lambda F, V, c: V @ F[::2, ::2].mean(axis=(0, 1)) + c),
    ("partial-pooling", "computed from every other row only, fmap[::2], instead of every position",
     lambda F, V, c: V @ F[::2].mean(axis=(0, 1)) + c),
    ("partial-pooling", "computed from every other column only, fmap[:, ::2], instead of every position",
     lambda F, V, c: V @ F[:, ::2].mean(axis=(0, 1)) + c),
    ("partial-pooling", "computed from a sum that leaves the last row out (a loop over range(h - 1)), divided by h*w",
     lambda F, V, c: V @ (F[:-1].sum(axis=(0, 1)) / _positions(F)) + c),
    ("partial-pooling", "computed from a sum that leaves the last column out (a loop over range(w - 1)), divided by "
     "h*w", lambda F, V, c: V @ (F[:, :-1].sum(axis=(0, 1)) / _positions(F)) + c),
    ("channel-mean", "the class map averaged over its classes (axis -1), one number per position, instead of over "
     "its positions (axes 0 and 1)", lambda F, V, c: _map(F, V, c).mean(axis=-1)),
    ("channel-mean", "computed from the mean over every axis, channels included (fmap.mean() with no axis), one "
     "number given to every channel", lambda F, V, c: V @ np.full(F.shape[2], F.mean()) + c),
    ("floor-division", "computed from the positions' sum floor-divided by h*w, fmap.sum(axis=(0, 1)) // (h*w), which "
     "drops each channel's fraction", lambda F, V, c: V @ (F.sum(axis=(0, 1)) // _positions(F)) + c),
    ("bias-one-value", "computed with one number, the sum of c, added to every logit instead of c[k] to logit k",
     lambda F, V, c: V @ _p(F) + c.sum()),
    ("bias-one-value", "computed with one number, c[0], added to every logit instead of c[k] to logit k",
     lambda F, V, c: V @ _p(F) + c[0]),
    ("weight-normalised", "computed with each row of V scaled to unit length, V / np.linalg.norm(V, axis=1, "
     "keepdims=True)", lambda F, V, c: _unit_rows(V) @ _p(F) + c),
    ("activation-applied", "turned into probabilities by a softmax", lambda F, V, c: _softmax(V @ _p(F) + c)),
    ("activation-applied", "passed through a sigmoid", lambda F, V, c: _sigmoid(V @ _p(F) + c)),
    ("activation-applied", "passed through a ReLU, every negative score set to 0",
     lambda F, V, c: np.maximum(V @ _p(F) + c, 0.0)),
    ("activation-applied", "the mean over the positions of a softmax over the classes at each position, averaged "
     "probabilities", lambda F, V, c: _softmax(_map(F, V, c), axis=-1).mean(axis=(0, 1))),
]
MAPS = [
    REF_MAP,
    ("bias-count", "computed without the bias", lambda F, V, c: F @ V.T),
    ("bias-count", "computed with the bias added h*w times", lambda F, V, c: F @ V.T + _positions(F) * c),
    ("bias-count", "computed with the bias divided by h*w", lambda F, V, c: F @ V.T + c / _positions(F)),
    ("sum-pooling", "divided by h*w, so that its sum rather than its mean gives the logits",
     lambda F, V, c: _map(F, V, c) / _positions(F)),
    ("sum-pooling", "the products divided by h*w before the bias is added, each position's share of a summed "
     "logit, so that the map no longer averages to the logits", lambda F, V, c: F @ V.T / _positions(F) + c),
    ("weight-normalised", "computed with each row of V scaled to unit length, V / np.linalg.norm(V, axis=1, "
     "keepdims=True)", lambda F, V, c: F @ _unit_rows(V).T + c),
    ("class-map-layout", "laid out (K, h, w)", lambda F, V, c: np.moveaxis(_map(F, V, c), -1, 0)),
    ("class-map-layout", "laid out (h*w, K), the positions flattened",
     lambda F, V, c: _map(F, V, c).reshape(_positions(F), -1)),
    ("class-map-layout", "laid out (K, h*w)", lambda F, V, c: _map(F, V, c).reshape(_positions(F), -1).T),
    ("class-map-layout", "computed as a (K, h*w) array and reshaped to (h, w, K), which keeps the numbers in their "
     "(K, h*w) order instead of moving the classes to the last axis",
     lambda F, V, c: _map(F, V, c).reshape(_positions(F), -1).T.reshape(F.shape[0], F.shape[1], -1)),
    ("class-map-layout", "laid out (w, h, K), rows and columns swapped",
     lambda F, V, c: _map(F, V, c).transpose(1, 0, 2)),
    ("class-map-layout", "the (h*w, K) scores reshaped to (h, w, K) in Fortran order (order='F'), which fills each "
     "class's map column by column from scores listed row by row",
     lambda F, V, c: _map(F, V, c).reshape(_positions(F), -1).reshape(_map(F, V, c).shape, order="F")),
    ("bias-channels-first", "computed with the bias reshaped to (K, 1, 1), c[:, None, None], as for a (K, h, w) "
     "map, so numpy lines it up with the rows of the (h, w, K) map (and refuses most shapes)",
     lambda F, V, c: F @ V.T + c[:, None, None]),
    ("mutates-input", "computed with c after the logits were added into it in place (logits = c, then "
     "logits += ...), so every position carries the logits where c belongs: copy c first (c + ...)",
     lambda F, V, c: F @ V.T + (V @ _p(F) + c)),
    ("transposed-weights", "computed with V used as if it were (C, K)", lambda F, V, c: F @ V + c),
    ("transposed-weights", "computed with V reshaped to (C, K), which keeps its values in their stored order, "
     "where it had to be transposed", lambda F, V, c: F @ V.reshape(V.shape[1], V.shape[0]) + c),
    ("channels-first-reshape", "computed on the map reshaped to (C, h*w) as if it were channels first",
     lambda F, V, c: (_channels_first(F).T @ V.T + c).reshape(F.shape[0], F.shape[1], -1)),
    ("activation-applied", "turned into probabilities by a softmax over the classes at each position",
     lambda F, V, c: _softmax(_map(F, V, c), axis=-1)),
    ("activation-applied", "turned into a softmax over the positions, one distribution per class",
     lambda F, V, c: _softmax(_map(F, V, c).reshape(_positions(F), -1), axis=0).reshape(_map(F, V, c).shape)),
    ("activation-applied", "passed through a sigmoid", lambda F, V, c: _sigmoid(_map(F, V, c))),
    ("activation-applied", "passed through a ReLU, every negative score set to 0, as Grad-CAM does for display",
     lambda F, V, c: np.maximum(_map(F, V, c), 0.0)),
    ("square-map-assumed", "filled by a loop over range(h) for the columns as well as the rows, as if w were h: its "
     "columns from h on are left at 0 (and a map narrower than tall raises IndexError)",
     lambda F, V, c: _square_loop(_map(F, V, c), F.shape[0])),
    ("square-map-assumed", "filled by a loop over range(w) for the rows as well as the columns, as if h were w: its "
     "rows from w on are left at 0 (and a map wider than tall raises IndexError)",
     lambda F, V, c: _square_loop(_map(F, V, c).transpose(1, 0, 2), F.shape[1]).transpose(1, 0, 2)),
    ("not-a-pair", "the logits again, shape (K,), instead of a class map", lambda F, V, c: V @ _p(F) + c),
    ("class-map-constant", "the logits repeated at every position, the same K scores everywhere, instead of the "
     "layer applied to each position's own channels", lambda F, V, c: np.broadcast_to(V @ _p(F) + c, _map(F, V, c).shape)),
    ("normalised-map", "computed on the map centred, fmap minus its channel means (fmap.mean(axis=(0, 1), keepdims="
     "True)), so it averages to c instead of to the logits", lambda F, V, c: (F - _p(F)) @ V.T + c),
    ("normalised-map", "centred: each class's scores minus their mean over the positions, so the map averages to "
     "0 instead of to the logits", lambda F, V, c: _map(F, V, c) - _map(F, V, c).mean(axis=(0, 1))),
    ("normalised-map", "shifted: each class's scores minus their minimum over the positions, so every class's "
     "map starts at 0 and no longer averages to the logits", lambda F, V, c: _map(F, V, c) - _map(F, V, c).min(axis=(0, 1))),
]


def _evaluate(fn, case: Case):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*case.args), dtype=np.float64)
    except Exception:  # noqa: BLE001 - a model that raises on this case, as the student's may
        return None


def _close(actual: np.ndarray, expected: np.ndarray, rtol: float) -> bool:
    if actual.shape != expected.shape:
        return False
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        return bool(np.all(np.abs(actual.astype(np.float64) - expected) <= rtol * (scale + np.abs(expected))))


def _part(run, index: int, swapped: bool = False) -> np.ndarray | None:
    """The student's output ``index`` (the other one when ``swapped``) as a numeric array, or None."""
    out = run.outcome
    if out.status != "ok":
        return None
    index = 1 - index if swapped else index
    parts = out.parts
    if parts:
        if index >= len(parts):
            return None
        array = parts[index].array
    else:
        array = out.array if index == 0 else None
    return array if array is not None and array.dtype.kind in "fiu" else None


def _small(run) -> bool:
    return sum(a.size for a in run.case.args if isinstance(a, np.ndarray)) <= SMALL


# -- fitting ------------------------------------------------------------------------------------------------------
class _Table:
    """Every model's output on every small run, computed once."""

    def __init__(self, runs) -> None:
        self.runs = runs
        columns = [[_evaluate(fn, r.case) for _, _, fn in LOGITS + MAPS] for r in runs]  # one run at a time
        _LAST_MAP.clear()
        models = [(o, m) for o, group in enumerate((LOGITS, MAPS)) for m in range(len(group))]
        self.values = {key: [column[k] for column in columns] for k, key in enumerate(models)}

    def candidates(self, output: int, rtol: float, swapped: bool) -> list[int] | None:
        """Models of ``output`` that reproduce it wherever the student returned it; None: it never came back."""
        models = (LOGITS, MAPS)[output]
        seen = [(i, a) for i, r in enumerate(self.runs) if (a := _part(r, output, swapped)) is not None]
        if not seen:
            return None
        return [m for m in range(len(models))
                if all((v := self.values[(output, m)][i]) is not None and _close(a, v, rtol) for i, a in seen)]

    def raises(self, output: int, model: int, index: int) -> bool:
        return self.values[(output, model)][index] is None


def _fit(table: _Table, rtol: float, swapped: bool = False) -> tuple[int | None, int | None] | None:
    """The preferred pair (logits model, map model) that explains every run, None for an output that never came
    back or that no model explains; None overall when nothing is explained."""
    raised = [i for i, r in enumerate(table.runs) if r.outcome.status == "raised"]
    logits, maps = table.candidates(0, rtol, swapped), table.candidates(1, rtol, swapped)
    if not logits and not maps:
        return None
    pairs = [(lm, mm) for lm in (logits or [None]) for mm in (maps or [None])]
    for lm, mm in sorted(pairs, key=lambda p: ((p[0] or 0) > 0) + ((p[1] or 0) > 0)):
        unknown = lm is None or mm is None  # an unexplained output may be what raised
        if unknown or all(table.raises(0, lm, i) or table.raises(1, mm, i) for i in raised):
            return lm, mm
    return None


# -- evidence --------------------------------------------------------------------------------------------------------
def _fmt(values: np.ndarray, count: int = 5) -> str:
    flat = np.asarray(values, dtype=np.float64).ravel()
    shown = ", ".join(f"{v:.4g}" for v in flat[:count])
    return f"[{shown}{', ...' if flat.size > count else ''}]"


def _example(table: _Table, output: int, model: int, swapped: bool) -> str:
    """The model's departure shown on a probe: what the student returned against what the statement gives."""
    for i, run in enumerate(table.runs):
        if run.case.group != PROBE:
            continue
        mine = _part(run, output, swapped)
        right = run.expected[output]
        if mine is None or (mine.shape == right.shape and _close(mine, right, 1e-9)):
            continue
        label = f"On probe '{run.case.name}' ({run.case.description})"
        if output == 0:
            if mine.shape != right.shape:
                return f" {label}, your logits have shape {mine.shape} instead of {right.shape}."
            return f" {label}, your logits are {_fmt(mine)} where the statement's are {_fmt(right)}."
        if mine.shape != right.shape:
            return f" {label}, your class map has shape {mine.shape} instead of {right.shape}."
        off = np.argwhere(np.abs(mine - right).max(axis=-1) > 1e-9 * (float(np.abs(right).max()) + 1.0))
        i, j = (int(off[0][0]), int(off[0][1])) if len(off) else (0, 0)  # the first position that differs
        return (f" {label}, your class map at position ({i}, {j}) is {_fmt(mine[i, j])} where the statement's is "
                f"{_fmt(right[i, j])}.")
    return ""


def _mean_note(table: _Table, swapped: bool) -> str:
    """Whether the student's class map still averages to the student's logits, on the first probe with both."""
    for run in table.runs:
        if run.case.group != PROBE:
            continue
        logits, cmap = _part(run, 0, swapped), _part(run, 1, swapped)
        if logits is None or cmap is None or cmap.ndim != 3 or cmap.shape[-1] != logits.shape[-1]:
            continue
        gap = np.abs(cmap.mean(axis=(0, 1)) - logits)
        if float(gap.max()) > 1e-9 * (float(np.abs(logits).max()) + 1.0):
            return (f" Your class map's mean over positions no longer equals your logits (on probe "
                    f"'{run.case.name}' they differ by up to {float(gap.max()):.3g}).")
        return ""
    return ""


# -- structural findings ------------------------------------------------------------------------------------------
def _not_a_pair(runs) -> Finding | None:
    for run in sorted(runs, key=lambda r: r.case.group != PROBE):  # a probe first: its sizes are public
        out = run.outcome
        if out.status != "ok" or out.type_name == "NoneType":
            continue
        if out.count != 2 or (out.parts and any(p.type_name == "nothing" for p in out.parts)):
            shaped = out.shape is not None and (out.exact_ndarray or out.subclass)  # a dict or a generator reads
            # as a 0-d array of one object: "one dict of shape ()" told the student of a shape their value has not
            what = (f"one {out.type_name}" + (f" of shape {tuple(out.shape)}" if shaped else "")
                    if out.count == 1 else f"{out.count} values")
            where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
                     else f"on the '{run.case.name}' case")
            return Finding("not-a-pair", f"Your function returned {what} {where}, where the tuple "
                                         "(logits, class_map) was expected.")
    return None


def _affine_map(table: _Table, swapped: bool) -> Finding | None:
    """No model explains the class map, but on every case it is the right one with each class's scores multiplied
    by a number and shifted by another: rescaled for display (to [0, 1], by its maximum...), or shifted by a
    constant per class, a bias counted wrong. Maps of a single position say nothing (any two numbers are affine)."""
    fitted = []
    for run in table.runs:
        mine, right = _part(run, 1, swapped), run.expected[1]
        if mine is None:
            continue
        if mine.shape != right.shape:
            return None
        if right.shape[0] * right.shape[1] < 2 or not np.all(np.isfinite(mine)):
            continue
        x, y = right.reshape(-1, right.shape[-1]), mine.reshape(-1, mine.shape[-1]).astype(np.float64)
        dx, dy = x - x.mean(axis=0), y - y.mean(axis=0)
        spread = (dx ** 2).sum(axis=0)
        if np.any(spread <= 1e-24 * (np.abs(x).max(axis=0) ** 2 + 1e-300)):
            return None  # a class whose right scores are the same everywhere: any shift fits it
        scale = (dx * dy).sum(axis=0) / spread  # least squares, one line per class
        if np.any(scale <= 1e-6):
            return None  # flat or upside down (the logits copied to every position, a negated map): no rescaling
        shift = y.mean(axis=0) - scale * x.mean(axis=0)
        error = np.abs(y - (scale * x + shift)).max(axis=0)
        if not np.all(error <= 1e-9 * (np.abs(y).max(axis=0) + np.abs(shift) + 1e-300)):
            return None  # float32 arithmetic or rounding: not an exact line
        fitted.append((run, scale, shift, y))
    # a departure far above rounding somewhere (float32 arithmetic would fit a line with a slope of 1 + 1e-8)
    if not any(np.abs(a - 1.0).max() > 1e-6 or np.abs(b).max() > 1e-6 * (1.0 + float(np.abs(r.expected[1]).max()))
               for r, a, b, _ in fitted):
        return None
    run, scale, shift, mine = next(((r, a, b, y) for r, a, b, y in fitted if r.case.group == PROBE), fitted[0])
    where = (f"on probe '{run.case.name}' ({run.case.description})" if run.case.group == PROBE
             else "on a graded case")
    if all(np.allclose(a, 1.0, rtol=0, atol=1e-6) for _, a, _, _ in fitted):
        text = (f"Your class map is, on every case, the right one shifted by a constant for each class: {where}, "
                f"class 0's scores are off by {shift[0]:.4g}")
        c = run.case.args[2]
        if run.case.group == PROBE and np.all(c != 0):
            times = shift / c
            if np.allclose(times, np.round(times[0]), rtol=0, atol=1e-6) and round(times[0]) != 0:
                text += f", the bias c counted {1 + int(round(times[0]))} times instead of once"
        return Finding("bias-count", text + ".")
    text = (f"Your class map is, on every case, the right one rescaled: each class's scores multiplied by a number "
            f"and shifted by another; {where}, class 0's by {scale[0]:.4g} and {shift[0]:.4g}")
    lows, highs = mine.min(axis=0), mine.max(axis=0)
    if np.allclose(lows, 0.0, atol=1e-6) and np.allclose(highs, 1.0, atol=1e-6):
        text += ", so that every class's map runs from 0 to 1, as a heat map is normalised for display"
    return Finding("normalised-map", text + ".")


# -- the diagnosis ----------------------------------------------------------------------------------------------------
def diagnose(runs, exercise) -> list[Finding]:
    rtol = max(exercise.tolerance.rtol, exercise.tolerance.atol_scale)
    small = [r for r in runs if _small(r)]
    findings: list[Finding] = []
    graded = [r for r in runs if r.case.group != PROBE]
    if graded and all(r.outcome.status == "ok" and r.outcome.type_name == "NoneType" for r in graded):
        # the grader splits a None into one part per output ("NoneType", then "nothing"), which its own check
        # for the untouched starter does not recognise: name it here
        return [Finding("not-implemented", "The function returned None on every case.")]
    pair = _not_a_pair(small)
    if pair is not None:
        findings.append(pair)
    table = _Table(small)
    fit, swapped = _fit(table, rtol), False
    if fit is None or None in fit:
        again = _fit(table, rtol, swapped=True)
        if again is not None and None not in again:
            fit, swapped = again, True
            findings.append(Finding("outputs-swapped", "Your function returns the class map first and the logits "
                                                       "second: read the other way round, both outputs "
                                                       + ("are right." if again == (0, 0) else
                                                          "match what the findings below describe.")))
    if fit is None or fit[1] is None:
        rescaled = _affine_map(table, swapped)
        if rescaled is not None:
            findings.append(rescaled)
    if fit is None or fit[0] is None:
        findings.extend(rescaled_logits(table.runs, lambda run: _part(run, 0, swapped)))
    if fit is None:
        return findings
    grouped: dict[str, list[str]] = {}
    for output, model in enumerate(fit):
        if not model:
            continue  # the reference (0), or nothing explained (None)
        finding_id, what, _ = (LOGITS, MAPS)[output][model]
        text = f"Your logits are, on every case, {what}." if output == 0 else f"Your class map is, on every case, {what}."
        grouped.setdefault(finding_id, []).append(text + _example(table, output, model, swapped))
    note = _mean_note(table, swapped)
    for finding_id, texts in grouped.items():
        text = " ".join(texts)
        if finding_id in ("bias-count", "sum-pooling") and note:
            text += note
        findings.append(Finding(finding_id, text))
    return findings
