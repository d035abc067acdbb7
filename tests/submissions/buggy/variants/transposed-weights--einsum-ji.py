import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    # weight indexed [out, in], as in torch.nn.Linear
    h1 = np.maximum(np.einsum("ni,oi->no", x, W1) + b1, 0.0)
    h2 = np.maximum(np.einsum("ni,io->no", h1, W2) + b2, 0.0)
    return np.einsum("ni,io->no", h2, W3) + b3
