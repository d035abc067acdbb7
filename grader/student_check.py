"""``grader check``: a student's own run of the public checks, with the mistakes named, in under a second.

It is ``grade.grade_file`` with the exercise's public cases in place of the hidden ones, the diagnosis probes
(public too) and never the full-scale case. Nothing hidden is built or run, so nothing hidden can leak into the
output. The result is printed as one line per check (✓ or ✗), then the named mistakes, then a verdict; colour
on a terminal only, and not when ``NO_COLOR`` is set.

A submission of several exercises (an assignment) is checked the same way in one sandboxed run
(``grade_assignment`` with each exercise's public cases): the lines of each exercise under its own heading, then
one verdict. A function that is missing is said for its exercise only.
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from .assignment import Assignment, Plan, plan_for, read_course
from .errors import UsageError
from .exercise import DEFAULT_EXERCISES, Exercise, known_ids, tomllib
from .grade import Session, grade_file
from .grade_assignment import AssignmentSession, grade_assignment
from .results import GradeResult
from .submission import SUFFIXES

_CODES = {"green": "32", "red": "31", "yellow": "33", "bold": "1", "dim": "2"}


def checkable(path: Path) -> Path:
    """``path`` when it is a file to check; usage problems (no such file, wrong type) raise UsageError. The CLI
    calls it before choosing the exercise, so a mistyped path is said as such, not as a missing --exercise."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"The file {path} does not exist.")
    if path.is_dir():
        raise UsageError(f"{path} is a folder: name the notebook or .py file to check.")
    if path.suffix.lower() not in SUFFIXES:
        raise UsageError(f"Cannot check a '{path.suffix or 'extensionless'}' file ({path.name}): "
                         "give a .py file or a .ipynb notebook.")
    return path


def _public_cases(exercise: Exercise):
    cases = exercise.public_cases()
    if not cases:
        raise UsageError(f"The exercise '{exercise.id}' has no public cases to check against.")
    return cases


def _quiet(result: GradeResult, said: list[str]) -> GradeResult:
    """A student checking their own code needs no word on how well the machine isolates it."""
    return replace(result, warnings=tuple(w for w in result.warnings if w not in said),
                   sections=tuple(_quiet(s, said) for s in result.sections))


def check_file(path: Path, exercise: Exercise) -> GradeResult:
    """Grade ``path`` on the public cases only; usage problems (no such file, wrong type) raise UsageError."""
    path = checkable(path)
    cases = _public_cases(exercise)
    with Session(exercise, full_scale=False) as session:
        return _quiet(grade_file(path, session, cases=cases), session.sandbox.warnings)


def check_assignment(path: Path, assignment: Assignment) -> GradeResult:
    """Grade ``path`` on every exercise's public cases, in one sandboxed run; one section per exercise."""
    path = checkable(path)
    cases = {exercise.id: _public_cases(exercise) for exercise in assignment.exercises}
    with AssignmentSession(assignment, full_scale=False) as grading:
        return _quiet(grade_assignment(path, grading, cases=cases), grading.sandbox.warnings)


def plan_from_metadata(path: Path, exercises_dir: Path | None = None) -> Plan | None:
    """The assignment a notebook names in its metadata (``metadata.grader.assignment``, else the exercise ids of
    ``metadata.grader.exercises``). The notebook is the student's file: only names of this course are taken."""
    from .submission import named_assignment

    try:
        name, ids = named_assignment(Path(path))
    except (RecursionError, MemoryError):  # absurdly nested JSON: not a notebook, and loading will say so
        return None
    course = read_course(exercises_dir)
    if name is not None and name in course:
        return course[name]
    if len(ids) > 1 and len(set(ids)) == len(ids) and set(ids) <= set(known_ids(_base(exercises_dir))):
        return plan_for(",".join(ids), None, exercises_dir)
    if name is not None:
        shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
        raise UsageError(f"{Path(path).name} names the assignment {shown} in its metadata (metadata.grader."
                         "assignment), but the course file has no such assignment"
                         + (f" (its assignments: {', '.join(course)})" if course else "")
                         + ". Give --assignment NAME or --exercise ID to choose what to check.")
    return None


def plan_from_functions(defined: set[str], filename: str, exercises_dir: Path | None = None) -> Plan | None:
    """When a file defines the functions of several exercises: the one assignment of the course that holds them
    all (its other exercises are then said missing), else those exercises together; said on stderr. A file named
    after an exercise (``linear.py``) is that exercise's, as before, whatever helpers it defines; one named after
    an assignment (``fc-layers.py``) is that assignment's."""
    base, stem, course = _base(exercises_dir), Path(filename).stem, read_course(exercises_dir)
    known = known_ids(base)
    if stem in known:
        return None
    functions: dict[str, list[str]] = {}
    for exercise_id in known:
        try:
            settings = tomllib.loads((base / exercise_id / "exercise.toml").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(settings.get("function"), str):
            functions.setdefault(settings["function"], []).append(exercise_id)
    fits = sorted({i for name in set(defined) & set(functions) for i in functions[name]})
    if stem in course and set(fits) <= set(course[stem].ids):
        return course[stem]
    if len(fits) < 2:
        return None
    holding = [p for p in course.values() if set(fits) <= set(p.ids)]
    plan = holding[0] if len(holding) == 1 else plan_for(",".join(fits), None, exercises_dir)
    what = f"assignment '{plan.name}'" if len(holding) == 1 else "the exercises"
    print(f"grader: note: checking {what} ({', '.join(plan.ids)}): {filename} defines functions of several "
          "exercises (give --exercise ID to check one)", file=sys.stderr)
    return plan


def _base(exercises_dir: Path | None) -> Path:
    return Path(exercises_dir or DEFAULT_EXERCISES)


def passed(result: GradeResult) -> bool:
    if result.sections:
        return all(passed(section) for section in result.sections)
    return result.status == "graded" and all(c.status == "passed" for c in result.checks)


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _symbols(stream: TextIO) -> tuple[str, str]:
    try:
        "✓✗".encode(getattr(stream, "encoding", None) or "ascii")
        return "✓", "✗"
    except (UnicodeEncodeError, LookupError):
        return "+", "x"


def _painter(color: bool):
    def paint(text: str, *styles: str) -> str:
        if not color or not styles:
            return text
        return "\033[" + ";".join(_CODES[s] for s in styles) + "m" + text + "\033[0m"

    return paint


def format_result(result: GradeResult, exercise: Exercise, *, color: bool = False,
                  symbols: tuple[str, str] = ("✓", "✗"), heading: str | None = None) -> str:
    """The lines of one exercise's check; ``heading`` replaces the first line (an assignment's section)."""
    paint = _painter(color)
    ok, bad = paint(symbols[0], "green", "bold"), paint(symbols[1], "red", "bold")
    names = ", ".join(c.name for c in exercise.public_cases())
    lines = [paint(heading or f"{exercise.title}: public checks of {Path(result.submission).name}", "bold")
             + paint(f"  (cases {names})", "dim")]
    diagnoses = list(result.diagnoses)
    if result.status == "error":
        lines.append(f"{bad} Could not be checked: {result.error.message if result.error else 'unknown error'}")
    elif any(d.id == "not-implemented" for d in diagnoses):
        lines.append(f"{bad} Not implemented yet: {exercise.function} returned None on every case. Write its body "
                     "(it still ends in the starter's 'pass', or has no return statement), then check again.")
        diagnoses = [d for d in diagnoses if d.id != "not-implemented"]
    else:
        for check in result.checks:
            lines.append(f"{ok if check.status == 'passed' else bad} {check.title}")
            if check.status != "passed" and check.message and not check.message.startswith("Not assessed"):
                lines.append(paint(f"    {check.message}", "dim"))
    if diagnoses:
        lines.append(paint("Mistakes found:", "bold"))
        for diagnosis in diagnoses:
            lines.append(f"{bad} {paint(diagnosis.id, 'red')}: {diagnosis.title}")
            lines.append(paint(f"    {diagnosis.evidence or _first_sentence(diagnosis.explanation)}", "dim"))
    said = result.error.message if result.error else ""
    for warning in result.warnings:
        if said and warning.partition(": ")[2].rstrip(".") in said:
            continue  # the error above already says it
        lines.append(paint(f"! {warning}", "yellow"))
    if passed(result):
        lines.append(paint(f"All {len(result.checks)} public checks passed.", "green", "bold")
                     + ("" if heading else " The grade also uses hidden cases of other sizes."))
    elif result.status == "graded":
        failed = sum(c.status != "passed" for c in result.checks)
        lines.append(paint(f"{failed} of {len(result.checks)} public checks failed.", "red", "bold"))
    return "\n".join(lines)


def format_assignment(result: GradeResult, assignment: Assignment, *, color: bool = False,
                      symbols: tuple[str, str] = ("✓", "✗")) -> str:
    """Every exercise's lines under its own heading, the run's warnings once, then one verdict."""
    paint = _painter(color)
    bad = paint(symbols[1], "red", "bold")
    ids = [e.id for e in assignment.exercises]
    lines = [paint(f"{assignment.plan.title}: public checks of {Path(result.submission).name}", "bold")
             + paint(f"  (exercises {', '.join(ids)})", "dim")]
    errors = {s.error.message for s in result.sections if s.status == "error" and s.error}
    if result.status == "error" and len(errors) == 1:  # nothing could run: said once, not once per exercise
        lines.append(f"{bad} Could not be checked: {errors.pop()}")
    else:
        for number, (section, exercise) in enumerate(zip(result.sections, assignment.exercises), start=1):
            heading = f"{number}. {exercise.id}: {exercise.title}"
            lines += ["", format_result(section, exercise, color=color, symbols=symbols, heading=heading)]
        lines.append("")
    for warning in result.warnings:
        lines.append(paint(f"! {warning}", "yellow"))
    done = [s.exercise for s in result.sections if passed(s)]
    if len(done) == len(result.sections):
        lines.append(paint(f"All public checks of the {len(done)} exercises passed.", "green", "bold")
                     + " The grade also uses hidden cases of other sizes.")
    else:
        todo = [f"{s.exercise} ({_short(s)})" for s in result.sections if not passed(s)]
        lines.append(paint(f"{len(done)} of {len(result.sections)} exercises pass every public check; "
                           f"still to do: {', '.join(todo)}.", "red", "bold"))
    return "\n".join(lines)


def _short(section: GradeResult) -> str:
    if section.status == "error":
        return "not checked: " + (section.error.kind if section.error else "error")
    failed = sum(c.status != "passed" for c in section.checks)
    return f"{failed} of {len(section.checks)} checks failed"


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def main(path: Path, exercise: Exercise | Assignment, stream: TextIO | None = None) -> int:
    """Run, print, and return the exit code: 0 when every public check passes (of every exercise), 1 otherwise."""
    stream = stream or sys.stdout
    if isinstance(exercise, Assignment):
        result = check_assignment(path, exercise)
        text = format_assignment(result, exercise, color=use_color(stream), symbols=_symbols(stream))
    else:
        result = check_file(path, exercise)
        text = format_result(result, exercise, color=use_color(stream), symbols=_symbols(stream))
    print(text, file=stream)
    return 0 if passed(result) else 1
