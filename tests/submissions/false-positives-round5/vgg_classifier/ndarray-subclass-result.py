import numpy as np


class Logits(np.ndarray):
    """Logits that know how to turn themselves into probabilities (for my own plots)."""

    def softmax(self):
        e = np.exp(self - self.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return np.asarray(h @ W3 + b3)  # a plain array: Logits(...) is only for my notebook
