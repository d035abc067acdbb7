import numpy as np
class Porter:
    def __init__(self, order=(0, 2, 3, 1)):
        self.order = order
    def __call__(self, weight, C, H, W):
        n = weight.shape[0]
        return np.ascontiguousarray(weight.reshape(n, C, H, W).transpose(self.order)).reshape(n, H * W * C)
to_channels_last = Porter()
