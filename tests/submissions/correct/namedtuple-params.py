from typing import NamedTuple
import numpy as np
class Params(NamedTuple):
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    W3: np.ndarray
    b3: np.ndarray
def forward(x, p: Params):
    h = np.maximum(x @ p.W1 + p.b1, 0)
    h = np.maximum(h @ p.W2 + p.b2, 0)
    return h @ p.W3 + p.b3
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    p = Params(W1, b1, W2, b2, W3, b3)
    return forward(features.reshape(features.shape[0], -1), p)
