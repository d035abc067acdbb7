import numpy as np


class _Linear:
    """Callable object, like a tiny nn.Module."""

    def __call__(self, x, weight, bias=None, *, transpose=True):
        W = weight.T if transpose else weight
        y = x @ W
        if bias is not None:
            np.add(y, bias, out=y)
        return y


linear = _Linear()
