"""The result contract seen from outside: the CLI's JSON document, exit codes, files written, and the report."""
from __future__ import annotations

import json
from markupsafe import escape
import re
import subprocess
import sys

import pytest

from conftest import ROOT, SUBMISSIONS

KEYS = {"schema", "exercise", "submission", "student", "status", "score", "max_score", "error", "checks",
        "diagnoses", "warnings", "timing"}
CHECK_KEYS = {"id", "title", "status", "points", "max_points", "message"}


def grader(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("name,status", [("buggy/missing-relu.py", "graded"), ("correct/matmul.py", "graded"),
                                         ("notebooks/not-json.ipynb", "error")])
def test_json_is_exactly_one_document_and_exit_code_is_zero(name, status):
    proc = grader("grade", SUBMISSIONS / name, "--exercise", "vgg_classifier", "--json", "--no-full-scale")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)  # fails on anything else printed to stdout
    assert KEYS <= set(document)
    assert document["schema"] == "grader.result/1" and document["status"] == status
    assert document["student"] == (SUBMISSIONS / name).stem
    for item in document["checks"]:
        assert CHECK_KEYS <= set(item) and item["status"] in ("passed", "failed", "error", "timeout")
    for item in document["diagnoses"]:
        assert {"id", "title", "explanation"} <= set(item)
    if status == "error":
        assert document["score"] == 0 and document["error"]["kind"] and document["error"]["message"]
    else:
        assert document["error"] is None
    assert "Traceback" not in proc.stdout + proc.stderr


def test_student_prints_never_reach_stdout():
    proc = grader("grade", SUBMISSIONS / "correct" / "prints-and-main.py", "--json", "--no-full-scale")
    json.loads(proc.stdout)


@pytest.mark.parametrize("args,kind", [(["--bogus"], "usage"), ([], "missing-file")])
def test_usage_errors_exit_2_with_a_json_error_document(tmp_path, args, kind):
    proc = grader("grade", tmp_path / "nobody.py", "--json", *args)
    assert proc.returncode == 2
    document = json.loads(proc.stdout)
    assert document["status"] == "error" and document["error"]["kind"] == kind
    assert "Traceback" not in proc.stderr


def test_unknown_exercise_is_a_usage_error():
    proc = grader("grade", SUBMISSIONS / "correct" / "matmul.py", "--exercise", "nope", "--json")
    assert proc.returncode == 2
    assert "Unknown exercise 'nope'" in json.loads(proc.stdout)["error"]["message"]


def test_out_writes_result_and_reports(tmp_path):
    proc = grader("grade", SUBMISSIONS / "buggy" / "missing-bias.py", "--out", tmp_path, "--no-full-scale")
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "students" / "missing-bias"
    result = json.loads((folder / "result.json").read_text())
    assert result["student"] == "missing-bias"
    assert (folder / "report.html").is_file() and (folder / "report.md").is_file()


def test_html_report_is_self_contained_and_shows_what_a_student_needs(session):
    from grader import report
    from grader.grade import grade_file

    result = grade_file(SUBMISSIONS / "buggy" / "missing-bias.py", session)
    html = report.render_html(result)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "<style>" in html and 'name="viewport"' in html and "@media print" in html
    assert f"{result.score:g} / {result.max_score:g}" in html
    for item in result.checks:
        assert escape(item.title) in html
    assert "missing-bias" in html and "largest error" in html
    reference = (ROOT / "solutions" / "vgg_classifier.py").read_text().splitlines()
    assert not any(line.strip() in html for line in reference if "@" in line)


def test_markdown_report_lists_checks_and_warnings(tmp_path, session):
    from conftest import notebook
    from grader import report
    from grader.grade import grade_file

    path = tmp_path / "nb.ipynb"
    code = (SUBMISSIONS / "correct" / "matmul.py").read_text()
    path.write_text(json.dumps(notebook(code, "1 / 0")))
    markdown = report.render_markdown(grade_file(path, session))
    assert "## Checks" in markdown and "ZeroDivisionError" in markdown and "## Warnings" in markdown


def test_error_report_explains_the_error(session):
    from grader import report
    from grader.grade import grade_file

    result = grade_file(SUBMISSIONS / "notebooks" / "syntax-error.ipynb", session)
    html = report.render_html(result)
    assert "could not be graded" in html and "SyntaxError" in html


def test_result_round_trips_through_json(session):
    from grader.grade import grade_file
    from grader.results import GradeResult

    result = grade_file(SUBMISSIONS / "buggy" / "relu-after-fc3.py", session)
    assert GradeResult.from_json(result.to_json()) == result


def test_a_folder_without_submissions_is_a_usage_error(tmp_path):
    (tmp_path / "notes.txt").write_text("no code here")
    proc = grader("grade", tmp_path, "--json")
    assert proc.returncode == 2
    assert "No .py or .ipynb submission" in json.loads(proc.stdout)["error"]["message"]


def test_an_unwritable_output_folder_is_a_usage_error_without_traceback(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    proc = grader("grade", SUBMISSIONS / "correct" / "matmul.py", "--out", blocker, "--json", "--no-full-scale")
    assert proc.returncode == 2
    assert "Cannot write the reports" in json.loads(proc.stdout)["error"]["message"]
    assert "Traceback" not in proc.stderr
