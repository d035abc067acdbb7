"""``grader check``: a student's own run of the public checks, with the mistakes named, in under a second.

It is ``grade.grade_file`` with the exercise's public cases in place of the hidden ones, the diagnosis probes
(public too) and never the full-scale case. Nothing hidden is built or run, so nothing hidden can leak into the
output. The result is printed as one line per check (✓ or ✗), then the named mistakes, then a verdict; colour
on a terminal only, and not when ``NO_COLOR`` is set.
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from .errors import UsageError
from .exercise import Exercise
from .grade import Session, grade_file
from .results import GradeResult
from .submission import SUFFIXES

_CODES = {"green": "32", "red": "31", "yellow": "33", "bold": "1", "dim": "2"}


def run(path: Path, exercise: Exercise) -> GradeResult:
    """Grade ``path`` on the public cases only; usage problems (no such file, wrong type) raise UsageError."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"The file {path} does not exist.")
    if path.is_dir():
        raise UsageError(f"{path} is a folder: name the notebook or .py file to check.")
    if path.suffix.lower() not in SUFFIXES:
        raise UsageError(f"Cannot check a '{path.suffix or 'extensionless'}' file ({path.name}): "
                         "give a .py file or a .ipynb notebook.")
    cases = exercise.public_cases()
    if not cases:
        raise UsageError(f"The exercise '{exercise.id}' has no public cases to check against.")
    with Session(exercise, full_scale=False) as session:
        result = grade_file(path, session, cases=cases)
        # a student checking their own code needs no word on how well the machine isolates it
        return replace(result, warnings=tuple(w for w in result.warnings if w not in session.sandbox.warnings))


def passed(result: GradeResult) -> bool:
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


def format_result(result: GradeResult, exercise: Exercise, *, color: bool = False,
                  symbols: tuple[str, str] = ("✓", "✗")) -> str:
    def paint(text: str, *styles: str) -> str:
        if not color or not styles:
            return text
        return "\033[" + ";".join(_CODES[s] for s in styles) + "m" + text + "\033[0m"

    ok, bad = paint(symbols[0], "green", "bold"), paint(symbols[1], "red", "bold")
    names = ", ".join(c.name for c in exercise.public_cases())
    lines = [paint(f"{exercise.title}: public checks of {Path(result.submission).name}", "bold")
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
                     + " The grade also uses hidden cases of other sizes.")
    elif result.status == "graded":
        failed = sum(c.status != "passed" for c in result.checks)
        lines.append(paint(f"{failed} of {len(result.checks)} public checks failed.", "red", "bold"))
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def main(path: Path, exercise: Exercise, stream: TextIO | None = None) -> int:
    """Run, print, and return the exit code: 0 when every public check passes, 1 otherwise."""
    stream = stream or sys.stdout
    result = run(path, exercise)
    print(format_result(result, exercise, color=use_color(stream), symbols=_symbols(stream)), file=stream)
    return 0 if passed(result) else 1
