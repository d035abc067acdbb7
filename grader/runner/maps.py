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
import resource  # imported by confine before this module, in every run

import stdlib

__builtins__ = stdlib.own_builtins()  # the runner's own: student code may replace those it shares (stdlib.py)
#: os's functions as they are before student code runs, which shares the ``os`` module with this one: an ``os.pread``
#: replaced to read nothing hid every mapping, and a function that returned one file's memory on every call (mapped
#: anew each time) kept the 'unmodified' point although each call overwrote the result the last one returned
_pread, _fstat, _dup, _major, _minor = os.pread, os.fstat, os.dup, os.major, os.minor
#: resource's, kept for the same reason: a ``resource.getrlimit`` replaced to raise made looking for a result's file
#: fail, and the child then said nothing of a result mapped anew from one file on every call ('unmodified' kept)
_getrlimit, _NOFILE, _AS = resource.getrlimit, resource.RLIMIT_NOFILE, resource.RLIMIT_AS

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
            chunk = _pread(_FD[0], 1 << 16, got)
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
#: the most descriptors looked at for a file's (the child's limit on open files is 256)
_MOST_DESCRIPTORS = 4096


def _same_file(status: os.stat_result, device: bytes, inode: int) -> bool:
    """Whether ``status`` is the file /proc/self/maps names ``device`` ("fe:01", major and minor in hex) ``inode``."""
    major, _, minor = device.partition(b":")
    try:
        return status.st_ino == inode and (_major(status.st_dev), _minor(status.st_dev)) == (int(major, 16),
                                                                                                  int(minor, 16))
    except ValueError:
        return False


def _descriptors(skip: int = -1):
    """(descriptor, its status) for every descriptor this process has open below the limit, ``skip`` left out."""
    try:
        limit = min(_getrlimit(_NOFILE)[0], _MOST_DESCRIPTORS)
    except (OSError, ValueError):
        limit = 256
    limit = _MOST_DESCRIPTORS if limit < 0 else limit  # RLIM_INFINITY
    for fd in range(limit):
        if fd != skip:
            try:
                yield fd, _fstat(fd)
            except OSError:
                continue


def hold(key: tuple) -> int:
    """A descriptor of this module's own on the file ``key`` (``file_range``'s device, inode, path), duplicated from
    one the process has open on it (an ``mmap`` keeps one while it lives), or -1. While it is open the file's inode
    stays its own: ext4 gives a deleted file's inode to the next file made, and an unnamed temporary file's path is
    ``#<inode>``, so the next call's fresh file would otherwise be the same file by every name maps gives."""
    for fd, status in _descriptors():
        if _same_file(status, key[0], key[1]):
            try:
                return _dup(fd)
            except OSError:
                return -1
    return -1


def still_used(fd: int, key: tuple, data: bytes | None) -> bool:
    """Whether the file held by ``fd`` (``hold``) is still the process's besides: it has a name, another descriptor
    is open on it, or it is mapped (``data``, ``table()``). False too when ``fd`` no longer holds that file."""
    try:
        status = _fstat(fd)
    except OSError:
        return False
    if not _same_file(status, key[0], key[1]):
        return False  # closed by the student's code, and the number given to another file
    if status.st_nlink > 0:
        return True
    needle = b" " + key[0] + b" " + str(key[1]).encode() + b" "
    if data is not None and needle in data:
        return True
    return any(_same_file(other, key[0], key[1]) for _, other in _descriptors(skip=fd))


def address_space() -> int:
    """This process's soft address-space limit (RLIMIT_AS) in bytes; -1 when it has none or it cannot be read."""
    try:
        return int(_getrlimit(_AS)[0])
    except (OSError, ValueError):
        return -1


def reserved() -> int | None:
    """The address space this process has reserved (VmSize), to say how far a failed allocation would have gone."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class FileHeld:
    """A descriptor of the runner's own on a file a result was mapped from (``hold``), so that its inode is
    not given to a file made later while the entry lives: ext4 reuses a deleted file's inode at once, and an unnamed
    temporary file's path is ``#<inode>``, so a fresh ``tempfile.TemporaryFile()`` per call, mapped and returned,
    was the last call's file by every name ``/proc/self/maps`` gives (shared-result on correct code in ``rlimits``
    mode). Called like a weak reference: itself while the descriptor is open, None once closed."""

    __slots__ = ("fd", "key")
    open_count = 0

    def __init__(self, fd: int, key: tuple) -> None:
        self.fd, self.key = fd, key
        FileHeld.open_count += 1

    def __call__(self):
        return self if self.fd >= 0 else None

    def holds(self, key) -> bool:
        return self.fd >= 0 and self.key[:2] == key[:2]

    def settle(self, table) -> None:
        """Close the descriptor when the file is no longer the student's (no name, no other descriptor, no
        mapping): its entry is forgotten, and its inode may go to the next file."""
        if self.fd >= 0 and not still_used(self.fd, self.key, table):
            self.close()

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            FileHeld.open_count -= 1
            try:
                _close(fd)
            except OSError:
                pass

    def __del__(self) -> None:  # its last entry dropped (past KEPT_RESULTS): the descriptor with it
        self.close()


_close = os.close
