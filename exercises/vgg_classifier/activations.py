"""The hidden layers' activations of the VGG head's model (``variants.py``), and how a sentence names each.

Besides the fixed ones (``ACTIVATIONS``; ``COMMON`` are those the search tries on one layer at a time), the smooth
ones of ``FITTED`` are tried only once a ramp shows them, and ``clip:LO:HI``, ``leaky:SLOPE``, ``floor:EPS`` and
``thresh:T`` name parameterised ones that ``stages.py`` fits to what a submission's activation did on a ramp.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _elu(z):
    return np.where(z > 0, z, np.expm1(np.minimum(z, 0.0)))


def _softplus(z):
    return np.logaddexp(0.0, z)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "relu": lambda z: np.maximum(z, 0.0),
    "relu6": lambda z: np.clip(z, 0.0, 6.0),
    "abs": np.abs,
    "zero": lambda z: np.zeros_like(z),
    "min0": lambda z: np.minimum(z, 0.0),  # the mask inverted: z * (z < 0)
    "step-ge": lambda z: (z >= 0).astype(np.float64),
    "none": lambda z: z,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "leaky0.01": lambda z: np.where(z > 0, z, 0.01 * z),
    "leaky0.1": lambda z: np.where(z > 0, z, 0.1 * z),
    "leaky0.2": lambda z: np.where(z > 0, z, 0.2 * z),
    "step": lambda z: (z > 0).astype(np.float64),
    "elu": _elu,
    "softplus": _softplus,
    "relu-trunc": lambda z: np.trunc(np.maximum(z, 0.0)),  # relu(z).astype(int): the hidden values cut to integers
    "layernorm": lambda z: _layer_norm(np.maximum(z, 0.0)),
    "batchnorm": lambda z: np.zeros_like(z),  # one sample alone; Stack._layer normalises over a batch's real rows
}
ACTIVATION_NAMES = {
    "relu6": "ReLU6, clip(z, 0, 6)",
    "abs": "the absolute value |z|",
    "zero": "an activation that outputs 0 for every input (a ReLU mask that keeps nothing)",
    "min0": "min(z, 0), which keeps the negative part (the mask is inverted)",
    "step-ge": "a step function (ReLU's derivative, 1 where z >= 0, else 0)",
    "sigmoid": "a sigmoid",
    "tanh": "tanh",
    "leaky0.01": "a leaky ReLU (slope 0.01)",
    "leaky0.1": "a leaky ReLU (slope 0.1)",
    "leaky0.2": "a leaky ReLU (slope 0.2)",
    "step": "a step function (ReLU's derivative, 0 or 1)",
    "elu": "an ELU",
    "softplus": "a softplus",
    "relu-trunc": "a ReLU whose output is cut to whole numbers (as .astype(int) does)",
    "layernorm": "a ReLU followed by a normalisation of each sample over its units (a layer norm, (h - mean) / std)",
    "batchnorm": "a ReLU followed by a normalisation of each unit over the samples of the batch (a batch norm, "
                 "(h - h.mean(axis=0)) / h.std(axis=0))",
}
#: activations that normalise, each (h - mean) / (std + NORM_EPS)
NORM_EPS = 1e-5


def _layer_norm(h):
    return (h - h.mean(axis=-1, keepdims=True)) / (h.std(axis=-1, keepdims=True) + NORM_EPS)


def _batch_norm(h, rows):
    """Each unit normalised over the real rows (``rows`` (P, B, 1)) of each stacked case, padding rows left alone."""
    count = rows.sum(axis=-2, keepdims=True)
    mean = np.where(rows, h, 0.0).sum(axis=-2, keepdims=True) / count
    std = np.sqrt(np.where(rows, (h - mean) ** 2, 0.0).sum(axis=-2, keepdims=True) / count)
    return np.where(rows, (h - mean) / (std + NORM_EPS), h)


def _gelu_tanh(z):
    return 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z ** 3)))


_ERF = np.vectorize(math.erf, otypes=[np.float64])


#: smooth activations read from a ramp only (``stages.fit_activation``), never in the search's own neighbourhood:
#: a submission's ramp must show one of them before the search tries it, on one layer or both
FITTED: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu": _gelu_tanh,
    "gelu-erf": lambda z: 0.5 * z * (1.0 + _ERF(z / np.sqrt(2.0))),
    "silu": lambda z: z * _sigmoid(z),
    "relu-squared": lambda z: np.maximum(z, 0.0) ** 2,
    # round twelve: a softmax over the units of a hidden layer, and a ReLU followed by each sample's mean over the
    # units subtracted (a layer norm's centring without its division)
    "softmax": lambda z: _unit_softmax(z),
    "relu-centred": lambda z: np.maximum(z, 0.0) - np.maximum(z, 0.0).mean(axis=-1, keepdims=True),
}
FITTED_NAMES = {
    "gelu": "a GELU (the tanh approximation)",
    "gelu-erf": "a GELU, z * Phi(z) with the normal distribution's Phi,",
    "silu": "a SiLU (swish), z * sigmoid(z),",
    "relu-squared": "a squared ReLU, max(z, 0) ** 2,",
    "softmax": "a softmax over the layer's units (each sample's hidden values made to add up to 1),",
    "relu-centred": "a ReLU followed by each sample's mean over the units subtracted (h - h.mean(axis=1, "
                    "keepdims=True)),",
}


def _unit_softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


COMMON = ("relu", "none", "sigmoid", "tanh", "leaky0.01", "leaky0.1", "step", "relu6", "abs", "zero", "relu-trunc",
          "layernorm", "batchnorm")


def activation(name: str) -> Callable[[np.ndarray], np.ndarray]:
    """A hidden layer's activation by name, the parameterised ``clip:LO:HI``, ``leaky:SLOPE``, ``floor:EPS``,
    ``thresh:T`` and ``elu:ALPHA`` too."""
    fn = ACTIVATIONS.get(name) or FITTED.get(name)
    if fn is not None:
        return fn
    kind, *params = name.split(":")
    values = [float(p) for p in params]
    if kind == "clip":
        return lambda z: np.clip(z, values[0], values[1])
    if kind == "leaky":
        return lambda z: np.where(z > 0, z, values[0] * z)
    if kind == "floor":
        return lambda z: np.maximum(z, values[0])
    if kind == "thresh":
        return lambda z: np.where(z > values[0], z, 0.0)
    if kind == "elu":
        return lambda z: np.where(z > 0, z, values[0] * np.expm1(np.minimum(z, 0.0)))
    raise KeyError(name)


def activation_name(name: str) -> str:
    """How a sentence names an activation."""
    if name in ACTIVATION_NAMES or name in FITTED_NAMES:
        return ACTIVATION_NAMES.get(name) or FITTED_NAMES[name]
    kind, *params = name.split(":")
    if kind == "clip":
        return f"a ReLU clipped at {params[1]}, clip(z, {params[0]}, {params[1]})"
    if kind == "leaky":
        return f"a leaky ReLU (slope {params[0]})"
    if kind == "floor":
        return f"a ReLU with a floor of {params[0]}, max(z, {params[0]})"
    if kind == "thresh":
        return f"z * (z > {params[0]}), which sets the positive values up to {params[0]} to 0 as well,"
    if kind == "elu":
        return f"an ELU with alpha = {params[0]}, alpha * (exp(z) - 1) below 0,"
    return name
