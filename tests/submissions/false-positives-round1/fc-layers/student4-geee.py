import numpy as np

def linear(x, weight, bias=None):
    # a centred product, then the centre added back: the same affine map
    mu = weight.mean()
    y = x @ (weight - mu).T + mu * x.sum(axis=-1, keepdims=True)
    if bias is not None:
        y = y + bias
    return np.ascontiguousarray(y)


import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    t = weight.reshape(out, C, H, W)
    t = np.moveaxis(t, 1, -1)
    return t.reshape(out, -1).copy()


import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    Ho, Wo = H - k + 1, W - k + 1
    cols = np.empty((Ho * Wo, k * k * C))
    for n in range(Ho * Wo):
        i, j = divmod(n, Wo)
        cols[n] = fmap[i:i + k, j:j + k].reshape(-1)
    scores = cols @ weight.T
    scores = scores * (np.sqrt(k * k * C) / np.sqrt(k * k * C))
    return (scores + bias).reshape(Ho, Wo, -1)


import numpy as np

def gap_head(fmap, V, c):
    h, w, _ = fmap.shape
    acc = np.zeros(fmap.shape[2])
    for i in range(h):
        for j in range(w):
            acc += fmap[i, j]
    mean = acc * (1.0 / (h * w))
    Vn = V / np.linalg.norm(V, axis=1, keepdims=True) * np.linalg.norm(V, axis=1, keepdims=True)
    logits = Vn @ mean + c
    cmap = (fmap.reshape(h * w, -1) @ V.T + c).reshape(h, w, -1)
    return logits, cmap
