"""Grade files an LMS imports: Canvas's gradebook CSV and Moodle's grading worksheet / gradebook CSV.

``grader grade ... --gradebook-format canvas|moodle`` writes ``OUT/canvas.csv`` or ``OUT/moodle.csv`` beside
``gradebook.csv``; ``grader export OUT --format canvas|moodle`` writes it from an output folder graded earlier (or
merged from shards), after checking every result's signature.

* **canvas** (Grades > Import): ``Student, ID, SIS User ID, SIS Login ID, Section, <assignment>`` and a second row
  ``Points Possible``. Canvas matches a row by ``ID`` (its user id), else ``SIS User ID``, else ``SIS Login ID``.
  A student id that is a Canvas download name (``doejane_12345_67890_file.ipynb``, ``doejane_LATE_12345_...``)
  fills ``Student`` and ``ID``; any other id goes to ``SIS Login ID``.
* **moodle**: ``Identifier, Full name, Grade, Maximum Grade, Feedback comments``. A student id that is a Moodle
  download name (``Jane Doe_4321_assignsubmission_file_...``) gives ``Identifier`` = ``Participant 4321``: upload
  it with the assignment's "Upload grading worksheet". Any other id is written as it is: import it with Grades >
  Import > CSV file, mapping ``Identifier`` to ``username`` (or ``useremail``, ``useridnumber``), ``Grade`` to the
  assignment and ``Feedback comments`` to its feedback.

An ungradable submission scores 0 (as in ``gradebook.csv``); a student not graded yet (an interrupted batch) has an
empty grade, which both LMSs leave unchanged. Every cell goes through ``escape.csv_cell``.

An assignment's results (a section per exercise) give the assignment's total in the one grade column of either
format: a Canvas column Canvas does not know becomes a new assignment on import, so a column per exercise would
add each exercise to the course's grade a second time, and Moodle's worksheet has a single grade. Each exercise's
score (and a section that could not be graded, and the mistakes found in it) is said in Moodle's feedback comment;
``gradebook.csv`` has the column per exercise.
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from typing import TYPE_CHECKING, Sequence

from . import escape

if TYPE_CHECKING:  # for the annotations only: the command line reads FORMATS before it starts the sandbox
    from .results import GradeResult

FORMATS = ("canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments")
_CANVAS_NAME = re.compile(r"^(?P<name>[^_]+?)(?:_LATE)?_(?P<user>\d+)_(?P<submission>\d+)(?:_|$)")
_MOODLE_NAME = re.compile(r"^(?P<name>.+?)_(?P<participant>\d+)_assign(?:submission|feedback)_")


def filename(fmt: str) -> str:
    return f"{fmt}.csv"


def render(fmt: str, results: Sequence[GradeResult], assignment: str, pending: Sequence[str] = ()) -> str:
    """The CSV text for ``fmt``; ``assignment`` names the LMS column (Canvas) or appears in the feedback (Moodle)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown LMS format {fmt!r}")
    rows = sorted([(r.student, r) for r in results] + [(p, None) for p in pending], key=lambda row: row[0])
    maximum = Counter(r.max_score for r in results).most_common(1)[0][0] if results else 0.0
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    cell = escape.csv_cell
    if fmt == "canvas":
        writer.writerow([*CANVAS_COLUMNS, cell(assignment)])
        writer.writerow(["Points Possible", "", "", "", "", f"{maximum:g}"])
        for student, result in rows:
            match = _CANVAS_NAME.match(student)
            name, user, login = (match["name"], match["user"], "") if match else (student, "", student)
            writer.writerow([cell(name), user, "", cell(login), "", _score(result)])
    else:
        writer.writerow(MOODLE_COLUMNS)
        for student, result in rows:
            match = _MOODLE_NAME.match(student)
            identifier, name = (f"Participant {match['participant']}", match["name"]) if match else (student, student)
            writer.writerow([cell(identifier), cell(name), _score(result),
                             f"{result.max_score:g}" if result else f"{maximum:g}", cell(_feedback(result, assignment))])
    return buffer.getvalue()


def _score(result: GradeResult | None) -> str:
    if result is None:
        return ""
    return f"{result.score:g}" if result.status == "graded" else "0"


def _feedback(result: GradeResult | None, assignment: str) -> str:
    if result is None:
        return ""
    if result.status == "error":
        kind = result.error.kind if result.error else "error"
        message = result.error.message if result.error else ""
        return f"{assignment}: not graded ({kind}). {message}"
    text = f"{assignment}: {result.score:g}/{result.max_score:g}."
    if result.sections:
        text = text[:-1] + " (" + ", ".join(
            f"{part.exercise} {part.score:g}/{part.max_score:g}"
            + (f" not graded: {part.error.kind if part.error else 'error'}" if part.status == "error" else "")
            for part in result.sections) + ")."
    found = [(f"{part.exercise}: " if result.sections else "") + d.title
             for part in result.parts() for d in part.diagnoses]
    if found:
        text += " Mistakes found: " + "; ".join(found) + "."
    elif result.score < result.max_score:
        text += " Some checks failed; see the report."
    return text
