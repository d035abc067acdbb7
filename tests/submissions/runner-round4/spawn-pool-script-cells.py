# %%
import numpy as np
import multiprocessing as mp

# %%
def _row(args):
    x, W1, b1, W2, b2, W3, b3 = args
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    ctx = mp.get_context('spawn')
    with ctx.Pool(2) as pool:
        rows = pool.map(_row, [(x[i:i + 1], W1, b1, W2, b2, W3, b3) for i in range(x.shape[0])])
    return np.concatenate(rows)


# %%
if __name__ == '__main__':
    print('demo')
