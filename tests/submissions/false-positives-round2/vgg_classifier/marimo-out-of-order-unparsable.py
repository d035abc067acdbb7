import marimo

__generated_with = "0.8.22"
app = marimo.App()


@app.cell
def __(dense, flatten, np):
    def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
        h = np.maximum(dense(flatten(features), W1, b1), 0)
        h = np.maximum(dense(h, W2, b2), 0)
        return dense(h, W3, b3)
    return vgg_classifier,


@app.cell
def __(np):
    def dense(x, W, b):
        return np.add(x @ W, b)

    def flatten(t):
        return t.reshape(len(t), -1)
    return dense, flatten


app._unparsable_cell(
    r"""
    !pip install numpy
    """,
    name="__"
)


@app.cell
def __():
    import numpy as np
    return np,


if __name__ == "__main__":
    app.run()
