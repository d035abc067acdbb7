"""Reaches pathname Unix sockets on the host the test listens on in /tmp (mode 0777, like a world-writable
daemon socket): connects to a stream one, and sends datagrams to a datagram one from a new socket and from a
datagram socketpair (which can address any socket by name)."""
import socket

import numpy as np

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    worked, errors = [], []
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(INFO.get("unix_stream", "/tmp/none"))
            conn.sendall(b"LEAK stream")
            worked.append("stream connect")
    except OSError as exc:
        errors.append(f"stream connect: {exc}")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.sendto(b"LEAK datagram", INFO.get("unix_dgram", "/tmp/none"))
            worked.append("datagram socket")
    except OSError as exc:
        errors.append(f"datagram socket: {exc}")
    try:
        one, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        with one, other:
            one.sendto(b"LEAK socketpair", INFO.get("unix_dgram", "/tmp/none"))
            worked.append("datagram socketpair")
    except OSError as exc:
        errors.append(f"datagram socketpair: {exc}")
    if worked:
        raise RuntimeError(f"LEAK reached host sockets: {', '.join(worked)}")
    raise RuntimeError("contained: " + "; ".join(errors))
