import locale
import multiprocessing
import os
import shutil

import numpy as np

locale.setlocale(locale.LC_ALL, "")
N_CPU = min(multiprocessing.cpu_count(), len(os.sched_getaffinity(0)))
COLS = shutil.get_terminal_size().columns


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3

