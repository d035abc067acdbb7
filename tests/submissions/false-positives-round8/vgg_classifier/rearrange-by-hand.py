import re

import numpy as np


def rearrange(x, pattern):
    """A tiny einops.rearrange: only merges of adjacent axes ('b h w c -> b (h w c)')."""
    left, right = (side.strip() for side in pattern.split("->"))
    names = left.split()
    sizes = dict(zip(names, x.shape))
    groups = re.findall(r"\(([^)]*)\)|(\w+)", right)
    order = [n for group, single in groups for n in (group.split() if group else [single])]
    assert order == names, "only merges are supported"
    shape = []
    for group, single in groups:
        shape.append(int(np.prod([sizes[n] for n in group.split()])) if group else sizes[single])
    return x.reshape(shape)


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = rearrange(features, "b h w c -> b (h w c)")
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
