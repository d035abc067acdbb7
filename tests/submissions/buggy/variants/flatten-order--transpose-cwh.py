import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    x = np.transpose(features, (0, 3, 2, 1)).reshape(B, -1)
    h1 = np.clip(x @ W1 + b1, 0, None)
    h2 = np.clip(h1 @ W2 + b2, 0, None)
    return h2 @ W3 + b3
