import numpy as np


def linear(x, weight, bias=None):
    raise NotImplementedError("bias handling not done yet")
