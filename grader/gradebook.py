"""Class-level outputs, each a plain consumer of the result list: ``gradebook.csv``, ``junit.xml``,
``summary.html``, per-student ``gradescope.json``, and the GitHub Actions step summary.

Python computes numbers; wording and layout for people live in ``templates/summary.html.j2`` (and the per-student
Markdown report, reused for Gradescope and GitHub). Every text a student could have chosen goes through the
helper of ``escape`` for its format. Each class file is written on its own, so one that fails costs no other.
A batch stopped early writes them too: students not graded yet are ``pending`` rows and the files say so.
"""
from __future__ import annotations

import csv
import io
import math
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from dataclasses import dataclass
from typing import Mapping, Sequence
from urllib.parse import quote

from . import escape, report
from .results import GradeResult

GRADEBOOK_COLUMNS = ("student", "submission", "score", "max_score", "status", "diagnoses", "report")
TIMEOUT_KINDS = {"timeout"}
CLASS_FILES = ("gradebook.csv", "junit.xml", "summary.html")


@dataclass(frozen=True)
class Pending:
    """A student the batch did not reach before it was stopped: listed, marked, graded by the next run."""

    student: str
    submission: str


def report_link(folder: str) -> str:
    """The relative URL of a student's report from OUT, safe whatever the folder name holds."""
    return f"{report.STUDENTS}/{quote(folder, safe='')}/report.html"


def _folders(results: Sequence[GradeResult], pending: Sequence[Pending],
             folders: Mapping[str, str] | None) -> dict[str, str]:
    known = dict(folders or {})
    missing = [r.student for r in results if r.student not in known] + [p.student for p in pending
                                                                         if p.student not in known]
    if missing:
        computed = report.folder_names([*known, *missing])
        known.update((student, computed[student]) for student in missing)
    return known


# -- gradebook.csv ----------------------------------------------------------------------------------------------
def exercise_ids(results: Sequence[GradeResult]) -> list[str]:
    """The exercises of the sectioned (assignment) results, in the order their sections come; [] for lone ones."""
    ids: list[str] = []
    for r in results:
        ids += [part.exercise for part in r.sections if part.exercise not in ids]
    return ids


def diagnosis_ids(result: GradeResult) -> list[str]:
    """Every mistake found: ``id`` for a lone exercise, ``exercise:id`` in an assignment's sections."""
    return [f"{part.exercise}:{d.id}" if result.sections else d.id for part in result.parts() for d in part.diagnoses]


def _exercise_column(exercise: str) -> str:
    """An exercise's column in gradebook.csv: its id (one that is already a column name gets ``_score``)."""
    return f"{exercise}_score" if exercise in GRADEBOOK_COLUMNS else exercise


def render_csv(results: list[GradeResult], pending: Sequence[Pending] = (),
               folders: Mapping[str, str] | None = None) -> str:
    """One row per student; a student not graded yet has status ``pending`` and no score.

    An assignment's results also have a column per exercise, after ``max_score``: the score of that exercise's
    section, weighted (0 when it could not be graded, empty when the student has no such section)."""
    folders = _folders(results, pending, folders)
    exercises = exercise_ids(results)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = list(GRADEBOOK_COLUMNS)
    columns[columns.index("max_score") + 1:columns.index("max_score") + 1] = [_exercise_column(e) for e in exercises]
    writer.writerow([escape.csv_cell(c) for c in columns])
    rows = []
    for r in results:
        scores = {part.exercise: f"{part.score:g}" for part in r.sections}
        rows.append((r.student, [r.submission, f"{r.score:g}", f"{r.max_score:g}",
                                 [scores.get(e, "") for e in exercises], r.status, ";".join(diagnosis_ids(r))]))
    rows += [(p.student, [p.submission, "", "", [""] * len(exercises), "pending", ""]) for p in pending]
    for student, (submission, score, max_score, each, status, diagnoses) in sorted(rows, key=lambda row: row[0]):
        writer.writerow([escape.csv_cell(student), escape.csv_cell(submission), score, max_score, *each,
                         escape.csv_cell(status), escape.csv_cell(diagnoses),
                         escape.csv_cell(f"{report.STUDENTS}/{folders[student]}/report.html")])
    return buffer.getvalue()


# -- junit.xml --------------------------------------------------------------------------------------------------
def render_junit(results: list[GradeResult], exercise_id: str, pending: Sequence[Pending] = ()) -> str:
    """A testsuite per student, a testcase per check; failed checks fail, checks not graded are errors.

    A student not graded yet (the batch was stopped) has one skipped testcase saying so. An assignment's results
    (``exercise_id`` is then its name) have a testsuite per exercise instead (``_junit_sections``).
    """
    x = escape.xml_text
    root = ET.Element("testsuites", name=x(f"grader {exercise_id}"))
    if exercise_ids(results):
        return _finish_junit(root, _junit_sections(root, results, exercise_id, pending))
    totals = Counter()
    for r in sorted(results, key=lambda r: r.student):
        suite = ET.SubElement(root, "testsuite", name=x(r.student))
        properties = ET.SubElement(suite, "properties")
        for name, value in (("submission", r.submission), ("score", f"{r.score:g}"),
                            ("max_score", f"{r.max_score:g}"), ("status", r.status),
                            ("diagnoses", ";".join(d.id for d in r.diagnoses))):
            ET.SubElement(properties, "property", name=name, value=x(value))
        counts = _cases(suite, r, f"{exercise_id}.{r.student}")
        if r.diagnoses:
            out = ET.SubElement(suite, "system-out")
            out.text = x("\n".join(f"{d.id}: {d.title}" for d in r.diagnoses))
        _totals(suite, counts, f"{r.timing.get('total', 0.0):.3f}")
        totals.update(counts)
    for p in sorted(pending, key=lambda p: p.student):
        suite = ET.SubElement(root, "testsuite", name=x(p.student))
        properties = ET.SubElement(suite, "properties")
        for name, value in (("submission", p.submission), ("status", "pending")):
            ET.SubElement(properties, "property", name=name, value=x(value))
        case = ET.SubElement(suite, "testcase", classname=x(f"{exercise_id}.{p.student}"), name="grade", time="0")
        ET.SubElement(case, "skipped", message=INCOMPLETE_NOTE)
        counts = Counter(tests=1, skipped=1)
        _totals(suite, counts, "0.000")
        totals.update(counts)
    return _finish_junit(root, totals)


def _finish_junit(root: ET.Element, totals: Counter) -> str:
    for name in ("tests", "failures", "errors", "skipped"):
        root.set(name, str(totals[name]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _cases(suite: ET.Element, part: GradeResult, classname: str, prefix: str = "") -> Counter:
    """A testcase per check of ``part`` (a lone result or one section), its name ``prefix`` + the check's id; a
    part that could not be graded has an error testcase ``prefix`` + ``grade`` and its checks skipped."""
    x = escape.xml_text
    counts = Counter()
    checks = list(part.checks)
    classname = x(classname)
    kind = x(part.error.kind if part.error else "error")
    if part.status == "error":  # the reason once, on a 'grade' testcase; the checks were never run
        reason = x(part.error.message if part.error else "")
        case = ET.SubElement(suite, "testcase", classname=classname, name=x(f"{prefix}grade"), time="0")
        error = ET.SubElement(case, "error", type=kind, message=reason)
        error.text = reason
        counts.update(tests=1, errors=1)
        for check in checks:
            case = ET.SubElement(suite, "testcase", classname=classname, name=x(prefix + check.id), time="0")
            ET.SubElement(case, "skipped", message=x(f"not graded ({part.error.kind if part.error else 'error'}): "
                                                     f"see the '{prefix}grade' testcase"))
            counts.update(tests=1, skipped=1)
        checks = []
    for check in checks:
        case = ET.SubElement(suite, "testcase", classname=classname, name=x(prefix + check.id), time="0")
        counts["tests"] += 1
        if check.status == "failed" or check.status == "timeout":
            failure = ET.SubElement(case, "failure", type=x(check.status), message=x(check.message))
            failure.text = x(f"{check.title}: {check.points:g}/{check.max_points:g}. {check.message}")
            counts["failures"] += 1
        elif check.status == "error":
            error = ET.SubElement(case, "error", type=kind, message=x(check.message))
            error.text = x(check.message)
            counts["errors"] += 1
    return counts


def _junit_sections(root: ET.Element, results: list[GradeResult], assignment: str,
                    pending: Sequence[Pending]) -> Counter:
    """An assignment's JUnit: a testsuite per exercise, in it every student's testcases for that exercise, named
    ``exercise: check`` (classname ``assignment.student``), so a CI page reads "linear: shape"."""
    x = escape.xml_text
    totals = Counter()
    exercises: list[str] = []
    for r in results:  # a lone result among them (there should be none) is a part of its own exercise
        exercises += [part.exercise for part in r.parts() if part.exercise not in exercises]
    for exercise in exercises:
        suite = ET.SubElement(root, "testsuite", name=x(exercise))
        properties = ET.SubElement(suite, "properties")
        for name, value in (("assignment", assignment), ("exercise", exercise)):
            ET.SubElement(properties, "property", name=name, value=x(value))
        counts, seconds, said = Counter(), 0.0, []
        for r in sorted(results, key=lambda r: r.student):
            for part in (p for p in r.parts() if p.exercise == exercise):
                counts.update(_cases(suite, part, f"{assignment}.{r.student}", f"{exercise}: "))
                seconds += part.timing.get("total", 0.0)
                said.append(f"{r.student}: {part.score:g}/{part.max_score:g}"
                            + (f" (not graded: {part.error.kind if part.error else 'error'})"
                               if part.status == "error" else "")
                            + "".join(f"; {d.id}: {d.title}" for d in part.diagnoses))
        for p in sorted(pending, key=lambda p: p.student):
            case = ET.SubElement(suite, "testcase", classname=x(f"{assignment}.{p.student}"),
                                 name=x(f"{exercise}: grade"), time="0")
            ET.SubElement(case, "skipped", message=INCOMPLETE_NOTE)
            counts.update(tests=1, skipped=1)
        if said:
            out = ET.SubElement(suite, "system-out")
            out.text = x("\n".join(said))
        _totals(suite, counts, f"{seconds:.3f}")
        totals.update(counts)
    return totals


INCOMPLETE_NOTE = "not graded yet: the batch was stopped before it; run the same command again to finish"


def _totals(suite: ET.Element, counts: Counter, seconds: str) -> None:
    for name in ("tests", "failures", "errors", "skipped"):
        suite.set(name, str(counts[name]))
    suite.set("time", seconds)


# -- gradescope.json --------------------------------------------------------------------------------------------
# -- summary.html -----------------------------------------------------------------------------------------------
def _rates(parts: Sequence[tuple[GradeResult, GradeResult]]) -> list[dict]:
    """Pass rate per check over (result, part) pairs whose part was graded."""
    checks: dict[str, dict] = {}
    for _, part in parts:
        for c in part.checks:
            entry = checks.setdefault(c.id, {"id": c.id, "title": c.title, "passed": 0, "total": 0})
            entry["total"] += 1
            entry["passed"] += c.status == "passed"
    for entry in checks.values():
        entry["rate"] = entry["passed"] / entry["total"] if entry["total"] else 0.0
    return list(checks.values())


def _mistakes(parts: Sequence[tuple[GradeResult, GradeResult]]) -> list[dict]:
    """Each mistake found in the (result, part) pairs with its students, most frequent first."""
    mistakes: dict[str, dict] = {}
    for r, part in parts:
        for d in part.diagnoses:
            entry = mistakes.setdefault(d.id, {"id": d.id, "title": d.title, "count": 0, "students": []})
            entry["count"] += 1
            entry["students"].append(r.student)
    return sorted(mistakes.values(), key=lambda m: (-m["count"], m["id"]))


def _exercise_summary(exercise: str, results: Sequence[GradeResult]) -> dict:
    """One exercise of an assignment across the class: its figures, pass rates and mistakes."""
    parts = [(r, part) for r in results for part in r.sections if part.exercise == exercise]
    graded = [(r, part) for r, part in parts if part.status == "graded"]
    top = Counter(part.max_score for _, part in parts).most_common(1)[0][0] if parts else 0.0
    return {
        "id": exercise,
        "weight": Counter(part.weight for _, part in parts).most_common(1)[0][0] if parts else 1.0,
        "count": len(parts),
        "graded": len(graded),
        "not_graded": len(parts) - len(graded),
        "full_marks": sum(1 for _, part in graded if part.score >= part.max_score),
        "max_score": top,
        "mean": _mean([part.score for _, part in parts]),
        "checks": _rates(graded),
        "mistakes": _mistakes(parts),
    }


def class_summary(results: list[GradeResult], exercise_id: str, notes: Sequence[str] = (), *,
                  pending: Sequence[Pending] = (), folders: Mapping[str, str] | None = None,
                  left_out: Sequence[tuple[str, str]] = (), similarity: Mapping | None = None,
                  changes: Mapping | None = None) -> dict:
    """Numbers for the class page: distribution, pass rate per check, mistakes, students to look at first.

    ``left_out`` lists the entries of the class folder that were not graded, each with why. ``similarity`` says
    what ``similarity.html`` holds, ``changes`` whose result a regrade moved (``regrade.summary``). For an
    assignment's results ``exercises`` has each exercise's figures, pass rates and mistakes, and ``not_graded``
    the exercises that could not be graded in a submission that was.
    """
    folders = _folders(results, pending, folders)
    results = sorted(results, key=lambda r: r.student)
    graded = [r for r in results if r.status == "graded"]
    errors = [r for r in results if r.status == "error"]
    max_score = Counter(r.max_score for r in results).most_common(1)[0][0] if results else 0.0
    scores = [r.score for r in results]
    if max_score and float(max_score).is_integer() and max_score <= 40:
        edges = [(float(p), float(p)) for p in range(int(max_score) + 1)]  # one bar per point
    else:
        step = (max_score or 1.0) / 10
        edges = [(i * step, (i + 1) * step) for i in range(10)]
    histogram = []
    for n, (low, high) in enumerate(edges):
        last = n == len(edges) - 1
        if low == high:
            count = sum(1 for s in scores if low <= s < low + 1 or (last and s >= low))
        else:
            count = sum(1 for s in scores if low <= s < high or (last and s >= high))
        histogram.append({"low": low, "high": high, "count": count})
    checks, mistakes = _rates([(r, r) for r in graded]), _mistakes([(r, r) for r in results])
    exercises = [_exercise_summary(e, results) for e in exercise_ids(results)]
    if exercises:  # an assignment: what the page shows per exercise, flattened here for the figures' users
        checks = [dict(c, exercise=e["id"]) for e in exercises for c in e["checks"]]
        mistakes = [dict(m, exercise=e["id"]) for e in exercises for m in e["mistakes"]]
    timeouts = [r for r in results if any(c.status == "timeout" for _, c in r.all_checks())
                or (r.error and r.error.kind in TIMEOUT_KINDS)]
    not_graded = [{"student": r.student, "exercise": part.exercise, "kind": part.error.kind if part.error else "error",
                   "message": part.error.message if part.error else ""}
                  for r in results if r.status == "graded" for part in r.sections if part.status == "error"]
    lowest = sorted((r for r in graded if r.score < r.max_score), key=lambda r: (r.score, r.student))[:10]
    return {
        "exercise": exercise_id,
        "students": results,
        "count": len(results),
        "graded": len(graded),
        "errors": errors,
        "full_marks": sum(1 for r in graded if r.score >= r.max_score),
        "max_score": max_score,
        "mean": _mean(scores),
        "median": _median(scores),
        "histogram": histogram,
        "histogram_max": max((b["count"] for b in histogram), default=0),
        "checks": checks,
        "mistakes": mistakes,
        "exercises": exercises,
        "not_graded": not_graded,
        "diagnosed": {r.student: [(f"{part.exercise}: " if r.sections else "", d) for part in r.parts()
                                  for d in part.diagnoses] for r in results},
        "timeouts": timeouts,
        "lowest": lowest,
        "notes": list(notes),
        "links": {student: report_link(folder) for student, folder in folders.items()},
        "pending": sorted(pending, key=lambda p: p.student),
        "incomplete_note": INCOMPLETE_NOTE,
        "left_out": list(left_out),
        "similarity": similarity,
        "changes": changes,
    }


def render_summary(results: list[GradeResult], exercise_id: str, notes: Sequence[str] = (), **more) -> str:
    data = class_summary(results, exercise_id, notes, **more)
    return report.environment(True).get_template("summary.html.j2").render(s=data)


# -- everything at once -----------------------------------------------------------------------------------------
def write_class(results: list[GradeResult], out: Path, exercise_id: str, notes: Sequence[str] = (), *,
                pending: Sequence[Pending] = (), folders: Mapping[str, str] | None = None,
                left_out: Sequence[tuple[str, str]] = (), private: bool = False, similarity: Mapping | None = None,
                changes: Mapping | None = None) -> list[str]:
    """Write every class file, each on its own; return one line per file that could not be written."""
    out = Path(out)
    folders = _folders(results, pending, folders)
    renderers = {
        "gradebook.csv": lambda: render_csv(results, pending, folders),
        "junit.xml": lambda: render_junit(results, exercise_id, pending),
        "summary.html": lambda: render_summary(results, exercise_id, notes, pending=pending, folders=folders,
                                               left_out=left_out, similarity=similarity, changes=changes),
    }
    problems = []
    for name in CLASS_FILES:
        try:
            report.write_atomic(out / name, renderers[name](), private=private)
        except Exception as exc:  # noqa: BLE001  (one class file lost, never the others)
            problems.append(f"{name} could not be written ({type(exc).__name__}: {escape.terminal(exc, 300)})")
    return problems


def append_step_summary(results: list[GradeResult], path: Path) -> None:
    """GitHub Actions: append every student's Markdown report to ``$GITHUB_STEP_SUMMARY``."""
    text = escape.ci_text("\n".join(report.render_markdown(r) for r in sorted(results, key=lambda r: r.student)))
    with open(path, "a", encoding="utf-8", errors="replace") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")


def _mean(values: Sequence[float]) -> float:
    """The mean (0 for none), summed exactly as ``statistics.fmean`` does; ``statistics`` itself loads ``fractions``
    and ``decimal``, about 7 ms at the very end of a batch, when nothing else is left to overlap with."""
    return math.fsum(values) / len(values) if values else 0.0


def _median(values: Sequence[float]) -> float:
    """The median (0 for none): the middle score, or the mean of the two middle ones, as ``statistics.median``."""
    ordered = sorted(values)
    half = len(ordered) // 2
    if not ordered:
        return 0.0
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
