from __future__ import annotations
from typing import TYPE_CHECKING
import numpy as np
if TYPE_CHECKING:
    import torch
    from numpy.typing import NDArray
def vgg_classifier(features: NDArray | torch.Tensor, W1, b1, W2, b2, W3, b3) -> NDArray:
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
