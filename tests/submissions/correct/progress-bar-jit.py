# A loop over samples with a progress bar and numba, as written on a machine that has both. While grading neither
# module exists: the stand-ins must iterate what tqdm wraps (a description given positionally, a bar kept in a
# variable) and hand back the functions numba's decorators receive with a signature, options or prange.
import numpy as np
from numba import njit, prange
from tqdm import tqdm, trange


@njit("float64[:](float64[:])", cache=True)
def relu(z):
    return np.maximum(z, 0.0)


@njit(parallel=True, fastmath=False)
def dense_rows(x, W, b):
    out = np.empty((x.shape[0], W.shape[1]))
    for i in prange(x.shape[0]):
        out[i] = x[i] @ W + b
    return out


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    hidden = np.empty((B, W1.shape[1]))
    bar = tqdm(range(B), "FC1", leave=False)
    for i in bar:
        hidden[i] = relu(features[i].reshape(-1) @ W1 + b1)
        bar.set_postfix(sample=i)
    bar.close()
    second = np.empty((B, W2.shape[1]))
    for i in trange(B, desc="FC2"):
        second[i] = relu(hidden[i] @ W2 + b2)
    return dense_rows(second, W3, b3)
