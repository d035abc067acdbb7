from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def identity(z: Array) -> Array:
    return z


def relu(z: Array) -> Array:
    return np.maximum(z, 0.0)


@dataclass(frozen=True)
class Dense:
    """y = act(x W + b), with W stored (in, out)."""
    W: Array
    b: Array
    act: Callable[[Array], Array] = field(default=identity)

    def __call__(self, x: Array) -> Array:
        return self.act(x @ self.W + self.b)


@dataclass
class Sequential:
    layers: Sequence[Dense]

    def __call__(self, x: Array) -> Array:
        for layer in self.layers:
            x = layer(x)
        return x


def vgg_classifier(features: Array, W1: Array, b1: Array, W2: Array, b2: Array, W3: Array, b3: Array) -> Array:
    model = Sequential([Dense(W1, b1, relu), Dense(W2, b2, relu), Dense(W3, b3)])
    return model(features.reshape(len(features), -1))
