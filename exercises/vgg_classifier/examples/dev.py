import numpy as np

# Dev P. -- VGG classifier head
# In PyTorch the head gets x.view(B, -1) of a (B, C, H, W) tensor, so I convert
# NHWC to NCHW first to flatten the same way torchvision's VGG does.


def vgg_classifier(features: np.ndarray, W1: np.ndarray, b1: np.ndarray,
                   W2: np.ndarray, b2: np.ndarray,
                   W3: np.ndarray, b3: np.ndarray) -> np.ndarray:
    """
    Returns float64 class logits with shape (B, C_classes).
    """
    B = features.shape[0]
    nchw = np.transpose(features, (0, 3, 1, 2))   # (B, C, H, W)
    x = nchw.reshape(B, -1)

    x = np.maximum(0.0, x @ W1 + b1)   # fc6
    x = np.maximum(0.0, x @ W2 + b2)   # fc7
    x = x @ W3 + b3                    # fc8
    return x
