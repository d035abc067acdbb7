"""Grade submissions: load -> sandboxed run -> checks -> diagnosis -> result. One ``Session`` per run.

The session owns what a whole class shares: the exercise, the sandbox, the course secret and the large case
(built once, written once as sealed files the children map, checked after every run and rebuilt if a child
changed them). Each submission gets its own hidden cases from a seed derived from the secret and the student id,
and its own small part of the large case (the exercise's ``personalise_full_scale``, sent inline, its expected
output computed from a cached intermediate), so copied outputs do not match.
"""
from __future__ import annotations

import difflib
import hashlib
import shutil
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import cache as cache_mod
from . import checks, diagnose, execute, largecase, slots
from . import submission as submission_mod
from .errors import ExerciseError, GraderError, MissingFunction, SubmissionError, SyntaxProblem
from .exercise import PROBE, Case, Exercise
from .outcomes import CaseRun, Execution
from .results import CheckResult, Diagnosis, ErrorInfo, GradeResult
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
            version = f"{self.exercise.version}+{self.exercise.fingerprint}"
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
            ok = shortcut.shape == expected.shape and checks.value_error(
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
        if owner.isdigit() and not slots.alive(int(owner)):
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


def grade_file(path: Path, session: Session, student: str | None = None,
               cases: list[Case] | None = None, _again: bool = False) -> GradeResult:
    """Grade one file. Never raises for anything the submission does: errors become an ``error`` result.

    ``cases`` replaces the student's hidden cases (``grader check`` passes the exercise's public ones).
    """
    exercise = session.exercise
    started = time.perf_counter()
    given_cases = cases
    student = student or submission_mod.student_id(Path(path))
    try:
        submission = submission_mod.load(Path(path), student)
    except GraderError as exc:
        return error_result(exercise, Path(path), student, exc.kind, exc.full_message(), started,
                            full_scale=session.full_scale)
    timing = {"load": time.perf_counter() - started}
    seed = student_seed(session.secret, exercise.id, submission.student)
    cases = exercise.hidden_cases(seed) if cases is None else list(cases)
    expected = [exercise.expected(c) for c in cases]
    probes, probe_expected = session.probes()
    cases += probes
    expected += probe_expected
    _unique_names(exercise, cases)
    full = session.full_scale_for(submission.student, exclusive=_again)
    shared = None
    if full is not None:
        cases.append(full.case)
        expected.append(full.expected)
        shared = full.shared
    repeat = tuple(i for i, c in enumerate(cases) if c.group != PROBE and not c.shared)[:2]  # determinism
    run_started = time.perf_counter()
    try:
        execution = execute.run(
            submission, exercise.function, exercise.parameters, cases, session.sandbox, shared, repeat=repeat,
            expected=expected, outputs=exercise.outputs,
        )
    finally:  # before anything is judged: were the shared files changed during this run?
        shared_warning = session.verify_shared(full) if full is not None else ""
    if full is not None and full.compromised and not _again:  # another run changed them: grade this one again
        again = grade_file(path, session, student, given_cases, _again=True)
        return replace(again, warnings=(shared_warning + " This submission was graded again on them.",
                                        *again.warnings))
    if full is not None and full.compromised:
        shared_warning += " Its result on that case is not to be trusted."
    timing["run"] = time.perf_counter() - run_started
    warnings = [shared_warning] if shared_warning else []
    warnings += list(execution.isolation_warnings) + list(submission.warnings) + list(execution.cell_errors)
    warnings += list(execution.notes)
    compile_warnings = [f"Code that could not be compiled: {e}." for e in submission.syntax_errors()]
    if not execution.function_callable:
        error = _missing_function_error(submission, execution, exercise)
        if error.kind != SyntaxProblem.kind:  # a syntax error that is the error itself is not repeated below it
            warnings += compile_warnings
        return error_result(exercise, Path(path), student, error.kind, error.full_message(), started,
                            submission=submission, warnings=warnings, execution=execution,
                            full_scale=session.full_scale)
    warnings += compile_warnings
    by_case = {c.name: (c, e) for c, e in zip(cases, expected)}
    runs = [CaseRun(by_case[o.case][0], by_case[o.case][1], o) for o in execution.calls if not o.repeat]
    check_started = time.perf_counter()
    check_results = checks.run_checks(exercise, runs, execution)
    diagnoses, diagnosis_warnings = diagnose.diagnose(runs, execution, exercise)
    timing["check"] = time.perf_counter() - check_started
    timing["total"] = time.perf_counter() - started
    trace: list[str] = []
    if full is not None:
        outcome = next((r.outcome for r in runs if r.case.name == full.case.name), None)
        trace = exercise.trace(full.case, outcome.shape if outcome else None)
        if outcome is not None and outcome.status == "ok":
            trace.append(f"your function took {outcome.seconds:.2f} s at this scale")
    trace += diagnose.stage_trace(runs, exercise)  # the exercise's per-stage verdicts on its probes
    return GradeResult(
        exercise=exercise.id,
        submission=str(path),
        student=student,
        status="graded",
        score=round(sum(c.points for c in check_results), 6),
        max_score=sum(c.max_points for c in check_results),
        checks=tuple(check_results),
        diagnoses=tuple(diagnoses),
        warnings=tuple(warnings + diagnosis_warnings),
        timing={k: round(v, 4) for k, v in timing.items()},
        isolation=execution.layers,
        trace=tuple(trace),
        exercise_version=f"{exercise.version}+{exercise.fingerprint}",
        submission_sha256=submission.sha256,
    )


def _unique_names(exercise: Exercise, cases: list[Case]) -> None:
    """Outcomes are matched to cases by name: two cases of one name would silently swap inputs and answers."""
    seen: set[str] = set()
    for case in cases:
        if case.name in seen:
            raise ExerciseError(f"The exercise '{exercise.id}' has two cases named '{case.name}' (hidden, public or "
                                "probe cases): every case needs its own name.")
        seen.add(case.name)


def error_result(
    exercise: Exercise,
    path: Path,
    student: str,
    kind: str,
    message: str,
    started: float,
    *,
    submission: submission_mod.Submission | None = None,
    warnings: list[str] | None = None,
    execution: Execution | None = None,
    full_scale: bool = True,
) -> GradeResult:
    """A result for a submission that could not be graded at all: score 0, ``error`` filled, checks failed."""
    diagnoses: tuple[Diagnosis, ...] = ()
    if kind == "missing-function" and "missing-function" in exercise.catalog:
        entry = exercise.catalog["missing-function"]
        diagnoses = (Diagnosis(entry.id, entry.title, entry.explanation, message),)
    not_graded = tuple(
        CheckResult(id=c.id, title=c.title, status="error", points=0.0, max_points=c.points,
                    message=f"Not graded: the submission could not be run ({kind}; see the error above).")
        for c in exercise.checks
        if full_scale or not c.full_scale
    )
    return GradeResult(
        exercise=exercise.id,
        submission=str(path),
        student=student,
        status="error",
        score=0.0,
        max_score=sum(c.max_points for c in not_graded),
        error=ErrorInfo(kind=kind, message=message),
        checks=not_graded,
        diagnoses=diagnoses,
        warnings=tuple(warnings or ()),
        timing={"total": round(time.perf_counter() - started, 4)},
        isolation=execution.layers if execution else (),
        exercise_version=f"{exercise.version}+{exercise.fingerprint}",
        submission_sha256=submission.sha256 if submission else "",
    )


def _missing_function_error(
    submission: submission_mod.Submission, execution: Execution, exercise: Exercise
) -> SubmissionError:
    name = exercise.function
    if execution.protocol_error:
        return SubmissionError.with_kind("protocol-error", execution.protocol_error)
    if execution.incident:
        return SubmissionError.with_kind(execution.incident_kind or "crashed",
                                         f"The submission {execution.incident} before {name}() could be called.")
    syntax = submission.syntax_errors()
    if syntax:
        return SyntaxProblem(f"{syntax[0]}. Because of it, {name}() was never defined."
                             if len(syntax) == 1 else
                             f"{len(syntax)} places cannot be compiled; the first is {syntax[0]}. "
                             f"Because of them, {name}() was never defined.")
    if execution.cell_incident:
        return SubmissionError.with_kind(
            execution.cell_incident, f"{name}() was never defined. {execution.cell_incidents[0][1]}")
    if execution.function_found:
        return MissingFunction(f"'{name}' is defined but is a {execution.function_type}, not a function.")
    close = difflib.get_close_matches(name, execution.candidates, n=3, cutoff=0.6)
    close += [c for c in execution.candidates if c.lower().replace("_", "") == name.lower().replace("_", "")
              and c not in close]
    hint = f" Did you mean to name {close[0]!r} as {name!r}?" if close else ""
    pasted = submission.prose_cells_mentioning(f"def {name}")
    if pasted:
        hint += (f" Cell {pasted[0]} of the notebook contains 'def {name}', but it is a text (markdown) cell, "
                 "so it never runs: move the code into a code cell.")
    failed = (" Some cells raised errors before it could be defined; see the warnings."
              if execution.cell_errors else "")
    return MissingFunction(f"No function named '{name}' is defined in the submission.{hint}{failed}")
