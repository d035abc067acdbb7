import marimo

__generated_with = "0.9.14"
app = marimo.App(width="medium")


@app.cell
def __():
    import marimo as mo
    import numpy as np
    return mo, np


@app.cell
def __(mo):
    mo.md(r"""# VGG head""")
    return


@app.cell
def __(np):
    def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
        x = features.reshape(features.shape[0], -1)
        h1 = np.maximum(0.0, x @ W1 + b1)
        h2 = np.maximum(0.0, h1 @ W2 + b2)
        return h2 @ W3 + b3
    return (vgg_classifier,)


if __name__ == "__main__":
    app.run()
