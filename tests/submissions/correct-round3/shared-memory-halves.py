from multiprocessing import shared_memory
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    shm = shared_memory.SharedMemory(create=True, size=x.shape[0] * W3.shape[1] * 8)
    try:
        out = np.ndarray((x.shape[0], W3.shape[1]), dtype=np.float64, buffer=shm.buf)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        out[:] = h @ W3 + b3
        return out.copy()
    finally:
        shm.close()
        shm.unlink()
