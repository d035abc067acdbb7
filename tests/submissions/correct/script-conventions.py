"""A solution written as a script: it reads its own path and command line at the top, asks for help on a numpy
function, keeps its layers as dataclasses with postponed annotations, and checks that they survive pickling."""
from __future__ import annotations

import argparse
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OPTIONS = argparse.ArgumentParser(description="VGG head demo").parse_args()
help(np.maximum)
assert sys.modules[__name__].__dict__ is globals()


@dataclass
class Dense:
    weight: np.ndarray
    bias: np.ndarray
    relu: bool = True

    def __call__(self, x: np.ndarray) -> np.ndarray:
        z = x @ self.weight + self.bias
        return np.maximum(z, 0.0) if self.relu else z


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    layers = [Dense(W1, b1), Dense(W2, b2), Dense(W3, b3, relu=False)]
    layers = pickle.loads(pickle.dumps(layers))
    x = features.reshape(features.shape[0], -1)
    for layer in layers:
        x = layer(x)
    return x
