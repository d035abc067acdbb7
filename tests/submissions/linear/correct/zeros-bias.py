import numpy as np
def linear(x: np.ndarray, weight: np.ndarray, bias: "np.ndarray | None" = None) -> np.ndarray:
    if bias is None:
        bias = np.zeros(weight.shape[0])
    return x @ weight.T + bias
