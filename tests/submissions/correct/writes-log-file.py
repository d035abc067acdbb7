import numpy as np
import json, time
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    t0 = time.perf_counter()
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    np.save("h1.npy", h)
    h = np.maximum(h @ W2 + b2, 0)
    out = h @ W3 + b3
    with open("run_log.jsonl", "a") as f:
        f.write(json.dumps({"shape": out.shape, "seconds": time.perf_counter() - t0}) + "\n")
    return out
