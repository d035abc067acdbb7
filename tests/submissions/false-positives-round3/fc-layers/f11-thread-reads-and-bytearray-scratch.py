import threading
import time
import numpy as np

_seen = []


def _peek(*arrays):
    time.sleep(0.004)
    _seen.append([float(np.sum(a)) for a in arrays])


def linear(x, weight, bias=None):
    threading.Thread(target=_peek, args=(x, weight), daemon=True).start()
    y = x @ weight.T
    return y if bias is None else y + bias


_raw = bytearray(1 << 21)


def to_channels_last(weight, C, H, W):
    if weight.nbytes > len(_raw):
        return weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
    tmp = np.frombuffer(_raw, dtype=np.float64, count=weight.size).reshape(weight.shape[0], H, W, C)
    tmp[...] = weight.reshape(-1, C, H, W).transpose(0, 2, 3, 1)
    return tmp.reshape(weight.shape[0], -1).copy()


def dense_scores(fmap, weight, bias, k):
    threading.Thread(target=_peek, args=(fmap, weight, bias), daemon=True).start()
    H, W, C = fmap.shape
    return np.array([[weight @ fmap[i:i + k, j:j + k].ravel() + bias for j in range(W - k + 1)]
                     for i in range(H - k + 1)]).reshape(H - k + 1, W - k + 1, weight.shape[0])


def gap_head(fmap, V, c):
    cam = fmap @ V.T + c
    return cam.mean(axis=(0, 1)), cam
