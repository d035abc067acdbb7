import numpy as np
import matplotlib.pyplot as plt


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(x @ W1 + b1, 0)
    h2 = np.maximum(h1 @ W2 + b2, 0)
    return h2 @ W3 + b3


rng = np.random.default_rng(42)
demo = vgg_classifier(rng.standard_normal((4, 2, 2, 3)), rng.standard_normal((12, 8)), np.zeros(8),
                      rng.standard_normal((8, 8)), np.zeros(8), rng.standard_normal((8, 5)), np.zeros(5))
fig, ax = plt.subplots(1, 2, figsize=(8, 3))
ax[0].imshow(demo, cmap="viridis")
ax[1].hist(demo.ravel(), bins=20)
ax[0].set_title("logits")
plt.tight_layout()
plt.savefig("logits.png", dpi=150)
plt.show()
