"""My tensor class from lab 3 (forward only is needed here)."""
import numpy as np


class Tensor:
    def __init__(self, data, parents=(), op=""):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._parents = parents
        self._op = op

    def __matmul__(self, other):
        return Tensor(self.data @ other.data, (self, other), "@")

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        return Tensor(self.data + other.data, (self, other), "+")

    def relu(self):
        return Tensor(np.maximum(self.data, 0), (self,), "relu")

    def reshape(self, *shape):
        return Tensor(self.data.reshape(*shape), (self,), "reshape")

    def __repr__(self):
        return f"Tensor(shape={self.data.shape}, op={self._op!r})"


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = Tensor(features).reshape(features.shape[0], -1)
    h = (x @ Tensor(W1) + Tensor(b1)).relu()
    h = (h @ Tensor(W2) + Tensor(b2)).relu()
    return (h @ Tensor(W3) + Tensor(b3)).data
