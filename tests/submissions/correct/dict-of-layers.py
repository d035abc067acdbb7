import numpy as np
ACTS = {"relu": lambda z: np.maximum(z, 0), "linear": lambda z: z}
ARCH = [{"name": "fc6", "act": "relu"}, {"name": "fc7", "act": "relu"}, {"name": "fc8", "act": "linear"}]
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    params = {"fc6": (W1, b1), "fc7": (W2, b2), "fc8": (W3, b3)}
    x = features.reshape(features.shape[0], -1)
    for spec in ARCH:
        W, b = params[spec["name"]]
        x = ACTS[spec["act"]](x @ W + b)
    return x
