import numpy as np


def linear(x, weight, bias=None):
    """np.inner sums the last axes of both: x (*, in) with weight (out, in)."""
    y = np.inner(x, weight)
    return y if bias is None else y + bias


def to_channels_last(weight, C, H, W):
    out = weight.shape[0]
    return weight.reshape(out, C, H, W).transpose(0, 2, 3, 1).reshape(out, H * W * C)


def dense_scores(fmap, weight, bias, k):
    H, W, C = fmap.shape
    out = np.zeros((H - k + 1, W - k + 1, weight.shape[0]))
    for i in range(H - k + 1):
        for j in range(W - k + 1):
            out[i, j] = weight @ fmap[i:i + k, j:j + k, :].ravel() + bias
    return out


from collections import namedtuple

GapOutput = namedtuple("GapOutput", ["logits", "class_map"])


def gap_head(fmap, V, c):
    pooled = np.average(fmap, axis=(0, 1))
    return GapOutput(V @ pooled + c, np.einsum("hwc,kc->hwk", fmap, V) + c)


if __name__ == "__main__":
    import pickle
    with open("checkpoints/vgg_fc6.pkl", "rb") as fh:
        fc6 = pickle.load(fh)
    np.save("fc6_nhwc.npy", to_channels_last(fc6, 512, 7, 7))
