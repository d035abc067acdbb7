"""The large case's files: arrays generated straight into memory-mapped .npy files that every child maps.

Built once per grading session in the grader and never written by a child: the children map them copy-on-write,
so a writing child changes only its own private pages. The folder is sealed once written (files 0444, folder
0555, and when the grader is root both belong to ``OWNER_UID``, so a root child without capabilities is not their
owner and can neither chmod nor rename inside), and two records of it are kept:

* a stamp of every file and of the folder (device, inode, size, mode, owner, link count, mtime and ctime), read
  again after every run for a few microseconds. Any change moves one of them: a write, a rename or a hard link
  moves a ctime, which no process can set back, and a replaced file or folder has another inode.
* a SHA-256 digest of every file, computed once when the case is built (0.4 s per GB on two cores) and read
  again only when a stamp differs, to tell a change of contents from a change of names or metadata.

In rlimits mode nothing stops a child that has the grader's uid from renaming the whole folder out of ``/dev/shm``
and putting a look-alike in its place (``/dev/shm`` is root's, and so is the child): the stamps are what catches
that, and the session then builds the case again.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import mmap
import os
import shutil
import stat
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .exercise import Case
from .runner import rows as rows_mod

#: Owner of the sealed files when the grader runs as root: ``nobody``, which no grader process or worker runs as.
OWNER_UID = 65534
FILE_MODE = 0o444
FOLDER_MODE = 0o555
DIGEST_CHUNK = 64 << 20

Stamp = tuple[int, ...]


def stamp(path: Path) -> Stamp | None:
    """What any change to ``path`` itself moves; None when nothing is there. Symbolic links are not followed."""
    try:
        s = os.lstat(path)
    except OSError:
        return None
    return (s.st_dev, s.st_ino, s.st_size, s.st_mode, s.st_uid, s.st_gid, s.st_nlink, s.st_mtime_ns, s.st_ctime_ns)


@dataclass(frozen=True)
class SharedArrays:
    """Large case inputs written once per run as .npy files the child maps copy-on-write.

    ``paths`` maps (case name, argument position) to a file; an argument not in it is sent inline.
    """

    paths: dict[tuple[str, int], Path]
    nbytes: int  # the arguments' bytes as the child maps them (its address space), repetitions included
    folder: Path | None = None
    #: files of raw rows that an argument repeats (``rows.repeated``): (dtype, the argument's shape, period)
    repeats: dict[Path, tuple[str, tuple[int, ...], int]] = field(default_factory=dict)
    stamps: dict[Path, Stamp] = field(default_factory=dict, repr=False)  # every file and the folder, once sealed
    digests: dict[Path, str] = field(default_factory=dict, repr=False)

    @classmethod
    def write(cls, cases: list[Case], folder: Path, allocated: FileAllocator | None = None) -> SharedArrays:
        """Save each shared input as .npy, unless it already lives in a file the allocator made; then seal the folder.

        Arguments a case makes per student (``Case.personal``) are not written: they go to the child inline.
        Files the allocator made that no case shares are removed, so every file in the folder is accounted for.
        """
        paths, total, repeats = {}, 0, {}
        for case in cases:
            if not case.shared:
                continue
            for index, array in enumerate(case.args):
                if index in case.personal or not isinstance(array, np.ndarray):
                    continue  # per-student arguments and scalars go to the child inline
                path = allocated.path_of(array) if allocated else None
                if path is None:
                    path = folder / f"{case.name}-{index}.npy"
                    np.save(path, np.ascontiguousarray(array), allow_pickle=False)
                paths[(case.name, index)] = path
                total += array.nbytes
                if allocated and path in allocated.repeats:
                    repeats[path] = allocated.repeats[path]
        if allocated:
            allocated.discard(keep=set(paths.values()))
        return cls(paths, total, folder, repeats=repeats).sealed()

    def sealed(self) -> SharedArrays:
        """Make the folder unchangeable by a child (see the module docstring), then stamp and digest it."""
        if self.folder is None:
            return self
        owner = OWNER_UID if _is_root() else None
        for path in set(self.paths.values()):
            os.chmod(path, FILE_MODE)
            if owner is not None:
                os.chown(path, owner, owner)
        os.chmod(self.folder, FOLDER_MODE)
        if owner is not None:
            os.chown(self.folder, owner, owner)
        stamps = {p: stamp(p) for p in [self.folder, *sorted(set(self.paths.values()))]}
        return replace(self, stamps=stamps, digests=digest_files(sorted(set(self.paths.values()))))

    def frozen(self, case: Case) -> Case:
        """``case`` as the grader keeps it: its shared arguments as read-only views of the arrays written (already
        in memory: mapping the files again would page-fault a gigabyte), the others as private copies."""
        args = []
        for i, array in enumerate(case.args):
            if (case.name, i) in self.paths:
                array = array.view(np.ndarray)
                array.flags.writeable = False
            elif isinstance(array, np.ndarray):
                array = np.array(array)
            args.append(array)  # a scalar argument stays as it is
        return replace(case, args=tuple(args))

    def changes(self) -> list[Path]:
        """The folder and files whose stamp moved since the folder was sealed: a few microseconds."""
        return [path for path, before in self.stamps.items() if stamp(path) != before]

    def altered_contents(self) -> list[Path]:
        """Files whose bytes (at their path, now) differ from the digest made when they were sealed."""
        now = digest_files(list(self.digests))
        return [p for p, d in self.digests.items() if now.get(p) != d]

    def same_bytes(self, other: SharedArrays) -> bool:
        """Whether ``other`` holds the same arguments with the same digests (a rebuild that came out the same)."""
        return self.paths.keys() == other.paths.keys() and all(
            self.digests[self.paths[key]] == other.digests[other.paths[key]] for key in self.paths)

    def remove(self) -> None:
        if self.folder is not None:
            remove_folder(self.folder)

    def remove_replaced(self) -> None:
        """Delete a changed folder: what is now at its path, look-alikes named after it, and the original wherever
        it was renamed to (found by its inode), so a child's rename cannot leave a gigabyte behind. A sealed folder
        cannot be moved to another parent by a child that is not its owner (that needs write access to the folder
        itself), so looking through its parent is enough."""
        folder = self.folder
        if folder is None:
            return
        original = self.stamps.get(folder)
        remove_folder(folder)
        try:
            with os.scandir(folder.parent) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.name.startswith(folder.name) or (original and (info.st_dev, info.st_ino) == original[:2]):
                        remove_folder(Path(entry.path))
        except OSError:
            pass


class FileAllocator:
    """``alloc(shape)`` for case generators: arrays born as memory-mapped .npy files, so the large case is
    generated straight into what the children map, with no copy and no second write.

    The first touch of new memory is most of a build's cost (the kernel allocates and clears each page; on a
    virtual machine the host may have to back it first). So each large array's pages are faulted in on another
    core while the generator fills it (``Prefault``), from its end backward while the generator goes forward."""

    def __init__(self, folder: Path, prefault: bool = True) -> None:
        self.folder = folder
        self._files: list[tuple[np.ndarray, Path]] = []
        self._prefault = Prefault() if prefault and Prefault.supported() else None
        self.repeats: dict[Path, tuple[str, tuple[int, ...], int]] = {}

    def __call__(self, shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
        path = self.folder / f"array-{len(self._files)}.npy"
        need = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize + (16 << 20)
        room = os.statvfs(self.folder)
        if room.f_bavail * room.f_frsize < need:  # a full tmpfs would kill the grader with SIGBUS mid-write
            raise OSError(errno.ENOSPC, f"no room for {need >> 20} MiB in {self.folder}")
        array = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=tuple(shape))
        self._files.append((array, path))
        if self._prefault is not None:
            self._prefault.add(array)
        return array

    def repeat_rows(self, tile: np.ndarray, rows: int) -> np.ndarray:
        """An array of ``rows`` rows that repeats ``tile``'s rows (row ``i`` is ``tile[i % len(tile)]``), stored as
        the tile's raw rows in one file of this folder and mapped repeatedly (``runner.rows``), read-only."""
        tile = np.ascontiguousarray(tile)
        shape = (int(rows), *tile.shape[1:])
        rows_mod.check(shape, tile.dtype, len(tile))
        path = self.folder / f"array-{len(self._files)}.rows"
        with open(path, "wb") as handle:
            handle.write(memoryview(tile).cast("B"))
        array = rows_mod.repeated(path, tile.dtype, shape, len(tile), writable=False)
        self._files.append((array, path))
        self.repeats[path] = (tile.dtype.str, shape, len(tile))
        return array

    def path_of(self, array: np.ndarray) -> Path | None:
        for made, path in self._files:
            if array is made:
                if isinstance(made, np.memmap):
                    made.flush()
                return path
        return None

    def discard(self, keep: set[Path]) -> None:
        """Delete the files not in ``keep`` and forget every writable map (the arrays stay readable)."""
        self.close()
        for _, path in self._files:
            if path not in keep:
                path.unlink(missing_ok=True)
        self._files.clear()

    def close(self) -> None:
        """Stop faulting pages in (what is left is done by the generator's own writes, if it still writes)."""
        if self._prefault is not None:
            self._prefault.close()


class Prefault:
    """A thread that faults in the pages of new memory-mapped arrays (``madvise(MADV_POPULATE_WRITE)``, Linux 5.14),
    one array after another, each from its end backward in 32 MiB steps. It never writes a byte: it only has the
    kernel allocate (and clear) the pages the generator will write anyway, on a core the generator does not use.
    The part of an array the generator reached first costs the thread a page-table walk."""

    MIN_BYTES = 16 << 20
    STEP = 32 << 20
    MADV_POPULATE_WRITE = 23

    def __init__(self) -> None:
        import queue
        import threading

        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._start = threading.Thread

    @classmethod
    def supported(cls) -> bool:
        return sys.platform.startswith("linux") and _madvise() is not None

    def add(self, array: np.ndarray) -> None:
        if array.nbytes < self.MIN_BYTES:
            return
        self._queue.put(array)  # the thread holds the array, so its map stays while it works on it
        if self._thread is None:
            self._thread = self._start(target=self._run, name="grader-prefault", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        madvise, page = _madvise(), mmap.PAGESIZE
        while not self._stop.is_set():
            array = self._queue.get()
            if array is None:
                return
            start = array.ctypes.data & ~(page - 1)  # the map starts at the file's first page (the .npy header)
            end = array.ctypes.data + array.nbytes
            while end > start and not self._stop.is_set():
                low = max(start, end - self.STEP)
                low &= ~(page - 1)
                if madvise(low, end - low, self.MADV_POPULATE_WRITE) != 0:
                    return  # an older kernel (EINVAL), or no room: the generator faults the pages itself
                end = low
            del array


@functools.lru_cache(maxsize=1)
def _madvise():
    """libc's ``madvise`` (ctypes; it releases the GIL while the kernel works), or None."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.madvise
        function.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        function.restype = ctypes.c_int
        return function
    except (OSError, AttributeError):
        return None


def digest_files(paths: list[Path]) -> dict[Path, str]:
    """SHA-256 of each file, its 64 MiB chunks hashed from a read-only map on every core (hashlib releases the
    GIL), then combined: about 0.4 s per GB on two cores. A missing path or one that is not a file says so."""
    chunks: list[tuple[Path, int, int]] = []
    digests: dict[Path, str] = {}
    for path in paths:
        try:
            info = os.lstat(path)
        except OSError:
            digests[path] = "missing"
            continue
        if not stat.S_ISREG(info.st_mode):
            digests[path] = "not a regular file"
            continue
        chunks += [(path, start, info.st_size) for start in range(0, info.st_size, DIGEST_CHUNK)] or [(path, 0, 0)]

    def one(item: tuple[Path, int, int]) -> str:
        path, start, size = item
        length = min(DIGEST_CHUNK, size - start)
        if length <= 0:
            return hashlib.sha256(b"").hexdigest()
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            try:
                with mmap.mmap(fd, length, offset=start, access=mmap.ACCESS_READ) as mapped:
                    with memoryview(mapped) as view:
                        return hashlib.sha256(view).hexdigest()
            finally:
                os.close(fd)
        except (OSError, ValueError) as exc:  # shorter than it was, or gone
            return f"unreadable ({type(exc).__name__})"

    with ThreadPoolExecutor(max(1, min(len(chunks), os.cpu_count() or 1))) as pool:
        parts = list(pool.map(one, chunks))
    joined: dict[Path, list[str]] = {}
    for (path, _, size), part in zip(chunks, parts):
        joined.setdefault(path, [str(size)]).append(part)
    digests.update({p: hashlib.sha256(" ".join(v).encode()).hexdigest() for p, v in joined.items()})
    return {p: digests[p] for p in paths}


def remove_folder(folder: Path) -> None:
    """Delete a large-case folder whatever was done to it: a link in its place is unlinked, never followed."""
    try:
        if os.path.islink(folder) or not os.path.isdir(folder):
            os.unlink(folder)
            return
        os.chmod(folder, 0o700)  # sealed 0555: its owner (a grader that is not root) needs write to empty it
    except OSError:
        pass
    shutil.rmtree(folder, ignore_errors=True)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
