"""Grade a whole class: grade the students ``classfolder`` found on worker threads, write each result as it comes.

Each submission's code already runs in its own sandboxed child, so the workers are threads of this process
sharing one ``Session`` (from the command line, all but one of them feed forked copies of the grader instead,
each with an interpreter lock of its own: ``batchcopies``). Every grade is wrapped: whatever goes wrong becomes that student's error result (kind
``internal`` for a failure of the grader itself) and the batch goes on. With an output folder, a student's files
are written to ``OUT/students/<folder>/`` as soon as the grade is known (atomically, ``result.json`` last, then
the ``.grade-key`` sidecar), so an interrupted batch loses nothing finished, and a rerun skips every student
whose sidecar still matches. On Ctrl-C, ``grade_all`` raises ``Interrupted`` carrying what finished, and
``write_class_files`` writes the class files of those, marked incomplete.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import queue
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from . import batchcopies as copies_mod
from . import escape, gradebook, outfolder, regrade
from .classfolder import LAYOUTS, Entry, Plan, discover, display_ids  # noqa: F401  (the batch's public names)
from .grade import Session, grading
from .results import ErrorInfo, GradeResult
from .signing import Signer
from .submission import read_regular

#: Written after ``result.json``: the inputs a result was graded from. A rerun skips the student if they match.
KEY_FILE = ".grade-key.json"


# -- resume -----------------------------------------------------------------------------------------------------
#: A file read for its grading key is kept for grading up to this size, so both see the same bytes read once;
#: a larger one is read again by its worker (keeping a whole hostile class's bytes would cost gigabytes).
KEEP_BYTES = 1 << 20


def grade_key(entry: Entry, session: Session, data: bytes | None = None) -> dict | None:
    """What a result depends on besides the grader's code; None when it cannot be known (file unreadable).
    ``data``: the file's bytes, when the caller read them already (``read_entry``)."""
    if entry.problem is not None:
        return None
    data = data if data is not None else read_entry(entry)
    if data is None:
        return None
    return {
        "student": entry.student,
        "folder": entry.folder,
        "submission": shown_path(entry.path),
        "submission_sha256": hashlib.sha256(data).hexdigest(),
        "exercise_version": grading(session).version,
        "full_scale": bool(session.full_scale),
        "secret_sha256": hashlib.sha256(session.secret.encode()).hexdigest(),  # never the secret itself
        "grader": grader_fingerprint(),
    }


def read_entry(entry: Entry) -> bytes | None:
    """The entry's bytes (a regular file, never through a link, never blocking); None when it cannot be read
    (grading it then says why)."""
    if entry.problem is not None:
        return None
    try:
        return read_regular(entry.path)
    except OSError:
        return None


def shown_path(path: Path) -> str:
    """A path as results and reports show it: undecodable bytes as U+FFFD, hidden characters escaped."""
    return escape.terminal(str(path), 1000)


@functools.lru_cache(maxsize=1)
def grader_fingerprint() -> str:
    """A digest of the grader's own code and templates: after an upgrade, results and reports are redone."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted([*package.rglob("*.py"), *package.glob("templates/*")]):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def stored_result(entry: Entry, key: dict | None, out: Path, signer: Signer | None = None) -> GradeResult | None:
    """The result in ``out`` if it was graded from exactly ``key`` (and, with ``signer``, carries this run's valid
    signature: a hand-edited result is regraded, never reused); None if it must be (re)graded."""
    if key is None:
        return None
    folder = outfolder.student_folder(out, entry.folder)
    try:
        if json.loads((folder / KEY_FILE).read_text(encoding="utf-8")) != key:
            return None
        text = (folder / "result.json").read_text(encoding="utf-8")
        if signer is not None and not signer.accepts(text):
            return None
        result = GradeResult.from_json(text)
    except (OSError, ValueError, TypeError, KeyError, RecursionError):  # a hand-made key nested thousands deep
        return None
    if (result.submission_sha256, result.exercise_version) != (key["submission_sha256"], key["exercise_version"]):
        return None
    return result


# -- grading ----------------------------------------------------------------------------------------------------
def grade_entry(entry: Entry, session: Session, data: bytes | None = None) -> GradeResult:
    """Grade one entry; never raises (short of KeyboardInterrupt): any failure becomes an error result.

    The result carries the entry's shown id and path, and no lone surrogate anywhere, so every writer can
    encode it. ``data``: the file's bytes as already read for its grading key.
    """
    started = time.perf_counter()
    graded = grading(session)
    if entry.problem is not None:
        kind, message = entry.problem
        result = graded.error(entry.path, entry.student, kind, message, started)
    else:
        try:
            # The checks and the diagnosis compute with whatever the student returned (1e308, inf, NaN, huge
            # integers): numpy's overflow and invalid-value warnings say nothing about the verdict and would
            # land on the instructor's terminal, naming the grader's own files, as if the grader had failed.
            with np.errstate(all="ignore"):
                result = graded.grade(entry.path, entry.student, raw=data)
        except Exception as exc:  # a bug or an exhausted resource in the grader: this student only
            result = graded.error(entry.path, entry.student, "internal",
                                  f"The grader itself failed on this submission ({outfolder.without_host_paths(exc)}"
                                  "). This is not the student's fault; report it to the "
                                  "course staff.", started)
    # what the machine lacks is for the person running the batch (printed once, and in summary.html), not for
    # every student's report: the result's ``isolation`` still names the layers that ran
    machine = set(session.sandbox.warnings) if session.sandbox is not None else set()
    warnings = tuple(w for w in result.warnings if w not in machine)
    return readable_result(replace(result, student=entry.student, submission=shown_path(entry.path),
                                   warnings=warnings))


def readable_result(result: GradeResult) -> GradeResult:
    """``result`` with every lone surrogate (from a file name or a message) replaced by U+FFFD."""
    if not escape.has_surrogate(result.to_json(indent=None)):
        return result
    return GradeResult.from_dict(_readable(result.to_dict()))


def _readable(value):
    if isinstance(value, str):
        return escape.readable(value)
    if isinstance(value, (list, tuple)):
        return [_readable(v) for v in value]
    if isinstance(value, dict):
        return {_readable(k): _readable(v) for k, v in value.items()}
    return value


#: A subscriber to finished grades: ``writer(result, folder, private=...)`` writes its own files in the student's
#: folder (the HTML and Markdown reports, Gradescope's JSON...). The batch itself writes only ``result.json``.
Writer = Callable[..., None]


def ending_later(session: Session):
    """``Sandbox.ending_later`` of the session's sandbox, or nothing to do where it has none."""
    return session.sandbox.ending_later() if session.sandbox is not None else contextlib.nullcontext()


def write_outputs(result: GradeResult, folder: Path, key: dict | None, writers: Sequence[Writer] = (), *,
                  private: bool = False, signer: Signer | None = None) -> GradeResult:
    """Write one student's files: each writer's, then ``result.json`` (its presence marks a finished grade),
    then the sidecar, so only a complete set is ever skipped on a rerun. With ``signer``, ``result.json``
    carries the course secret's signature."""
    folder = outfolder.own_folder(Path(folder), private=private)
    (folder / KEY_FILE).unlink(missing_ok=True)
    try:
        for writer in writers:
            writer(result, folder, private=private)
    except Exception as exc:  # a report that cannot be rendered or written must not cost the result itself
        result = error_result_from(result, f"Its reports could not be written ({outfolder.without_host_paths(exc)}).")
        outfolder.write_atomic(folder / "result.json", signer.result_text(result) if signer
                               else result.to_json() + "\n", private=private)
        return result
    outfolder.write_atomic(folder / "result.json", signer.result_text(result) if signer else result.to_json() + "\n",
                           private=private)
    if key is not None:  # owner-only whatever --private says: it holds a hash of the course secret
        outfolder.write_atomic(folder / KEY_FILE, json.dumps(key, indent=1) + "\n", private=True)
    return result


def error_result_from(result: GradeResult, message: str) -> GradeResult:
    """``result`` as an error result, like every other: score 0, each check an error worth nothing. What it had
    scored is said in its warnings, so a rerun (once the disk is fixed) is the way to the grade."""
    def zeroed(part: GradeResult) -> GradeResult:
        checks = tuple(replace(c, status="error", points=0.0) for c in part.checks)
        return replace(part, status="error", score=0.0, checks=checks,
                       sections=tuple(zeroed(s) for s in part.sections))

    scored = f"Before its files failed, it had scored {result.score:g}/{result.max_score:g}; grade it again."
    return replace(zeroed(result), error=ErrorInfo("internal", message),
                   warnings=(*result.warnings, scored) if result.status == "graded" else result.warnings)


@dataclass
class StudentGrade:
    """One student's place in a batch: the entry found, its result, and whether it was graded in this run."""

    entry: Entry
    result: GradeResult
    reused: bool  # read back from OUT, not graded in this run
    previous: regrade.Previous | None = None  # the stored result this run replaced, and why it was stale


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during ``grade_all``: ``outcomes`` holds every student finished by then, in the entries' order."""

    def __init__(self, outcomes: list[StudentGrade]) -> None:
        super().__init__("interrupted")
        self.outcomes = outcomes


def grade_all(
    entries: list[Entry] | tuple[Entry, ...],
    session: Session,
    *,
    jobs: int = 1,
    out: Path | None = None,
    force: bool = False,
    writers: Sequence[Writer] = (),
    on_outcome: Callable[[StudentGrade], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    private: bool = False,
    signer: Signer | None = None,
    copies: bool = False,
) -> list[StudentGrade]:
    """Grade every entry on ``jobs`` workers; return one outcome per entry, in the entries' order.

    The workers are threads; with ``copies`` (the command line's batches), all but one of them feed forked copies
    of this process instead, each with an interpreter lock of its own, where that is possible and worth it
    (``batchcopies``). A long-lived process (a library user, the tests) keeps the default: each copy takes one of
    the process's idle templates with it, which the next batch would have to start again.

    With ``out``, up-to-date results are read back instead of regraded (unless ``force``) and each new result is
    written as soon as it is known, in ``OUT/students/<entry.folder>/``: ``result.json``, and what each of
    ``writers`` adds (the CLI subscribes the reports). ``on_start(to_grade, reused)`` is called
    once the plan is known and ``on_outcome`` once per entry, both on the calling thread. Ctrl-C raises
    ``Interrupted`` with the outcomes finished so far.
    """
    outcomes: dict[int, StudentGrade] = {}
    done: queue.Queue = queue.Queue()
    try:
        return _grade_all(entries, session, outcomes, done, jobs=jobs, out=out, force=force,
                          writers=writers, on_outcome=on_outcome, on_start=on_start, private=private,
                          signer=signer, copies=copies)
    except KeyboardInterrupt:
        while True:  # results the workers finished (and wrote) but the loop had not taken yet
            try:
                index, outcome = done.get_nowait()
            except queue.Empty:
                break
            outcomes.setdefault(index, outcome)
        raise Interrupted([outcomes[i] for i in sorted(outcomes)]) from None


def _grade_all(entries, session, outcomes, done, *, jobs, out, force, writers, on_outcome, on_start,
               private, signer=None, copies=False) -> list[StudentGrade]:
    """The workers start at once and grade each entry as this thread hands it over: the up-to-date check of a
    class of 1,000 (reading, hashing, the stored result and the one a regrade compares with) took about 0.5 s, in
    which no run could start."""
    if out is not None:
        outfolder.make_folder(Path(out) / outfolder.STUDENTS, private=private)
        os.chmod(Path(out) / outfolder.STUDENTS, outfolder.PRIVATE_FOLDER_MODE if private else outfolder.FOLDER_MODE)
    earlier: dict[int, regrade.Previous | None] = {}
    pending: queue.Queue = queue.Queue()
    stop = threading.Event()

    def grade_one(entry: Entry, key: dict | None, data: bytes | None) -> GradeResult:
        with ending_later(session):  # the run's teardown overlaps its judging and writing
            result = grade_entry(entry, session, data)
            try:
                if out is not None:
                    result = write_outputs(result, outfolder.student_folder(out, entry.folder), key, writers,
                                           private=private, signer=signer)
            except BaseException as exc:  # the disk itself failed: keep the result, say why it is not on disk
                result = error_result_from(result, "Its result could not be written to the output folder's "
                                                   f"{outfolder.STUDENTS}/{escape.terminal(entry.folder)} "
                                                   f"({outfolder.without_host_paths(exc)}).")
        return result

    def work(copy: copies_mod.Copy | None) -> None:
        """A worker thread: grades each entry it takes here, or through ``copy`` (a forked copy of the grader)
        while that copy answers."""
        while not stop.is_set():
            item = pending.get()
            if item is None:  # no more to grade
                return
            index, entry, key, data = item
            result = copies_mod.graded_by(copy, index, entry, key, data, session) if copy is not None else None
            if result is None:
                if stop.is_set():  # interrupted while the copy worked: nothing more is graded
                    return
                result = grade_one(entry, key, data)
            done.put((index, StudentGrade(entry, result, False)))

    # Daemon threads: on Ctrl-C the main thread returns at once; a half-graded submission is simply regraded
    # next time (nothing of it was written), while everything finished is already on disk.
    workers: list[threading.Thread] = []
    forked: list[copies_mod.Copy] = []
    count = max(1, min(jobs, len(entries)))
    started, built, graded = False, False, 0
    try:
        try:
            for index, entry in enumerate(entries):
                data = read_entry(entry) if out is not None else None
                key = grade_key(entry, session, data) if out is not None else None
                stored = None if force or out is None else stored_result(entry, key, out, signer)
                if stored is not None:
                    outcomes[index] = StudentGrade(entry, stored, True)
                    continue
                if out is not None:  # read before a worker replaces it, to say what the regrade changed
                    earlier[index] = regrade.previous(outfolder.student_folder(out, entry.folder), key, force)
                if not built and entry.problem is None:
                    grading(session).build_shared()  # the shared large cases, built once before the runs use them
                    built = True
                if not started:  # forked copies first: a fork needs this thread alone
                    if copies and copies_mod.wanted(session, entries, count):
                        warm_up(writers)  # (the command line did it already, while its templates started)
                    forked = copies_mod.fork(session, entries, count, grade_one) if copies else []
                    workers = [threading.Thread(target=work, args=(copy,), name=f"grader-worker-{n}", daemon=True)
                               for n, copy in enumerate([*forked, *[None] * (count - len(forked))])]
                    for worker in workers:
                        worker.start()
                    started = True
                pending.put((index, entry, key, data if data is not None and len(data) <= KEEP_BYTES else None))
                graded += 1
        finally:
            for _ in workers:
                pending.put(None)
        if on_start:
            on_start(graded, len(outcomes))
        for index in sorted(outcomes):
            if on_outcome:
                on_outcome(outcomes[index])
        for _ in range(graded):
            while True:
                try:
                    index, outcome = done.get(timeout=0.25)  # a timeout, so Ctrl-C is seen promptly
                    break
                except queue.Empty:
                    if not any(w.is_alive() for w in workers) and done.empty():
                        raise RuntimeError("grading workers stopped unexpectedly")
            outcome.previous = earlier.get(index)
            outcomes[index] = outcome
            if on_outcome:
                on_outcome(outcome)
    except BaseException:
        stop.set()
        for copy in forked:  # interrupted: the copies' runs end with them
            copy.stop()
        raise
    finally:
        stop.set()
        for copy in forked:  # each finishes (its template, its cgroups) and exits while the class files are written
            copy.close()
    return [outcomes[i] for i in range(len(entries))]


def warm_up(writers: Sequence[Writer]) -> None:
    """Load now, once, what each forked copy would otherwise load for itself after the fork: the generators the
    hidden cases are drawn with, and what each writer says it needs (its ``warm``). Without copies this waits for
    the first page, so that the first runs start sooner. Cheap when called again.

    The command line calls it before its session waits for the first template's start (about 40 ms in which the
    grader has nothing else to do) and before it forks the similarity copy, which then finds all of it loaded."""
    import numpy.random  # noqa: F401  (numpy loads it on first use)

    for writer in writers:
        warm = getattr(writer, "warm", None)
        if callable(warm):
            warm()


# -- class files ------------------------------------------------------------------------------------------------
def write_class_files(plan: Plan, outcomes: list[StudentGrade], out: Path, exercise_id: str, *,
                      private: bool = False, notes: tuple[str, ...] | None = None,
                      similarity: dict | None = None) -> list[str]:
    """gradebook.csv, junit.xml and summary.html for ``outcomes``; entries without one are ``pending`` (the batch
    was stopped), which marks the files incomplete. ``notes`` (default: the plan's) are shown in the summary.
    Returns one line per file that could not be written. ``changes.csv`` lists the students regraded over a
    stored result whose result moved; ``similarity`` is the summary's line about ``similarity.html``."""
    finished = {o.entry.student for o in outcomes}
    pending = [gradebook.Pending(e.student, shown_path(e.path)) for e in plan.entries if e.student not in finished]
    regraded = regrade.batch_changes(outcomes)
    problems = gradebook.write_class([o.result for o in outcomes], out, exercise_id,
                                     plan.notes if notes is None else notes, pending=pending,
                                     folders=plan.folders, left_out=plan.left_out, private=private,
                                     similarity=similarity, changes=regrade.summary(regraded))
    return problems + regrade.write_changes(out, regraded, private=private)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
