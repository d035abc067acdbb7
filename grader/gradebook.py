"""Class-level outputs, each a plain consumer of the result list: ``gradebook.csv``, ``junit.xml``,
``summary.html``, per-student ``gradescope.json``, and the GitHub Actions step summary.

Python computes numbers; wording and layout for people live in ``templates/summary.html.j2`` (and the per-student
Markdown report, reused for Gradescope and GitHub).
"""
from __future__ import annotations

import csv
import io
import json
import statistics
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from . import report
from .results import GradeResult

GRADEBOOK_COLUMNS = ("student", "submission", "score", "max_score", "status", "diagnoses")
TIMEOUT_KINDS = {"timeout"}


# -- gradebook.csv ----------------------------------------------------------------------------------------------
def render_csv(results: list[GradeResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_COLUMNS)
    for r in sorted(results, key=lambda r: r.student):
        writer.writerow([r.student, r.submission, f"{r.score:g}", f"{r.max_score:g}", r.status,
                         ";".join(d.id for d in r.diagnoses)])
    return buffer.getvalue()


# -- junit.xml --------------------------------------------------------------------------------------------------
def render_junit(results: list[GradeResult], exercise_id: str) -> str:
    """A testsuite per student, a testcase per check; failed checks fail, checks not graded are errors."""
    root = ET.Element("testsuites", name=f"grader {exercise_id}")
    totals = Counter()
    for r in sorted(results, key=lambda r: r.student):
        suite = ET.SubElement(root, "testsuite", name=r.student)
        properties = ET.SubElement(suite, "properties")
        for name, value in (("submission", r.submission), ("score", f"{r.score:g}"),
                            ("max_score", f"{r.max_score:g}"), ("status", r.status),
                            ("diagnoses", ";".join(d.id for d in r.diagnoses))):
            ET.SubElement(properties, "property", name=name, value=value)
        counts = Counter()
        checks = list(r.checks)
        for check in checks:
            case = ET.SubElement(suite, "testcase", classname=f"{exercise_id}.{r.student}", name=check.id,
                                 time="0")
            counts["tests"] += 1
            if check.status == "failed" or check.status == "timeout":
                failure = ET.SubElement(case, "failure", type=check.status, message=check.message)
                failure.text = f"{check.title}: {check.points:g}/{check.max_points:g}. {check.message}"
                counts["failures"] += 1
            elif check.status == "error":
                error = ET.SubElement(case, "error", type=r.error.kind if r.error else "error", message=check.message)
                error.text = check.message
                counts["errors"] += 1
        if r.status == "error" and not any(c.status == "error" for c in checks):
            case = ET.SubElement(suite, "testcase", classname=f"{exercise_id}.{r.student}", name="grade", time="0")
            error = ET.SubElement(case, "error", type=r.error.kind if r.error else "error",
                                  message=r.error.message if r.error else "")
            error.text = r.error.message if r.error else ""
            counts["tests"] += 1
            counts["errors"] += 1
        if r.diagnoses:
            out = ET.SubElement(suite, "system-out")
            out.text = "\n".join(f"{d.id}: {d.title}" for d in r.diagnoses)
        seconds = f"{r.timing.get('total', 0.0):.3f}"
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        suite.set("skipped", "0")
        suite.set("time", seconds)
        totals.update(counts)
    for name in ("tests", "failures", "errors"):
        root.set(name, str(totals[name]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- gradescope.json --------------------------------------------------------------------------------------------
def gradescope_document(result: GradeResult) -> dict:
    """Gradescope's autograder ``results.json``: the Markdown report as output, a test per check."""
    return {
        "score": result.score,
        "execution_time": round(result.timing.get("total", 0.0), 3),
        "output": report.render_markdown(result),
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": check.title,
                "number": check.id,
                "score": check.points,
                "max_score": check.max_points,
                "status": "passed" if check.status == "passed" else "failed",
                "output": check.message,
                "visibility": "visible",
            }
            for check in result.checks
        ],
        "extra_data": {
            "student": result.student,
            "status": result.status,
            "error_kind": result.error.kind if result.error else None,
            "diagnoses": [d.id for d in result.diagnoses],
        },
    }


def write_gradescope(result: GradeResult, folder: Path) -> None:
    report.write_atomic(Path(folder) / "gradescope.json",
                        json.dumps(gradescope_document(result), indent=2, ensure_ascii=False) + "\n")


# -- summary.html -----------------------------------------------------------------------------------------------
def class_summary(results: list[GradeResult], exercise_id: str, notes: tuple[str, ...] = ()) -> dict:
    """Numbers for the class page: distribution, pass rate per check, mistakes, students to look at first."""
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
    checks: dict[str, dict] = {}
    for r in graded:
        for c in r.checks:
            entry = checks.setdefault(c.id, {"id": c.id, "title": c.title, "passed": 0, "total": 0})
            entry["total"] += 1
            entry["passed"] += c.status == "passed"
    for entry in checks.values():
        entry["rate"] = entry["passed"] / entry["total"] if entry["total"] else 0.0
    mistakes: dict[str, dict] = {}
    for r in results:
        for d in r.diagnoses:
            entry = mistakes.setdefault(d.id, {"id": d.id, "title": d.title, "count": 0, "students": []})
            entry["count"] += 1
            entry["students"].append(r.student)
    timeouts = [r for r in results
                if any(c.status == "timeout" for c in r.checks) or (r.error and r.error.kind in TIMEOUT_KINDS)]
    lowest = sorted((r for r in graded if r.score < r.max_score), key=lambda r: (r.score, r.student))[:10]
    return {
        "exercise": exercise_id,
        "students": results,
        "count": len(results),
        "graded": len(graded),
        "errors": errors,
        "full_marks": sum(1 for r in graded if r.score >= r.max_score),
        "max_score": max_score,
        "mean": statistics.fmean(scores) if scores else 0.0,
        "median": statistics.median(scores) if scores else 0.0,
        "histogram": histogram,
        "histogram_max": max((b["count"] for b in histogram), default=0),
        "checks": list(checks.values()),
        "mistakes": sorted(mistakes.values(), key=lambda m: (-m["count"], m["id"])),
        "timeouts": timeouts,
        "lowest": lowest,
        "notes": list(notes),
        "folders": {r.student: report.safe_name(r.student) for r in results},
    }


def render_summary(results: list[GradeResult], exercise_id: str, notes: tuple[str, ...] = ()) -> str:
    data = class_summary(results, exercise_id, notes)
    return report.environment(True).get_template("summary.html.j2").render(s=data)


# -- everything at once -----------------------------------------------------------------------------------------
def write_class(results: list[GradeResult], out: Path, exercise_id: str, notes: tuple[str, ...] = ()) -> None:
    out = Path(out)
    report.write_atomic(out / "gradebook.csv", render_csv(results))
    report.write_atomic(out / "junit.xml", render_junit(results, exercise_id))
    report.write_atomic(out / "summary.html", render_summary(results, exercise_id, notes))


def append_step_summary(results: list[GradeResult], path: Path) -> None:
    """GitHub Actions: append every student's Markdown report to ``$GITHUB_STEP_SUMMARY``."""
    text = "\n".join(report.render_markdown(r) for r in sorted(results, key=lambda r: r.student))
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")
