import copy
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    params = copy.deepcopy({"b1": b1, "b2": b2, "b3": b3})
    x = features.reshape(features.shape[0], -1).copy()
    h = np.maximum(x @ W1 + params["b1"], 0)
    h = np.maximum(h @ W2 + params["b2"], 0)
    return h @ W3 + params["b3"]
