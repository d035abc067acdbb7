import numpy as np

def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    m = weight.shape[0]
    rows = []
    row = np.zeros((W - k + 1, m))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            row[j] = weight @ fmap[i:i + k, j:j + k].ravel() + bias
        rows.append(row)
    return np.array(rows)
