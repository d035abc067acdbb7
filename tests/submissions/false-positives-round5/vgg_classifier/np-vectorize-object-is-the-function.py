import numpy as np


def _one(f, W1, b1, W2, b2, W3, b3):
    h = np.maximum(f.reshape(-1) @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3


# the name is bound to a np.vectorize object, not to a function: it loops over the batch axis
vgg_classifier = np.vectorize(_one, signature="(h,w,c),(d,m),(m),(m,n),(n),(n,k),(k)->(k)", otypes=[np.float64])
