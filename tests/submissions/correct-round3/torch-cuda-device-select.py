import numpy as np
try:
    import torch
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
except Exception:
    torch = None
    DEVICE = "cpu"
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if torch is not None and DEVICE == "cuda":
        t = lambda a: torch.as_tensor(a, device=DEVICE)
        x = t(features).flatten(1)
        h = torch.relu(x @ t(W1) + t(b1))
        h = torch.relu(h @ t(W2) + t(b2))
        return (h @ t(W3) + t(b3)).cpu().numpy()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
