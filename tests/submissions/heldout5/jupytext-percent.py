# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # VGG head
#
# %timeit showed 3 ms; see !below

# %%
# %%writefile helpers.py
import numpy as np


def relu(z):
    return np.maximum(z, 0.0)


# %%
import numpy as np
# # %matplotlib inline  (not needed here)
# %time ramp = np.arange(6.0) - 3
print(ramp)
# !echo checked

# %%
import helpers


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Logits of the VGG head.

    %time is not needed here
    """
    x = features.reshape(features.shape[0], -1)
    h = helpers.relu(x @ W1 + b1)
    h = helpers.relu(h @ W2 + b2 * (ramp.size // 6))
    return h @ W3 + b3


# %%
vgg_classifier(np.ones((1, 2, 2, 1)), np.ones((4, 3)), np.zeros(3), np.ones((3, 3)), np.zeros(3), np.ones((3, 2)), np.zeros(2))
