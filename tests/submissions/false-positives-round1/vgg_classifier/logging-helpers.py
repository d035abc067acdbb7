import numpy as np
DEBUG = True
def log(*a):
    if DEBUG:
        print("[vgg]", *a)
def fc(x, W, b, relu):
    log("fc", x.shape, "->", W.shape[1], "relu" if relu else "")
    y = x @ W + b
    if relu:
        y = np.maximum(y, 0)
    log("done", y.shape)
    return y
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    log("batch", features.shape[0])
    x = features.reshape(features.shape[0], -1)
    out = fc(fc(fc(x, W1, b1, True), W2, b2, True), W3, b3, False)
    log("logits", out.shape)
    return out
