"""Across runs: the first run leaves a full solution in a POSIX message queue (mode 0666), a later run receives
it. ``INFO["phase"]``: "store" or "read" (see across-keyring.py); a read unlinks the queue."""
import ctypes
import os

INFO = {}
SOLUTION = """
import numpy as np
def solve(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
"""
NAME = f"/grader-hostile-{INFO.get('token', 'x')}".encode()
O_RDONLY, O_WRONLY, O_CREAT, O_NONBLOCK = 0, 1, 0o100, 0o4000
_done = []


def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mq_open
    except AttributeError:  # glibc before 2.34
        libc = ctypes.CDLL("librt.so.1", use_errno=True)
    libc.mq_receive.restype = ctypes.c_ssize_t
    return libc


def _check(result: int) -> int:
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def store(text: str) -> None:
    libc = _libc()
    queue = _check(libc.mq_open(NAME, O_CREAT | O_WRONLY | O_NONBLOCK, 0o666, None))
    data = text.encode()
    _check(libc.mq_send(queue, data, len(data), 0))
    libc.mq_close(queue)


def fetch() -> str:
    libc = _libc()
    queue = _check(libc.mq_open(NAME, O_RDONLY | O_NONBLOCK))
    buffer = ctypes.create_string_buffer(1 << 16)
    size = _check(libc.mq_receive(queue, buffer, 1 << 16, None))
    libc.mq_close(queue)
    libc.mq_unlink(NAME)
    return buffer.raw[:size].decode()


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if INFO.get("phase") == "store":
        if not _done:
            _done.append(1)
            try:
                store(SOLUTION)
            except OSError as exc:
                print(f"could not store: {exc}")
        source = SOLUTION
    else:
        if not _done:
            try:
                _done.append(fetch())
            except OSError as exc:
                _done.append(exc)
        if isinstance(_done[0], OSError):
            raise RuntimeError(f"nothing shared: {_done[0]}")
        source = _done[0]
    namespace = {}
    exec(source, namespace)
    return namespace["solve"](features, W1, b1, W2, b2, W3, b3)
