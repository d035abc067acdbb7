import numpy as np

try:
    from einops import rearrange
except ImportError:  # no einops on the grading machine: the same flatten by hand
    def rearrange(t, pattern):
        assert pattern == "b h w c -> b (h w c)"
        return t.reshape(t.shape[0], -1)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = rearrange(features, "b h w c -> b (h w c)")
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
