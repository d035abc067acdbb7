"""A numpy head written as a torch module: the module class is a stand-in, its forward() is the student's."""
import numpy as np
import torch.nn as nn

class Head(nn.Module):
    def __init__(self, *weights):
        super().__init__()
        self.weights = weights

    def forward(self, features):
        W1, b1, W2, b2, W3, b3 = self.weights
        x = features.reshape(len(features), -1)
        h = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0)
        return h @ W3 + b3

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    return Head(W1, b1, W2, b2, W3, b3)(features)
