"""A student's files that cannot be written in the middle of a batch: that student is said to have an error, in the
batch's output and in the class files, while the others are graded and written, and a rerun grades them again.

Two ways a folder fails (as root, permissions do not stop a write, so the obstacle is in the path itself): ben's
folder is taken by a plain file, so nothing of his can be written; cam's ``report.html`` is a folder, so his
reports fail while his ``result.json`` is still written."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_batch import make_class
from test_outputs import summary_sections

GRADER = Path(sys.executable).with_name("grader")
FILES = {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py", "cam.py": "buggy/flatten-order.py"}
ARGS = ("--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "2")


def grade(folder: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(GRADER), "grade", str(folder), *ARGS, "--out", str(out)], capture_output=True,
                          text=True, timeout=300, cwd=out.parent, env=os.environ.copy())


@pytest.fixture(scope="module")
def blocked(tmp_path_factory):
    root = tmp_path_factory.mktemp("write-failure")
    folder, out = make_class(root / "class", FILES), root / "out"
    (out / "students").mkdir(parents=True)
    (out / "students" / "ben").write_text("a file where ben's folder goes\n")
    (out / "students" / "cam" / "report.html").mkdir(parents=True)
    return folder, out, grade(folder, out)


def gradebook(out: Path) -> dict[str, dict]:
    return {row["student"]: row for row in csv.DictReader((out / "gradebook.csv").open(newline=""))}


def test_the_others_are_graded_and_written(blocked):
    _, out, proc = blocked
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr and "please report" not in proc.stderr
    # not a silent exit 0: the command's status and one sentence say that a student has no grade
    assert proc.returncode == 3 and "2 students have no grade (ben, cam)" in proc.stderr, proc.stderr
    ana = gradebook(out)["ana"]
    assert ana["status"] == "graded" and ana["score"] == ana["max_score"]
    assert {p.name for p in (out / "students" / "ana").iterdir()} >= {"result.json", "report.html", "report.md"}
    assert json.loads((out / "students" / "ana" / "result.json").read_text())["status"] == "graded"


def test_the_batch_output_says_whose_files_could_not_be_written_and_where(blocked):
    _, out, proc = blocked
    lines = {line.split(":", 1)[0]: line for line in proc.stdout.splitlines() if ":" in line}
    assert lines["ana"].startswith("ana: ") and "not graded" not in lines["ana"]
    assert "could not be written" in lines["ben"] and "output folder's students/ben " in lines["ben"]
    assert str(out) not in lines["ben"]  # where, relative to --out: the message also reaches the student's files
    assert "reports could not be written" in lines["cam"] and "report.html" in lines["cam"]


def test_the_class_files_show_the_error(blocked):
    _, out, _ = blocked
    rows = gradebook(out)
    assert rows["ben"]["status"] == rows["cam"]["status"] == "error"
    seen = summary_sections((out / "summary.html").read_text())
    not_graded = next(rows for heading, rows in seen.items() if heading.startswith("Not graded"))
    assert [row.split()[0] for row in not_graded] == ["ben", "cam"]
    assert "could not be written" in not_graded[0] and "report.html" in not_graded[1]
    cam = json.loads((out / "students" / "cam" / "result.json").read_text())  # written, saying why it is alone
    assert cam["status"] == "error" and "reports could not be written" in cam["error"]["message"]
    assert not (out / "students" / "cam" / ".grade-key.json").exists()  # so a rerun grades cam again


def test_no_result_says_error_with_a_score(blocked):
    _, out, _ = blocked
    rows = gradebook(out)
    assert [(s, r["score"]) for s, r in rows.items() if r["status"] == "error" and float(r["score"])] == []
    cam = json.loads((out / "students" / "cam" / "result.json").read_text())
    assert cam["score"] == 0 and sum(c["points"] for c in cam["checks"]) == 0
    every = summary_sections((out / "summary.html").read_text())["Every student"]
    assert not [row for row in every if "not graded" in row and not row.split()[1] == "0"]


def test_a_rerun_once_the_folders_are_free_grades_them(blocked, tmp_path):
    folder, out, _ = blocked
    copy = tmp_path / "out"
    subprocess.run(["cp", "-a", str(out), str(copy)], check=True)
    (copy / "students" / "ben").unlink()
    (copy / "students" / "cam" / "report.html").rmdir()
    proc = grade(folder, copy)
    assert proc.returncode == 0, proc.stderr
    rows = gradebook(copy)
    assert {s: r["status"] for s, r in rows.items()} == {"ana": "graded", "ben": "graded", "cam": "graded"}
    for student in ("ben", "cam"):
        assert (copy / "students" / student / "report.html").is_file()
