"""What a real course needs around the engine: --student, --assignment, a course secret or a warning, --jobs and
--fail-under that say what is wrong, progress printed once without a terminal, a summary scaled to the class and
readable on a phone, one sentence for an ungradable submission, and the grade files Canvas and Moodle import."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SUBMISSIONS, run_cli as run, csv_rows as _rows
from grader import cli, gradebook, lms, signing
from grader.grade import student_seed
from grader.results import CheckResult, Diagnosis, ErrorInfo, GradeResult

from test_batch import make_class

BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]
CORRECT = SUBMISSIONS / "correct" / "matmul.py"


# -- --student --------------------------------------------------------------------------------------------------
def test_student_sets_the_id_everywhere(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", "course")
    mine = tmp_path / "vgg_classifier.ipynb"
    shutil.copy(SUBMISSIONS / "notebooks" / "correct-jupyter.ipynb", mine)
    step = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    code, out, _ = run(capsys, "grade", mine, *BASE, "--student", "octocat", "--out", tmp_path / "feedback",
                       "--json")
    assert code == 0
    result = json.loads(out)
    assert result["student"] == "octocat"
    folder = tmp_path / "feedback" / "students" / "octocat"
    assert json.loads((folder / "result.json").read_text())["student"] == "octocat"
    assert "feedback for `octocat`" in (folder / "report.md").read_text()
    assert "feedback for `octocat`" in step.read_text() and "vgg_classifier`" not in step.read_text()
    assert "octocat" in (tmp_path / "feedback" / "gradebook.csv").read_text()


def test_student_seeds_the_hidden_cases(monkeypatch, exercise):
    """Two students with the same file name get different hidden cases: the seed follows --student."""
    seen = []
    from grader import grade as grade_mod

    real = grade_mod.student_seed

    def spy(secret, exercise_id, student):
        seen.append(student)
        return real(secret, exercise_id, student)

    monkeypatch.setattr(grade_mod, "student_seed", spy)
    for student in ("alice", "bob"):
        assert cli.main(["grade", str(CORRECT), *BASE, "-q", "--student", student]) == 0
    assert "alice" in seen and "bob" in seen and "matmul" not in seen
    assert student_seed("s", "vgg_classifier", "alice") != student_seed("s", "vgg_classifier", "bob")


def test_student_needs_exactly_one_file(tmp_path, capsys):
    folder = make_class(tmp_path / "class", {"a.py": "correct/matmul.py", "b.py": "correct/matmul.py"})
    code, _, err = run(capsys, "grade", folder, *BASE, "--student", "x")
    assert code == 2 and "--student names the student of one submission" in err
    code, _, err = run(capsys, "grade", CORRECT, *BASE, "--student", "  ")
    assert code == 2 and "non-empty" in err


# -- --assignment -----------------------------------------------------------------------------------------------
def _course(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    for student, assignment, source in (("alice", "hw1", "correct/matmul.py"), ("alice", "hw2", "buggy/missing-bias.py"),
                                        ("bob", "hw1", "correct/matmul.py"), ("carl", "hw2", "correct/matmul.py")):
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True)
        shutil.copy(SUBMISSIONS / source, folder / "vgg_classifier.py")
    (course / "gradebook.db").write_bytes(b"")
    return course


def test_several_assignments_need_assignment(tmp_path, capsys):
    course = _course(tmp_path)
    code, _, err = run(capsys, "grade", course, *BASE, "-q")
    assert code == 2 and "holds 2 assignments (hw1, hw2)" in err and "--assignment NAME" in err


def test_assignment_picks_one_folder_per_student(tmp_path, capsys):
    course = _course(tmp_path)
    code, out, err = run(capsys, "grade", course, *BASE, "--assignment", "hw2", "--json", "--out", tmp_path / "o")
    assert code == 0, err
    results = {r["student"]: r for r in json.loads(out)}
    assert sorted(results) == ["alice", "bob", "carl"]
    assert results["alice"]["submission"].endswith("alice/hw2/vgg_classifier.py")
    assert "missing-bias" in [d["id"] for d in results["alice"]["diagnoses"]]
    assert results["carl"]["status"] == "graded" and results["carl"]["score"] == results["carl"]["max_score"]
    assert results["bob"]["error"]["kind"] == "no-submission" and "no hw2/ folder" in results["bob"]["error"]["message"]
    assert "not the assignment graded (--assignment hw2)" in err
    code, _, err = run(capsys, "grade", course / "submitted" / "alice", *BASE, "--assignment", "hw1")
    assert code == 2 and "not an nbgrader course folder" in err


# -- the course secret ------------------------------------------------------------------------------------------
def test_no_secret_is_warned_on_stderr_and_in_the_summary(tmp_path, capsys, monkeypatch):
    folder = make_class(tmp_path / "class", {"a.py": "correct/matmul.py", "b.py": "buggy/missing-bias.py"})
    monkeypatch.delenv("GRADER_SECRET", raising=False)
    code, _, err = run(capsys, "grade", folder, *BASE, "-q", "--out", tmp_path / "o")
    assert code == 0 and "No course secret is set" in err and "GRADER_SECRET" in err
    assert "No course secret is set" in (tmp_path / "o" / "summary.html").read_text()
    monkeypatch.setenv("GRADER_SECRET", "course")
    code, _, err = run(capsys, "grade", folder, *BASE, "-q", "--out", tmp_path / "o2")
    assert code == 0 and "No course secret" not in err
    assert "No course secret" not in (tmp_path / "o2" / "summary.html").read_text()


# -- --jobs, --fail-under, --version ----------------------------------------------------------------------------
@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_jobs_must_be_positive(capsys, jobs):
    code, _, err = run(capsys, "grade", CORRECT, "--exercise", "vgg_classifier", "--no-full-scale", "--jobs", jobs)
    assert code == 2 and "--jobs takes a number of parallel workers, 1 or more" in err


def test_fail_under_names_who_is_below_and_refuses_the_impossible(tmp_path, capsys):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py",
                                             "dee.ipynb": "notebooks/not-json.ipynb"})
    code, _, err = run(capsys, "grade", folder, *BASE, "-q", "--fail-under", "17")
    assert code == 1
    assert "2 of 3 below --fail-under 17" in err and "ben (" in err and "dee (not graded: not-json)" in err
    assert "ana" not in err.split("below --fail-under", 1)[1]
    code, _, err = run(capsys, "grade", folder, *BASE, "-q", "--fail-under", "150")
    assert code == 2 and "above the most a submission can score here (17 points" in err


@pytest.mark.parametrize("flag", [["--shard", "1/2"], ["--gradebook-format", "canvas"]])
def test_output_flags_need_out(capsys, flag):
    code, _, err = run(capsys, "grade", CORRECT, *BASE, *flag)
    assert code == 2 and f"{flag[0]} writes into an output folder: give --out OUT too." in err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and re.fullmatch(r"grader \d+\.\d+\.\d+\S*\n", out)


# -- progress ---------------------------------------------------------------------------------------------------
def test_without_a_terminal_each_student_is_printed_once(tmp_path):
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py",
                                             "cam.py": "buggy/flatten-order.py"})
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), *BASE], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    both = proc.stdout + proc.stderr
    for student in ("ana", "ben", "cam"):
        assert len(re.findall(rf"\b{student}\b", both)) == 1, both
    assert "graded 3 of 3" in proc.stderr


# -- the summary ------------------------------------------------------------------------------------------------
def _result(student: str, mistakes: tuple[str, ...] = ()) -> GradeResult:
    return GradeResult("vgg_classifier", f"{student}.py", student, "graded", 1.0, 2.0,
                       checks=(CheckResult("values", "Values", "failed" if mistakes else "passed", 1, 2, ""),),
                       diagnoses=tuple(Diagnosis(m, m.title(), "") for m in mistakes))


def test_mistake_bars_are_shares_of_the_class_and_fit_a_phone():
    results = [_result("a", ("missing-bias",))] + [_result(s) for s in "bcde"]
    html = gradebook.render_summary(results, "vgg_classifier")
    mistakes = html.split("Mistakes, most frequent first", 1)[1].split("Look at these first", 1)[0]
    assert re.search(r'class="track mistake"[^>]*aria-label="1 of 5 students"><span style="width: 20(\.0)?%"',
                     mistakes), mistakes
    assert "1 of 5" in mistakes
    assert "@media (max-width: 40rem)" in html and "grid-column: 1 / -1" in html and "overflow-x: auto" in html


def test_an_ungradable_submission_says_why_once():
    from grader import report

    checks = tuple(CheckResult(c, c.title(), "error", 0, 1, "Not graded: the submission could not be run.")
                   for c in ("completes", "returns", "type"))
    result = GradeResult("vgg_classifier", "x.ipynb", "x", "error", 0.0, 3.0,
                         error=ErrorInfo("not-json", "x.ipynb is not valid JSON. Open the file in Jupyter"),
                         checks=checks)
    for text in (report.render_markdown(result), report.render_html(result)):
        assert text.count("is not valid JSON") == 1 and "Not graded: the submission" not in text
    junit = gradebook.render_junit([result], "vgg_classifier")
    assert junit.count("is not valid JSON") == 2  # the 'grade' testcase's message attribute and its text
    assert junit.count("<skipped") == 3 and 'errors="1"' in junit


# -- the LMS grade files ----------------------------------------------------------------------------------------
def test_canvas_file():
    results = [_result("doejane_12345_67890_vgg_classifier", ("missing-bias",)),
               _result("roe_LATE_222_333_vgg"), _result("=cmd|' /C calc'!A0")]
    broken = GradeResult("vgg_classifier", "z.py", "zed", "error", 0.0, 2.0, error=ErrorInfo("not-json", "bad"))
    rows = _rows(lms.render("canvas", [*results, broken], "HW 3 (4567)", pending=["late-one"]))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "HW 3 (4567)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "2"]
    by = {r[0]: r for r in rows[2:]}
    assert by["doejane"][1] == "12345" and by["doejane"][5] == "1"
    assert by["roe"][1] == "222"
    assert by["zed"][3] == "zed" and by["zed"][5] == "0"
    assert by["late-one"][5] == ""  # not graded yet: left unchanged by the import
    assert "'=cmd|' /C calc'!A0" in by  # no formula


def test_moodle_file():
    results = [_result("Jane Doe_4321_assignsubmission_file_", ("missing-bias",)), _result("jdoe")]
    rows = _rows(lms.render("moodle", results, "VGG classifier head"))
    assert rows[0] == ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)",
                       "Feedback comments"]
    by = {r[1]: r for r in rows[1:]}
    assert by["Jane Doe"][0] == "Participant 4321" and by["Jane Doe"][2] == "1" and by["Jane Doe"][3] == "2"
    assert "Missing-Bias" in by["Jane Doe"][5] and by["jdoe"][0] == "jdoe"


def test_grade_and_export_write_the_lms_file_and_export_checks_signatures(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"})
    out = tmp_path / "o"
    code, _, _ = run(capsys, "grade", folder, *BASE, "-q", "--out", out, "--gradebook-format", "moodle")
    assert code == 0
    graded = (out / "moodle.csv").read_text()
    assert [r[0] for r in _rows(graded)[1:]] == ["ana", "ben"]
    code, out_text, _ = run(capsys, "export", out, "--format", "canvas", "--to", tmp_path / "c.csv")
    assert code == 0 and "wrote:" in out_text
    assert _rows((tmp_path / "c.csv").read_text())[0][-1] == "VGG classifier head"
    code, _, _ = run(capsys, "export", out, "--format", "moodle", "--to", tmp_path / "m.csv")
    assert code == 0 and (tmp_path / "m.csv").read_text() == graded
    path = out / "students" / "ben" / "result.json"
    document = json.loads(path.read_text())
    document["score"] = 17.0
    path.write_text(json.dumps(document))
    code, _, err = run(capsys, "export", out, "--format", "canvas")
    assert code == 2 and "does not match its signature" in err
    assert signing.verify(json.loads((out / "students" / "ana" / "result.json").read_text()), "course").ok


def test_the_broken_json_message_says_what_to_do(tmp_path):
    from grader.errors import NotJson

    message = NotJson("x.ipynb is not valid JSON, so it is not a readable notebook (line 1).").full_message()
    assert "Open the file in Jupyter" in message and "submit" in message
    said = NotJson("x.ipynb is empty: it is not a notebook. Save the notebook in Jupyter and submit it again.")
    assert said.full_message().count("submit") == 1


def test_with_several_exercises_grade_finds_the_one_the_submissions_define(tmp_path, capsys):
    base = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", base / "vgg_classifier",
                    ignore=shutil.ignore_patterns("__pycache__", "examples"))
    shutil.copytree(ROOT / "tests" / "fixtures" / "exercises" / "dense_layer", base / "dense_layer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    more = ["--exercises-dir", str(base), "--solutions-dir", str(ROOT / "solutions"), "--no-full-scale", "-q"]
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"})
    code, _, err = run(capsys, "grade", folder, *more)
    assert code == 0 and "grading exercise 'vgg_classifier', the one the submissions define" in err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.py").write_text("def f(x):\n    return x\n")
    code, _, err = run(capsys, "grade", tmp_path / "other", *more)
    assert code == 2 and "Name the exercise with --exercise (one of: dense_layer, vgg_classifier)" in err
    code, _, err = run(capsys, "grade", tmp_path / "nowhere.py", *more)
    assert code == 2 and "does not exist" in err  # a typo is said first, whatever the exercise
