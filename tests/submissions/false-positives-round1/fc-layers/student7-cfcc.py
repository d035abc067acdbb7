import numpy as np

def linear(x, weight, bias=None):
    y = np.einsum("...i,oi->...o", x.astype(np.float64), weight.astype(np.float64), optimize=True)
    if bias is not None:
        for j in range(weight.shape[0]):
            y[..., j] += bias[j]
    return y.astype(np.float64)


import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    res = np.einsum("ochw->ohwc", weight.reshape(out, C, H, W), optimize=True)
    return np.array(res.reshape(out, H * W * C), dtype=np.float64, order="C")


import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    rows = []
    i = 0
    while i <= H - k:
        row = []
        j = 0
        while j <= W - k:
            row.append(fmap[i:i + k, j:j + k].ravel() @ weight.T + bias)
            j += 1
        rows.append(np.stack(row))
        i += 1
    return np.stack(rows).astype(np.float64)


import numpy as np

def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    n = np.float64(h) * np.float64(w)
    p = np.true_divide(fmap.reshape(-1, C).sum(axis=0), n)
    logits = np.array([V[k] @ p + c[k] for k in range(V.shape[0])])
    cmap = np.empty((h, w, V.shape[0]))
    for i in range(h):
        for j in range(w):
            cmap[i, j] = V @ fmap[i, j] + c
    return [logits, cmap]
