import enum
import numpy as np
class Act(enum.Enum):
    RELU = "relu"
    NONE = "none"
    def __call__(self, z):
        return np.maximum(z, 0) if self is Act.RELU else z
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    for W, b, act in ((W1, b1, Act.RELU), (W2, b2, Act.RELU), (W3, b3, Act.NONE)):
        x = act(x @ W + b)
    return x
