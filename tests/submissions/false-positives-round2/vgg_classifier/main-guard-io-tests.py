"""VGG16 classifier head, homework 3.

Run ``python hw3.py`` to check against the weights saved from the lab (data/vgg_head.npz).
"""
import sys
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    n = features.shape[0]
    flat = features.reshape(n, -1)
    a1 = np.maximum(0, flat.dot(W1) + b1)
    a2 = np.maximum(0, a1.dot(W2) + b2)
    return a2.dot(W3) + b3


if __name__ == "__main__":
    data = np.load("data/vgg_head.npz")
    logits = vgg_classifier(data["features"], *(data[k] for k in ["W1", "b1", "W2", "b2", "W3", "b3"]))
    np.save("/tmp/my_logits.npy", logits)
    with open("results.txt", "w") as fh:
        fh.write(str(logits.argmax(axis=1)))
    assert np.allclose(logits, data["expected"]), "mismatch!"
    sys.exit(0)
