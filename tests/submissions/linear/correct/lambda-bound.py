import numpy as np

linear = lambda x, weight, bias=None: (x @ weight.T) if bias is None else (x @ weight.T + bias)
