import sys
import numpy as np

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return np.maximum(np.maximum(features.reshape(len(features), -1) @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3

sys.exit("done")
