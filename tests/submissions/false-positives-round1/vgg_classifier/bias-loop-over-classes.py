import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3
    K = W3.shape[1]
    for k in range(K):
        logits[:, k] += b3[k]
    return logits
