"""A parameterised model of the VGG head and of the ways students get it wrong (used by ``diagnosis.py``).

A ``Spec`` names one variant of the computation: the flatten order (within a sample, or one that mixes samples),
which weights are read transposed, which biases are added, the activation of each hidden layer, ReLU before the
bias, a bias used in the wrong place (added to a layer's input before the product, or taken as the floor of the
maximum in place of 0), a constant scale on the hidden activations, an activation on the logits and the sequence of
layers; and, tried only in a last search, a layer's input added to its output (a skip connection), one value of a
bias added to every unit and a ReLU on a weight matrix.
``REFERENCE`` is the exercise itself. Activations and final functions are named by strings, defined in
``activations.py`` (the hidden layers') and ``finals.py`` (what follows FC3).
``Stack`` holds several cases of identical sizes stacked on a leading axis so that one variant is evaluated on
all of them with a handful of batched NumPy calls (tens of microseconds).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .activations import ACTIVATIONS, COMMON, _batch_norm, activation
from .finals import FINALS, _final

# -- flatten orders: the per-sample axis order (of H, W, C) that is read row-major -----------------------------
# A tuple orders the axes (H, W, C) of each sample; a string names a reshape that mixes the samples.
FLATTEN_ORDERS = {
    "HWC": (0, 1, 2),  # the reference: row-major NHWC
    "CWH": (2, 1, 0),  # reshape(..., order="F") (column-major)
    "CHW": (2, 0, 1),  # channels first, like PyTorch's NCHW
    "WHC": (1, 0, 2),  # H and W swapped
    "HCW": (0, 2, 1),
    "WCH": (1, 2, 0),
    "interleave": "interleave",  # features.reshape(-1, B).T: each row takes every B-th value of the whole array
    "batch-last": "batch-last",  # np.moveaxis(features, 0, -1).reshape(B, -1): the batch axis read fastest
    "reversed": "reversed",  # features.T.reshape(B, -1): every axis reversed, batch included
    "batch-rolled": "batch-rolled",  # features[i - 1] for sample i: each row another sample's own features
    "batch-flipped": "batch-flipped",  # features[::-1]: the samples in reverse order
}
MIXING = ("interleave", "batch-last", "reversed")
MOVED = ("batch-rolled", "batch-flipped")  # every row one sample's own, in another row: samples-dropped
FLATTEN_NAMES = {
    "CWH": "in column-major order (reshape with order='F', i.e. axes C, W, H) instead of row-major H, W, C",
    "CHW": "in channels-first order (C, H, W, the PyTorch NCHW layout) instead of H, W, C",
    "WHC": "with H and W swapped (W, H, C order) instead of H, W, C",
    "HCW": "in (H, C, W) order instead of H, W, C",
    "WCH": "in (W, C, H) order instead of H, W, C",
    "interleave": "with a reshape that interleaves the samples (features.reshape(-1, B).T: each row takes every "
                  "B-th value of the whole batch)",
    "batch-last": "with the batch axis moved last before the reshape (np.moveaxis(features, 0, -1).reshape(B, -1)),"
                  " so each row holds values of every sample",
    "reversed": "after reversing every axis, batch included (features.T.reshape(B, -1)), so each row holds values "
                "of every sample",
    "batch-rolled": "with each sample's row taken from the sample before it (features[i - 1] for sample i, "
                    "np.roll(features, 1, axis=0)), so row 1 holds the last sample's",
    "batch-flipped": "with the samples in reverse order (features[::-1]), so row 1 holds the last sample's",
}


def flatten(features: np.ndarray, order: str) -> np.ndarray:
    """One case's features (B, H, W, C) flattened as ``order`` says, shape (B, H*W*C)."""
    b = features.shape[0]
    axes = FLATTEN_ORDERS[order]
    if axes == "interleave":
        return features.reshape(-1, b).T
    if axes == "batch-last":
        return np.moveaxis(features, 0, -1).reshape(b, -1)
    if axes == "reversed":
        return features.T.reshape(b, -1)
    if axes == "batch-rolled":
        return np.roll(features, 1, axis=0).reshape(b, -1)
    if axes == "batch-flipped":
        return features[::-1].reshape(b, -1)
    return features.transpose(0, *(1 + a for a in axes)).reshape(b, -1)


#: the features centred over the batch before FC1 (x - x.mean(axis=0)): fitted from probe 'flatten-order' only, as
#: ``scale:S`` is, and computed by ``Stack`` (it needs each case's real rows), never a neighbour of every search
CENTRED = "centre-batch"
INPUT_ACTS = {"none": lambda x: x, "relu": lambda x: np.maximum(x, 0.0), "abs": np.abs}
INPUT_ACT_NAMES = {"relu": "a ReLU", "abs": "the absolute value, np.abs,"}


def input_function(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """What is done to the flattened features before FC1: a name of ``INPUT_ACTS``, or ``scale:S`` (the features
    multiplied by S, fitted from probe 'flatten-order' where every layer passes them through: x / 255, say)."""
    if name.startswith("scale:"):
        factor = float(name.split(":", 1)[1])
        return lambda x: x * factor
    if name.startswith("clip:"):  # np.clip(features, lo, hi), fitted the same way; "None" for no lower bound
        lo, hi = (None if v == "None" else float(v) for v in name.split(":")[1:])
        return lambda x: np.clip(x, lo, hi)
    return INPUT_ACTS[name]


SCALES = (0.5, 2.0, 0.8, 1.25)

# -- layer sequences: (weight index, bias index, role); role 0/1 = hidden layer FC1/FC2, 2 = output layer ----
SEQUENCES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "ref": ((1, 1, 0), (2, 2, 1), (3, 3, 2)),
    "skip-fc2": ((1, 1, 0), (3, 3, 2)),
    "fc2-twice": ((1, 1, 0), (2, 2, 1), (2, 2, 1), (3, 3, 2)),
    "skip-fc1": ((2, 2, 1), (3, 3, 2)),
    "fc1-twice": ((1, 1, 0), (1, 1, 0), (2, 2, 1), (3, 3, 2)),
    "skip-fc3": ((1, 1, 0), (2, 2, 1)),
    "fc1-only": ((1, 1, 0),),
    "W1-in-fc2": ((1, 1, 0), (1, 2, 1), (3, 3, 2)),
    "W2-in-fc1": ((2, 1, 0), (2, 2, 1), (3, 3, 2)),
    "W2-in-fc3": ((1, 1, 0), (2, 2, 1), (2, 3, 2)),
    "W3-in-fc2": ((1, 1, 0), (3, 2, 1), (3, 3, 2)),
    "W2-W3-swapped": ((1, 1, 0), (3, 2, 1), (2, 3, 2)),
    "b1-b2-swapped": ((1, 2, 0), (2, 1, 1), (3, 3, 2)),
    "b2-b3-swapped": ((1, 1, 0), (2, 3, 1), (3, 2, 2)),
    "W1-W2-swapped": ((2, 1, 0), (1, 2, 1), (3, 3, 2)),
    "b1-in-fc2": ((1, 1, 0), (2, 1, 1), (3, 3, 2)),
    "b2-in-fc1": ((1, 2, 0), (2, 2, 1), (3, 3, 2)),
    "b2-in-fc3": ((1, 1, 0), (2, 2, 1), (3, 2, 2)),
    "b3-in-fc2": ((1, 1, 0), (2, 3, 1), (3, 3, 2)),
    "fc2-fc3-swapped": ((1, 1, 0), (3, 3, 1), (2, 2, 2)),
    "fc1-fc2-swapped": ((2, 2, 0), (1, 1, 1), (3, 3, 2)),
}
SEQUENCE_NAMES = {
    "skip-fc2": "FC2 (W2, b2) is skipped: the output of FC1 goes straight into FC3",
    "fc2-twice": "FC2 is applied twice",
    "skip-fc1": "FC1 (W1, b1) is skipped: the flattened features go straight into FC2",
    "fc1-twice": "FC1 is applied twice",
    "skip-fc3": "FC3 is missing: the output of FC2 (after its ReLU) is returned",
    "fc1-only": "FC2 and FC3 are missing: the output of FC1 (after its ReLU) is returned",
    "W1-in-fc2": "FC2 multiplies by W1 instead of W2",
    "W2-in-fc1": "FC1 multiplies by W2 instead of W1",
    "W2-in-fc3": "FC3 multiplies by W2 instead of W3",
    "W3-in-fc2": "FC2 multiplies by W3 instead of W2",
    "W2-W3-swapped": "W2 and W3 are swapped: FC2 multiplies by W3 and FC3 by W2",
    "b1-b2-swapped": "b1 and b2 are swapped: FC1 adds b2 and FC2 adds b1",
    "b2-b3-swapped": "b2 and b3 are swapped: FC2 adds b3 and FC3 adds b2",
    "W1-W2-swapped": "W1 and W2 are swapped: FC1 multiplies by W2 and FC2 by W1",
    "b1-in-fc2": "FC2 adds b1 instead of b2 (b1 is added in FC1 and again in FC2)",
    "b2-in-fc1": "FC1 adds b2 instead of b1 (b2 is added in FC1 and again in FC2)",
    "b2-in-fc3": "FC3 adds b2 instead of b3 (b2 is added in FC2 and again in FC3)",
    "b3-in-fc2": "FC2 adds b3 instead of b2 (b3 is added in FC2 and again in FC3)",
    "fc2-fc3-swapped": ("FC2 and FC3 are applied in the wrong order: the second layer uses W3 and b3 (with its ReLU) "
                        "and the last uses W2 and b2"),
    "fc1-fc2-swapped": ("FC1 and FC2 are applied in the wrong order: the first layer uses W2 and b2 and the second "
                        "W1 and b1"),
}
#: the stages (stages.py) each sequence changes
SEQUENCE_STAGES = {
    "skip-fc2": ("fc2", "act2"), "fc2-twice": ("fc2", "act2"), "skip-fc1": ("fc1", "act1"), "fc1-twice": ("fc1", "act1"),
    "skip-fc3": ("fc3",), "fc1-only": ("fc2", "act2", "fc3"), "W1-in-fc2": ("fc2",), "W2-in-fc1": ("fc1",),
    "W2-in-fc3": ("fc3",), "W3-in-fc2": ("fc2",),
    "W2-W3-swapped": ("fc2", "fc3"), "b1-b2-swapped": ("fc1", "fc2"), "b2-b3-swapped": ("fc2", "fc3"),
    "W1-W2-swapped": ("fc1", "fc2"), "b1-in-fc2": ("fc2",), "b2-in-fc1": ("fc1",), "b2-in-fc3": ("fc3",),
    "b3-in-fc2": ("fc2",), "fc2-fc3-swapped": ("fc2", "fc3"), "fc1-fc2-swapped": ("fc1", "fc2"),
}
LAYER = ("FC1", "FC2", "FC3")


@dataclass(frozen=True)
class Spec:
    flatten: str = "HWC"
    transposed: tuple[bool, bool, bool] = (False, False, False)  # per weight matrix W1, W2, W3
    bias: tuple[bool, bool, bool] = (True, True, True)  # per bias b1, b2, b3
    act: tuple[str, str] = ("relu", "relu")  # FC1, FC2
    relu_before_bias: tuple[bool, bool] = (False, False)
    scale: tuple[float, float] = (1.0, 1.0)
    final: str = "none"
    sequence: str = "ref"
    input_act: str = "none"  # a function on the flattened features, before FC1: "none", "relu" or "abs"
    bias_input: tuple[bool, bool, bool] = (False, False, False)  # per bias: added to the layer's input, (h + b) W
    bias_floor: tuple[bool, bool] = (False, False)  # per hidden layer: the bias as ReLU's floor, max(h W, b)
    bias_scale: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per bias: subtracted (-1), halved, doubled
    # per weight matrix: the product averaged over the layer's inputs instead of summed, (h[:, :, None] * W).mean(1),
    # the same as h W divided by the fan-in, which differs from case to case (no fixed scale reproduces it)
    averaged: tuple[bool, bool, bool] = (False, False, False)
    # the rarer departures, neighbours only in a last search (``neighbours``' ``rare``): per hidden layer, its input
    # added to its output (a skip connection, ReLU(h1 W2 + b2) + h1); per bias, one of its values (or their sum or
    # mean, ``ONE_VALUE``) added to every unit; per weight matrix, a ReLU applied to the matrix, np.maximum(W, 0)
    residual: tuple[bool, bool] = (False, False)
    bias_one: tuple[str, str, str] = ("", "", "")
    weight_relu: tuple[bool, bool, bool] = (False, False, False)
    # round twelve's, searched the same way: per hidden layer, its input added before the activation,
    # ReLU(h1 W2 + b2 + h1); per weight matrix, its absolute value, np.abs(W); per bias, a ReLU on it,
    # np.maximum(b, 0), or the bias added once per input unit (inside the loop of the sum: b times the fan-in)
    skip_inside: tuple[bool, bool] = (False, False)
    weight_abs: tuple[bool, bool, bool] = (False, False, False)
    bias_relu: tuple[bool, bool, bool] = (False, False, False)
    bias_fanin: tuple[bool, bool, bool] = (False, False, False)


REFERENCE = Spec()


def _masks(n: int):
    for bits in range(1, 2**n):
        yield tuple(bool(bits >> i & 1) for i in range(n))


def _replace(spec: Spec, **changes) -> Spec:
    """``dataclasses.replace`` without its checks: the search builds thousands of these (a tenth of the time)."""
    new = object.__new__(Spec)
    new.__dict__.update(spec.__dict__)
    new.__dict__.update(changes)
    return new


def neighbours(spec: Spec, extra_acts: Sequence[str] = (), extra_finals: Sequence[str] = (),
               averaged: bool = False, rare: bool = False):
    """Every spec that differs from ``spec`` in one field (a multi-layer field may change all its layers).

    ``extra_acts`` and ``extra_finals`` add parameterised functions (``clip:0:6``...) to the fixed ones. A layer
    averaged instead of summed is a neighbour only with ``averaged`` (or once the spec has one), and the rare
    departures (a skip connection, a bias's one value, a ReLU on a weight matrix) only with ``rare`` (or once the
    spec has one): the search tries them only when nothing else explained the outputs, so that they cost every
    other search nothing and never stand in for a commoner mistake."""
    out: list[Spec] = []
    for mask in _masks(3):  # biases left out
        bias = tuple(b and not m for b, m in zip(REFERENCE.bias, mask))
        if bias != spec.bias:
            out.append(_replace(spec, bias=bias))
    for final in (*FINALS, *extra_finals):
        if final != spec.final:
            out.append(_replace(spec, final=final))
    for name in INPUT_ACTS:
        if name != spec.input_act:
            out.append(_replace(spec, input_act=name))
    acts = []
    for name in ACTIVATIONS:  # the rarer activations only on both layers at once, to keep searches short
        acts += [(name, spec.act[1]), (spec.act[0], name), (name, name)] if name in COMMON else [(name, name)]
    for name in extra_acts:  # fitted to what the submission's activations did on a ramp
        acts += [(name, spec.act[1]), (spec.act[0], name), (name, name)]
    for act in dict.fromkeys(acts):
        if act != spec.act:
            out.append(_replace(spec, act=act))
    for order in FLATTEN_ORDERS:
        if order != spec.flatten:
            out.append(_replace(spec, flatten=order))
    for mask in [(False, False, False), *_masks(3)]:
        if mask != spec.transposed:
            out.append(_replace(spec, transposed=mask))
    for mask in [(False, False), *_masks(2)]:
        if mask != spec.relu_before_bias and all(not m or spec.bias[i] for i, m in enumerate(mask)):
            out.append(_replace(spec, relu_before_bias=mask))
        if mask != spec.bias_floor and all(not m or spec.bias[i] for i, m in enumerate(mask)):
            out.append(_replace(spec, bias_floor=mask))
    for mask in [(False, False, False), *_masks(3)]:
        if mask != spec.bias_input and all(not m or spec.bias[i] for i, m in enumerate(mask)):
            out.append(_replace(spec, bias_input=mask))
    for scaled in _bias_scales(spec):
        out.append(_replace(spec, bias_scale=scaled))
    scales = []
    for s in (1.0, *SCALES):
        scales += [(s, spec.scale[1]), (spec.scale[0], s), (s, s)]  # dropout is often left on in one layer only
    for scale in dict.fromkeys(scales):
        if scale != spec.scale and not any(x != 1.0 and spec.bias_scale[j] != 1.0 for j, x in enumerate(scale)):
            out.append(_replace(spec, scale=scale))
    for mask in [(False, False, False), *_masks(3)] if averaged or any(spec.averaged) else ():
        if mask != spec.averaged:
            out.append(_replace(spec, averaged=mask))
    rarely = rare or any(getattr(spec, f) != getattr(REFERENCE, f) for f in RARE_FIELDS) \
        or spec.sequence in RARE_SEQUENCES
    for name in SEQUENCES:
        if name != spec.sequence and (rarely or name not in RARE_SEQUENCES):
            out.append(_replace(spec, sequence=name))
    if rarely:
        out += _rare_neighbours(spec)
    return out


#: one value of a bias added to every unit, as a loop over the units adding ``b[0]`` does: how each is computed
ONE_VALUE = {"first": lambda b: b[..., :1], "last": lambda b: b[..., -1:],
             "sum": lambda b: b.sum(axis=-1, keepdims=True), "mean": lambda b: b.mean(axis=-1, keepdims=True)}


#: layers applied in the wrong order (round eighteen): tried last too, as every neighbour more slowed searches that
#: had to go two steps deep (tanh with dropout's factor no longer found)
RARE_SEQUENCES = ("fc2-fc3-swapped", "fc1-fc2-swapped")
#: the fields of the departures the search tries last
RARE_FIELDS = ("residual", "bias_one", "weight_relu", "skip_inside", "weight_abs", "bias_relu", "bias_fanin")


def _toggled(flags: tuple[bool, ...], i: int) -> tuple[bool, ...]:
    return tuple(r != (j == i) for j, r in enumerate(flags))


def _rare_neighbours(spec: Spec) -> list[Spec]:
    """One layer's skip connection (after or before its activation), one bias's single value, ReLU or count, one
    weight matrix's ReLU or absolute value, switched on or off."""
    out = []
    for i in range(2):
        out.append(_replace(spec, residual=_toggled(spec.residual, i)))
        out.append(_replace(spec, skip_inside=_toggled(spec.skip_inside, i)))
    for i in range(3):
        if spec.bias[i]:
            for kind in ("", *ONE_VALUE):
                if kind != spec.bias_one[i]:
                    out.append(_replace(spec, bias_one=tuple(kind if j == i else k
                                                             for j, k in enumerate(spec.bias_one))))
        out.append(_replace(spec, weight_relu=_toggled(spec.weight_relu, i)))
        out.append(_replace(spec, weight_abs=_toggled(spec.weight_abs, i)))
        if spec.bias[i]:
            if i < 2:  # a ReLU on b3 stays the wrong-stage test_mistakes_round6 holds it to ("how b3 is added")
                out.append(_replace(spec, bias_relu=_toggled(spec.bias_relu, i)))
            out.append(_replace(spec, bias_fanin=_toggled(spec.bias_fanin, i)))
    return out


BIAS_SCALES = (-1.0, 0.5, 2.0)


def _bias_scales(spec: Spec) -> list[tuple[float, float, float]]:
    """One bias subtracted, halved or doubled (added twice), or every bias subtracted: the sign or factor slips."""
    out = []
    for i in range(3):
        for s in (1.0, *BIAS_SCALES):
            if i < 2 and s != 1.0 and s * spec.scale[i] == 1.0:  # h1 * 2 with b1 / 2 is the input (or W) doubled
                continue
            scaled = tuple(s if j == i else x for j, x in enumerate(spec.bias_scale))
            if spec.bias[i] and scaled != spec.bias_scale:
                out.append(scaled)
    if all(spec.bias) and spec.bias_scale != (-1.0, -1.0, -1.0) and spec.scale == (1.0, 1.0):
        out.append((-1.0, -1.0, -1.0))
    return list(dict.fromkeys(out))



class Stack:
    """Cases of identical sizes, stacked: features (P, B, H, W, C), weights (P, n, m), biases (P, 1, m)."""

    def __init__(self, cases: Sequence[tuple[np.ndarray, ...]]):
        batch = max(c[0].shape[0] for c in cases)
        self.cases_features = [np.asarray(c[0], dtype=np.float64) for c in cases]
        self.rows = np.arange(batch)[None, :, None] < np.array([f.shape[0] for f in self.cases_features])[:, None, None]
        self.batch = batch
        self.features = np.stack([self._pad(f) for f in self.cases_features])
        self.weights = {i: np.stack([np.asarray(c[2 * i - 1], dtype=np.float64) for c in cases]) for i in (1, 2, 3)}
        self.weights_t = {i: np.ascontiguousarray(np.swapaxes(w, -1, -2)) for i, w in self.weights.items()}
        self.biases = {i: np.stack([np.asarray(c[2 * i], dtype=np.float64) for c in cases])[:, None, :]
                       for i in (1, 2, 3)}
        self._flat: dict[str, np.ndarray] = {}
        self._first: dict[tuple, np.ndarray] = {}

    def _pad(self, rows: np.ndarray) -> np.ndarray:
        """Pad a case to the stack's batch by repeating its first row: every operation of the model is row-wise
        (except a softmax over the batch, which ``rows`` restricts to the real rows)."""
        if rows.shape[0] < self.batch:
            rows = np.concatenate([rows] + [rows[:1]] * (self.batch - rows.shape[0]))
        return rows

    def flat(self, order: str) -> np.ndarray:
        x = self._flat.get(order)
        if x is None:
            x = self._flat[order] = np.stack([self._pad(flatten(f, order)) for f in self.cases_features])
        return x

    def forward(self, spec: Spec) -> np.ndarray:
        """The variant's output, (P, B, K); raises ValueError when its shapes do not fit these sizes."""
        steps = SEQUENCES[spec.sequence]
        w, b, role = steps[0]
        key = (spec.flatten, spec.input_act, w, b, role, spec.transposed[w - 1], spec.bias[b - 1],
               spec.act[role], spec.relu_before_bias[role], spec.scale[role], spec.bias_input[b - 1],
               spec.bias_floor[role] if role < 2 else False, spec.bias_scale[b - 1], spec.averaged[w - 1],
               spec.residual[role] if role < 2 else False, spec.bias_one[b - 1], spec.weight_relu[w - 1],
               spec.skip_inside[role] if role < 2 else False, spec.weight_abs[w - 1], spec.bias_relu[b - 1],
               spec.bias_fanin[b - 1])
        h = self._first.get(key)
        if h is None:  # the first layer's output is shared by most variants a search tries: keep it
            x = self.flat(spec.flatten)
            x = self._centred(x) if spec.input_act == CENTRED else input_function(spec.input_act)(x)
            h = self._first[key] = self._layer(x, spec, w, b, role)
        for w, b, role in steps[1:]:
            h = self._layer(h, spec, w, b, role)
        return h

    def _centred(self, x: np.ndarray) -> np.ndarray:
        """The features minus their mean over each stacked case's real rows (x - x.mean(axis=0) per case)."""
        count = self.rows.sum(axis=-2, keepdims=True)
        return np.where(self.rows, x - np.where(self.rows, x, 0.0).sum(axis=-2, keepdims=True) / count, x)

    def _layer(self, h: np.ndarray, spec: Spec, w: int, b: int, role: int) -> np.ndarray:
        layer_input = h
        use_bias = spec.bias[b - 1]
        bias = self.biases[b] if spec.bias_scale[b - 1] == 1.0 else self.biases[b] * spec.bias_scale[b - 1]
        if spec.bias_one[b - 1]:  # one value of the bias, broadcast over every unit
            bias = ONE_VALUE[spec.bias_one[b - 1]](bias)
        if spec.bias_relu[b - 1]:  # np.maximum(b, 0): the activation applied to the bias
            bias = np.maximum(bias, 0.0)
        if spec.bias_fanin[b - 1]:  # added inside the loop over the inputs: once per input unit
            bias = bias * h.shape[-1]
        if use_bias and spec.bias_input[b - 1]:  # the bias added to the layer's input, before the product
            h, use_bias = h + bias, False
        weight = self.weights_t[w] if spec.transposed[w - 1] else self.weights[w]
        if spec.weight_relu[w - 1]:
            weight = np.maximum(weight, 0.0)
        if spec.weight_abs[w - 1]:
            weight = np.abs(weight)
        z = h @ weight
        if spec.averaged[w - 1]:  # a mean over the layer's inputs where the product sums them
            z = z / h.shape[-1]
        if role == 2:
            if use_bias:
                z = z + bias
            return _final(spec.final, z, self.rows)
        if spec.skip_inside[role]:  # the layer's input added before the activation: fails unless the widths agree
            z = z + layer_input
        act = activation(spec.act[role])
        if spec.act[role] == "batchnorm":  # over the batch: needs the stack's real rows
            act = lambda v: _batch_norm(np.maximum(v, 0.0), self.rows)  # noqa: E731
        if use_bias and spec.bias_floor[role]:  # np.maximum(h W, b): the bias as the floor, never added
            h = np.maximum(z, bias)
        elif use_bias and spec.relu_before_bias[role]:
            h = act(z) + bias
        else:
            h = act(z + bias) if use_bias else act(z)
        if spec.scale[role] != 1.0:
            h = h * spec.scale[role]
        if spec.residual[role]:  # the layer's input added to its output: fails (as the student's code does) unless
            h = h + layer_input  # the two widths agree
        return h
