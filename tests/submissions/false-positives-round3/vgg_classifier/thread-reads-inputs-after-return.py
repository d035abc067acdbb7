import threading
import time
import numpy as np

_stats = []


def _log_statistics(features, W1):
    time.sleep(0.005)  # after the answer: only reads
    _stats.append((float(features.mean()), float(np.abs(W1).max())))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    threading.Thread(target=_log_statistics, args=(features, W1), daemon=True).start()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
