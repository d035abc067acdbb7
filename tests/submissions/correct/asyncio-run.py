import asyncio
import numpy as np
async def layer(x, W, b, relu):
    await asyncio.sleep(0)
    z = x @ W + b
    return np.maximum(z, 0) if relu else z
async def _head(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    x = await layer(x, W1, b1, True)
    x = await layer(x, W2, b2, True)
    return await layer(x, W3, b3, False)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return asyncio.run(_head(features, W1, b1, W2, b2, W3, b3))
