# A numpy head with an accelerated branch chosen at run time, written the ways notebooks check for one: whether a
# library is installed (importlib.util.find_spec), whether CUDA is available, and whether the input is a tensor.
# While grading torch is a stand-in and no GPU exists, so every check must answer no and the numpy branch run.
import importlib.util

import numpy as np
import torch

HAS_JAX = importlib.util.find_spec("jax") is not None
USE_GPU = torch.cuda.is_available()
print(f"jax: {HAS_JAX}, GPU: {USE_GPU}")


def _numpy_head(x, W1, b1, W2, b2, W3, b3):
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3


def _torch_head(x, *params):
    t = [torch.from_numpy(p).cuda() for p in (x, *params)]
    h = torch.relu(t[0] @ t[1] + t[2])
    h = torch.relu(h @ t[3] + t[4])
    return (h @ t[5] + t[6]).cpu().numpy()


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if torch.is_tensor(features):
        features = features.detach().cpu().numpy()
    x = features.reshape(features.shape[0], -1)
    if HAS_JAX:
        import jax.numpy as jnp
        return np.asarray(jnp.asarray(_numpy_head(x, W1, b1, W2, b2, W3, b3)))
    if USE_GPU:
        return _torch_head(x, W1, b1, W2, b2, W3, b3)
    return _numpy_head(x, W1, b1, W2, b2, W3, b3)
