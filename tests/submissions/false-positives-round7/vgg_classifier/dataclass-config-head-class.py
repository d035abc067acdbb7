from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
NHWC_NDIM: Final[int] = 4
DTYPE: Final = np.float64


@dataclass(frozen=True, slots=True)
class HeadConfig:
    relu_after: tuple[bool, ...] = (True, True, False)
    dtype: type = DTYPE
    check_shapes: bool = True
    names: list[str] = field(default_factory=lambda: ["fc6", "fc7", "fc8"])


class VGGHead:
    """Three fully connected layers.

    >>> import numpy as np
    >>> head = VGGHead([(np.eye(2), np.zeros(2))] * 3)
    >>> head(np.ones((1, 1, 1, 2))).tolist()
    [[1.0, 1.0]]
    """

    def __init__(self, layers: list[tuple[FloatArray, FloatArray]], config: HeadConfig | None = None) -> None:
        self.layers = layers
        self.config = config or HeadConfig()

    def forward(self, features: FloatArray) -> FloatArray:
        if self.config.check_shapes and features.ndim != NHWC_NDIM:
            raise ValueError(f"expected NHWC features, got {features.shape}")
        x: FloatArray = features.reshape(features.shape[0], -1).astype(self.config.dtype, copy=False)
        for (W, b), relu in zip(self.layers, self.config.relu_after):
            x = x @ W + b
            if relu:
                x = np.maximum(x, 0.0)
        return x

    def __call__(self, features: FloatArray) -> FloatArray:
        return self.forward(features)

    def __repr__(self) -> str:
        return f"VGGHead({[W.shape for W, _ in self.layers]}, {self.config})"


def vgg_classifier(features: FloatArray, W1: FloatArray, b1: FloatArray, W2: FloatArray, b2: FloatArray,
                   W3: FloatArray, b3: FloatArray) -> FloatArray:
    return VGGHead([(W1, b1), (W2, b2), (W3, b3)])(features)


if __name__ == "__main__":
    import doctest
    doctest.testmod(verbose=True)
    rng = np.random.default_rng(0)
    f = rng.standard_normal((2, 7, 7, 512))
    print(vgg_classifier(f, rng.standard_normal((25088, 16)), np.zeros(16), rng.standard_normal((16, 16)),
                         np.zeros(16), rng.standard_normal((16, 10)), np.zeros(10)).shape)
