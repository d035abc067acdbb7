from multiprocessing.pool import ThreadPool
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    def one(row):
        h = np.maximum(row @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
    with ThreadPool(2) as pool:
        rows = pool.map(one, list(x))
    return np.stack(rows)
