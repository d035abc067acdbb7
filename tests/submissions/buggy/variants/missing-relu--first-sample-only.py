import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    B = features.shape[0]
    out = []
    for i in range(B):
        x = features[i].reshape(-1)
        h1 = x @ W1 + b1
        if i == 0:
            h1 = np.maximum(h1, 0)
        h2 = np.maximum(h1 @ W2 + b2, 0)
        out.append(h2 @ W3 + b3)
    return np.stack(out)
