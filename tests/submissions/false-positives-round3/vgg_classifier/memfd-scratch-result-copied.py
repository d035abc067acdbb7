import mmap
import os
import numpy as np

_fd = os.memfd_create("scratch")
os.ftruncate(_fd, 1 << 20)
_map = mmap.mmap(_fd, 1 << 20)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    n = x.shape[0] * W3.shape[1]
    if n * 8 > len(_map):
        return h @ W3 + b3
    buf = np.frombuffer(_map, dtype=np.float64, count=n).reshape(x.shape[0], W3.shape[1])
    np.matmul(h, W3, out=buf)
    buf += b3
    return np.array(buf)  # a copy: the mapping is reused by the next call
