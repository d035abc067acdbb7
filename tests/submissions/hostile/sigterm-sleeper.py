"""Ignores SIGTERM (and SIGINT, SIGHUP) and sleeps far past every limit."""
import signal
import time

import numpy as np

INFO = {}
for name in ("SIGTERM", "SIGINT", "SIGHUP"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    time.sleep(3600)
