import numpy as np
HAS_JAX = False
try:
    import jax
    import jax.numpy as jnp
    HAS_JAX = True
except ImportError:
    pass
finally:
    xp = np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if HAS_JAX:
        return np.asarray(jax.jit(lambda f: f)(features))
    x = xp.asarray(features).reshape(features.shape[0], -1)
    h = xp.maximum(x @ xp.asarray(W1) + xp.asarray(b1), 0)
    h = xp.maximum(h @ xp.asarray(W2) + xp.asarray(b2), 0)
    return np.asarray(h @ xp.asarray(W3) + xp.asarray(b3))
