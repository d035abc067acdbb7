import asyncio
import numpy as np
def _row(r, W1, b1, W2, b2, W3, b3):
    h = np.maximum(r @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
async def _all(x, *params):
    return await asyncio.gather(*(asyncio.to_thread(_row, r, *params) for r in x))
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return np.stack(asyncio.run(_all(x, W1, b1, W2, b2, W3, b3)))
