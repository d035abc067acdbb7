"""Grade several exercises from one submission: loaded once, executed once, one section per exercise.

Each exercise keeps its own ``Session`` (its hidden cases seeded per student exactly as when it is graded alone,
its own large case) while the sandbox is one, with limits large enough for every exercise (``assignment.
combined_limits``); each call still has its own exercise's time limit. A function that is missing, hangs or
crashes costs only its exercise's section: the run looks up and calls the other functions all the same.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import cache as cache_mod
from . import execute
from . import submission as submission_mod
from .assignment import Assignment, combined_limits
from .errors import GraderError
from .exercise import Case
from .grade import Prepared, counted_groups, error_result, finish, most_points, judge, prepare, run_warnings, target
from .results import ErrorInfo, GradeResult
from .sandbox import Sandbox
from .session import DEFAULT_SECRET, Session


@dataclass
class AssignmentSession:
    """What a class shares while an assignment is graded: one session per exercise, one sandbox for all."""

    assignment: Assignment
    full_scale: bool = True
    secret: str = DEFAULT_SECRET
    cache: cache_mod.Cache | None = None
    sandbox: Sandbox | None = None
    sessions: list[Session] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.sandbox is None:
            self.sandbox = Sandbox(combined_limits(self.assignment.exercises))
        self.sessions = [Session(e, full_scale=self.full_scale, secret=self.secret, sandbox=self.sandbox,
                                 cache=self.cache) for e in self.assignment.exercises]

    def __enter__(self) -> AssignmentSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for session in self.sessions:
            session.close()

    @property
    def id(self) -> str:
        return self.assignment.plan.name

    @property
    def title(self) -> str:
        return self.assignment.plan.title

    @property
    def exercises(self):
        return self.assignment.exercises

    @property
    def weights(self) -> tuple[float, ...]:
        return tuple(weight for _, weight in self.assignment.plan.weights)

    @property
    def version(self) -> str:
        """Every exercise's version and weight: a change to any of them regrades the stored results."""
        return ";".join(f"{e.id}={e.stamp}*{w:g}" for e, w in zip(self.exercises, self.weights))

    @property
    def notes(self) -> list[str]:
        notes: list[str] = []
        for session in self.sessions:
            notes += [n for n in session.notes if n not in notes]
        return notes

    def build_shared(self) -> None:
        """Every exercise's large case, built once before the batch's workers start."""
        for session in self.sessions:
            session.full_scale_case()

    def max_points(self) -> float:
        return most_points(self.assignment, self.full_scale)

    def grade(self, path: Path, student: str | None = None, raw: bytes | None = None) -> GradeResult:
        return grade_assignment(Path(path), self, student, raw=raw)

    def error(self, path: Path, student: str, kind: str, message: str, started: float) -> GradeResult:
        return assignment_error(self, Path(path), student, kind, message, started)


def grade_assignment(path: Path, grading: AssignmentSession, student: str | None = None,
                     cases: dict[str, list[Case]] | None = None, _again: bool = False, *,
                     raw: bytes | None = None) -> GradeResult:
    """Grade every exercise of the assignment from ``path``. Never raises for anything the submission does.

    ``cases`` replaces, per exercise id, the student's hidden cases (``grader check`` passes each exercise's public
    ones, with a session built with ``full_scale=False``); an exercise it does not name keeps its hidden cases.
    """
    started = time.perf_counter()
    student = student or submission_mod.student_id(path)
    try:
        submission = submission_mod.load(path, student, raw)
    except GraderError as exc:
        return assignment_error(grading, path, student, exc.kind, exc.full_message(), started, cases)
    timing = {"load": time.perf_counter() - started}
    prepared: list[Prepared] = []
    shared_warnings: list[str] = []
    run_started = time.perf_counter()
    try:
        for session in grading.sessions:
            prepared.append(prepare(session, submission.student, (cases or {}).get(session.exercise.id),
                                    again=_again))
        targets = [target(s, p, s.exercise.limits.call_seconds) for s, p in zip(grading.sessions, prepared)]
        executions = execute.run_many(submission, targets, grading.sandbox)
    finally:  # every large case handed out is checked, even when a later one failed to be prepared
        shared_warnings = [finish(s, p) for s, p in zip(grading.sessions, prepared)]
    if any(p.full is not None and p.full.compromised for p in prepared):
        if not _again:  # another run changed shared files during this one: grade it again on rebuilt ones
            again = grade_assignment(path, grading, student, cases, _again=True, raw=raw)
            said = " ".join(w for w in shared_warnings if w)
            return replace(again, warnings=(said + " This submission was graded again on them.", *again.warnings))
        shared_warnings = [w + (" Its result on that case is not to be trusted." if p.full and p.full.compromised
                                else "") for w, p in zip(shared_warnings, prepared)]
    timing["run"] = time.perf_counter() - run_started
    sections = []
    for session, prep, execution, warning, weight in zip(grading.sessions, prepared, executions, shared_warnings,
                                                         grading.weights):
        function = session.exercise.function
        execution = own_candidates(execution, grading, function)
        section = judge(session, path, student, submission, prep, execution, started, {}, [warning] if warning else [],
                        whole_run=False)
        sections.append(weighted(said_once(section, function, bool(warning), defined_again(submission, function)),
                                         weight))
    first = executions[0]
    warnings = run_warnings(submission, first)
    warnings += [f"Code that could not be compiled: {e}." for e in submission.syntax_errors()]
    timing["total"] = time.perf_counter() - started
    return _total(grading, path, student, tuple(sections), tuple(warnings), first.layers, submission.sha256, timing)


def own_candidates(execution, grading: AssignmentSession, function: str):
    """The execution as one section sees it: the functions the other exercises grade are not offered as this one's
    renamed solution. A section whose function was missing told the student to rename another exercise's answer
    ('The submission defines linear, which takes 3 parameters like gap_head() does: rename it')."""
    others = {s.exercise.function for s in grading.sessions} - {function}
    return replace(execution, candidates=tuple(c for c in execution.candidates if c not in others))


def defined_again(submission: submission_mod.Submission, name: str) -> str:
    """A sentence when ``name`` is bound at the top of more than one place (a ``def`` or an assignment at the start
    of a line), else "". In a notebook of several exercises a student often writes a function twice: a draft kept
    below the final version, or every solution in one cell above the starter cells, whose untouched ``pass`` stubs
    then replace them when the notebook is run from the top. Each section then says which definition was graded.
    Read with a line-anchored pattern, never by parsing: the text is the student's."""
    pattern = re.compile(rf"^(?:(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(|{re.escape(name)}[ \t]*(?::[^=\n]*)?=(?!=))",
                         re.M)
    places = [cell for cell in submission.cells for _ in pattern.finditer(cell.source)]
    if len(places) < 2:
        return ""
    labels = list(dict.fromkeys(cell.label for cell in places))
    where = (f"{len(places)} times in {labels[0]}" if len(labels) == 1
             else "in " + ", ".join(labels[:-1]) + f" and {labels[-1]}")
    return (f"`{name}` is defined {where}; the cells run in order and each definition replaces the one before it, "
            f"so the last one, in {places[-1].label}, is the one graded.")


def said_once(section: GradeResult, name: str, shared: bool, again: str) -> GradeResult:
    """The section with ``defined_again``'s sentence after the run's shared warning, unless the judge already said
    where the function is defined: its notes (``missing.definition_notes``, each opening "name() is defined") are
    the more precise ones, a starter's stub that replaced the student's code or a second attempt with other code.
    Both were given before, so a student with a draft kept below the solution read the same fact twice in a row."""
    if not again or any(w.startswith(f"{name}() is defined") for w in section.warnings):
        return section
    at = 1 if shared else 0
    return replace(section, warnings=(*section.warnings[:at], again, *section.warnings[at:]))


def weighted(section: GradeResult, weight: float) -> GradeResult:
    """A section with every point multiplied by its exercise's weight in the assignment."""
    if weight == 1.0:
        return replace(section, weight=1.0)
    checks = tuple(replace(c, points=round(c.points * weight, 6), max_points=round(c.max_points * weight, 6))
                   for c in section.checks)
    return replace(section, checks=checks, score=round(section.score * weight, 6),
                   max_score=round(section.max_score * weight, 6), weight=weight)


def _total(grading: AssignmentSession, path: Path, student: str, sections: tuple[GradeResult, ...],
           warnings: tuple[str, ...], isolation: tuple[str, ...], sha256: str, timing: dict) -> GradeResult:
    """The assignment's result: the sections, their total, and the run's own warnings once.

    It is an error result only when no exercise could be graded (the file could not be loaded, or the run ended
    before any function was called); its error is then the first section's."""
    graded = [s for s in sections if s.status == "graded"]
    error = None if graded else (sections[0].error if sections else ErrorInfo("internal", "no exercise"))
    return GradeResult(
        exercise=grading.id,
        submission=str(path),
        student=student,
        status="graded" if graded else "error",
        score=round(sum(s.score for s in sections), 6),
        max_score=round(sum(s.max_score for s in sections), 6),
        error=error,
        warnings=warnings,
        timing={k: round(v, 4) for k, v in timing.items()},
        isolation=isolation,
        exercise_version=grading.version,
        submission_sha256=sha256,
        assignment=grading.id,
        sections=sections,
    )


def assignment_error(grading: AssignmentSession, path: Path, student: str, kind: str, message: str,
                     started: float, cases: dict[str, list[Case]] | None = None) -> GradeResult:
    """A submission that could not be graded at all: every section an error result with the same cause, counting
    the checks its grade would have counted."""
    sections = tuple(weighted(error_result(s.exercise, path, student, kind, message, started,
                                           full_scale=s.full_scale,
                                           groups=counted_groups(s, student, (cases or {}).get(s.exercise.id))), w)
                     for s, w in zip(grading.sessions, grading.weights))
    return _total(grading, path, student, sections, (), (), "",
                  {"total": time.perf_counter() - started})
