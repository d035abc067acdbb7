"""`grader grade` without --exercise or --assignment grades the assignment the submitted notebooks name in their
metadata (metadata.grader.assignment), saying so on stderr, as it picks the exercise the submissions define. The
notebook is the student's file: only a name of an assignment of the course file is taken."""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from grader import choose as choose_mod, cli
from grader.assignment import Assignment
from grader.classfolder import Entry, Plan
from grader.errors import UsageError
from grader.exercise import Exercise

NAME = "fc-layers"
IDS = ["linear", "to_channels_last", "dense_scores", "gap_head"]
CLASS = ROOT / "exercises" / "course_examples" / NAME


def renamed(tmp_path: Path, name: str, assignment: str | None = NAME, source: str = "ada") -> Path:
    """A notebook of the bundled class saved as ``name``, naming ``assignment`` in its metadata (None: nothing)."""
    notebook = json.loads((CLASS / f"{source}.ipynb").read_text(encoding="utf-8"))
    if assignment is None:
        notebook["metadata"].pop("grader")
    else:
        notebook["metadata"]["grader"] = {"assignment": assignment}
    path = tmp_path / name
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def choose(*paths: Path, **given) -> Exercise | Assignment:
    args = argparse.Namespace(exercise=None, assignment=None, exercises_dir=None, solutions_dir=None)
    for key, value in given.items():
        setattr(args, key, value)
    plan = Plan(tuple(Entry(p, p.stem) for p in paths))
    return choose_mod.what_to_grade(args, plan)


def test_a_class_of_assignment_notebooks_is_graded_as_that_assignment(tmp_path, capsys):
    path = renamed(tmp_path, "ada.ipynb")
    code = cli.main(["grade", str(path), "--no-full-scale", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"grading assignment '{NAME}', the one the submitted notebooks name" in err
    result = json.loads(out)
    assert result["exercise"] == NAME and [s["exercise"] for s in result["sections"]] == IDS
    assert result["score"] == result["max_score"] > 0


def test_the_metadata_is_read_only_when_nothing_is_named(tmp_path, capsys):
    ada, plain = renamed(tmp_path, "ada.ipynb"), tmp_path / "bo.py"
    plain.write_text((ROOT / "solutions" / "linear.py").read_text(encoding="utf-8"))
    chosen = choose(ada, plain)  # a .py file names nothing: the notebook's assignment is the class's
    assert isinstance(chosen, Assignment) and chosen.plan.name == NAME
    assert "grading assignment" in capsys.readouterr().err
    chosen = choose(ada, exercise="linear")  # --exercise wins
    assert isinstance(chosen, Exercise) and chosen.id == "linear"
    chosen = choose(ada, assignment="ps1")  # nbgrader's folder name, not an assignment of the course
    assert isinstance(chosen, Assignment) and chosen.plan.name == NAME


@pytest.mark.parametrize("named", ["../../etc", "nope", "linear", ""])
def test_a_name_the_course_lacks_is_not_taken(tmp_path, capsys, named):
    path = renamed(tmp_path, "ada.ipynb", named)
    code = cli.main(["grade", str(path), "--no-full-scale"])
    err = capsys.readouterr().err
    assert code == 2 and "Name the exercise with --exercise" in err and "grading assignment" not in err, err
    assert "Traceback" not in err


def test_notebooks_without_metadata_are_chosen_as_before(tmp_path, capsys):
    path = renamed(tmp_path, "linear.ipynb", None)
    chosen = choose(path)
    assert isinstance(chosen, Exercise) and chosen.id == "linear"  # its name, as before
    assert "grading assignment" not in capsys.readouterr().err


def test_notebooks_naming_two_assignments_are_a_usage_error(tmp_path):
    exercises = tmp_path / "exercises"
    for exercise_id in ("linear", "gap_head"):
        shutil.copytree(ROOT / "exercises" / exercise_id, exercises / exercise_id,
                        ignore=shutil.ignore_patterns("__pycache__", "examples"))
    (exercises / "course.toml").write_text("[assignment.one]\nexercises = [\"linear\", \"gap_head\"]\n"
                                           "[assignment.two]\nexercises = { gap_head = 2, linear = 1 }\n")
    first, second = renamed(tmp_path, "a.ipynb", "one"), renamed(tmp_path, "b.ipynb", "two")
    with pytest.raises(UsageError, match=r"name 2 assignments of the course file .*\(one, two\).*--assignment"):
        choose(first, second, exercises_dir=exercises, solutions_dir=ROOT / "solutions")
    chosen = choose(first, renamed(tmp_path, "c.ipynb", "elsewhere"), exercises_dir=exercises,
                    solutions_dir=ROOT / "solutions")
    assert chosen.plan.name == "one" and chosen.plan.ids == ("linear", "gap_head")
