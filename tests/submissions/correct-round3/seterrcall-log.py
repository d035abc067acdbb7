import numpy as np
problems = []
np.seterrcall(lambda kind, flag: problems.append(kind))
np.seterr(all="call")
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    if problems:
        print("floating point trouble:", problems)
    return out
