import sys

import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = []
    n = features.shape[0]
    for i, sample in enumerate(features):
        x = sample.reshape(-1)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        rows.append(h @ W3 + b3)
        sys.stdout.write(f"\r[{'#' * (i + 1)}{'.' * (n - i - 1)}] {i + 1}/{n}")
        sys.stdout.flush()
    sys.stdout.write("\n")
    return np.asarray(rows)
