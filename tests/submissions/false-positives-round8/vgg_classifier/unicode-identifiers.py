import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    𝐱 = features.reshape(features.shape[0], -1)
    σ = lambda z: np.maximum(z, 0)
    ĥ1 = σ(𝐱 @ W1 + b1)
    ĥ2 = σ(ĥ1 @ W2 + b2)
    ŷ = ĥ2 @ W3 + b3
    return ŷ
