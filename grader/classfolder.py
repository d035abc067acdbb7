"""Find the students in a class folder: a class folder is hostile input (an LMS download, a zip the students'
files went into), so discovery is explicit and never follows a link.

Layouts (``--layout``):

* ``plain``: each entry of the folder is one student: a file ``class/alice.py`` is ``alice`` (the stem), a folder
  ``class/alice/`` is ``alice`` (its files found at any depth);
* ``nbgrader``: ``course/submitted/<student>/<assignment>/*.ipynb`` -> ``<student>``; give ``course`` or
  ``course/submitted``. ``assignment`` (``--assignment NAME``) picks ``submitted/<student>/NAME/``; without it the
  submitted folder must hold a single assignment (several would make every student a duplicate);
* ``auto`` (the default): ``nbgrader`` when the folder holds ``submitted/`` and nothing else but nbgrader's own
  files (``source/``, ``release/``, ``gradebook.db``...), ``plain`` otherwise.

Every entry left out is listed with why (``Plan.left_out``): hidden files and folders, ``__pycache__``,
``__MACOSX``, files that are not ``.py`` or ``.ipynb``, links. A symbolic link where a submission or a student's
folder is expected is refused with an error row, so a link cannot point the grader at ``solutions/``; every file
graded resolves inside the folder given.

One student, one id, one folder: files are grouped by the id as given (``raw``), so ``alice..py`` and
``alice.py`` are two students. ``Entry.student`` is the id as shown everywhere: undecodable bytes become U+FFFD,
invisible and bidirectional-control characters are written as escapes (``alice\\u200b``), and two ids that
would still read the same get a short hash. ``Entry.folder`` (``OUT/students/<folder>``) is unique in the class.
Two files for one id are never merged: that student gets a ``duplicate-student`` error row outfolder every file.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import escape, outfolder
from .errors import MissingPath, UsageError
from .brokenjson import misnamed, unsupported_name
from .submission import SUFFIXES
from .shownids import case_clashes, display_ids  # noqa: F401  (display_ids: the batch's)
from .text import quote

IGNORED_NAMES = {"__pycache__", "__MACOSX"}
LAYOUTS = ("auto", "plain", "nbgrader")
#: What an nbgrader course folder holds besides ``submitted/``.
NBGRADER_COURSE = {"source", "release", "autograded", "feedback", "exchange", "gradebook.db", "nbgrader_config.py"}
HIDDEN = "hidden (a name starting with '.', __pycache__ or __MACOSX)"
NOT_A_SUBMISSION = "not a .py or .ipynb file"
A_LINK = "a symbolic link, never followed"
NOT_REGULAR = "not a regular file or folder (a pipe, a socket or a device)"
CANNOT_READ = "cannot be read"
#: a virtual environment (venv's pyvenv.cfg, conda's conda-meta/) committed or made beside the work: thousands of
#: library .py files, none of them a submission, which made a student's CI job stop on "holds 2000 submissions"
ENVIRONMENT = "a Python environment (it holds pyvenv.cfg or conda-meta/), never a submission"


#: why an id has nothing to grade: a sentence (a no-submission row), or (error kind, sentence), or None (the default)
Problem = str | tuple[str, str] | None


@dataclass(frozen=True)
class Entry:
    """One student to grade: the file, and a problem that stops grading before it starts (duplicates, links).

    ``student`` is the id as shown (printable, unique in the batch), ``raw`` the id as given (the file stem or
    folder name), ``folder`` the name of the student's folder under ``OUT/students/``.
    """

    path: Path
    student: str
    problem: tuple[str, str] | None = None  # (error kind, message)
    folder: str = ""
    raw: str = ""

    def __post_init__(self) -> None:
        if not self.raw:
            object.__setattr__(self, "raw", self.student)
        if not self.folder:
            object.__setattr__(self, "folder", outfolder.folder_name(self.student))


@dataclass(frozen=True)
class Plan:
    entries: tuple[Entry, ...]  # sorted by student id
    notes: tuple[str, ...] = ()  # for the person running the batch: what was left out, which layout
    single_file: bool = False  # exactly one path, a file: --json prints one document, not an array
    left_out: tuple[tuple[str, str], ...] = ()  # (entry as shown, why), every one of them
    layout: str = "plain"

    @property
    def folders(self) -> dict[str, str]:
        return {e.student: e.folder for e in self.entries}


@dataclass(frozen=True)
class _Found:
    raw: str
    path: Path
    problem: tuple[str, str] | None = None
    root: Path | None = None  # the class folder it was found in: messages name files relative to it


def relative_name(path: Path, root: Path | None) -> str:
    """``path`` as a student may read it: relative to the class folder, never the instructor's absolute path
    (the message lands in the student's report, the LMS comment and Gradescope's output)."""
    if root is not None:
        shown = os.path.relpath(path, root)
        if not shown.startswith(os.pardir):
            return escape.terminal(shown, 300)
    return escape.terminal(path if not path.is_absolute() else path.name, 300)


# -- discovery --------------------------------------------------------------------------------------------------
def discover(paths: list[Path], layout: str = "auto", assignment: str | None = None, *,
             in_course: bool = False) -> Plan:
    """The students under ``paths``. ``assignment`` picks ``submitted/<student>/NAME/`` in nbgrader's layout;
    ``in_course``: the name is also an assignment of the course file, so a plain class folder is fine too."""
    if layout not in LAYOUTS:
        raise UsageError(f"Unknown layout '{escape.terminal(layout, 40)}': use one of {', '.join(LAYOUTS)}.")
    if assignment is not None and (not assignment or assignment.startswith(".") or "/" in assignment
                                   or os.sep in assignment or assignment in IGNORED_NAMES):
        raise UsageError(f"--assignment takes the name of an assignment folder (submitted/<student>/NAME/), not "
                         f"{quote(assignment, 80)}.")
    found: list[_Found] = []
    empty: list[tuple[str, Path, Problem, Path | None]] = []
    left: list[tuple[Path, str]] = []
    notes: list[str] = []
    used = set()
    for path in map(Path, paths):
        if not os.path.lexists(path):  # a typo in the command: a usage error (exit 2), not a student's error row
            raise MissingPath(f"The path {escape.terminal(path)} does not exist.")
        if not path.is_dir():  # a file: grade_file reports an unsupported or unreadable one as an error result
            found.append(_Found(path.stem, path, _link_problem(path) if path.is_symlink() else None))
            continue
        root, used_layout = _root(path, layout, left, notes, assignment is not None and not in_course)
        used.add(used_layout)
        if used_layout == "nbgrader":
            chosen = _assignment(root, assignment)
            if chosen is not None and assignment is None:
                notes.append(f"nbgrader layout: assignment '{escape.terminal(chosen)}', the only one in "
                             f"{escape.terminal(root)}.")
            _scan(root, found, empty, left, chosen)
        else:
            if assignment is not None and not in_course:
                raise UsageError(f"--assignment picks submitted/<student>/{escape.terminal(assignment)}/ in nbgrader's "
                                 f"layout, but {escape.terminal(path)} is not an nbgrader course folder (holding "
                                 "submitted/) nor its submitted folder.")
            _scan(root, found, empty, left)
    entries = _entries(found, empty, left)
    notes += case_clashes({e.raw: e.student for e in entries})
    by_reason: dict[str, list[str]] = {}
    shown_left = tuple((escape.terminal(p, 300), why) for p, why in left)
    for shown, why in shown_left:
        by_reason.setdefault(why, []).append(shown)
    for why, shown in by_reason.items():
        listed = ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")
        notes.append(f"Left out {len(shown)} entr{'y' if len(shown) == 1 else 'ies'}, {why}: {listed}.")
    single = len(paths) == 1 and not Path(paths[0]).is_dir()
    return Plan(tuple(entries), tuple(notes), single, shown_left, "nbgrader" if "nbgrader" in used else "plain")


def one_student(folder: Path, student: str, names: Iterable[str] = ()) -> Plan:
    """``grade FOLDER --student ID``: the whole folder is that one student's (a student's repository in CI), its
    file found at any depth as in a student's folder of a class. None gives a no-submission row (the job still
    has a report to show). Among two or more, the only one named after the exercise (``names``: its id, its
    function, the assignment's name) is graded, as Gradescope's submission is found, and the others are left out
    with a note: a repository holds helpers and tests beside the notebook. Otherwise two or more are a usage error
    naming them."""
    left: list[tuple[Path, str]] = []
    files = _walk(folder, os.path.realpath(folder), left)
    found = [_Found(student, path, problem, folder) for path, problem in files]
    wanted = set(names)
    named = [item for item in found if item.problem is None and item.path.stem in wanted]
    if len(found) > 1 and len(named) == 1:
        graded = escape.terminal(relative_name(named[0].path, folder), 200)
        left += [(item.path, f"another file of the repository ({graded} is graded: it is named after the exercise)")
                 for item in found if item is not named[0]]
        found = named
    if len(found) > 1:  # a class folder given by mistake, or two drafts: which one is meant is not ours to guess
        names = ", ".join(relative_name(item.path, folder) for item in found[:6])
        raise UsageError(f"--student names the student of one submission, and {escape.terminal(folder)} holds "
                         f"{len(found)}: {names}{' and more' if len(found) > 6 else ''}. Keep one (or give its "
                         "file), or grade a class folder without --student.")
    wrong = misnamed_left(left)
    why: Problem = ("no-submission", wrong) if wrong else (
        f"No .py or .ipynb file was found in {escape.terminal(folder.resolve().name, 200) or 'the folder'} "
        "or its subfolders.")
    entries = _entries(found, [] if found else [(student, folder, why, folder)])
    shown_left = tuple((relative_name(p, folder), why) for p, why in left)
    notes = tuple(f"Left out {shown}: {why}." for shown, why in shown_left[:5])
    return Plan(tuple(entries), notes, True, shown_left, "plain")


def _root(path: Path, layout: str, left: list[tuple[Path, str]], notes: list[str],
          nbgrader_asked: bool = False) -> tuple[Path, str]:
    """The folder whose entries are the students, and the layout that says so (``--assignment`` asks for
    nbgrader's layout when the folder has one)."""
    submitted = path / "submitted"
    has_submitted = submitted.is_dir() and not submitted.is_symlink()
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        raise UsageError(f"Cannot read the folder {escape.terminal(path)}: {exc.strerror or exc}.") from None
    course = has_submitted and all(_ignored(n) or n in NBGRADER_COURSE or n == "submitted" for n in names)
    if layout == "auto" and nbgrader_asked and (has_submitted or path.name == "submitted"):
        layout = "nbgrader"
    if layout == "nbgrader" and not has_submitted:
        if path.resolve().name == "submitted" or path.name == "submitted":
            return path, "nbgrader"
        raise UsageError(f"--layout nbgrader needs an nbgrader course folder (holding submitted/) or its "
                         f"submitted folder; {escape.terminal(path)} is neither.")
    if layout == "nbgrader" or (layout == "auto" and course):
        left += [(path / n, "not in submitted/ (nbgrader layout)") for n in names if n != "submitted"]
        notes.append(f"nbgrader layout: the students are the folders of {escape.terminal(submitted)}.")
        return submitted, "nbgrader"
    if has_submitted:
        notes.append(f"{escape.terminal(submitted)} was graded as the folder of a student named 'submitted', "
                     "since the folder holds other students too; if it is an nbgrader course, grade it with "
                     "--layout nbgrader.")
    return path, "plain"


def _assignment(root: Path, asked: str | None) -> str | None:
    """The assignment to grade in nbgrader's ``submitted/``: the one asked for, or the only one there is."""
    if asked is not None:
        return asked
    names: set[str] = set()
    try:
        students = [item for item in os.scandir(root)
                    if not _ignored(item.name) and item.is_dir(follow_symlinks=False)]
        for student in students:
            try:
                names.update(item.name for item in os.scandir(student.path)
                             if not _ignored(item.name) and item.is_dir(follow_symlinks=False))
            except OSError:
                continue
    except OSError:
        return None
    if len(names) > 1:
        shown = sorted(escape.terminal(n, 60) for n in names)
        listed = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
        # the example is one a shell takes back as it is: quoted (``<b>`` would redirect), and never a name shown
        # with escapes, which names no folder
        plain = sorted(word for word in map(escape.shell_word, names) if word)
        example = f" (e.g. --assignment {plain[0]})" if plain else ""
        raise UsageError(f"{escape.terminal(root)} holds {len(names)} assignments ({listed}); grade one at a time "
                         f"with --assignment NAME{example}.")
    return next(iter(names), None)


def _scan(root: Path, found: list[_Found], empty: list[tuple[str, Path, Problem, Path | None]],
          left: list[tuple[Path, str]], assignment: str | None = None) -> None:
    """The entries of ``root``: each one a student (a file, or a folder) or a line of ``left``.

    With ``assignment`` (nbgrader's layout), only ``<student>/<assignment>/`` is read in a student's folder."""
    base = os.path.realpath(root)
    try:
        items = sorted(os.scandir(root), key=lambda item: item.name)
    except OSError as exc:
        raise UsageError(f"Cannot read the folder {escape.terminal(root)}: {exc.strerror or exc}.") from None
    for item in items:
        path = Path(item.path)
        if _ignored(item.name):
            left.append((path, HIDDEN))
        elif item.is_symlink():
            if os.path.isdir(path):  # a student "folder" that is a link: refused like a linked file
                found.append(_Found(item.name, path, ("unsupported-file-type",
                                    f"{quote(item.name, 80)} is a symbolic link to a folder; a student's "
                                    "folder must be a real folder, and no link in a class folder is followed."),
                                    root))
            elif _supported(path):
                found.append(_Found(path.stem, path, _link_problem(path), root))
            else:
                left.append((path, A_LINK))
        elif item.is_dir(follow_symlinks=False):
            folder, why = path, None
            if assignment is not None:
                folder, why = _assignment_folder(path, assignment, left, root)
            before = len(left)
            files = _walk(folder, base, left) if folder is not None else []
            if files:
                found += [_Found(item.name, f, problem, root) for f, problem in files]
            else:
                empty.append((item.name, folder or path, why or _nothing_graded(left[before:], path, root), root))
        elif _supported(path):
            found.append(_Found(path.stem, path, _inside(path, base) or _regular_problem(item), root))
        elif item.is_file(follow_symlinks=False) and misnamed(path):  # a row saying so, unless the id has a file
            empty.append((_misnamed_id(path), path, ("unsupported-file-type", unsupported_name(path)), root))
        else:
            left.append((path, NOT_A_SUBMISSION if item.is_file(follow_symlinks=False) else NOT_REGULAR))


def _assignment_folder(student: Path, assignment: str, left: list[tuple[Path, str]],
                       root: Path | None = None) -> tuple[Path | None, str | None]:
    """``student/assignment`` when it is a real folder, else (None, why); the student's other entries are left out."""
    try:
        items = sorted(os.scandir(student), key=lambda item: item.name)
    except OSError as exc:
        return None, f"The folder {quote(relative_name(student, root), 80)} cannot be read ({exc.strerror or exc})."
    chosen, linked, loose = None, None, []
    for item in items:
        path = Path(item.path)
        if item.name == assignment and item.is_dir(follow_symlinks=False):
            chosen = path
        elif item.name == assignment and item.is_symlink():
            left.append((path, A_LINK))
            linked = path
        elif _ignored(item.name):
            left.append((path, HIDDEN))
        else:
            left.append((path, f"not the assignment graded (--assignment {escape.terminal(assignment, 60)})"))
            loose += [path] if _supported(path) and item.is_file(follow_symlinks=False) else []
    shown = quote(relative_name(student, root), 80)
    if linked is not None:  # there is one, but a link: never followed, as a linked student folder is not
        return None, (f"{quote(relative_name(linked, root), 80)} is a symbolic link, and no link in a class folder is "
                      "followed: put the submission's real folder there.")
    if chosen is None:
        # nbgrader's layout one level short (submitted/<student>/hw.ipynb): say where the file is, not that none is
        inside = quote(f"{relative_name(student, root)}/{escape.terminal(assignment, 60)}/", 120)
        there = (f" It holds {quote(loose[0].name, 80)} directly, outside any assignment folder: move it into "
                 f"{inside} to grade it." if loose else "")
        return None, (f"There is no {escape.terminal(assignment, 60)}/ folder in {shown}: nothing was submitted for "
                      f"this assignment.{there}")
    return chosen, None


def _walk(folder: Path, base: str, left: list[tuple[Path, str]]) -> list[tuple[Path, tuple[str, str] | None]]:
    """A student's files at any depth, never through a link; what is not a submission goes to ``left``."""
    files: list[tuple[Path, tuple[str, str] | None]] = []
    stack = [folder]
    while stack:
        here = stack.pop()
        try:
            items = sorted(os.scandir(here), key=lambda item: item.name)
        except OSError as exc:
            left.append((here, f"{CANNOT_READ} ({exc.strerror or exc})"))
            continue
        folders = []
        for item in items:
            path = Path(item.path)
            if _ignored(item.name):
                left.append((path, HIDDEN))
            elif item.is_symlink():
                if _supported(path) and not os.path.isdir(path):
                    files.append((path, _link_problem(path)))  # refused: the student gets a row saying why
                else:
                    left.append((path, A_LINK))
            elif item.is_dir(follow_symlinks=False):
                if _environment(path):  # a student's own folder is theirs even so: only what lies inside it
                    left.append((path, ENVIRONMENT))
                else:
                    folders.append(path)
            elif _supported(path):
                files.append((path, _inside(path, base) or _regular_problem(item)))
            else:
                left.append((path, NOT_A_SUBMISSION if item.is_file(follow_symlinks=False) else NOT_REGULAR))
        stack += reversed(folders)
    return sorted(files)


def _nothing_graded(skipped: list[tuple[Path, str]], folder: Path, root: Path | None) -> tuple[str, str] | None:
    """Why a student's folder gave nothing to grade, naming what it holds: a notebook saved as ``hw.ipynb.txt``,
    zipped or exported is said as such (``brokenjson.unsupported_name``), other files are listed. The kind stays
    ``no-submission``: an LMS export drops such a row when the participant has another folder with a file (Moodle's
    online-text folder holds ``onlinetext.html``)."""
    files = [path for path, why in skipped if why == NOT_A_SUBMISSION]
    unread = [(path, why) for path, why in skipped if why.startswith(CANNOT_READ)]
    if unread and not files:  # "holds no .py or .ipynb file" would be a guess: the grader could not look
        path, why = unread[0]
        return ("no-submission", f"The folder {quote(relative_name(path, root), 80)} {why}, so nothing in it was "
                                 "graded: the course staff must let the grader read it.")
    wrong = [path for path in files if misnamed(path)]
    if wrong:
        more = len(files) - 1
        return ("no-submission", unsupported_name(wrong[0]) + (
            f" ({more} other file{'s' if more > 1 else ''} in the folder cannot be graded either.)" if more else ""))
    if files:
        names = ", ".join(quote(relative_name(path, folder), 80) for path in files[:3]) \
            + (" and more" if len(files) > 3 else "")
        return ("no-submission", f"The folder {quote(relative_name(folder, root), 80)} holds no .py or .ipynb file "
                                 f"to grade, only {names}: submit a .py file or a .ipynb notebook.")
    return None


def misnamed_left(left: list[tuple[Path, str]]) -> str:
    """What to do about the first file left out that is most likely a submission under another name (a zip,
    ``hw.ipynb.txt``), when nothing else could be graded; '' when there is none."""
    wrong = [path for path, reason in left if reason == NOT_A_SUBMISSION and misnamed(path)]
    return unsupported_name(wrong[0]) if wrong else ""


def _misnamed_id(path: Path) -> str:
    """The student a misnamed file is for: ``alice.ipynb.txt``, ``alice.zip`` and ``alice.tar.gz`` are ``alice``."""
    stem = path.stem
    return Path(stem).stem if Path(stem).suffix.lower() in (".py", ".ipynb", ".tar") else stem


def _link_problem(path: Path) -> tuple[str, str]:
    return ("unsupported-file-type",
            f"{quote(path.name, 80)} is a symbolic link; a submission must be a regular file.")


def _regular_problem(item: os.DirEntry) -> tuple[str, str] | None:
    if item.is_file(follow_symlinks=False):
        return None
    return ("unsupported-file-type",
            f"{quote(item.name, 80)} is not a regular file (a pipe or a device?).")


def _inside(path: Path, base: str) -> tuple[str, str] | None:
    """Nothing graded may resolve outside the class folder (a link in a parent swapped in meanwhile, say)."""
    real = os.path.realpath(path)
    if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return ("unsupported-file-type",
            f"{escape.terminal(path.name)} resolves outside the class folder; it was not read.")


def _ignored(name: str) -> bool:
    return name.startswith(".") or name in IGNORED_NAMES


def _environment(folder: Path) -> bool:
    return os.path.isfile(folder / "pyvenv.cfg") or os.path.isdir(folder / "conda-meta")


def _supported(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def _entries(found: list[_Found], empty: list[tuple[str, Path, Problem, Path | None]],
             left: list[tuple[Path, str]] | None = None) -> list[Entry]:
    """One entry per raw id; several files for one id become one duplicate-student entry. An id with nothing to
    grade (``empty``) gets one row; a misnamed file whose id has a real submission is only ``left`` out.

    Their messages name files relative to the class folder: they reach the student."""
    groups: dict[str, list[_Found]] = {}
    for item in found:
        groups.setdefault(item.raw, []).append(item)
    for raw, folder, why, root in empty:
        if raw in groups:
            if left is not None and isinstance(why, tuple) and not folder.is_dir():
                left.append((folder, NOT_A_SUBMISSION))
            continue
        groups[raw] = [_Found(raw, folder, why if isinstance(why, tuple) else (
            "no-submission",
            why or f"The folder {quote(relative_name(folder, root), 80)} holds no .py or .ipynb file to grade."))]
    shown = display_ids(list(groups))
    folders = outfolder.folder_names(shown.values())
    entries = []
    for raw, items in groups.items():
        first: dict[object, _Found] = {}
        for item in items:
            first.setdefault(_same_file(item.path), item)
        unique = list(first.values())
        student = shown[raw]
        if len(unique) == 1:
            entries.append(Entry(unique[0].path, student, unique[0].problem, folders[student], raw))
            continue
        roots = {i.root for i in unique}  # files from two class folders: each under its folder's own name
        names = ", ".join(quote(relative_name(i.path, i.root if len(roots) == 1 or i.root is None else i.root.parent),
                                80) for i in unique[:6])
        names += f" and {len(unique) - 6} more" if len(unique) > 6 else ""
        entries.append(Entry(unique[0].path, student, ("duplicate-student",
                             f"{len(unique)} files map to student {quote(student, 80)}: {names}. None of them was "
                             "graded: keep one submission per student and grade again."), folders[student], raw))
    entries.sort(key=lambda e: e.student)
    return entries


def _same_file(path: Path) -> object:
    """The same file given twice (``class/ana.py`` and ``class/./ana.py``) is one submission; links not followed."""
    try:
        info = os.lstat(path)
        return (info.st_dev, info.st_ino)
    except OSError:
        return os.path.abspath(path)
