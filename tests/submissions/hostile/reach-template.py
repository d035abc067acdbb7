"""Looks for the process it was forked from (a warm template holds numpy and forks every run) and for anything
that reaches outside its run: an inherited socket or descriptor to ask for more runs, a process of another uid it
may signal, a process whose memory it can read, the template's socket object left open in its heap."""
import ctypes
import gc
import os
import socket
import stat

import numpy as np

INFO = {}


def _descriptors():
    """Open descriptors that are not the runner's own pipes and memory (0, 1, 2, its channel, commands, inputs)."""
    found = []
    pipes = set()
    for fd in range(1024):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        mode = info.st_mode
        if stat.S_ISFIFO(mode):
            pipes.add(info.st_ino)
        if stat.S_ISSOCK(mode):
            found.append(f"a socket on fd {fd}")
            try:  # ask it for a run, as the grader asks a template
                sock = socket.socket(fileno=os.dup(fd))
                sock.settimeout(0.5)
                socket.send_fds(sock, [b'{"t": "fork", "targets": [0, 3, 1], "uid": 0}'], [0, 1, 2])
                found.append(f"it answered {sock.recv(200)!r}")
            except OSError as exc:
                found.append(f"(asking it failed: {exc})")
    if len(pipes) > 3:  # the output (1 and 2), the commands and the channel: any other pipe came from elsewhere
        found.append(f"{len(pipes)} different pipes open")
    return found


def _read_memory(pid: int) -> bool:
    """Whether 8 bytes of ``pid``'s memory can be read at an address forked processes share with us."""
    libc = ctypes.CDLL(None, use_errno=True)
    target = ctypes.c_void_p.in_dll(libc, "environ")
    buffer = ctypes.create_string_buffer(8)

    class IoVec(ctypes.Structure):
        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]

    local = IoVec(ctypes.cast(buffer, ctypes.c_void_p), 8)
    remote = IoVec(ctypes.addressof(target), 8)
    libc.process_vm_readv.restype = ctypes.c_ssize_t
    return libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) == 8


def _processes():
    found = []
    for pid in sorted(set(range(1, 1 << 16)) | {os.getppid()}):
        if pid == os.getpid() or pid <= 0:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            if _read_memory(pid):
                found.append(f"read the memory of pid {pid}")
            continue
        found.append(f"may signal pid {pid} (uid {os.getuid()})")
        if _read_memory(pid):
            found.append(f"read the memory of pid {pid}")
    for pid in (1, os.getppid()):
        try:
            with open(f"/proc/{pid}/mem", "rb") as handle:
                handle.read(1)
            found.append(f"opened /proc/{pid}/mem")
        except (OSError, ValueError, OverflowError):
            pass
    return found


def _heap():
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, socket.socket) and obj.fileno() >= 0:
            found.append(f"an open socket object {obj!r}"[:120])
    return found


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if features.shape[0] != 1:  # attack once (the B = 1 case), answer the other cases wrongly but quickly
        return np.zeros((features.shape[0], W3.shape[1]))
    found = _descriptors() + _processes() + _heap()
    if found:
        raise RuntimeError("LEAK " + " | ".join(found)[:400])
    raise RuntimeError(f"contained: uid {os.getuid()}, parent {os.getppid()}, nothing reachable")
