import marimo

__generated_with = "0.13.15"
app = marimo.App(width="medium", app_title="HW3")

with app.setup:
    # Initialization code that runs before all other cells
    import numpy as np


@app.cell(hide_code=True)
def _(mo):
    mo.md(
        r"""
    # VGG head
    The logits, no softmax.
    """
    )
    return


@app.function
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    """Flatten, FC+ReLU, FC+ReLU, FC."""
    x = features.reshape(features.shape[0], -1)
    h1 = relu(x @ W1 + b1)
    h2 = relu(h1 @ W2 + b2)
    return h2 @ W3 + b3


@app.cell
def _():
    import marimo as mo
    return (mo,)


@app.function
def relu(z):
    return np.maximum(z, 0)


@app.cell
def _():
    data = np.load("vgg_weights.npz")
    return (data,)


@app.cell
def _(data):
    logits = vgg_classifier(data["x"], *[data[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3")])
    logits.shape
    return


if __name__ == "__main__":
    app.run()
