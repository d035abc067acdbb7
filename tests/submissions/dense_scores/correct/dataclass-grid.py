import numpy as np

from dataclasses import dataclass
@dataclass
class Grid:
    H: int
    W: int
    k: int
    @property
    def rows(self):
        return self.H - self.k + 1
    @property
    def cols(self):
        return self.W - self.k + 1

def dense_scores(fmap, weight, bias, k):
    g = Grid(fmap.shape[0], fmap.shape[1], k)
    windows = np.array([fmap[i:i + k, j:j + k].flatten(order="C") for i in range(g.rows) for j in range(g.cols)])
    return (windows @ weight.T + bias).reshape(g.rows, g.cols, -1)
