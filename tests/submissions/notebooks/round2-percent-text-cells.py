# %% [markdown]
# # VGG classifier head
# Flatten, two FC+ReLU layers, one FC.

# %%
import numpy as np

#%% md
The solution goes below: keep float64 throughout.

# %%
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(0.0, x @ W1 + b1)
    h = np.maximum(0.0, h @ W2 + b2)
    return h @ W3 + b3

# %% [raw]
not code either: a raw cell
