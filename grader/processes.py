"""Processes of the sandbox seen from the grader: is one alive, its children, every process of a worker uid.

The fallback when no cgroup tracks a run: the worker uid belongs to one run at a time (``slots.py``), so killing
all of its processes ends exactly that run and whatever it left behind.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


def unlimited_note(limit: int) -> str:
    """The isolation note of a sandbox that cannot cap a run's processes (no worker uid, no pids cgroup)."""
    return (f"The processes limit ({limit}) does not hold: without a worker uid or a pids cgroup, a submission may "
            "start as many processes as this user can.")


def sweep_uid(uid: int) -> None:
    """Kill every process of ``uid`` (the fallback when no cgroup tracks a run)."""
    for _ in range(20):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found = True
                    os.kill(int(entry), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
        if not found:
            return
        time.sleep(0.005)


def parent(pid: int) -> int:
    """The parent of ``pid`` as /proc says it now; 0 when it cannot be read (the process is gone)."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.read(fd, 1024)
        finally:
            os.close(fd)
        return int(data.rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def run_delay(pid: int) -> float:
    """Seconds task ``pid`` has spent ready to run but waiting for a core (0 if it cannot be read)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0
