import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    out = features.reshape(features.shape[0], -1)
    for W, b in [(W1, b1), (W2, b2), (W3, b3)]:
        out = np.maximum(0.0, np.add(np.matmul(out, W), b))
    return out
