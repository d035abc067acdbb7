import numpy as np

def linear(x, weight):
    return x @ weight.T
