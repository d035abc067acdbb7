import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    features = features.astype('d')
    W1, W2, W3 = (np.asarray(w, 'f8') for w in (W1, W2, W3))
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
