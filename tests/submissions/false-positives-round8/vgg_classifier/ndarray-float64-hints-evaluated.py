from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

Array: TypeAlias = NDArray[np.float64]


def relu(z: Array) -> Array:
    return np.maximum(z, 0.0)


def vgg_classifier(features: Array, W1: Array, b1: Array, W2: Array, b2: Array, W3: Array, b3: Array) -> Array:
    x: Array = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
