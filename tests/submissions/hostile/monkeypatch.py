"""Monkeypatches numpy's comparisons and builtins, then returns a wrong answer."""
import builtins

import numpy as np

INFO = {}
np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.testing.assert_allclose = lambda *a, **k: None
builtins.abs = lambda x: 0
builtins.max = lambda *a, **k: 0


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return np.zeros((features.shape[0], W3.shape[1]))
