import numpy as np

def σ(z):
    return np.maximum(z, 0.0)

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    hidden_α = σ(x @ W1 + b1)
    hidden_β = σ(hidden_α @ W2 + b2)
    return hidden_β @ W3 + b3
