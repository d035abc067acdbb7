import numpy as np
def dense_scores(fmap, weight, bias, k):
    # go channels-first like PyTorch, with the kernel permuted to match
    x = np.transpose(fmap, (2, 0, 1))  # (C, H, W)
    C, H, W = x.shape
    kern = weight.reshape(-1, k, k, C).transpose(0, 3, 1, 2)  # (m, C, k, k)
    Ho, Wo = H - k + 1, W - k + 1
    out = np.empty((weight.shape[0], Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            out[:, i, j] = np.sum(kern * x[:, i:i + k, j:j + k], axis=(1, 2, 3))
    return out.transpose(1, 2, 0) + bias
