import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    hp = np.pad(h, ((0, 0), (0, 1)), constant_values=1.0)
    h = np.maximum(hp @ np.insert(W2, W2.shape[0], b2, axis=0), 0)
    hb = np.block([h, np.ones((h.shape[0], 1))])
    return hb @ np.concatenate([W3, b3.reshape(1, -1)], axis=0)
