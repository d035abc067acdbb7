import functools
import numpy as np

@functools.lru_cache(maxsize=64)
def _out_shape(x_shape, m):
    return tuple(x_shape[:-1]) + (m,)

def linear(x, weight, bias=None):
    flat = x.reshape(-1, x.shape[-1])
    rows = [weight @ v + (0 if bias is None else bias) for v in flat]
    y = np.vstack(rows) if rows else np.zeros((0, weight.shape[0]))
    return y.reshape(_out_shape(x.shape, weight.shape[0]))


import numpy as np
_perm_cache = {}

def to_channels_last(weight, C, H, W):
    key = (C, H, W)
    if key not in _perm_cache:
        _perm_cache[key] = np.arange(C * H * W).reshape(C, H, W).transpose(1, 2, 0).reshape(-1)
    return np.take(weight, _perm_cache[key], axis=1)


import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

def dense_scores(fmap, weight, bias, k):
    win = sliding_window_view(fmap, (k, k), axis=(0, 1))   # (Ho, Wo, C, k, k)
    win = win.transpose(0, 1, 3, 4, 2)                      # (Ho, Wo, k, k, C)
    m = weight.shape[0]
    kern = weight.reshape(m, k, k, fmap.shape[2])
    out = np.einsum("ijuvc,ouvc->ijo", win, kern, optimize=True)
    for o in range(m):
        out[..., o] += bias[o]
    return out


import numpy as np

def gap_head(fmap, V, c):
    cmap = np.einsum("ijc,kc->ijk", fmap, V, optimize=True)
    for k in range(V.shape[0]):
        cmap[:, :, k] += c[k]
    logits = cmap.mean(axis=(0, 1), dtype=np.float64)
    return (logits, cmap)
