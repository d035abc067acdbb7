import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = np.reshape(features, (len(features), -1))
    for W, b, relu in ((W1, b1, True), (W2, b2, True), (W3, b3, False)):
        x = np.inner(x, W.T) + b
        if relu:
            x = np.maximum(x, 0)
    return x
