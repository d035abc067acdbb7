from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from jaxtyping import Float
    from numpy.typing import NDArray


def vgg_classifier(features: Float[NDArray, "b h w c"], W1: Float[NDArray, "d d1"], b1: Float[NDArray, "d1"],
                   W2: Float[NDArray, "d1 d2"], b2: Float[NDArray, "d2"], W3: Float[NDArray, "d2 k"],
                   b3: Float[NDArray, "k"]) -> Float[NDArray, "b k"]:
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
