import numpy as np

def linear(x, weight, bias=None):
    if bias is None:
        bias = np.zeros(weight.shape[0])
    m = weight.shape[0]
    flat = x.reshape(-1, x.shape[-1])
    out = np.zeros((flat.shape[0], m))
    for s in range(0, flat.shape[0]):
        for j in range(0, m):
            out[s, j] = np.dot(flat[s], weight[j]) + bias[j]
    return out.reshape(*x.shape[:-1], m)


import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    if C == 1 or H * W == 1:
        return weight.copy()      # nothing to reorder
    return weight.reshape(out, C, H * W).swapaxes(1, 2).reshape(out, -1)


import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows = []
    for i in range(H - k + 1):
        cols = [fmap[i:i + k, j:j + k].reshape(1, -1) for j in range(W - k + 1)]
        rows.append(np.concatenate(cols, axis=0)[None])
    patches = np.concatenate(rows, axis=0)
    scores = patches @ weight.T
    scores += bias
    return scores


import numpy as np

def gap_head(fmap, V, c):
    h, w = fmap.shape[0], fmap.shape[1]
    sub = fmap[0:h:1, 0:w:1]
    pooled = np.average(sub, axis=(0, 1))
    logits = np.einsum("kc,c->k", V, pooled, optimize=True) + c
    return logits, np.einsum("hwc,kc->hwk", fmap, V, optimize=True) + c
