"""Creates nested namespaces: a user namespace (root inside it), a network and a mount namespace, through
unshare, clone and clone3, each in a child process that exits at once. Any one that works is a LEAK."""
import ctypes
import os
import platform
import struct

import numpy as np

INFO = {}
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x00020000, 0x10000000, 0x40000000, 17
CLONE, CLONE3 = {"x86_64": (56, 435), "aarch64": (220, 435)}[platform.machine()]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def in_child(attempt) -> str:
    """Run ``attempt`` in a forked child; '' if it worked, else the error."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            attempt()
            os.write(write, b"ok")
        except OSError as exc:
            os.write(write, str(exc).encode()[:200])
        os._exit(0)
    os.close(write)
    answer = os.read(read, 256).decode()
    os.close(read)
    os.waitpid(pid, 0)
    return "" if answer == "ok" else answer or "the child died"


def _unshare(flags):
    def attempt():
        libc = _libc()
        if libc.unshare(flags) != 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
    return attempt


def _clone(flags):
    def attempt():
        libc = _libc()
        pid = libc.syscall(ctypes.c_long(CLONE), ctypes.c_ulong(flags | SIGCHLD), ctypes.c_ulong(0),
                           ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
        if pid == 0:
            os._exit(0)
        if pid < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        os.waitpid(pid, 0)
    return attempt


def _clone3(flags):
    def attempt():
        libc = _libc()
        args = ctypes.create_string_buffer(struct.pack("=8Q", flags, 0, 0, 0, SIGCHLD, 0, 0, 0), 64)
        pid = libc.syscall(ctypes.c_long(CLONE3), args, ctypes.c_ulong(64))
        if pid == 0:
            os._exit(0)
        if pid < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        os.waitpid(pid, 0)
    return attempt


ATTEMPTS = {
    "unshare(user)": _unshare(CLONE_NEWUSER),
    "unshare(user, net)": _unshare(CLONE_NEWUSER | CLONE_NEWNET),
    "unshare(user, mount)": _unshare(CLONE_NEWUSER | CLONE_NEWNS),
    "clone(user, net)": _clone(CLONE_NEWUSER | CLONE_NEWNET),
    "clone3(user)": _clone3(CLONE_NEWUSER),
}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    results = {name: in_child(attempt) for name, attempt in ATTEMPTS.items()}
    worked = [name for name, error in results.items() if not error]
    if worked:
        raise RuntimeError(f"LEAK created namespaces: {', '.join(worked)}")
    raise RuntimeError("contained: " + "; ".join(f"{name}: {error}" for name, error in results.items()))
