"""The compiled methods ``@dataclass`` writes, kept between grader runs.

Why: for each class, ``dataclasses`` writes ``__init__``, ``__repr__``, ``__eq__`` (and, for a frozen class,
``__setattr__``, ``__delattr__``, ``__hash__``) as Python source and compiles it while the module is imported. For the
grader's sixty-odd classes that is about 300 small compilations, 25 to 35 ms on every start: an eighth of the time a
batch takes before its first run, paid again by every cold ``grader grade``. The source of each method depends only
on the class's fields, so its compiled code is the same from run to run: it is kept here, in this user's own cache
folder (the rules of ``user_folder``), keyed by the source itself, as Python keeps a module's in ``__pycache__``.

How: ``install()`` gives the ``dataclasses`` module an ``exec`` of its own (a module global, in front of the
builtin), which looks the source up before compiling it, then runs the code exactly as ``exec`` would. Nothing
else in ``dataclasses`` changes, and any other caller of ``exec`` is untouched. New entries are written back at
exit, in one file (written whole, then renamed into place). A file whose header is not this Python's (its bytecode
magic and version) or that does not read back as text-to-code entries is ignored and written again.
"""
from __future__ import annotations

import atexit
import os
import stat
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType

from . import keptfile

#: what an entry file was written by: another Python (or format) never reads this one's code
HEADER = b"grader-class-cache/1 " + MAGIC_NUMBER.hex().encode() + f" {sys.version_info[:3]}\n".encode()
#: the most entries a file keeps (the grader's own classes need about 350): what this process used first, then what
#: earlier ones did, so that classes since renamed or changed drop out and reading the file stays a few ms
MAX_ENTRIES = 600

_codes: dict[str, CodeType] = {}
_used: set[str] = set()
_added = 0
_path: str | None = None


def user_folder(kind: str) -> str | None:
    """This user's cache folder for ``kind`` (made if missing), or None where none is safe to use: one that another
    user owns or can write into, or a link, would let them choose the code the grader runs."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in _candidates(base, kind):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
            return folder
    return None


def _candidates(base: str, kind: str):
    """The home cache's folder, then the temporary one: ``tempfile`` is loaded only when the first will not do (the
    command line installs this first thing, before it starts the sandbox's templates, and the fewer modules it loads
    before that, the sooner they start)."""
    yield os.path.join(base, "grader", kind)
    import tempfile

    yield os.path.join(tempfile.gettempdir(), f"grader-{kind}-{os.getuid()}")


def install() -> None:
    """Serve ``dataclasses``' compilations from the cache from now on (once per process; never raises)."""
    global _path
    try:
        import dataclasses

        if _path is not None or getattr(dataclasses, "exec", None) is _exec:
            return
        folder = user_folder("classes")
        if folder is None:
            return
        _path = os.path.join(folder, "dataclass-methods.code")
        _codes.update(_read(_path))
        dataclasses.exec = _exec  # type: ignore[attr-defined]
        atexit.register(_write)
    except Exception:  # noqa: BLE001  (an optimisation only: without it, every class compiles as before)
        pass


def _exec(source, globals=None, locals=None, /):
    """``exec``, with the code for a source text ``dataclasses`` wrote compiled once per user."""
    global _added
    if globals is None:  # as the builtin: the caller's namespaces, not this function's
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            from . import pysource  # (the grader loads it anyway; not before the templates start)

            code = _codes[source] = pysource.compile_source(source, "<string>")
            _added += 1
        _used.add(source)
        source = code
    return exec(source, globals, locals)


def _read(path: str) -> dict[str, CodeType]:
    entries = keptfile.read(path, HEADER)
    return {text: code for text, code in entries.items() if isinstance(text, str) and isinstance(code, CodeType)}


def _write() -> None:
    """Write the entries back if this process compiled new ones (at exit)."""
    if not _added or _path is None:
        return
    keptfile.write(_path, HEADER, keptfile.recent(_codes, _used, MAX_ENTRIES), ".classes-")
