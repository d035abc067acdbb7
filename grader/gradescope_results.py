"""Gradescope's ``results.json`` for one result: a test per check, the report as its output.

Written beside each student's reports by a batch (``gradescope.json``, the CLI subscribes ``write``) and by the
bundle's own run (``grader gradescope-run``), from the same function, so both say the same.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import escape, report
from .gradebook import diagnosis_ids
from .results import GradeResult


#: Gradescope's visibility settings, from its autograder specification.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def document(result: GradeResult, visibility: str = "visible", isolation: str = "") -> dict:
    """Gradescope's autograder ``results.json`` (its "Autograder Specifications"): a test per check, and an
    ``output`` for the whole submission that does not repeat them: the score, why it could not be graded, the
    mistakes found, the warnings and which isolation ran the code (Markdown, ``output_format: md``).

    A test's output is its check's message as plain text (``output_format: text``), cleaned of hidden characters;
    for a submission that could not be graded at all the reason is said once, in ``output``, and the tests are
    empty. ``visibility`` applies to the whole result and to each test; stdout (the grader's own log, for the
    course staff) stays hidden. ``isolation``: a sentence for the bundle's runs (``grader gradescope``).

    An assignment's result has the same tests for every section, each named ``exercise: title`` (numbered
    ``exercise.check``), their points summing to the total; its ``output`` has a section per exercise with that
    exercise's mistakes, and ``extra_data.sections`` each exercise's score.
    """
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}")
    document = {
        "score": result.score,
        "execution_time": round(result.timing.get("total", 0.0), 3),
        "output": report.render_markdown(result, checks=False, isolation=isolation),
        "output_format": "md",
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": [_gradescope_test(part, check, visibility, bool(result.sections), result.status == "error")
                  for part, check in result.all_checks()],
        "extra_data": {
            "student": escape.terminal(result.student),
            "status": result.status,
            "error_kind": escape.terminal(result.error.kind) if result.error else None,
            "diagnoses": diagnosis_ids(result),
        },
    }
    if result.sections:
        document["extra_data"]["sections"] = [
            {"exercise": part.exercise, "score": part.score, "max_score": part.max_score, "weight": part.weight,
             "status": part.status, "error_kind": escape.terminal(part.error.kind) if part.error else None}
            for part in result.sections]
    return document


def _gradescope_test(part: GradeResult, check, visibility: str, sectioned: bool, said_once: bool) -> dict:
    """One check as a Gradescope test. In an assignment's result its name and number start with the exercise,
    and a check that did not pass also names the mistakes found in that exercise, or why that exercise was not
    graded (``said_once``: nothing was graded, and the document's output says why)."""
    output = escape.terminal(check.message, 4000) if part.status == "graded" else ""
    if sectioned and check.status != "passed" and not said_once:
        if part.status == "error" and part.error:
            output = escape.terminal(f"{part.exercise} could not be graded ({part.error.kind}): "
                                     f"{part.error.message}", 4000)
        elif part.diagnoses:
            output += escape.terminal(f" Mistakes found in {part.exercise}: "
                                      + "; ".join(f"{d.title} ({d.id})" for d in part.diagnoses) + ".", 2000)
    return {
        "name": f"{part.exercise}: {check.title}" if sectioned else check.title,
        "number": f"{part.exercise}.{check.id}" if sectioned else check.id,
        "score": check.points,
        "max_score": check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": output,
        "output_format": "text",
        "visibility": visibility,
    }


def write(result: GradeResult, folder: Path, *, private: bool = False) -> None:
    """A batch writer: the student's ``gradescope.json``."""
    report.write_atomic(Path(folder) / "gradescope.json",
                        json.dumps(document(result), indent=2, ensure_ascii=False) + "\n",
                        private=private)
