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

One LMS user, one row. An LMS download can give one user several entries: a Canvas submission of two files
(``doejane_12345_111_hw.ipynb`` and ``doejane_12345_112_hw.py``), or Moodle's folders of one
participant, one per submission plugin (``..._assignsubmission_file_`` and ``..._assignsubmission_onlinetext_``).
Written as they are, the import would take one of the rows at random (the last, usually), so a 0 could replace a
grade. Entries with nothing to grade are dropped beside one that has something; two or more that remain are treated
as two files of one student (``duplicate-student``): 0, none of their scores imported, the feedback naming them,
and ``collisions`` says it for stderr. An entry not graded yet leaves the row empty.
"""
from __future__ import annotations

import csv
import dataclasses
import html
import io
import re
import time
from pathlib import Path
from collections import Counter
from typing import TYPE_CHECKING, Sequence

from . import blackboard, escape

if TYPE_CHECKING:  # for the annotations only: the command line reads FORMATS before it starts the sandbox
    from .results import GradeResult

FORMATS = ("canvas", "moodle", "blackboard")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments")
_CANVAS_NAME = re.compile(r"^(?P<name>[^_]+?)(?:_LATE)?_(?P<user>\d+)_(?P<submission>\d+)(?:_|$)")
#: Canvas's download of an anonymously graded assignment: ``[LATE_]anon_<anonymous id>_<file id>_<name>``; the
#: anonymous id is not a user id (it must never fill ``ID``, even when it happens to be all digits).
_CANVAS_ANON = re.compile(r"^(?:LATE_)?anon_(?P<anon>[A-Za-z0-9]+)_(?P<file>\d+)(?:_|$)")
_MOODLE_NAME = re.compile(r"^(?P<name>.+?)_(?P<participant>\d+)_assign(?:submission|feedback)_")


def filename(fmt: str) -> str:
    return blackboard.FILENAME if fmt == "blackboard" else f"{fmt}.csv"


def data(fmt: str, text: str) -> bytes:
    """The file's bytes: Blackboard's in the encoding of its own downloads, the others UTF-8."""
    return blackboard.encode(text) if fmt == "blackboard" else text.encode("utf-8", "replace")


def render(fmt: str, results: Sequence[GradeResult], assignment: str, pending: Sequence[str] = (),
           graded_at: float | None = None, template: blackboard.Template | None = None) -> str:
    """The CSV text for ``fmt``; ``assignment`` names the LMS column (Canvas) or appears in the feedback (Moodle).

    ``graded_at`` (seconds since the epoch: when the newest result was written) fills Moodle's ``Last modified
    (grade)``. Its worksheet upload refuses a file without that column, and skips every row whose grade was changed
    in Moodle after that time (unless told to ignore it), so a TA's later hand edit is kept and an older one is
    replaced."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown LMS format {fmt!r}")
    rows = _one_row_per_user(fmt, sorted([(r.student, r) for r in results] + [(p, None) for p in pending],
                                         key=lambda row: row[0]), template)
    maximum = Counter(r.max_score for r in results).most_common(1)[0][0] if results else 0.0
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    cell = escape.csv_cell
    if fmt == "blackboard":  # a row per username; the column's header (and id) from the template, if any
        # a student not graded yet has no row: whether the upload reads an empty cell as "no change" is not said
        return blackboard.render([(blackboard.username(student, template), _score(result)) for student, result
                                  in rows if result is not None], blackboard.header(assignment, maximum, template))
    if fmt == "canvas":
        writer.writerow([*CANVAS_COLUMNS, cell(assignment)])
        writer.writerow(["Points Possible", "", "", "", "", f"{maximum:g}"])
        for student, result in rows:
            anon, match = _CANVAS_ANON.match(student), _CANVAS_NAME.match(student)
            if anon:  # matches no user on import (see anonymous): named for SpeedGrader, never as a user id
                name, user, login = f"anonymous student {anon['anon']}", "", ""
            else:
                name, user, login = (match["name"], match["user"], "") if match else (student, "", student)
            writer.writerow([cell(name), user, "", cell(login), "", _score(result)])
    else:
        writer.writerow(MOODLE_COLUMNS)
        modified = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(graded_at)) if graded_at is not None else ""
        for student, result in rows:
            match = _MOODLE_NAME.match(student)
            identifier, name = (f"Participant {match['participant']}", match["name"]) if match else (student, student)
            writer.writerow([cell(identifier), cell(name), _score(result),
                             f"{result.max_score:g}" if result else f"{maximum:g}", modified,
                             cell(html.escape(_feedback(result, assignment), quote=False))])  # Moodle keeps it as HTML
    return buffer.getvalue()


def _score(result: GradeResult | None) -> str:
    if result is None:
        return ""
    return f"{result.score:g}" if result.status == "graded" else "0"


def _user(fmt: str, student: str, template: blackboard.Template | None = None) -> str:
    """The LMS's own identity of an entry: the user or participant its download name holds, else the id itself."""
    if fmt == "blackboard":
        return "user " + blackboard.username(student, template)
    anon = _CANVAS_ANON.match(student) if fmt == "canvas" else None
    if anon:
        return "anonymous student " + anon["anon"]
    match = (_CANVAS_NAME if fmt == "canvas" else _MOODLE_NAME).match(student)
    if not match:
        return student
    return "user " + match["user"] if fmt == "canvas" else "participant " + match["participant"]


def _groups(fmt: str, rows: list[tuple[str, GradeResult | None]],
            template: blackboard.Template | None = None) -> dict[str, list[tuple[str, GradeResult | None]]]:
    """The entries of each LMS user, those with nothing to grade dropped when the user has another."""
    groups: dict[str, list[tuple[str, GradeResult | None]]] = {}
    for row in rows:
        groups.setdefault(_user(fmt, row[0], template), []).append(row)
    for key, group in groups.items():
        kept = [row for row in group if not _nothing(row[1])]
        groups[key] = kept or group[:1]
    return groups


def _nothing(result: GradeResult | None) -> bool:
    return result is not None and result.status == "error" and bool(result.error) and \
        result.error.kind == "no-submission"


def _one_row_per_user(fmt: str, rows: list[tuple[str, GradeResult | None]],
                      template: blackboard.Template | None = None) -> list[tuple[str, GradeResult | None]]:
    """A row per LMS user: several entries left for one user become one ``duplicate-student`` row (see the top)."""
    from .results import ErrorInfo  # here: the command line imports this module before the sandbox

    out: list[tuple[str, GradeResult | None]] = []
    for group in _groups(fmt, rows, template).values():
        if len(group) == 1:
            out.append(group[0])
            continue
        student = group[0][0]
        if any(result is None for _, result in group):  # not all graded yet: the LMS keeps what it has
            out.append((student, None))
            continue
        first = group[0][1]
        assert first is not None
        scores = ", ".join(f"{name}: {_score(result)}/{result.max_score:g}" for name, result in group if result)
        message = (f"{len(group)} entries of the class folder are this one {_LMS[fmt]} user ({scores}); none of their "
                   "scores is imported: keep one submission per student and grade again.")
        out.append((student, dataclasses.replace(first, status="error", score=0.0, sections=(),
                                                 error=ErrorInfo(kind="duplicate-student", message=message))))
    return sorted(out, key=lambda row: row[0])


_LMS = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard"}


def warnings(fmt: str, results: Sequence[GradeResult], pending: Sequence[str] = (),
             template: blackboard.Template | None = None) -> list[str]:
    """Every sentence stderr should say about the grade file of ``fmt`` (see the three below)."""
    found = [*collisions(fmt, results, pending, template), *anonymous(fmt, results, pending),
             *hashed(fmt, results, pending, template)]
    if fmt == "blackboard":
        maximum = Counter(r.max_score for r in results).most_common(1)[0][0] if results else 0.0
        # only the graded: a student not graded yet has no row in the file
        found += blackboard.notes([blackboard.username(r.student, template) for r in results], maximum, template)
    return found


def collisions(fmt: str, results: Sequence[GradeResult], pending: Sequence[str] = (),
               template: blackboard.Template | None = None) -> list[str]:
    """One sentence per LMS user that several graded entries belong to, for stderr: the grade file scores them 0."""
    rows = [(r.student, r) for r in results] + [(p, None) for p in pending]
    return [f"{len(group)} entries are one {_LMS[fmt]} {key} ({', '.join(escape.terminal(name) for name, _ in group)}): "
            f"{filename(fmt)} gives them one row, scored 0 as two files of one student; keep one and grade again."
            for key, group in sorted(_groups(fmt, sorted(rows, key=lambda row: row[0]), template).items())
            if len(group) > 1]


def anonymous(fmt: str, results: Sequence[GradeResult], pending: Sequence[str] = ()) -> list[str]:
    """A sentence for stderr when ids come from an anonymously graded Canvas assignment: Canvas's import matches
    rows by user, which its anonymous download never names, so those grades go in through SpeedGrader."""
    ids = sorted({_user(fmt, name) for name in [r.student for r in results] + list(pending)
                  if fmt == "canvas" and _CANVAS_ANON.match(name)})
    if not ids:
        return []
    return [f"{len(ids)} entr{'y is' if len(ids) == 1 else 'ies are'} of an anonymously graded Canvas assignment "
            f"(anon_<id> names, e.g. {escape.terminal(ids[0].split()[-1])}): Grades > Import cannot match them to "
            f"a user, so {filename(fmt)} lists them as 'anonymous student <id>' with no ID and the import skips them: "
            "enter those grades in SpeedGrader (its address names the submission's anonymous_id)."]


#: the short (or whole) hash ``shownids.display_ids`` puts after an id it could not show as given
_HASHED = re.compile(r" #(?:[0-9a-f]{8}|[0-9a-f]{64})$")


def hashed(fmt: str, results: Sequence[GradeResult], pending: Sequence[str] = (),
           template: blackboard.Template | None = None) -> list[str]:
    """A sentence for stderr when rows go in by an id that carries the grader's hash (``Bob #cd9fb1e1``: ids
    equal but for case, hidden characters, over 120 characters): no LMS login is written so, and the import
    would skip or refuse those rows while the file looks complete. Canvas and Moodle download names are matched
    by the user number they hold, hash or not. Blackboard's template check names the ids its download lacks; without
    a template nothing else would, so the sentence is said for Blackboard then too (it used to be left out, and
    blackboard.xls went out with rows no username matches and no word of them)."""
    if fmt == "blackboard" and template is not None:
        return []
    if fmt == "blackboard":  # only the graded: a student not graded yet has no row in blackboard.xls
        ids = sorted(r.student for r in results if _HASHED.search(r.student)
                     and blackboard.username(r.student, None) == r.student)
    else:
        ids = sorted(name for name in [r.student for r in results] + list(pending)
                     if _HASHED.search(name) and _user(fmt, name) == name)
    if not ids:
        return []
    listed = ", ".join(escape.terminal(name, 130) for name in ids[:3]) + (" and more" if len(ids) > 3 else "")
    return [f"{len(ids)} row{'s' if len(ids) > 1 else ''} of {filename(fmt)} carr{'y' if len(ids) > 1 else 'ies'} "
            f"the grader's hash after the id ({listed}), which no {_LMS[fmt]} login has, so the import cannot "
            "match them: rename those files after their students' logins and grade again, or enter their grades "
            "by hand."]


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


def graded_at(out: Path) -> float | None:
    """When the newest ``result.json`` of an output folder was written (None when there is none)."""
    times = [p.stat().st_mtime for p in (Path(out) / "students").glob("*/result.json") if p.is_file()]
    return max(times) if times else None


def remove_stale(out: Path, written: str | None) -> list[str]:
    """Remove the LMS grade files an earlier run left in ``out`` that this run did not write (``written`` is this
    run's format, or None); a sentence for each, for stderr.

    A regrade without ``--gradebook-format`` (or with another format) used to leave ``canvas.csv`` as it was, with
    the old scores beside a gradebook that had new ones, where a TA would upload it. Written again from the new
    results it could differ from what the instructor chose (a Blackboard template, the assignment's title), so it
    goes, and the sentence says how to write it again."""
    said = []
    for fmt in FORMATS:
        path = Path(out) / filename(fmt)
        if fmt == written or not (path.is_file() or path.is_symlink()):
            continue
        try:
            path.unlink()
        except OSError as exc:
            said.append(f"{filename(fmt)}, written by an earlier run, holds its scores, not this run's, and could not "
                        f"be removed ({type(exc).__name__}): delete it before uploading anything from "
                        f"{escape.terminal(out)}.")
            continue
        said.append(f"removed {filename(fmt)}, written by an earlier run: it held that run's scores. "
                    f"`grader export {escape.shell_word(out) or 'OUT'} --format {fmt}` writes it again from these "
                    "results.")
    return said
