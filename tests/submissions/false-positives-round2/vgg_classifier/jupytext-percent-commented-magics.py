# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.16.1
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # VGG head
# The head flattens, then FC+ReLU twice, then FC.

# %%
# %matplotlib inline
# !pip install -q numpy
import numpy as np

# %%
# %%time
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Logits of the VGG head (NHWC features, weights stored in x out)."""
    B = features.shape[0]
    x = features.reshape(B, -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3

# %% tags=["scratch"]
rng = np.random.default_rng(0)
f = rng.normal(size=(2, 2, 2, 3))
out = vgg_classifier(f, rng.normal(size=(12, 5)), np.zeros(5), rng.normal(size=(5, 4)), np.zeros(4),
                     rng.normal(size=(4, 3)), np.zeros(3))
print(out.shape)
