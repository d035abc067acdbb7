from __future__ import annotations
import numpy as np
import numpy.typing as npt
FloatArray = npt.NDArray[np.float64]
def relu(z: FloatArray) -> FloatArray:
    return np.maximum(z, 0.0)
def vgg_classifier(features: FloatArray, W1: FloatArray, b1: FloatArray, W2: FloatArray, b2: FloatArray,
                   W3: FloatArray, b3: FloatArray) -> FloatArray:
    """Classify NHWC features.

    >>> import numpy as np
    >>> f = np.ones((1, 1, 1, 2)); W = np.eye(2); b = np.zeros(2)
    >>> vgg_classifier(f, W, b, W, b, W, b).tolist()
    [[1.0, 1.0]]
    """
    x: FloatArray = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
if __name__ == "__main__":
    import doctest
    doctest.testmod(verbose=True)
