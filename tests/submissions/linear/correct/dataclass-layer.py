import numpy as np

from dataclasses import dataclass, field
from typing import Optional

@dataclass(frozen=True)
class Dense:
    weight: np.ndarray
    bias: Optional[np.ndarray] = None
    def __call__(self, x):
        out = x @ self.weight.T
        if self.bias is not None:
            out = out + self.bias
        return out

def linear(x, weight, bias=None):
    return Dense(weight, bias)(x)
