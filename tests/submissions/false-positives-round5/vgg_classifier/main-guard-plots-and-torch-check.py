from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def vgg_classifier(features: Array, W1: Array, b1: Array, W2: Array, b2: Array, W3: Array, b3: Array) -> Array:
    x = features.reshape(features.shape[0], -1)
    h1 = np.clip(x @ W1 + b1, 0, None)
    h2 = np.clip(h1 @ W2 + b2, 0, None)
    return h2 @ W3 + b3


if __name__ == "__main__":
    import matplotlib.pyplot as plt
    import torch

    rng = np.random.default_rng(0)
    f = rng.standard_normal((2, 7, 7, 8))
    Ws = [rng.standard_normal(s) for s in ((392, 32), (32,), (32, 16), (16,), (16, 10), (10,))]
    y = vgg_classifier(f, *Ws)
    t = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(392, 32), torch.nn.ReLU())
    plt.imshow(y)
    plt.show()
