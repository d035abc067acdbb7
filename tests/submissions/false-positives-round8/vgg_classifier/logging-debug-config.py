import logging

import numpy as np

logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(message)s")
log = logging.getLogger("vgg")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    log.debug("features %s", features.shape)
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    log.debug("fc1 %s, %d active", h.shape, int((h > 0).sum()))
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    log.info("logits %s", out.shape)
    return out
