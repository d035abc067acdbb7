import logging
import warnings

import numpy as np

logging.captureWarnings(True)
logging.basicConfig(level=logging.INFO)
warnings.simplefilter("always")
warnings.warn("vgg_head: experimental NumPy port, check against torchvision", FutureWarning)
logging.getLogger(__name__).info("module loaded with numpy %s", np.__version__)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.nbytes + W1.nbytes > 100 * 2**20:
        warnings.warn("inputs over 100 MiB", ResourceWarning)
    with np.errstate(all="warn"):
        x = features.reshape(features.shape[0], -1)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
