import numpy as np

_memo = {}  # id(W) -> (W itself, a copy of W, W.T): holding W means its id is never reused while the entry lives


def transpose_of(W):
    hit = _memo.get(id(W))
    if hit is not None and hit[0] is W and np.array_equal(hit[1], W):
        return hit[2]
    WT = W.T.copy()
    _memo[id(W)] = (W, W.copy(), WT)
    if len(_memo) > 12:
        del _memo[next(iter(_memo))]
    return WT


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(np.einsum("ij,bj->bi", transpose_of(W1), x) + b1, 0)
    h = np.maximum(np.einsum("ij,bj->bi", transpose_of(W2), h) + b2, 0)
    return np.einsum("ij,bj->bi", transpose_of(W3), h) + b3
