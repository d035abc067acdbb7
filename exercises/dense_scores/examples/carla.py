import numpy as np


def dense_scores(fmap, weight, bias, k):
    # Carla: cut the map into k x k patches and score each one
    H, W, C = fmap.shape
    scores = np.zeros((H // k, W // k, weight.shape[0]))
    for a in range(H // k):
        for b in range(W // k):
            patch = fmap[a * k:(a + 1) * k, b * k:(b + 1) * k]
            scores[a, b] = weight @ patch.reshape(-1) + bias
    return scores
