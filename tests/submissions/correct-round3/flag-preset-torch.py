import numpy as np
HAS_TORCH = False
try:
    import torch
    HAS_TORCH = True
except ImportError:
    pass
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if HAS_TORCH:
        t = lambda a: torch.from_numpy(a)
        x = t(features).flatten(1)
        h = torch.relu(x @ t(W1) + t(b1))
        h = torch.relu(h @ t(W2) + t(b2))
        return (h @ t(W3) + t(b3)).numpy()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
