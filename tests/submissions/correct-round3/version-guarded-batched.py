import sys
import numpy as np
if sys.version_info >= (3, 12):
    from itertools import batched
else:
    from itertools import islice
    def batched(iterable, n):
        it = iter(iterable)
        while chunk := tuple(islice(it, n)):
            yield chunk
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    out = []
    for idx in batched(range(len(x)), 2):
        h = np.maximum(x[list(idx)] @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        out.append(h @ W3 + b3)
    return np.concatenate(out)
