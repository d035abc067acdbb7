"""Grade one submission of one exercise: load -> sandboxed run -> checks -> diagnosis -> result.

``grade_file`` is the whole flow; its steps are public because an assignment (``grade_assignment``) runs them
for several exercises around a single sandboxed run: ``prepare`` picks a student's cases, ``target`` says what
the run calls, ``judge`` turns what came back into a result. What the class shares (the exercise, the sandbox,
the large case) is the ``Session`` (``session.py``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from . import checks, deletednames, diagnose, execute, facts, standinerrors, ufuncwhere
from . import submission as submission_mod
from .errors import ExerciseError, GraderError, SyntaxProblem
from .exercise import PROBE, Case, Exercise
from .missing import definition_notes, missing_function_error
from .outcomes import CaseRun, Execution, in_sequence
from .results import CheckResult, Diagnosis, ErrorInfo, GradeResult
from .session import DEFAULT_SECRET, FullScaleRun, Session, student_seed  # noqa: F401  (public names)


@dataclass
class Prepared:
    """One student's cases for one exercise, with the reference's answers, ready to run."""

    cases: list[Case]
    expected: list
    full: FullScaleRun | None
    repeat: tuple[int, ...]


def prepare(session: Session, student: str, cases: list[Case] | None = None, again: bool = False) -> Prepared:
    """The student's hidden cases (or ``cases``), the diagnosis probes and the student's large case.

    Pair with ``session.verify_shared(prepared.full)`` once the run is over (``finish`` does it)."""
    exercise = session.exercise
    seed = student_seed(session.secret, exercise.id, student)
    cases = exercise.hidden_cases(seed) if cases is None else list(cases)
    expected = [exercise.expected(c) for c in cases]
    probes, probe_expected = session.probes()
    cases += probes
    expected += probe_expected
    _unique_names(exercise, cases)
    full = session.full_scale_for(student, exclusive=again)
    if full is not None:
        cases.append(full.case)
        expected.append(full.expected)
    return Prepared(cases, expected, full, _determinism_cases(cases))


def _determinism_cases(cases: list[Case]) -> tuple[int, ...]:
    """The two graded cases called a second time: the first two of different shapes.

    A case that repeats an earlier one's shapes with other numbers (drawn to catch an answer kept by shape) is
    skipped: with both calls on one shape, a function that fails only there had its determinism never assessed."""
    picked: list[int] = []
    shapes: set[tuple] = set()
    for i, case in enumerate(cases):
        if case.group == PROBE or case.shared:
            continue
        shape = tuple(getattr(a, "shape", a) for a in case.args)
        if shape not in shapes:
            picked.append(i)
            shapes.add(shape)
        if len(picked) == 2:
            break
    return tuple(picked)


def target(session: Session, prepared: Prepared, call_seconds: float | None = None) -> execute.Target:
    """What the run calls for this exercise. ``call_seconds`` (an assignment: the exercise's own limit) overrides
    the sandbox's limit per call; a lone exercise's sandbox already holds its limits."""
    exercise = session.exercise
    return execute.Target(exercise.function, exercise.parameters, prepared.cases, prepared.repeat,
                          prepared.expected, exercise.outputs, prepared.full.shared if prepared.full else None,
                          call_seconds, exercise.id)


def finish(session: Session, prepared: Prepared) -> str:
    """After the run: were the shared files changed during it? A warning sentence for this result, or ""."""
    return session.verify_shared(prepared.full) if prepared.full is not None else ""


def grade_file(path: Path, session: Session, student: str | None = None,
               cases: list[Case] | None = None, _again: bool = False, *, raw: bytes | None = None) -> GradeResult:
    """Grade one file. Never raises for anything the submission does: errors become an ``error`` result.

    ``cases`` replaces the student's hidden cases (``grader check`` passes the exercise's public ones); ``raw``
    is the file's bytes when the caller read them already.
    """
    exercise = session.exercise
    started = time.perf_counter()
    student = student or submission_mod.student_id(Path(path))
    try:
        submission = submission_mod.load(Path(path), student, raw)
    except GraderError as exc:
        return error_result(exercise, Path(path), student, exc.kind, exc.full_message(), started,
                            full_scale=session.full_scale, groups=counted_groups(session, student, cases))
    timing = {"load": time.perf_counter() - started}
    prepared = prepare(session, submission.student, cases, again=_again)
    run_started = time.perf_counter()
    try:
        execution = execute.run_many(submission, [target(session, prepared)], session.sandbox)[0]
    finally:  # before anything is judged: were the shared files changed during this run?
        shared_warning = finish(session, prepared)
    full = prepared.full
    if full is not None and full.compromised and not _again:  # another run changed them: grade this one again
        again = grade_file(path, session, student, cases, _again=True, raw=raw)
        return replace(again, warnings=(shared_warning + " This submission was graded again on them.",
                                        *again.warnings))
    if full is not None and full.compromised:
        shared_warning += " Its result on that case is not to be trusted."
    timing["run"] = time.perf_counter() - run_started
    return judge(session, Path(path), student, submission, prepared, execution, started, timing,
                 [shared_warning] if shared_warning else [], whole_run=True)


def counted_groups(session: Session, student: str, cases: list[Case] | None = None) -> set[str] | None:
    """The groups of the cases a grade of ``student`` runs (``cases``, else the hidden ones, and the large case's
    when it is on); None when they cannot be known (the exercise's generator failed)."""
    exercise = session.exercise
    try:
        given = cases if cases is not None else exercise.hidden_cases(student_seed(session.secret, exercise.id,
                                                                                   student))
    except Exception:  # noqa: BLE001  (instructor code: the error result falls back to every check)
        return None
    groups = {c.group for c in given if c.group != PROBE}
    if session.full_scale and exercise.has_full_scale and cases is None:
        groups |= {c.group for c in exercise.checks if c.full_scale}
    return groups


def run_warnings(submission: submission_mod.Submission, execution: Execution) -> list[str]:
    """What the run as a whole says (isolation, loading, cells, notes): once per result, not once per exercise."""
    cells = standinerrors.cell_errors(submission, execution.failed_cells, execution.cell_errors, execution.notes)
    return [*execution.isolation_warnings, *submission.warnings, *cells, *execution.notes]


def judge(session: Session, path: Path, student: str, submission: submission_mod.Submission, prepared: Prepared,
          execution: Execution, started: float, timing: dict[str, float], warnings: list[str], *,
          whole_run: bool) -> GradeResult:
    """Checks and diagnosis of one exercise's calls. ``whole_run``: the result stands alone, so it carries the
    run's own warnings too; an assignment's sections leave those to the top level."""
    exercise = session.exercise
    warnings = list(warnings)
    if whole_run:
        warnings += run_warnings(submission, execution)
    compile_warnings = [f"Code that could not be compiled: {e}." for e in submission.syntax_errors()]
    if not execution.function_callable:
        error = missing_function_error(submission, execution, exercise)
        if whole_run and error.kind != SyntaxProblem.kind:  # a syntax error that is the error is not repeated
            warnings += compile_warnings
        return error_result(exercise, path, student, error.kind, error.full_message(), started,
                            submission=submission, warnings=warnings, execution=execution,
                            full_scale=session.full_scale,
                            groups={c.group for c in prepared.cases if c.group != PROBE})
    if whole_run:
        warnings += compile_warnings
    warnings += definition_notes(submission, exercise, execution)  # code the run did not see as the student did
    warnings += deletednames.deleted_notes(submission, execution)  # a name the run removed after the def
    cases, expected, full = prepared.cases, prepared.expected, prepared.full
    by_case = {c.name: (c, e) for c, e in zip(cases, expected)}
    runs = in_sequence([CaseRun(by_case[o.case][0], by_case[o.case][1], o) for o in execution.calls
                        if not o.repeat], execution.calls)
    check_started = time.perf_counter()
    established = facts.establish(runs, execution, exercise)  # read by the checks and the diagnosis alike
    check_results = checks.run_checks(exercise, runs, execution, established)
    diagnoses, diagnosis_warnings = diagnose.diagnose(runs, execution, exercise, established)
    warnings += ufuncwhere.unfilled_notes(submission, any(c.points < c.max_points for c in check_results))
    timing = {**timing, "check": time.perf_counter() - check_started, "total": time.perf_counter() - started}
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
        exercise_version=exercise.stamp,
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
    groups: set[str] | None = None,
) -> GradeResult:
    """A result for a submission that could not be graded at all: score 0, ``error`` filled, checks failed.

    ``groups``: the case groups the grade would have run (``counted_groups``), so exactly the checks a graded
    result would count are counted here too, by the same rule (``checks.applicable``)."""
    diagnoses: tuple[Diagnosis, ...] = ()
    if kind == "missing-function" and "missing-function" in exercise.catalog:
        entry = exercise.catalog["missing-function"]
        diagnoses = (Diagnosis(entry.id, entry.title, entry.explanation, message),)
    not_graded = tuple(
        CheckResult(id=c.id, title=c.title, status="error", points=0.0, max_points=c.points,
                    message=f"Not graded: the submission could not be run ({kind}; see the error above).")
        for c in exercise.checks
        if (full_scale or not c.full_scale) and (groups is None or checks.applicable(c, groups))
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
        exercise_version=exercise.stamp,
        submission_sha256=submission.sha256 if submission else "",
    )




@dataclass
class OneExercise:
    """A batch's view of a session grading one exercise; ``AssignmentSession`` offers the same for several."""

    session: Session

    @property
    def id(self) -> str:
        return self.session.exercise.id

    @property
    def title(self) -> str:
        return self.session.exercise.title

    @property
    def exercises(self) -> tuple[Exercise, ...]:
        return (self.session.exercise,)

    @property
    def version(self) -> str:
        exercise = self.session.exercise
        return exercise.stamp

    def __getattr__(self, name: str):  # full_scale, secret, sandbox, notes, close: the session's own
        return getattr(self.session, name)

    def build_shared(self) -> None:
        self.session.full_scale_case()

    def max_points(self) -> float:
        return max_points(self.session.exercise, self.session.full_scale)

    def grade(self, path: Path, student: str | None = None, raw: bytes | None = None) -> GradeResult:
        return grade_file(Path(path), self.session, student, raw=raw)

    def error(self, path: Path, student: str, kind: str, message: str, started: float) -> GradeResult:
        return error_result(self.session.exercise, Path(path), student, kind, message, started,
                            full_scale=self.session.full_scale, groups=counted_groups(self.session, student))


def max_points(exercise: Exercise, full_scale: bool) -> float:
    """The most a submission can score with this setting (full-scale checks leave the maximum without the case)."""
    large = full_scale and exercise.has_full_scale
    return sum(c.points for c in exercise.checks if large or not c.full_scale)


def most_points(what, full_scale: bool) -> float:
    """The most a submission can score: an exercise's ``max_points``, or an assignment's weighted sum of its
    exercises' (``--fail-under`` is checked against it before any session starts)."""
    weighted = ((what, 1.0),) if isinstance(what, Exercise) else what.weighted()
    return sum(weight * max_points(exercise, full_scale) for exercise, weight in weighted)


def grading(session):
    """What a batch grades with: an ``AssignmentSession`` as it is, a lone exercise's ``Session`` wrapped."""
    return OneExercise(session) if isinstance(session, Session) else session
