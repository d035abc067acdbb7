import numpy as np

# ---- layers ----

def relu(z):
	return np.maximum(z, 0)

def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
	x = features.reshape(features.shape[0], -1)
	h = relu(x @ W1 + b1)
	h = relu(h @ W2 + b2)
	return h @ W3 + b3
