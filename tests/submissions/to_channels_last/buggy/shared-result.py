"""Ports into one module-level buffer, grown when a weight needs more room, to spare an allocation per call: every
call returns a view of the same memory, so the weight ported first changes when the next one is ported."""
import numpy as np

_buffer = np.empty(0)


def to_channels_last(weight, C, H, W):
    global _buffer
    out = weight.shape[0]
    if _buffer.size < weight.size:
        _buffer = np.empty(weight.size)
    result = _buffer[:weight.size].reshape(out, H * W * C)
    result[...] = weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)
    return result
