"""Starts up to 2000 sleeping threads."""
import threading
import time

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    started = 0
    for _ in range(2000):
        threading.Thread(target=time.sleep, args=(INFO.get("linger", 20),), daemon=True).start()
        started += 1
    raise RuntimeError(f"LEAK started {started} threads")
