import os
os.environ["OMP_NUM_THREADS"] = "1"
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import sys
sys.setrecursionlimit(10000)
import numpy as np
np.random.seed(0)
rng = np.random.default_rng(42)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
# quick self-test with random data
_f = rng.standard_normal((2, 2, 2, 3))
_W1 = rng.standard_normal((12, 5)); _W2 = rng.standard_normal((5, 4)); _W3 = rng.standard_normal((4, 3))
_out = vgg_classifier(_f, _W1, np.zeros(5), _W2, np.zeros(4), _W3, np.zeros(3))
assert _out.shape == (2, 3)
print("self-test ok", np.random.rand())
