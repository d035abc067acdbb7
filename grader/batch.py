"""Grade a whole class: find the submissions, grade them on worker threads, write each result as it comes.

Layouts a folder may hold (any mix, several folders at once):

* flat: ``class/alice.py``, ``class/bob.ipynb`` -> students ``alice``, ``bob`` (the file stem);
* one folder per student: ``class/alice/anything.ipynb`` -> ``alice`` (the folder name; files found at any depth);
* nbgrader: ``course/submitted/<student>/<assignment>/*.ipynb`` -> ``<student>``; give ``course`` or
  ``course/submitted``.

Hidden files and folders (``.ipynb_checkpoints`` among them) and ``__pycache__`` are ignored. Files that are not
``.py`` or ``.ipynb`` inside a folder are skipped with a note; one given by name gets an error result. Two files
that map to one student (or to one output folder) are never merged: that student gets an error result of kind
``duplicate-student`` naming every file, and neither file is graded.

Each submission's code already runs in its own sandboxed child, so the workers are threads of this process
sharing one ``Session``. Every grade is wrapped: whatever goes wrong becomes that student's error result (kind
``internal`` for a failure of the grader itself) and the batch goes on. With an output folder, a student's files
are written as soon as the grade is known (atomically, ``result.json`` last, then the ``.grade-key`` sidecar), so
an interrupted batch loses nothing finished, and a rerun skips every student whose sidecar still matches.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import queue
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from . import report
from .errors import MissingFile
from .grade import Session, error_result, grade_file
from .results import ErrorInfo, GradeResult
from .submission import SUFFIXES

#: Written after ``result.json``: the inputs a result was graded from. A rerun skips the student if they match.
KEY_FILE = ".grade-key.json"
IGNORED_NAMES = {"__pycache__"}


@dataclass(frozen=True)
class Entry:
    """One student to grade: the file, and a problem that stops grading before it starts (duplicates)."""

    path: Path
    student: str
    problem: tuple[str, str] | None = None  # (error kind, message)


@dataclass(frozen=True)
class Plan:
    entries: tuple[Entry, ...]  # sorted by student id
    notes: tuple[str, ...] = ()  # skipped files, for the person running the batch
    single_file: bool = False  # exactly one path, a file: --json prints one document, not an array


# -- discovery --------------------------------------------------------------------------------------------------
def discover(paths: list[Path]) -> Plan:
    found: list[tuple[str, Path]] = []
    skipped: list[Path] = []
    empty: list[tuple[str, Path]] = []
    for path in paths:
        path = Path(path)
        if not path.exists():  # a typo in the command: a usage error (exit 2), not a student's error row
            raise MissingFile(f"The path {path} does not exist.")
        if not path.is_dir():  # a file: grade_file reports an unsupported or unreadable one as an error result
            found.append((path.stem, path))
            continue
        root = path / "submitted" if (path / "submitted").is_dir() else path  # an nbgrader course folder
        for child in sorted(root.iterdir()):
            if _ignored(child.name):
                continue
            if child.is_file():
                (found.append((child.stem, child)) if _supported(child) else skipped.append(child))
            elif child.is_dir():
                files, others = _walk(child)
                skipped += others
                if files:
                    found += [(child.name, f) for f in files]
                else:
                    empty.append((child.name, child))
    entries = _group(found)
    for student, folder in empty:
        if report.safe_name(student) not in {report.safe_name(e.student) for e in entries}:
            entries.append(Entry(folder, student, ("no-submission",
                                                   f"The folder {folder} holds no .py or .ipynb file to grade.")))
    entries.sort(key=lambda e: e.student)
    notes = []
    if skipped:
        shown = ", ".join(str(p) for p in skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        notes.append(f"Skipped {len(skipped)} file(s) that are not .py or .ipynb: {shown}.")
    single = len(paths) == 1 and not Path(paths[0]).is_dir()
    return Plan(tuple(entries), tuple(notes), single)


def _ignored(name: str) -> bool:
    return name.startswith(".") or name in IGNORED_NAMES


def _supported(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def _walk(folder: Path) -> tuple[list[Path], list[Path]]:
    files, others = [], []
    for here, dirs, names in os.walk(folder):  # does not follow symlinked folders
        dirs[:] = sorted(d for d in dirs if not _ignored(d))
        for name in sorted(names):
            if not _ignored(name):
                (files if _supported(Path(name)) else others).append(Path(here) / name)
    return files, others


def _group(found: list[tuple[str, Path]]) -> list[Entry]:
    """One entry per output folder; several files for one folder become one duplicate-student entry."""
    groups: dict[str, list[tuple[str, Path]]] = {}
    for student, path in found:
        groups.setdefault(report.safe_name(student), []).append((student, path))
    entries = []
    for items in groups.values():
        first: dict[str, tuple[str, Path]] = {}
        for student, path in items:
            first.setdefault(_same_file(path), (student, path))
        unique = list(first.values())
        student, path = unique[0]
        if len(unique) == 1:
            entries.append(Entry(path, student))
            continue
        names = ", ".join(str(p) for _, p in unique[:6]) + (f" and {len(unique) - 6} more" if len(unique) > 6 else "")
        entries.append(Entry(path, student, ("duplicate-student",
                                             f"{len(unique)} files map to student '{student}': {names}. None of "
                                             "them was graded: keep one submission per student and grade again.")))
    return entries


def _same_file(path: Path) -> str:
    """The same file given twice (``class/ana.py`` and ``class/./ana.py``) is one submission."""
    try:
        return str(path.resolve())
    except OSError:
        return str(path)


# -- resume -----------------------------------------------------------------------------------------------------
def grade_key(entry: Entry, session: Session) -> dict | None:
    """What a result depends on besides the grader's code; None when it cannot be known (file unreadable)."""
    if entry.problem is not None:
        return None
    try:
        digest = hashlib.sha256(entry.path.read_bytes()).hexdigest()
    except OSError:
        return None
    exercise = session.exercise
    return {
        "student": entry.student,
        "submission": str(entry.path),
        "submission_sha256": digest,
        "exercise_version": f"{exercise.version}+{exercise.fingerprint}",
        "full_scale": bool(session.full_scale),
        "secret_sha256": hashlib.sha256(session.secret.encode()).hexdigest(),  # never the secret itself
        "grader": grader_fingerprint(),
    }


@functools.lru_cache(maxsize=1)
def grader_fingerprint() -> str:
    """A digest of the grader's own code and templates: after an upgrade, results and reports are redone."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted([*package.rglob("*.py"), *package.glob("templates/*")]):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def stored_result(entry: Entry, key: dict | None, out: Path) -> GradeResult | None:
    """The result in ``out`` if it was graded from exactly ``key``; None if it must be (re)graded."""
    if key is None:
        return None
    folder = Path(out) / report.safe_name(entry.student)
    try:
        if json.loads((folder / KEY_FILE).read_text(encoding="utf-8")) != key:
            return None
        result = GradeResult.from_json((folder / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (result.submission_sha256, result.exercise_version) != (key["submission_sha256"], key["exercise_version"]):
        return None
    return result


# -- grading ----------------------------------------------------------------------------------------------------
def grade_entry(entry: Entry, session: Session) -> GradeResult:
    """Grade one entry; never raises (short of KeyboardInterrupt): any failure becomes an error result."""
    started = time.perf_counter()
    full = session.full_scale
    if entry.problem is not None:
        kind, message = entry.problem
        return error_result(session.exercise, entry.path, entry.student, kind, message, started, full_scale=full)
    try:
        return grade_file(entry.path, session, entry.student)
    except Exception as exc:  # a bug or an exhausted resource in the grader: this student only
        return error_result(session.exercise, entry.path, entry.student, "internal",
                            f"The grader itself failed on this submission ({type(exc).__name__}: {exc}). "
                            "This is not the student's fault; report it to the course staff.",
                            started, full_scale=full)


Writer = Callable[[GradeResult, Path], None]


def write_outputs(result: GradeResult, out: Path, key: dict | None, extra: Writer | None = None) -> GradeResult:
    """Write one student's files; the sidecar goes last, so only a complete set is ever skipped on a rerun."""
    folder = Path(out) / report.safe_name(result.student)
    (folder / KEY_FILE).unlink(missing_ok=True)
    try:
        if extra is not None:
            extra(result, folder)
        report.write_student(result, out)
    except Exception as exc:  # a report that cannot be rendered or written must not cost the result itself
        result = error_result_from(result, f"Its reports could not be written ({type(exc).__name__}: {exc}).")
        report.write_atomic(folder / "result.json", result.to_json() + "\n")
        return result
    if key is not None:
        report.write_atomic(folder / KEY_FILE, json.dumps(key, indent=1) + "\n")
    return result


def error_result_from(result: GradeResult, message: str) -> GradeResult:
    """``result`` marked as an internal error, keeping its checks so nothing graded is hidden."""
    return replace(result, status="error", error=ErrorInfo("internal", message))


@dataclass
class Outcome:
    entry: Entry
    result: GradeResult
    reused: bool  # read back from OUT, not graded in this run


def grade_all(
    entries: list[Entry] | tuple[Entry, ...],
    session: Session,
    *,
    jobs: int = 1,
    out: Path | None = None,
    force: bool = False,
    extra_writer: Writer | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Grade every entry on ``jobs`` threads; return one outcome per entry, in the entries' order.

    With ``out``, up-to-date results are read back instead of regraded (unless ``force``) and each new result is
    written as soon as it is known. ``on_start(to_grade, reused)`` is called once the plan is known and
    ``on_outcome`` once per entry, both on the calling thread.
    """
    outcomes: dict[int, Outcome] = {}
    todo: list[tuple[int, Entry, dict | None]] = []
    for index, entry in enumerate(entries):
        key = grade_key(entry, session) if out is not None else None
        stored = None if force or out is None else stored_result(entry, key, out)
        if stored is not None:
            outcomes[index] = Outcome(entry, stored, True)
        else:
            todo.append((index, entry, key))
    if on_start:
        on_start(len(todo), len(outcomes))
    for index in sorted(outcomes):
        if on_outcome:
            on_outcome(outcomes[index])
    if todo and any(e.problem is None for _, e, _ in todo):
        session.full_scale_case()  # build the shared VGG-scale case once, here, before threads race for it
    done: queue.Queue = queue.Queue()
    pending: queue.Queue = queue.Queue()
    for item in todo:
        pending.put(item)
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                index, entry, key = pending.get_nowait()
            except queue.Empty:
                return
            result = grade_entry(entry, session)
            try:
                if out is not None:
                    result = write_outputs(result, out, key, extra_writer)
            except BaseException as exc:  # the disk itself failed: keep the result, say why it is not on disk
                result = error_result_from(result, f"Its result could not be written ({type(exc).__name__}: {exc}).")
            done.put((index, Outcome(entry, result, False)))

    # Daemon threads: on Ctrl-C the main thread returns at once; a half-graded submission is simply regraded
    # next time (nothing of it was written), while everything finished is already on disk.
    workers = [threading.Thread(target=work, name=f"grader-worker-{n}", daemon=True)
               for n in range(max(1, min(jobs, len(todo))))] if todo else []
    for worker in workers:
        worker.start()
    try:
        for _ in range(len(todo)):
            while True:
                try:
                    index, outcome = done.get(timeout=0.25)  # a timeout, so Ctrl-C is seen promptly
                    break
                except queue.Empty:
                    if not any(w.is_alive() for w in workers) and done.empty():
                        raise RuntimeError("grading workers stopped unexpectedly")
            outcomes[index] = outcome
            if on_outcome:
                on_outcome(outcome)
    finally:
        stop.set()
    return [outcomes[i] for i in range(len(entries))]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
