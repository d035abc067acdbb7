import numpy as np
from beartype import beartype
from jaxtyping import Float64, jaxtyped

Features = Float64[np.ndarray, "batch height width channels"]
Matrix = Float64[np.ndarray, "n_in n_out"]
Vector = Float64[np.ndarray, "n_out"]


@jaxtyped(typechecker=beartype)
def vgg_classifier(features: Features, W1: Matrix, b1: Vector, W2: Matrix, b2: Vector, W3: Matrix,
                   b3: Vector) -> Float64[np.ndarray, "batch classes"]:
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
