import signal
import numpy as np
class Timeout(Exception):
    pass
def _raise(signum, frame):
    raise Timeout()
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    old = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(5)
    try:
        x = features.reshape(features.shape[0], -1)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        return h @ W3 + b3
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
