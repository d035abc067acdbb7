"""Connects to an abstract Unix socket the test listens on (abstract names have no file and no permissions)."""
import socket

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect("\0" + INFO.get("unix_abstract", "none"))
        conn.sendall(b"LEAK abstract")
    raise RuntimeError("LEAK connected to an abstract socket")
