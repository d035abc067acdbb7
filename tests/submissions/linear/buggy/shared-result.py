"""Right outputs, written into one module-level buffer kept between calls: every call returns a view of the same
memory, so the outputs of one batch change when the next batch goes through the layer."""
import numpy as np

_out = np.empty(0)


def linear(x, weight, bias=None):
    global _out
    shape = x.shape[:-1] + (weight.shape[0],)
    size = int(np.prod(shape))
    if _out.size < size:
        _out = np.empty(size)
    out = _out[:size].reshape(shape)
    np.matmul(x, weight.T, out=out)
    if bias is not None:
        out += bias
    return out
