import numpy as np

SOURCE = '''
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    for W, b, last in ((W1, b1, False), (W2, b2, False), (W3, b3, True)):
        x = x @ W + b
        if not last:
            x = np.maximum(x, 0.0)
    return x
'''

exec(SOURCE, globals())
