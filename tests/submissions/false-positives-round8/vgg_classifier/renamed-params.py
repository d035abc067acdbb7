import numpy as np


def vgg_classifier(x, w_fc1, bias_fc1, w_fc2, bias_fc2, w_out, bias_out):
    x = x.reshape(x.shape[0], -1)
    x = np.maximum(x @ w_fc1 + bias_fc1, 0)
    x = np.maximum(x @ w_fc2 + bias_fc2, 0)
    return x @ w_out + bias_out
