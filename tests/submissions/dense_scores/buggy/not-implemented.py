import numpy as np

def dense_scores(fmap: np.ndarray, weight: np.ndarray, bias: np.ndarray, k: int) -> np.ndarray:
    """
    Returns float64 scores of shape (H - k + 1, W - k + 1, out): the layer applied to every k x k window.
    """
    pass
