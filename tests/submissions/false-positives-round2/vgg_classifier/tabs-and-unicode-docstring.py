# -*- coding: utf-8 -*-
import numpy as np


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
	"""Tête de classification VGG — aplatissement → FC₁ + ReLU → FC₂ + ReLU → FC₃.

	σ(z) = max(0, z) ; les logits ŷ ∈ ℝ^{B×K} ne passent par aucune activation. 🎉
	"""
	B = features.shape[0]
	x = features.reshape((B, -1))
	for W, b, relu in ((W1, b1, True), (W2, b2, True), (W3, b3, False)):
		x = x @ W + b
		if relu:
			x = np.maximum(x, 0.0)
	return x
