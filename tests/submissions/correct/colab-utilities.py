"""Utilities Colab has preinstalled, used around the solution: none of them is in the sandbox."""
import numpy as np
import psutil
from rich import print as rich_print
from tabulate import tabulate
import nest_asyncio

nest_asyncio.apply()
rich_print(f"[bold]memory in use:[/bold] {psutil.virtual_memory().percent}%")
print(tabulate([["FC1", "ReLU"], ["FC2", "ReLU"], ["FC3", "-"]], headers=["layer", "activation"]))


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    rows = features.reshape(len(features), -1)
    hidden = np.maximum(rows @ W1 + b1, 0.0)
    hidden = np.maximum(hidden @ W2 + b2, 0.0)
    return hidden @ W3 + b3
