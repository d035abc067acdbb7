import numpy as np

KEEP_PROB = 0.5  # VGG uses dropout 0.5 on FC1 and FC2


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    x = features.reshape(features.shape[0], -1)
    # at test time, scale the activations by the keep probability
    h1 = np.maximum(x @ W1 + b1, 0.0) * KEEP_PROB
    h2 = np.maximum(h1 @ W2 + b2, 0.0) * KEEP_PROB
    return h2 @ W3 + b3
