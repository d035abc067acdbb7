import numpy as np
try:
    import tensorflow as tf
    relu = tf.nn.relu
    def to_numpy(t):
        return t.numpy()
except ModuleNotFoundError:
    relu = lambda z: np.maximum(z, 0)
    to_numpy = np.asarray
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = to_numpy(relu(x @ W1 + b1))
    h = to_numpy(relu(h @ W2 + b2))
    return h @ W3 + b3
