import contextlib
import io
import sys
import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        x = features.reshape(features.shape[0], -1)
        print("flattened", x.shape)
        h = np.maximum(x @ W1 + b1, 0)
        h = np.maximum(h @ W2 + b2, 0)
        out = h @ W3 + b3
    sys.stderr.write(buf.getvalue()[:40])
    sys.stdout.flush()
    return out
