"""One file of entries a grader run keeps for the next: what ``classcache`` and ``regexcache`` store.

Both keep, in this user's own cache folder, what every start would otherwise compute again from text that does not
change between runs (a dataclass method's source, a regular expression). Such a file is trusted only as far as the
folder is (``classcache.user_folder``: this user's, writable by nobody else) and only when its header is this
Python's, since what it holds (bytecode, a regular expression's program) means something to one interpreter only.
It is ``marshal`` data, the format of Python's own ``__pycache__``, never a pickle.
"""
from __future__ import annotations

import marshal
import os


def read(path: str, header: bytes) -> dict:
    """The entries of ``path``, or an empty dict when it is missing, another user's, written under another header,
    or not a marshalled dict: the run then computes what it needs and writes the file again."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        with os.fdopen(fd, "rb") as file:
            if os.fstat(file.fileno()).st_uid != os.getuid() or file.read(len(header)) != header:
                return {}
            entries = marshal.loads(file.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


def write(path: str, header: bytes, entries: dict, prefix: str) -> None:
    """Write ``entries`` under ``header`` into ``path``: whole into a temporary file beside it, then renamed into
    place, so a reader never sees half a file. A full or read-only disk is no error: the next run computes again."""
    import tempfile

    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=prefix)
        with os.fdopen(fd, "wb") as file:
            file.write(header)
            marshal.dump(entries, file)
        os.replace(temporary, path)
        temporary = None
    except (OSError, ValueError):
        pass
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def recent(entries: dict, used: set, limit: int) -> dict:
    """What to write back: the entries this process used, then earlier ones, up to ``limit``, so that entries no
    run uses any more (a class renamed, a file edited) drop out while those of other commands stay."""
    kept = {key: value for key, value in entries.items() if key in used}
    for key, value in entries.items():
        if len(kept) >= limit:
            break
        kept.setdefault(key, value)
    return kept
