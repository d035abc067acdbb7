"""Output, round four: what reaches a CI log, a terminal or a student from hostile names and failures.

* a line the grader prints never runs as a GitHub Actions or Azure Pipelines workflow command, whatever a student's
  file name, id, output or exception holds (``::warning::x.py``, ``##[error]``, ``##vso[``);
* a misnamed file in a class folder (``alice.ipynb.txt``, a zip, an HTML export) gets its student a row saying what
  to do, instead of being only listed as left out;
* messages that reach a student name files by their name, never by the instructor's absolute path, and a failure
  of the grader's own check or diagnosis code reads as a sentence without the exception's text.
"""
from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

from grader import checks, classfolder, cli, escape, submission
from grader.errors import SubmissionError

SUBMISSIONS = Path(__file__).parent / "submissions"
CORRECT = SUBMISSIONS / "correct" / "matmul.py"
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]
#: a line a runner would execute: GitHub's '::cmd::' after blanks, its legacy '##[cmd]' or Azure's '##vso[' anywhere
RUNS = re.compile(r"^\s*::|##\[|##vso\[", re.IGNORECASE)
HOSTILE_NAMES = ("::warning::x.py", "::add-mask::secret.py", "##[error]boom.py", "  ::stop-commands::tok.py",
                 "##vso[task.setvariable variable=x]1.py", "a\n::error::b.py", "c\r::set-output name=n::1.py")
RAISES = '''
import numpy as np
print("::error::printed by the student")
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    raise ValueError("::add-mask::x\\n::error::y ##[error]z ##vso[task.complete result=Failed]done")
'''


def executed_lines(text: str) -> list[str]:
    """The lines of ``text`` (split as the runners split: LF, CR, CRLF) that a CI runner would execute."""
    return [line for line in re.split(r"\r\n|\r|\n", text) if RUNS.search(line)]


# -- the stream: every line, whoever writes it -------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "::warning::x.py: 17/17\n", "  ::error::a\n", "\t::add-mask::s\n", "\r::stop-commands::t", "ok ##[error]x\n",
    "x ##VSO[task.setvariable variable=a]b\n", "a\n::error::b\r::notice::c\r\n##[group]d",
])
def test_no_line_runs_as_a_workflow_command(text):
    assert executed_lines(text), "the probe itself must be a command"
    assert executed_lines(escape.ci_text(text)) == []


def test_a_command_written_in_pieces_is_neutralised_too():
    """``print`` writes a line in several calls; a tqdm bar returns with CR: the state spans writes."""
    sink = io.StringIO()
    stream = escape.CommandSafeStream(sink)
    for piece in (" ", ":", ":warning::x", "\n", "#", "#", "[error]y", "\n", "##vso", "[z", "\r", "::a::b\n"):
        stream.write(piece)
    assert executed_lines(sink.getvalue()) == []
    assert sink.getvalue().count("\n") == 3  # nothing added or lost but the escapes


def test_json_output_keeps_every_value():
    """Under --json, stdout is JSON: '[' becomes the JSON escape \\u005b, which reads back as '['."""
    doc = {"student": "##[error]boom", "other": "x ##vso[task.complete]", "list": ["::warning::x"]}
    text = escape.ci_text(json.dumps(doc, indent=2))
    assert executed_lines(text) == []
    assert json.loads(text) == doc


def test_ordinary_text_is_unchanged():
    text = "ana: 17/17  [missing-bias]\nClass summary: out/summary.html\nratio 1:2 at 10:30 # [note]\n"
    assert escape.ci_text(text) == text


# -- a class with hostile names, through the command line ---------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("ci")
    folder = root / "class"
    folder.mkdir()
    for name in HOSTILE_NAMES:
        shutil.copyfile(CORRECT, folder / name)
    (folder / "raiser.py").write_text(RAISES)
    (folder / "::error::z.ipynb.txt").write_text("{}")
    (folder / "##[warning]dir").mkdir()
    (folder / "##[warning]dir" / "notes.txt").write_text("x")
    return folder, root / "out"


def run(argv, capsys, monkeypatch, summary: Path | None = None) -> tuple[int, str, str]:
    if summary is not None:
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    else:
        monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_ci_log_and_step_summary_run_no_student_command(hostile_class, capsys, monkeypatch, tmp_path):
    folder, out = hostile_class
    summary = tmp_path / "summary.md"
    code, stdout, stderr = run(["grade", str(folder), *BASE, "--out", str(out)], capsys, monkeypatch, summary)
    assert code == 0
    assert executed_lines(stdout) == [] and executed_lines(stderr) == []
    assert executed_lines(summary.read_text()) == []
    lines = stdout.splitlines()
    assert len(lines) == len(HOSTILE_NAMES) + 3, stdout  # one per student: the raiser, the two misnamed too
    assert any("::warning::x: 17/17" in line for line in lines)  # the id is still there to read
    assert any("rename it to '::error::z.ipynb'" in line for line in lines)


def test_json_on_stdout_is_valid_and_keeps_hostile_ids(hostile_class, capsys, monkeypatch):
    folder, out = hostile_class
    code, stdout, stderr = run(["grade", str(folder), *BASE, "--out", str(out), "--json"], capsys, monkeypatch)
    assert executed_lines(stdout) == [] and executed_lines(stderr) == []
    students = {doc["student"] for doc in json.loads(stdout)}
    assert {"::warning::x", "##[error]boom", "##[warning]dir", "raiser"} <= students


# -- misnamed files -----------------------------------------------------------------------------------------------
def rows(folder: Path) -> dict[str, tuple[str, str] | None]:
    plan = classfolder.discover([folder])
    return {e.student: e.problem for e in plan.entries}


def test_a_misnamed_file_in_plain_layout_gets_a_row_saying_what_to_do(tmp_path):
    shutil.copyfile(CORRECT, tmp_path / "ana.py")
    (tmp_path / "alice.ipynb.txt").write_text("{}")
    (tmp_path / "bob.zip").write_bytes(b"PK")
    (tmp_path / "cam.html").write_text("<html>")
    (tmp_path / "README.md").write_text("# the class")
    found = rows(tmp_path)
    assert set(found) == {"ana", "alice", "bob", "cam"}  # the README is no student
    assert found["alice"][0] == "unsupported-file-type" and "rename it to 'alice.ipynb'" in found["alice"][1]
    assert "unpack it" in found["bob"][1]
    assert "submit the notebook itself" in found["cam"][1]


def test_a_misnamed_copy_beside_the_real_file_is_only_left_out(tmp_path):
    shutil.copyfile(CORRECT, tmp_path / "ana.py")
    (tmp_path / "ana.html").write_text("<html>")
    plan = classfolder.discover([tmp_path])
    assert [(e.student, e.problem) for e in plan.entries] == [("ana", None)]
    assert any(shown.endswith("ana.html") for shown, _ in plan.left_out)


def test_a_students_folder_without_a_submission_names_what_it_holds(tmp_path):
    (tmp_path / "dora").mkdir()
    (tmp_path / "dora" / "hw1.ipynb.txt").write_text("{}")
    (tmp_path / "ed").mkdir()
    (tmp_path / "ed" / "answers.txt").write_text("42")
    found = rows(tmp_path)
    assert found["dora"][0] == "no-submission" and "rename it to 'hw1.ipynb'" in found["dora"][1]
    assert found["ed"][0] == "no-submission" and "only 'answers.txt'" in found["ed"][1]
    assert str(tmp_path) not in found["ed"][1]


def test_grading_one_misnamed_file_says_what_it_is(tmp_path, capsys, monkeypatch):
    """Without --exercise, nothing in the file can name one: the error is about the file, not the option."""
    target = tmp_path / "hw.ipynb.txt"
    target.write_text("{}")
    code, _, stderr = run(["grade", str(target), "--no-full-scale", "--out", str(tmp_path / "out")], capsys,
                          monkeypatch)
    assert code == 2
    assert "rename it to 'hw.ipynb'" in stderr and "Name the exercise" not in stderr


# -- no host path, no raw exception text --------------------------------------------------------------------------
def test_missing_file_and_folder_are_named_without_the_host_path(tmp_path):
    for path in (tmp_path / "gone.py", tmp_path):
        with pytest.raises(SubmissionError) as raised:
            submission.load(path)
        assert str(tmp_path.parent) not in str(raised.value)
        assert path.name in str(raised.value)


def test_a_failing_check_reads_as_one_sentence_without_its_exception_text(grade_source, monkeypatch):
    secret = "/home/instructor/course/solutions/vgg.py " + "x" * 5000

    def broken(*_):
        raise OSError(secret)

    monkeypatch.setitem(checks.PROPERTY_CHECKS, next(iter(checks.PROPERTY_CHECKS)), broken)
    result = grade_source(CORRECT.read_text())
    failed = [c for c in result.checks if c.status == "error"]
    assert failed
    for check in failed:
        assert "/home/instructor" not in check.message and len(check.message) < 300
        assert "OSError" in check.message and "grader's own code" in check.message


def test_a_failing_diagnosis_reads_without_its_exception_text(grade_source, exercise, monkeypatch):
    def broken(*_, **__):
        raise FileNotFoundError("/home/instructor/course/exercises/secret.npz")

    monkeypatch.setattr(exercise.diagnosis_module, "diagnose", broken)
    result = grade_source((SUBMISSIONS / "buggy" / "missing-bias.py").read_text())
    said = [w for w in result.warnings if "diagnosis failed" in w]
    assert said and all("/home/instructor" not in w and "FileNotFoundError" in w for w in said)


def test_moodle_feedback_comments_hold_a_file_name_as_text_not_as_html():
    """Moodle keeps the comment as HTML: a student's file name must not become markup in a classmate's view."""
    from grader import lms
    from grader.results import ErrorInfo, GradeResult

    hostile = "<img src=x onerror=alert(1)>.py"
    result = GradeResult("vgg_classifier", hostile, "ana", "error", 0.0, 2.0,
                         error=ErrorInfo(kind="duplicate-student", message=f"2 files map to student 'ana': {hostile}"))
    text = lms.render("moodle", [result], "VGG & co")
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;.py" in text and "VGG &amp; co" in text
