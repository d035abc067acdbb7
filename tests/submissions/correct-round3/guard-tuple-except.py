import numpy as np
try:
    import jax.numpy as xp
except (ImportError, OSError, RuntimeError):
    xp = np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = xp.asarray(features).reshape(features.shape[0], -1)
    h = xp.maximum(x @ xp.asarray(W1) + xp.asarray(b1), 0)
    h = xp.maximum(h @ xp.asarray(W2) + xp.asarray(b2), 0)
    return np.asarray(h @ xp.asarray(W3) + xp.asarray(b3))
