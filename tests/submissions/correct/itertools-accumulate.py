import itertools
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x0 = features.reshape(features.shape[0], -1)
    steps = [(W1, b1, True), (W2, b2, True), (W3, b3, False)]
    def layer(x, s):
        W, b, act = s
        z = x @ W + b
        return np.maximum(z, 0) if act else z
    outs = list(itertools.accumulate(steps, layer, initial=x0))
    return outs[-1]
