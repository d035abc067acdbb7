"""A parameterised model of the VGG head and of the ways students get it wrong (used by ``diagnosis.py``).

A ``Spec`` names one variant of the computation: the flatten order, which weights are read transposed, which
biases are added, the activation of each hidden layer, ReLU before the bias, a constant scale on the hidden
activations, an activation on the logits and the sequence of layers. ``REFERENCE`` is the exercise itself.
``Stack`` holds several cases of identical sizes stacked on a leading axis so that one variant is evaluated on
all of them with a handful of batched NumPy calls (tens of microseconds).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

# -- flatten orders: the per-sample axis order (of H, W, C) that is read row-major -----------------------------
FLATTEN_ORDERS = {
    "HWC": (0, 1, 2),  # the reference: row-major NHWC
    "CWH": (2, 1, 0),  # reshape(..., order="F") (column-major)
    "CHW": (2, 0, 1),  # channels first, like PyTorch's NCHW
    "WHC": (1, 0, 2),  # H and W swapped
    "HCW": (0, 2, 1),
    "WCH": (1, 2, 0),
}
FLATTEN_NAMES = {
    "CWH": "in column-major order (reshape with order='F', i.e. axes C, W, H) instead of row-major H, W, C",
    "CHW": "in channels-first order (C, H, W, the PyTorch NCHW layout) instead of H, W, C",
    "WHC": "with H and W swapped (W, H, C order) instead of H, W, C",
    "HCW": "in (H, C, W) order instead of H, W, C",
    "WCH": "in (W, C, H) order instead of H, W, C",
}


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _elu(z):
    return np.where(z > 0, z, np.expm1(np.minimum(z, 0.0)))


def _softplus(z):
    return np.logaddexp(0.0, z)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "relu": lambda z: np.maximum(z, 0.0),
    "none": lambda z: z,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "leaky0.01": lambda z: np.where(z > 0, z, 0.01 * z),
    "leaky0.1": lambda z: np.where(z > 0, z, 0.1 * z),
    "leaky0.2": lambda z: np.where(z > 0, z, 0.2 * z),
    "step": lambda z: (z > 0).astype(np.float64),
    "elu": _elu,
    "softplus": _softplus,
}
ACTIVATION_NAMES = {
    "sigmoid": "a sigmoid",
    "tanh": "tanh",
    "leaky0.01": "a leaky ReLU (slope 0.01)",
    "leaky0.1": "a leaky ReLU (slope 0.1)",
    "leaky0.2": "a leaky ReLU (slope 0.2)",
    "step": "a step function (ReLU's derivative, 0 or 1)",
    "elu": "an ELU",
    "softplus": "a softplus",
}

COMMON = ("relu", "none", "sigmoid", "tanh", "leaky0.01", "step")
FINALS = ("none", "relu", "softmax", "sigmoid", "tanh", "log-softmax")
SCALES = (0.5, 2.0, 0.8, 1.25)

# -- layer sequences: (weight index, bias index, role); role 0/1 = hidden layer FC1/FC2, 2 = output layer ----
SEQUENCES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "ref": ((1, 1, 0), (2, 2, 1), (3, 3, 2)),
    "skip-fc2": ((1, 1, 0), (3, 3, 2)),
    "fc2-twice": ((1, 1, 0), (2, 2, 1), (2, 2, 1), (3, 3, 2)),
    "skip-fc1": ((2, 2, 1), (3, 3, 2)),
    "fc1-twice": ((1, 1, 0), (1, 1, 0), (2, 2, 1), (3, 3, 2)),
    "skip-fc3": ((1, 1, 0), (2, 2, 1)),
    "W1-in-fc2": ((1, 1, 0), (1, 2, 1), (3, 3, 2)),
    "W2-in-fc1": ((2, 1, 0), (2, 2, 1), (3, 3, 2)),
    "W2-in-fc3": ((1, 1, 0), (2, 2, 1), (2, 3, 2)),
    "W3-in-fc2": ((1, 1, 0), (3, 2, 1), (3, 3, 2)),
}
SEQUENCE_NAMES = {
    "skip-fc2": "FC2 (W2, b2) is skipped: the output of FC1 goes straight into FC3",
    "fc2-twice": "FC2 is applied twice",
    "skip-fc1": "FC1 (W1, b1) is skipped: the flattened features go straight into FC2",
    "fc1-twice": "FC1 is applied twice",
    "skip-fc3": "FC3 is missing: the output of FC2 (after its ReLU) is returned",
    "W1-in-fc2": "FC2 multiplies by W1 instead of W2",
    "W2-in-fc1": "FC1 multiplies by W2 instead of W1",
    "W2-in-fc3": "FC3 multiplies by W2 instead of W3",
    "W3-in-fc2": "FC2 multiplies by W3 instead of W2",
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
    input_relu: bool = False  # a ReLU on the flattened features, before FC1


REFERENCE = Spec()


def _masks(n: int):
    for bits in range(1, 2**n):
        yield tuple(bool(bits >> i & 1) for i in range(n))


def neighbours(spec: Spec):
    """Every spec that differs from ``spec`` in one field (a multi-layer field may change all its layers)."""
    out: list[Spec] = []
    for mask in _masks(3):  # biases left out
        bias = tuple(b and not m for b, m in zip(REFERENCE.bias, mask))
        if bias != spec.bias:
            out.append(replace(spec, bias=bias))
    for final in FINALS:
        if final != spec.final:
            out.append(replace(spec, final=final))
    out.append(replace(spec, input_relu=not spec.input_relu))
    acts = []
    for name in ACTIVATIONS:  # the rarer activations only on both layers at once, to keep searches short
        acts += [(name, spec.act[1]), (spec.act[0], name), (name, name)] if name in COMMON else [(name, name)]
    for act in dict.fromkeys(acts):
        if act != spec.act:
            out.append(replace(spec, act=act))
    for order in FLATTEN_ORDERS:
        if order != spec.flatten:
            out.append(replace(spec, flatten=order))
    for mask in [(False, False, False), *_masks(3)]:
        if mask != spec.transposed:
            out.append(replace(spec, transposed=mask))
    for mask in [(False, False), *_masks(2)]:
        if mask != spec.relu_before_bias and all(not m or spec.bias[i] for i, m in enumerate(mask)):
            out.append(replace(spec, relu_before_bias=mask))
    scales = []
    for s in (1.0, *SCALES):
        scales += [(s, spec.scale[1]), (spec.scale[0], s), (s, s)] if s in (1.0, 0.5, 2.0) else [(s, s)]
    for scale in dict.fromkeys(scales):
        if scale != spec.scale:
            out.append(replace(spec, scale=scale))
    for name in SEQUENCES:
        if name != spec.sequence:
            out.append(replace(spec, sequence=name))
    return out


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


FINAL_ACTIVATIONS = {
    "none": lambda z: z,
    "relu": lambda z: np.maximum(z, 0.0),
    "softmax": _softmax,
    "sigmoid": lambda z: 1.0 / (1.0 + np.exp(-z)),
    "tanh": np.tanh,
    "log-softmax": _log_softmax,
}


class Stack:
    """Cases of identical sizes, stacked: features (P, B, H, W, C), weights (P, n, m), biases (P, 1, m)."""

    def __init__(self, cases: Sequence[tuple[np.ndarray, ...]]):
        batch = max(c[0].shape[0] for c in cases)
        feats = []
        for c in cases:
            f = np.asarray(c[0], dtype=np.float64)
            if f.shape[0] < batch:  # pad by repetition: every operation of the model is row-wise
                f = np.concatenate([f] + [f[:1]] * (batch - f.shape[0]))
            feats.append(f)
        self.features = np.stack(feats)
        self.weights = {i: np.stack([np.asarray(c[2 * i - 1], dtype=np.float64) for c in cases]) for i in (1, 2, 3)}
        self.weights_t = {i: np.ascontiguousarray(np.swapaxes(w, -1, -2)) for i, w in self.weights.items()}
        self.biases = {i: np.stack([np.asarray(c[2 * i], dtype=np.float64) for c in cases])[:, None, :]
                       for i in (1, 2, 3)}
        self._flat: dict[str, np.ndarray] = {}
        self._first: dict[tuple, np.ndarray] = {}

    def flat(self, order: str) -> np.ndarray:
        x = self._flat.get(order)
        if x is None:
            p, b = self.features.shape[:2]
            axes = tuple(2 + a for a in FLATTEN_ORDERS[order])
            x = self._flat[order] = self.features.transpose(0, 1, *axes).reshape(p, b, -1)
        return x

    def forward(self, spec: Spec) -> np.ndarray:
        """The variant's output, (P, B, K); raises ValueError when its shapes do not fit these sizes."""
        steps = SEQUENCES[spec.sequence]
        w, b, role = steps[0]
        key = (spec.flatten, spec.input_relu, w, b, role, spec.transposed[w - 1], spec.bias[b - 1],
               spec.act[role], spec.relu_before_bias[role], spec.scale[role])
        h = self._first.get(key)
        if h is None:  # the first layer's output is shared by most variants a search tries: keep it
            x = self.flat(spec.flatten)
            h = self._first[key] = self._layer(np.maximum(x, 0.0) if spec.input_relu else x, spec, w, b, role)
        for w, b, role in steps[1:]:
            h = self._layer(h, spec, w, b, role)
        return h

    def _layer(self, h: np.ndarray, spec: Spec, w: int, b: int, role: int) -> np.ndarray:
        z = h @ (self.weights_t[w] if spec.transposed[w - 1] else self.weights[w])
        use_bias = spec.bias[b - 1]
        if role == 2:
            if use_bias:
                z = z + self.biases[b]
            return FINAL_ACTIVATIONS[spec.final](z)
        act = ACTIVATIONS[spec.act[role]]
        if use_bias and spec.relu_before_bias[role]:
            h = act(z) + self.biases[b]
        else:
            h = act(z + self.biases[b]) if use_bias else act(z)
        if spec.scale[role] != 1.0:
            h = h * spec.scale[role]
        return h
