from typing import Generic, Protocol, TypeVar

import numpy as np

T = TypeVar("T", bound=np.ndarray)


class Layer(Protocol[T]):
    def __call__(self, x: T) -> T: ...


class Affine(Generic[T]):
    def __init__(self, W: T, b: T, relu: bool) -> None:
        self.W, self.b, self.relu = W, b, relu

    def __call__(self, x: T) -> T:
        z = x @ self.W + self.b
        return np.maximum(z, 0) if self.relu else z


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    layers: list[Layer[np.ndarray]] = [Affine(W1, b1, True), Affine(W2, b2, True), Affine(W3, b3, False)]
    x = features.reshape(features.shape[0], -1)
    for layer in layers:
        x = layer(x)
    return x
