import functools
import inspect
import warnings

import numpy as np

EXPECTED_NDIM = {"features": 4, "W1": 2, "b1": 1, "W2": 2, "b2": 1, "W3": 2, "b3": 1}


def validated(fn):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            if not isinstance(value, np.ndarray):
                raise TypeError(f"{name} must be a numpy array")
            if not np.issubdtype(value.dtype, np.floating):
                raise TypeError(f"{name} must be floating point")
            if value.dtype != np.float64:
                warnings.warn(f"{name} is {value.dtype}; casting to float64")
                bound.arguments[name] = value.astype(np.float64)
            if value.ndim != EXPECTED_NDIM[name]:
                raise ValueError(f"{name}.ndim == {value.ndim}, expected {EXPECTED_NDIM[name]}")
        result = fn(*bound.args, **bound.kwargs)
        if not np.all(np.isfinite(result)):
            warnings.warn("non-finite logits", RuntimeWarning)
        return result

    return wrapper


@validated
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], np.prod(features.shape[1:], dtype=int))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        h1 = np.maximum(x @ W1 + b1, 0)
        h2 = np.maximum(h1 @ W2 + b2, 0)
        return h2 @ W3 + b3
