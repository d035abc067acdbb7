"""The models of the channels-last exercise: small functions that each rearrange the weight's values the way one
catalogued mistake does (``MODELS``), and every other reshape-then-transpose order of the columns (``ORDER_MODELS``).
Kept apart from the fitting that reads them, since this list is what grows when a new mistake is catalogued."""
from __future__ import annotations

import itertools

import numpy as np

AXES = "CHW"
NAMES = {"C": "channel", "H": "row", "W": "column"}


def _dims(C, H, W) -> dict[str, int]:
    return {"C": int(C), "H": int(H), "W": int(W)}


def reorder(weight, C, H, W, read: str, write: str) -> np.ndarray:
    """Columns reshaped as the axes ``read`` (sizes taken from C, H, W by name), then written in ``write`` order."""
    dims = _dims(C, H, W)
    out = weight.shape[0]
    cube = weight.reshape(out, *(dims[a] for a in read))
    return cube.transpose(0, *(1 + read.index(a) for a in write)).reshape(out, -1)


def reference(weight, C, H, W) -> np.ndarray:
    return reorder(weight, C, H, W, "CHW", "HWC")


def permutation(C, H, W) -> np.ndarray:
    """perm[k]: the channels-first column that channels-last column k comes from."""
    return np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).ravel()


def keras_rows(weight, C, H, W) -> np.ndarray:
    """Code written for a Keras kernel (in, out): it reorders axis 0 of a PyTorch (out, in) weight."""
    out = weight.shape[0]
    return weight.reshape(C, H, W, out).transpose(1, 2, 0, 3).reshape(H * W * C, out)


#: (id, label, function); the order is the order of preference when several models fit
MODELS: list[tuple[str, str, object]] = [
    ("reshape-only", "the weight reshaped with no transpose, every value where it was", lambda w, C, H, W: w.reshape(w.shape[0], -1).copy()),
    ("transposed-result", "the right weight, transposed", lambda w, C, H, W: reference(w, C, H, W).T),
    ("inverse-permutation", "the weight converted from channels-last to channels-first",
     lambda w, C, H, W: reorder(w, C, H, W, "HWC", "CHW")),
    ("rows-permuted", "the weight with the channels-last permutation applied to its rows (`weight[perm]`)",
     lambda w, C, H, W: w[permutation(C, H, W)]),
    ("rows-permuted", "the weight with the inverse permutation applied to its rows",
     lambda w, C, H, W: w[np.argsort(permutation(C, H, W))]),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, shape (H*W*C, out)", keras_rows),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, then reshaped to (out, H*W*C)",
     lambda w, C, H, W: keras_rows(w, C, H, W).reshape(w.shape[0], -1)),
    ("rows-permuted", "the weight reordered as a Keras (in, out) kernel, then transposed",
     lambda w, C, H, W: keras_rows(w, C, H, W).T),
    ("rows-mixed", "the right weight transposed to (H*W*C, out), then reshaped to (out, H*W*C) where it had to be "
     "transposed back", lambda w, C, H, W: reference(w, C, H, W).T.reshape(w.shape[0], -1)),
    ("rows-mixed", "the weight reshaped to (out, C, H, W), transposed without axes (which reverses all four, so the "
     "outputs come last), then reshaped to (out, H*W*C)",
     lambda w, C, H, W: w.reshape(w.shape[0], C, H, W).T.reshape(w.shape[0], -1)),
    ("precision-loss", "the right weight with every value rounded to float32",
     lambda w, C, H, W: reference(w, C, H, W).astype(np.float32).astype(np.float64)),
]


def _order_models() -> list[tuple[str, str, object, str, str]]:
    """Every reshape-then-transpose order, the right reading of the columns first. An order that moves the columns
    exactly as the reference, the identity or the inverse does (reading (C, W, H) and writing (W, H, C) is the
    reference: H and W keep their relative order), or as an order listed before it, is left out: they are told apart
    on sizes where C, H and W all differ."""
    found, seen = [], set()
    sizes = [(2, 3, 4), (3, 4, 2), (4, 2, 3)]

    def signature(read, write):
        return tuple(reorder(np.arange(C * H * W, dtype=np.float64)[None], C, H, W, read, write).tobytes()
                     for C, H, W in sizes)

    seen.update(signature(r, w) for r, w in (("CHW", "CHW"), ("CHW", "HWC"), ("HWC", "CHW")))
    reads = ["CHW"] + [a for a in map("".join, itertools.permutations(AXES)) if a != "CHW"]
    for read in reads:
        for write in map("".join, itertools.permutations(AXES)):
            key = signature(read, write)
            if key in seen:
                continue
            seen.add(key)
            label = (f"the weight with its columns written in ({', '.join(write)}) order" if read == "CHW" else
                     f"the weight with its columns read as if laid out ({', '.join(read)}) and written in "
                     f"({', '.join(write)}) order")
            found.append(("axis-order", label, lambda w, C, H, W, r=read, o=write: reorder(w, C, H, W, r, o),
                          read, write))
    return found


ORDER_MODELS = _order_models()
ALL_MODELS = [(i, label, fn) for i, label, fn in MODELS] + [(i, label, fn) for i, label, fn, _, _ in ORDER_MODELS]
