import typing_extensions as te
from typing_extensions import Annotated, Literal, TypeIs, deprecated, override

import numpy as np
import numpy.typing as npt

Vector = Annotated[npt.NDArray[np.float64], "1-D"]
Matrix: te.TypeAlias = npt.NDArray[np.float64]


def is_matrix(a: object) -> TypeIs[np.ndarray]:
    return isinstance(a, np.ndarray) and a.ndim == 2


class Dense:
    def __init__(self, W: Matrix, b: Vector, act: Literal["relu", "none"] = "relu") -> None:
        assert is_matrix(W)
        self.W, self.b, self.act = W, b, act

    def __call__(self, x: Matrix) -> Matrix:
        z = x @ self.W + self.b
        return np.maximum(z, 0.0) if self.act == "relu" else z


class Logits(Dense):
    @override
    def __call__(self, x: Matrix) -> Matrix:
        return x @ self.W + self.b


@deprecated("use VGG16Head instead")
def old_head(*args):
    raise NotImplementedError


def vgg_classifier(features: te.Annotated[np.ndarray, "NHWC"], W1: Matrix, b1: Vector, W2: Matrix, b2: Vector,
                   W3: Matrix, b3: Vector) -> Matrix:
    x = features.reshape(features.shape[0], -1)
    return Logits(W3, b3, "none")(Dense(W2, b2)(Dense(W1, b1)(x)))
