import sys
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3



def main():
    print(vgg_classifier(np.ones((1, 1, 1, 2)), np.eye(2), np.zeros(2), np.eye(2), np.zeros(2), np.eye(2), np.zeros(2)))
    return 0


sys.exit(main())
