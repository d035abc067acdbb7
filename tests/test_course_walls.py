"""Walls a course's users hit when they walk the README's workflows as written: a student exporting the notebook,
an instructor grading into a folder of their choosing, sharding across machines, exporting for an LMS, a full
disk, and a Gradescope student who uploads the notebook with its export. Each test is what that user does, and
what they should read."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbconvert import ScriptExporter

from conftest import ROOT
from grader import cli, exercise as exercise_mod, gradescope
from test_batch import make_class

SECRET = "course-walls-secret"
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "1", "-q", "--similarity", "off"]
TWO = {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"}


@pytest.fixture(autouse=True)
def _secret(monkeypatch):
    monkeypatch.setenv("GRADER_SECRET", SECRET)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# -- a student ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["vgg_classifier.ipynb", "fc-layers.ipynb"])
def test_exporting_the_student_notebook_as_a_script_gives_a_py_file(name):
    """`jupyter nbconvert --to script` on the notebook as shipped (never run, so no kernel filled its metadata)
    must give the .py the README says to submit, not a .txt the grader refuses."""
    notebook = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    nbformat.validate(notebook)
    body, resources = ScriptExporter().from_notebook_node(notebook)
    assert resources["output_extension"] == ".py"
    assert "def " in body


def test_check_says_a_mistyped_file_does_not_exist_before_asking_for_the_exercise(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", "vgg_clasifier.ipynb")
    assert code == 2
    assert "vgg_clasifier.ipynb does not exist" in err and "--exercise" not in err


# -- an instructor -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("inside", ["reports", "", "sub/../reports"])
def test_an_output_folder_inside_the_class_folder_is_refused_before_anything_is_written(capsys, tmp_path, inside):
    folder = make_class(tmp_path / "class", TWO)
    before = sorted(p.name for p in folder.iterdir())
    out = folder / inside if inside else folder
    code, _, err = run(capsys, "grade", str(folder), "--out", str(out), *BASE)
    assert code == 2
    assert "the next run would grade the reports as a student" in err and "outside it" in err
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing created in the class folder


def test_an_output_folder_beside_the_class_folder_is_fine(capsys, tmp_path):
    folder = make_class(tmp_path / "class", TWO)
    code, _, _ = run(capsys, "grade", str(folder), "--out", str(tmp_path / "class-reports"), *BASE)
    assert code == 0 and (tmp_path / "class-reports" / "gradebook.csv").is_file()


def test_class_files_that_cannot_be_written_are_never_said_to_be_written(capsys, tmp_path):
    """A full disk or a folder in the way: the grader names each lost class file once, says what to do, and does
    not point at a summary that is not there."""
    folder = make_class(tmp_path / "class", TWO)
    out = tmp_path / "out"
    (out / "summary.html").mkdir(parents=True)  # in the way of the summary, as a full disk would be
    (out / "junit.xml").mkdir()
    code = cli.main(["grade", str(folder), "--out", str(out), *BASE[:-3]])
    _, err = capsys.readouterr()
    assert code == 3
    assert "the other class files were written" not in err
    lost = [line for line in err.splitlines() if "could not be written" in line]
    assert any(line.startswith("grader: summary.html could not be written") for line in lost)
    assert any(line.startswith("grader: junit.xml could not be written") for line in lost)
    assert "grader: error: 2 class files could not be written" in err and "run the same command again" in err
    assert "Class summary:" not in err
    assert (out / "gradebook.csv").is_file()  # the others still were


def test_merge_and_export_say_a_mistyped_folder_does_not_exist(capsys, tmp_path):
    folder = make_class(tmp_path / "class", TWO)
    assert cli.main(["grade", str(folder), "--out", str(tmp_path / "s1"), "--shard", "1/2", *BASE]) == 0
    capsys.readouterr()
    for argv in (["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m")],
                 ["export", str(tmp_path / "s2"), "--format", "canvas"]):
        code, _, err = run(capsys, *argv)
        assert code == 2
        assert f"{tmp_path / 's2'} does not exist" in err and "interrupted" not in err


def test_shards_given_the_class_by_other_paths_are_refused_with_what_to_change(capsys, tmp_path, monkeypatch):
    """Two machines, two working folders: one gave the class folder relative, the other absolute. The paths go
    into the gradebook, so merge refuses, and the sentence must say it is the path, not another class."""
    folder = make_class(tmp_path / "class", TWO)
    (tmp_path / "m1").mkdir()
    monkeypatch.chdir(tmp_path / "m1")
    for i in (1, 2):
        path = "../class" if i == 1 else str(folder)
        assert cli.main(["grade", path, "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/2", *BASE]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m"))
    assert code == 2
    assert "same students" in err and "same path on every machine" in err and "../class/ana.py" in err


def test_shards_given_the_class_by_the_same_relative_path_from_two_working_folders_merge(capsys, tmp_path,
                                                                                         monkeypatch):
    for i in (1, 2):
        make_class(tmp_path / f"m{i}" / "class", TWO)  # each machine's own copy of the class
        monkeypatch.chdir(tmp_path / f"m{i}")
        assert cli.main(["grade", "class", "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/2", *BASE]) == 0
    assert cli.main(["grade", "class", "--out", str(tmp_path / "one"), *BASE]) == 0
    capsys.readouterr()
    code, _, _ = run(capsys, "merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "m"))
    assert code == 0
    assert (tmp_path / "m" / "gradebook.csv").read_text() == (tmp_path / "one" / "gradebook.csv").read_text()


def test_export_to_dash_prints_the_grade_file_and_writes_no_file_named_dash(capsys, tmp_path, monkeypatch):
    folder = make_class(tmp_path / "class", TWO)
    assert cli.main(["grade", str(folder), "--out", str(tmp_path / "out"), *BASE]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "export", str(tmp_path / "out"), "--format", "canvas", "--to", "-")
    assert code == 0 and not (tmp_path / "-").exists()
    rows = out.splitlines()
    assert rows[0].startswith("Student,ID,SIS User ID,SIS Login ID,Section,") and rows[1].startswith("Points Possible")
    assert {row.split(",")[3] for row in rows[2:]} == {"ana", "ben"}
    assert "wrote: standard output (2 students)" in err


# -- Gradescope ----------------------------------------------------------------------------------------------------
def test_a_gradescope_notebook_uploaded_with_its_export_is_told_to_submit_one_not_to_rename_it(tmp_path):
    exercise = exercise_mod.load("vgg_classifier")
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copyfile(ROOT / "notebooks" / "vgg_classifier.ipynb", folder / "vgg_classifier.ipynb")
    (folder / "vgg_classifier.py").write_text("def vgg_classifier(*args):\n    pass\n")
    path, why = gradescope.find_submission(folder, exercise)
    assert path is None
    assert "vgg_classifier.ipynb" in why and "vgg_classifier.py" in why
    assert "Submit only one of them" in why and "name the one to grade" not in why


def test_the_grade_help_says_how_the_exercise_is_chosen_when_there_are_several(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["grade", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the only exercise, if there is one" not in text
    assert "the one the submissions define the function of" in text


# -- paths that cannot take what is written ----------------------------------------------------------------------
def test_an_output_path_that_is_a_file_is_said_to_be_one(capsys, tmp_path):
    folder = make_class(tmp_path / "class", TWO)
    (tmp_path / "notes.txt").write_text("mine\n")
    code, _, err = run(capsys, "grade", str(folder), "--out", str(tmp_path / "notes.txt"), *BASE)
    assert code == 2 and "is a file, not a folder" in err
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_export_into_a_folder_that_does_not_exist_makes_no_folders(capsys, tmp_path):
    folder = make_class(tmp_path / "class", TWO)
    assert cli.main(["grade", str(folder), "--out", str(tmp_path / "out"), *BASE]) == 0
    capsys.readouterr()
    target = tmp_path / "typo" / "canvas.csv"
    code, _, err = run(capsys, "export", str(tmp_path / "out"), "--format", "canvas", "--to", str(target))
    assert code == 2 and f"the folder {tmp_path / 'typo'} does not exist" in err
    assert not (tmp_path / "typo").exists()


def test_a_gradescope_bundle_that_cannot_be_written_is_a_usage_error_not_an_internal_one(capsys, tmp_path):
    (tmp_path / "afile").write_text("")
    code, _, err = run(capsys, "gradescope", "--exercise", "vgg_classifier", "--out", str(tmp_path / "afile" / "d"))
    assert code == 2
    assert f"Cannot write {tmp_path / 'afile' / 'd' / 'autograder.zip'}: Not a directory." in err
    assert "internal error" not in err


def test_a_gradescope_bundle_cut_short_by_a_full_disk_leaves_no_partial_copy(capsys, tmp_path, monkeypatch):
    """Half a zip under a hidden name would still hold solutions: a full disk leaves nothing."""
    def full(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gradescope.os, "replace", full)
    code, _, err = run(capsys, "gradescope", "--exercise", "vgg_classifier", "--out", str(tmp_path / "dist"))
    assert code == 2 and "No space left on device." in err
    assert list((tmp_path / "dist").iterdir()) == []
