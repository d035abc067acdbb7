import numpy as np


def linear(x, weight, bias=None):
    out = x @ weight.T
    if bias is not None:
        out += bias
    return out


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    new = np.empty((out, H, W, C))
    new[...] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1)
    return new.reshape(out, H * W * C)


def dense_scores(fmap, weight, bias, k):
    from numpy.lib.stride_tricks import as_strided
    H, W, C = fmap.shape
    f = np.ascontiguousarray(fmap)
    s0, s1, s2 = f.strides
    win = as_strided(f, shape=(H - k + 1, W - k + 1, k, k, C), strides=(s0, s1, s0, s1, s2), writeable=False)
    return np.einsum("ijabc,oabc->ijo", win, weight.reshape(-1, k, k, C)) + bias


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    K = V.shape[0]
    block = np.empty(K + h * w * K)  # one new block per call: logits first, then the map
    cam = block[K:].reshape(h, w, K)
    cam[...] = fmap @ V.T + c
    logits = block[:K]
    logits[...] = cam.mean(axis=(0, 1))
    return logits, cam
