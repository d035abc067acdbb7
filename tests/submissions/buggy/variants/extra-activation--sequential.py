import numpy as np

relu = lambda t: np.maximum(t, 0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    pipeline = [
        lambda t: t.reshape(t.shape[0], -1),
        relu,                       # features come from a ReLU conv block anyway
        lambda t: t @ W1 + b1, relu,
        lambda t: t @ W2 + b2, relu,
        lambda t: t @ W3 + b3,
    ]
    for step in pipeline:
        features = step(features)
    return features
