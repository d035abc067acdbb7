"""Across runs: the first run stores a full solution in its uid's kernel keyring, a later run reads it back.

``INFO["phase"]`` is "store" (a correct submission that also leaves its code behind) or "read" (a submission with
no code of its own that returns whatever it finds). Keys expire after two minutes and a read removes the key.
"""
import ctypes
import os
import platform

INFO = {}
SOLUTION = """
import numpy as np
def solve(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
"""
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
USER_KEYRING = -4
SEARCH, READ, SET_TIMEOUT, INVALIDATE = 10, 11, 15, 21
NAME = f"grader-hostile-{INFO.get('token', 'x')}".encode()
_done = []


def _call(*args):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(*(a if isinstance(a, (bytes, ctypes.Array)) else ctypes.c_long(a) for a in args))
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def store(text: str) -> None:
    data = text.encode()
    key = _call(ADD_KEY, b"user", NAME, data, len(data), USER_KEYRING)
    _call(KEYCTL, SET_TIMEOUT, key, 120)


def fetch() -> str:
    key = _call(KEYCTL, SEARCH, USER_KEYRING, b"user", NAME, 0)
    buffer = ctypes.create_string_buffer(65536)
    size = _call(KEYCTL, READ, key, buffer, 65536)
    _call(KEYCTL, INVALIDATE, key)
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
