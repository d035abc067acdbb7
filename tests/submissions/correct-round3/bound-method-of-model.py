import numpy as np
class VGGHead:
    def __init__(self, activation=lambda z: np.maximum(z, 0)):
        self.act = activation
    def forward(self, features, W1, b1, W2, b2, W3, b3):
        x = features.reshape(features.shape[0], -1)
        return self.act(self.act(x @ W1 + b1) @ W2 + b2) @ W3 + b3
model = VGGHead()
vgg_classifier = model.forward
