import numpy as np
import numpy.typing as npt
class Head:
    @staticmethod
    @np.errstate(all="raise")
    def forward(features: npt.NDArray[np.float64], *weights) -> npt.NDArray[np.float64]:
        x = np.ascontiguousarray(features).reshape(features.shape[0], -1)
        for i, (W, b) in enumerate(zip(weights[::2], weights[1::2])):
            x = x @ W
            x += b
            if i < 2:
                np.maximum(x, 0, out=x)
        return x
vgg_classifier = Head.forward
