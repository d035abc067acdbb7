import sys
import numpy as np
sys.setrecursionlimit(10_000)
VERBOSE = "-v" in sys.argv[1:]
SCRIPT = sys.argv[0] if sys.argv else "?"
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    if VERBOSE:
        print(SCRIPT, h.shape)
    return h @ W3 + b3
def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 2
    rng = np.random.default_rng(0)
    out = vgg_classifier(rng.random((n, 2, 2, 3)), rng.random((12, 5)), np.zeros(5), rng.random((5, 4)),
                         np.zeros(4), rng.random((4, 3)), np.zeros(3))
    print(out.shape)
    return 0
if __name__ == "__main__":
    raise SystemExit(main())
