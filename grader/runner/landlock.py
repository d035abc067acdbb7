"""Landlock through raw syscalls (ctypes, standard library only): works unprivileged, costs nothing.

Used by the child (``confine``) to restrict itself before any student code runs, and by the parent to learn
which ABI the kernel offers. Rights are granted per path: read-only below the allow-listed paths, read-write
below the scratch paths, nothing elsewhere. Where the ABI allows it, TCP bind and connect are denied
altogether (ABI 4) and signals and abstract unix sockets are scoped to the sandboxed processes (ABI 6).
"""
from __future__ import annotations

import ctypes
import os
import platform
import struct

# x86_64, aarch64, riscv64 and most others share the generic syscall numbers for Landlock.
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ_RIGHTS = EXECUTE | READ_FILE | READ_DIR

_libc = None


def _syscall():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    return _libc


def abi_version() -> int:
    """The Landlock ABI of the running kernel, 0 when it is missing or disabled."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64", "riscv64", "arm64"):
        return 0
    try:
        value = _syscall().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                                   ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(value), 0)


def handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read: list[str], write: list[str], deny_tcp: bool = True, scope: bool = True) -> dict:
    """Restrict this thread (and everything it starts later) for good. Returns what took hold.

    Must run before any other thread is started: Landlock applies to the calling thread and its future children.
    """
    ruleset, info = prepare(read, write, deny_tcp, scope)
    enforce(ruleset)
    return info


def prepare(read: list[str], write: list[str], deny_tcp: bool = True, scope: bool = True) -> tuple[int, dict]:
    """Build the ruleset (a file descriptor) without enforcing it yet.

    The paths are opened now, with this process's permissions: a child that starts as root builds its rules
    before it switches to its worker uid, which could not even reach a Python under root's home folder.
    """
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    libc = _syscall()
    fs = handled_fs(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if deny_tcp and abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if scope and abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, net)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(SYS_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    try:
        for paths, rights in ((read, READ_RIGHTS), (write, fs)):
            for path in paths:
                _add_path(libc, ruleset, path, rights & fs)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset, {"abi": abi, "tcp": bool(net), "scoped": bool(scoped)}


def enforce(ruleset: int) -> None:
    """Restrict this thread and its future children to ``ruleset`` (from ``prepare``), then close it."""
    libc = _syscall()
    try:
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(NO_NEW_PRIVS): {os.strerror(err)}")
        if libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
    finally:
        os.close(ruleset)


def _add_path(libc, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist here grants nothing
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        if libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), rule,
                        ctypes.c_uint32(0)) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_add_rule({path}): {os.strerror(err)}")
    finally:
        os.close(fd)
