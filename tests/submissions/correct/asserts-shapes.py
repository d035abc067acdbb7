import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    assert features.ndim == 4, features.shape
    B, H, W, C = features.shape
    assert W1.shape[0] == H * W * C, (W1.shape, features.shape)
    assert W1.shape[1] == b1.shape[0] == W2.shape[0]
    assert W2.shape[1] == b2.shape[0] == W3.shape[0]
    assert W3.shape[1] == b3.shape[0]
    x = features.reshape(B, H * W * C)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    assert out.shape == (B, W3.shape[1])
    assert out.dtype == np.float64
    return out
