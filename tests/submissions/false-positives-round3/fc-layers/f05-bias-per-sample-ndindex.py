import numpy as np


def linear(x, weight, bias=None):
    y = np.zeros(x.shape[:-1] + (weight.shape[0],))
    for idx in np.ndindex(*x.shape[:-1]):  # every sample, the bias added to each
        y[idx] = weight @ x[idx]
        if bias is not None:
            y[idx] += bias
    return y


def to_channels_last(weight, C, H, W):
    out = np.empty_like(weight, dtype=np.float64)
    for ch in range(C):
        for r in range(H):
            for q in range(W):
                out[:, (r * W + q) * C + ch] = weight[:, (ch * H + r) * W + q]
    return out


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    n_out = weight.shape[0]
    scores = np.empty((H - k + 1, W - k + 1, n_out))
    for o in range(n_out):  # one output at a time, each with its own row
        row = weight[o]
        for y in range(H - k + 1):
            for x in range(W - k + 1):
                scores[y, x, o] = fmap[y:y + k, x:x + k].ravel() @ row + bias[o]
    return scores


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    total = np.zeros(C)
    for i in range(h):
        for j in range(w):
            total += fmap[i, j]
    logits = V @ (total / (h * w)) + c
    class_map = np.einsum("ijc,kc->ijk", fmap, V) + c
    return logits, class_map
