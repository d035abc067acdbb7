from __future__ import annotations

import math
from typing import Callable, Sequence, Tuple

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
Layer = Tuple[Array, Array, Callable[[Array], Array]]


def _relu(z: Array) -> Array:
    return np.maximum(z, 0.0)


def _identity(z: Array) -> Array:
    return z


def _run(x: Array, layers: Sequence[Layer]) -> Array:
    for W, b, act in layers:
        x = act(x @ W + b)
    return x


def vgg_classifier(features: Array, W1: Array, b1: Array,
                   W2: Array, b2: Array,
                   W3: Array, b3: Array) -> Array:
    batch: int = features.shape[0]
    width: int = math.prod(features.shape[1:])
    x: Array = features.reshape(batch, width)
    return _run(x, [(W1, b1, _relu), (W2, b2, _relu), (W3, b3, _identity)])
