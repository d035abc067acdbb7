import logging
import warnings
import numpy as np
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(message)s")
log = logging.getLogger("vgg")
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.dtype != np.float64:
        warnings.warn("features are not float64; casting")
    warnings.warn("this head is slow for big batches", RuntimeWarning, stacklevel=2)
    x = features.reshape(features.shape[0], -1)
    log.debug("flattened to %s", x.shape)
    h = np.maximum(x @ W1 + b1, 0)
    log.info("FC1 -> %s", h.shape)
    h = np.maximum(h @ W2 + b2, 0)
    log.warning("FC2 -> %s", h.shape)
    out = h @ W3 + b3
    print("logits", out.shape, out.dtype)
    return out
