import numpy as np


def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=(0, 1))
    logits = pooled @ V + c          # Keras-style kernel (in, out)
    class_map = fmap @ V + c
    return logits, class_map
