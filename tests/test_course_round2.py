"""A course's workflows end to end, second round: class folders as Canvas and Moodle export them, imported back,
and the commands of the README run as a course runs them (CI, Gradescope, shards, regrades)."""
from __future__ import annotations

import datetime
import shutil


from test_batch import make_class
from conftest import run_cli as run, csv_rows as _rows

BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2", "-q"]


# -- one LMS user, one row of the grade file ---------------------------------------------------------------------
def test_a_canvas_submission_of_two_files_gives_one_row_not_two_that_fight(tmp_path, capsys, monkeypatch):
    """Canvas's download names every file of a submission after its user: a notebook and its .py are two entries
    of the class folder but one Canvas ID. Two rows with one ID made the import keep whichever came last."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {
        "doejane_12345_111_vgg_classifier.ipynb": "notebooks/correct-jupyter.ipynb",
        "doejane_12345_112_vgg_classifier.py": "buggy/missing-bias.py",
        "roebob_LATE_222_113_vgg_classifier.py": "correct/matmul.py"})
    out = tmp_path / "out"
    code, _, err = run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "canvas")
    assert code == 0
    rows = _rows((out / "canvas.csv").read_text())[2:]
    assert sorted(row[1] for row in rows) == ["12345", "222"]
    jane = next(row for row in rows if row[1] == "12345")
    assert jane[5] == "0"  # as two files in one student's folder: nothing merged silently
    assert next(row for row in rows if row[1] == "222")[5] != "0"
    assert "Canvas user 12345" in err and "doejane_12345_111_vgg_classifier" in err
    code, _, err = run(capsys, "export", out, "--format", "canvas", "--to", tmp_path / "again.csv")
    assert code == 0 and "Canvas user 12345" in err
    assert (tmp_path / "again.csv").read_text() == (out / "canvas.csv").read_text()


def test_a_moodle_participant_with_an_empty_online_text_folder_keeps_the_grade_of_their_file(tmp_path, capsys,
                                                                                              monkeypatch):
    """Moodle's download in folders gives a participant a folder per submission plugin; the online text one holds
    no code, so its 0 row (written after the file's row) replaced the participant's grade on upload."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {
        "Bob Smith_4323_assignsubmission_file_/vgg_classifier.py": "correct/matmul.py",
        "Ann Lee_4324_assignsubmission_file_/vgg_classifier.py": "buggy/missing-bias.py"})
    text = folder / "Bob Smith_4323_assignsubmission_onlinetext_"
    text.mkdir()
    (text / "onlinetext.html").write_text("<p>my code is in the file</p>")
    out = tmp_path / "out"
    code, _, err = run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "moodle")
    assert code == 0 and "Moodle participant" not in err
    rows = _rows((out / "moodle.csv").read_text())[1:]
    assert [row[0] for row in rows] == ["Participant 4324", "Participant 4323"]
    bob = rows[1]
    assert bob[2] == bob[3] and "not graded" not in bob[4]


# -- grader diff -------------------------------------------------------------------------------------------------
def test_diff_names_a_student_removed_from_the_class_since_the_last_run(tmp_path, capsys, monkeypatch):
    """A grade run keeps a removed student's folder (it deletes no one's reports); diff read every folder, so the
    student looked unchanged and a regrade that dropped them exited 0."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"})
    out = tmp_path / "out"
    assert run(capsys, "grade", folder, *BASE, "--out", out)[0] == 0
    before = tmp_path / "before"
    shutil.copytree(out, before)
    (folder / "ben.py").unlink()
    assert run(capsys, "grade", folder, *BASE, "--out", out)[0] == 0
    assert (out / "students" / "ben").is_dir()  # kept, as documented
    code, text, _ = run(capsys, "diff", before, out)
    assert code == 1 and "ben: " in text and "only in the old results" in text and "ana" not in text


def test_diff_says_a_mistyped_folder_does_not_exist(tmp_path, capsys):
    (tmp_path / "out" / "students").mkdir(parents=True)
    code, _, err = run(capsys, "diff", tmp_path / "out", tmp_path / "ou")
    assert code == 2 and "does not exist" in err


def test_the_moodle_worksheet_has_the_column_its_upload_requires(tmp_path, capsys, monkeypatch):
    """Moodle's "Upload grading worksheet" refuses a file without 'Last modified (grade)' (its importer's init()
    needs it, with Identifier and Grade), and skips rows whose grade changed in Moodle after that time."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {"Jane Doe_4321_assignsubmission_file_/hw.py": "correct/matmul.py"})
    out = tmp_path / "out"
    assert run(capsys, "grade", folder, *BASE, "--out", out, "--gradebook-format", "moodle")[0] == 0
    header, row = _rows((out / "moodle.csv").read_text())
    assert {"Identifier", "Grade", "Last modified (grade)"} <= set(header)
    stamp = row[header.index("Last modified (grade)")]
    written = (out / "students").glob("*/result.json").__next__().stat().st_mtime
    parsed = datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M UTC").replace(tzinfo=datetime.timezone.utc)
    assert abs(parsed.timestamp() - written) < 61  # Moodle compares to the minute (with 60 s to spare)
    code, _, _ = run(capsys, "export", out, "--format", "moodle", "--to", tmp_path / "again.csv")
    assert code == 0 and (tmp_path / "again.csv").read_text() == (out / "moodle.csv").read_text()
