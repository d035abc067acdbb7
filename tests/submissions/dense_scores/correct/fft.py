import numpy as np


def dense_scores(fmap, weight, bias, k):
    """Cross-correlation through the FFT, summed over channels."""
    H, W, C = fmap.shape
    m = weight.shape[0]
    kern = weight.reshape(m, k, k, C)
    F = np.fft.rfft2(fmap, s=(H, W), axes=(0, 1))                    # (H, W//2+1, C)
    K = np.fft.rfft2(kern[:, ::-1, ::-1, :], s=(H, W), axes=(1, 2))  # flipped kernel: correlation
    prod = np.einsum("hwc,ohwc->ohw", F, K)
    full = np.fft.irfft2(prod, s=(H, W), axes=(1, 2))                # (m, H, W), circular convolution
    valid = full[:, k - 1:, k - 1:]                                   # (m, H-k+1, W-k+1)
    return np.moveaxis(valid, 0, -1) + bias
