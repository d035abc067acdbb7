import numpy as np
def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = []
    i = 0
    while i + k <= H:
        row = []
        j = 0
        while j + k <= W:
            row.append(weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias)
            j += 1
        out.append(row)
        i += 1
    return np.array(out)
