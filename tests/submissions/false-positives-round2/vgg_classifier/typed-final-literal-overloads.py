from typing import Final, Literal, TypeAlias
import numpy as np

Matrix: TypeAlias = np.ndarray
Activation = Literal["relu", "linear"]
ARCH: Final[tuple[Activation, ...]] = ("relu", "relu", "linear")


def _act(z: Matrix, kind: Activation) -> Matrix:
    match kind:
        case "relu":
            return np.maximum(z, 0)
        case "linear":
            return z
    raise ValueError(kind)


def vgg_classifier(features: Matrix, W1: Matrix, b1: Matrix, W2: Matrix, b2: Matrix, W3: Matrix,
                   b3: Matrix) -> Matrix:
    h = features.reshape(features.shape[0], -1)
    for (W, b), kind in zip(((W1, b1), (W2, b2), (W3, b3)), ARCH):
        h = _act(h @ W + b, kind)
    return h
