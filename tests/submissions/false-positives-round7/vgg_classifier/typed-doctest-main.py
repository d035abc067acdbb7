"""VGG16 classifier head (fc6, fc7, fc8) in NumPy.

Example
-------
>>> import numpy as np
>>> f = np.arange(8, dtype=np.float64).reshape(1, 2, 2, 2)
>>> W = np.ones((8, 2)); b = np.zeros(2)
>>> vgg_classifier(f, W, b, np.eye(2), b, np.eye(2), b)
array([[28., 28.]])
"""
from typing import Final

import numpy as np
from numpy.typing import NDArray

__all__: Final = ["vgg_classifier", "relu"]

ZERO: Final[float] = 0.0


def relu(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rectified linear unit.

    >>> relu(np.array([-1.0, 2.0]))
    array([0., 2.])
    """
    return np.maximum(z, ZERO)


def vgg_classifier(features: NDArray[np.float64], W1: NDArray[np.float64], b1: NDArray[np.float64],
                   W2: NDArray[np.float64], b2: NDArray[np.float64], W3: NDArray[np.float64],
                   b3: NDArray[np.float64]) -> NDArray[np.float64]:
    """Flatten NHWC features and apply FC-ReLU, FC-ReLU, FC.

    >>> vgg_classifier(np.zeros((2, 1, 1, 3)), np.ones((3, 4)), np.ones(4), np.ones((4, 2)), np.zeros(2),
    ...                np.ones((2, 5)), np.zeros(5)).shape
    (2, 5)
    """
    batch = features.shape[0]
    flat = features.reshape(batch, -1)
    return relu(relu(flat @ W1 + b1) @ W2 + b2) @ W3 + b3


if __name__ == "__main__":
    import doctest
    failures, _ = doctest.testmod()
    raise SystemExit(failures)
