"""A course's workflows end to end, seventh round: a whole term walked as each actor with real commands (a student's
`grader check` from a wheel in a fresh venv, a student's CI job on a fresh clone, an instructor grading as a user
who is not root, the Gradescope bundle built from an installed grader and run, LMS files read back with the csv
module, shards graded in two working folders). What held is not repeated here; what did not:

- `grader export` without GRADER_SECRET said "no secret is set for this merge" (it is an export);
- `grader diff` given the output folders of two exercises listed every student of each as only in one of them,
  a whole class "regraded", where the two folders could never be compared;
- a bundle built by a pip-installed grader (no checkout) shipped the course file but setup.sh did not install it
  (its minimal pyproject left course.toml out), and called itself grader 0.0.0 where bundle.json said 0.1.0;
- `grader check ivan.ipynb` (a notebook without the course's metadata, its function named vggClassifier) said only
  "Name the exercise with --exercise", where `--exercise` then said "Did you mean": the near miss is said at once.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import run_cli
from grader import gradescope
from grader.version import version

from test_batch import make_class

BASE = ("--exercise", "vgg_classifier", "--no-full-scale", "--jobs", "1", "-q")


def test_export_and_diff_say_what_is_wrong_in_their_own_words(tmp_path, capsys, monkeypatch):
    """One graded class, then the two mistakes of the round: an export run where GRADER_SECRET is not set, and a
    diff of this class's folder against another exercise's."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    folder = make_class(tmp_path / "class", {"ana.py": "correct/matmul.py", "ben.py": "buggy/missing-bias.py"})
    out = tmp_path / "vgg"
    assert run_cli(capsys, "grade", folder, *BASE, "--out", out)[0] == 0
    monkeypatch.delenv("GRADER_SECRET")
    code, _, err = run_cli(capsys, "export", out, "--format", "canvas", "--to", tmp_path / "canvas.csv")
    assert code == 2 and "no secret is set for this export" in err and "merge" not in err
    assert not (tmp_path / "canvas.csv").exists()

    monkeypatch.setenv("GRADER_SECRET", "course")
    other = tmp_path / "linear"
    linear = make_class(tmp_path / "linear-class", {"ana.py": "linear/correct/apply-along-axis.py"})
    assert run_cli(capsys, "grade", linear, "--exercise", "linear", "-q", "--jobs", "1", "--out", other)[0] == 0
    code, out_text, err = run_cli(capsys, "diff", out, other)
    assert code == 2 and not out_text
    assert "holds the results of 'vgg_classifier'" in err and "those of 'linear'" in err
    assert run_cli(capsys, "diff", out, out)[0] == 0  # the same exercise still compares


def test_a_bundle_built_by_an_installed_grader_installs_the_course_file_and_its_version(tmp_path):
    """Without a checkout (a grader installed with pip), the bundle's pyproject.toml is written by the grader:
    what setup.sh installs from it must hold the course file the bundle ships, and the installed version."""
    written = gradescope._pyproject(tmp_path / "no-checkout", Path(gradescope.__file__).parent)
    project = tomllib.loads(written.decode())
    assert project["project"]["version"] == version()
    assert "course.toml" in project["tool"]["setuptools"]["package-data"]["grader.exercises"]


def test_check_of_a_file_whose_function_is_misnamed_says_so_before_asking_for_the_exercise(tmp_path, capsys):
    """A student's export, or a notebook saved without the course's metadata, names no exercise: its functions
    decide, and a misspelt one decided nothing. The usage error (exit 2, nothing run) now names the near miss."""
    mine = tmp_path / "hw (2).py"
    mine.write_text("import numpy as np\n\ndef vggClassifier(features, W1, b1, W2, b2, W3, b3):\n    return None\n")
    code, _, err = run_cli(capsys, "check", mine)
    assert code == 2
    assert "did you mean to name 'vggClassifier' as 'vgg_classifier' (exercise vgg_classifier)?" in err
    assert "--exercise ID (one of: " in err
    mine.write_text("def helper():\n    return 1\n")  # nothing near: the plain question, as before
    code, _, err = run_cli(capsys, "check", mine)
    assert code == 2 and "Name the exercise with --exercise" in err


def test_a_students_repository_with_helpers_grades_the_file_named_after_the_exercise(tmp_path, capsys, monkeypatch):
    """A student's CI job grades their whole repository (`grade . --student ID`): one that held the notebook beside a
    helpers.py or the student's own tests stopped with exit 2 ("holds 3"). The only file named after the exercise is
    graded, as Gradescope's submission is chosen, and the others are left out with a note; a repository without
    such a file still stops with the files it holds."""
    monkeypatch.setenv("GRADER_SECRET", "course")
    repo = make_class(tmp_path / "repo", {"vgg_classifier.py": "correct/matmul.py",
                                          "helpers.py": "buggy/missing-bias.py",
                                          "tests/test_vgg.py": "buggy/flatten-order.py"})
    code, out, err = run_cli(capsys, "grade", repo, *BASE[:-1], "--student", "ana", "--json")  # not -q: the notes
    assert code == 0, err
    assert '"score": 17.0' in out and "helpers.py" in err and "named after the exercise" in err
    (repo / "helpers.py").rename(repo / "other.py")
    (repo / "vgg_classifier.py").rename(repo / "draft.py")
    code, _, err = run_cli(capsys, "grade", repo, *BASE, "--student", "ana")
    assert code == 2 and "holds 3" in err
