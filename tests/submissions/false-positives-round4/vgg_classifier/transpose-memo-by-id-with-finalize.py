import hashlib
import weakref

import numpy as np

# W.T made contiguous once per weight array: keyed by id, dropped when the array dies (so no other array can
# take its id while the entry lives), and checked against a digest of the contents in case it was changed in place
_transposed = {}


def _fingerprint(W):
    return hashlib.md5(np.ascontiguousarray(W).tobytes()).hexdigest()


def _wt(W):
    entry = _transposed.get(id(W))
    if entry is not None and entry[0]() is W and entry[1] == _fingerprint(W):
        return entry[2]
    if entry is None:
        weakref.finalize(W, _transposed.pop, id(W), None)
    _transposed[id(W)] = (weakref.ref(W), _fingerprint(W), np.ascontiguousarray(W.T))
    return _transposed[id(W)][2]


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum((_wt(W1) @ x.T).T + b1, 0.0)
    h2 = np.maximum((_wt(W2) @ h1.T).T + b2, 0.0)
    return (_wt(W3) @ h2.T).T + b3
