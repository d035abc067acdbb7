import numpy as np

def gap_head(fmap: np.ndarray, V: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """
    Returns (logits, class_map): float64 logits of shape (K,) and the float64 class activation map of shape
    (h, w, K), whose mean over the h*w positions equals the logits.
    """
    pass
