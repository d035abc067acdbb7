import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    logits = np.empty((B, W3.shape[1]), dtype=np.float64)
    for i in range(B):
        v = features[i].ravel()
        a = np.maximum(v @ W1 + b1, 0.0)
        a = np.maximum(a @ W2 + b2, 0.0)
        logits[i] = a @ W3 + b3
    return logits
