"""Right scores, written into one module-level grid kept between calls: every call returns a view of the same
memory, so the scores of one map change when the next map is scored."""
import numpy as np

_grid = np.empty(0)


def dense_scores(fmap, weight, bias, k):
    global _grid
    H, W, C = fmap.shape
    shape = (H - k + 1, W - k + 1, len(bias))
    size = shape[0] * shape[1] * shape[2]
    if _grid.size < size:
        _grid = np.empty(size)
    out = _grid[:size].reshape(shape)
    kern = weight.reshape(len(bias), k, k, C)
    for i in range(shape[0]):
        for j in range(shape[1]):
            out[i, j] = np.tensordot(kern, fmap[i:i + k, j:j + k], axes=([1, 2, 3], [0, 1, 2])) + bias
    return out
