import numpy as np
import numpy.typing as npt
from beartype import beartype
from beartype.typing import Tuple

F64 = npt.NDArray[np.float64]


@beartype
def _flatten(x: F64) -> F64:
    return x.reshape(x.shape[0], -1)


@beartype
def vgg_classifier(features: F64, W1: F64, b1: F64, W2: F64, b2: F64, W3: F64, b3: F64) -> F64:
    shapes: Tuple[int, ...] = features.shape
    assert len(shapes) == 4
    h = np.maximum(_flatten(features) @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
