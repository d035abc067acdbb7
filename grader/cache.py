"""The large case's cache: built once per course, exercise version and setting, then mapped by every later grader.

An entry holds what a ``Session`` builds for an exercise's large case (the sealed input files, the expected output, the
exercise's cached intermediate and the shared small arguments), so a cold ``grader grade`` maps existing files
instead of generating a gigabyte. Nothing per student is stored: the student's own b3 is drawn per run.

Where: ``--cache-dir`` or ``$GRADER_CACHE_DIR``; else, as root, ``/dev/shm/grader-cache`` when the tmpfs has room
(its ``entries/`` is then a tmpfs of its own mounted with ``huge=within_size``, so a child maps the gigabyte in 2 MiB
pages: about 5 ms of CPU beyond its computation instead of about 95 ms, ``bench/mapping.py``), else
``/var/cache/grader``; without root, ``$XDG_CACHE_HOME/grader`` or ``~/.cache/grader``. A root folder must be a real
folder owned by the grader's uid and writable by nobody else, or it is refused (``/dev/shm`` is writable by everyone).

Layout::

    ROOT/lock                          flock: LOCK_EX to build, condemn-sweep or remove; LOCK_SH to look up
    ROOT/entries/KEY-NONCE/            one entry, sealed once complete (0555, nobody's when root)
        lock                           flock: LOCK_SH while a grader maps the entry; removal takes LOCK_EX|LOCK_NB
        meta.json                      signed (HMAC of the course secret): case, files, stamps and digests
        data/                          the shared inputs, sealed as ``largecase`` seals them (0444 / 0555)
        private/                       0700: expected output, intermediate, shared small arguments (0400)
    ROOT/entries/KEY-NONCE.condemned   an entry found changed: never served again, removed once unused

KEY is sha256 of (format, exercise id, version + fingerprint, sha256(secret), seed, setting, numpy version).
An entry is served when its signature holds, the stamps of its data files and folder are those recorded when they
were sealed (a change of bytes, name, mode, owner or links moves a ctime or an inode, which no process sets back),
and its small private files match their digests. Anything else condemns it; a change found during a run is handled
by the session as before (rebuild, warning, regrade) and condemns the entry too. Stale entries (another version of
the same exercise, another format or numpy), condemned ones and those over the cap (``max_entries``, ``max_bytes``;
least recently used first) are removed under ``ROOT/lock`` and only when no grader holds them.
"""
from __future__ import annotations

import ctypes
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from . import cacheentry, largecase
from .cacheentry import FORMAT, Built, Entry
ENV_DIR = "GRADER_CACHE_DIR"
SHM_ROOT = Path("/dev/shm/grader-cache")
ROOT_FALLBACK = Path("/var/cache/grader")
SHM_ROOM = 4 << 30
MAX_ENTRIES = 4
ENTRY = re.compile(r"[0-9a-f]{64}-[0-9a-f]{8}")
MOUNT_FLAGS = 0x2 | 0x4 | 0x8  # MS_NOSUID | MS_NODEV | MS_NOEXEC


class CacheUnavailable(Exception):
    """The cache folder cannot be used (wrong owner or mode, not writable, full): grading goes on without it."""


@dataclass(frozen=True)
class Info:
    """One entry as ``grader cache list`` shows it."""

    name: str
    exercise: str
    version: str
    nbytes: int
    last_used: float
    busy: bool
    condemned: bool


def key(exercise_id: str, version: str, secret: str, seed: int, setting: str) -> str:
    parts = [FORMAT, exercise_id, version, hashlib.sha256(secret.encode()).hexdigest(), seed, setting, np.__version__]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def default_root() -> Path:
    """``$GRADER_CACHE_DIR``; else as root the tmpfs when it has room, or /var/cache; else the user's cache folder."""
    given = os.environ.get(ENV_DIR)
    if given:
        return Path(given)
    if _is_root():
        try:
            if SHM_ROOT.parent.is_dir() and shutil.disk_usage(SHM_ROOT.parent).free > SHM_ROOM:
                return SHM_ROOT
        except OSError:
            pass
        return ROOT_FALLBACK
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "grader"


def default_max_bytes() -> int:
    """A quarter of the machine's memory, at most 16 GiB: four 1 GB entries on a 16 GiB machine."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 16 << 30
    return max(2 << 30, min(16 << 30, memory // 4))


class Cache:
    def __init__(self, root: Path | None = None, *, max_entries: int = MAX_ENTRIES, max_bytes: int | None = None,
                 huge: bool | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self.entries = self.root / "entries"
        self.max_entries = max(1, max_entries)
        self.max_bytes = max_bytes if max_bytes is not None else default_max_bytes()
        if huge is None and os.environ.get("GRADER_CACHE_HUGE") in ("0", "1"):
            huge = os.environ["GRADER_CACHE_HUGE"] == "1"
        self.huge = _on_tmpfs(self.root) if huge is None else huge  # as root: a huge-page tmpfs on entries/
        self._prepared = False
        self.notes: list[str] = []  # for the person running the grader: an entry that did not verify

    # -- the folder and its lock --------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Create or check the cache folder (ours, writable by no one else) and, as root, its huge-page tmpfs."""
        if self._prepared:
            return
        mode = 0o755 if _is_root() else 0o700  # worker uids must traverse to the data files when root
        try:
            self.root.parent.mkdir(parents=True, exist_ok=True)
            for folder in (self.root, self.entries):
                try:
                    os.mkdir(folder, mode)
                except FileExistsError:
                    pass
                _check_owned(folder)
        except OSError as exc:
            raise CacheUnavailable(f"{self.root}: {exc.strerror or exc}") from None
        if self.huge and _is_root() and not os.path.ismount(self.entries):
            with self._locked(fcntl.LOCK_EX):
                if not os.path.ismount(self.entries) and not os.listdir(self.entries):
                    self._mount()
        self._prepared = True

    def _mount(self) -> None:
        """A tmpfs of its own with transparent huge pages (within_size), capped above ``max_bytes``."""
        size = self.max_bytes + (2 << 30)
        options = f"size={size},mode=0755,uid=0,gid=0,huge=within_size".encode()
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.mount(b"grader-cache", str(self.entries).encode(), b"tmpfs", ctypes.c_ulong(MOUNT_FLAGS), options):
            self.huge = False  # a plain folder on the tmpfs still works, with 4 KiB pages

    def huge_pages(self) -> bool:
        """Whether entries live on a tmpfs with huge pages (read from the mount table)."""
        try:
            with open("/proc/self/mountinfo") as table:
                for line in table:
                    fields = line.split()
                    if len(fields) > 4 and fields[4] == str(self.entries):
                        tail = line.split(" - ", 1)[-1]
                        return tail.startswith("tmpfs") and "huge=" in tail and "huge=never" not in tail
        except OSError:
            pass
        return False

    def _lock_path(self) -> Path:
        return self.root / "lock"

    def _locked(self, how: int):
        return _Flock(self._lock_path(), how)

    # -- serving -----------------------------------------------------------------------------------------------
    def open(self, entry_key: str, secret: str, make: Callable[[Path], Built | None], *, exercise_id: str,
             version: str) -> Entry | None:
        """The entry for ``entry_key``, verified and held (LOCK_SH) until ``release``; built by ``make(data folder)``
        when missing, under the cache lock, so two graders starting at once build it once."""
        self.prepare()
        with self._locked(fcntl.LOCK_SH):
            found = self._find(entry_key, secret)
        if found is not None:
            return found
        with self._locked(fcntl.LOCK_EX):
            found = self._find(entry_key, secret)
            if found is not None:
                return found
            self._sweep(exercise_id, version, room_for=self._estimate(exercise_id))
            entry = self._build(entry_key, secret, make, exercise_id, version)
            if entry is not None:
                self._sweep(exercise_id, version, keep=entry.path)
            return entry

    def release(self, entry: Entry | None) -> None:
        if entry is not None and entry.lock_fd >= 0:
            os.close(entry.lock_fd)
            entry.lock_fd = -1

    def condemn(self, entry: Entry) -> bool:
        """Never serve ``entry`` again (a child changed it); release it and remove it if no grader holds it.
        Returns whether another grader had condemned it already."""
        marker = entry.path.with_name(entry.path.name + ".condemned")
        with self._locked(fcntl.LOCK_EX):
            already = marker.exists()
            try:
                os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
            except OSError:
                pass
            self.release(entry)
            self._remove_if_unused(entry.path)
        return already

    def _find(self, entry_key: str, secret: str) -> Entry | None:
        """The newest valid entry for the key, held; invalid ones are condemned (removed later, when unused)."""
        for path in sorted(self.entries.glob(f"{entry_key}-*"), key=_ctime, reverse=True):
            if not ENTRY.fullmatch(path.name) or path.with_name(path.name + ".condemned").exists():
                continue
            fd = _hold(path / "lock")
            if fd < 0:
                continue
            try:
                entry = cacheentry.load(path, secret, fd)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                os.close(fd)
                _mark(path)
                self.notes.append(f"The cached large case {path.name[:16]} did not verify ({exc}): it is not used "
                                  "again, and the case was built anew.")
                continue
            try:
                os.utime(path / "lock")  # last used, for the cap
            except OSError:
                pass
            return entry
        return None

    # -- building ------------------------------------------------------------------------------------------------
    def _build(self, entry_key: str, secret: str, make: Callable[[Path], Built | None], exercise_id: str,
               version: str) -> Entry | None:
        path = self.entries / f"{entry_key}-{secrets.token_hex(4)}"
        os.mkdir(path, 0o755)
        try:
            lock = path / "lock"
            os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o444))
            fd = _hold(lock)
            data, private = path / "data", path / "private"
            os.mkdir(data, 0o755)
            os.mkdir(private, 0o700)
            built = make(data)
            if built is None:
                os.close(fd)
                _remove_tree(path)
                return None
            body, recompute = cacheentry.persist(path, built, exercise_id, version)
            cacheentry.write_signed(path / "meta.json", body, secret)
            for name in ("lock", "meta.json"):
                _seal(path / name)
            _seal(path, folder=True)
        except BaseException:
            _remove_tree(path)
            raise
        return Entry(path, built, recompute=recompute, fresh=True, lock_fd=fd)

    def _estimate(self, exercise_id: str) -> int:
        sizes = [info.nbytes for info in self.list() if info.exercise == exercise_id]
        return max(sizes, default=0)

    # -- listing and removal ---------------------------------------------------------------------------------------
    def list(self) -> list[Info]:
        infos = []
        try:
            paths = sorted(self.entries.iterdir())
        except OSError:
            return []
        for path in paths:
            if not ENTRY.fullmatch(path.name) or not path.is_dir():
                continue
            body = cacheentry.read_body(path) or {}
            try:
                used = os.stat(path / "lock").st_mtime
            except OSError:
                used = 0.0
            infos.append(Info(path.name, str(body.get("exercise", "?")), str(body.get("version", "?")),
                              _size(path), used, _busy(path / "lock"),
                              path.with_name(path.name + ".condemned").exists() or not body))
        return infos

    def clear(self) -> tuple[int, int]:
        """Remove every entry no grader holds; return (removed, busy). Unmounts an emptied huge-page tmpfs."""
        self.prepare()
        removed = busy = 0
        with self._locked(fcntl.LOCK_EX):
            for path in sorted(self.entries.iterdir()):
                if ENTRY.fullmatch(path.name):
                    if self._remove_if_unused(path):
                        removed += 1
                    else:
                        busy += 1
                elif path.name.endswith(".condemned") and not path.with_suffix("").exists():
                    path.unlink(missing_ok=True)
                elif not path.name.endswith(".condemned"):
                    _remove_tree(path)  # not an entry: left by something else or a crash
            if busy == 0 and _is_root() and os.path.ismount(self.entries) and not os.listdir(self.entries):
                libc = ctypes.CDLL(None, use_errno=True)
                libc.umount2(str(self.entries).encode(), 0)
        return removed, busy

    def _sweep(self, exercise_id: str, version: str, room_for: int = 0, keep: Path | None = None) -> None:
        """(Lock held.) Remove condemned, incomplete and stale entries, then the least recently used ones over the
        cap, leaving room for one more entry of ``room_for`` bytes before a build; busy entries are skipped."""
        alive = []
        for path in sorted(self.entries.iterdir()):
            if path.name.endswith(".condemned"):
                if not path.with_suffix("").exists():
                    path.unlink(missing_ok=True)
                continue
            if not ENTRY.fullmatch(path.name) or path == keep:
                continue
            body = cacheentry.read_body(path)
            stale = (body is None or path.with_name(path.name + ".condemned").exists()
                     or body.get("format") != FORMAT or body.get("numpy") != np.__version__
                     or (body.get("exercise") == exercise_id and body.get("version") != version))
            if stale:
                self._remove_if_unused(path)
            else:
                alive.append(path)
        alive.sort(key=lambda p: _mtime(p / "lock"))
        sizes = {p: _size(p) for p in alive}
        count = len(alive) + (1 if keep is not None else 0)
        total = sum(sizes.values()) + (_size(keep) if keep is not None else 0)
        extra = 1 if keep is None else 0
        for path in alive:
            if count + extra <= self.max_entries and total + room_for <= self.max_bytes:
                break
            if self._remove_if_unused(path):
                count -= 1
                total -= sizes[path]

    def _remove_if_unused(self, path: Path) -> bool:
        """(Lock held.) Remove an entry unless a grader holds it (LOCK_SH): LOCK_EX|LOCK_NB says which."""
        try:
            fd = os.open(path / "lock", os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            fd = -1  # never complete: its builder is gone (a builder holds the cache lock)
        except OSError:
            return False
        try:
            if fd >= 0:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return False
            _remove_tree(path)
            path.with_name(path.name + ".condemned").unlink(missing_ok=True)
            return True
        finally:
            if fd >= 0:
                os.close(fd)


class _Flock:
    def __init__(self, path: Path, how: int) -> None:
        self.path, self.how, self.fd = path, how, -1

    def __enter__(self) -> _Flock:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.fd, self.how)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)


def _seal(path: Path, folder: bool = False) -> None:
    os.chmod(path, largecase.FOLDER_MODE if folder else largecase.FILE_MODE)
    if _is_root():
        os.chown(path, largecase.OWNER_UID, largecase.OWNER_UID)


def _mark(path: Path) -> None:
    try:
        os.close(os.open(path.with_name(path.name + ".condemned"), os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
    except OSError:
        pass


def _hold(lock: Path) -> int:
    """LOCK_SH on an entry's lock file (opened read-only: it is sealed); -1 when there is none."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return -1
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def _busy(lock: Path) -> bool:
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _remove_tree(path: Path) -> None:
    """Delete an entry whatever its modes (sealed folders are 0555): links are unlinked, never followed."""
    try:
        if os.path.islink(path) or not os.path.isdir(path):
            os.unlink(path)
            return
    except OSError:
        return
    for folder, dirs, _ in os.walk(path):
        for name in [".", *dirs]:
            target = os.path.join(folder, name)
            try:
                if not os.path.islink(target):
                    os.chmod(target, 0o700)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


def _check_owned(folder: Path) -> None:
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise CacheUnavailable(f"{folder} is not a folder")
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise CacheUnavailable(f"{folder} belongs to another user or others can write to it")


def _size(path: Path) -> int:
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


def _ctime(path: Path) -> int:
    try:
        return os.lstat(path).st_ctime_ns
    except OSError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _on_tmpfs(path: Path) -> bool:
    """Whether ``path`` (or the folder it will be made in) is on a tmpfs: the entries already live in memory, so
    a tmpfs of their own with huge pages changes nothing but the page size."""
    best, fstype = "", ""
    target = os.path.abspath(path)
    try:
        with open("/proc/self/mountinfo") as table:
            for line in table:
                fields = line.split()
                point = fields[4] if len(fields) > 4 else ""
                if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, fstype = point, line.split(" - ", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return fstype == "tmpfs"


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


