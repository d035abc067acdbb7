"""Points the runner's result channel at /dev/null during the call and goes on running: the parent sees the channel
close while the process lives. It must stop the run at once as the submission's tampering, never wait for an exit
that does not come."""
import gc
import os

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    for obj in gc.get_objects():
        if type(obj).__name__ == "Child" and isinstance(getattr(obj, "channel", None), int):
            os.dup2(os.open(os.devnull, os.O_WRONLY), obj.channel)
    x = features.reshape(features.shape[0], -1)
    return np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3
