"""Reference solution for the linear layer (nn.Linear's convention). Never shipped to students."""
import numpy as np


def linear(x, weight, bias=None):
    y = x @ weight.T  # (*, in) @ (in, out): matmul applies the weight to every vector along the last axis
    if bias is not None:
        y = y + bias  # broadcast along the last axis, the output axis
    return y
