import numpy as np
def dense(*, inputs, kernel, bias, activation=None):
    z = np.matmul(inputs, kernel) + bias
    return activation(z) if activation else z
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    relu = lambda t: np.maximum(t, 0)
    h = dense(inputs=features.reshape(features.shape[0], -1), kernel=W1, bias=b1, activation=relu)
    h = dense(inputs=h, kernel=W2, bias=b2, activation=relu)
    return dense(inputs=h, kernel=W3, bias=b3)
