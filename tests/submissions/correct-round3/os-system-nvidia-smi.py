import os
import numpy as np
status = os.system("nvidia-smi > /dev/null 2>&1")
print("GPU available" if status == 0 else "no GPU, using numpy")
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    return h @ W3 + b3
