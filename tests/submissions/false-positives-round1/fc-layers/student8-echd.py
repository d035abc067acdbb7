import numpy as np

def _affine(v, W, b):
    print("affine on", v.shape)
    r = v @ W.T
    return r if b is None else r + b

def linear(x, weight, bias=None):
    return _affine(x, weight, bias)


import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return np.ascontiguousarray(weight.reshape(out, C, H, W).transpose(0, 2, 3, 1)).reshape(out, H * W * C)


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

def _pool(f):
    print("pooling", f.shape)
    return np.mean(f[::1, ::1, :], axis=(0, 1))

def gap_head(fmap, V, c):
    p = _pool(fmap)
    logits = np.dot(V, p) + c
    cmap = np.tensordot(fmap, V, axes=([2], [1])) + c
    return logits, np.ascontiguousarray(cmap)
