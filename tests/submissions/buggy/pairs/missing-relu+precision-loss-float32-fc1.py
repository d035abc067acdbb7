import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    f32 = np.float32
    x = features.reshape(features.shape[0], -1).astype(f32)
    h1 = x @ W1.astype(f32) + b1.astype(f32)
    h2 = np.maximum(h1 @ W2.astype(f32) + b2.astype(f32), 0)
    y = h2 @ W3.astype(f32) + b3.astype(f32)
    return np.asarray(y, dtype=np.float64)
