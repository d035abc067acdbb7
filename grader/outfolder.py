"""The output folder: where each student's files go, how every file in it is written, and whether the folder
asked for (``--out``) can be used before anything is graded.

One folder name per student id, safe on any file system and unique in a class; files written whole (a reader
never sees half of one) with the modes ``--private`` asks for. Discovery (``classfolder``), the batch and every
writer use it, so it sits below all of them and depends on nothing but ``escape`` (and ``errors``).
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import tempfile
import threading
import unicodedata
from pathlib import Path
from typing import Iterable

from . import escape
from .errors import UsageError

STUDENTS = "students"  # OUT/students/<folder>/
FOLDER_NAME_CHARS = 64
FILE_MODE, FOLDER_MODE = 0o644, 0o755  # a TA or a web server can read what the grader wrote, even as root
PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE = 0o600, 0o700  # --private


#: An absolute path in an exception's text: a slash not inside a word or a number (not ``1/2``), then names.
_ABSOLUTE = re.compile(r"(?<![\w.~/-])(?:/[^\s/'\"\\:,;()\[\]{}<>|]+)+/?")


def without_host_paths(exc: BaseException) -> str:
    """``Type: message`` of a failure of the grader's own, for what a student is handed (result, report, LMS
    comment): an ``OSError`` says its error and the file's name alone, and any other absolute path is cut to
    its last name. The class folder, OUT, the cache, TMPDIR and the grader's install path are the instructor's:
    their layout (home folder, course, term) is no business of the student's, and the full text stays on the
    instructor's terminal anyway."""
    name = type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        files = [os.path.basename(os.fsdecode(f).rstrip("/")) for f in (exc.filename, exc.filename2) if f]
        return f"{name}: {exc.strerror}" + (f" ({', '.join(files)})" if files else "")
    text = escape.terminal(exc)
    return f"{name}: " + _ABSOLUTE.sub(lambda m: ".../" + os.path.basename(m.group(0).rstrip("/")), text)


def student_folder(out: Path, folder: str) -> Path:
    return Path(out) / STUDENTS / folder


def folder_names(students: Iterable[str]) -> dict[str, str]:
    """One folder name per student id, unique in the class, even on a case-insensitive file system.

    An id that is already a plain name (letters, digits, ``-_.@+``, at most 64 characters, no leading dot or
    dash) is its own folder. Any other id is cleaned and gets a short hash of the id, so ``alice.`` and
    ``alice`` never share ``alice``. Names that would still clash get a longer hash.
    """
    ids = sorted(set(students))
    level = {s: 0 if _cleaned(s) == s and not _reserved(s) else 1 for s in ids}
    for _ in range(3):
        names = {s: _name(s, level[s]) for s in ids}
        groups: dict[str, list[str]] = {}
        for s, name in names.items():
            groups.setdefault(unicodedata.normalize("NFKC", name).casefold(), []).append(s)
        clashing = [s for group in groups.values() if len(group) > 1 for s in group]
        if not clashing:
            return names
        for s in clashing:
            level[s] = min(level[s] + 1, 2)
    return {s: _name(s, 2) for s in ids}  # 64 hex digits: distinct ids cannot clash


def folder_name(student: str) -> str:
    """The folder of a student graded alone (one file on the command line)."""
    return folder_names([student])[student]


def _cleaned(student: str) -> str:
    text = escape.readable(student)
    cleaned = "".join(c if c.isalnum() or c in "-_.@+" else "_" for c in text)
    return cleaned.lstrip(".-").rstrip(".")[:FOLDER_NAME_CHARS] or "_"


#: names Windows gives to devices, with any extension and in any case: a folder named ``CON`` or ``nul.x`` cannot be
#: opened there, and an out folder is often zipped for a TA who uses Windows
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"{port}{n}" for port in ("com", "lpt") for n in "123456789")})


def _reserved(name: str) -> bool:
    return name.split(".")[0].rstrip(" ").casefold() in _DEVICES


def _name(student: str, level: int) -> str:
    if level == 0:
        return _cleaned(student)
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()
    base = _cleaned(student)
    if _reserved(base):  # the hash must join the part before the first dot: ``aux.v2-1a2b`` is still ``aux`` there
        base = base.replace(".", "_")
    return f"{base}-{digest[:10] if level == 1 else digest}"


# -- writing ----------------------------------------------------------------------------------------------------
def make_folder(folder: Path, *, private: bool = False) -> Path:
    """Create ``folder`` (and its parents) readable by others (0755), or by the owner only under ``private``."""
    folder = Path(folder)
    missing = []
    here = folder
    while not here.exists():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    folder.mkdir(parents=True, exist_ok=True)
    for created in missing:  # whatever the umask: only the folders made here
        os.chmod(created, PRIVATE_FOLDER_MODE if private else FOLDER_MODE)
    return folder


def own_folder(folder: Path, *, private: bool = False) -> Path:
    """``folder``, made if missing (with its parents, as ``make_folder`` makes them), its mode then set to 0755
    (0700 under ``private``) whatever it was, so a rerun with or without ``--private`` changes it. A student's
    folder is there on every rerun: a mkdir that finds it, a stat and a chmod, against a stat more and
    ``pathlib``'s walk through ``make_folder``.

    A symbolic link in its place is removed (its target left as it is) and a folder made: followed, it had the
    student's files written outside OUT, and the chmod opened its target, any folder of the machine, to every
    reader. The grader names every folder under ``students/``, so a link there was never its choice."""
    folder = Path(folder)
    mode = PRIVATE_FOLDER_MODE if private else FOLDER_MODE
    try:
        os.mkdir(folder, mode)  # never wider than asked, even before the chmod (the umask may narrow it)
    except FileExistsError:
        if os.path.islink(folder):  # replaced, never followed: see above
            os.unlink(folder)
            os.mkdir(folder, mode)
        elif not os.path.isdir(folder):  # a file in its place: left alone, and the error says what to do
            raise FileExistsError(errno.EEXIST, "a file, not a folder, holds its name: move the file away and "
                                  "grade again", folder.name) from None
    except FileNotFoundError:  # a parent is missing too
        make_folder(folder, private=private)
    os.chmod(folder, mode)
    return folder


def write_atomic(path: Path, text: str | bytes, *, private: bool = False) -> None:
    """Write through a temporary file and rename, so a reader never sees half a file (nor what was at the name
    before: a link there is replaced, never followed); mode 0644 (0600 private) whatever the umask. Text is
    written as UTF-8. The folder is made (``make_folder``) only when the file cannot be created in it.

    No fsync, as before: the rename is what makes it atomic for readers. The temporary file is opened directly
    (``O_EXCL``, a name of this process and thread) and written in one call rather than through ``tempfile``
    and a buffered file object: a batch writes five files per student, and that machinery (a random name, two
    stats and a failed mkdir of the folder for every file) cost about half of each write's CPU."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    try:
        fd, tmp = _temporary(folder, name)
    except FileNotFoundError:  # the folder is not there yet
        make_folder(Path(folder or "."), private=private)
        fd, tmp = _temporary(folder, name)
    try:
        try:
            os.fchmod(fd, PRIVATE_FILE_MODE if private else FILE_MODE)
            view = memoryview(data)
            while view:  # a regular file takes it all at once, short of a signal or a full disk
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: ``O_EXCL`` and ``O_NOFOLLOW``: the temporary file is always a new one, never reached through a link.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _temporary(folder: str, name: str) -> tuple[int, str]:
    """A new empty file in ``folder`` for the file ``name``, mode 0600 until ``write_atomic`` sets it, and its
    path. Named after this process and thread, so no other writer can hold it; one left there by a killed run
    (the same process id, later) is not reused, a random name is taken instead. Plain strings, not ``Path``
    objects: five files per student, and each ``Path`` made costs as much as a system call here."""
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        return os.open(tmp, _NEW_FILE, PRIVATE_FILE_MODE), tmp
    except FileExistsError:
        return tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")


# -- the output folder asked for, checked before anything is graded ---------------------------------------------
def outside_the_class(out: Path, paths) -> None:
    """Refuse an output folder inside a class folder being graded (or that folder itself): the next run would
    find the reports as one more student, and every report file as an entry left out."""
    where = os.path.realpath(out)
    for path in paths:
        if not os.path.isdir(path):
            continue
        folder = os.path.realpath(path)
        if where == folder or where.startswith(folder.rstrip(os.sep) + os.sep):
            how = "is the class folder" if where == folder else "is inside the class folder"
            raise UsageError(f"--out {escape.terminal(out)} {how} {escape.terminal(path)}, so the next run would "
                             "grade the reports as a student: give an output folder outside it.")


def check_writable(out: Path, private: bool = False) -> None:
    """Fail before grading anything when the output folder cannot be written."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"Cannot write the reports to {escape.terminal(out)}: it is a file, not a folder (give "
                         "--out a folder).")
    try:
        make_folder(out, private=private)
        probe = out / ".grader-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"Cannot write the reports to {out}: {exc.strerror or exc}.") from None
