"""What the template asks of Linux that Python's ``os`` module has no function for, and the moves of descriptors a
new run needs before it starts.

The template forks each run's init and runner (``template``); both call ``prctl``, ``unshare`` and ``setns`` through
the C library, and the init puts the run's descriptors at the numbers the child expects and closes every other one.
Kept apart from the template's serving loop: these are the small system-level steps, each checked, that it uses.
"""
from __future__ import annotations

import os

_handle = None


def libc():
    """The C library, loaded once (the template loads it before it forks any run)."""
    global _handle
    if _handle is None:
        import ctypes

        _handle = ctypes.CDLL(None, use_errno=True)
    return _handle


def call(result: int, what: str) -> None:
    """Raise the ``OSError`` a failed libc call (``result`` not 0) left in errno, named by ``what``."""
    if result != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, value: int) -> None:
    """``prctl(option, value)``, which Python's ``os`` module lacks."""
    call(libc().prctl(option, value, 0, 0, 0), f"prctl({option})")


def close_all_but(keep) -> None:
    """Close every descriptor of this process but those in ``keep``."""
    low = 0
    for fd in sorted(set(keep)):
        if fd > low:
            os.closerange(low, fd)
        low = max(low, fd + 1)
    os.closerange(low, 1 << 20)


def place(fds: list[int], targets: list[int], keep: tuple[int, ...] = ()) -> None:
    """Put each received descriptor at its number in the child (the output on 1 and 2); close every other one
    but ``keep`` (which must not be a target)."""
    pairs = list(zip(targets, fds))
    pairs += [(2, fd) for target, fd in pairs if target == 1]
    import fcntl

    floor = max(target for target, _ in pairs) + 1
    moved = [(target, fcntl.fcntl(fd, fcntl.F_DUPFD, floor)) for target, fd in pairs]
    for target, fd in moved:
        os.dup2(fd, target)
    close_all_but([*(target for target, _ in pairs), *keep])


def above(fd: int, targets: list[int]) -> int:
    """``fd`` moved above every target, so that placing the run's descriptors cannot overwrite it."""
    import fcntl

    if fd > max(targets):
        return fd
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, max(targets) + 1)
    os.close(fd)
    return moved


def environ_entry(prefix: bytes) -> int:
    """Address of the entry that starts with ``prefix`` (``GRADER_FORKER=``) in this process's environment block (0 if
    there is none): the template renames it in place in each runner."""
    import ctypes

    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[50 - 3]), int(fields[51 - 3])
        block = ctypes.string_at(start, end - start)
    except (OSError, ValueError, IndexError):
        return 0
    at = block.find(b"\0" + prefix)
    if block.startswith(prefix):
        return start
    return start + at + 1 if at >= 0 else 0
