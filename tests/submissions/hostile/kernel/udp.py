"""Sends a UDP datagram to a loopback listener the test opened (its port in INFO)."""
import socket

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        sender.sendto(b"LEAK datagram from the sandbox", ("127.0.0.1", INFO.get("udp_port", 9)))
    raise RuntimeError("sent a datagram: only the listener knows whether it left the sandbox")
