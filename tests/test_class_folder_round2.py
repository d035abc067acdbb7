"""A hostile and broken class folder, second round: what an instructor meets that round one did not cover.

One class is graded once through the command line beside an honest student: a notebook holding a number of
thousands of digits (Python's JSON reader refuses it with a plain ValueError, which became "the grader itself
failed"), .py files saved as UTF-16 with and without a byte-order mark (Python's own words were "invalid or
missing encoding declaration" and "null bytes") and a .py holding a NUL byte (no line was named). Each must get
its own sentence, the honest student full marks, and every class file stays parseable.

The rest needs no grading: nbgrader folders one level short or whose assignment folder is a link, a student folder
the grader may not read (as root nothing is unreadable, so the refusal is simulated), a zip uploaded to
Gradescope, and output folders whose JSON is nested thousands deep (a damaged or hand-made file), which made
``grader merge``, ``grader diff`` and a rerun of ``grader grade`` end in an internal error.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from grader import classfolder, cli, gradescope
from grader.results import GradeResult

from conftest import CORRECT, notebook

ROOT = Path(__file__).resolve().parent.parent
GRADER = [sys.executable, "-m", "grader"]
BASE = ["--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2"]
DEEP = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The broken class graded once through the CLI: (OUT, stdout lines by student)."""
    root = tmp_path_factory.mktemp("round2")
    folder = root / "class"
    folder.mkdir()
    (folder / "honest.py").write_text(CORRECT)
    digits = json.dumps(notebook(CORRECT))[:-1] + ', "x": ' + "9" * 5000 + "}"
    (folder / "digits.ipynb").write_text(digits)
    (folder / "bom16.py").write_bytes(CORRECT.encode("utf-16"))  # Notepad's "Unicode", PowerShell 5's '>'
    (folder / "plain16.py").write_bytes(CORRECT.encode("utf-16-le"))
    (folder / "nul.py").write_text(CORRECT.replace("return", "return\0", 1))
    out = root / "out"
    done = subprocess.run(GRADER + ["grade", str(folder), *BASE, "--out", str(out), "--gradebook-format", "canvas"],
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    lines = dict(line.split(": ", 1) for line in done.stdout.decode().splitlines())
    return out, lines


def results(out: Path) -> dict[str, GradeResult]:
    return {r.student: r for r in (GradeResult.from_json(p.read_text(encoding="utf-8"))
                                   for p in (out / "students").glob("*/result.json"))}


def test_each_broken_file_gets_its_own_sentence_and_the_honest_student_full_marks(graded):
    out, lines = graded
    found = results(out)
    assert found["honest"].passed_all and lines["honest"] == "17/17"
    digits = found["digits"].error
    assert digits.kind == "not-json" and "a number thousands of digits long" in digits.message
    for student in ("bom16", "plain16"):
        error = found[student].error
        assert error.kind == "encoding" and "is saved as UTF-16 text" in error.message, error.message
        assert "null bytes" not in error.message and "encoding declaration" not in error.message
    nul = found["nul"].error
    line = CORRECT[:CORRECT.index("return")].count("\n") + 1
    assert nul.kind == "syntax-error" and f"at line {line}: a null byte" in nul.message, nul.message
    assert not any("grader itself failed" in line or "internal" in line for line in lines.values())


def test_class_files_stay_parseable(graded):
    out, _ = graded
    for name in ("gradebook.csv", "canvas.csv"):
        rows = list(csv.reader((out / name).open(newline="", encoding="utf-8")))
        assert len(rows) >= 6 and all(len(row) == len(rows[0]) for row in rows)
    suites = {s.get("name") for s in ET.parse(out / "junit.xml").getroot().findall("testsuite")}
    assert suites == set(results(out))


def test_nbgrader_folder_one_level_short_or_linked_says_where_the_file_is(tmp_path):
    course = tmp_path / "course"
    for name in ("ana/hw1/hw1.ipynb", "cat/hw1.ipynb"):
        (course / "submitted" / name).parent.mkdir(parents=True, exist_ok=True)
        (course / "submitted" / name).write_text(json.dumps(notebook(CORRECT)))
    (course / "submitted" / "hal").mkdir()
    (course / "submitted" / "hal" / "hw1").symlink_to(ROOT / "solutions", target_is_directory=True)
    plan = classfolder.discover([course])
    problems = {e.student: e.problem for e in plan.entries}
    assert problems["ana"] is None
    assert problems["cat"][0] == "no-submission" and "It holds 'hw1.ipynb' directly" in problems["cat"][1]
    assert "move it into 'cat/hw1/'" in problems["cat"][1]
    assert problems["hal"][0] == "no-submission" and "'hal/hw1' is a symbolic link" in problems["hal"][1]


def test_a_student_folder_the_grader_cannot_read_is_said_to_be_unreadable(tmp_path, monkeypatch):
    """As root every folder is readable: the refusal a TA's 0700 folder gives another uid is simulated."""
    folder = tmp_path / "class"
    (folder / "dave").mkdir(parents=True)
    (folder / "ana.py").write_text(CORRECT)
    real = os.scandir

    def scandir(path="."):
        if Path(path).name == "dave":
            raise PermissionError(13, "Permission denied")
        return real(path)
    monkeypatch.setattr(classfolder.os, "scandir", scandir)
    problem = {e.student: e.problem for e in classfolder.discover([folder]).entries}["dave"]
    assert problem[0] == "no-submission" and "'dave' cannot be read (Permission denied)" in problem[1]
    assert "holds no .py" not in problem[1]


def test_a_zip_uploaded_to_gradescope_is_told_to_be_unpacked(tmp_path, exercise):
    folder = tmp_path / "submission"
    folder.mkdir()
    with zipfile.ZipFile(folder / "work.zip", "w") as archive:
        archive.writestr("vgg_classifier.py", CORRECT)
    path, why = gradescope.find_submission(folder, exercise)
    assert path is None and why.startswith("'work.zip' is an archive: unpack it")


def test_output_folders_nested_thousands_deep_are_refused_with_a_sentence(graded, tmp_path, capsys):
    out, _ = graded
    damaged = tmp_path / "damaged"
    shutil.copytree(out, damaged)
    honest = next(p for p in (damaged / "students").glob("*/result.json") if p.parent.name == "honest")
    honest.write_bytes(DEEP)
    assert cli.main(["diff", str(out), str(damaged)]) == 1  # honest's result is unreadable: only in the old folder
    assert "honest" in capsys.readouterr().out
    (damaged / "manifest.json").write_bytes(DEEP)
    assert cli.main(["merge", str(damaged), "--out", str(tmp_path / "merged")]) == 2
    err = capsys.readouterr().err
    assert "manifest.json cannot be read (its JSON is nested thousands deep" in err and "internal" not in err
    assert cli.main(["diff", str(out), str(damaged)]) in (0, 1)
    assert "internal" not in capsys.readouterr().err


def test_a_rerun_into_an_output_folder_nested_thousands_deep_regrades_instead_of_failing(graded, tmp_path, capsys):
    """A grade key and a manifest nested thousands deep (a damaged or hand-made output folder) made a rerun of
    ``grader grade`` into that folder end in an internal error: the stored result is regraded, the folder used."""
    out, _ = graded
    damaged = tmp_path / "again"
    shutil.copytree(out, damaged)
    (damaged / "manifest.json").write_bytes(DEEP)
    (damaged / "students" / "honest" / ".grade-key.json").write_bytes(DEEP)
    honest = tmp_path / "honest.py"
    honest.write_text(CORRECT)
    code = cli.main(["grade", str(honest), *BASE, "-q", "--out", str(damaged), "--similarity", "off"])
    assert code == 0, capsys.readouterr().err
    assert "internal" not in capsys.readouterr().err
    assert results(damaged)["honest"].score == results(damaged)["honest"].max_score


@pytest.mark.parametrize("out", ["", "/", "//", "/."])
def test_an_empty_or_root_out_is_a_usage_error(tmp_path, capsys, out):
    """``--out "$UNSET"`` became the working folder and ``--out /`` wrote the class files into the root, both with
    exit 0: each is refused before anything is read or written."""
    (tmp_path / "honest.py").write_text(CORRECT)
    assert cli.main(["grade", str(tmp_path / "honest.py"), *BASE, "--out", out]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and ("empty" in err or "root" in err), err
    assert cli.main(["merge", str(tmp_path), "--out", out]) == 2


def test_a_pipe_uploaded_to_gradescope_is_named_in_one_sentence(tmp_path, exercise):
    """Its reason used to end '(a pipe or a device?).).': the reason's own full stop stays out of the brackets."""
    folder = tmp_path / "submission"
    folder.mkdir()
    os.mkfifo(folder / "work.ipynb")
    path, why = gradescope.find_submission(folder, exercise)
    assert path is None and "work.ipynb" in why and "device?)). Submit" in why and ".)" not in why, why
