import numpy as np
def linear(x, weight, bias):
    """PyTorch's F.linear: weight stored (out_features, in_features)."""
    return x @ weight.T + bias
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    # our weights are (in, out); torch keeps (out, in), so hand it the transposes
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(linear(x, W1.T, b1), 0)
    h = np.maximum(linear(h, W2.T, b2), 0)
    return linear(h, W3.T, b3)
