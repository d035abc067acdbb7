import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    parts = [x @ W1[:, j:j + 512] + b1[j:j + 512] for j in range(0, W1.shape[1], 512)]
    h = np.maximum(np.hstack(parts), 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
