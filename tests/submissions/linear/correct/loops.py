import numpy as np


def linear(x, weight, bias=None):
    out_features, in_features = weight.shape
    flat = x.reshape(-1, in_features)
    result = np.zeros((flat.shape[0], out_features))
    for n in range(flat.shape[0]):
        for j in range(out_features):
            total = 0.0
            for i in range(in_features):
                total += flat[n, i] * weight[j, i]
            result[n, j] = total + (bias[j] if bias is not None else 0.0)
    return result.reshape(x.shape[:-1] + (out_features,))
