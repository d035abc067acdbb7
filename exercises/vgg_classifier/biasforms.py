"""A bias used in one layer some way other than added to the product (``bias-misplaced``): added to every row of
the weight matrix, ``h @ (W + b)``, which adds the bias times the sum of the layer's inputs, or multiplied with the
product, ``h @ W * b``. Both run on every shape, and the stage ramps read them only as a layer that turns b into
something else (round eighteen: a generic ``wrong-stage``). Each layer in turn is replaced by each form and checked
on every call (``wrongaxis.fitted_layer``).
"""
from __future__ import annotations

import numpy as np

from grader.authoring import Finding

from .wrongaxis import LAYER, fitted_layer


def _in_weights(h: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    return h @ (W + b) if h.shape[1] == W.shape[0] and W.shape[1] == b.shape[0] else None


def _multiplied(h: np.ndarray, W: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    return (h @ W) * b if h.shape[1] == W.shape[0] and W.shape[1] == b.shape[0] else None


#: (the code, what it does, the layer)
FORMS = (
    ("h @ (W{i} + b{i})", "adds b{i} to every row of W{i} before the product, which adds b{i} times the sum of the "
                          "layer's inputs instead of b{i} itself", _in_weights),
    ("h @ W{i} * b{i}", "multiplies the product by b{i} instead of adding it, so every unit is scaled by its bias "
                        "and a zero bias switches the unit off", _multiplied),
)


def bias_forms(runs) -> Finding | None:
    """``bias-misplaced`` naming the layer and the form that give every call's outcome, or None."""
    found = fitted_layer(runs, FORMS)
    if found is None:
        return None
    small, index, (code, what, _) = found
    i = index + 1
    return Finding("bias-misplaced", f"{LAYER[index]} computes {code.format(i=i)}: it {what.format(i=i)}. Your "
                                     f"function returns exactly what that gives on every call that returned values "
                                     f"({len(small)}). The bias is added once, to the product: h @ W{i} + b{i}.")
