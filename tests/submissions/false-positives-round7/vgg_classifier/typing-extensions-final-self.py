from __future__ import annotations

from typing_extensions import Final, Self, TypeAlias, override

import numpy as np
import numpy.typing as npt

F64: TypeAlias = npt.NDArray[np.float64]
RELU_FLOOR: Final = 0.0


class Layer:
    def __init__(self, W: F64, b: F64) -> None:
        self.W, self.b = W, b

    def __call__(self, x: F64) -> F64:
        return x @ self.W + self.b

    def then(self, other: Layer) -> Self:
        self.next = other
        return self


class ReLULayer(Layer):
    @override
    def __call__(self, x: F64) -> F64:
        return np.maximum(super().__call__(x), RELU_FLOOR)


def vgg_classifier(features: F64, W1: F64, b1: F64, W2: F64, b2: F64, W3: F64, b3: F64) -> F64:
    x = features.reshape(features.shape[0], -1)
    for layer in (ReLULayer(W1, b1), ReLULayer(W2, b2), Layer(W3, b3)):
        x = layer(x)
    return x
