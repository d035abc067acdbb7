import decimal

import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    ctx = decimal.Context(prec=60)
    D = np.vectorize(lambda v: ctx.create_decimal_from_float(float(v)), otypes=[object])
    x = D(features.reshape(features.shape[0], -1))
    zero = decimal.Decimal(0)
    for W, b, relu in ((W1, b1, True), (W2, b2, True), (W3, b3, False)):
        x = x.dot(D(W)) + D(b)
        if relu:
            x = np.where(x > zero, x, zero)
    return x.astype(np.float64)
