"""Results and exceptions that break the runner's description of them: an exception class whose ``__traceback__`` is
a property that raises (B = 1), a result of 42 dimensions (B = 4), and on any other case a result whose type cannot
be named and cannot be made an array. Each must reach the report as what the function did, in words."""
import numpy as np

INFO = {}


class TracebackProperty(Exception):
    @property
    def __traceback__(self):
        raise RuntimeError("no traceback")


class Nameless(type):
    def __getattribute__(cls, name):
        if name in ("__module__", "__qualname__", "__name__"):
            raise RuntimeError("no name")
        return type.__getattribute__(cls, name)


class Unnamed(metaclass=Nameless):
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    if B == 1:
        raise TracebackProperty("the traceback property raised")
    if B == 4:
        return np.zeros((1,) * 42)
    return Unnamed()
