import cProfile
import pstats
import timeit
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
_rng = np.random.default_rng(0)
_a = (_rng.random((2, 7, 7, 8)), _rng.random((392, 16)), np.zeros(16), _rng.random((16, 8)), np.zeros(8),
      _rng.random((8, 4)), np.zeros(4))
prof = cProfile.Profile()
prof.enable()
vgg_classifier(*_a)
prof.disable()
pstats.Stats(prof).sort_stats("cumulative").print_stats(3)
print("mean", timeit.timeit(lambda: vgg_classifier(*_a), number=5) / 5)
