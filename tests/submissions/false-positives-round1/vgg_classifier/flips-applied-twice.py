import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    f = np.flip(np.flip(features, axis=1), axis=1)
    f = f[:, :, ::-1][:, :, ::-1]
    x = f.reshape(f.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
