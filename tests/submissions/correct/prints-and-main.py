import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    print("features:", features.shape)
    x = features.reshape(features.shape[0], -1)
    print("flattened:", x.shape)
    h1 = np.maximum(x @ W1 + b1, 0.0)
    print("h1:", h1.shape, "active units:", int((h1 > 0).sum()))
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    print("h2:", h2.shape)
    y = h2 @ W3 + b3
    print("logits:", y.shape, y.dtype)
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    F = rng.standard_normal((2, 3, 4, 5))
    W1, b1 = rng.standard_normal((60, 8)), rng.standard_normal(8)
    W2, b2 = rng.standard_normal((8, 6)), rng.standard_normal(6)
    W3, b3 = rng.standard_normal((6, 3)), rng.standard_normal(3)
    out = vgg_classifier(F, W1, b1, W2, b2, W3, b3)
    assert out.shape == (2, 3) and out.dtype == np.float64
    print(out)
