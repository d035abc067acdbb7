# Framework types named in a numpy solution: an optional torch import, a union annotation, isinstance checks and a
# figure made at import time. While grading torch and matplotlib are stand-ins, whose classes must still work as
# types and whose subplots must unpack.
from __future__ import annotations

from typing import Optional, Union

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

try:
    import torch
    from torch import nn
except ImportError:
    torch = None

print("matplotlib", matplotlib.__version__, "torch", torch.__version__ if torch else None)

fig, axes = plt.subplots(2, 3, figsize=(9, 5))
axes[0, 1].set_title("FC1 activations")
for ax in axes.flat:
    ax.axis("off")
hist_ax, = axes.ravel()[:1]


class Head(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers


ArrayLike = Union[np.ndarray, "torch.Tensor"]


def as_array(a: np.ndarray | torch.Tensor) -> np.ndarray:
    if torch is not None and isinstance(a, torch.Tensor):
        return a.detach().cpu().numpy()
    return np.asarray(a)


def vgg_classifier(features: Optional[torch.Tensor] | np.ndarray, W1, b1, W2, b2, W3, b3) -> np.ndarray:
    head = Head([(as_array(W1), as_array(b1)), (as_array(W2), as_array(b2)), (as_array(W3), as_array(b3))])
    x = as_array(features)
    x = x.reshape(x.shape[0], -1)
    for depth, (W, b) in enumerate(head.layers):
        x = x @ W + b
        if depth < 2:
            x = np.maximum(x, 0.0)
    return x
