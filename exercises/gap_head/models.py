"""The models of the global-average-pooling head: small functions that each make one catalogued mistake in one
of its two outputs, the logits (``LOGITS``) or the class map (``MAPS``), with the sentence that names it. Kept
apart from the fitting that reads them, since this list is what grows when a new mistake is catalogued."""
from __future__ import annotations

import numpy as np


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


def _log_softmax(z):
    """log(softmax(z)) as one step, the way scipy.special.log_softmax and a cross-entropy loss compute it."""
    shifted = z - z.max()
    return shifted - np.log(np.exp(shifted).sum())


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
    ("activation-applied", "turned into log-probabilities by a log-softmax, the logits minus the log of the sum of "
     "their exponentials", lambda F, V, c: _log_softmax(V @ _p(F) + c)),
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
    ("class-map-layout", "laid out (K, w, h), the whole (h, w, K) map transposed with .T, which reverses all three "
     "axes", lambda F, V, c: _map(F, V, c).T),
    ("class-map-layout", "upside down: its rows in reverse order (cam[::-1]), the first row of the map last",
     lambda F, V, c: _map(F, V, c)[::-1]),
    ("class-map-layout", "mirrored: its columns in reverse order (cam[:, ::-1]), the first column of the map last",
     lambda F, V, c: _map(F, V, c)[:, ::-1]),
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
    ("normalised-map", "divided at each position by the length of that position's K scores (np.linalg.norm over the "
     "classes), so every position's scores have length 1 and the map no longer averages to the logits",
     lambda F, V, c: _map(F, V, c) / np.linalg.norm(_map(F, V, c), axis=-1, keepdims=True)),
]

