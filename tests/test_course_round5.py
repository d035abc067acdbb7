"""A course's workflows end to end, fifth round: an instructor who changes a check's points and regrades, a
student's repository with a virtual environment in it, and a class folder holding ``Bob.ipynb`` beside ``bob.py``.
Each test runs the command line in this process on a few files, without the VGG16-scale case."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

from conftest import ROOT, run_cli

EXAMPLES = ROOT / "exercises" / "vgg_classifier" / "examples"


def _class(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, example in files.items():
        shutil.copy(EXAMPLES / example, folder / name)
    return folder


def test_a_regrade_after_new_points_names_the_check_and_lists_unchanged_scores_of_a_new_maximum(
        tmp_path, capsys, monkeypatch):
    """values-single made worth 5 points instead of 3: ben went 17/17 -> 19/19 and dev 8/17 -> 8/19. changes.csv
    and `grader diff` said only "exercise version" for ben, and left dev out (a score of 8 either way), though his
    share fell from 47 % to 42 % and the LMS's points possible moved."""
    monkeypatch.setenv("GRADER_SECRET", "round5")
    exercises = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / "vgg_classifier", exercises / "vgg_classifier",
                    ignore=shutil.ignore_patterns("__pycache__", "examples"))
    cls = _class(tmp_path / "class", {"ben.py": "ben.py", "dev.py": "dev.py"})
    out, before = tmp_path / "out", tmp_path / "before"
    args = ("grade", cls, "--exercise", "vgg_classifier", "--exercises-dir", exercises, "--out", out,
            "--no-full-scale", "--quiet")
    assert run_cli(capsys, *args)[0] == 0
    shutil.copytree(out, before)
    toml = exercises / "vgg_classifier" / "exercise.toml"
    text = toml.read_text(encoding="utf-8")
    single = text.index('id = "values-single"')
    at = text.index("points = 3", single)
    toml.write_text(text[:at] + "points = 5" + text[at + len("points = 3"):], encoding="utf-8")
    assert run_cli(capsys, *args)[0] == 0
    rows = {row["student"]: row for row in csv.DictReader((out / "changes.csv").open(encoding="utf-8"))}
    assert set(rows) == {"ben", "dev"}
    assert (rows["dev"]["old_score"], rows["dev"]["new_score"], rows["dev"]["max_score"]) == ("8", "8", "19")
    assert all("points of values-single changed (3 -> 5)" in row["why"] for row in rows.values())
    code, printed, _ = run_cli(capsys, "diff", before, out)
    assert code == 1
    assert "dev: 8/17 -> 8/19;" in printed and "points of values-single changed (3 -> 5)" in printed


def test_a_virtual_environment_in_a_students_repository_is_left_out(tmp_path, capsys, monkeypatch):
    """`python -m venv venv` in the checkout (or a venv committed with the work): its library .py files made the
    README's CI job stop with exit 2, "--student names the student of one submission, and . holds 2000"."""
    monkeypatch.setenv("GRADER_SECRET", "round5")
    repo = _class(tmp_path / "repo", {"vgg_classifier.py": "ben.py"})
    for env, marker in (("venv", "pyvenv.cfg"), ("conda-env", "conda-meta")):
        library = repo / env / "lib" / "python3.11" / "site-packages" / "pkg"
        library.mkdir(parents=True)
        (library / "module.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
        (library / "module.ipynb").write_text("{}", encoding="utf-8")
        if marker == "conda-meta":
            (repo / env / marker).mkdir()
        else:
            (repo / env / marker).write_text("home = /x\n", encoding="utf-8")
    monkeypatch.chdir(repo)
    code, printed, err = run_cli(capsys, "grade", ".", "--exercise", "vgg_classifier", "--student", "alice",
                                 "--out", tmp_path / "feedback", "--no-full-scale", "--fail-under", "17")
    assert code == 0, err
    assert "alice: 17/17" in printed
    assert "Left out venv: a Python environment" in err and "Left out conda-env: a Python environment" in err


def test_a_student_folder_is_graded_even_when_it_holds_a_pyvenv_cfg(tmp_path, capsys, monkeypatch):
    """Only what lies inside a student's folder can be an environment to leave out: the folder is the student."""
    monkeypatch.setenv("GRADER_SECRET", "round5")
    cls = tmp_path / "class"
    _class(cls, {})
    _class(cls / "ana", {"hw.py": "ben.py"})
    (cls / "ana" / "pyvenv.cfg").write_text("home = /x\n")
    code, printed, _ = run_cli(capsys, "grade", cls, "--exercise", "vgg_classifier", "--out", tmp_path / "out",
                               "--no-full-scale")
    assert code == 0 and "ana: 17/17" in printed


def test_ids_equal_but_for_case_are_explained_and_their_lms_rows_said_to_match_no_login(tmp_path, capsys,
                                                                                       monkeypatch):
    """`Bob.ipynb` and `bob.py`: two students, each shown with a hash (so an LMS that ignores case cannot give one
    the other's grade), with no word of why, and canvas.csv's rows `Bob #cd9fb1e1` matched no Canvas login."""
    monkeypatch.setenv("GRADER_SECRET", "round5")
    cls = _class(tmp_path / "class", {"Bob.ipynb": "ada.ipynb", "bob.py": "dev.py", "carla.py": "ben.py"})
    out = tmp_path / "out"
    code, printed, err = run_cli(capsys, "grade", cls, "--exercise", "vgg_classifier", "--out", out,
                                 "--no-full-scale", "--gradebook-format", "canvas")
    assert code == 0
    assert "carla: 17/17" in printed and "carla #" not in printed
    clash = next(line for line in err.splitlines() if "differ only in letter case" in line)
    assert "'Bob #" in clash and "'bob #" in clash and "keep one file" in clash
    assert "differ only in letter case" in (out / "summary.html").read_text(encoding="utf-8")
    assert "of canvas.csv carry the grader's hash" in err
    code, _, err = run_cli(capsys, "export", out, "--format", "moodle", "--to", tmp_path / "moodle.csv")
    assert code == 0
    warning = next(line for line in err.splitlines() if "grader's hash" in line)
    assert warning.count("#") == 2 and "carla" not in warning and "no Moodle login" in warning


def test_a_regrade_removes_the_lms_file_an_earlier_run_wrote(tmp_path, capsys, monkeypatch):
    """`--gradebook-format canvas`, then a regrade with moodle, then one with none: canvas.csv stayed with the first
    run's scores beside a gradebook holding new ones, where a TA would upload it (helper 125's report). Each later run
    removes the file it did not write and says how to write it again."""
    monkeypatch.setenv("GRADER_SECRET", "round5")
    cls = _class(tmp_path / "class", {"ben.py": "ben.py", "dev.py": "dev.py"})
    out = tmp_path / "out"
    args = ("grade", cls, "--exercise", "vgg_classifier", "--out", out, "--no-full-scale", "--quiet")
    assert run_cli(capsys, *args, "--gradebook-format", "canvas")[0] == 0
    assert (out / "canvas.csv").is_file()
    code, _, err = run_cli(capsys, *args, "--gradebook-format", "moodle")
    assert code == 0 and (out / "moodle.csv").is_file() and not (out / "canvas.csv").exists()
    assert "removed canvas.csv" in err and f"--format canvas" in err
    code, _, err = run_cli(capsys, *args)
    assert code == 0 and not (out / "moodle.csv").exists() and "removed moodle.csv" in err
    assert run_cli(capsys, "export", out, "--format", "canvas")[0] == 0
    assert (out / "canvas.csv").is_file()
