"""Worker slots: an unprivileged uid and a lock per concurrent child, held by one child at a time.

A slot is held across the threads of a batch and across grader processes (one ``flock`` per slot), so the uid's
process limit and the slot's cgroups (``cgroups.py``) describe exactly one run.
"""
from __future__ import annotations

import fcntl
import os
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from .errors import SandboxUnavailable  # noqa: F401  (raised here; importers find it here too)

#: Unprivileged uids for the worker slots: slot n runs as FIRST_UID + n.
FIRST_UID = 60000
SLOTS = 64


class Slot:
    """One worker slot: its uid, its cgroups. Held by one child at a time, across threads and processes."""

    def __init__(self, index: int, lock_fd: int) -> None:
        self.index = index
        self.uid = FIRST_UID + index
        self.lock_fd = lock_fd
        self.cgroups: dict[str, Path] = {}


class SlotPool:
    """Thread-safe within the process (a lock) and across grader processes (one ``flock`` per slot)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.free = list(range(SLOTS))
        self.busy: dict[int, Slot] = {}
        self.folder = Path(tempfile.gettempdir()) / "grader-slots"

    def acquire(self, timeout: float = 60.0, prefer: Iterable[int] = ()) -> Slot:
        """The first free slot, trying the indices of ``prefer`` first: the slots whose fork template this process
        holds idle, so that a run need not start a template for a slot another grader took meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                wanted = [index for index in prefer if index in self.free]
                for index in [*wanted, *(index for index in self.free if index not in wanted)]:
                    fd = self._lock_file(index)
                    if fd is not None:
                        self.free.remove(index)
                        slot = self.busy[index] = Slot(index, fd)
                        return slot
            if time.monotonic() > deadline:
                raise SandboxUnavailable("no free worker slot: too many submissions run at once")
            time.sleep(0.01)

    def _lock_file(self, index: int) -> int | None:
        self.folder.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(self.folder / f"{FIRST_UID + index}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        return fd

    def release(self, slot: Slot) -> None:
        with self.lock:
            os.close(slot.lock_fd)
            self.free.append(slot.index)
            self.free.sort()
            self.busy.pop(slot.index, None)

    def busy_cgroups(self) -> set[Path]:
        with self.lock:
            return {p for s in self.busy.values() for p in s.cgroups.values()}


POOL = SlotPool()
