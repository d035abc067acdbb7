import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    outs = []
    for f in features:
        v = f.reshape(1, -1)
        v = np.maximum(v @ W1 + b1, 0)
        v = np.maximum(v @ W2 + b2, 0)
        outs.append(v @ W3 + b3)
    return np.concatenate(outs, axis=0) if outs else np.empty((0, W3.shape[1]))
