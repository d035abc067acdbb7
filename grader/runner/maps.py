"""Which file, and which bytes of it, an address range of this process maps: read from ``/proc/self/maps``.

A file or memfd mapped again on every call (``mmap.mmap(fd, n)``, ``np.memmap(path, mode="r+")``) lies at a new
address each time, so a function that fills and returns such a mapping shares its memory across calls although no
two results share an address. Its file and offsets name the memory instead. ``/proc/self/maps`` cannot be opened
once ``confine`` has applied Landlock and dropped the uid, so it is opened before (``keep_open``), like the alarm's
scheduler counter, and read from its start once per call that needs it. Only a result whose memory an ``mmap`` owns is
ever looked up (about 0.3-0.6 ms for the 150-odd mappings of a run with numpy): never an ordinary array.
"""
from __future__ import annotations

import os

#: the descriptor of /proc/self/maps, or -1 when it could not be opened
_FD = [-1]
#: the most bytes read (about 60,000 mappings): past that, a range is looked up among the first ones only
_MOST = 4 << 20


def keep_open() -> None:
    """Open /proc/self/maps while /proc can still be opened (before ``confine`` applies Landlock and the uid drop)."""
    try:
        _FD[0] = os.open("/proc/self/maps", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        pass


def table() -> bytes | None:
    """The whole of /proc/self/maps, from its start, or None when it cannot be read (closed, or replaced by the
    student's code): the kernel gives about a page of lines per read (some 15 us a kilobyte: 0.3 ms for a run with
    numpy's 20 KB, 40 ms for a student's 30,000 mappings), so a call reads it once for all its results."""
    if _FD[0] < 0:
        return None
    chunks, got = [], 0
    try:
        while got < _MOST:
            chunk = os.pread(_FD[0], 1 << 16, got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError:
        return None
    return b"".join(chunks)


def file_range(low: int, high: int, data: bytes | None) -> tuple[tuple, int, int] | None:
    """The file, and the offsets in it, of the addresses ``[low, high)`` when they lie in one shared mapping of a
    file (``MAP_SHARED``: what one mapping writes, every other mapping of it sees), read from ``data`` (``table()``);
    None for anything else (private or anonymous memory, a range over several mappings, maps that cannot be read).

    The file is named by its device, inode and path (without the kernel's " (deleted)"): the inode alone is reused
    on ext4 once a file is deleted, so a fresh temporary file per call (``np.memmap`` of a ``NamedTemporaryFile``)
    was the same file as the last call's, and correct code lost the shared-result point in ``rlimits`` mode, where
    the scratch folder is the host's disk."""
    if data is None:
        return None
    for line in data.split(b"\n"):  # "start-end perms offset dev inode path", by address
        dash, space = line.find(b"-"), line.find(b" ")
        if dash <= 0 or space <= dash:
            continue
        start = int(line[:dash], 16)
        if start > low:
            return None
        end = int(line[dash + 1:space], 16)
        if low >= end:
            continue
        fields = line.split(None, 5)
        if len(fields) < 5 or fields[1][3:4] != b"s" or not int(fields[4]) or high > end:
            return None  # private or anonymous memory, or a range that runs on into the next mapping
        path = fields[5].strip() if len(fields) > 5 else b""
        path = path[:-len(_DELETED)] if path.endswith(_DELETED) else path
        first = int(fields[2], 16) + low - start
        return (bytes(fields[3]), int(fields[4]), path), first, first + high - low
    return None


_DELETED = b" (deleted)"
