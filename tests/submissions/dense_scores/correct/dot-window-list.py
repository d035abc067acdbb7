import numpy as np


def dense_scores(fmap, weight, bias, k):
    k = int(k)
    H, W, C = fmap.shape
    Ho, Wo = H - k + 1, W - k + 1
    X = np.array([fmap[i:i + k, j:j + k, :].flatten() for i in range(Ho) for j in range(Wo)])
    scores = np.dot(X, weight.T) + bias[None, :]
    return scores.reshape(Ho, Wo, weight.shape[0])
