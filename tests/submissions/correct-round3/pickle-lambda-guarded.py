import pickle
import numpy as np
relu = lambda z: np.maximum(z, 0)
try:
    pickle.dumps(relu)
except (pickle.PicklingError, AttributeError, TypeError) as e:
    print("cannot pickle the lambda:", type(e).__name__)
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    return relu(relu(x @ W1 + b1) @ W2 + b2) @ W3 + b3
