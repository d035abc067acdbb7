"""What this machine offers the sandbox, and where Python and numpy live: each probed once per process.

The probes (a Landlock ABI, cgroups, the fork template, bubblewrap) start processes or touch the kernel, so a batch
asks each question once, whichever thread asks first; the answers never change while the grader runs.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import sys
import threading
from pathlib import Path

from .runner import landlock
from .slots import SandboxUnavailable

_lock = threading.Lock()
_answers: dict[str, object] = {}


def probe(name: str, compute):
    """``compute()``'s answer, computed by the first caller of ``name`` in this process."""
    with _lock:
        if name not in _answers:
            _answers[name] = compute()
        return _answers[name]


def landlock_abi() -> int:
    return probe("landlock", landlock.abi_version)


def is_root() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0


def locations() -> tuple[str, str, str]:
    """The interpreter, its prefix and the folder numpy is installed in (found, not imported)."""
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.origin:
        raise SandboxUnavailable("numpy is not installed for this Python")
    numpy_site = str(Path(spec.origin).resolve().parent.parent)
    return os.path.realpath(sys.executable), os.path.realpath(sys.base_prefix), numpy_site


@functools.lru_cache(maxsize=4)
def numpy_dirs(site: str) -> tuple[str, ...]:
    """numpy, the folder of its bundled libraries (wheels put OpenBLAS next to it) and its installed metadata.

    The metadata (``numpy-X.Y.Z.dist-info``: its version, license and file list) is what
    ``importlib.metadata.version("numpy")`` reads. Left out, that call raised PackageNotFoundError, which no machine
    with numpy installed does, and a script that printed its versions at import lost its function (0 / 17)."""
    folder = Path(site)
    found = [folder / name for name in ("numpy", "numpy.libs")]
    found += sorted(folder.glob("numpy-[0-9]*.dist-info"))
    return tuple(str(path) for path in found if path.exists())


@functools.lru_cache(maxsize=1)
def system_dirs() -> tuple[str, ...]:
    """The system's library and program folders that are real folders (not links into /usr)."""
    return tuple(f"/{n}" for n in ("lib", "lib64", "lib32", "libx32", "bin", "sbin")
                 if os.path.isdir(f"/{n}") and not os.path.islink(f"/{n}"))
