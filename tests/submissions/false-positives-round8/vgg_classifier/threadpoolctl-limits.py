import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from threadpoolctl import threadpool_limits


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    with threadpool_limits(limits=1, user_api="blas"):
        x = features.reshape(features.shape[0], -1)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
