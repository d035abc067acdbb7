"""TOML files the grader reads on every start (an exercise's settings and catalog), parsed once per user.

Why: ``tomllib`` is pure Python; the first exercise's catalog alone (36 KB) took 3.1 to 3.4 ms to parse, on the
one core a batch's start runs on, before its first run. What a text parses to never changes, so the parse is kept,
keyed by the text's SHA-256, as ``marshal`` data in this user's cache folder (the rules of ``keptfile``), and
read back in about 0.15 ms.

Each call returns a new object (the kept bytes are unmarshalled again), so a caller that changes what it got
changes nobody else's. A parse that holds what ``marshal`` cannot store (TOML dates and times) is not kept. Any
problem with the kept file means parsing as before; a TOML error is raised exactly as ``tomllib`` raises it.
"""
from __future__ import annotations

import atexit
import hashlib
import marshal
import os
import sys

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from . import classcache, keptfile

HEADER = b"grader-toml-cache/1 " + f"{sys.version_info[:3]} {marshal.version}\n".encode()
#: the most parses a file keeps: this process's first, then earlier ones (an exercise folder edited often leaves
#: its older texts behind)
MAX_ENTRIES = 64

_kept: dict[str, bytes] | None = None
_used: set[str] = set()
_added = 0
_path: str | None = None


def loads(text: str) -> dict:
    """``tomllib.loads(text)``, from the kept parse when there is one."""
    global _added
    kept = _entries()
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    data = kept.get(key)
    if data is not None:
        try:
            value = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            value = None
        if isinstance(value, dict):
            _used.add(key)
            return value
    value = tomllib.loads(text)
    try:
        kept[key] = marshal.dumps(value)
    except ValueError:  # a date or time in it: parsed again next time
        return value
    _used.add(key)
    _added += 1
    return value


def _entries() -> dict[str, bytes]:
    """The kept parses, read once per process (an empty dict where no safe cache folder exists)."""
    global _kept, _path
    if _kept is None:
        _kept = {}
        try:
            folder = classcache.user_folder("toml")
            if folder is not None:
                _path = os.path.join(folder, "parsed.marshal")
                _kept = {key: value for key, value in keptfile.read(_path, HEADER).items()
                         if isinstance(key, str) and isinstance(value, bytes)}
                atexit.register(_write)
        except Exception:  # noqa: BLE001  (an optimisation only: without it, every file parses as before)
            _path = None
    return _kept


def _write() -> None:
    """Write the parses back if this process made new ones (at exit)."""
    if not _added or _path is None or _kept is None:
        return
    keptfile.write(_path, HEADER, keptfile.recent(_kept, _used, MAX_ENTRIES), ".toml-")
