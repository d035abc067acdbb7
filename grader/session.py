"""What a whole class shares while one exercise is graded: the exercise, the sandbox, the secret, the large case.

A ``Session`` builds the large case once (inputs written as sealed files the children map, or taken from the
cache), checks the files after every run and builds them again when a child changed them. Each student gets
their own small part of the case (the exercise's ``personalise_full_scale``, sent inline, its expected output
computed from a cached intermediate), so copied outputs do not match. Grading itself is ``grade.py``.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import cache as cache_mod
from . import facts, largecase, processes
from .errors import ExerciseError
from .exercise import Case, Exercise
from .sandbox import Sandbox

DEFAULT_SECRET = "grader-default-course-secret"


def student_seed(secret: str, exercise_id: str, student: str) -> int:
    digest = hashlib.sha256(f"{secret}\0{exercise_id}\0{student}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(eq=False)  # compared by identity: a run is one run, whatever its arrays hold
class FullScaleRun:
    """One student's share of the large case, from ``Session.full_scale_for`` to ``Session.verify_shared``.

    ``case`` holds the shared arguments (mapped files, the same for everyone) and this student's own arguments
    (``case.personal``, sent inline); ``expected`` is this student's expected output.
    """

    case: Case
    expected: np.ndarray
    shared: largecase.SharedArrays
    generation: int
    note: str = ""  # the files were rebuilt just before this run: said in this student's warnings
    changed: str = ""  # what changed in the shared files while this run was active ("" when nothing did)
    alone: bool = True  # no other run was using the files when the change was found: this run made it
    exclusive: bool = False  # a regrade after a change: no other run uses the files meanwhile
    finished: bool = False

    @property
    def compromised(self) -> bool:
        """The files changed while this run used them and another run may have done it: grade it again."""
        return bool(self.changed) and not self.alone


@dataclass(eq=False)
class _Built:
    """The large case as built once per session (and again only after a child changed its files)."""

    case: Case  # the shared case, its shared arguments read-only views of the sealed files' arrays
    expected: np.ndarray  # the reference's output on it
    cache: object | None  # the exercise's intermediate for cheap per-student expected outputs
    shared: largecase.SharedArrays
    generation: int
    entry: cache_mod.Entry | None = None  # the cache entry held while the session maps it


@dataclass
class Session:
    """Shared state for grading one or many submissions of one exercise."""

    exercise: Exercise
    full_scale: bool = True
    secret: str = DEFAULT_SECRET
    sandbox: Sandbox | None = None
    cache: cache_mod.Cache | None = None  # the large case's cache (None: built per session, removed at close)
    notes: list[str] = field(default_factory=list)  # for the person running the grader (a cache that failed)
    _full: _Built | None = field(default=None, repr=False)
    _active: list[FullScaleRun] = field(default_factory=list, repr=False)
    _note: str = field(default="", repr=False)  # for the next run: the files were rebuilt before it
    _exclusive: bool = field(default=False, repr=False)  # a regrade holds the files alone
    _waiting: int = field(default=0, repr=False)  # regrades waiting for the runs in progress to end
    _probes: tuple[list[Case], list[np.ndarray]] | None = field(default=None, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _turn: threading.Condition = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.sandbox is None:
            self.sandbox = Sandbox(self.exercise.limits)
        self._turn = threading.Condition(self._lock)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._full is not None:
                if self._full.entry is not None:
                    self.cache.release(self._full.entry)  # the entry stays for the next grader
                else:
                    self._full.shared.remove()
                self._full = None

    def probes(self) -> tuple[list[Case], list[np.ndarray]]:
        """The diagnosis probes and the reference's answers: the same for every student, so built once."""
        with self._lock:
            if self._probes is None:
                cases = self.exercise.probe_cases()
                self._probes = (cases, [self.exercise.expected(c) for c in cases])
        return list(self._probes[0]), list(self._probes[1])

    # -- the large case ----------------------------------------------------------------------------------------
    def full_scale_case(self) -> tuple[Case, np.ndarray, largecase.SharedArrays] | None:
        """Build the large case once: inputs to sealed shared files, the shared expected output and the exercise's
        cache computed in the grader. Returns the shared case (not a student's: see ``full_scale_for``)."""
        if not self.full_scale or not self.exercise.has_full_scale:
            return None
        with self._lock:  # batch workers share one build
            if self._full is None:
                self._full = self._build(None)
            built = self._full
        return (built.case, built.expected, built.shared) if built else None

    def full_scale_for(self, student: str, exclusive: bool = False) -> FullScaleRun | None:
        """One student's large case: the shared files plus the student's own arguments, and its expected output
        (from the exercise's cache: microseconds). Pair every call with ``verify_shared(run)`` after the run.

        ``exclusive`` (a regrade after the files changed during a run) waits until no other run uses the files
        and keeps new ones waiting until it is verified, so a change it sees again can only be its own.
        """
        if self.full_scale_case() is None:
            return None
        seed = student_seed(self.secret, self.exercise.id, f"{student}\0full-scale")
        with self._lock:
            self._waiting += exclusive
            try:
                while self._exclusive or (self._active if exclusive else self._waiting):
                    self._turn.wait()
            finally:
                self._waiting -= exclusive
            self._exclusive = exclusive
            self._check()  # a change made between runs (by something a run left behind) is caught here
            built = self._full
            case = self.exercise.personalise_full_scale(built.case, seed)
            if case.personal != built.case.personal:
                raise ExerciseError(f"personalise_full_scale() of exercise '{self.exercise.id}' must make the same "
                                    f"arguments for every student ({case.personal} against {built.case.personal}).")
            expected = built.expected if not case.personal else self.exercise.full_scale_expected(case, built.cache)
            run = FullScaleRun(case, expected, built.shared, built.generation, note=self._note, exclusive=exclusive)
            self._note = ""
            self._active.append(run)
        return run

    def verify_shared(self, run: FullScaleRun | None = None) -> str:
        """Check the shared files after a run (a few microseconds); return a warning sentence for that run, or "".

        A change (rename, hard link, chmod, rewrite, a replaced file or folder) moves a stamp; the files are then
        checked against the digest taken at build time, the case is built again in a new folder, and the run
        that was alone with the files when they changed is named. Without ``run``, the sentence describes any
        change found now.
        """
        with self._lock:
            found = self._check()
            if run is None:
                return f"The shared files of the large case had changed ({found}); they were rebuilt." if found else ""
            if run.finished:
                return ""
            run.finished = True
            if run in self._active:
                self._active.remove(run)
            if run.exclusive:
                self._exclusive = False
            self._turn.notify_all()
            sentences = [run.note] if run.note else []
            if run.changed and run.alone:
                sentences.append(f"This submission changed the shared input files of the '{run.case.name}' case "
                                 f"while it ran ({run.changed}). They were rebuilt and checked against their "
                                 "digest, so the submissions graded after it are not affected; its own result on "
                                 "that case is not to be trusted.")
            elif run.changed:
                sentences.append(f"The shared input files of the '{run.case.name}' case changed while this "
                                 f"submission ran ({run.changed}), by it or by a submission graded at the same "
                                 "time; they were rebuilt.")
            return " ".join(sentences)

    def _check(self) -> str:
        """Compare the stamps (lock held); on a change, describe it, blame the runs using the files, rebuild."""
        built = self._full
        if built is None:
            return ""
        moved = built.shared.changes()
        if not moved:
            return ""
        detail = self._describe(built, moved)
        suspects = [r for r in self._active if r.generation == built.generation and not r.finished]
        elsewhere = built.entry is not None and self.cache.condemn(built.entry)  # another grader saw it first
        for suspect in suspects:
            suspect.changed, suspect.alone = detail, len(suspects) == 1 and not elsewhere
        self._full = self._build(built)
        when = "by an earlier run" if suspects else "between two runs (by a process an earlier one left behind)"
        self._note = (f"The shared input files of the '{built.case.name}' case had been changed {when} "
                      f"({detail}); they were rebuilt before this submission ran.")
        return detail

    def _describe(self, built: _Built, moved: list[Path]) -> str:
        """Which arguments' files changed and whether their bytes did (the full digest, read only now)."""
        names = {path: self._argument(index) for (_, index), path in built.shared.paths.items()}
        parts = []
        if built.shared.folder in moved:
            parts.append("their folder was moved, replaced or had entries renamed, added or removed")
        files = [names[p] for p in moved if p in names]
        if files:
            parts.append(f"the files of {_join(files)} were replaced, renamed, linked, rewritten or had their "
                         "mode changed")
        altered = [names[p] for p in built.shared.altered_contents()]
        parts.append(f"the bytes of {_join(altered)} no longer match their digest" if altered
                     else "the bytes at their paths still match their digest")
        return "; ".join(parts)

    def _argument(self, index: int) -> str:
        parameters = self.exercise.parameters
        return parameters[index] if index < len(parameters) else f"argument {index + 1}"

    def _build(self, previous: _Built | None) -> _Built | None:
        """The shared case (lock held): from the cache when there is one (mapped, or built into it once), else
        generated into a new sealed folder of this session. On a rebuild, the old folder and whatever was put in
        its place go (a cache entry is condemned instead, and removed once no grader holds it)."""
        generation = previous.generation + 1 if previous else 0
        seed = student_seed(self.secret, self.exercise.id, "\0full-scale")
        if self.cache is not None and (previous is None or previous.entry is not None):
            version = self.exercise.stamp
            key = cache_mod.key(self.exercise.id, version, self.secret, seed, "full-scale")
            try:
                entry = self.cache.open(key, self.secret, lambda folder: self._generate(folder, seed, previous),
                                        exercise_id=self.exercise.id, version=version)
            except (cache_mod.CacheUnavailable, OSError) as exc:
                self.notes.append(f"The large case's cache could not be used ({exc}); the case was built for this "
                                  "run only.")
                self.cache = None
            else:
                self.notes += [n for n in self.cache.notes if n not in self.notes]
                if entry is None:
                    return None
                made = entry.built
                intermediate = self.exercise.full_scale_cache(made.case) if entry.recompute else made.intermediate
                return _Built(made.case, made.expected, intermediate, made.shared, generation, entry)
        parent = _shared_memory_dir()
        if previous is not None and previous.entry is None:
            previous.shared.remove_replaced()
        _remove_stale_shared(parent)
        folder = Path(tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=parent))
        try:
            made = self._generate(folder, seed, previous)
        except BaseException:
            largecase.remove_folder(folder)
            raise
        if made is None:
            largecase.remove_folder(folder)
            return None
        return _Built(made.case, made.expected, made.intermediate, made.shared, generation)

    def _generate(self, folder: Path, seed: int, previous: _Built | None) -> cache_mod.Built | None:
        """Generate the shared case into ``folder`` and seal it; its expected output and the exercise's
        intermediate (reused from ``previous`` when the new files digest the same), checked against each other."""
        allocate = largecase.FileAllocator(folder)
        case = self.exercise.full_scale_case(seed, allocate)
        if case is None:
            return None
        case = replace(case, personal=self.exercise.personalise_full_scale(case, seed).personal)
        shared = largecase.SharedArrays.write([case], folder, allocate)
        case = shared.frozen(case)
        if previous is not None and previous.shared.same_bytes(shared):  # the usual rebuild
            return cache_mod.Built(case, shared, previous.expected, self.exercise.full_scale_cache(case))
        expected = self.exercise.expected(case)
        cache = self.exercise.full_scale_cache(case)
        if cache is not None:
            shortcut = self.exercise.full_scale_expected(case, cache)
            ok = shortcut.shape == expected.shape and facts.value_error(
                shortcut, expected, self.exercise.tolerance)[0]
            if not ok:
                raise ExerciseError(f"full_scale_expected() of exercise '{self.exercise.id}' does not agree with "
                                    "the reference on the shared large case.")
        return cache_mod.Built(case, shared, expected, cache)


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


SHARED_PREFIX = "grader-shared-"


def _remove_stale_shared(parent: str | None) -> None:
    """Delete the large-case folders of grader processes that died without cleaning up (kill -9): in /dev/shm
    each one would otherwise hold a gigabyte of memory until the machine restarts."""
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{SHARED_PREFIX}*-*"):
        owner = folder.name[len(SHARED_PREFIX):].split("-", 1)[0]
        if owner.isdigit() and not processes.alive(int(owner)):
            largecase.remove_folder(folder)


def _shared_memory_dir() -> str | None:
    """Build the large case in RAM when the machine has a tmpfs for it: no disk write, same page cache."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 4 << 30:
            return str(shm)
    except OSError:
        pass
    return None
