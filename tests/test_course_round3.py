"""A course's workflows end to end, third round: what a student sees of the instructor's machine, the grade files
of Canvas's anonymous grading and of Blackboard, and the edges of a class folder (links, odd ids, CI thresholds)."""
from __future__ import annotations

import json
from pathlib import Path


from test_batch import make_class
from conftest import run_cli as run, csv_rows as _rows

BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q"]


def _student_files(out: Path) -> dict[str, str]:
    """Every file a student is handed (their report, their Gradescope results) and the LMS grade files."""
    files = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
             for p in (out / "students").rglob("*") if p.name in ("report.md", "report.html", "gradescope.json")}
    files.update({p.name: p.read_text(encoding="utf-8") for p in out.glob("*.csv") if p.name != "gradebook.csv"})
    return files


# -- what a student sees of the instructor's machine ----------------------------------------------------------
def test_duplicate_and_empty_folders_name_files_relative_to_the_class_folder(tmp_path, capsys, monkeypatch):
    """The duplicate-student and no-submission messages named each file by the instructor's absolute path, and
    they reach the student: their report, Gradescope's output and the LMS's feedback comment."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "secret-home" / "class", {
        "alice/a.py": "correct/matmul.py", "alice/sub/b.py": "buggy/missing-bias.py",
        "dan.py": "correct/matmul.py"})
    (folder / "bob").mkdir()
    out = tmp_path / "out"
    code, stdout, _ = run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "moodle")
    assert code == 0
    alice = json.loads((out / "students" / "alice" / "result.json").read_text())["error"]["message"]
    bob = json.loads((out / "students" / "bob" / "result.json").read_text())["error"]["message"]
    assert "a.py" in alice and "sub/b.py" in alice and str(tmp_path) not in alice
    assert bob.startswith("The folder 'bob' holds no") and str(tmp_path) not in bob
    for name, text in _student_files(out).items():
        assert "secret-home" not in text, name


# -- Canvas's anonymous grading -----------------------------------------------------------------------------------
def test_canvas_anonymous_download_names_are_one_user_each_and_never_a_user_id(tmp_path, capsys, monkeypatch):
    """Canvas names an anonymously graded assignment's files ``[LATE_]anon_<anonymous id>_<file id>_<name>``.
    An all-digit anonymous id was read as a Canvas user id (a grade imported onto whoever has that id), and the
    two files of one anonymous submission were two rows that fought on import."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {
        "anon_48213_9001_vgg_classifier.py": "correct/matmul.py",
        "anon_x4Fk9_9002_vgg_classifier.ipynb": "notebooks/correct-jupyter.ipynb",
        "anon_x4Fk9_9003_vgg_classifier.py": "buggy/missing-bias.py",
        "LATE_anon_Qz7aa_9004_vgg_classifier.py": "buggy/missing-bias.py"})
    out = tmp_path / "out"
    code, _, err = run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "canvas")
    assert code == 0
    rows = _rows((out / "canvas.csv").read_text())[2:]
    assert sorted(row[0] for row in rows) == ["anonymous student 48213", "anonymous student Qz7aa",
                                              "anonymous student x4Fk9"]
    assert all(row[1] == "" and row[3] == "" for row in rows)  # no ID, no login: nobody's grade is overwritten
    by = {row[0]: row[5] for row in rows}
    assert by["anonymous student x4Fk9"] == "0" and by["anonymous student 48213"] != "0"
    assert "anonymously graded Canvas assignment" in err and "SpeedGrader" in err


# -- CI on a student's repository -----------------------------------------------------------------------------------
def test_ci_grades_a_students_repository_folder_wherever_the_notebook_sits(tmp_path, capsys, monkeypatch):
    """The README's CI job named ``vgg_classifier.ipynb`` at the repository's root: a notebook in a sub-folder,
    or with a space in its name, failed the job with 'does not exist' and no report. ``grade . --student ID`` now
    takes the whole folder as that student's: found at any depth, the grader's own hidden checkout left out."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    repo = make_class(tmp_path / "repo", {"week 3/my vgg.ipynb": "notebooks/correct-jupyter.ipynb",
                                          ".grader/exercises/solution.py": "correct/matmul.py"})
    out = tmp_path / "feedback"
    code, _, err = run(capsys, "grade", repo, *BASE, "--student", "octo-cat", "--out", out, "--fail-under", "17")
    assert code == 0, err
    result = json.loads((out / "students" / "octo-cat" / "result.json").read_text())
    assert result["student"] == "octo-cat" and result["score"] == 17 and result["submission"].endswith("my vgg.ipynb")
    make_class(repo, {"draft.py": "buggy/missing-bias.py"})  # two submissions: which one is meant is unclear
    code, _, err = run(capsys, "grade", repo, *BASE, "--student", "octo-cat", "--out", out, "--fail-under", "17")
    assert code == 2 and "draft.py, week 3/my vgg.ipynb" in err and "Keep one" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, _ = run(capsys, "grade", empty, *BASE, "--student", "octo-cat", "--out", tmp_path / "fb2")
    assert json.loads((tmp_path / "fb2" / "students" / "octo-cat" / "result.json").read_text())["error"]["kind"] \
        == "no-submission"


# -- hard links ------------------------------------------------------------------------------------------------------
def test_a_hard_linked_class_folder_grades_as_its_copy(tmp_path, capsys, monkeypatch):
    """Hard links are followed (README: a cp -al snapshot of a class folder grades as a copy would): refusing them
    would fail every student of a snapshot. Each name of the linked file is its own student, graded alike."""
    import os

    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py"})
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    os.link(folder / "ana.py", snapshot / "ana.py")
    for name, where in (("copy", folder), ("snap", snapshot)):
        code, _, err = run(capsys, "grade", where, *BASE, "--out", tmp_path / name)
        assert code == 0, err
    scores = [json.loads((tmp_path / n / "students" / "ana" / "result.json").read_text())["score"]
              for n in ("copy", "snap")]
    assert scores == [17, 17]
