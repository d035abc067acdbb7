import numpy as np
# mean over axis 0 only: one logit vector per column
def gap_head(fmap, V, c):
    pooled = fmap.mean(axis=0)
    logits = pooled @ V.T + c
    return logits, fmap @ V.T + c
