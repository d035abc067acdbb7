import secrets
import time
import uuid
from datetime import datetime
import numpy as np
RUN_ID = uuid.uuid4().hex[:8]
TOKEN = secrets.token_hex(4)
print(f"run {RUN_ID} {TOKEN} started {datetime.now():%H:%M:%S}")
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    t0 = time.perf_counter()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    print(f"[{RUN_ID}] {time.perf_counter() - t0:.4f}s")
    return out
