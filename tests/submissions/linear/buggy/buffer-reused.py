import numpy as np

def linear(x, weight, bias=None):
    m = weight.shape[0]
    flat = x.reshape(-1, x.shape[-1])
    rows = []
    row = np.zeros(m)
    for v in flat:
        row[:] = weight @ v
        if bias is not None:
            row += bias
        rows.append(row)
    return np.array(rows).reshape(x.shape[:-1] + (m,))
