import numpy as np
_scratch = {}

def linear(x, weight, bias=None):
    n = weight.shape[1]
    m = weight.shape[0]
    flat = x.reshape(-1, n)
    N = flat.shape[0]
    buf = _scratch.get((N, m))
    if buf is None:
        buf = _scratch[(N, m)] = np.empty((N, m))
    i = 0
    while i < N:          # one vector at a time, step 1
        buf[i] = weight.dot(flat[i])
        if bias is not None:
            buf[i] += bias
        i += 1
    return buf.reshape(x.shape[:-1] + (m,)).copy()


import numpy as np

def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    result = np.empty((out, H * W * C), dtype=np.float64)
    for h in range(0, H, 1):
        for w in range(0, W, 1):
            for c in range(C):
                result[:, h * W * C + w * C + c] = weight[:, c * H * W + h * W + w]
    return result


import numpy as np
_grid = np.zeros((0, 0, 0))

def dense_scores(fmap, weight, bias, k):
    global _grid
    H, W, C = fmap.shape
    shape = (H - k + 1, W - k + 1, weight.shape[0])
    if _grid.shape != shape:
        _grid = np.zeros(shape)
    kern = weight.reshape(-1, k, k, C)
    for u in range(k):
        for v in range(k):
            patch = fmap[u:u + shape[0], v:v + shape[1], :]
            if u == 0 and v == 0:
                _grid[...] = patch @ kern[:, u, v, :].T
            else:
                _grid += patch @ kern[:, u, v, :].T
    _grid += bias
    return _grid.copy()


import numpy as np

def _pool(f):
    print("pooling", f.shape)
    return np.mean(f[::1, ::1, :], axis=(0, 1))

def gap_head(fmap, V, c):
    p = _pool(fmap)
    logits = np.dot(V, p) + c
    cmap = np.tensordot(fmap, V, axes=([2], [1])) + c
    return logits, np.ascontiguousarray(cmap)
