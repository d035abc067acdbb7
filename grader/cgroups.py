"""The per-slot cgroups (memory and pids, and cpu where it can be): created, capped, counted from zero for each run,
emptied, removed.

The cpu cgroup caps nothing: each slot's is one group of equal weight, so a run's share of the cores does not grow
with the processes it starts. Without it, a run of 60 busy processes took nearly all of both cores from the other
worker's run, whose calls ran tens of times slower against the same wall-clock limits.

Also the clean-up after grader processes that died (their cgroups are found by the pid in their names).
"""
from __future__ import annotations

import errno
import functools
import os
import signal
import sys
import time
from pathlib import Path

from .processes import alive
from .slots import POOL, Slot

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_NAME = "grader"
#: every controller a slot may have a folder in (``cgroup_dirs`` gives the ones this machine has)
CONTROLLERS = ("memory", "pids", "cpu")


def cgroups_usable() -> bool:
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    return all(_usable(controller) for controller in ("memory", "pids"))


@functools.lru_cache(maxsize=1)
def cpu_usable() -> bool:
    """Whether the cpu controller is mounted beside the others (cgroup v1) and its grader folder can be made."""
    return _usable("cpu")


def _usable(controller: str) -> bool:
    base = CGROUP_ROOT / controller
    if not (base / "cgroup.procs").exists() or not os.access(base, os.W_OK):
        return False
    try:
        (base / CGROUP_NAME).mkdir(exist_ok=True)
    except OSError:
        return False
    return True


def cgroup_dirs(slot: Slot) -> dict[str, Path]:
    name = f"{os.getpid()}-{slot.uid}"
    return {c: CGROUP_ROOT / c / CGROUP_NAME / name for c in CONTROLLERS if c != "cpu" or cpu_usable()}


def cgroup_pids(folder: Path) -> list[int]:
    try:
        return [int(p) for p in read_small(folder / "cgroup.procs").split()]
    except (OSError, ValueError):
        return []


def empty_cgroup(folder: Path, timeout: float = 5.0) -> bool:
    """SIGKILL every process in ``folder`` until none is left (a pids cap bounds any fork race)."""
    deadline = time.monotonic() + timeout
    while True:
        pids = cgroup_pids(folder)
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)


def remove_cgroup(folder: Path) -> None:
    forget_limits(folder)
    empty_cgroup(folder, timeout=2.0)
    for _ in range(50):
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


def clean_stale_cgroups() -> None:
    """Remove the cgroups of grader processes that are gone (a crash or SIGKILL of an earlier run)."""
    for controller in CONTROLLERS:
        base = CGROUP_ROOT / controller / CGROUP_NAME
        try:
            entries = list(base.iterdir())
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir():
                continue
            owner = entry.name.split("-", 1)[0]
            if owner.isdigit() and int(owner) != os.getpid() and alive(int(owner)):
                continue
            if owner.isdigit() and int(owner) == os.getpid():
                continue
            remove_cgroup(entry)


def read_small(path: Path | str) -> bytes:
    """A cgroup or /proc file's whole contents, without a buffered or text layer."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = b""
        while True:
            more = os.read(fd, 1 << 16)
            if not more:
                return data
            data += more
    finally:
        os.close(fd)


def read_counter(path: Path, key: str) -> int:
    try:
        for line in read_small(path).decode().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def remove_own_cgroups() -> None:
    busy = POOL.busy_cgroups()
    for controller in CONTROLLERS:
        base = CGROUP_ROOT / controller / CGROUP_NAME
        try:
            entries = list(base.glob(f"{os.getpid()}-*"))
        except OSError:
            continue
        for entry in entries:
            if entry not in busy:
                remove_cgroup(entry)


# -- a run's cgroup settings --------------------------------------------------------------------------------------
#: The limits this process last wrote into a slot's cgroups, by (memory folder, pids folder): a run whose limits are
#: the same as its slot's previous run writes none of them again (four writes, with the folders' mkdir).
_written: dict[tuple[Path, Path], tuple[int, int]] = {}


def set_limits(memory: Path, pids: Path, memory_bytes: int, tasks: int) -> None:
    """Create the cgroups if need be and cap memory (and memory + swap) and tasks, unless this process already
    set exactly these values there and has not removed the folders since (``forget_limits``)."""
    if _written.get((memory, pids)) == (memory_bytes, tasks):
        return
    _written.pop((memory, pids), None)
    for folder in (memory, pids):
        folder.mkdir(exist_ok=True)
    swap = memory / "memory.memsw.limit_in_bytes"
    has_swap = swap.exists()
    if has_swap:  # memory + swap may never be below memory: lift it, set memory, then lower it again
        write(swap, "-1", quiet=True)
    write(memory / "memory.limit_in_bytes", str(memory_bytes))
    if has_swap:
        write(swap, str(memory_bytes), quiet=True)
    write(pids / "pids.max", str(tasks))
    _written[(memory, pids)] = (memory_bytes, tasks)


def enter(slot: Slot, memory_bytes: int, tasks: int) -> tuple[list[str], int]:
    """Prepare the slot's cgroups for a run (its caps, its peak and refusals counted from 0); return the argv
    prefix that moves the child in before it starts, and the out-of-memory kills counted before the run."""
    if not slot.cgroups:
        slot.cgroups = cgroup_dirs(slot)
    memory, pids = slot.cgroups["memory"], slot.cgroups["pids"]
    for _ in (1, 2):
        set_limits(memory, pids, memory_bytes, tasks)  # unless the slot's last run had the same
        # this run's peak and refusals only; a folder gone since (removed by hand) is made and capped again
        if all([reset_counter(memory / name) for name in ("memory.max_usage_in_bytes", "memory.failcnt")]):
            break
        forget_limits(memory)
    procs = [str(folder / "cgroup.procs") for folder in slot.cgroups.values()]
    if "cpu" in slot.cgroups:
        slot.cgroups["cpu"].mkdir(exist_ok=True)  # nothing to cap: a group of the default weight, like every slot's
    oom_kills = read_counter(memory / "memory.oom_control", "oom_kill")
    script = " && ".join(f'echo 0 > "${n + 1}"' for n in range(len(procs))) + f' && shift {len(procs)} && exec "$@"'
    return ["/bin/sh", "-c", script, "sh", *procs], oom_kills


def forget_limits(folder: Path) -> None:
    """The folder is being removed (or was found gone): its limits must be written again when it is next made."""
    for pair in [pair for pair in list(_written) if folder in pair]:
        _written.pop(pair, None)


def reset_counter(path: Path) -> bool:
    """Write 0 into a cgroup counter (a run's peak, its refusals); False when the cgroup is not there any more."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        os.write(fd, b"0")
    except OSError:
        pass
    finally:
        os.close(fd)
    return True


def write(path: Path, value: str, quiet: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError as exc:
        if not quiet and exc.errno not in (errno.EBUSY,):
            raise
