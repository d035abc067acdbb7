"""Calls os._exit(0) while the file is loaded."""
import os

INFO = {}
os._exit(0)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return features
