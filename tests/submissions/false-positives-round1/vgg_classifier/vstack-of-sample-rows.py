import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = []
    for f in features:
        v = f.flatten()
        v = np.maximum(v @ W1 + b1, 0)
        v = np.maximum(v @ W2 + b2, 0)
        rows.append(v @ W3 + b3)
    return np.vstack(rows)
