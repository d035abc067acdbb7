import numpy as np


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    scores = [weight @ fmap[i:i + k, j:j + k].reshape(-1) + bias
              for i in range(H - k + 1) for j in range(W - k + 1)]
    return np.array(scores)  # one row per window
