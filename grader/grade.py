"""Grade submissions: load -> sandboxed run -> checks -> diagnosis -> result. One ``Session`` per run.

The session owns what a whole class shares: the exercise, the sandbox, the course secret and the VGG-scale case
(built once, written once as files the children map, its expected output computed once). Each submission gets
its own hidden cases from a seed derived from the secret and the student id, so copied outputs do not match.
"""
from __future__ import annotations

import difflib
import hashlib
import shutil
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import checks, diagnose, execute, largecase, slots
from . import submission as submission_mod
from .errors import GraderError, MissingFunction, SubmissionError, SyntaxProblem
from .exercise import PROBE, Case, Exercise
from .outcomes import CaseRun, Execution
from .results import CheckResult, Diagnosis, ErrorInfo, GradeResult
from .sandbox import Sandbox

DEFAULT_SECRET = "grader-default-course-secret"


def student_seed(secret: str, exercise_id: str, student: str) -> int:
    digest = hashlib.sha256(f"{secret}\0{exercise_id}\0{student}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class Session:
    """Shared state for grading one or many submissions of one exercise."""

    exercise: Exercise
    full_scale: bool = True
    secret: str = DEFAULT_SECRET
    sandbox: Sandbox | None = None
    _workdir: Path | None = field(default=None, repr=False)
    _full: tuple[Case, np.ndarray, largecase.SharedArrays] | None = field(default=None, repr=False)
    _probes: tuple[list[Case], list[np.ndarray]] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.sandbox is None:
            self.sandbox = Sandbox(self.exercise.limits)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
            self._full = None

    def probes(self) -> tuple[list[Case], list[np.ndarray]]:
        """The diagnosis probes and the reference's answers: the same for every student, so built once."""
        with self._lock:
            if self._probes is None:
                cases = self.exercise.probe_cases()
                self._probes = (cases, [self.exercise.expected(c) for c in cases])
        return list(self._probes[0]), list(self._probes[1])

    def full_scale_case(self) -> tuple[Case, np.ndarray, largecase.SharedArrays] | None:
        """Build the VGG-scale case once: inputs to shared files, expected output computed in the grader."""
        if not self.full_scale or not self.exercise.has_full_scale:
            return None
        with self._lock:  # batch workers share one build
            if self._full is None:
                parent = _shared_memory_dir()
                _remove_stale_shared(parent)
                self._workdir = Path(tempfile.mkdtemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=parent))
                self._workdir.chmod(0o755)
                allocate = largecase.FileAllocator(self._workdir)
                seed = student_seed(self.secret, self.exercise.id, "\0full-scale")
                case = self.exercise.full_scale_case(seed, allocate)
                if case is None:
                    return None
                shared = largecase.SharedArrays.write([case], self._workdir, allocate)
                self._full = (case, self.exercise.expected(case), shared)
        return self._full


SHARED_PREFIX = "grader-shared-"


def _remove_stale_shared(parent: str | None) -> None:
    """Delete the large-case folders of grader processes that died without cleaning up (kill -9): in /dev/shm
    each one would otherwise hold a gigabyte of memory until the machine restarts."""
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{SHARED_PREFIX}*-*"):
        owner = folder.name[len(SHARED_PREFIX):].split("-", 1)[0]
        if owner.isdigit() and not slots.alive(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)


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
               cases: list[Case] | None = None) -> GradeResult:
    """Grade one file. Never raises for anything the submission does: errors become an ``error`` result.

    ``cases`` replaces the student's hidden cases (``grader check`` passes the exercise's public ones).
    """
    exercise = session.exercise
    started = time.perf_counter()
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
    full = session.full_scale_case()
    shared = None
    if full is not None:
        cases.append(full[0])
        expected.append(full[1])
        shared = full[2]
    repeat = tuple(i for i, c in enumerate(cases) if c.group != PROBE and not c.shared)[:2]  # determinism
    run_started = time.perf_counter()
    execution = execute.run(
        submission, exercise.function, exercise.parameters, cases, session.sandbox, shared, repeat=repeat,
        expected=expected,
    )
    timing["run"] = time.perf_counter() - run_started
    warnings = list(execution.isolation_warnings) + list(submission.warnings) + list(execution.cell_errors)
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
        outcome = next((r.outcome for r in runs if r.case.name == full[0].name), None)
        trace = exercise.trace(full[0], outcome.shape if outcome else None)
        if outcome is not None and outcome.status == "ok":
            trace.append(f"your function took {outcome.seconds:.2f} s at this scale")
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
