# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:light
#     text_representation:
#       extension: .py
#       format_name: light
#       format_version: '1.5'
#       jupytext_version: 1.16.0
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# # FC layers

import numpy as np
# %matplotlib inline

# +
def linear(x, weight, bias=None):
    lead = x.shape[:-1]
    rows = x.reshape(-1, x.shape[-1])          # (N, in), N = prod(lead) (1 for a vector)
    y = rows @ weight.T
    if bias is not None:
        y += bias
    return y.reshape(*lead, weight.shape[0])

# -

# +
def to_channels_last(weight, C, H, W):
    c, h, w = np.meshgrid(np.arange(C), np.arange(H), np.arange(W), indexing="ij")
    src = np.ravel_multi_index((c, h, w), (C, H, W)).ravel()
    dst = np.ravel_multi_index((h, w, c), (H, W, C)).ravel()
    new = np.empty_like(weight)
    new[:, dst] = weight[:, src]
    return new

# -

# +
def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    Wk = weight.reshape(m, k, k, C)
    out = np.broadcast_to(bias, (H - k + 1, W - k + 1, m)).copy()
    for u in range(k):
        for v in range(k):
            out += fmap[u:u + H - k + 1, v:v + W - k + 1, :] @ Wk[:, u, v, :].T
    return out

# -

# +
def gap_head(fmap, V, c):
    h, w, C = fmap.shape
    pos = fmap.reshape(h * w, C)
    logits = np.dot(V, pos.mean(axis=0)) + c
    return [logits, (pos @ V.T + c).reshape(h, w, -1)]

# -

# +
x = np.ones((2, 3))
linear(x, np.eye(3)).shape
# -
