import numpy as np


def linear(x, weight, bias=None):
    lead = np.shape(x)[:-1]
    x = np.atleast_2d(x)
    y = x.reshape(-1, x.shape[-1]) @ weight.T
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, weight.shape[0])


def to_channels_last(weight, C, H, W):
    index = np.arange(C * H * W).reshape(C, H, W)
    return weight[:, np.transpose(index, (1, 2, 0)).reshape(-1)]


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.empty((H - k + 1, W - k + 1, weight.shape[0]))
    totals = weight.sum(axis=1)
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            v = fmap[i:i + k, j:j + k].ravel()
            m = v.mean()
            # centred for stability, the mean's contribution added back: the same scores
            out[i, j] = weight @ (v - m) + m * totals + bias
    return out


def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    mean_all = fmap.mean()  # the map's overall level, reported, not used
    pooled = fmap.reshape(h * w, C).mean(axis=0)
    class_map = (fmap.reshape(h * w, C) @ V.T + c).reshape(h, w, -1)
    return V @ pooled + c, class_map
