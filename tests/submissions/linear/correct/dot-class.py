import numpy as np


class Linear:
    """A tiny nn.Linear look-alike bound to the function's name."""

    def __call__(self, x, weight, bias=None):
        y = np.dot(x, weight.T)
        if bias is None:
            return y
        return np.add(y, bias)


linear = Linear()
