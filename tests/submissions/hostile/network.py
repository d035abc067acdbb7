"""Connects to a TCP listener on the loopback (the port is given by the test) and sends what it has."""
import socket

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    port = INFO.get("port", 8000)
    with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
        conn.sendall(b"LEAK hello from the sandbox\n")
    raise RuntimeError(f"LEAK connected to port {port}")
