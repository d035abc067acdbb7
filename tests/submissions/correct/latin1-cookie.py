# -*- coding: latin-1 -*-
# Tête de classification VGG : aplatir, puis trois couches entièrement connectées.
# Écrit par Zoé, relu par André.
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)   # aplatir (ordre C)
    h1 = np.maximum(x @ W1 + b1, 0.0)             # FC1 + ReLU
    h2 = np.maximum(h1 @ W2 + b2, 0.0)            # FC2 + ReLU
    return h2 @ W3 + b3                           # FC3, logits bruts (pas de softmax)
