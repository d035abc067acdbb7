"""The file system a forked child sees: a new root built in the run's own mount namespace (ctypes, stdlib only).

Built the way bubblewrap builds it, by the first process of the run inside its new namespaces, as root and before
the switch to the worker uid (``template.py``): a small tmpfs becomes the root; the parent's list of files and
folders is bound into it at the paths it names, read-only, ``nosuid`` and ``nodev`` (the system libraries, the
Python prefix, numpy, the runner, the run's shared inputs); ``/dev`` holds only null, zero, random and urandom;
``/proc`` is a new one, showing the run's pid namespace only; ``/tmp`` and ``/dev/shm`` are size-capped tmpfs.
The host's root is detached at the end, so nothing else of it can be reached, and the root itself is read-only.
"""
from __future__ import annotations

import ctypes
import os
import platform

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 0x1, 0x2, 0x4, 0x8, 0x20
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
MNT_DETACH = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
DEVICES = ("null", "zero", "random", "urandom")
DEV_LINKS = (("/proc/self/fd", "dev/fd"), ("/proc/self/fd/0", "dev/stdin"), ("/proc/self/fd/1", "dev/stdout"),
             ("/proc/self/fd/2", "dev/stderr"))
#: Where the new root is put together (a tmpfs mounted over it in the private mount namespace only).
BASE = "/tmp"

_libc = None


def _c():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        _libc.syscall.restype = ctypes.c_long
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _b(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_c().mount(_b(source), _b(target), _b(fstype), flags, _b(data)), f"mount {target}")


def umount(target: str) -> None:
    _check(_c().umount2(_b(target), MNT_DETACH), f"umount {target}")


def pivot_root(new: str, old: str) -> None:
    number = SYS_PIVOT_ROOT.get(platform.machine().lower())
    if number is None:
        raise OSError(38, f"no pivot_root number for {platform.machine()}")
    _check(_c().syscall(ctypes.c_long(number), _b(new), _b(old)), "pivot_root")


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_c().sethostname(data, ctypes.c_size_t(len(data))), "sethostname")


#: Folders known to exist in the root being put together (``prepare`` starts it afresh): fewer system calls.
_folders: set[str] = set()
#: What this process made in the root (folders, files, links): the rest of the root is empty but for what is bound
#: into it, so a path outside every bound folder (and every link) exists only if it is one of these.
_made: set[str] = set()
#: Folders bound into the root so far, and links made: below them the file system is asked what exists.
_bound: list[str] = []


def _make(path: str, folder: bool) -> None:
    """Create ``path`` (a mount point) and its missing parents, 0755 whatever the umask.

    Outside the folders bound so far, whether a path exists is known without asking the file system (each question
    cost a forked run about 10 microseconds of Python, 50 of them a run); below one, it is asked."""
    if path in _folders:
        return
    parent = os.path.dirname(path)
    known = not any(path.startswith(bound + "/") for bound in _bound)
    if parent not in _folders and not (parent in _made if known else os.path.isdir(parent)):
        _make(parent, True)
    _folders.add(parent)
    if path in _made if known else os.path.lexists(path):
        return
    _made.add(path)
    if folder:
        os.mkdir(path, 0o755)
        os.chmod(path, 0o755)
        _folders.add(path)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o444))


def _bind(source: str, target: str, read_only: bool = True) -> None:
    folder = os.path.isdir(source)
    _make(target, folder)
    mount(source, target, None, MS_BIND)
    if folder:
        _bound.append(target)
    flags = MS_BIND | MS_REMOUNT | MS_NOSUID | (MS_RDONLY | MS_NODEV if read_only else 0)
    mount(None, target, None, flags)


def build(binds: list, links: list, tmp_bytes: int, shm_bytes: int, hostname: str = "sandbox") -> None:
    """Make the new root this process's (and its future children's) whole file system; cwd ends at ``/tmp``.

    ``binds``: (host path, path inside) pairs, shown read-only; ``links``: (target, path inside) symlinks.
    """
    prepare(binds, links, tmp_bytes, shm_bytes)
    finish([], hostname)


def prepare(binds: list, links: list, tmp_bytes: int, shm_bytes: int) -> None:
    """Put the new root together under ``/newroot``, the host's root still at ``/oldroot`` (``finish`` ends it)."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done below reaches the host's mount table
    _folders.clear()
    _made.clear()
    _bound.clear()
    mount("tmpfs", BASE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=4096")
    os.chdir(BASE)
    os.mkdir("newroot", 0o755)
    os.mkdir("oldroot", 0o755)
    pivot_root(BASE, BASE + "/oldroot")  # the host's root is now /oldroot, read from there below
    os.chdir("/")
    _folders.add("/newroot")
    mount("newroot", "newroot", None, MS_BIND | MS_REC)
    os.chmod("newroot", 0o755)
    # the scratch tmpfs first: a bind whose path lies under /tmp (a checkout in /tmp) is then mounted inside it
    # instead of being hidden by it
    for path, size in (("/newroot/tmp", tmp_bytes), ("/newroot/dev/shm", shm_bytes)):
        _make(path, True)
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={int(size)}")
    for source, target in sorted(binds, key=lambda pair: pair[1]):
        _bind("/oldroot" + source, "/newroot" + target)
    for name in DEVICES:
        _bind(f"/oldroot/dev/{name}", f"/newroot/dev/{name}", read_only=False)
    for target, path in [*links, *DEV_LINKS]:
        link = "/newroot/" + path.lstrip("/")
        _make(os.path.dirname(link), True)
        os.symlink(target, link)
        _made.add(link)
        _bound.append(link)
    _make("/newroot/proc", True)
    mount("proc", "/newroot/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def finish(binds: list, hostname: str = "sandbox") -> None:
    """Bind ``binds`` too (a run's own inputs), then detach the host's root for good and enter the new one."""
    for source, target in sorted(binds, key=lambda pair: pair[1]):
        _bind("/oldroot" + source, "/newroot" + target)
    umount("/oldroot")
    os.chdir("/newroot")
    pivot_root(".", ".")
    umount(".")  # the tmpfs the root was put together in, and with it every path to the host's root
    os.chdir("/")
    mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    sethostname(hostname)
    os.chdir("/tmp")
