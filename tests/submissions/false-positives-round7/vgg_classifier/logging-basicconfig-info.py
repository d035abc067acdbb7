import logging
import time

import numpy as np

logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("vgg_head")


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    t0 = time.perf_counter()
    log.info("features %s, W1 %s, W2 %s, W3 %s", features.shape, W1.shape, W2.shape, W3.shape)
    x = features.reshape(len(features), -1)
    log.debug("flattened to %s (min %.3g max %.3g)", x.shape, x.min(), x.max())
    h1 = np.maximum(x @ W1 + b1, 0)
    log.debug("fc1 relu: %d of %d active", int((h1 > 0).sum()), h1.size)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    log.debug("fc2 relu: %d of %d active", int((h2 > 0).sum()), h2.size)
    y = h2 @ W3 + b3
    if y.shape[1] > 100:
        log.warning("many classes (%d); top-5 would be %s", y.shape[1], np.argsort(-y[0])[:5])
    log.info("done in %.1f ms", 1e3 * (time.perf_counter() - t0))
    return y
