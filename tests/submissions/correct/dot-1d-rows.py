import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    result = np.zeros((features.shape[0], b3.shape[0]))
    for i in range(features.shape[0]):
        row = features[i].ravel()
        row = np.maximum(np.dot(row, W1) + b1, 0)
        row = np.maximum(np.dot(row, W2) + b2, 0)
        result[i] = np.dot(row, W3) + b3
    return result
