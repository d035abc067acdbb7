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
